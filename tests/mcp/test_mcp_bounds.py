"""Issue 30 over MCP: numbers past the bound are NUMERIC_OVERFLOW (a step that
fails changes nothing, the session keeps answering), huge literals are refused
with their place, values print without float overflow, and a validation that
runs past its time limit is VALIDATION_TIMEOUT."""

from __future__ import annotations

import time

import pytest
from mcp import Client
from mcp_support import Tools

from pypddlengine.bundled import bundled_task
from pypddlengine.mcp_server import build_server

pytestmark = pytest.mark.anyio

SQUARE = """(define (domain sq) (:requirements :numeric-fluents)
 (:functions (x) (k))
 (:action square :parameters () :precondition (and) :effect (and (assign (x) (* (x) (x)))))
 (:action below :parameters () :precondition (< (x) (k)) :effect (and (increase (x) 1))))"""


def _problem(init: str) -> str:
    return f"(define (problem p) (:domain sq) (:init {init}) (:goal (> (x) 1000)))"


async def test_overflow_is_typed_and_the_session_survives() -> None:
    async with Client(build_server()) as client:
        tools = Tools(client)
        sid = (await tools.ok("initialise_session", domain=SQUARE, problem=_problem("(= (x) 2) (= (k) 1)")))[
            "session_id"]
        for _ in range(10):
            await tools.ok("execute_single_action", session_id=sid, action="(square)")
        started = time.monotonic()
        for _ in range(3):  # retries change nothing either
            failed = await tools.ok("execute_single_action", session_id=sid, action="(square)")
            assert not failed["success"] and failed["failure"]["code"] == "NUMERIC_OVERFLOW"
            assert "1,200 bits" in failed["failure"]["message"] and "<domain>:3:" in failed["failure"]["message"]
        assert time.monotonic() - started < 10
        history = await tools.ok("query_action_history", session_id=sid)
        assert history["length"] == 10
        state = await tools.ok("query_current_state", session_id=sid)
        assert state["step"] == 10
        verdict = await tools.ok("validate_complete_plan", session_id=sid)
        assert verdict["goal_reached"] and verdict["steps_applied"] == 10
        await tools.ok("undo_last_action", session_id=sid)
        assert (await tools.ok("query_current_state", session_id=sid))["step"] == 9


async def test_huge_literals_are_located_and_large_values_render() -> None:
    async with Client(build_server()) as client:
        tools = Tools(client)
        for literal in ("1" * 4301, "0." + "0" * 50_000 + "1", "1" + "0" * 400 + ".5"):
            refused = await tools.error("initialise_session", domain=SQUARE,
                                        problem=_problem(f"(= (x) 2)\n (= (k) {literal})"))
            assert refused.code == "NUMERIC_OVERFLOW" and "<problem>:2:" in refused.text
        big = "-1" + "0" * 300 + ".5"  # within the bound, past a double's exact decimals
        sid = (await tools.ok("initialise_session", domain=SQUARE, problem=_problem(f"(= (x) 2) (= (k) {big})")))[
            "session_id"]
        refused = await tools.ok("execute_single_action", session_id=sid, action="(below)")
        assert refused["failure"]["code"] == "INAPPLICABLE_ACTION" and "~-1e+300" in str(refused)
        explained = await tools.ok("explain_action", session_id=sid, action="(below)")
        assert "e+300" in str(explained)  # the 301-digit constant, approximately
        verdict = await tools.ok("validate_complete_plan", session_id=sid, plan=["(below)"])
        assert not verdict["valid"]


async def test_validation_time_limit() -> None:
    domain, problem = bundled_task("blocksworld/p01")
    async with Client(build_server(max_validation_seconds=1e-6)) as client:
        tools = Tools(client)
        sid = (await tools.ok("initialise_session", domain=domain, problem=problem))["session_id"]
        slow = await tools.error("validate_complete_plan", session_id=sid, plan=["(pick-up b)", "(put-down b)"] * 50)
        assert slow.code == "VALIDATION_TIMEOUT" and "--max-validation-seconds" in slow.text
        await tools.ok("query_current_state", session_id=sid)  # still answers
