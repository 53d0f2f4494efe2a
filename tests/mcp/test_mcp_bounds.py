"""Issue 30 over MCP: numbers past the bound are NUMERIC_OVERFLOW (a step that
fails changes nothing, the session keeps answering), huge literals are refused
with their place, values print without float overflow, and a validation that
runs past its time limit is VALIDATION_TIMEOUT."""

from __future__ import annotations

import subprocess
import time

import pytest
from mcp import Client
from mcp_support import BW3, Tools

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


def _reach(n: int) -> tuple[str, str]:
    """A lifted task with ~n^2/2 derived atoms per state (reachability along a chain that steps cut and mend)."""
    domain = """(define (domain reach) (:requirements :typing :derived-predicates)
 (:types node)
 (:predicates (link ?x ?y - node) (reach ?x ?y - node) (cut ?x ?y - node))
 (:derived (reach ?x ?y) (link ?x ?y))
 (:derived (reach ?x ?y) (exists (?z - node) (and (link ?x ?z) (reach ?z ?y))))
 (:action snip :parameters (?x ?y - node) :precondition (link ?x ?y) :effect (and (not (link ?x ?y)) (cut ?x ?y)))
 (:action mend :parameters (?x ?y - node) :precondition (cut ?x ?y) :effect (and (link ?x ?y) (not (cut ?x ?y)))))"""
    objects = " ".join(f"n{i}" for i in range(n))
    init = " ".join(f"(link n{i} n{i + 1})" for i in range(n - 1))
    return domain, f"(define (problem r) (:domain reach) (:objects {objects} - node) (:init {init}) " \
                   f"(:goal (reach n0 n{n - 1})))"


async def test_a_long_validation_keeps_others_served_and_sigterm_ends_the_server() -> None:
    """Issue 30: a validation of a task with many derived atoms per state runs
    off the event loop, another client's calls are answered meanwhile, and one
    SIGTERM ends the server within its documented time (SHUTDOWN_GRACE_S) mid-call."""
    import contextlib
    import signal

    import anyio
    from mcp_support import start_http

    from pypddlengine.mcp_server.http import SHUTDOWN_GRACE_S

    domain, problem = _reach(250)
    proc, url = start_http("--max-validation-seconds", "120", stderr=subprocess.DEVNULL)
    try:
        waits: list[float] = []
        stopped_in = float("inf")
        with contextlib.suppress(Exception):
            async with Client(url) as heavy_client, Client(url) as other:
                heavy, light = Tools(heavy_client), Tools(other)
                sid = (await heavy.ok("initialise_session", domain=domain, problem=problem, backend="lifted"))[
                    "session_id"]
                mine = (await light.ok("initialise_session", **BW3))["session_id"]
                async with anyio.create_task_group() as tg:
                    async def validate() -> None:
                        with contextlib.suppress(Exception):
                            await heavy.call("validate_complete_plan", session_id=sid,
                                             plan=["(snip n100 n101)", "(mend n100 n101)"] * 500)
                    tg.start_soon(validate)
                    await anyio.sleep(1.0)
                    for _ in range(3):
                        started = time.monotonic()
                        await light.ok("query_current_state", session_id=mine)
                        waits.append(time.monotonic() - started)
                    proc.send_signal(signal.SIGTERM)
                    started = time.monotonic()
                    while proc.poll() is None and time.monotonic() - started < 15:
                        await anyio.sleep(0.05)
                    stopped_in = time.monotonic() - started
                    tg.cancel_scope.cancel()
        if proc.poll() is None:
            stopped_in = float("inf")
        assert waits and max(waits) < 3.0, waits
        assert stopped_in < SHUTDOWN_GRACE_S + 1.5, stopped_in
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


async def test_a_reply_that_cannot_be_made_leaves_the_session_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    """INTERNAL_ERROR says 'the session is unchanged': then it is, even when the step itself succeeded."""
    from pypddlengine.mcp_server import render

    async with Client(build_server()) as client:
        tools = Tools(client)
        sid = (await tools.ok("initialise_session", domain=SQUARE, problem=_problem("(= (x) 2) (= (k) 1)")))[
            "session_id"]
        await tools.ok("execute_single_action", session_id=sid, action="(square)")

        def broken(*_: object) -> None:
            raise RuntimeError("injected")

        monkeypatch.setattr(render.View, "values_changed", broken)
        for _ in range(3):
            failed = await tools.error("execute_single_action", session_id=sid, action="(square)")
            assert failed.code == "INTERNAL_ERROR" and "unchanged" in failed.text
        monkeypatch.undo()
        assert (await tools.ok("query_action_history", session_id=sid))["length"] == 1
        state = await tools.ok("query_current_state", session_id=sid)
        assert state["step"] == 1 and "4" in str(state)
        assert (await tools.ok("execute_single_action", session_id=sid, action="(square)"))["success"]
