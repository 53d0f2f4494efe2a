"""How an agentic run ends, through the fake model server and the real SDKs
(both providers): plans sent as one line or in VAL format count as solved;
each kind of early exit is labelled; an endpoint that cannot be reached is an
error that a resumed experiment runs again; the task's other files are out of
the agent's reach."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import anyio
import pytest
from fake_server import FakeModelServer, FakeRequest, Reply
from harness_scripts import AgentScript, lama_plan, run_with_fake_server

from pypddl_experiments.llm.clock import FakeClock
from pypddl_experiments.llm.mcp_bridge import ToolboxSettings
from pypddl_experiments.llm.providers import create_provider
from pypddl_experiments.llm.records import ResultsStore, read_records
from pypddl_experiments.llm.runner import ExperimentConfig, run_experiment
from pypddl_experiments.llm.tasks import resolve_tasks
from pypddl_experiments.llm.types import CallParams

PROVIDERS = ["anthropic", "openai"]


def agentic(tmp: Path, blocks: Path, provider: str, script: Any, *, instance: str = "instance-1",
            transport: str = "inprocess", budget: float = 180.0) -> tuple[dict[str, Any], FakeModelServer,
                                                                          list[dict[str, Any]]]:
    config = ExperimentConfig("agentic", CallParams("scripted-model"), budget_s=budget,
                              toolbox=ToolboxSettings(transport=transport))
    clock = FakeClock()
    (record,), server = run_with_fake_server(script, provider, config,
                                             resolve_tasks(str(blocks / f"{instance}.pddl")), tmp, clock=clock)
    trace = [json.loads(line) for line in (tmp / record["trace_file"]).read_text().splitlines()]
    return record, server, trace


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("kind", ["one_line", "val_format"])
def test_a_plan_in_one_line_or_in_val_format_is_solved(tmp_path: Path, blocks: Path, provider: str,
                                                       kind: str) -> None:
    """The server accepts these plans (it reads them with the engine's plan
    parser), so the harness must too: they were recorded as early exits."""
    record, server, trace = agentic(tmp_path, blocks, provider, AgentScript(blocks, {"instance-1": kind}))
    plan = lama_plan(blocks, "instance-1")
    assert (record["outcome"], record["outcome_detail"], record["plan_valid"]) == ("solved", "validated", True)
    assert record["plan"] == plan and record["plan_length"] == len(plan)
    sent = next(e for e in trace if e["type"] == "tool_call" and e["name"] == "validate_complete_plan")
    assert isinstance(sent["args"]["plan"], str) and ("\n" in sent["args"]["plan"]) is (kind == "val_format")
    assert next(e for e in trace if e["type"] == "harness_validation")["valid"] is True


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("kind", "detail"), [
    ("early_exit", "declared_unsolvable"),  # the paper's early exit
    ("stopped", "stopped"),
    ("goal_unvalidated", "goal_not_validated"),
    ("invalid_then_stop", "invalid_final"),
    ("wrong_problem", "invalid_final"),
])
def test_each_early_exit_is_labelled(tmp_path: Path, blocks: Path, provider: str, kind: str, detail: str) -> None:
    record, _, _ = agentic(tmp_path, blocks, provider, AgentScript(blocks, {"instance-1": kind}))
    assert (record["outcome"], record["outcome_detail"]) == ("early_exit", detail)
    assert record["plan"] is None and record["final_text"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reply_cut_at_max_tokens_is_labelled(tmp_path: Path, blocks: Path, provider: str) -> None:
    script = AgentScript(blocks, {"instance-1": "goal_unvalidated"})

    def cut(request: FakeRequest) -> Reply:
        reply = script(request)
        return reply if reply.tool_calls else Reply(text="All blocks are where they bel", stop="max_tokens")

    record, _, _ = agentic(tmp_path, blocks, provider, cut)
    # cut off even though the goal was reached: the cut is what ended the run
    assert (record["outcome"], record["outcome_detail"]) == ("early_exit", "max_tokens")


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
def test_the_plan_file_beside_the_task_is_refused(tmp_path: Path, blocks: Path, provider: str,
                                                  transport: str) -> None:
    """The agent asks for its task's lama-first plan file as the problem: the
    server refuses without reading it, and nothing of the plan reaches the
    model; the prompt names the task's files, never their paths."""
    record, server, trace = agentic(tmp_path, blocks, provider, AgentScript(blocks, {"instance-1": "peek"}),
                                    transport=transport)
    assert record["outcome"] == "solved" and record["agent"]["error_codes"] == {"FILE_ACCESS_DENIED": 1}
    peek = next(e for e in trace if e["type"] == "tool_result")
    assert peek["is_error"] and "FILE_ACCESS_DENIED" in peek["text"]
    first_step = lama_plan(blocks, "instance-1")[0]
    answered = server.requests[1].tool_results()[0]
    assert answered["is_error"] and first_step not in answered["text"] and "plans-lama-first" not in answered["text"]
    prompt = server.requests[0].user_text()
    assert "Domain (file domain.pddl)" in prompt and "Problem (file instance-1.pddl)" in prompt
    assert str(blocks) not in json.dumps(server.requests[0].body)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("method", ["direct", "agentic"])
