"""Opening a temporal task the one way (issue 31): pypddlengine.open_session
gives a TemporalSession; a step at the time an action ends may break its
over all condition whichever is done first (VAL agrees), a refused step changes
nothing, reset and checkpoints; ``pypddl play`` on a temporal task."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from oracles import val_binary
from temporal_oracles import val_timed_verdict

from pypddlengine import open_session
from pypddlengine.errors import ErrorCode, PDDLError
from pypddlengine.session import Session
from pypddlengine.temporal_session import StepRefused, TemporalSession

ROOT = Path(__file__).resolve().parents[2]
WORKSHOP = ROOT / "domains" / "workshop.pddl"

GUARD = """(define (domain guard) (:requirements :durative-actions :duration-inequalities)
 (:predicates (p) (done) (off) (z))
 (:durative-action watch :parameters () :duration (and (>= ?duration 1) (<= ?duration 10))
   :condition (over all (p)) :effect (at end (done)))
 (:durative-action blink :parameters () :duration (= ?duration 0)
   :condition (at end (z)) :effect (at end (off)))
 (:action kill :parameters () :precondition (p) :effect (and (not (p)) (off))))"""
WATCH = """(define (problem w) (:domain guard) (:init (p)) (:goal (and (done) (off))))"""


@pytest.fixture()
def guard(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "d.pddl").write_text(GUARD)
    (tmp_path / "p.pddl").write_text(WATCH)
    return tmp_path / "d.pddl", tmp_path / "p.pddl"


def test_open_session_opens_a_temporal_session_and_a_classical_one() -> None:
    s = open_session(str(WORKSHOP), str(ROOT / "problems" / "workshop" / "p02.pddl"))
    assert isinstance(s, TemporalSession) and s.clock == 0 and s.unsatisfied_goals() == ["(tested m1)"]
    assert {a["action"] for a in s.applicable()["start"]} == {"(hold-lamp t1 b1)", "(hold-lamp t2 b1)"}
    classical = open_session(str(ROOT / "domains" / "blocksworld.pddl"), str(ROOT / "problems" / "blocksworld" /
                                                                              "p01.pddl"))
    assert isinstance(classical, Session)
    with pytest.raises(PDDLError) as info:  # options of a classical session only are refused, not ignored
        open_session(str(WORKSHOP), str(ROOT / "problems" / "workshop" / "p02.pddl"), observation="hide open")
    assert info.value.code == ErrorCode.FEATURE_UNAVAILABLE and "observation" in info.value.message


@pytest.mark.parametrize("order", ["kill first", "end first"])
def test_a_step_may_break_the_invariant_of_an_action_ending_now(guard: tuple[Path, Path], order: str) -> None:
    s = open_session(*map(str, guard), epsilon="0.01")
    assert isinstance(s, TemporalSession)
    run = s.start("watch")
    s.advance(5)
    if order == "kill first":
        s.execute("kill")  # breaks watch's over all: watch must end at 5
        with pytest.raises(StepRefused, match="must end at 5"):
            s.advance(6)
        s.end(run.id)
    else:
        s.end(run.id)
        s.execute("kill")
    assert s.goal_reached() and s.validate().valid
    if val_binary() is not None:
        assert val_timed_verdict(*guard, s.plan_text()).valid


def test_a_step_breaking_an_invariant_that_cannot_end_now_is_refused(guard: tuple[Path, Path]) -> None:
    s = open_session(*map(str, guard))
    assert isinstance(s, TemporalSession)
    s.start("watch")
    s.advance("0.5")  # watch may end from 1 on
    with pytest.raises(StepRefused, match="over all condition of \\(watch\\)"):
        s.execute("kill")
    assert "(p)" in s.facts() and s.history() == [] and len(s.running) == 1
    if val_binary() is not None:
        assert not val_timed_verdict(*guard, "0: (watch) [1]\n0.5: (kill)\n").valid


def test_a_refused_zero_duration_action_changes_nothing(guard: tuple[Path, Path]) -> None:
    s = open_session(*map(str, guard))
    assert isinstance(s, TemporalSession)
    before = (s.facts(), s.running, s.history(), s.observation())
    with pytest.raises(StepRefused, match="end condition"):
        s.start("blink")  # its end (a zero duration: at once) needs (z)
    assert (s.facts(), s.running, s.history(), s.observation()) == before
    assert not s.undo()  # nothing was done


def test_reset_goes_back_to_time_zero_and_keeps_checkpoints(guard: tuple[Path, Path]) -> None:
    s = open_session(*map(str, guard))
    assert isinstance(s, TemporalSession)
    s.start("watch")
    s.checkpoint("running")
    s.advance(3)
    s.reset()
    assert s.clock == 0 and s.running == [] and not s.undo() and s.checkpoints() == [("running", 1)]
    s.restore("running")
    assert len(s.running) == 1


def test_play_starts_waits_ends_and_writes_a_timed_plan(tmp_path: Path) -> None:
    plan = tmp_path / "out.plan"
    script = ("actions\nstart (hold-lamp t2 b1) 7\nwait 0.5\nrepair t1 m1 b1\nstate\nwait\nend repair t1 m1 b1\n"
              "wait\nend 1\nwait 7.5\nstart test t1 m1 b1\nwait\nend test t1 m1 b1\nvalidate\n"
              f"write {plan}\nquit\n")
    out = subprocess.run([sys.executable, "-m", "pypddlengine.cli", "play", "--task", "workshop/p02"],
                         input=script, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "running [2] (repair t1 m1 b1) since 0.5, may end 6.5 .. 6.5" in out.stdout
    assert "Plan valid: makespan 9.5" in out.stdout, out.stdout
    assert plan.read_text() == "0: (hold-lamp t2 b1) [7]\n0.5: (repair t1 m1 b1) [6]\n7.5: (test t1 m1 b1) [2]\n"
    if val_binary() is not None:
        assert val_timed_verdict(WORKSHOP, ROOT / "problems" / "workshop" / "p02.pddl", plan.read_text()).valid
