"""A session on the lifted backend (issue 21): the backend is chosen from a
cheap estimate or forced; what needs the ground task (heuristic distances,
landmarks, relaxed dead-end proofs) is said to be off, never a wrong value;
everything else (goal count, searched dead-end proofs, observation rules,
explanations) works as on a grounded session."""

from __future__ import annotations

import pytest

from pypddlengine import ErrorCode, PDDLError, Session, compile_task, parse_domain, parse_problem
from pypddlengine.bundled import bundled_task
from pypddlengine.grounding import GroundingOptions, estimate_grounding
from pypddlengine.lazy import LazyTask
from pypddlengine.session import build_backend

DOMAIN, PROBLEM = bundled_task("blocksworld/p03")


def lifted_task():  # type: ignore[no-untyped-def]
    return compile_task(parse_domain(DOMAIN.read_text()), parse_problem(PROBLEM.read_text()))


def test_auto_grounds_a_small_task_and_says_so() -> None:
    session = Session(DOMAIN, PROBLEM)
    assert session.backend == "grounded" and session.grounded is session.task
    assert session.backend_note.startswith("grounded:") and "ground actions" in session.backend_note


def test_auto_goes_lifted_above_the_limit_and_forced_choices_win() -> None:
    lifted = lifted_task()
    expected = estimate_grounding(lifted).actions
    task, note = build_backend(lifted, "auto", limit=expected - 1)
    assert isinstance(task, LazyTask) and note.startswith("lifted:") and f"{expected:,.0f}" in note
    task, note = build_backend(lifted, "grounded", limit=0)
    assert task.backend == "grounded" and "as requested" in note
    assert build_backend(lifted, "lifted")[0].backend == "lifted"
    with pytest.raises(ValueError, match="unknown backend"):
        build_backend(lifted, "partial")


def test_auto_falls_back_to_lifted_when_grounding_hits_a_limit() -> None:
    task, note = build_backend(lifted_task(), "auto", GroundingOptions(max_actions=3))
    assert task.backend == "lifted" and "grounding stopped" in note


def test_a_given_backend_must_match_the_option() -> None:
    lazy = LazyTask(lifted_task())
    with pytest.raises(ValueError, match="lifted task"):
        Session(lazy, backend="grounded")
    assert Session(lazy, backend="lifted").backend == "lifted"


def test_features_that_need_the_ground_task_are_off_and_say_so() -> None:
    session = Session(DOMAIN, PROBLEM, backend="lifted", feedback="full")
    result = session.execute(session.applicable_names()[0])
    fb = result.feedback
    assert fb is not None and fb.distance is None and fb.heuristic == "h_ff"
    assert any("off for this session" in n and "lifted" in n for n in fb.notes)
    assert fb.landmarks_total is None and not fb.dead_end and fb.relaxed_plan == ()
    assert session.landmarks() is None
    with pytest.raises(PDDLError) as info:
        session.analysis()
    assert info.value.code == ErrorCode.FEATURE_UNAVAILABLE


def test_goal_count_and_searched_dead_end_proofs_work_lifted() -> None:
    lifted = Session(DOMAIN, PROBLEM, backend="lifted", feedback="heuristic", heuristic="goal_count",
                     proof_budget=5000)
    grounded = Session(DOMAIN, PROBLEM, backend="grounded", feedback="heuristic", heuristic="goal_count",
                       proof_budget=5000)
    a, b = lifted.current_feedback(), grounded.current_feedback()
    assert a is not None and b is not None
    assert a.distance == b.distance == len(lifted.goal_status().unsatisfied)
    assert a.dead_end_status == b.dead_end_status and any("a plan of" in n for n in a.notes)


def test_observation_rules_hide_atoms_met_later_on_the_lifted_backend() -> None:
    session = Session(DOMAIN, PROBLEM, backend="lifted", observation="hide holding")
    pick = next(a for a in session.applicable_names() if a.startswith("(pick-up") or a.startswith("(unstack"))
    result = session.execute(pick)
    assert result.success
    assert not any(a.startswith("(holding") for a in session.state_atoms())
    assert any(a.startswith("(holding") for a in session.state_atoms(observed=False))
    assert not any(a.startswith("(holding") for a in result.added)


def test_hints_on_the_lifted_backend_name_applicable_achievers() -> None:
    grounded = Session(DOMAIN, PROBLEM, backend="grounded", feedback="full")
    lifted = Session(DOMAIN, PROBLEM, backend="lifted", feedback="full")
    for name in ("(stack a b)", "(put-down a)", "(pick-up c)", "(unstack a b)"):
        a, b = grounded.explain(name), lifted.explain(name)
        assert a.applicable == b.applicable
        if a.failure is not None and b.failure is not None:
            assert a.failure.unsatisfied == b.failure.unsatisfied
            made_true = [h for h in a.failure.hints if "would be made true" in h]
            assert made_true == [h for h in b.failure.hints if "would be made true" in h]
