"""Named checkpoints, exact undo and loop detection on small hand-made tasks."""

from __future__ import annotations

import pytest

from pypddlengine import Session
from pypddlengine.errors import CheckpointError, ErrorCode
from pypddlengine.session import MAX_CHECKPOINTS

LINE = """(define (domain line) (:requirements :typing) (:types cell)
  (:predicates (at ?c - cell) (next ?a ?b - cell))
  (:action move :parameters (?a ?b - cell) :precondition (and (at ?a) (next ?a ?b))
    :effect (and (at ?b) (not (at ?a)))))"""
CELLS = """(define (problem p) (:domain line) (:objects c0 c1 c2 c3 - cell)
  (:init (at c0) (next c0 c1) (next c1 c0) (next c1 c2) (next c2 c1) (next c2 c3) (next c3 c2))
  (:goal (at c3)))"""


def session(**kw: object) -> Session:
    return Session.from_pddl(LINE, CELLS, **kw)  # type: ignore[arg-type]


def test_save_restore_gives_back_state_and_history() -> None:
    s = session()
    s.execute("move c0 c1")
    cp = s.save("one")
    assert cp.name == "one" and cp.step == 1
    s.execute("move c1 c2")
    s.execute("move c2 c3")
    assert s.is_goal()
    back = s.restore("one")
    assert back is cp and s.plan() == ["(move c0 c1)"] and "(at c1)" in s.state_atoms()
    s.reset()
    s.restore(" one ")  # names are trimmed; checkpoints survive reset
    assert s.plan() == ["(move c0 c1)"]
    assert [c.name for c in s.checkpoints()] == ["one"]
    s.delete_checkpoint("one")
    assert s.checkpoints() == [] and s.plan() == ["(move c0 c1)"]


def test_checkpoint_errors_have_codes() -> None:
    s = session()
    with pytest.raises(CheckpointError) as err:
        s.restore("nope")
    assert err.value.code == ErrorCode.UNKNOWN_CHECKPOINT and "none" in err.value.hint
    with pytest.raises(CheckpointError) as err:
        s.save("  ")
    assert err.value.code == ErrorCode.BAD_CHECKPOINT_NAME
    for i in range(MAX_CHECKPOINTS):
        s.save(f"c{i}")
    s.save("c0")  # replacing one is not a new one
    with pytest.raises(CheckpointError) as err:
        s.save("one-more")
    assert err.value.code == ErrorCode.CHECKPOINT_LIMIT
    with pytest.raises(ValueError):
        s.undo(-1)


def test_loop_index_follows_undo() -> None:
    s = session(detect_loops=True)
    assert s.execute("move c0 c1").feedback.revisited_step is None
    assert s.execute("move c1 c2").feedback.revisited_step is None
    assert s.execute("move c2 c1").feedback.revisited_step == 1
    assert s.first_visit() == 1
    assert s.undo(2) == 2 and s.first_visit() is None
    # step 2 (at c2) was undone: reaching c2 again is new, not "the state after step 2"
    r = s.execute("move c1 c2")
    assert r.feedback.revisited_step is None
    assert r.feedback.goals is None  # plain level: only the loop signal
    assert s.execute("move c2 c1").feedback.notes == (
        "this state equals the state after step 1; you may be going in circles",)


def test_loop_index_follows_restore_and_reset() -> None:
    s = session(feedback="full")
    s.execute("move c0 c1")
    s.save("at-c1")
    s.execute("move c1 c0")
    s.restore("at-c1")
    assert s.execute("move c1 c0").feedback.revisited_step == 0
    s.reset()
    assert s.execute("move c0 c1").feedback.revisited_step is None
    assert session(feedback="full", detect_loops=False).execute("move c0 c1").feedback.revisited_step is None
    assert session().execute("move c0 c1").feedback is None


def test_state_after_rebuilds_every_step() -> None:
    s = session()
    states = [s.state]
    for a in ("move c0 c1", "move c1 c2", "move c2 c3"):
        s.execute(a)
        states.append(s.state)
    assert [s.state_after(i) for i in range(4)] == states
    with pytest.raises(IndexError):
        s.state_after(4)
