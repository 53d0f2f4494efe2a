"""Stepping through time (issue 31): a session replays LPG's plans step by
step to the goal, random walks are accepted by VAL step for step, and what a
session refuses it explains."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest
from oracles import val_binary
from temporal_oracles import TEMPORAL_CORPUS, lpg_binary, lpg_plan, temporal_tasks, val_timed_verdict

from pypddlengine.temporal import load_temporal, parse_timed_plan
from pypddlengine.temporal_session import StepRefused, TemporalSession

KITCHEN = """(define (domain kitchen) (:requirements :durative-actions :timed-initial-literals :duration-inequalities)
 (:predicates (dough) (oven-free) (baked) (shop-open) (bought) (rested))
 (:durative-action bake :parameters () :duration (= ?duration 30)
   :condition (and (at start (dough)) (at start (oven-free)))
   :effect (and (at start (not (oven-free))) (at end (oven-free)) (at end (baked))))
 (:durative-action shop :parameters () :duration (= ?duration 10)
   :condition (over all (shop-open)) :effect (at end (bought)))
 (:durative-action rest :parameters () :duration (and (>= ?duration 5) (<= ?duration 15))
   :condition (at start (baked)) :effect (at end (rested))))"""
DINNER = """(define (problem dinner) (:domain kitchen)
 (:init (dough) (oven-free) (at 20 (shop-open)) (at 45 (not (shop-open))))
 (:goal (and (baked) (bought) (rested))) (:metric minimize (total-time)))"""


@pytest.fixture()
def kitchen(tmp_path: Path) -> TemporalSession:
    (tmp_path / "d.pddl").write_text(KITCHEN)
    (tmp_path / "p.pddl").write_text(DINNER)
    return TemporalSession(load_temporal(str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")))


def test_an_agent_waits_ends_and_reaches_the_goal(kitchen: TemporalSession) -> None:
    s = kitchen
    assert [a["action"] for a in s.applicable()["start"]] == ["(bake)"]  # the shop is closed until 20
    s.start("(bake)")
    with pytest.raises(StepRefused) as info:
        s.start("shop")
    assert "over all condition of (shop)" in info.value.message and info.value.details["broken"] == [2]
    assert s.advance() == 20 and s.clock == 20  # the next event: the shop opens
    s.start("shop")
    with pytest.raises(StepRefused, match="must end by 30"):
        s.advance(35)
    assert s.advance() == 30
    assert {r["action"] for r in s.applicable()["end"]} == {"(bake)", "(shop)"}
    s.end("bake")
    s.end(2)
    s.advance(31)  # (baked) was added at 30: a start at 30 reads the state before that happening
    run = s.start("rest")  # its window is [5, 15]: the end decides
    assert (run.least, run.most) == (5, 15)
    s.advance(33)
    with pytest.raises(StepRefused, match="may end between 36 and 46"):
        s.end(run.id)
    s.advance(38)
    s.end("rest")
    assert s.goal_reached() and s.observation()["running"] == []
    assert s.plan_text() == "0: (bake) [30]\n20: (shop) [10]\n31: (rest) [7]\n"
    report = s.validate()
    assert report.valid and report.makespan == 38
    if val_binary() is not None:
        folder = Path(s.task.domain.source.name).parent
        verdict = val_timed_verdict(folder / "d.pddl", folder / "p.pddl", s.plan_text())
        assert verdict.valid and verdict.value_text == "38"


def test_the_history_is_judged_only_once_nothing_runs(kitchen: TemporalSession) -> None:
    """While an action runs the history is no timed plan yet: the verdict says so (ACTIONS_RUNNING, naming
    each running action), not a verdict on the plan without it (which would read a missing start's effects)."""
    s = kitchen
    s.start("(bake)")
    s.advance(20)
    s.start("(shop)")
    report = s.validate()
    assert not report.valid and report.failure is not None and report.failure.code == "ACTIONS_RUNNING"
    assert report.failure.time == 20 and "(bake) (id 1, started at 0)" in report.failure.message
    assert "2 actions are still running" in report.summary()
    s.advance(30)
    s.end("bake")
    assert s.validate().failure.code == "ACTIONS_RUNNING"  # (shop) still runs
    s.end("shop")
    report = s.validate(Fraction(1, 1000))
    assert report.failure is None and not report.valid and report.unsatisfied_goals == ("(rested)",)


def test_undo_and_checkpoints_restore_clock_running_and_state(kitchen: TemporalSession) -> None:
    s = kitchen
    s.checkpoint("begin")
    s.start("bake")
    s.advance(10)
    assert s.undo() and s.clock == 0 and [r.action for r in s.running] == ["(bake)"]
    assert s.undo() and s.running == [] and "(oven-free)" in s.facts()
    s.start("bake")
    s.advance(30)
    s.end("bake")
    s.restore("begin")
    assert s.clock == 0 and s.running == [] and s.history() == []


def test_a_step_at_one_time_reads_the_state_before_the_happening(kitchen: TemporalSession) -> None:
    s = kitchen
    s.start("bake")
    s.advance(30)
    s.end("bake")
    with pytest.raises(StepRefused, match="state at the start of this happening"):
        s.start("rest")  # (baked) is added at 30 by bake's end: at 30 the start cannot see it (VAL agrees)
    s.advance(30.5)
    s.start("rest")


def _replay(session: TemporalSession, text: str) -> None:
    """Every start and end of a timed plan as session steps, in time order."""
    events: list[tuple[Fraction, int, int, str, Fraction]] = []
    for number, step in enumerate(parse_timed_plan(text)):
        events.append((step.time, 1, number, step.text, step.duration))
        events.append((step.time + step.duration, 0, number, step.text, step.duration))
    ids: dict[int, int] = {}
    for time, kind, number, action, duration in sorted(events):
        if time > session.clock:
            session.advance(time)
        if kind == 1:
            ids[number] = session.start(action, duration).id
        elif ids[number] in {r.id for r in session.running}:
            session.end(ids[number])


SAMPLE = ["ipc2002-driverlog-time-automatic", "ipc2002-rovers-time-automatic",
          "ipc2004-pipesworld-no-tankage-temporal-deadlines-strips", "ipc2008-openstacks-temporal-satisficing-adl"]


def _task(folder: str) -> tuple[Path, Path]:
    found = [t for t in temporal_tasks(1) if t[0] == folder]
    if not found:
        pytest.skip(f"{folder}: not in the temporal corpus at {TEMPORAL_CORPUS}")
    return found[0][1], found[0][2]


@pytest.mark.skipif(lpg_binary() is None or val_binary() is None, reason="needs LPG (up-lpg) and VAL")
@pytest.mark.parametrize("folder", SAMPLE)
def test_lpg_plans_replayed_step_by_step_reach_the_goal_and_validate(folder: str) -> None:
    domain, problem = _task(folder)
    plan = lpg_plan(domain, problem)
    assert plan is not None
    task = load_temporal(str(domain), str(problem))
    session = TemporalSession(task, Fraction(1, 1000))  # LPG separates happenings by 0.0002 (the IPC's 0.001)
    _replay(session, plan)
    assert session.goal_reached(), session.observation()
    assert session.validate().valid
    assert val_timed_verdict(domain, problem, session.plan_text(), 0.001).valid


@pytest.mark.skipif(val_binary() is None, reason="needs VAL")
@pytest.mark.parametrize("folder", SAMPLE)
def test_random_walks_are_accepted_by_val_step_for_step(folder: str) -> None:
    domain, problem = _task(folder)
    session = TemporalSession(load_temporal(str(domain), str(problem)))
    rng = random.Random(31)
    for _ in range(25):
        options = session.applicable()
        moves = [("start", a["action"]) for a in options["start"]] + [("end", e["id"]) for e in options["end"]] + \
            [("execute", a["action"]) for a in options["actions"]]
        if session.next_event() is not None:
            moves.append(("advance", None))
        if not moves:
            break
        kind, what = rng.choice(moves)
        try:
            if kind == "start":
                session.start(what)
            elif kind == "end":
                session.end(what)
            elif kind == "execute":
                session.execute(what)
            else:
                session.advance()
        except StepRefused:  # e.g. a start whose duration the plan must give; listed, refused with a reason
            continue
    while session.running:  # let everything end, so that the history is a plan
        due = [r for r in session.running if r.latest_end == session.clock or r.earliest_end <= session.clock]
        first = due[0] if due else min(session.running, key=lambda r: r.earliest_end)
        try:
            if due:
                session.end(first.id)
            else:
                session.advance()
        except StepRefused:  # an end that cannot happen (its condition, an interference): undo back past its start
            while first.id in {r.id for r in session.running}:
                assert session.undo()
    text = session.plan_text()
    ours = session.validate()
    assert ours.failure is None, (ours.summary(), text)
    out = val_timed_verdict(domain, problem, text).raw
    assert "Plan executed successfully" in out, (text, out[-800:])
