"""Checkpoints, loop detection and partial observability through the MCP tools:
results valid against each tool's output schema, errors in the one format,
answers equal to the engine driven directly."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp_support import BW3, BW3_PLAN, BW_DOMAIN, Tools, bw_problem, flatten

from pypddlengine import Session

pytestmark = pytest.mark.anyio


class SchemaTools(Tools):
    """Tools whose every successful reply is checked against the tool's output schema."""

    schemas: dict[str, dict[str, Any]]

    async def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        data = await super().ok(name, **arguments)
        jsonschema.validate(data, self.schemas[name])
        return data


@pytest.fixture
async def stools(server):  # type: ignore[no-untyped-def]
    async with Client(server) as client:
        t = SchemaTools(client)
        t.schemas = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
        yield t


async def test_save_restore_list_delete(stools: SchemaTools) -> None:
    sid = (await stools.ok("initialise_session", **BW3, rendering="plain"))["session_id"]
    for a in BW3_PLAN[:2]:
        await stools.ok("execute_single_action", session_id=sid, action=a)
    saved = await stools.ok("checkpoint", session_id=sid, op="save", checkpoint="c-down")
    assert saved["step"] == 2 and saved["checkpoints"] == [{"name": "c-down", "step": 2}] and "added" not in saved
    for a in BW3_PLAN[2:]:
        await stools.ok("execute_single_action", session_id=sid, action=a)
    back = await stools.ok("checkpoint", session_id=sid, op="restore", checkpoint="c-down", include_state=True)
    engine = Session(BW_DOMAIN, BW3["problem"])
    for a in BW3_PLAN:
        engine.execute(a)
    at_goal = set(engine.state_atoms())
    engine.undo(4)
    assert back["step"] == 2 and back["goal_reached"] is False and back["name"] == "c-down"
    assert flatten(back["state"]) == engine.state_atoms()
    assert set(back["added"]) == set(engine.state_atoms()) - at_goal
    assert set(back["deleted"]) == at_goal - set(engine.state_atoms())
    history = await stools.ok("query_action_history", session_id=sid)
    assert history["actions"] == BW3_PLAN[:2] and history["counters"]["restores"] == 1
    listed = await stools.ok("checkpoint", session_id=sid, op="list")
    assert listed["checkpoints"] == [{"name": "c-down", "step": 2}] and "name" not in listed
    gone = await stools.ok("checkpoint", session_id=sid, op="delete", checkpoint="c-down")
    assert gone["checkpoints"] == [] and gone["step"] == 2
    err = await stools.error("checkpoint", session_id=sid, op="restore", checkpoint="c-down")
    assert err.code == "UNKNOWN_CHECKPOINT" and "none" in err.data["error"]["hint"]
    assert (await stools.error("checkpoint", session_id=sid, op="save", checkpoint="")).code == "INVALID_ARGUMENT"
    assert (await stools.error("checkpoint", session_id=sid, op="save", checkpoint="  ")).code == "BAD_CHECKPOINT_NAME"
    assert (await stools.error("checkpoint", session_id=sid, op="save")).code == "MISSING_ARGUMENT"
    assert (await stools.error("checkpoint", session_id=sid, op="copy", checkpoint="x")).code == "INVALID_ARGUMENT"
    # the session is still usable after every error
    assert (await stools.ok("query_current_state", session_id=sid))["step"] == 2


async def test_loops_are_reported_when_asked_at_plain(stools: SchemaTools) -> None:
    sid = (await stools.ok("initialise_session", **BW3, detect_loops=True))["session_id"]
    first = await stools.ok("execute_single_action", session_id=sid, action="(pick-up b)")
    assert "feedback" not in first
    again = await stools.ok("execute_single_action", session_id=sid, action="(put-down b)")
    assert again["feedback"]["revisited_step"] == 0 and "step 0" in again["feedback"]["notes"][0]
    await stools.ok("undo_last_action", session_id=sid, steps=2)
    redo = await stools.ok("execute_single_action", session_id=sid, action="(pick-up b)")
    assert "feedback" not in redo  # the undone visit no longer counts


async def test_partial_observability_filters_states_and_diffs(stools: SchemaTools) -> None:
    problem = bw_problem(5)  # one tower b1 on b2 ... on b5, b1 clear
    init = await stools.ok("initialise_session", domain=BW_DOMAIN, problem=problem, observation="blocksworld-top2",
                           rendering="plain")
    sid = init["session_id"]
    assert init["observation"] == "stack-top 2 on"
    engine = Session(BW_DOMAIN, problem, observation="blocksworld-top2")
    state = await stools.ok("query_current_state", session_id=sid)
    assert flatten(state["state"]) == engine.state_atoms() == ["(clear b1)", "(handempty)", "(on b1 b2)"]
    step = await stools.ok("execute_single_action", session_id=sid, action="(unstack b1 b2)")
    r = engine.execute("(unstack b1 b2)")
    assert sorted(step["added"]) == sorted(r.added) and "(on b2 b3)" in step["added"]
    assert flatten(step["state"]) == engine.state_atoms()
    undo = await stools.ok("undo_last_action", session_id=sid)
    assert "(on b2 b3)" in undo["deleted"] and "(on b3 b4)" not in (undo["added"] or [])
    err = await stools.error("initialise_session", domain=BW_DOMAIN, problem=problem, observation="hide nothing")
    assert err.code == "BAD_OBSERVATION_RULE" and "the predicates are" in err.data["error"]["hint"]
