"""The MCP answers equal the engine's answers for the same task: random walks
on bundled and corpus tasks (several IPC domains), both renderings, every
feedback level, pagination and filters, explanations and validation."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from mcp_support import BW3, BW3_PLAN, BW_DOMAIN, Tools, bw_problem, flatten

from pypddlengine.bundled import bundled_task
from pypddlengine.loading import open_session
from pypddlengine.session import Session

pytestmark = pytest.mark.anyio

ROADS_DOMAIN = """(define (domain roads)
  (:requirements :strips :negative-preconditions)
  (:predicates (at ?x) (road ?a ?b) (visited ?x) (closed ?x))
  (:action move
    :parameters (?from ?to)
    :precondition (and (at ?from) (road ?from ?to) (not (closed ?to)))
    :effect (and (at ?to) (not (at ?from)) (visited ?to))))
"""
ROADS_PROBLEM = """(define (problem r1) (:domain roads)
  (:objects l1 l2 l3 l4 l10)
  (:init (at l1) (closed l4)
         (road l1 l2) (road l2 l1) (road l2 l3) (road l1 l4) (road l4 l3) (road l3 l10))
  (:goal (and (at l10) (not (at l1)))))
"""
CORPUS_TASKS = [  # domain file, problem file (relative to the corpus): typing, equality, statics, untyped
    ("potassco-pddl-instances/ipc2000-blocks-strips-typed/domain.pddl",
     "potassco-pddl-instances/ipc2000-blocks-strips-typed/instance-19.pddl"),
    ("potassco-pddl-instances/ipc2000-logistics-strips-typed/domain.pddl",
     "potassco-pddl-instances/ipc2000-logistics-strips-typed/instance-3.pddl"),
    ("potassco-pddl-instances/ipc2002-satellite-strips-automatic/domain.pddl",
     "potassco-pddl-instances/ipc2002-satellite-strips-automatic/instance-2.pddl"),
    ("potassco-pddl-instances/ipc2002-depots-strips-automatic/domain.pddl",
     "potassco-pddl-instances/ipc2002-depots-strips-automatic/instance-1.pddl"),
    ("downward-benchmarks/gripper/domain.pddl", "downward-benchmarks/gripper/prob02.pddl"),
]


async def all_actions(tools: Tools, sid: str, page: int, **filters: Any) -> tuple[list[str], dict[str, Any]]:
    """Every applicable action, page by page, following next_offset."""
    out: list[str] = []
    offset: int | None = 0
    first: dict[str, Any] = {}
    while offset is not None:
        reply = await tools.ok("query_applicable_actions", session_id=sid, offset=offset, limit=page, **filters)
        first = first or reply
        assert reply["offset"] == offset and reply["total"] == first["total"]
        out += reply["actions"]
        offset = reply.get("next_offset")
    assert len(out) == first["total"] and sum(first["by_schema"].values()) == first["total"]
    return out, first


async def differential_walk(tools: Tools, engine: Session, sid: str, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    task = engine.task
    for _ in range(steps):
        names = engine.applicable_names()
        listed, _ = await all_actions(tools, sid, rng.choice([1, 3, 7, 1000]))
        assert listed == names
        if rng.random() < 0.3:  # some action, most likely inapplicable
            action = task.render_action(rng.choice(task.actions))
            expected = engine.explain(action)
            explained = await tools.ok("explain_action", session_id=sid, action=action)
            assert explained["applicable"] is expected.applicable
            if not expected.applicable:
                assert explained["failure"]["unsatisfied"] == list(expected.failure.unsatisfied)
        else:
            action = rng.choice(names) if names else task.render_action(task.actions[0])
        step = await tools.ok("execute_single_action", session_id=sid, action=action)
        result = engine.execute(action)
        assert step["success"] is result.success and step["goal_reached"] is result.goal_reached
        assert step["step"] == result.step
        if result.success:
            assert step.get("added", []) == list(result.added) and step.get("deleted", []) == list(result.deleted)
        else:
            assert step["failure"]["code"] == result.failure.code
            assert step["failure"].get("unsatisfied", []) == list(result.failure.unsatisfied)
        state = await tools.ok("query_current_state", session_id=sid, include_static=True)
        assert flatten(state["state"]) == engine.state_atoms(include_static=True)
    # validation of the walk, and of a damaged copy of it
    plan = engine.plan()
    verdict = await tools.ok("validate_complete_plan", session_id=sid)
    report = engine.validate()
    assert (verdict["valid"], verdict["length"], verdict["steps_applied"]) == (
        report.valid, report.length, report.steps_applied)
    if plan:
        damaged = plan[1:]
        verdict = await tools.ok("validate_complete_plan", session_id=sid, plan=damaged)
        report = engine.validate(damaged)
        assert verdict["valid"] is report.valid
        assert (verdict.get("failure") or {}).get("step") == report.failed_step


@pytest.mark.parametrize("task", ["blocksworld/p04", "blocksworld/p06"])
async def test_random_walks_on_bundled_tasks(tools: Tools, task: str) -> None:
    domain, problem = bundled_task(task)
    sid = (await tools.ok("initialise_session", task=task))["session_id"]
    await differential_walk(tools, open_session(domain, problem), sid, seed=len(task), steps=30)


@pytest.mark.parametrize(("domain", "problem"), CORPUS_TASKS, ids=[p.split("/")[-2] for _, p in CORPUS_TASKS])
async def test_random_walks_on_corpus_tasks(tools: Tools, corpus: Path, domain: str, problem: str) -> None:
    d, p = corpus / domain, corpus / problem
    summary = await tools.ok("initialise_session", domain=str(d), problem=str(p))
    engine = open_session(d, p)
    assert summary["ground_actions"] == len(engine.task.actions)
    static = engine.task.static_atoms & engine.state
    assert flatten(summary.get("static_facts", {})) == sorted(engine.task.render_atom(i) for i in static)
    await differential_walk(tools, engine, summary["session_id"], seed=7, steps=25)


async def test_plain_rendering_is_the_engines_flat_output(tools: Tools) -> None:
    engine = Session.from_pddl(ROADS_DOMAIN, ROADS_PROBLEM)
    summary = await tools.ok("initialise_session", domain=ROADS_DOMAIN, problem=ROADS_PROBLEM, rendering="plain")
    sid = summary["session_id"]
    assert summary["rendering"] == "plain"
    state = await tools.ok("query_current_state", session_id=sid)
    assert state["state"] == engine.state_atoms(include_static=True) and state["static_included"]
    page = await tools.ok("query_applicable_actions", session_id=sid)
    assert page["actions"] == engine.applicable_names() and page["limit"] == 1000
    step = await tools.ok("execute_single_action", session_id=sid, action="(move l1 l2)")
    engine.execute("(move l1 l2)")
    assert step["state"] == engine.state_atoms(include_static=True)


async def test_compact_rendering_groups_atoms_and_gives_static_facts_once(tools: Tools) -> None:
    summary = await tools.ok("initialise_session", domain=ROADS_DOMAIN, problem=ROADS_PROBLEM)
    sid = summary["session_id"]
    assert summary["static_facts"] == {"closed": ["l4"], "road": ["l1 l2", "l1 l4", "l2 l1", "l2 l3", "l3 l10",
                                                                   "l4 l3"]}
    assert summary["objects"] == {"object": ["l1", "l2", "l3", "l4", "l10"]}  # natural order
    state = await tools.ok("query_current_state", session_id=sid)
    assert state["state"] == {"at": ["l1"]} and not state["static_included"]
    full = await tools.ok("query_current_state", session_id=sid, include_static=True)
    assert full["state"] == {"at": ["l1"], **summary["static_facts"]}
    step = await tools.ok("execute_single_action", session_id=sid, action="move l1 l2")
    assert "state" not in step and step["added"] == ["(at l2)", "(visited l2)"] and step["deleted"] == ["(at l1)"]
    step = await tools.ok("execute_single_action", session_id=sid, action="MOVE(l2, l3)", include_state=True)
    assert step["action"] == "(move l2 l3)" and step["state"] == {"at": ["l3"], "visited": ["l2", "l3"]}


async def test_static_preconditions_are_explained(tools: Tools) -> None:
    sid = (await tools.ok("initialise_session", domain=ROADS_DOMAIN, problem=ROADS_PROBLEM,
                          feedback="full"))["session_id"]
    step = await tools.ok("execute_single_action", session_id=sid, action="(move l1 l4)")
    assert not step["success"] and step["failure"]["code"] == "INAPPLICABLE_ACTION"
    assert step["failure"]["unsatisfied"] == ["(not (closed l4))"]


@pytest.mark.parametrize("level", ["plain", "progress", "heuristic", "full"])
async def test_feedback_levels_match_the_engine(tools: Tools, level: str) -> None:
    engine = Session.from_pddl(ROADS_DOMAIN, ROADS_PROBLEM, feedback=level)
    summary = await tools.ok("initialise_session", domain=ROADS_DOMAIN, problem=ROADS_PROBLEM, feedback=level)
    sid = summary["session_id"]
    assert summary["feedback_level"] == level
    for action in ["(move l1 l2)", "(move l2 l1)", "(move l1 l2)", "(move l2 l3)", "(move l3 l10)"]:
        step = await tools.ok("execute_single_action", session_id=sid, action=action)
        result = engine.execute(action)
        fb = step.get("feedback")
        if level == "plain":
            assert fb is None
            continue
        goals = result.feedback.goals
        assert (fb["goals_satisfied"], fb["goals_total"]) == (len(goals.satisfied), goals.total)
        assert fb.get("unsatisfied_goals", []) == sorted(goals.unsatisfied)
        assert ("h_ff" in fb) is (level in ("heuristic", "full"))
        if "h_ff" in fb:
            assert fb["h_ff"] == result.feedback.distance
        assert fb.get("revisited_step") == result.feedback.revisited_step
        assert fb.get("notes", []) == list(result.feedback.notes)
    assert step["goal_reached"]


async def test_goal_deltas_cover_negative_goals(tools: Tools) -> None:
    sid = (await tools.ok("initialise_session", domain=ROADS_DOMAIN, problem=ROADS_PROBLEM,
                          feedback="full"))["session_id"]
    step = await tools.ok("execute_single_action", session_id=sid, action="(move l1 l2)")
    assert step["feedback"]["goals_achieved"] == ["(not (at l1))"] and "goals_undone" not in step["feedback"]
    step = await tools.ok("execute_single_action", session_id=sid, action="(move l2 l1)")
    assert step["feedback"]["goals_undone"] == ["(not (at l1))"] and "revisited_step" not in step["feedback"]
    await tools.ok("execute_single_action", session_id=sid, action="(move l1 l2)")
    step = await tools.ok("execute_single_action", session_id=sid, action="(move l2 l1)")  # as after step 2
    assert step["feedback"]["revisited_step"] == 2 and "going in circles" in step["feedback"]["notes"][0]


async def test_dead_end_is_reported_at_heuristic_level(tools: Tools) -> None:
    one_way = ROADS_PROBLEM.replace("(road l2 l1) ", "").replace("(:goal (and (at l10) (not (at l1))))",
                                                                 "(:goal (and (at l1) (visited l2)))")
    sid = (await tools.ok("initialise_session", domain=ROADS_DOMAIN, problem=one_way,
                          feedback="heuristic"))["session_id"]
    step = await tools.ok("execute_single_action", session_id=sid, action="(move l1 l2)")
    assert step["feedback"]["dead_end"] and step["feedback"]["unreachable_goals"] == ["(at l1)"]
    assert "h_ff" not in step["feedback"]
    state = await tools.ok("query_current_state", session_id=sid)
    assert state["feedback"]["dead_end"]


async def test_filters_and_pages(tools: Tools) -> None:
    problem = bw_problem(12, flat=True)
    engine = Session.from_pddl(BW_DOMAIN, problem)
    sid = (await tools.ok("initialise_session", domain=BW_DOMAIN, problem=problem))["session_id"]
    await tools.ok("execute_single_action", session_id=sid, action="(pick-up b2)")  # stack b2 on any of 11
    engine.execute("(pick-up b2)")
    names = engine.applicable_names()
    assert names[:3] == ["(put-down b2)", "(stack b2 b1)", "(stack b2 b3)"] and names[-1] == "(stack b2 b12)"
    listed, first = await all_actions(tools, sid, 2)
    assert listed == names and first["by_schema"] == {"put-down": 1, "stack": 11}
    stacks, _ = await all_actions(tools, sid, 3, schema="STACK")
    assert stacks == names[1:]
    involving, _ = await all_actions(tools, sid, 1000, involving="B1")
    assert involving == ["(stack b2 b1)"]
    beyond = await tools.ok("query_applicable_actions", session_id=sid, offset=10_000)
    assert beyond["actions"] == [] and "next_offset" not in beyond and beyond["total"] == len(names)


async def test_undo_reset_and_history_match_the_engine(tools: Tools) -> None:
    engine = Session.from_pddl(BW_DOMAIN, BW3["problem"])
    sid = (await tools.ok("initialise_session", **BW3))["session_id"]
    plan = BW3_PLAN[:4]
    for action in plan:
        await tools.ok("execute_single_action", session_id=sid, action=action)
        engine.execute(action)
    before = engine.state_atoms(include_static=True)
    undone = await tools.ok("undo_last_action", session_id=sid, steps=2)
    engine.undo(2)
    after = engine.state_atoms(include_static=True)
    assert undone["undone"] == [plan[3], plan[2]] and undone["step"] == 2
    assert sorted(set(before) - set(after)) == undone["deleted"] and sorted(set(after) - set(before)) == undone["added"]
    history = await tools.ok("query_action_history", session_id=sid, offset=1, limit=1)
    assert history["actions"] == plan[1:2] and "next_offset" not in history and history["length"] == 2
    reset = await tools.ok("reset_to_initial_state", session_id=sid, include_state=True)
    engine.reset()
    assert reset["discarded_steps"] == 2 and flatten(reset["state"]) == engine.state_atoms(include_static=False)
    assert reset["counters"] == {"steps_executed": 4, "failed_attempts": 0, "resets": 1, "undos": 2,
                                 "attempts_left": 10_000 - 4, "tool_calls": 8}
    assert (await tools.ok("undo_last_action", session_id=sid))["undone"] == []
