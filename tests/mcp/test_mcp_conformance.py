"""Every tool result conforms to the tool's declared output schema, over every transport.

The MCP specification: a tool with an ``outputSchema`` MUST return structured
results that conform to it, and clients SHOULD validate them (the TypeScript
SDK, hence the MCP Inspector and the hosts built on it, does so whenever
structured content is present). So each result here is checked the way that
client checks it: structured content present => it validates against the
tool's ``outputSchema`` with ``jsonschema``; a success of a tool with an output
schema => structured content present; ``isError`` => no structured content, a
first text block ``[CODE] message; hint: ...`` and the error as JSON in the
second (:func:`pypddlengine.mcp_server.wire.read_error`).

One scripted scenario calls every listed tool on its success paths (at the
feedback levels and renderings that shape results differently) and on at least
one error path each, over the in-process client, stdio and HTTP. A tool without
parameters (``list_bundled_tasks``) has no error a client can provoke; its
error format (and ``list_sessions``') is checked in process by forcing an
unexpected exception.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp_support import BW3, ERROR_LINE, check_error_format, http_server, stdio_params

from pypddlengine.mcp_server import build_server
from pypddlengine.mcp_server.wire import read_error

pytestmark = pytest.mark.anyio


class Conformance:
    """Calls tools and checks every result against the listed output schemas;
    records which tools answered successfully and with which error codes."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.schemas: dict[str, dict[str, Any]] = {}
        self.parameters: dict[str, set[str]] = {}
        self.ok: set[str] = set()
        self.errors: dict[str, set[str]] = defaultdict(set)
        self.checked = 0

    async def list(self) -> None:
        listing = await self.client.list_tools()
        for tool in listing.tools:
            data = tool.model_dump(by_alias=True, mode="json")
            assert data.get("outputSchema"), f"{tool.name} declares no output schema"
            validator = jsonschema.validators.validator_for(data["outputSchema"])
            validator.check_schema(data["outputSchema"])
            self.schemas[tool.name] = data["outputSchema"]
            self.parameters[tool.name] = set(data["inputSchema"].get("properties", {}))

    async def call(self, name: str, **arguments: Any) -> Any:
        result = await self.client.call_tool(name, arguments)
        self.checked += 1
        structured = result.structured_content
        if result.is_error:
            code = check_error_format(result)
            assert structured is None
            self.errors[name].add(code)
            return result
        schema = self.schemas[name]
        assert structured is not None, f"{name} succeeded without structured content"
        errors = sorted(jsonschema.validators.validator_for(schema)(schema).iter_errors(structured), key=str)
        assert not errors, f"{name}({arguments}) does not match its outputSchema: {errors[0].message}"
        self.ok.add(name)
        return structured

    async def error(self, name: str, code: str, **arguments: Any) -> dict[str, Any]:
        result = await self.call(name, **arguments)
        assert not isinstance(result, dict), f"{name}({arguments}) did not fail: {result}"
        error = read_error(result)
        assert error is not None and error["code"] == code, (code, result.content[0].text)
        assert error["tool"] == name
        return error


