"""``--provider offline`` (issue 25 item 10): the experiment pipeline, run,
report and replay, end to end with no API key, no model and no network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pypddl_experiments.cli import experiment
from pypddl_experiments.llm.provider_offline import greedy_plan
from pypddlengine.bundled import bundled_task
from pypddlengine.validate import validate_plan


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.parametrize("method", ["direct", "agentic"])
def test_offline_run_report_replay_without_a_key(tmp_path: Path, method: str, no_keys: None) -> None:
    runner = CliRunner()
    out = tmp_path / method
    run = runner.invoke(experiment, ["run", "--method", method, "--provider", "offline", "--tasks", "blocksworld",
                                     "--limit", "3", "--budget", "60", "--out", str(out)])
    assert run.exit_code == 0, run.output
    assert "3 run(s) made (3 solved)" in run.output
    records = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    assert {r["outcome"] for r in records} == {"solved"}
    assert {r["llm"]["provider"] for r in records} == {"offline"}
    report = runner.invoke(experiment, ["report", str(out), "--out", str(tmp_path / "report")])
    assert report.exit_code == 0, report.output
    assert "3/3 solved" in report.output
    trace = records[0]["trace_file"]
    replay = runner.invoke(experiment, ["replay", str(out), trace])
    assert replay.exit_code == 0, replay.output
    assert "replay reproduces the record" in replay.output


def test_offline_plays_recorded_plans(tmp_path: Path, no_keys: None) -> None:
    """A folder of <instance>.plan files: the plan played is the recorded one,
    not a searched one (this one takes a detour the search would not)."""
    domain, problem = bundled_task("blocksworld/p01")
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "domain.pddl").write_text(domain.read_text())
    (tasks / "one.pddl").write_text(problem.read_text())
    plans = tmp_path / "plans"
    plans.mkdir()
    searched, _ = greedy_plan(domain.read_text(), problem.read_text())
    assert searched is not None
    detour = ["(pick-up b)", "(put-down b)", *searched]
    (plans / "one.plan").write_text("\n".join(detour) + "\n")
    out = tmp_path / "out"
    run = CliRunner().invoke(experiment, ["run", "--method", "agentic", "--provider", "offline", "--plans", str(plans),
                                          "--tasks", str(tasks), "--out", str(out)])
    assert run.exit_code == 0, run.output
    record = json.loads((out / "runs.jsonl").read_text())
    assert record["outcome"] == "solved" and record["plan"] == detour


def test_offline_agent_declares_a_proved_unsolvable_task(tmp_path: Path, no_keys: None) -> None:
    run = CliRunner().invoke(experiment, ["run", "--method", "agentic", "--provider", "offline", "--tasks",
                                          "blocksworld-table/u01", "--out", str(tmp_path / "u")])
    assert run.exit_code == 0, run.output
    record = json.loads((tmp_path / "u" / "runs.jsonl").read_text())
    assert (record["outcome"], record["outcome_detail"]) == ("early_exit", "declared_unsolvable")


@pytest.mark.parametrize("name", ["blocksworld/p03", "gripper/p02", "logistics/p01", "blocksworld-sizes/p02"])
def test_greedy_plans_are_valid(name: str) -> None:
    from pypddlengine.loading import load_task

    domain, problem = bundled_task(name)
    plan, proved = greedy_plan(domain.read_text(), problem.read_text())
    assert plan is not None and not proved
    assert validate_plan(load_task(domain, problem), plan).valid


def test_offline_refuses_other_providers_options(tmp_path: Path) -> None:
    run = CliRunner().invoke(experiment, ["run", "--method", "direct", "--provider", "offline", "--tasks",
                                          "blocksworld/p01", "--base-url", "http://127.0.0.1:9", "--out",
                                          str(tmp_path / "x")])
    assert run.exit_code == 2 and "offline" in run.output
    run = CliRunner().invoke(experiment, ["run", "--method", "direct", "--provider", "openai", "--tasks",
                                          "blocksworld/p01", "--out", str(tmp_path / "x")])
    assert run.exit_code == 2 and "--model is required" in run.output


def test_offline_agent_solves_under_a_small_reply_budget(tmp_path: Path, no_keys: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33: with every reply cut to 600 characters (its initialise_session
    replies then leave facts out), the offline agent still reaches its goals."""
    import pypddlengine.mcp_server as mcp_server

    built = mcp_server.build_server
    replies: list[int] = []

    def small(*args: Any, **options: Any) -> Any:
        replies.append(1)
        return built(*args, reply_budget=600, **options)

    monkeypatch.setattr(mcp_server, "build_server", small)
    out = tmp_path / "small"
    run = CliRunner().invoke(experiment, ["run", "--method", "agentic", "--provider", "offline", "--tasks",
                                          "blocksworld", "--limit", "3", "--budget", "60", "--out", str(out)])
    assert run.exit_code == 0, run.output
    assert "3 run(s) made (3 solved)" in run.output and replies
