"""Heuristics and dead ends on ADL and axiom tasks (issues 11 and 12): along
seeded random walks on the smallest task of every ADL/axiom domain of the
corpus, goal states have h_add = h_FF = 0, a relaxed dead end is never a state
from which breadth-first search finds a plan, the incremental evaluator gives
the from-scratch values, and landmarks say plainly that they are not defined."""

from __future__ import annotations

import random

import pytest
from corpus import CORPUS, CORPUS_REASON, entries, smallest_task
from incremental import IncrementalEvaluator

from pypddlengine import Session, ground, load_task
from pypddlengine.deadends import PLAN_EXISTS, breadth_first_search, dead_end
from pypddlengine.heuristics import INF, RelaxedTask

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)

ADL_FEATURES = {"conditional-effects", "derived-predicates", "disjunctive-preconditions", "universal-preconditions",
                "existential-preconditions", "universal-effects"}
ADL = [e for e in entries() if ADL_FEATURES & set(e["features_detected"])]


@pytest.mark.parametrize("entry", ADL, ids=[e["domain"] for e in ADL])
def test_relaxed_values_are_sound_along_walks(entry: dict) -> None:
    _, domain, problem = smallest_task(entry)
    task = ground(load_task(domain, problem))
    rt = RelaxedTask(task)
    inc = IncrementalEvaluator(rt)
    rng = random.Random(f"adl-heuristics:{entry['domain']}")
    state = task.init
    for _ in range(15):
        ev = rt.evaluate(state)
        assert inc.evaluate(state).h == ev.h  # ADL tasks explore afresh: the same numbers
        if task.is_goal(state):
            assert ev.h == 0 and ev.h_ff == 0 and ev.goal_count == 0
        if ev.dead_end:
            assert ev.h == INF
            plan, _, _ = breadth_first_search(task, state, 2000)
            assert plan is None, "a relaxed dead end from which a plan exists"
            assert dead_end(task, state).status != PLAN_EXISTS
        else:
            assert ev.h < INF and ev.h_ff < INF
        actions = task.applicable(state)
        if not actions:
            break
        state = rng.choice(actions).apply(state)


def test_landmark_distance_says_it_is_not_defined_beyond_strips() -> None:
    entry = next((e for e in ADL if "conditional-effects" in e["features_detected"]), None)
    if entry is None:
        pytest.skip("no conditional-effects domain in the corpus index")
    _, domain, problem = smallest_task(entry)
    s = Session(domain, problem, feedback="heuristic", heuristic="lm_count")
    assert s.landmarks() is None
    fb = s.current_feedback()
    assert fb is not None and fb.distance is None
    assert any("landmarks are computed for STRIPS tasks only" in n for n in fb.notes)


@pytest.mark.parametrize("entry", ADL, ids=[e["domain"] for e in ADL])
def test_fast_exploration_equals_the_reference(entry: dict) -> None:
    """With the relaxation's own atoms (virtual goal, "is false" atoms) the
    fast exploration gives the reference's costs and supporters exactly."""
    _, domain, problem = smallest_task(entry)
    task = ground(load_task(domain, problem))
    rt = RelaxedTask(task)
    rng = random.Random(f"adl-fast:{entry['domain']}")
    state = task.init
    for _ in range(15):
        for additive in (True, False):
            for stop in (True, False):
                assert rt.explore(state, additive, stop=stop) == rt.explore_reference(state, additive, stop=stop)
        actions = task.applicable(state)
        if not actions:
            break
        state = rng.choice(actions).apply(state)
