"""Why-not hints on ADL tasks (feedback level ``full``) are exact: an action
is said to make an atom true (or false) now only when its effects, with their
conditions evaluated in the current state, really do, conditional deletes
included."""

from __future__ import annotations

from pypddlengine import Session

DOMAIN = """(define (domain hints)
  (:requirements :strips :conditional-effects :negative-preconditions)
  (:predicates (p) (q) (r) (s))
  (:action make-q :parameters () :effect (when (p) (q)))
  (:action make-q-if-s :parameters () :effect (when (s) (q)))
  (:action need-q :parameters () :precondition (q) :effect (r))
  (:action kill-p-if-r :parameters () :effect (when (r) (not (p))))
  (:action kill-p-if-q :parameters () :effect (when (q) (not (p))))
  (:action need-not-p :parameters () :precondition (not (p)) :effect (s)))"""
PROBLEM = """(define (problem h) (:domain hints) (:init (p)) (:goal (and (r) (s))))"""


def hints_of(session: Session, action: str) -> list[str]:
    result = session.execute(action)
    assert not result.success and result.failure is not None
    return list(result.failure.hints)


def test_a_conditional_add_counts_only_when_its_condition_holds() -> None:
    s = Session(DOMAIN, PROBLEM, feedback="full")
    hints = " | ".join(hints_of(s, "need-q"))
    assert "would be made true now by: (make-q)" in hints
    assert "make-q-if-s" not in hints  # its condition (s) is false: it would not make (q) true


def test_a_conditional_delete_is_named_when_it_would_fire() -> None:
    s = Session(DOMAIN, PROBLEM, feedback="full")
    assert s.execute("make-q").success
    hints = " | ".join(hints_of(s, "need-not-p"))
    assert "(p) would be made false now by: (kill-p-if-q)" in hints
    assert "kill-p-if-r" not in hints  # (r) is false: that delete would not fire
