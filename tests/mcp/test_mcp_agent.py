"""Scripted agents that talk only MCP solve the first 20 tasks of the IPC-2000
Blocksworld set through the server, and validate_complete_plan confirms each.

* The replay agent executes the lama-first plan of each task, checking before
  every step that the server lists it among the applicable actions.
* The search agent (``pypddl demo``'s) finds plans itself: greedy best-first
  search on the h_FF feedback, moving with execute and undo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp_support import Tools, ipc_task, plan_steps, stdio_params

from pypddlengine.cli_serve import best_first, tool_caller
from pypddlengine.mcp_server import build_server

pytestmark = pytest.mark.anyio

FIRST_20 = range(1, 21)


async def replay(tools: Tools, domain: Path, problem: Path, plan: list[str]) -> dict[str, Any]:
    sid = (await tools.ok("initialise_session", domain=str(domain), problem=str(problem)))["session_id"]
    for number, action in enumerate(plan, start=1):
        name, *args = action.strip("()").split()
        page = await tools.ok("query_applicable_actions", session_id=sid, schema=name, involving=args[0])
        assert action.lower() in [a.lower() for a in page["actions"]], f"step {number} {action} is not applicable"
        step = await tools.ok("execute_single_action", session_id=sid, action=action)
        assert step["success"] and step["goal_reached"] is (number == len(plan))
    verdict = await tools.ok("validate_complete_plan", session_id=sid)
    await tools.ok("close_session", session_id=sid)
    return verdict


@pytest.mark.parametrize("transport", ["inprocess", "stdio"])
async def test_replay_agent_solves_the_first_20_ipc2000_tasks(corpus: Path, transport: str) -> None:
    target: Any = build_server() if transport == "inprocess" else stdio_params()
    solved = []
    async with Client(target) as client:
        tools = Tools(client)
        for n in FIRST_20:
            domain, problem, plan_file = ipc_task(corpus, n)
            plan = plan_steps(plan_file)
            verdict = await replay(tools, domain, problem, plan)
            assert verdict["valid"] and verdict["length"] == len(plan), (n, verdict)
            solved.append(n)
        assert (await tools.ok("list_sessions"))["live"] == 0
    assert solved == list(FIRST_20)


async def search(corpus: Path, tasks: range) -> dict[int, int]:
    lengths = {}
    async with Client(build_server(max_steps=1_000_000)) as client:
        call = tool_caller(client)
        for n in tasks:
            domain, problem, _ = ipc_task(corpus, n)
            sid = (await call("initialise_session", domain=str(domain), problem=str(problem),
                              feedback="heuristic"))["session_id"]
            found = await best_first(call, sid, g_weight=0.0)
            assert found is not None, f"instance-{n}: no plan"
            verdict = await call("validate_complete_plan", session_id=sid)
            assert verdict["valid"] and verdict["length"] == len(found[0])
            history = await call("query_action_history", session_id=sid)
            assert history["actions"] == found[0]
            await call("close_session", session_id=sid)
            lengths[n] = len(found[0])
    return lengths


async def test_search_agent_solves_small_ipc2000_tasks(corpus: Path) -> None:
    lengths = await search(corpus, range(1, 9))
    assert sorted(lengths) == list(range(1, 9))


@pytest.mark.slow
async def test_search_agent_solves_the_first_20_ipc2000_tasks(corpus: Path) -> None:
    lengths = await search(corpus, FIRST_20)
    assert sorted(lengths) == list(FIRST_20)
