"""The heuristic options through the MCP tools: results match the engine and
validate against the tools' output schemas (the client checks them)."""

from __future__ import annotations

import pytest
from mcp_support import BW3, BW3_PLAN, Tools

from pypddlengine.session import Session

pytestmark = pytest.mark.anyio

BUDGETED = {"feedback": "full", "heuristic": "lm_count", "proof_budget": 1000}


async def test_lm_count_landmarks_and_proofs_match_the_engine(tools: Tools) -> None:
    engine = Session.from_pddl(BW3["domain"], BW3["problem"], feedback="full", heuristic="lm_count", proof_budget=1000)
    summary = await tools.ok("initialise_session", **BW3, **BUDGETED)
    sid = summary["session_id"]
    assert summary["feedback"]["dead_end_status"] == "a plan exists from here"
    for action in BW3_PLAN:
        fb = (await tools.ok("execute_single_action", session_id=sid, action=action))["feedback"]
        want = engine.execute(action).feedback
        assert fb["heuristic"] == "lm_count" and "h_ff" not in fb
        assert fb["h"] == want.distance and fb.get("h_change") == want.distance_change
        assert (fb["landmarks_accepted"], fb["landmarks_total"]) == (want.landmarks_accepted, want.landmarks_total)
        assert fb.get("landmarks_achieved", []) == list(want.landmarks_achieved)
        assert fb.get("landmarks_required_again", []) == list(want.landmarks_required_again)
        assert fb.get("relaxed_plan", []) == list(want.relaxed_plan)
        assert fb["dead_end_status"] == want.dead_end_status
    assert fb["h"] == 0 and fb["landmarks_accepted"] == fb["landmarks_total"]


async def test_unsolvable_task_is_reported_at_initialisation(tools: Tools) -> None:
    cycle = BW3["problem"].replace("(:goal (and (on a b) (on b c)))", "(:goal (and (on a b) (on b a)))")
    summary = await tools.ok("initialise_session", domain=BW3["domain"], problem=cycle, **BUDGETED)
    fb = summary["feedback"]
    assert fb["dead_end"] and fb["dead_end_status"] == "no plan from here (proved)"
    assert any("proved unsolvable" in n for n in fb["notes"])


async def test_bad_heuristic_options_are_tool_errors(tools: Tools) -> None:
    reply = await tools.error("initialise_session", **BW3, heuristic="h_lol")
    assert reply.text.startswith("[INVALID_ARGUMENT]") and "'lm_count'" in reply.text
    await tools.error("initialise_session", **BW3, proof_budget=-1)
