"""Relaxed-planning feedback: the relaxed plan is a real relaxed plan, the
numbers are consistent, and every reported dead end is a real one."""

from __future__ import annotations

import random
from collections import deque

import pytest
from corpus import CORPUS, entries, smallest_task, supported

from pypddlengine import Session, analyse, ground, load_task
from pypddlengine.bundled import bundled_task, bundled_tasks

TASKS = [bundled_task(name) for name in bundled_tasks()[:4]]
if (CORPUS / "index.json").is_file():
    TASKS += [smallest_task(e)[1:] for e in entries() if supported(e)][:25]


def _relaxed_plan_reaches_goal(task, state, analysis) -> bool:  # type: ignore[no-untyped-def]
    reached = set(state)
    for action in analysis.relaxed_plan:
        if not all(p in reached for p in action.pre):
            return False
        reached.update(action.add)
    return all(g in reached for g in task.goal_pos)


@pytest.mark.parametrize("paths", TASKS, ids=[str(p[1].name) for p in TASKS])
def test_relaxed_plans_on_random_walks(paths) -> None:  # type: ignore[no-untyped-def]
    session = Session(ground(load_task(*paths)))
    task = session.task
    rng = random.Random(str(paths[1]))
    for _ in range(15):
        a = analyse(task, session.state)
        if a.dead_end:
            assert a.h_ff is None and a.unreachable_goals
        else:
            assert _relaxed_plan_reaches_goal(task, session.state, a)
            assert a.h_ff == sum(x.cost for x in a.relaxed_plan)
            assert 0 <= a.h_ff <= a.h_add
            goals_hold = all(g in session.state for g in task.goal_pos)
            assert (a.h_ff == 0) == goals_hold
        actions = session.applicable_actions()
        if not actions:
            break
        session.execute(rng.choice(actions))


def _solvable(task, state, limit: int = 20_000) -> bool | None:  # type: ignore[no-untyped-def]
    seen = {state}
    queue = deque([state])
    while queue:
        s = queue.popleft()
        if task.is_goal(s):
            return True
        for a in task.applicable(s):
            t = a.apply(s)
            if t not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(t)
                queue.append(t)
    return False


LADDER = """(define (domain ladder) (:requirements :strips)
  (:predicates (at ?x) (step ?x ?y) (fallen))
  (:action climb :parameters (?x ?y) :precondition (and (at ?x) (step ?x ?y))
     :effect (and (at ?y) (not (at ?x))))
  (:action jump :parameters (?x) :precondition (at ?x) :effect (and (fallen) (not (at ?x)))))"""


def test_dead_ends_are_real_and_found() -> None:
    """Jumping deletes the last 'at' atom: no action can make one true again, so
    the goal is unreachable even in the relaxation (a proven dead end)."""
    problem = ("(define (problem l) (:domain ladder) (:objects a b c d)"
               " (:init (at a) (step a b) (step b c) (step c d)) (:goal (at d)))")
    verdicts = set()
    for seed in range(20):
        session = Session.from_pddl(LADDER, problem)
        rng = random.Random(seed)
        for _ in range(4):
            actions = session.applicable_actions()
            if not actions:
                break
            session.execute(rng.choice(actions))
            a = analyse(session.task, session.state)
            truth = _solvable(session.task, session.state)
            verdicts.add((a.dead_end, truth))
            if a.dead_end:
                assert truth is False
            if truth:
                assert not a.dead_end
    assert (True, False) in verdicts and (False, True) in verdicts
