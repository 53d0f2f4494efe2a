"""The numeric relaxation (h_add/h_max with repetitions, issue 20): exact
values on hand-made cases, h_max never above the true distance and every
reported dead end a real one (breadth-first search is the oracle), and the
session's heuristic level uses it on numeric tasks."""

from __future__ import annotations

import random

import pytest

from pypddlengine import Session
from pypddlengine.bundled import bundled_task
from pypddlengine.deadends import DEAD_END, breadth_first_search
from pypddlengine.numeric_heuristics import INF, numeric_relaxation

PUMP = """(define (domain pump) (:requirements :numeric-fluents :typing)
 (:types tank) (:constants a b - tank) (:predicates (open ?t - tank) (done))
 (:functions (level ?t - tank) (step-size))
 (:action open :parameters (?t - tank) :precondition (not (open ?t)) :effect (open ?t))
 (:action fill :parameters (?t - tank) :precondition (open ?t) :effect (increase (level ?t) (step-size)))
 (:action leak :parameters (?t - tank) :precondition (and) :effect (decrease (level ?t) 1))
 (:action finish :parameters () :precondition (>= (level a) 5) :effect (done)))"""


def _problem(goal: str, level: int = 0, size: int = 3) -> str:
    return (f"(define (problem q) (:domain pump) "
            f"(:init (= (level a) {level}) (= (level b) 0) (= (step-size) {size})) (:goal {goal}))")


@pytest.mark.parametrize(("goal", "size", "h_add", "h_max"), [
    ("(>= (level a) 10)", 3, 1 + 4, 1 + 4),      # open, then ceil(10 / 3) fills
    ("(> (level a) 9)", 3, 1 + 4, 1 + 4),        # 9 / 3 is exact: one more fill for '>'
    ("(and (>= (level a) 6) (>= (level b) 2))", 3, 3 + 2, 3),
    ("(done)", 2, 1 + 3 + 1, 1 + 3 + 1),         # open, 3 fills of 2, finish
    ("(<= (level a) -2)", 3, 2, 2),              # two leaks
])
def test_values_with_repetitions(goal: str, size: int, h_add: float, h_max: float) -> None:
    session = Session(PUMP, _problem(goal, size=size))
    ev = numeric_relaxation(session.task).evaluate(session.state)
    assert (ev.h_add, ev.h_max) == (h_add, h_max)


def test_a_proved_dead_end_and_the_session_says_so() -> None:
    text = PUMP.replace("(increase (level ?t) (step-size))", "(decrease (level ?t) (step-size))")
    session = Session(text, _problem("(>= (level a) 1)"), feedback="heuristic")
    ev = numeric_relaxation(session.task).evaluate(session.state)
    assert ev.h_add == INF and ev.unreachable == ("(>= (level a) 1)",)
    feedback = session.current_feedback()
    assert feedback.dead_end and feedback.dead_end_status == DEAD_END
    assert feedback.unreachable_goals == ("(>= (level a) 1)",)
    plan, _, _ = breadth_first_search(session.task, session.state, 5_000)
    assert plan is None  # the search agrees (here the state space is infinite: it is not a proof)


def test_the_session_measures_numeric_distances() -> None:
    session = Session(PUMP, _problem("(>= (level a) 10)"), feedback="heuristic")
    first = session.current_feedback()
    assert first.distance == 5 and first.heuristic == "h_add" and "numeric relaxation" in first.notes[0]
    assert session.execute("(open a)").feedback.distance == 4
    result = session.execute("(fill a)")
    assert result.feedback.distance == 3 and result.feedback.distance_change == -1


CASES = [(PUMP, _problem("(and (>= (level a) 7) (<= (level b) -1))", size=2)),
         (PUMP, _problem("(done)", level=1, size=2)),
         (*bundled_task("fuel-delivery/p01"),), (*bundled_task("fuel-delivery/p02"),)]


@pytest.mark.parametrize(("domain", "problem"), CASES, ids=["pump", "pump-done", "fuel-p01", "fuel-p02"])
def test_h_max_never_overestimates_and_dead_ends_are_real(domain, problem) -> None:
    session = Session(domain, problem)
    relaxation = numeric_relaxation(session.task)
    rng = random.Random(3)
    checked = 0
    for _ in range(12):
        session.reset()
        for _ in range(rng.randrange(6)):
            actions = session.applicable_actions()
            if actions:
                session.execute(rng.choice(actions))
        ev = relaxation.evaluate(session.state)
        plan, _, _ = breadth_first_search(session.task, session.state, 20_000)
        if plan is not None:
            assert ev.h_max <= len(plan) and ev.h_add != INF
            checked += 1
        if ev.h_add == INF:
            assert plan is None
    assert checked >= 6