def test_an_unreachable_endpoint_is_an_error_run_again_on_resume(tmp_path: Path, blocks: Path, provider: str,
                                                                 method: str) -> None:
    """A wrong --base-url (connection refused): an error at once, never a
    timeout; the same experiment run again (the right URL now) redoes it."""
    tasks = resolve_tasks(str(blocks / "instance-1.pddl"))
    config = ExperimentConfig(method, CallParams("scripted-model", 0.2 if method == "direct" else None))

    async def wrong_url() -> list[dict[str, Any]]:
        path = "/v1" if provider == "openai" else ""
        bad = create_provider(provider, "scripted-model", base_url=f"http://127.0.0.1:{_closed_port()}{path}")
        try:
            return (await run_experiment(config, tasks, ResultsStore(tmp_path), bad)).records
        finally:
            await bad.aclose()

    (record,) = anyio.run(wrong_url)
    assert (record["outcome"], record["outcome_detail"]) == ("error", "unreachable")
    assert record["wall_s"] < 10 and record["retries"] == 0 and not record["contaminated"]
    assert "ConnectionRefusedError" in record["errors"][0]["message"]
    from harness_scripts import DirectScript

    script = (DirectScript if method == "direct" else AgentScript)(blocks, {"instance-1": "oracle"})
    (again,), _ = run_with_fake_server(script, provider, config, tasks, tmp_path)
    assert again["outcome"] == "solved"
    assert [r["outcome"] for r in read_records(tmp_path / "runs.jsonl")] == ["error", "solved"]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_rate_limit_past_the_deadline_is_left_out_of_the_report_then_rerun(tmp_path: Path, blocks: Path,
                                                                             provider: str) -> None:
    """A 429 asking to wait past the deadline: a timeout flagged
    contaminated; the report leaves it out of Table II, the blocks and
    McNemar and lists it (or refuses); --rerun-contaminated redoes it."""
    from click.testing import CliRunner
    from harness_scripts import DirectScript

    from pypddl_experiments.cli import experiment

    tasks = resolve_tasks(str(blocks / "instance-*.pddl"), limit=3)
    oracle = DirectScript(blocks, {t.instance_id: "oracle" for t in tasks})

    def limited(request: FakeRequest) -> Reply:
        if oracle.instance(request) == "instance-2":
            return Reply(status=429, error_message="slow down", headers={"retry-after": "500"})
        return oracle(request)

    config = ExperimentConfig("direct", CallParams("scripted-model", 0.2))
    records, _ = run_with_fake_server(limited, provider, config, tasks, tmp_path / "direct", clock=FakeClock())
    by_id = {r["instance_id"]: r for r in records}
    assert (by_id["instance-2"]["outcome"], by_id["instance-2"]["outcome_detail"]) == ("timeout", "rate_limited")
    assert by_id["instance-2"]["contaminated"] and by_id["instance-2"]["wall_s"] < 1
    agentic_config = ExperimentConfig("agentic", CallParams("scripted-model"))
    run_with_fake_server(AgentScript(blocks, {t.instance_id: "oracle" for t in tasks}), provider, agentic_config,
                         tasks, tmp_path / "agentic", clock=FakeClock())

    sources = [str(tmp_path / "direct"), str(tmp_path / "agentic")]
    result = CliRunner().invoke(experiment, ["report", *sources, "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "Direct LLM: 2/2 solved" in result.output and "1 contaminated left out" in result.output
    pair = (tmp_path / "r" / "mcnemar.csv").read_text().splitlines()[1].split(",")
    assert pair[:3] == ["Direct LLM", "Agentic LLM", "2"]  # compared on the two clean instances only
    md = (tmp_path / "r" / "report.md").read_text()
    assert "| Direct LLM | instance-2 | timeout | rate_limited | rate_limit |" in md
    refused = CliRunner().invoke(experiment, ["report", *sources, "--out", str(tmp_path / "r2"),
                                              "--contaminated", "refuse"])
    assert refused.exit_code == 2 and "--rerun-contaminated" in refused.output

    rerun = ExperimentConfig("direct", CallParams("scripted-model", 0.2), rerun_contaminated=True)
    (again,), _ = run_with_fake_server(oracle, provider, rerun, tasks, tmp_path / "direct", clock=FakeClock())
    assert again["instance_id"] == "instance-2" and again["outcome"] == "solved" and not again["contaminated"]
    result = CliRunner().invoke(experiment, ["report", *sources, "--out", str(tmp_path / "r3")])
    assert "Direct LLM: 3/3 solved" in result.output and "contaminated" not in result.output
