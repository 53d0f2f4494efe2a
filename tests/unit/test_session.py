"""The seven session operations, their failure modes and the feedback levels."""

from __future__ import annotations

import pytest
from malformed_cases import BASE_DOMAIN, BASE_PROBLEM

from pypddlengine import FeedbackLevel, PDDLError, Session

PROBLEM3 = BASE_PROBLEM.replace("(:objects a b - block)", "(:objects a b c - block)").replace(
    "(:init (clear a) (clear b)", "(:init (clear a) (clear b) (clear c)"
)


@pytest.fixture
def session() -> Session:
    return Session.from_pddl(BASE_DOMAIN, PROBLEM3, feedback="full")


def test_initial_state_and_applicable_actions(session: Session) -> None:
    assert session.state_atoms() == ["(clear a)", "(clear b)", "(clear c)", "(handempty)"]
    assert session.applicable_names() == ["(pick a)", "(pick b)", "(pick c)"]
    assert not session.is_goal() and session.history == ()


def test_execute_success_updates_state_history_and_diff(session: Session) -> None:
    r = session.execute("(pick a)")
    assert r.success and not r.goal_reached and r.step == 1
    assert r.added == ("(holding a)",) and r.deleted == ("(handempty)",)
    assert session.applicable_names() == ["(put a a)", "(put a b)", "(put a c)"]
    r = session.execute("put(A, b)")
    assert r.success and r.goal_reached and r.action == "(put a b)"
    assert session.plan() == ["(pick a)", "(put a b)"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("(put a b)", "INAPPLICABLE_ACTION"),
        ("(fly a)", "UNKNOWN_ACTION"),
        ("(pick a b)", "WRONG_ARITY"),
        ("(pick zz)", "UNKNOWN_OBJECT"),
        ("(pick a", "ACTION_SYNTAX"),
        ("", "ACTION_SYNTAX"),
    ],
)
def test_failed_execute_changes_nothing(session: Session, text: str, code: str) -> None:
    session.execute("(pick c)")
    state, history = session.state, session.history
    r = session.execute(text)
    assert not r.success and r.failure is not None and r.failure.code == code
    assert r.failure.message
    assert session.state == state and session.history == history
    assert session.execute("(put c a)").success  # still usable


def test_inapplicable_lists_each_unsatisfied_precondition(session: Session) -> None:
    r = session.execute("(put a b)")
    assert r.failure.unsatisfied == ("(holding a)",)
    session.execute("(pick b)")
    r = session.execute("(pick a)")
    assert r.failure.unsatisfied == ("(handempty)",)
    assert any("made false by step 1 (pick b)" in h for h in r.failure.hints)
    assert any("would be made true now by: (put b a)" in h for h in r.failure.hints)


def test_unknown_action_suggests_names(session: Session) -> None:
    r = session.execute("(pik a)")
    assert r.failure.code == "UNKNOWN_ACTION" and "pick" in r.failure.suggestions


def test_reset_undo_and_history_validation(session: Session) -> None:
    session.execute("(pick a)")
    session.execute("(put a b)")
    assert session.validate().valid
    assert session.undo() == 1 and session.plan() == ["(pick a)"]
    assert "(holding a)" in session.state_atoms()
    assert not session.validate().valid
    session.reset()
    assert session.history == () and session.state == session.task.init
    assert session.undo() == 0


def test_validate_given_plan_does_not_touch_the_session(session: Session) -> None:
    session.execute("(pick c)")
    report = session.validate(["(pick a)", "(put a c)", "(pick b)"])
    assert not report.valid and report.failure is None
    assert report.unsatisfied_goals == ("(on a b)",) and report.length == 3
    bad = session.validate(["(pick a)", "(pick b)"])
    assert bad.failure.step == 2 and bad.failure.unsatisfied == ("(handempty)",)
    assert session.plan() == ["(pick c)"]


def test_explain_does_not_execute(session: Session) -> None:
    assert session.explain("(pick a)").applicable
    e = session.explain("(put a b)")
    assert not e.applicable and e.failure.unsatisfied == ("(holding a)",)
    assert session.history == ()


def test_feedback_levels() -> None:
    plain = Session.from_pddl(BASE_DOMAIN, PROBLEM3)
    assert plain.feedback_level == FeedbackLevel.PLAIN
    assert plain.execute("(pick a)").feedback is None
    rich = Session.from_pddl(BASE_DOMAIN, PROBLEM3, feedback=FeedbackLevel.HEURISTIC)
    f1 = rich.execute("(pick a)").feedback
    assert f1.goals.unsatisfied == ("(on a b)",) and f1.distance == 1.0
    f2 = rich.execute("(put a b)").feedback
    assert f2.goals.reached and f2.distance == 0.0 and f2.distance_change == -1.0
    with pytest.raises(ValueError):
        FeedbackLevel.parse("loud")


TWOWAY = """(define (domain twoway) (:predicates (left) (right))
  (:action go-right :parameters () :precondition (left) :effect (and (right) (not (left))))
  (:action go-left :parameters () :precondition (right) :effect (and (left) (not (right)))))"""


def test_revisited_state_is_flagged() -> None:
    s = Session.from_pddl(TWOWAY, "(define (problem w) (:domain twoway) (:init (left)) (:goal (and (left) (right))))",
                          feedback="full")
    assert s.execute("(go-right)").feedback.revisited_step is None
    back = s.execute("(go-left)").feedback
    assert back.revisited_step == 0 and any("going in circles" in n for n in back.notes)
    assert s.execute("(go-right)").feedback.revisited_step == 1


DEAD = """(define (domain oneway) (:predicates (at-a) (at-b) (at-c))
  (:action ab :parameters () :precondition (at-a) :effect (and (at-b) (not (at-a))))
  (:action ac :parameters () :precondition (at-a) :effect (and (at-c) (not (at-a)))))"""


def test_dead_end_warning() -> None:
    s = Session.from_pddl(DEAD, "(define (problem o) (:domain oneway) (:init (at-a)) (:goal (at-c)))",
                          feedback="heuristic")
    r = s.execute("(ab)")
    assert r.success and r.feedback.dead_end and r.feedback.unreachable_goals == ("(at-c)",)
    assert any("dead end" in n for n in r.feedback.notes)


def test_bad_pddl_raises_typed_errors() -> None:
    with pytest.raises(PDDLError) as info:
        Session.from_pddl(BASE_DOMAIN, BASE_PROBLEM.replace("(:domain bw)", "(:domain other)"))
    assert info.value.code == "DOMAIN_MISMATCH"


def test_relaxed_operators_are_the_strips_actions_with_their_adds() -> None:
    """One operator per action that adds something: same preconditions
    (deduplicated), adds and cost; the goal atoms are the positive goals."""
    from pypddlengine.bundled import bundled_task
    from pypddlengine.grounding import ground
    from pypddlengine.loading import load_task

    task = ground(load_task(*bundled_task("logistics/p02")))
    ops = task.relaxed_operators()
    assert ops is task.relaxed_operators()  # cached
    assert [op.action for op in ops] == [a for a in task.actions if a.add]
    for op in ops:
        assert op.effect == -1 and op.add == op.action.add and op.cost == op.action.cost
        assert set(op.pre) == set(op.action.pre) and len(op.pre) == len(set(op.pre))
    assert task.goal_atoms == task.goal_pos and all(g >= 0 for g in task.goal_atoms)
