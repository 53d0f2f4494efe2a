"""An agent over MCP reaches the goal of bundled temporal tasks step by step
(issue 31): it waits (advance_time), starts durative actions and ends them
('(end ID)'), checking each step is listed by query_applicable_actions first;
its history is a timed plan that our validator and VAL accept. workshop/p02
requires concurrency (a lamp held while the repair runs); workshop/p04 has a
deadline (a timed literal closes the workshop at 54)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from mcp_support import Tools
from oracles import val_binary
from temporal_oracles import val_timed_verdict

from pypddlengine.bundled import bundled_task
from pypddlengine.temporal import parse_timed_plan

pytestmark = pytest.mark.anyio

PLANS = {
    "workshop/p02": "0: (hold-lamp t2 b1) [7]\n0.01: (repair t1 m1 b1) [6]\n6.02: (test t1 m1 b1) [2]\n",
    "workshop/p04": "0: (repair t2 m3 b2) [6]\n0: (walk t1 b2 b1) [3]\n6.01: (test t2 m3 b2) [2]\n"
                    "8.02: (walk t2 b2 b1) [3]\n11.03: (hold-lamp t1 b1) [12.03]\n11.04: (repair t2 m1 b1) [6]\n"
                    "17.05: (repair t2 m2 b1) [6]\n23.06: (test t2 m1 b1) [2]\n23.07: (test t1 m2 b1) [2]\n",
}


async def follow(tools: Tools, sid: str, plan: str) -> list[dict[str, Any]]:
    """Take a timed plan's starts and ends as steps, in time order, waiting between them."""
    events = []
    for n, step in enumerate(parse_timed_plan(plan)):
        events += [(step.time, 1, n, step), (step.time + step.duration, 0, n, step)]
    ids: dict[int, int] = {}
    replies = []
    for time, starts, n, step in sorted(events, key=lambda e: e[:3]):
        state = await tools.ok("query_current_state", session_id=sid)
        if Fraction(str(state["clock"])) < time:
            moved = await tools.ok("advance_time", session_id=sid, to=float(time))
            assert moved["success"], moved
        listed = await tools.ok("query_applicable_actions", session_id=sid)
        if starts:
            assert step.text in listed["actions"], (step.text, listed)
            reply = await tools.ok("execute_single_action", session_id=sid,
                                   action=f"{step.text} [{step.duration}]")
            ids[n] = max(r["id"] for r in reply["running"] if r["action"] == step.text)
        else:
            assert f"(end {ids[n]})" in listed["actions"], (ids[n], listed)
            reply = await tools.ok("execute_single_action", session_id=sid, action=f"(end {ids[n]})")
        assert reply["success"], reply
        replies.append(reply)
    return replies


@pytest.mark.parametrize("task", sorted(PLANS))
async def test_an_agent_starts_waits_ends_and_its_history_validates(tools: Tools, task: str) -> None:
    sid = (await tools.ok("initialise_session", task=task))["session_id"]
    replies = await follow(tools, sid, PLANS[task])
    assert replies[-1]["goal_reached"] is True and replies[-1]["running"] == []
    history = (await tools.ok("query_action_history", session_id=sid))["actions"]
    plan = "".join(line + "\n" for line in history)
    assert [(s.time, s.text, s.duration) for s in parse_timed_plan(plan)] == \
        [(s.time, s.text, s.duration) for s in parse_timed_plan(PLANS[task])]
    verdict = await tools.ok("validate_complete_plan", session_id=sid)
    assert verdict["valid"] is True, verdict
    if val_binary() is not None:
        domain, problem = bundled_task(task)
        assert val_timed_verdict(Path(domain), Path(problem), plan).valid


async def test_concurrency_is_required_and_the_deadline_holds(tools: Tools) -> None:
    p02 = (await tools.ok("initialise_session", task="workshop/p02"))["session_id"]
    alone = await tools.ok("execute_single_action", session_id=p02, action="(repair t1 m1 b1)")
    assert alone["success"] is False and alone["failure"]["unsatisfied"] == ["(lit b1)"]  # no lamp: no repair
    p04 = (await tools.ok("initialise_session", task="workshop/p04"))["session_id"]
    await follow(tools, p04, "0: (repair t2 m3 b2) [6]\n")
    assert (await tools.ok("advance_time", session_id=p04, to=53))["success"]
    await tools.ok("execute_single_action", session_id=p04, action="(test t2 m3 b2)")
    late = await tools.ok("advance_time", session_id=p04, next_event=True)  # the workshop closes at 54
    assert late["success"] is False and "over all" in late["failure"]["message"] and late["clock"] == 53
    why = await tools.ok("explain_action", session_id=p04, action="(end 2)")
    assert why["applicable"] is False and "55" in why["failure"]["message"]
