"""initialise_session's backend option (issue 21): a lifted session says so
in its summary, has no ground-action count, steps like a grounded one, and
its heuristic feedback says plainly that distances are off."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.anyio


async def test_lifted_and_grounded_sessions_over_mcp(tools) -> None:  # type: ignore[no-untyped-def]
    lifted = await tools.ok("initialise_session", task="blocksworld/p03", backend="lifted", feedback="heuristic")
    grounded = await tools.ok("initialise_session", task="blocksworld/p03", backend="grounded")
    auto = await tools.ok("initialise_session", task="blocksworld/p03")
    assert lifted["backend"] == "lifted" and "lifted" in lifted["backend_note"]
    assert lifted.get("ground_actions") is None
    assert grounded["backend"] == "grounded" and grounded["ground_actions"] > 0
    assert auto["backend"] == "grounded" and "expected" in auto["backend_note"]
    assert lifted["applicable_now"] == grounded["applicable_now"]
    notes = (lifted.get("feedback") or {}).get("notes") or []
    assert any("off for this session" in n for n in notes), lifted.get("feedback")
    for init in (lifted, grounded):
        step = await tools.ok("execute_single_action", session_id=init["session_id"], action="(pick-up a)")
        assert step["success"] is True
    a = await tools.ok("query_current_state", session_id=lifted["session_id"])
    b = await tools.ok("query_current_state", session_id=grounded["session_id"])
    assert a["state"] == b["state"]
    report = await tools.ok("validate_complete_plan", session_id=lifted["session_id"])
    assert report["valid"] is False and report["steps_applied"] == 1


async def test_an_unknown_backend_is_a_clear_argument_error(tools) -> None:  # type: ignore[no-untyped-def]
    reply = await tools.call("initialise_session", task="blocksworld/p03", backend="partial")
    assert reply.is_error
