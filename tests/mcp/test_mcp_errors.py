"""Bad calls: each is a tool error with the right stable code and the one
format ``[CODE] message; hint: ...``, no traceback ever reaches the client,
and the same session keeps working afterwards (state, history and
counters of the session untouched except for the failed-attempt count)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp_support import (
    BW3,
    BW3_PROBLEM,
    BW_DOMAIN,
    TRACEBACK_MARKERS,
    Tools,
    check_error_format,
    http_server,
    stdio_params,
)

from pypddlengine.mcp_server import ERROR_CODES, build_server
from pypddlengine.session import Session

pytestmark = pytest.mark.anyio

DOMAIN, PROBLEM = BW_DOMAIN, BW3_PROBLEM  # c on a, b on the table; objects a b c
SID = "<sid>"  # replaced by the live session's id

# (tool, arguments, expected code, does the call count as a failed execute attempt)
BAD_CALLS: list[tuple[str, dict[str, Any], str, bool]] = [
    ("query_current_state", {}, "MISSING_ARGUMENT", False),
    ("query_current_state", {"session_id": "0123456789abcdef01234567"}, "UNKNOWN_SESSION", False),
    ("query_current_state", {"sessionId": SID}, "MISSING_ARGUMENT", False),
    ("query_current_state", {"session_id": ["not", "a", "string"]}, "INVALID_ARGUMENT", False),
    ("execute_single_action", {"session_id": SID}, "MISSING_ARGUMENT", False),
    ("execute_single_action", {"session_id": SID, "action": 42}, "INVALID_ARGUMENT", False),
    ("execute_single_action", {"session_id": SID, "action": "(fly a)"}, "UNKNOWN_ACTION", True),
    ("execute_single_action", {"session_id": SID, "action": "(stak c a)"}, "UNKNOWN_ACTION", True),
    ("execute_single_action", {"session_id": SID, "action": "(pick-up a b)"}, "WRONG_ARITY", True),
    ("execute_single_action", {"session_id": SID, "action": "(pick-up zz)"}, "UNKNOWN_OBJECT", True),
    ("execute_single_action", {"session_id": SID, "action": "(pick-up b"}, "ACTION_SYNTAX", True),
    ("execute_single_action", {"session_id": SID, "action": ""}, "ACTION_SYNTAX", True),
    ("execute_single_action", {"session_id": SID, "action": "(pick-up b) (pick-up a)"}, "ACTION_SYNTAX", True),
    ("execute_single_action", {"session_id": SID, "action": "x" * 5000}, "INVALID_ARGUMENT", False),
    ("explain_action", {"session_id": SID, "action": "(unstak c a)"}, "UNKNOWN_ACTION", False),
    ("query_applicable_actions", {"session_id": SID, "offset": -1}, "INVALID_ARGUMENT", False),
    ("query_applicable_actions", {"session_id": SID, "limit": 0}, "INVALID_ARGUMENT", False),
    ("query_applicable_actions", {"session_id": SID, "schema": "fly"}, "INVALID_ARGUMENT", False),
    ("query_applicable_actions", {"session_id": SID, "involving": "zz"}, "UNKNOWN_OBJECT", False),
    ("undo_last_action", {"session_id": SID, "steps": 0}, "INVALID_ARGUMENT", False),
    ("validate_complete_plan", {"session_id": SID, "plan": "(pick-up b)\n(stack b"}, "UNBALANCED_PARENTHESES", False),
    ("validate_complete_plan", {"session_id": SID, "plan": 123}, "INVALID_ARGUMENT", False),
    ("validate_complete_plan", {"session_id": SID, "plan": ["(pick-up b)"] * 20_001}, "PLAN_TOO_LONG", False),
    ("initialise_session", {}, "MISSING_ARGUMENT", False),
    ("initialise_session", {"domain": DOMAIN}, "MISSING_ARGUMENT", False),
    ("initialise_session", {"task": "blocksworld/p99"}, "UNKNOWN_TASK", False),
    ("initialise_session", {"task": "blocksworld/p01", "domain": DOMAIN}, "INVALID_ARGUMENT", False),
    ("initialise_session", {"task": "blocksworld/p01", "feedback": "loud"}, "INVALID_ARGUMENT", False),
    ("initialise_session", {"domain": "blocks world", "problem": PROBLEM}, "NOT_PDDL", False),
    ("initialise_session", {"domain": "/no/such/dir/domain.pddl", "problem": PROBLEM}, "FILE_NOT_FOUND", False),
    ("initialise_session", {"domain": PROBLEM, "problem": DOMAIN}, "WRONG_FILE_KIND", False),
    ("initialise_session", {"domain": DOMAIN.replace(":effect", "effect", 1), "problem": PROBLEM}, "SYNTAX_ERROR",
     False),
    ("initialise_session", {"domain": DOMAIN.replace("(holding ?b))", "(holdin ?b))", 1), "problem": PROBLEM},
     "UNDEFINED_PREDICATE", False),
    ("query_state", {"session_id": SID}, "UNKNOWN_TOOL", False),
]


def _args(arguments: dict[str, Any], sid: str) -> dict[str, Any]:
    return {k: (sid if v == SID else v) for k, v in arguments.items()}


async def _snapshot(tools: Tools, sid: str) -> tuple[Any, ...]:
    state = await tools.ok("query_current_state", session_id=sid)
    history = await tools.ok("query_action_history", session_id=sid)
    return state["state"], history["actions"], history["counters"]


async def _still_works(tools: Tools, sid: str) -> None:
    step = await tools.ok("execute_single_action", session_id=sid, action="(unstack c a)")
    assert step["success"]
    undone = await tools.ok("undo_last_action", session_id=sid)
    assert undone["undone"] == ["(unstack c a)"]


def test_the_table_is_large_and_uses_documented_codes() -> None:
    assert len(BAD_CALLS) >= 15
    codes = {code for _, _, code, _ in BAD_CALLS}
    assert len(codes) >= 15
    pddl_codes = {"UNBALANCED_PARENTHESES", "SYNTAX_ERROR", "WRONG_FILE_KIND", "UNDEFINED_PREDICATE"}
    assert codes - pddl_codes <= set(ERROR_CODES)


@pytest.mark.parametrize(("tool", "arguments", "code", "counts"), BAD_CALLS,
                         ids=[f"{i:02d}-{c[0]}-{c[2]}" for i, c in enumerate(BAD_CALLS)])
async def test_bad_call_is_a_tool_error_and_the_session_survives(tools: Tools, tool, arguments, code, counts) -> None:  # type: ignore[no-untyped-def]
    sid = (await tools.ok("initialise_session", **BW3))["session_id"]
    state, history, counters = await _snapshot(tools, sid)
    reply = await tools.error(tool, **_args(arguments, sid))
    assert reply.code == code, reply.text
    assert reply.data["error"]["tool"] == tool
    state2, history2, counters2 = await _snapshot(tools, sid)
    assert (state2, history2) == (state, history)
    assert counters2.pop("tool_calls") >= counters.pop("tool_calls") + 2
    expected = dict(counters, failed_attempts=counters["failed_attempts"] + counts,
                    attempts_left=counters["attempts_left"] - counts)
    assert counters2 == expected
    await _still_works(tools, sid)


async def test_pddl_errors_carry_line_column_and_snippet(tools: Tools) -> None:
    broken = DOMAIN.replace("(holding ?b))", "(holdin ?b))", 1)
    reply = await tools.error("initialise_session", domain=broken, problem=PROBLEM)
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if "(holdin ?b)" in text)
    error = reply.data["error"]
    assert error["location"] == {"file": "<domain>", "line": line, "column": error["location"]["column"]}
    assert error["location"]["column"] > 1
    assert re.search(rf"<domain>:{line}:{error['location']['column']}: ", reply.text.splitlines()[0])
    assert "did you mean 'holding'?" in error["hint"]
    snippet = reply.text.splitlines()[1:]
    assert "(holdin ?b)" in snippet[0] and set(snippet[1].strip()) == {"^"}


async def test_an_unused_unsupported_requirement_is_a_warning_in_the_reply(tools: Tools) -> None:
    """Issue 25 item 6: accepted, but said (as the CLI says it on stderr); the paper level keeps its fields."""
    domain = BW_DOMAIN.replace("(:requirements :strips :typing)", "(:requirements :strips :typing :durative-actions)")
    init = await tools.ok("initialise_session", domain=domain, problem=BW3_PROBLEM)
    assert len(init["warnings"]) == 1
    assert init["warnings"][0].startswith("<domain>:3:34: warning[UNUSED_REQUIREMENT]: the requirement "
                                          "':durative-actions' is declared but not used"), init["warnings"]
    assert "warnings" not in await tools.ok("initialise_session", **BW3)
    paper = await tools.ok("initialise_session", domain=domain, problem=BW3_PROBLEM, feedback="paper")
    assert "warnings" not in paper


async def test_misnamed_argument_hint_names_the_real_parameter(tools: Tools) -> None:
    reply = await tools.error("execute_single_action", sessionId="x", action="(a)")
    assert "session_id" in reply.data["error"]["hint"] and "sessionId" in reply.data["error"]["hint"]


async def test_unexpected_exception_is_sanitised(tools: Tools, monkeypatch: pytest.MonkeyPatch) -> None:
    sid = (await tools.ok("initialise_session", **BW3))["session_id"]

    def boom(self: Session, action: Any) -> Any:
        raise RuntimeError("secret detail /home/user/private.py line 3")

    monkeypatch.setattr(Session, "execute", boom)
    reply = await tools.error("execute_single_action", session_id=sid, action="(unstack c a)")
    assert reply.code == "INTERNAL_ERROR" and "secret" not in reply.text and "RuntimeError" not in reply.text
    monkeypatch.undo()
    await _still_works(tools, sid)


async def test_errors_over_stdio_and_http_have_the_same_format() -> None:
    bad = [("query_current_state", {"session_id": "nope"}, "UNKNOWN_SESSION"),
           ("initialise_session", {"task": "nope/x"}, "UNKNOWN_TASK"),
           ("execute_single_action", {"session_id": "nope"}, "MISSING_ARGUMENT"),
           ("initialise_session", {"domain": "/etc/hostname", "problem": "p01"}, "FILE_ACCESS_DENIED")]
    with http_server() as url:
        async with Client(stdio_params("--no-files")) as stdio, Client(url) as http:
            for client in (stdio, http):
                tools = Tools(client)
                for tool, arguments, code in bad:
                    assert (await tools.error(tool, **arguments)).code == code


# ----------------------------------------------------------------------------- fuzzing

json_scalars = (
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.integers(min_value=-3, max_value=10_000) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=60)
    | st.sampled_from(["(unstack c a)", "(pick-up b)", "blocksworld/p01", "(define (domain", ")", "\x00", "../../etc",
                       "plain", "full", "compact", "stack", "a"])
)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8), inner, max_size=3), max_leaves=8)
counts = st.integers(min_value=-3, max_value=10**9)
actions = st.sampled_from(["(unstack c a)", "(pick-up b)", "(stack c b)", "(put-down c)", "pick-up(b)"]) | st.text()
PLAUSIBLE = {  # per parameter, values of the right type (often valid) to reach deep into each tool
    "offset": counts, "limit": counts, "steps": counts, "max_steps": counts,
    "action": actions, "plan": st.lists(actions, max_size=6) | actions.map(lambda a: a + "\n(pick-up b)"),
    "task": st.sampled_from(["blocksworld/p01", "blocksworld/p02", "blocksworld", "nope/p01"]) | st.text(),
    "domain": st.sampled_from([DOMAIN, "blocksworld", DOMAIN[:200]]) | st.text(),
    "problem": st.sampled_from([PROBLEM, "p01", "blocksworld/p01", PROBLEM[:100]]) | st.text(),
    "feedback": st.sampled_from(["plain", "progress", "heuristic", "full", "PLAIN"]),
    "rendering": st.sampled_from(["compact", "plain", "json"]),
    "schema": st.sampled_from(["stack", "unstack", "pick-up", "Stack", "fly"]),
    "involving": st.sampled_from(["a", "b", "c", "C", "zz"]),
    "include_state": st.booleans(), "include_static": st.booleans(), "label": st.text(max_size=80),
}


def test_garbage_arguments_never_crash_the_server_or_lose_the_session() -> None:
    """Per tool, any subset of its real parameters with any JSON values (and
    stray keys): never a crash (INTERNAL_ERROR) or a traceback, and the
    session answers afterwards."""
    server = build_server(max_steps=1_000_000)
    names = sorted(n for n in server.tool_parameters if n != "close_session")

    async def setup() -> str:
        async with Client(server) as client:
            return (await Tools(client).ok("initialise_session", **BW3))["session_id"]

    sid = anyio.run(setup)

    async def probe(tool: str, arguments: dict[str, Any]) -> None:
        async with Client(server) as client:
            result = await client.call_tool(tool, arguments)
            text = result.content[0].text if result.content else ""
            for marker in TRACEBACK_MARKERS:
                assert marker not in text
            if result.is_error:
                assert check_error_format(result) != "INTERNAL_ERROR", text
            else:
                assert json.loads(text) == result.structured_content
            await Tools(client).ok("query_current_state", session_id=sid)

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        tool = data.draw(st.sampled_from(names), label="tool")
        params = [p for p in server.tool_parameters[tool] if p != "session_id"]
        chosen = data.draw(st.lists(st.sampled_from(params), unique=True), label="params") if params else []
        arguments = {p: data.draw(PLAUSIBLE.get(p, json_values) | json_values, label=p) for p in chosen}
        if "session_id" in server.tool_parameters[tool] and data.draw(st.integers(0, 9), label="with sid"):
            arguments["session_id"] = sid
        arguments.update(data.draw(st.dictionaries(st.text(max_size=10), json_values, max_size=1), label="stray"))
        anyio.run(probe, tool, arguments)

    check()


def test_files_can_be_switched_off(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(PROBLEM)
    files = {"domain": str(tmp_path / "d.pddl"), "problem": str(tmp_path / "p.pddl")}

    async def main() -> None:
        async with Client(build_server(allow_files=False)) as client:
            assert (await Tools(client).error("initialise_session", **files)).code == "FILE_ACCESS_DENIED"
        async with Client(build_server()) as client:
            summary = await Tools(client).ok("initialise_session", **files)
            assert summary["sources"] == {"domain": f"file:{files['domain']}", "problem": f"file:{files['problem']}"}

    anyio.run(main)
