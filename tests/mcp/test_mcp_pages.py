"""query_applicable_actions on a state with too many actions to list at once
(issue 33): pages are still found, lazily and in the sorted order, the reply
says total_at_least instead of total, offsets continue, and an agent walks
on them (IPC 2023 childsnack, under a low work limit standing for the hard
tasks' ~37M initial actions)."""

from __future__ import annotations

import pytest
from corpus import CORPUS
from mcp import Client

from pypddlengine import Session
from pypddlengine.grounding import GroundingOptions
from pypddlengine.mcp_server import build_server
from pypddlengine.mcp_server.store import ServerOptions

pytestmark = pytest.mark.anyio

CHILDSNACK = CORPUS.parent / "ipc2023-learning-medium" / "childsnack"


@pytest.mark.skipif(not (CHILDSNACK / "p30.pddl").is_file(), reason="IPC 2023 medium tasks not found")
async def test_pages_of_a_state_too_large_to_count() -> None:
    from mcp_support import Tools

    domain, problem = CHILDSNACK / "domain.pddl", CHILDSNACK / "p30.pddl"
    oracle = Session(domain, problem, backend="lifted", options=GroundingOptions(max_actions=20_000_000))
    everything = oracle.applicable_names()
    server = build_server(ServerOptions(max_ground_actions=20_000))
    async with Client(server) as client:
        tools = Tools(client)
        init = await tools.ok("initialise_session", domain=str(domain), problem=str(problem), backend="lifted")
        sid = init["session_id"]
        assert init.get("applicable_now") is None
        first = await tools.ok("query_applicable_actions", session_id=sid, limit=40)
        assert first.get("total") is None and first["total_at_least"] > 40
        assert first["actions"] == everything[:40] and first["next_offset"] == 40
        second = await tools.ok("query_applicable_actions", session_id=sid, offset=40, limit=40)
        assert second["actions"] == everything[40:80]
        made = await tools.ok("query_applicable_actions", session_id=sid, schema="make_sandwich_no_gluten",
                              limit=5)
        assert made["actions"] == [a for a in everything if a.startswith("(make_sandwich_no_gluten ")][:5]
        for _ in range(10):
            page = await tools.ok("query_applicable_actions", session_id=sid, limit=50)
            step = await tools.ok("execute_single_action", session_id=sid, action=page["actions"][-1])
            assert step["success"] is True
