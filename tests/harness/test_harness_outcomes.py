"""Each way a run can end, through the real SDKs and the fake HTTP server:
early exit, timeout (a reply slower than the budget), invalid plan, rate
limit, malformed tool call; for both providers."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fake_server import FakeModelServer, FakeRequest, Reply
from harness_scripts import AgentScript, DirectScript, lama_plan, run_with_fake_server

from pypddl_experiments.llm.clock import FakeClock
from pypddl_experiments.llm.mcp_bridge import ToolboxSettings
from pypddl_experiments.llm.runner import ExperimentConfig
from pypddl_experiments.llm.tasks import resolve_tasks
from pypddl_experiments.llm.types import CallParams

PROVIDERS = ["anthropic", "openai"]


def run_one(
    tmp: Path, blocks: Path, method: str, provider_name: str, script: Any, *, instance: str = "instance-1",
    budget: float = 180.0, clock: FakeClock | None = None,
) -> tuple[dict[str, Any], FakeModelServer, list[dict[str, Any]]]:
    """One run of ``method`` on ``instance``; its record, the server and its trace."""
    config = ExperimentConfig(method, CallParams("scripted-model", 0.2 if method == "direct" else None),
                              budget_s=budget, toolbox=ToolboxSettings() if method == "agentic" else None)
    (record,), server = run_with_fake_server(script, provider_name, config,
                                             resolve_tasks(str(blocks / f"{instance}.pddl")), tmp, clock=clock)
    trace = [json.loads(line) for line in (tmp / record["trace_file"]).read_text().splitlines()]
    return record, server, trace


@pytest.mark.parametrize("provider", PROVIDERS)
def test_early_exit(tmp_path: Path, blocks: Path, provider: str) -> None:
    """The agent stops calling tools before success: early exit, its text kept."""
    script = AgentScript(blocks, {"instance-1": "early_exit"})
    record, server, _ = run_one(tmp_path, blocks, "agentic", provider, script)
    assert (record["outcome"], record["outcome_detail"]) == ("early_exit", "declared_unsolvable")
    assert record["final_text"] == "After looking at the state, I believe this problem cannot be solved."
    assert record["agent"]["turns"] == 2 and record["agent"]["tool_calls"] == 1
    assert record["wall_s"] < 60 and len(server.requests) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("method", ["direct", "agentic"])
def test_timeout_by_a_reply_slower_than_the_budget(tmp_path: Path, blocks: Path, provider: str, method: str) -> None:
    """Real time: the model's reply takes 5 s, the budget is 1.5 s. The call is
    given the remaining budget as its timeout, so the run ends near 1.5 s."""
    started = time.monotonic()
    record, server, trace = run_one(tmp_path, blocks, method, provider, [Reply(text="too late", delay_s=5.0)],
                                    budget=1.5)
    elapsed = time.monotonic() - started
    assert (record["outcome"], record["outcome_detail"]) == ("timeout", "budget_exhausted")
    assert 1.4 <= record["wall_s"] < 3.0
    assert elapsed < 15  # not the 5 s reply plus SDK retries
    assert len(server.requests) == 1
    # the call cut at the deadline used tokens nobody reported: unknown, not zero
    assert record["usage"]["unreported_calls"] == 1 and record["usage"]["total"] is None
    assert record["usage"]["total_known"] == 0
    errors = [e for e in trace if e["type"] == "llm_call"]
    assert errors[-1]["error"]["kind"] == "timeout"


def test_timeout_on_a_fake_clock(tmp_path: Path, blocks: Path) -> None:
    """Fake time: every answer is an invalid plan and takes 30 s; a 180 s
    budget allows exactly six attempts."""
    clock = FakeClock()
    record, server, _ = run_one(tmp_path, blocks, "direct", "anthropic",
                                DirectScript(blocks, {"instance-1": "never"}, clock=clock, step_s=30.0), clock=clock)
    assert (record["outcome"], record["attempts"]) == ("timeout", 6)
    assert len(server.requests) == 6 and record["wall_s"] == 180.0


@pytest.mark.parametrize("provider", PROVIDERS)
def test_invalid_plan_then_a_fresh_attempt(tmp_path: Path, blocks: Path, provider: str) -> None:
    """An inapplicable plan is rejected by the validator; the next attempt
    starts from scratch with no feedback."""
    script = DirectScript(blocks, {"instance-1": "second"})
    record, server, trace = run_one(tmp_path, blocks, "direct", provider, script)
    assert (record["outcome"], record["attempts"]) == ("solved", 2)
    attempts = [e for e in trace if e["type"] == "attempt"]
    assert [a["valid"] for a in attempts] == [False, True]
    assert attempts[0]["message"].startswith("invalid plan: step 1")
    assert attempts[0]["parsed_plan"] == lama_plan(blocks, "instance-1")[1:]
    first, second = (r.body for r in server.requests)
    assert first["messages"] == second["messages"]  # no feedback, same fresh context


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("method", ["direct", "agentic"])
def test_rate_limit_is_retried_logged_and_flagged(tmp_path: Path, blocks: Path, provider: str, method: str) -> None:
    inner = (DirectScript if method == "direct" else AgentScript)(blocks, {"instance-1": "oracle"})
    at = 0 if method == "direct" else 3  # the agent meets it mid-run: its conversation must survive the wait

    def script(request: FakeRequest) -> Reply:
        if request.index == at:
            return Reply(status=429, error_message="slow down", headers={"retry-after": "2"})
        return inner(request)

    clock = FakeClock()
    record, server, trace = run_one(tmp_path, blocks, method, provider, script, clock=clock)
    assert record["outcome"] == "solved"
    assert record["contaminated"] is True and record["retries"] == 1
    assert [(e["kind"], e["status"]) for e in record["errors"]] == [("rate_limit", 429)]
    assert [e["wait_s"] for e in trace if e["type"] == "retry"] == [2.0]
    assert record["wall_s"] == pytest.approx(2.0)  # the wait counts against the budget
    assert record["usage"]["failed_calls"] == 1
    assert server.requests[at].body == server.requests[at + 1].body  # the same request, sent again


def test_rate_limit_longer_than_the_budget_is_a_timeout(tmp_path: Path, blocks: Path) -> None:
    clock = FakeClock()
    record, server, _ = run_one(tmp_path, blocks, "direct", "openai",
                                [Reply(status=429, headers={"retry-after": "500"})], clock=clock)
    assert record["outcome"] == "timeout" and record["contaminated"] is True
    assert len(server.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_malformed_tool_call(tmp_path: Path, blocks: Path, provider: str) -> None:
    """Broken JSON arguments and an unknown tool: not executed, answered with
    an error the model sees, and the run goes on to solve the task."""
    script = AgentScript(blocks, {"instance-1": "malformed"})
    record, server, trace = run_one(tmp_path, blocks, "agentic", provider, script)
    assert record["outcome"] == "solved"
    assert record["agent"]["malformed_calls"] == 2 and record["agent"]["tool_errors"] == 2
    results = [e for e in trace if e["type"] == "tool_result"]
    assert results[1]["is_error"] and "not valid JSON" in results[1]["text"]
    assert results[2]["is_error"] and "no tool named 'teleport'" in results[2]["text"]
    # what the model was sent back, in its provider's format
    third = server.requests[2]
    sent = third.tool_results()[-1]
    assert sent["is_error"] and "not valid JSON" in sent["text"]
    calls = [e for e in trace if e["type"] == "tool_call"]
    assert calls[1]["args_error"] and calls[1]["raw_arguments"].endswith('"action": "(pick-up')


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("stop", "outcome", "detail"), [("max_tokens", "early_exit", "max_tokens"),
                                                         ("refusal", "error", "refusal")])
def test_agent_turn_cut_off_or_refused(tmp_path: Path, blocks: Path, provider: str, stop: str, outcome: str,
                                       detail: str) -> None:
    record, _, _ = run_one(tmp_path, blocks, "agentic", provider, [Reply(text="I will", stop=stop)])
    assert (record["outcome"], record["outcome_detail"]) == (outcome, detail)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_fatal_api_error_ends_the_run(tmp_path: Path, blocks: Path, provider: str) -> None:
    record, server, _ = run_one(tmp_path, blocks, "direct", provider,
                                [Reply(status=401, error_type="authentication_error")])
    assert (record["outcome"], record["outcome_detail"]) == ("error", "auth_error")
    assert len(server.requests) == 1 and record["contaminated"] is False


def test_context_overflow_is_an_error(tmp_path: Path, blocks: Path) -> None:
    reply = Reply(status=400, error_message="prompt is too long: 300000 tokens > 200000 maximum")
    record, _, _ = run_one(tmp_path, blocks, "agentic", "anthropic", [reply])
    assert (record["outcome"], record["outcome_detail"]) == ("error", "context_overflow")
