"""TemporalSession undo against a replay model (issue 31).

Random walks of start / end / advance / plain actions / undo / checkpoint /
restore / reset / explain on temporal tasks: after every undo (and restore)
the session equals a fresh session that replays the steps that remain (the
clock, atoms, values, running actions, history, goal status, what may happen
now, and the counters behind them); a refused step and an explanation change
nothing. An undo record holds only what its step changed (the atoms and values
it may write, the running set, the counters), so this is where a record that
misses a change would show.

Tasks: bundled workshop problems (a dark bay: required concurrency and a
duration inequality; timed literals: the workshop opens late, a sunset) and a
small tank task with what the workshop lacks: numeric fluents, ``?duration``
in an effect, a derived predicate over a value, a conditional end effect, a
zero-duration action and a plain action with conditional effects.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pypddlengine.bundled import bundled_task
from pypddlengine.errors import PDDLError
from pypddlengine.syntax import parse_domain, parse_problem
from pypddlengine.temporal import TemporalTask, compile_temporal, load_temporal
from pypddlengine.temporal_session import StepRefused, TemporalSession

TANK_DOMAIN = """
(define (domain tank)
  (:requirements :typing :durative-actions :duration-inequalities :numeric-fluents :derived-predicates
                 :conditional-effects :timed-initial-literals)
  (:types pump)
  (:predicates (on ?p - pump) (idle ?p - pump) (full) (alarm) (spare ?p - pump))
  (:functions (level) (used ?p - pump))
  (:derived (full) (>= (level) 3))
  (:durative-action fill
    :parameters (?p - pump)
    :duration (and (>= ?duration 1) (<= ?duration 4))
    :condition (and (at start (idle ?p)) (over all (on ?p)))
    :effect (and (at start (not (idle ?p))) (at start (increase (used ?p) 1))
                 (at end (idle ?p)) (at end (increase (level) ?duration))
                 (when (at end (full)) (at end (alarm)))))
  (:durative-action drain
    :parameters (?p - pump)
    :duration (= ?duration 2)
    :condition (and (at start (idle ?p)) (at start (>= (level) 1)))
    :effect (and (at start (not (idle ?p))) (at end (idle ?p)) (at end (decrease (level) 1))))
  (:durative-action blip
    :parameters (?p - pump)
    :duration (= ?duration 0)
    :condition (at start (idle ?p))
    :effect (at end (spare ?p)))
  (:action toggle
    :parameters (?p - pump)
    :precondition (and)
    :effect (and (when (on ?p) (not (on ?p))) (when (not (on ?p)) (on ?p)))))
"""
TANK_PROBLEM = """
(define (problem tank1) (:domain tank)
  (:objects p1 p2 - pump)
  (:init (on p1) (idle p1) (idle p2) (= (level) 0) (= (used p1) 0) (= (used p2) 0)
         (at 7 (not (on p1))) (at 9 (spare p2)))
  (:goal (and (alarm) (full))))
