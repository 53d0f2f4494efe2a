"""The agentic approach's MCP side: tool listings turned into provider tools,
pinned settings, tool sets, the stdio transport and harness-opened sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from fake_server import FakeRequest, Reply
from harness_scripts import AgentScript, lama_plan, run_with_fake_server

from pypddl_experiments.llm.clock import FakeClock
from pypddl_experiments.llm.mcp_bridge import PAPER_TOOLS, Toolbox, ToolboxSettings, tool_specs_from_listing
from pypddl_experiments.llm.provider_offline import ScriptedProvider
from pypddl_experiments.llm.records import ResultsStore
from pypddl_experiments.llm.runner import ExperimentConfig, run_experiment
from pypddl_experiments.llm.tasks import resolve_tasks
from pypddl_experiments.llm.types import CallParams, ToolCall, Turn

LISTING = [
    {"name": "initialise_session", "description": "Start.", "input_schema": {
        "type": "object", "properties": {"domain": {"type": "string"}, "feedback": {"type": "string"}},
        "required": ["domain", "feedback"]}},
    {"name": "query_current_state", "description": "State.", "inputSchema": {
        "type": "object", "properties": {"session_id": {"type": "string"}}}},
]


def test_tool_specs_from_a_listing() -> None:
    specs = tool_specs_from_listing(LISTING, tools=None, pinned={"initialise_session": {"feedback": "plain"}})
    assert [s.name for s in specs] == ["initialise_session", "query_current_state"]
    assert specs[0].json_schema == {"type": "object", "properties": {"domain": {"type": "string"}},
                                    "required": ["domain"]}
    assert LISTING[0]["input_schema"]["required"] == ["domain", "feedback"]  # the listing is not modified
    assert specs[1].json_schema == LISTING[1]["inputSchema"]  # v1 field names are read too
    assert [s.name for s in tool_specs_from_listing(LISTING, tools=["query_current_state"])] == ["query_current_state"]
    with pytest.raises(LookupError, match="validate_complete_plan"):
        tool_specs_from_listing(LISTING, tools=["validate_complete_plan"])


@pytest.mark.anyio
async def test_the_real_server_listing_and_a_pinned_call() -> None:
    settings = ToolboxSettings(tools=None, pinned={"initialise_session": {"feedback": "progress"}})
    async with Toolbox(settings) as tb:
        names = [t.name for t in tb.tools]
        assert set(PAPER_TOOLS) <= set(names) and len(names) > len(PAPER_TOOLS)
        init = next(t for t in tb.tools if t.name == "initialise_session")
        assert "feedback" not in init.json_schema["properties"]
        listed = next(t for t in tb.listing if t["name"] == "initialise_session")
        assert "feedback" in listed["input_schema"]["properties"]
        out = await tb.call("initialise_session", {"task": "blocksworld/p01"}, 30)
        assert not out.is_error and out.structured["feedback_level"] == "progress"
        assert out.arguments == {"task": "blocksworld/p01", "feedback": "progress"}
        bad = await tb.call("execute_single_action", {"session_id": "nope", "action": "(pick-up a)"}, 30)
        assert bad.is_error and "UNKNOWN_SESSION" in bad.text


def test_harness_opened_session(tmp_path: Path, blocks: Path) -> None:
    """--session-init harness: the harness opens the session and the model
    is told its id; the model never calls initialise_session."""
    plan = lama_plan(blocks, "instance-1")
    seen: dict[str, Any] = {}

    def agent(conversation: list[Any], tools: list[Any], params: CallParams) -> Turn:
        if "session_id" not in seen:
            text = conversation[1].text
            seen["session_id"] = text.rsplit("session_id ", 1)[1].rstrip(".")
            seen["tools"] = [t.name for t in tools]
        done = sum(len(m.results) for m in conversation if m.role == "tool")
        sid = seen["session_id"]
        if done < len(plan):
            return Turn(tool_calls=[ToolCall(f"c{done}", "execute_single_action", {"session_id": sid,
                                                                                   "action": plan[done]})])
        return Turn(tool_calls=[ToolCall("v", "validate_complete_plan", {"session_id": sid})])

    config = ExperimentConfig("agentic", CallParams("m"), session_init="harness", toolbox=ToolboxSettings())
    summary = anyio.run(lambda: run_experiment(config, resolve_tasks(str(blocks / "instance-1.pddl")),
                                               ResultsStore(tmp_path), ScriptedProvider(agent)))
    (record,) = summary.records
    assert record["outcome"] == "solved"
    assert [p.lower() for p in record["plan"]] == plan  # read back from the session's history
    assert "initialise_session" not in record["agent"]["by_tool"]
    assert seen["tools"] == list(PAPER_TOOLS)
    events = [json.loads(x) for x in (tmp_path / record["trace_file"]).read_text().splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds.count("harness_call") == 2  # the initialisation, and reading the history to re-validate it
    assert record["tools"]["session_init"] == "harness"


def test_stdio_server_subprocess(tmp_path: Path, blocks: Path) -> None:
    """The oracle agent against a `pypddl serve` subprocess over stdio."""
    script = AgentScript(blocks, {"instance-1": "oracle"})
    clock = FakeClock()

    config = ExperimentConfig("agentic", CallParams("m"), toolbox=ToolboxSettings(
        transport="stdio", pinned={"initialise_session": {"feedback": "plain"}}))
    (record,), _ = run_with_fake_server(script, "openai", config, resolve_tasks(str(blocks / "instance-1.pddl")),
                                        tmp_path, clock=clock)
    assert record["outcome"] == "solved", record["validator"]
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["config"]["tools"]["transport"] == "stdio"
    assert manifest["config"]["tools"]["command"][-1] == "serve"


def test_a_validate_call_after_the_deadline_does_not_count(tmp_path: Path, blocks: Path) -> None:
    """The model asks for validation of a correct plan, but its reply came
    after the budget ran out (fake clock): a timeout, not a success."""
    plan = lama_plan(blocks, "instance-1")
    clock = FakeClock()
    script = AgentScript(blocks, {"instance-1": "oracle"})

    def late(request: FakeRequest) -> Reply:
        reply = script(request)
        if any(c["name"] == "validate_complete_plan" for c in reply.tool_calls):
            clock.advance(1000)
        return reply

    (record,), _ = run_with_fake_server(late, "anthropic", ExperimentConfig("agentic", CallParams("m")),
                                        resolve_tasks(str(blocks / "instance-1.pddl")), tmp_path, clock=clock)
    assert record["outcome"] == "timeout"
    assert record["agent"]["by_tool"]["execute_single_action"] == len(plan)
