"""The heuristic feedback level in Session: the chosen heuristic, landmarks
along the path (also after undo and reset), and dead-end proofs."""

from __future__ import annotations

import random

import pytest
from oracles import bundled_grounded

from pypddlengine import Session
from pypddlengine.deadends import DEAD_END, NO_PLAN, PLAN_EXISTS, UNKNOWN
from pypddlengine.heuristics import relaxed_task
from pypddlengine.session import HEURISTIC_CHOICES

PLAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]


@pytest.mark.parametrize("heuristic", HEURISTIC_CHOICES)
def test_distance_is_the_chosen_heuristic(heuristic: str) -> None:
    task = bundled_grounded("blocksworld/p01")
    session = Session(task, feedback="heuristic", heuristic=heuristic)
    rt = relaxed_task(task)
    last = None
    for action in PLAN:
        fb = session.execute(action).feedback
        assert fb is not None and fb.heuristic == heuristic
        if heuristic == "lm_count":
            progress = session.landmark_progress()
            assert progress is not None and fb.distance == progress.lm_count
        else:
            assert fb.distance == rt.value(heuristic, session.state)
        assert fb.distance_change == (None if last is None else fb.distance - last)
        last = fb.distance
    assert fb.distance == 0 and fb.landmarks_accepted == fb.landmarks_total and not fb.landmarks_required_again


def test_unknown_heuristic_and_negative_budget_are_refused() -> None:
    task = bundled_grounded("blocksworld/p01")
    with pytest.raises(ValueError, match="unknown heuristic 'hff'"):
        Session(task, heuristic="hff")
    with pytest.raises(ValueError, match="proof_budget"):
        Session(task, proof_budget=-1)


def test_landmarks_follow_undo_and_reset() -> None:
    """After any mix of steps, undos and resets the landmark status equals
    that of a fresh session that executes the current history."""
    task = bundled_grounded("gripper/p01")
    session = Session(task, feedback="heuristic")
    rng = random.Random(3)
    for _ in range(60):
        roll = rng.random()
        if roll < 0.15:
            session.undo(rng.randint(1, 3))
        elif roll < 0.2:
            session.reset()
        else:
            session.execute(rng.choice(session.applicable_actions()))
        fresh = Session(task, feedback="heuristic")
        for text in session.plan():
            fresh.execute(text)
        assert session.landmark_progress() == fresh.landmark_progress()


def test_landmark_fields_in_a_step() -> None:
    session = Session(bundled_grounded("blocksworld/p01"), feedback="heuristic")
    fb = session.execute("(unstack c a)").feedback
    # clear a is reached; (holding c) is only a side effect, no landmark; the hand and the top of c are
    # needed again (every pick-up needs handempty, every stack b c needs clear c)
    assert fb is not None and fb.landmarks_achieved == ("(clear a)",)
    assert fb.landmarks_required_again == ("(clear c)", "(handempty)")
    assert fb.landmarks_total == len(session.landmarks().atoms)  # type: ignore[union-attr]
    fb = session.execute("(stack c a)").feedback  # puts c back: clear a is needed again (for pick-up a)
    assert fb is not None and "(clear a)" in fb.landmarks_required_again


def test_unsolvable_task_says_so_at_initialisation() -> None:
    task = bundled_grounded("blocksworld-table/u02")  # relaxed-solvable, 11 reachable states
    fb = Session(task, feedback="heuristic", proof_budget=1000).current_feedback()
    assert fb is not None and fb.dead_end and fb.dead_end_status == NO_PLAN and fb.distance is None
    assert any("proved unsolvable" in n for n in fb.notes)
    fb = Session(task, feedback="heuristic").current_feedback()  # no search: the relaxation cannot tell
    assert fb is not None and not fb.dead_end and fb.dead_end_status is None
    fb = Session(task, feedback="heuristic", proof_budget=3).current_feedback()
    assert fb is not None and fb.dead_end_status == UNKNOWN and not fb.dead_end
    relaxed = bundled_grounded("blocksworld-sizes/u01")
    fb = Session(relaxed, feedback="heuristic").current_feedback()
    assert fb is not None and fb.dead_end_status == DEAD_END and fb.unreachable_goals == ("(on c a)",)


def test_plan_exists_note_and_relaxed_plan_hint() -> None:
    session = Session(bundled_grounded("blocksworld/p01"), feedback="full", proof_budget=1000)
    fb = session.execute("(unstack c a)").feedback
    assert fb is not None and fb.dead_end_status == PLAN_EXISTS and "a plan of 5 steps exists from here" in fb.notes
    assert fb.relaxed_plan and len(fb.relaxed_plan) == fb.distance
