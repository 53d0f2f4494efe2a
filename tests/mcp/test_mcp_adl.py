"""MCP smoke test on an ADL task (issue 11): initialise, applicable actions,
an execute whose reply lists the conditional effects that fired, derived
atoms marked in the state, and a failed precondition explained per part."""

from __future__ import annotations

import pytest
from adl_cases import COST_DOMAIN, DOMAIN, PROBLEM, cost_problem
from mcp_support import flatten

pytestmark = pytest.mark.anyio


async def test_adl_episode_over_mcp(tools) -> None:  # type: ignore[no-untyped-def]
    init = await tools.ok("initialise_session", domain=DOMAIN, problem=PROBLEM, feedback="progress")
    sid = init["session_id"]
    assert "(exists (?r - room) (at b1 ?r))" in init["goal"]
    state = await tools.ok("query_current_state", session_id=sid)
    assert "seen (derived)" in state["state"] and state["state"]["seen (derived)"] == ["r1", "r2"]
    actions = await tools.ok("query_applicable_actions", session_id=sid)
    names = flatten(actions["actions"]) if isinstance(actions["actions"], dict) else actions["actions"]
    assert "(move r1 r3)" in names and "(switch r1)" in names
    step = await tools.ok("execute_single_action", session_id=sid, action="(move r1 r3)")
    assert step["success"] is True
    assert step["fired_effects"] == ["when (at b1 r1) for ?b=b1: (at b1 r3) (not (at b1 r1))"]
    assert "(at b1 r3)" in step["added"] and "(seen r3)" in step["added"] and "(seen r1)" in step["deleted"]
    assert step["goal_reached"] is True
    # darkness: switch r2 off from r2 is impossible (the robot is in r3); switch r3 (unlit) lights it
    step = await tools.ok("execute_single_action", session_id=sid, action="(switch r3)")
    assert step["fired_effects"] == ["when (not (lit r3)): (lit r3)"]


async def test_conditional_costs_are_charged_per_firing(tools, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 25 item 1: the verdict's cost counts a conditional cost once per
    firing, as VAL does (b: 1 + 2 x 100; c: (w i1) + 1 + (w i2) + 1)."""
    from oracles import val_binary, val_value

    init = await tools.ok("initialise_session", domain=COST_DOMAIN, problem=cost_problem(2))
    sid = init["session_id"]
    reply = await tools.ok("validate_complete_plan", session_id=sid, plan=["(b)", "(c)"])
    assert reply["valid"] is True and reply["cost"] == 218
    step = await tools.ok("execute_single_action", session_id=sid, action="(b)")
    assert step["fired_effects"] == ["when (m i1) for ?x=i1: (increase (total-cost) 100)",
                                     "when (m i2) for ?x=i2: (increase (total-cost) 100)"]
    if val_binary() is not None:
        (tmp_path / "d.pddl").write_text(COST_DOMAIN)
        (tmp_path / "p.pddl").write_text(cost_problem(2))
        assert val_value(tmp_path / "d.pddl", tmp_path / "p.pddl", "(b)\n(c)\n") == (True, 218.0)
