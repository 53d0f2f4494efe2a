"""ADL and derived predicates in a session (issue 11): semantics as VAL and
Fast Downward (conditions read the state before the step, deletes before
adds for conditional effects too), derived atoms recomputed after every step
and undone exactly, explanations of compound conditions, stratification."""

from __future__ import annotations

import pytest
from adl_cases import DOMAIN, PROBLEM

from pypddlengine import PDDLError, Session, validate_plan
from pypddlengine.lifted import compile_task
from pypddlengine.syntax import parse_domain, parse_problem

TOGGLE = """\
(define (domain toggle)
  (:requirements :adl)
  (:predicates (p) (q) (r))
  (:action flip :parameters ()
    :effect (and (when (p) (not (p))) (when (not (p)) (p))))
  (:action both :parameters ()
    :precondition (q)
    :effect (and (when (q) (not (r))) (when (q) (r)) (not (q)) (q))))
"""
TOGGLE_PROBLEM = "(define (problem t) (:domain toggle) (:init (q) (r)) (:goal (and (p) (q) (r))))"


def test_conditions_read_the_state_before_the_step() -> None:
    s = Session(TOGGLE, TOGGLE_PROBLEM)
    for expected in (["(p)", "(q)", "(r)"], ["(q)", "(r)"], ["(p)", "(q)", "(r)"]):
        assert s.execute("(flip)").success
        assert s.state_atoms() == expected  # a flip that re-read its own add would leave p false forever


def test_deletes_before_adds_for_conditional_and_plain_effects() -> None:
    s = Session(TOGGLE, TOGGLE_PROBLEM)
    result = s.execute("(both)")
    assert result.success and s.state_atoms() == ["(q)", "(r)"]  # deleted and added: true, as VAL and FD
    assert result.added == () and result.deleted == ()
    assert validate_plan(s.lifted, ["(flip)", "(both)"]).valid


def test_derived_atoms_follow_every_step_and_undo() -> None:
    s = Session(DOMAIN, PROBLEM)
    assert s.derived_atoms() == ["(seen r1)", "(seen r2)"]
    before = s.state
    result = s.execute("(move r1 r2)")
    assert result.fired == ("when (at b1 r1) for ?b=b1: (at b1 r2) (not (at b1 r1))",)
    assert "(seen r1)" in result.deleted  # b1 left r1 and r1 is not lit
    assert s.derived_atoms() == ["(seen r2)"]
    assert s.execute("(switch r2)").success  # the last light goes out: dark, derived through a forall
    assert "(dark)" in s.derived_atoms()
    s.undo(2)
    assert s.state == before


def test_failed_disjunction_and_forall_are_explained() -> None:
    s = Session(DOMAIN, PROBLEM)
    for step in ("(move r1 r2)", "(switch r2)"):
        assert s.execute(step).success
    why = s.explain("(move r2 r3)")
    assert not why.applicable and why.failure is not None
    (text,) = why.failure.unsatisfied
    assert text.startswith("(or (not (dark)) (seen r3)) (no disjunct holds:")
    assert "(not (dark))" in text and "(seen r3)" in text
    s.reset()
    status = s.goal_status()
    assert status.unsatisfied == ("(forall (?b - ball) (or (not (at ?b r1)) (seen r3))) (violated for ?b=b1)",)
    assert status.satisfied == ("(exists (?r - room) (at b1 ?r))",)
    report = validate_plan(s.lifted, ["(switch r1)"])
    assert not report.valid and report.unsatisfied_goals == status.unsatisfied


def test_unstratifiable_axioms_are_refused() -> None:
    domain = DOMAIN.replace("(:derived (dark) (forall (?r - room) (not (lit ?r))))",
                            "(:derived (dark) (not (dark)))")
    with pytest.raises(PDDLError) as info:
        compile_task(parse_domain(domain), parse_problem(PROBLEM))
    assert info.value.code == "UNSTRATIFIABLE_AXIOMS"


def test_heuristic_feedback_on_an_adl_task_is_zero_only_at_the_goal() -> None:
    s = Session(DOMAIN, PROBLEM, feedback="heuristic")
    a = s.analysis()
    assert not a.dead_end and a.h_ff is not None
    assert (a.h_ff == 0) == s.is_goal()
    result = s.execute("(move r1 r3)")
    assert result.goal_reached and result.feedback is not None and result.feedback.distance == 0