async def scenario(c: Conformance) -> None:
    """Every tool, success and error, on a 3-block task and a bundled one."""
    await c.list()
    await c.call("list_bundled_tasks")
    sid = (await c.call("initialise_session", **BW3, label="conformance"))["session_id"]
    paper = (await c.call("initialise_session", task="blocksworld/p01", feedback="paper"))["session_id"]
    full = (await c.call("initialise_session", **BW3, feedback="full", rendering="plain", max_steps=3))["session_id"]
    await c.error("initialise_session", "UNKNOWN_TASK", task="no-such-domain/p1")
    await c.error("initialise_session", "MISSING_ARGUMENT", domain=BW3["domain"])
    bad = BW3["domain"].replace("(holding ?b))", "(holdin ?b))", 1)
    located = await c.error("initialise_session", "UNDEFINED_PREDICATE", domain=bad, problem=BW3["problem"])
    assert located["location"]["file"] == "<domain>" and located["location"]["line"] > 1

    for s in (sid, paper, full):
        await c.call("query_current_state", session_id=s)
        await c.call("query_current_state", session_id=s, include_static=True)
        await c.call("query_applicable_actions", session_id=s)
    await c.call("query_applicable_actions", session_id=sid, schema="unstack", limit=1)
    await c.error("query_current_state", "UNKNOWN_SESSION", session_id="0" * 24)
    await c.error("query_applicable_actions", "INVALID_ARGUMENT", session_id=sid, schema="fly")

    step = await c.call("execute_single_action", session_id=sid, action="(unstack c a)")
    assert step["success"] is True
    inapplicable = await c.call("execute_single_action", session_id=sid, action="(stack a b)")
    assert inapplicable["success"] is False and inapplicable["failure"]["code"] == "INAPPLICABLE_ACTION"
    unknown = await c.error("execute_single_action", "UNKNOWN_ACTION", session_id=sid, action="(stak c b)")
    assert "stack" in unknown["suggestions"] and "did you mean 'stack'" in f"{unknown['message']}; {unknown['hint']}"
    await c.error("execute_single_action", "MISSING_ARGUMENT", session_id=sid)
    await c.call("execute_single_action", session_id=paper, action="(fly a)")  # paper level: success false
    await c.call("execute_single_action", session_id=full, action="(unstack c a)", include_state=True)
    await c.call("execute_single_action", session_id=full, action="(stack c c)")
    await c.call("execute_single_action", session_id=full, action="(put-down c)")
    await c.error("execute_single_action", "STEP_LIMIT", session_id=full, action="(pick-up b)")

    await c.call("explain_action", session_id=sid, action="(put-down c)")
    await c.call("explain_action", session_id=full, action="(stack a b)")
    await c.error("explain_action", "UNKNOWN_OBJECT", session_id=sid, action="(pick-up zz)")

    await c.call("undo_last_action", session_id=sid, include_state=True)
    await c.error("undo_last_action", "INVALID_ARGUMENT", session_id=sid, steps=0)
    await c.call("reset_to_initial_state", session_id=sid, include_state=True)
    await c.call("reset_to_initial_state", session_id=paper)
    await c.error("reset_to_initial_state", "UNKNOWN_SESSION", session_id="nope")

    for s in (sid, paper, full):
        await c.call("query_action_history", session_id=s)
    await c.error("query_action_history", "INVALID_ARGUMENT", session_id=sid, offset=-1)

    plan = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]
    assert (await c.call("validate_complete_plan", session_id=sid, plan=plan))["valid"] is True
    assert (await c.call("validate_complete_plan", session_id=sid, plan="\n".join(plan[:3])))["valid"] is False
    await c.call("validate_complete_plan", session_id=sid, plan=["(stack a b)"])
    await c.call("validate_complete_plan", session_id=full)
    await c.call("validate_complete_plan", session_id=paper, plan=plan)
    await c.error("validate_complete_plan", "UNBALANCED_PARENTHESES", session_id=sid, plan="(unstack c a")

    await c.call("checkpoint", session_id=sid, op="save", checkpoint="start")
    await c.call("execute_single_action", session_id=sid, action="(unstack c a)")
    await c.call("checkpoint", session_id=sid, op="restore", checkpoint="start", include_state=True)
    await c.call("checkpoint", session_id=sid, op="list")
    await c.call("checkpoint", session_id=sid, op="delete", checkpoint="start")
    await c.error("checkpoint", "UNKNOWN_CHECKPOINT", session_id=sid, op="restore", checkpoint="start")
    await c.error("checkpoint", "MISSING_ARGUMENT", session_id=sid, op="save")
    seen = await c.call("initialise_session", **BW3, observation="blocksworld-top2", detect_loops=True,
                        heuristic="lm_count", proof_budget=100)
    await c.call("execute_single_action", session_id=seen["session_id"], action="(pick-up b)")
    await c.call("execute_single_action", session_id=seen["session_id"], action="(put-down b)")
    await c.call("close_session", session_id=seen["session_id"])
    await c.error("initialise_session", "BAD_OBSERVATION_RULE", **BW3, observation="hide nothing")
    await temporal_scenario(c, sid)
    await c.call("list_sessions")
    if "limit" in c.parameters["list_sessions"]:  # a paginated listing
        await c.error("list_sessions", "INVALID_ARGUMENT", limit=0)
    for s in (sid, paper, full):
        await c.call("close_session", session_id=s)
    await c.error("close_session", "SESSION_CLOSED", session_id=sid)
    await c.error("no_such_tool", "UNKNOWN_TOOL")

    untested_errors = {t for t, p in c.parameters.items() if not p}  # no parameters: no error a client can cause
    assert c.ok == set(c.schemas), f"tools never called successfully: {set(c.schemas) - c.ok}"
    assert set(c.errors) - {"no_such_tool"} == set(c.schemas) - untested_errors, dict(c.errors)


