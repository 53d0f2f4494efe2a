"""The runner: resume, reruns, the manifest check, the concurrency limit, and
runs that fail inside the harness."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from fake_server import Reply
from harness_scripts import DirectScript, lama_plan, run_with_fake_server

from pypddl_experiments.llm.clock import FakeClock
from pypddl_experiments.llm.provider_offline import ScriptedProvider
from pypddl_experiments.llm.records import ManifestMismatch, ResultsStore, read_records
from pypddl_experiments.llm.runner import ExperimentConfig, run_experiment
from pypddl_experiments.llm.tasks import TaskSpec, resolve_tasks
from pypddl_experiments.llm.types import CallParams, Msg, Turn


def oracle(blocks: Path) -> ScriptedProvider:
    """A scripted direct model answering every task with its lama-first plan."""
    texts = {p.read_text(): p.stem for p in blocks.glob("instance-*.pddl")}

    def answer(conversation: list[Msg], tools: Any, params: Any) -> Turn:
        name = next(v for k, v in texts.items() if k in conversation[-1].text)
        return Turn(text="```\n" + "\n".join(lama_plan(blocks, name)) + "\n```")

    return ScriptedProvider(answer)


def run(config: ExperimentConfig, tasks: list[TaskSpec], out: Path, provider: Any, **kw: Any) -> list[dict[str, Any]]:
    return anyio.run(lambda: run_experiment(config, tasks, ResultsStore(out), provider, **kw)).records


def test_resume_runs_only_what_is_missing(tmp_path: Path, blocks: Path) -> None:
    config = ExperimentConfig("direct", CallParams("m", 0.2), concurrency=2)
    first = run(config, resolve_tasks(str(blocks), limit=3), tmp_path, oracle(blocks))
    assert sorted(r["instance_id"] for r in first) == ["instance-1", "instance-2", "instance-3"]
    again = run(config, resolve_tasks(str(blocks), limit=5), tmp_path, oracle(blocks))
    assert sorted(r["instance_id"] for r in again) == ["instance-4", "instance-5"]
    records = list(read_records(tmp_path / "runs.jsonl"))
    assert len(records) == 5 and len({r["instance_id"] for r in records}) == 5
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert len(manifest["sessions"]) == 2


def test_a_torn_last_line_is_skipped_and_its_run_made_again(tmp_path: Path, blocks: Path) -> None:
    config = ExperimentConfig("direct", CallParams("m", 0.2))
    run(config, resolve_tasks(str(blocks), limit=1), tmp_path, oracle(blocks))
    with (tmp_path / "runs.jsonl").open("a") as fh:
        fh.write('{"schema": "pypddl.run/1", "method": "direct", "instance_id": "instance-2", "repl')
    again = run(config, resolve_tasks(str(blocks), limit=2), tmp_path, oracle(blocks))
    assert [r["instance_id"] for r in again] == ["instance-2"]


def test_replicates_and_reruns_of_an_outcome(tmp_path: Path, blocks: Path) -> None:
    tasks = resolve_tasks(str(blocks), limit=2)
    clock = FakeClock()
    never = ScriptedProvider(lambda c, t, p: Turn(text="(stack a a)"), clock=clock, latency_s=50.0)

    async def sleep(seconds: float) -> None:
        clock.advance(seconds)

    config = ExperimentConfig("direct", CallParams("m", 0.2), replicates=2, concurrency=1)
    records = run(config, tasks, tmp_path, never, clock=clock, sleep=sleep)
    assert sorted((r["instance_id"], r["replicate"], r["outcome"]) for r in records) == [
        ("instance-1", 0, "timeout"), ("instance-1", 1, "timeout"),
        ("instance-2", 0, "timeout"), ("instance-2", 1, "timeout")]
    rerun = ExperimentConfig("direct", CallParams("m", 0.2), replicates=2, rerun_outcomes=("timeout",))
    records = run(rerun, tasks, tmp_path, oracle(blocks))
    assert len(records) == 4 and {r["outcome"] for r in records} == {"solved"}
    latest = ResultsStore(tmp_path).latest()
    assert len(latest) == 4 and {r["outcome"] for r in latest.values()} == {"solved"}
    assert len(ResultsStore(tmp_path).records()) == 8  # append-only: the old records stay


def test_another_configuration_is_refused(tmp_path: Path, blocks: Path) -> None:
    tasks = resolve_tasks(str(blocks), limit=1)
    run(ExperimentConfig("direct", CallParams("m", 0.2)), tasks, tmp_path, oracle(blocks))
    with pytest.raises(ManifestMismatch, match="budget_s"):
        run(ExperimentConfig("direct", CallParams("m", 0.2), budget_s=60), tasks, tmp_path, oracle(blocks))
    with pytest.raises(ManifestMismatch, match="llm"):
        run(ExperimentConfig("direct", CallParams("m", 0.7)), tasks, tmp_path, oracle(blocks))
    records = run(ExperimentConfig("direct", CallParams("m", 0.2), budget_s=60), resolve_tasks(str(blocks), limit=2),
                  tmp_path, oracle(blocks), force=True)
    assert [r["budget_s"] for r in records] == [60]


def test_concurrency_limit(tmp_path: Path, blocks: Path) -> None:
    """Six tasks, answers that take 0.4 s, at most two runs at once."""
    script = DirectScript(blocks, {f"instance-{i}": "oracle" for i in range(1, 7)})

    def slow(request: Any) -> Reply:
        reply = script(request)
        reply.delay_s = 0.4
        return reply

    config = ExperimentConfig("direct", CallParams("m", 0.2), concurrency=2, budget_s=60)
    records, server = run_with_fake_server(slow, "openai", config, resolve_tasks(str(blocks), limit=6), tmp_path)
    assert len(records) == 6 and all(r["outcome"] == "solved" for r in records)
    assert server.max_in_flight == 2


def test_a_failure_inside_the_harness_is_recorded_and_the_experiment_goes_on(tmp_path: Path, blocks: Path) -> None:
    calls = {"n": 0}
    good = oracle(blocks)

    def flaky(conversation: list[Msg], tools: Any, params: Any) -> Turn:
        calls["n"] += 1
        if "BLOCKS-4-0" in conversation[-1].text:
            raise RuntimeError("boom")
        return good._script(conversation, tools, params)  # type: ignore[operator]

    records = run(ExperimentConfig("direct", CallParams("m", 0.2), concurrency=1),
                  resolve_tasks(str(blocks), limit=2), tmp_path, ScriptedProvider(flaky))
    by_id = {r["instance_id"]: r for r in records}
    assert (by_id["instance-1"]["outcome"], by_id["instance-1"]["outcome_detail"]) == ("error", "harness_error")
    assert "boom" in by_id["instance-1"]["validator"]["message"]
    assert by_id["instance-2"]["outcome"] == "solved"


def test_unknown_tools_in_the_tool_set_stop_the_experiment_before_any_run(tmp_path: Path, blocks: Path) -> None:
    from pypddl_experiments.llm.mcp_bridge import ToolboxSettings

    config = ExperimentConfig("agentic", CallParams("m"), toolbox=ToolboxSettings(tools=("execute_single_action",
                                                                                          "teleport")))
    with pytest.raises(LookupError, match="teleport"):
        run(config, resolve_tasks(str(blocks), limit=1), tmp_path, oracle(blocks))
    assert not (tmp_path / "runs.jsonl").exists()


def test_a_server_that_fails_to_start_for_one_run(tmp_path: Path, blocks: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import pypddl_experiments.llm.runner as runner_module
    from pypddl_experiments.llm.mcp_bridge import Toolbox

    opened = {"n": 0}

    class Flaky(Toolbox):
        async def __aenter__(self) -> Toolbox:
            opened["n"] += 1
            if opened["n"] == 2:  # the manifest's probe is the first; the first run's server fails
                raise OSError("server did not start")
            return await super().__aenter__()

    monkeypatch.setattr(runner_module, "Toolbox", Flaky)
    never = ScriptedProvider(lambda c, t, p: Turn(text="I give up."))
    records = run(ExperimentConfig("agentic", CallParams("m"), concurrency=1), resolve_tasks(str(blocks), limit=2),
                  tmp_path, never)
    by_id = {r["instance_id"]: r for r in records}
    assert (by_id["instance-1"]["outcome"], by_id["instance-1"]["outcome_detail"]) == ("error", "mcp_error")
    assert "server did not start" in by_id["instance-1"]["validator"]["message"]
    assert by_id["instance-1"]["usage"]["calls"] == 0
    assert by_id["instance-2"]["outcome"] == "early_exit"
