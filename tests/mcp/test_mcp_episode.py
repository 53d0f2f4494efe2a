"""A whole episode on an IPC task through the real SDK client, in process,
over stdio (a ``pypddl serve`` subprocess) and over streamable HTTP
(``pypddl serve --http`` on loopback): every answer is compared with the
engine driven directly on the same task."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from mcp import Client
from mcp_support import Tools, flatten, ipc_task, oracle, plan_steps, stdio_params

pytestmark = pytest.mark.anyio

TRANSPORTS = ["inprocess", "stdio", "http"]


@asynccontextmanager
async def connect(transport: str, server: Any, request: pytest.FixtureRequest) -> AsyncIterator[Tools]:
    if transport == "inprocess":
        target: Any = server
    elif transport == "stdio":
        target = stdio_params()
    else:
        target = request.getfixturevalue("http_url")
    async with Client(target) as client:
        yield Tools(client)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_whole_episode_matches_the_engine(transport: str, corpus, server, request) -> None:  # type: ignore[no-untyped-def]
    domain, problem, plan_file = ipc_task(corpus, 4)
    plan = plan_steps(plan_file)
    engine = oracle(domain, problem)
    # the HTTP server reads no files by default, so it gets the PDDL text
    task = (
        {"domain": domain.read_text(), "problem": problem.read_text()}
        if transport == "http"
        else {"domain": str(domain), "problem": str(problem)}
    )
    async with connect(transport, server, request) as tools:
        summary = await tools.ok("initialise_session", **task, label=f"episode-{transport}")
        sid = summary["session_id"]
        goal = engine.goal_status()
        assert summary["goal"] == sorted(goal.unsatisfied + goal.satisfied)
        assert summary["ground_actions"] == len(engine.task.actions)
        assert summary["objects"] == {"block": sorted(engine.lifted.object_display)}
        assert [a["name"] for a in summary["actions"]] == ["pick-up", "put-down", "stack", "unstack"]
        assert summary["applicable_now"] == len(engine.applicable_names())

        state = await tools.ok("query_current_state", session_id=sid)
        assert flatten(state["state"]) == engine.state_atoms(include_static=False)
        page = await tools.ok("query_applicable_actions", session_id=sid)
        assert page["actions"] == engine.applicable_names() and page["total"] == len(page["actions"])

        # a rejected action, with the preconditions that fail; nothing changes
        rejected = next(
            engine.task.render_action(a)
            for a in engine.task.sort_actions(engine.task.actions)
            if not a.applicable(engine.state)
        )
        step = await tools.ok("execute_single_action", session_id=sid, action=rejected)
        reason = engine.explain(rejected).failure
        assert step["success"] is False and step["step"] == 0
        assert step["failure"]["code"] == "INAPPLICABLE_ACTION"
        assert step["failure"]["unsatisfied"] == list(reason.unsatisfied) != []
        assert flatten((await tools.ok("query_current_state", session_id=sid))["state"]) == flatten(state["state"])

        for number, action in enumerate(plan, start=1):
            step = await tools.ok("execute_single_action", session_id=sid, action=action)
            expected = engine.execute(action)
            assert step["success"] and step["step"] == number
            assert step["added"] == list(expected.added) and step["deleted"] == list(expected.deleted)
            assert step["goal_reached"] is expected.goal_reached is (number == len(plan))
        state = await tools.ok("query_current_state", session_id=sid)
        assert state["goal_reached"] and flatten(state["state"]) == engine.state_atoms(include_static=False)

        verdict = await tools.ok("validate_complete_plan", session_id=sid)
        assert verdict["valid"] and verdict["plan_source"] == "history" and verdict["length"] == len(plan)
        verdict = await tools.ok("validate_complete_plan", session_id=sid, plan=plan_file.read_text())
        assert verdict["valid"] and verdict["plan_source"] == "given"
        verdict = await tools.ok("validate_complete_plan", session_id=sid, plan=plan[:-1])
        assert not verdict["valid"] and verdict["unsatisfied_goals"] == list(engine.validate(plan[:-1]).unsatisfied_goals)

        history = await tools.ok("query_action_history", session_id=sid)
        assert history["actions"] == engine.plan() and history["length"] == len(plan)
        assert history["counters"] == {
            "steps_executed": len(plan), "failed_attempts": 1, "resets": 0, "undos": 0,
            "attempts_left": summary["max_steps"] - len(plan) - 1,
            "tool_calls": 10 + len(plan),  # every call on this session so far, this one included
        }
        closed = await tools.ok("close_session", session_id=sid)
        assert closed["closed"] and closed["goal_reached"] and closed["plan_length"] == len(plan)
        assert (await tools.error("query_current_state", session_id=sid)).code == "SESSION_CLOSED"