async def temporal_scenario(c: Conformance, classical: str) -> None:
    """The tools on a temporal task (issue 31): the replies with a clock, running actions, starts and ends, and
    advance_time, to the goal of workshop/p02 (a dark bay: a lamp held while the repair runs)."""
    t = (await c.call("initialise_session", task="workshop/p02"))["session_id"]
    state = await c.call("query_current_state", session_id=t)
    assert state["clock"] == 0 and state["running"] == []
    page = await c.call("query_applicable_actions", session_id=t)
    assert {a["action"] for a in page["starts"]} == {"(hold-lamp t1 b1)", "(hold-lamp t2 b1)"}
    assert (await c.call("execute_single_action", session_id=t, action="(hold-lamp t2 b1) [7]"))["success"]
    refused = await c.call("execute_single_action", session_id=t, action="(repair t1 m1 b1)")
    assert refused["failure"]["code"] == "STEP_REFUSED" and refused["failure"]["unsatisfied"] == ["(lit b1)"]
    assert not (await c.call("explain_action", session_id=t, action="(repair t1 m1 b1)"))["applicable"]
    await c.error("execute_single_action", "UNKNOWN_ACTION", session_id=t, action="(fly t1)")
    assert (await c.call("advance_time", session_id=t, to=0.5))["clock"] == 0.5
    await c.call("execute_single_action", session_id=t, action="(repair t1 m1 b1)")
    await c.call("checkpoint", session_id=t, op="save", checkpoint="both")
    late = await c.call("advance_time", session_id=t, to=20)
    assert late["success"] is False and "must end by 6.5" in late["failure"]["message"]
    moved = await c.call("advance_time", session_id=t, next_event=True)
    assert moved["clock"] == 6.5 and [r["id"] for r in moved["may_end"]] == [2]
    assert (await c.call("query_applicable_actions", session_id=t))["ends"][0]["id"] == 2
    await c.call("execute_single_action", session_id=t, action="(end 2)")
    await c.call("advance_time", session_id=t, next_event=True)
    await c.call("execute_single_action", session_id=t, action="(end (hold-lamp t2 b1))")
    await c.call("advance_time", session_id=t, to=7.5)
    await c.call("execute_single_action", session_id=t, action="(test t1 m1 b1)")
    await c.call("advance_time", session_id=t, next_event=True)
    done = await c.call("execute_single_action", session_id=t, action="(end 3)")
    assert done["goal_reached"] is True and done["running"] == []
    history = await c.call("query_action_history", session_id=t)
    assert history["actions"] == ["0: (hold-lamp t2 b1) [7]", "0.5: (repair t1 m1 b1) [6]", "7.5: (test t1 m1 b1) [2]"]
    verdict = await c.call("validate_complete_plan", session_id=t)
    assert verdict["valid"] is True and verdict["makespan"] == 9.5
    bad = await c.call("validate_complete_plan", session_id=t, plan="0: (test t1 m1 b1) [2]", epsilon=0.001)
    assert bad["valid"] is False and bad["failure"]["time"] == 0
    await c.error("validate_complete_plan", "INVALID_ARGUMENT", session_id=classical, epsilon=0.01)
    await c.error("advance_time", "INVALID_ARGUMENT", session_id=classical, to=1)
    await c.error("advance_time", "MISSING_ARGUMENT", session_id=t)
    undone = await c.call("undo_last_action", session_id=t)
    assert undone["goal_reached"] is False
    restored = await c.call("checkpoint", session_id=t, op="restore", checkpoint="both")
    assert restored["checkpoints"] == [{"name": "both", "step": 2}]
    assert (await c.call("query_current_state", session_id=t))["clock"] == 0.5
    await c.call("reset_to_initial_state", session_id=t)
    paper = (await c.call("initialise_session", task="workshop/p01", feedback="paper"))["session_id"]
    assert "clock" in await c.call("query_current_state", session_id=paper)
    for s in (t, paper):
        await c.call("close_session", session_id=s)


async def test_every_tool_conforms_in_process() -> None:
    async with Client(build_server()) as client:
        c = Conformance(client)
        await scenario(c)
        assert c.checked > 50


async def test_every_tool_conforms_over_stdio() -> None:
    async with Client(stdio_params()) as client:
        await scenario(Conformance(client))


async def test_every_tool_conforms_over_http() -> None:
    with http_server() as url:
        async with Client(url) as client:
            await scenario(Conformance(client))


async def test_parameterless_tools_fail_in_the_error_format(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected exception in a tool without parameters is still an
    ``isError`` result without structured content (the only way such a tool
    can fail)."""
    import pypddlengine.mcp_server.tools as server_module

    def boom() -> list[str]:
        raise RuntimeError("disk on fire")

    server = build_server()
    monkeypatch.setattr(server_module, "bundled_tasks", boom)
    monkeypatch.setattr(server.store, "entries", boom)  # an unpaginated list_sessions reads all entries
    async with Client(server) as client:
        c = Conformance(client)
        await c.list()
        error = await c.error("list_bundled_tasks", "INTERNAL_ERROR")
        assert "disk on fire" not in error["message"]
        server.store.page = lambda *a, **k: boom()  # type: ignore[method-assign]
        await c.error("list_sessions", "INTERNAL_ERROR")  # its arguments are all optional


def test_the_error_line_reader_agrees_with_the_support_regex() -> None:
    from pypddlengine.mcp_server.wire import ERROR_LINE as WIRE_LINE

    line = "[UNKNOWN_ACTION] no action 'stak'; hint: did you mean 'stack'?"
    a, b = ERROR_LINE.match(line), WIRE_LINE.match(line)
    assert a and b and (a["code"], a["message"], a["hint"]) == (b["code"], b["message"], b["hint"])
    plain = {"is_error": True, "content": [{"type": "text", "text": line}]}
    assert read_error(plain) == {"code": "UNKNOWN_ACTION", "message": "no action 'stak'",
                                 "hint": "did you mean 'stack'?"}
    assert read_error({"isError": False, "content": []}) is None
