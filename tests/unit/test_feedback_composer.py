"""The feedback composer (issue 23): what a session says after each step is
composed in :mod:`pypddlengine.feedback`, not in the session, and each level
adds to the last, on the grounded and the lifted backend and on a numeric
task."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pypddlengine import FeedbackLevel, Session
from pypddlengine.bundled import bundled_task
from pypddlengine.feedback import FEATURES_OFF, FeedbackComposer

ENGINE = Path(__file__).resolve().parents[2] / "pypddlengine"
DOMAIN, PROBLEM = bundled_task("blocksworld/p03")
COMPOSITION = {"_feedback", "_hints", "_why_not", "_fired", "_changed", "_shown", "_failure_from_error"}
FEEDBACK_TYPES = {"FeedbackLevel", "Failure", "GoalStatus", "Feedback", "FeedbackComposer"}
ANALYSES = {"pypddlengine.heuristics", "pypddlengine.deadends", "pypddlengine.numeric_heuristics"}


def _tree(name: str) -> ast.Module:
    return ast.parse((ENGINE / f"{name}.py").read_text())


def test_the_session_composes_no_feedback() -> None:
    """session.py keeps the state machine; the composition (and the relaxed
    analyses it calls) lives in feedback.py."""
    session = _tree("session")
    defined = {n.name for n in ast.walk(session) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    assert not defined & (COMPOSITION | FEEDBACK_TYPES), defined & (COMPOSITION | FEEDBACK_TYPES)
    imported = {f"pypddlengine.{n.module}" for n in ast.walk(session) if isinstance(n, ast.ImportFrom) and n.level}
    assert not imported & ANALYSES, imported & ANALYSES
    feedback = _tree("feedback")
    classes = {n.name: n for n in feedback.body if isinstance(n, ast.ClassDef)}
    assert set(classes) >= FEEDBACK_TYPES
    methods = {n.name for n in classes["FeedbackComposer"].body if isinstance(n, ast.FunctionDef)}
    assert {"feedback", "why_not", "_hints", "fired", "changed", "landmarks", "landmark_progress",
            "goal_status"} <= methods
    assert not any(isinstance(n, ast.ImportFrom) and n.module == "session" for n in ast.walk(feedback))


def test_the_old_names_still_import_from_the_session_module() -> None:
    import pypddlengine
    from pypddlengine import feedback, session

    for name in ("Failure", "Feedback", "FeedbackLevel", "GoalStatus", "HEURISTIC_CHOICES", "FEATURES_OFF",
                 "LANDMARK_AUTO_LIMIT"):
        assert getattr(session, name) is getattr(feedback, name)
    assert pypddlengine.Feedback is feedback.Feedback and pypddlengine.FeedbackLevel is feedback.FeedbackLevel


def _walk(backend: str, level: str) -> tuple[Session, list]:  # type: ignore[type-arg]
    """Pick up a, a failing stack, put a down again: the feedback of each."""
    session = Session(DOMAIN, PROBLEM, backend=backend, feedback=level)
    out = [session.current_feedback(), session.execute("(pick-up a)"), session.execute("(stack a b)"),
           session.execute("(put-down a)")]
    return session, out


@pytest.mark.parametrize("backend", ["grounded", "lifted"])
def test_each_level_adds_to_the_last(backend: str) -> None:
    grounded = backend == "grounded"
    for level in ("paper", "plain"):
        session, (start, up, failed, down) = _walk(backend, level)
        assert session.feedback_level == FeedbackLevel.parse(level) and not session.detect_loops
        assert start is None and up.feedback is None and down.feedback is None
        assert failed.failure.unsatisfied == ("(clear b)",) and failed.failure.hints == () and failed.feedback is None

    _, (start, up, failed, down) = _walk(backend, "progress")
    assert start.goals.unsatisfied == ("(on a b)", "(on d a)", "(on e d)") and start.distance is None
    assert up.feedback.goals.total == 3 and up.feedback.heuristic is None and up.feedback.revisited_step is None
    assert failed.feedback.goals == up.feedback.goals and failed.failure.hints == ()

    session, (start, up, failed, down) = _walk(backend, "heuristic")
    fb = up.feedback
    assert fb.heuristic == "h_ff" and fb.relaxed_plan == () and fb.revisited_step is None
    if grounded:
        # a look at the start remembers no distance: the first step has no change to report
        assert start.distance == fb.distance == 7 and fb.distance_change is None
        assert failed.feedback.distance is None  # a failed step says the goals only
        assert down.feedback.distance == 7 and down.feedback.distance_change == 0 and fb.landmarks_total == 15
        assert fb.landmarks_achieved == ("(holding a)",) and session.landmarks() is not None
    else:
        assert fb.distance is None and fb.landmarks_total is None and f"no h_ff distance: {FEATURES_OFF}" in fb.notes
        assert session.landmarks() is None

    session, (start, up, failed, down) = _walk(backend, "full")
    assert session.detect_loops and down.feedback.revisited_step == 0
    assert any("going in circles" in n for n in down.feedback.notes)
    assert "(clear b): no applicable action makes it true right now" in failed.failure.hints
    assert (len(up.feedback.relaxed_plan) == 7) is grounded


def test_loops_are_said_at_any_level_when_asked() -> None:
    session = Session(DOMAIN, PROBLEM, feedback="plain", detect_loops=True)
    session.execute("(pick-up a)")
    fb = session.execute("(put-down a)").feedback
    assert fb is not None and fb.goals is None and fb.revisited_step == 0


PUMP = """(define (domain pump) (:requirements :numeric-fluents)
 (:predicates (open))
 (:functions (level))
 (:action open :parameters () :precondition (not (open)) :effect (open))
 (:action fill :parameters () :precondition (open) :effect (increase (level) 3)))"""
PUMP_PROBLEM = "(define (problem q) (:domain pump) (:init (= (level) 0)) (:goal (>= (level) 7)))"


@pytest.mark.parametrize("level", ["plain", "progress", "heuristic", "full"])
def test_numeric_feedback_per_level(level: str) -> None:
    session = Session(PUMP, PUMP_PROBLEM, feedback=level)
    failed = session.execute("(fill)")
    assert failed.failure.unsatisfied == ("(open)",)
    assert bool(failed.failure.hints) is (level == "full")
    session.execute("(open)")
    result = session.execute("(fill)")
    assert result.changed == ("(level): 0 -> 3",)
    fb = result.feedback
    if level == "plain":
        assert fb is None
        return
    assert fb.goals.unsatisfied == ("(>= (level) 7) (left side 3, right side 7: short by 4)",)
    if level == "progress":
        assert fb.distance is None
    else:  # the numeric relaxation's h_add stands in for h_FF, which has no relaxed plan over numbers here
        assert fb.heuristic == "h_add" and fb.distance == 2 and fb.distance_change == -1 and fb.relaxed_plan == ()


def test_the_composer_works_on_what_the_session_hands_it() -> None:
    """Given a session's state and history, a composer of its own says what the session says."""
    session = Session(DOMAIN, PROBLEM, feedback="full")
    for action in ("(pick-up a)", "(put-down a)", "(unstack d b)"):
        session.execute(action)
    composer = FeedbackComposer(session.task, level="full")
    assert composer.feedback(session.state, session.history, moved=False) == session.current_feedback()
    assert composer.goal_status(session.state) == session.goal_status()
    assert composer.landmark_progress(session.history) == session.landmark_progress()
    assert composer.analysis(session.state) == session.analysis()
    with pytest.raises(ValueError, match="unknown heuristic"):
        FeedbackComposer(session.task, heuristic="h_magic")
    with pytest.raises(ValueError, match="proof_budget"):
        FeedbackComposer(session.task, proof_budget=-1)