"""
EPS = Fraction(1, 100)


def _tasks() -> dict[str, TemporalTask]:
    tasks = {}
    for name in ("workshop/p03", "workshop/p05", "workshop/p06"):
        domain, problem = bundled_task(name)
        tasks[name] = load_temporal(str(domain), str(problem))
    tasks["tank"] = compile_temporal(parse_domain(TANK_DOMAIN), parse_problem(TANK_PROBLEM))
    plain = TANK_DOMAIN.replace(" :derived-predicates", "").replace("(:derived (full) (>= (level) 3))", "")
    tasks["tank-plain"] = compile_temporal(parse_domain(plain), parse_problem(TANK_PROBLEM))  # states are changed
    return tasks  # in place without derived predicates (with them, the axioms make each step's state a new one)


TASKS = _tasks()
Step = tuple[str, Any, Any]


def moment(s: TemporalSession) -> tuple[Any, ...]:
    """What an agent sees of the session, and what is behind it: the state
    before this happening (``?duration`` included), the history with the
    running actions' entries, the next running id, the
    actions that must end now, the timed literals done, the steps taken at
    this time. Atoms by name (each session numbers them as it meets them);
    what may happen now as sets (its order follows the order in which the
    lifted joins met the atoms, which differs between a session that went
    forward and back and a fresh one)."""
    inside = s._m  # noqa: SLF001
    before = frozenset(s.lifted.render_key(k) for k in s.space.keys(frozenset(inside.before)))
    return (s.clock, tuple(s.facts()), tuple(s.values()),
            tuple((r.id, r.action, r.start, r.least, r.most, r.duration) for r in s.running),
            s.plan_text(), s.step_count(), s.next_event(), s.goal_reached(), tuple(s.unsatisfied_goals()),
            {k: sorted(map(str, v)) for k, v in s.applicable().items()}, before,
            tuple(getattr(inside.before, "values", ())), tuple(inside.history), inside.next_id, inside.must_end,
            inside.tils_done, len(inside.prints))


def take(s: TemporalSession, step: Step) -> None:
    kind, what, duration = step
    if kind == "start":
        s.start(what, duration)
    elif kind == "end":
        s.end(what)
    elif kind == "advance":
        s.advance(what)
    else:
        s.execute(what)


def replay(task: TemporalTask, steps: list[Step]) -> TemporalSession:
    fresh = TemporalSession(task, EPS)
    for step in steps:
        take(fresh, step)  # every one was taken by the walk: a refusal here fails the test
    return fresh


def _draw_step(data: st.DataObject, s: TemporalSession, texts: set[str]) -> Step:
    """A step, mostly one that may be taken now (else one that is likely refused)."""
    now = s.applicable()
    texts.update(a["action"] for a in now["start"])
    kind = data.draw(st.sampled_from(["start", "start", "end", "end", "advance", "advance", "execute", "any"]))
    if kind == "start" and now["start"]:
        pick = data.draw(st.sampled_from(now["start"]))
        least, most = pick["least"], pick["most"]
        top = most if most is not None else (least or 0) + 3
        duration = data.draw(st.sampled_from([None, least, top, Fraction(least + top, 2) if least is not None
                                              else top]))
        return ("start", pick["action"], duration)
    if kind == "end" and s.running:
        ends = [e["id"] for e in now["end"]] or [r.id for r in s.running]
        return ("end", data.draw(st.sampled_from(ends)), None)
    if kind == "advance":
        nxt = s.next_event()
        if nxt is not None and data.draw(st.booleans()):
            return ("advance", str(nxt), None)
        return ("advance", str(s.clock + data.draw(st.sampled_from([Fraction(1, 2), 1, 2, 5]))), None)
    if kind == "execute" and now["actions"]:
        return ("execute", data.draw(st.sampled_from(now["actions"]))["action"], None)
    if texts:  # a start that may be refused now (its condition, an interference, its duration)
        return ("start", data.draw(st.sampled_from(sorted(texts))), data.draw(st.sampled_from([None, 1, 2, 5])))
    return ("advance", str(s.clock + 1), None)


@pytest.mark.parametrize("name", sorted(TASKS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_undo_gives_the_session_a_replay_of_the_steps_that_remain(name: str, data: st.DataObject) -> None:
    task = TASKS[name]
    s = TemporalSession(task, EPS)
    steps: list[Step] = []
    earlier: list[list[Step]] = []  # the steps before each step undo can take back
    saved: dict[str, list[Step]] = {}
    texts: set[str] = set()
    for _ in range(data.draw(st.integers(min_value=4, max_value=30))):
        what = data.draw(st.sampled_from(["step"] * 6 + ["undo"] * 3 + ["checkpoint", "restore", "explain",
                                                                         "reset"]))
        if what == "undo":
            assert s.undo() == bool(earlier)
            if earlier:
                steps = earlier.pop()
            assert moment(s) == moment(replay(task, steps)), steps
        elif what == "checkpoint":
            s.checkpoint("c")
            saved["c"] = list(steps)
        elif what == "restore" and "c" in saved:
            s.restore("c")
            earlier.append(steps)
            steps = list(saved["c"])
            assert moment(s) == moment(replay(task, steps)), steps
        elif what == "reset":
            s.reset()
            steps, earlier = [], []
            assert moment(s) == moment(replay(task, steps))
        elif what == "explain" and texts:
            seen = moment(s)
            s.explain(data.draw(st.sampled_from(sorted(texts))))
            assert moment(s) == seen
        elif what == "step":
            step = _draw_step(data, s, texts)
            seen = moment(s)
            try:
                take(s, step)
            except StepRefused:
                assert moment(s) == seen, step  # a refusal changes nothing
                continue
            except PDDLError as err:  # a text the task has no action for would be a defect of the walk
                raise AssertionError(f"{step}: {err}") from None
            earlier.append(steps)
            steps = [*steps, step]
    while earlier:  # and back to the start, one step at a time
        assert s.undo()
        steps = earlier.pop()
        assert moment(s) == moment(replay(task, steps)), steps
    assert not s.undo()


def test_the_tank_task_steps_to_its_goal_and_back() -> None:
    """The tank task is what the walk above needs it to be: after a zero-duration blip, a fill that reads
    ?duration raises the level until the derived (full) holds, and the next fill's conditional end effect
    (read in the state before its end) raises the alarm; undo takes every step back."""
    s = TemporalSession(TASKS["tank"], EPS)
    first = moment(s)
    s.start("(blip p2)")
    assert not s.running and "(spare p2)" in s.facts()
    for at, duration, full, alarm in (("0", 4, True, False), ("4.5", 2, True, True)):
        if s.clock < Fraction(at):
            s.advance(at)
        r = s.start("(fill p1)", duration)
        s.advance(str(r.latest_end))
        s.end(r.id)
        assert ("(full)" in s.facts(), "(alarm)" in s.facts()) == (full, alarm)
    assert "(level) = 6" in s.values() and s.goal_reached() and not any("@" in v for v in s.values())
    assert s.validate().valid
    while s.undo():
        pass
    assert moment(s) == first


@pytest.mark.parametrize("name", ["tank", "tank-plain"])
def test_undo_takes_back_what_a_walk_rarely_meets(name: str) -> None:
    """Steps a random walk seldom takes, each undone and compared with a replay: a zero-duration action
    (its start's record takes its end's with it), a plain action that breaks the over all condition of a
    fill that may end now (it must then end before time passes), and the end of a fill started without a
    duration (the end gives its history entry the duration) that makes the derived (full) hold."""
    task = TASKS[name]
    s = TemporalSession(task, EPS)
    steps: list[Step] = [("start", "(fill p1)", None), ("start", "(blip p2)", None), ("advance", "3", None),
                         ("execute", "(toggle p1)", None), ("end", 1, None)]
    for n, step in enumerate(steps):
        take(s, step)
        if n == 3:
            assert s._m.must_end == {1}  # noqa: SLF001
    assert ("(full)" in s.facts()) == (name == "tank")
    for n in range(len(steps) - 1, -1, -1):
        assert s.undo()
        assert moment(s) == moment(replay(task, steps[:n])), steps[:n]
    assert not s.undo()
