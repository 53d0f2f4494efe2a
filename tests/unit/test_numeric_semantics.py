"""Numeric fluents, semantics of a step (issue 20): exact values, effects read
the state before the step, additive updates add up and other double changes
fail, undefined values and divisions by zero are located errors where they
are read, strict comparisons are strict, static terms are folded; the
grounded and the lifted backend agree step by step; the session shows,
changes, explains and undoes values; the validator reports the metric."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from numeric_cases import DOMAIN, PROBLEM

from pypddlengine import Session, load_task, validate_plan
from pypddlengine.grounding import ground
from pypddlengine.lazy import LazyTask
from pypddlengine.step import NUMERIC, NumericAction, NumericState, NumericTest

COUNTER = """(define (domain cnt) (:requirements :numeric-fluents)
 (:predicates (done) (flag))
 (:functions (x) (y) (z) (k))
 (:action inc :parameters () :precondition (and) :effect (and (increase (x) 0.1)))
 (:action swap :parameters () :precondition (and) :effect (and (assign (x) (y)) (assign (y) (x))))
 (:action twice :parameters () :precondition (and) :effect (and (increase (x) 1) (increase (x) 2) (decrease (x) 0.5)))
 (:action clash :parameters () :precondition (and) :effect (and (assign (x) 7) (increase (x) 2)))
 (:action bump-z :parameters () :precondition (and) :effect (and (increase (z) 1)))
 (:action set-z :parameters () :precondition (and) :effect (and (assign (z) 5)))
 (:action read-z :parameters () :precondition (> (z) 0) :effect (and (done)))
 (:action divide :parameters () :precondition (and) :effect (and (assign (x) (/ (y) (- (x) (x))))))
 (:action shrink :parameters () :precondition (and) :effect (and (scale-down (y) (k))))
 (:action strict :parameters () :precondition (< (x) 1) :effect (and (flag)))
 (:action when-big :parameters () :precondition (and)
   :effect (and (when (>= (x) 0.3) (and (flag) (scale-up (y) 2)))))
)"""


def _problem(init: str = "(= (x) 0.1) (= (y) 3) (= (k) 0)", goal: str = "(= (x) 0.4)", metric: str = "") -> str:
    return f"(define (problem c) (:domain cnt) (:init {init}) (:goal {goal}) {metric})"


def _validate(plan: list[str], **kw: str):  # type: ignore[no-untyped-def]
    return validate_plan(load_task(COUNTER, _problem(**kw)), plan)


def test_decimals_add_up_exactly() -> None:
    report = _validate(["(inc)"] * 3)
    assert report.valid, report.summary()  # with doubles 0.1 + 0.1 + 0.1 + 0.1 needs luck
    report = _validate(["(inc)"] * 2, init="(= (x) 0)", goal="(= (x) 0.2)")
    assert report.valid
    assert not _validate(["(inc)"] * 2, init="(= (x) 0)", goal="(> (x) 0.2)").valid  # strict is strict


def test_effects_read_the_state_before_the_step() -> None:
    session = Session(COUNTER, _problem(init="(= (x) 1) (= (y) 5) (= (k) 0)", goal="(done)"))
    result = session.execute("(swap)")
    assert result.success and session.state.values[:2] == (5, 1)
    assert result.changed == ("(x): 1 -> 5", "(y): 5 -> 1")


def test_additive_effects_add_up_and_other_double_changes_fail() -> None:
    session = Session(COUNTER, _problem(init="(= (x) 1) (= (y) 5) (= (k) 0)", goal="(done)"))
    assert session.execute("(twice)").success and session.state.values[0] == Fraction(7, 2)
    before = session.state
    result = session.execute("(clash)")
    assert not result.success and result.failure.code == "NUMERIC_EFFECT_CONFLICT"
    assert "(x) twice" in result.failure.message and session.state == before
    assert "(<domain>:7:" in result.failure.message  # located at the effect


def test_undefined_values_are_errors_where_they_are_read() -> None:
    # read in a precondition: the step cannot be judged (VAL: "validator failed")
    report = _validate(["(read-z)"], goal="(done)")
    assert not report.valid and report.failure.code == "UNDEFINED_FUNCTION_VALUE"
    assert "(z) has no value" in report.failure.message and "<domain>:10:51" in report.failure.message
    # increased before it has a value: the step fails, located at the effect
    report = _validate(["(bump-z)"], goal="(done)")
    assert report.failure.code == "UNDEFINED_FUNCTION_VALUE" and "increase" in report.failure.message
    assert "<domain>:8:67" in report.failure.message
    # assigned first: then it can be read and increased
    assert _validate(["(set-z)", "(bump-z)", "(read-z)"], goal="(and (done) (= (z) 6))").valid
    # a goal that reads an undefined value is not reached, and says why
    report = _validate([], goal="(> (z) 1)")
    assert not report.valid and "has no value" in report.unsatisfied_goals[0]


def test_division_by_zero_is_a_located_failure_of_that_step() -> None:
    session = Session(COUNTER, _problem(goal="(done)"))
    result = session.execute("(divide)")
    assert not result.success and result.failure.code == "DIVISION_BY_ZERO"
    report = _validate(["(inc)", "(divide)"], goal="(done)")
    assert report.failure.step == 2 and report.failure.code == "DIVISION_BY_ZERO"
    assert "<domain>:11:79" in report.failure.message  # the '/' of the divide action
    report = _validate(["(shrink)"], goal="(done)")  # scale-down by a value that is 0
    assert report.failure.code == "DIVISION_BY_ZERO"


def test_strict_comparisons_and_conditional_numeric_effects() -> None:
    session = Session(COUNTER, _problem(init="(= (x) 1) (= (y) 3) (= (k) 0)", goal="(done)"))
    explanation = session.explain("(strict)")
    assert not explanation.applicable
    assert explanation.failure.unsatisfied == ("(< (x) 1) (left side 1, right side 1: equal, but it must be less)",)
    result = session.execute("(when-big)")
    assert result.success and "(flag)" in result.added and "(y): 3 -> 6" in result.changed
    low = Session(COUNTER, _problem(init="(= (x) 0.2) (= (y) 3) (= (k) 0)", goal="(done)"))
    result = low.execute("(when-big)")
    assert result.success and result.added == () and result.changed == ()


def test_metric_total_time_and_errors() -> None:
    report = _validate(["(inc)", "(inc)", "(inc)"], metric="(:metric maximize (* 10 (x)))")
    assert report.valid and report.metric == 4 and report.metric_direction == "maximize"
    assert "metric 4 (maximize)" in report.summary() and report.to_dict()["metric"] == 4
    report = _validate(["(inc)"] * 3, metric="(:metric minimize (+ (total-time) (x)))")
    assert report.metric == Fraction(34, 10)
    report = _validate(["(inc)"] * 3, metric="(:metric minimize (z))")
    assert report.valid and report.metric is None and "has no value" in report.metric_error


def test_static_functions_are_folded_into_constants() -> None:
    lifted = load_task(DOMAIN, PROBLEM)
    assert set(lifted.fluent_functions) == {"level", "rate", "pumped", "energy"}  # capacity is static
    task = ground(lifted)
    pump = next(a for a in task.actions if a.schema.name == "pump")
    assert isinstance(pump, NumericAction)
    tests = [p[1] for p in (pump.cond[1] if pump.cond[0] == 0 else (pump.cond,)) if p[0] == NUMERIC]
    (test,) = tests
    assert isinstance(test, NumericTest)
    assert test.right[0] == "c"  # (* 2 (capacity ?t)) became a number
    assert test.left[0] == "+" and test.left[1][0] == "x"


def _walk(space, rng: random.Random, steps: int) -> list:  # type: ignore[no-untyped-def]
    state, trace = space.init, []
    for _ in range(steps):
        actions = space.sort_actions(space.applicable(state))
        if not actions:
            break
        action = rng.choice(actions)
        trace.append((space.render_action(action), tuple(sorted(space.keys(state))), state.values))
        try:
            state = action.step(state).state
        except Exception as err:
            trace.append(("error", type(err).__name__, getattr(err, "code", None)))
            break
    return trace


@pytest.mark.parametrize("seed", range(6))
def test_grounded_and_lifted_backends_agree_step_by_step(seed: int) -> None:
    lifted = load_task(DOMAIN, PROBLEM)
    grounded, lazy = ground(lifted), LazyTask(lifted)
    assert isinstance(grounded.init, NumericState) and grounded.init.values == lazy.init.values
    assert _walk(grounded, random.Random(seed), 25) == _walk(lazy, random.Random(seed), 25)


def test_session_shows_explains_and_undoes_values() -> None:
    session = Session(DOMAIN, PROBLEM, feedback="progress", detect_loops=True)
    assert session.state_values() == ["(level t1) = 0", "(level t2) = 0.5", "(rate p1) = 4", "(rate p2) = 0.1",
                                      "(pumped) = 0", "(energy) = 12"]
    assert "(capacity t1) = 10" in session.state_values(include_static=True)
    status = session.goal_status()
    assert "(>= (level t2) 0.7) (left side 0.5, right side 0.7: short by 0.2)" in status.unsatisfied
    start = session.state
    session.execute("(open-pump p2)")
    result = session.execute("(pump p2 t2)")
    assert result.success and result.changed == ("(level t2): 0.5 -> 0.6", "(pumped): 0 -> 0.15")
    session.save("half")
    session.execute("(pump p2 t2)")
    assert "(>= (level t2) 0.7)" in session.goal_status().satisfied
    session.restore("half")
    assert session.state.values[1] == Fraction(3, 5)
    assert session.undo(2) == 2 and session.state == start and session.state.values == start.values
    # a state with the same atoms and other values is another state
    session.execute("(open-pump p1)")
    session.execute("(pump p1 t1)")
    result = session.execute("(drain t1)")  # needs p1 closed: it is open
    assert not result.success and "violated for ?p=p1" in result.failure.unsatisfied[0]
    assert session.first_visit() is None


def test_a_cost_that_reads_total_cost_is_numeric() -> None:
    """(increase (total-cost) (total-cost)) doubles the cost so far: the
    right-hand side reads the state before the step, also inside a when
    (issue 25 refused it while numeric fluents were unsupported)."""
    domain = """(define (domain d) (:requirements :action-costs :conditional-effects)
 (:predicates (p) (q)) (:functions (total-cost) - number)
 (:action double :parameters () :precondition (and) :effect (and (p) (increase (total-cost) (total-cost))))
 (:action maybe :parameters () :precondition (and) :effect (and (q) (when (p) (increase (total-cost) (total-cost))))))"""
    problem = "(define (problem q) (:domain d) (:init (= (total-cost) 1)) (:goal (q)) (:metric minimize (total-cost)))"
    lifted = load_task(domain, problem)
    assert lifted.numeric_task and "total-cost" in lifted.fluent_functions
    report = validate_plan(lifted, ["(maybe)", "(double)", "(double)", "(maybe)"])
    assert report.valid and report.metric == 8  # 1, 1 (p false), 2, 4, 8
