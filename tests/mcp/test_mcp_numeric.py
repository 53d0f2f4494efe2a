"""The MCP tools on numeric tasks (issue 20): values in the state and in
initialise_session (static values once), the new values a step changed, exact
numbers as JSON numbers or exact fraction strings, a failing comparison
explained with both sides, numeric failures with their codes, the metric of a
validated plan; every result checked against the tool's output schema."""

from __future__ import annotations

import pytest
from mcp import Client
from test_mcp_conformance import Conformance

from pypddlengine.mcp_server import build_server

pytestmark = pytest.mark.anyio

THIRDS = {
    "domain": """(define (domain thirds) (:requirements :numeric-fluents) (:predicates (done))
 (:functions (x) (y))
 (:action split :parameters () :precondition (> (x) 0.5) :effect (and (scale-down (x) 3)))
 (:action grow :parameters () :precondition (and) :effect (and (increase (x) 0.25)))
 (:action finish :parameters () :precondition (< (x) 0.5) :effect (and (done)))
 (:action break :parameters () :precondition (and) :effect (and (assign (x) (/ 1 (y))))))""",
    "problem": """(define (problem t) (:domain thirds) (:init (= (x) 1) (= (y) 0))
 (:goal (and (done) (<= (x) 0.5))) (:metric minimize (+ (x) (total-time))))""",
}


async def test_numeric_session_over_mcp() -> None:
    async with Client(build_server()) as client:
        c = Conformance(client)
        await c.list()
        init = await c.call("initialise_session", task="fuel-delivery/p02", feedback="heuristic")
        sid = init["session_id"]
        assert init["values"] == {"(fuel t1)": 19, "(cargo t1)": 0, "(fuel-used)": 0, "(money-spent)": 0}
        assert init["static_values"]["(distance l1 l2)"] == 2 and init["static_values"]["(weight p2)"] == 3
        assert init["feedback"]["heuristic"] == "h_add" and init["feedback"]["h"] == 7
        step = await c.call("execute_single_action", session_id=sid, action="(drive t1 l1 l2)")
        assert step["values_changed"] == {"(fuel t1)": 17, "(fuel-used)": 2}
        state = await c.call("query_current_state", session_id=sid)
        assert state["values"]["(fuel t1)"] == 17 and "(distance l1 l2)" not in state["values"]
        state = await c.call("query_current_state", session_id=sid, include_static=True)
        assert state["values"]["(distance l1 l2)"] == 2
        why = await c.call("explain_action", session_id=sid, action="(refuel t1 l2)")
        assert why["applicable"] is False and why["failure"]["unsatisfied"] == ["(depot l2)"]
        undo = await c.call("undo_last_action", session_id=sid)
        assert undo["values_changed"] == {"(fuel t1)": 19, "(fuel-used)": 0}
        await c.call("checkpoint", session_id=sid, op="save", checkpoint="start")
        await c.call("execute_single_action", session_id=sid, action="(load p1 t1 l1)")
        back = await c.call("checkpoint", session_id=sid, op="restore", checkpoint="start")
        assert back["values_changed"] == {"(cargo t1)": 0}
        plan = ["(load p1 t1 l1)", "(drive t1 l1 l2)", "(unload p1 t1 l2)"]
        verdict = await c.call("validate_complete_plan", session_id=sid, plan=plan)
        assert verdict["valid"] is False and verdict["metric"] == 2 and verdict["metric_direction"] == "minimize"


async def test_exact_values_and_numeric_failures_over_mcp() -> None:
    async with Client(build_server()) as client:
        c = Conformance(client)
        await c.list()
        sid = (await c.call("initialise_session", **THIRDS))["session_id"]
        step = await c.call("execute_single_action", session_id=sid, action="(split)")
        assert step["values_changed"] == {"(x)": "1/3"}  # not a float: the exact fraction
        failed = await c.call("execute_single_action", session_id=sid, action="(split)")
        assert failed["success"] is False
        assert failed["failure"]["unsatisfied"] == [  # messages round a value no decimal writes exactly
            "(> (x) 0.5) (left side ~0.333333, right side 0.5: short by ~0.166667)"]
        step = await c.call("execute_single_action", session_id=sid, action="(grow)")
        assert step["values_changed"] == {"(x)": "7/12"}
        broken = await c.call("execute_single_action", session_id=sid, action="(break)")
        assert broken["success"] is False and broken["failure"]["code"] == "DIVISION_BY_ZERO"
        assert "(<domain>:6:" in broken["failure"]["message"]
        verdict = await c.call("validate_complete_plan", session_id=sid, plan=["(split)", "(finish)"])
        assert verdict["valid"] is True and verdict["metric"] == "7/3"  # 1/3 + 2 steps
        verdict = await c.call("validate_complete_plan", session_id=sid, plan=["(break)"])
        assert verdict["failure"]["code"] == "DIVISION_BY_ZERO" and "metric" not in verdict
        paper = (await c.call("initialise_session", **THIRDS, feedback="paper"))["session_id"]
        step = await c.call("execute_single_action", session_id=paper, action="(grow)")
        assert set(step) == {"success", "state", "values", "goal_reached"} and step["values"] == {"(x)": 1.25}


async def test_a_reply_renders_the_state_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """execute, reset, undo and checkpoint restore decide whether to add the
    values from whether the reply shows the state: the state is rendered once
    for that, not a second time, and the values come with it."""
    from pypddlengine.mcp_server.render import View

    calls: list[int] = []
    real = View.state

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(View, "state", counted)
    async with Client(build_server()) as client:
        c = Conformance(client)
        await c.list()
        sid = (await c.call("initialise_session", task="fuel-delivery/p02"))["session_id"]
        await c.call("checkpoint", session_id=sid, op="save", checkpoint="start")
        for tool, args in [("execute_single_action", {"action": "(drive t1 l1 l2)"}),
                           ("undo_last_action", {}),
                           ("checkpoint", {"op": "restore", "checkpoint": "start"}),
                           ("reset_to_initial_state", {})]:
            calls.clear()
            reply = await c.call(tool, session_id=sid, include_state=True, **args)
            assert reply["state"] is not None and reply["values"]["(fuel t1)"] == 19 - 2 * (tool == "execute_single_action")
            assert len(calls) == 1, tool
