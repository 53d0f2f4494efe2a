"""Bounds on numbers and calls (issue 30): exact numbers past
``exact.MAX_NUMBER_BITS`` are ``NUMERIC_OVERFLOW`` (at the effect, before the
step changes anything; at the literal when parsed), rendering never overflows a
float or Python's integer-to-text limit, a failed step leaves the session as it
was, ``MAX_NESTING`` is read at call time and no depth gives ``RecursionError``."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from pypddlengine import ErrorCode, PDDLError, exact, load_task, open_session, validate_plan
from pypddlengine.exact import approx, to_json, to_text
from pypddlengine.syntax import parser

SQUARE = """(define (domain sq) (:requirements :numeric-fluents)
 (:functions (x) (k))
 (:action square :parameters () :precondition (and) :effect (and (assign (x) (* (x) (x)))))
 (:action ten :parameters () :precondition (and) :effect (and (scale-up (x) 10)))
 (:action half :parameters () :precondition (and) :effect (and (scale-down (x) 3)))
 (:action below :parameters () :precondition (< (x) (k)) :effect (and (increase (x) 1))))"""


def _problem(init: str = "(= (x) 2) (= (k) 1)", goal: str = "(> (x) 1000)") -> str:
    return f"(define (problem p) (:domain sq) (:init {init}) (:goal {goal}))"


@pytest.mark.parametrize("backend", ["grounded", "lifted"])
def test_squaring_stops_with_a_typed_error_before_the_step(backend: str) -> None:
    session = open_session(SQUARE, _problem(), text=True, backend=backend)
    steps = 0
    while True:
        before = (session.state, session.state.values, session.history)
        result = session.execute("(square)")
        if not result.success:
            break
        steps += 1
        assert steps < 20
    assert steps == 10  # 2^(2^10) has 1,025 bits; 2^(2^11) would have 2,049
    assert result.failure.code == ErrorCode.NUMERIC_OVERFLOW
    assert "(x)" in result.failure.message and "1,200 bits" in result.failure.message
    assert (session.state, session.state.values, session.history) == before
    assert session.execute("(half)").success  # still usable
    assert len(session.state_values()) >= 1 and session.validate().valid is not None


def test_validation_of_a_growing_plan_is_fast_and_typed() -> None:
    report = validate_plan(load_task(SQUARE, _problem()), ["(square)"] * 34)
    assert not report.valid and report.failure is not None
    assert report.failure.code == ErrorCode.NUMERIC_OVERFLOW and report.failure.step == 11


def test_scale_up_past_the_bound_and_rendering() -> None:
    session = open_session(SQUARE, _problem(init="(= (x) 1) (= (k) 1)"), text=True)
    fitting = max(n for n in range(2000) if (10**n).bit_length() <= exact.MAX_NUMBER_BITS)
    for _ in range(fitting):
        result = session.execute("(ten)")
        assert result.success
    json.dumps(session.state_values())
    bad = session.execute("(ten)")
    assert not bad.success and bad.failure.code == ErrorCode.NUMERIC_OVERFLOW
    assert len(session.history) == fitting and session.state.values[0] == 10**fitting


def test_bound_is_configurable_at_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exact, "MAX_NUMBER_BITS", 64)
    session = open_session(SQUARE, _problem(), text=True)
    assert [session.execute("(square)").success for _ in range(7)] == [True] * 5 + [False, False]  # 2^64: 65 bits
    with pytest.raises(PDDLError) as err:
        load_task(SQUARE, _problem(init="(= (x) 100000000000000000000) (= (k) 1)"))
    assert err.value.code == ErrorCode.NUMERIC_OVERFLOW


@pytest.mark.parametrize("literal", ["1" * 4301, "0." + "0" * 50_000 + "1", "7" * 401])
def test_huge_literals_are_refused_where_they_are(literal: str) -> None:
    problem = _problem(init=f"(= (x) 2)\n   (= (k) {literal})")
    with pytest.raises(PDDLError) as err:
        load_task(SQUARE, problem)
    assert err.value.code == ErrorCode.NUMERIC_OVERFLOW
    assert err.value.span is not None and err.value.span.line == 2 and err.value.span.column == 11
    domain = SQUARE.replace("(scale-up (x) 10)", f"(scale-up (x) {literal})")
    with pytest.raises(PDDLError) as err:
        load_task(domain, _problem())
    assert err.value.code == ErrorCode.NUMERIC_OVERFLOW and err.value.span.line == 4


def test_every_double_fits() -> None:
    largest = "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171" \
              "540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508" \
              "455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368"
    assert exact.parse_number(largest) == int(1.7976931348623157e308)
    tiny = "0." + "0" * 323 + "494065645841246544"  # the smallest denormal, to 18 digits
    assert exact.fits(exact.parse_number(tiny)) and exact.fits(Fraction(5e-324))
    load_task(SQUARE, _problem(init=f"(= (x) {largest}.5) (= (k) {tiny})"))


def test_rendering_never_overflows() -> None:
    big = 10**400 + Fraction(1, 2)
    assert to_json(big) == to_text(big) and to_text(big).endswith(".5")
    assert approx(10**400) == "~1.0000e+400" and approx(-(10**5000)) == "~-1.0000e+5000"
    assert to_text(10**5000).startswith("~1.0000e+5000")
    assert to_text(Fraction(1, 3**9000)).startswith("1/~")
    assert exact.to_float(10**400) == float("inf")
    session = open_session(SQUARE, _problem(init="(= (x) 2) (= (k) -1" + "0" * 320 + ".5)"), text=True)
    failed = session.execute("(below)")  # a failing comparison with a 321-digit constant
    assert failed.failure is not None and "e+320" in " ".join(failed.failure.unsatisfied), failed.failure
    assert "k" in " ".join(session.state_values(include_static=True))
    assert not session.explain("(below)").applicable


def test_max_nesting_is_read_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    goal = "(not " * 30 + "(> (x) 1)" + ")" * 30
    monkeypatch.setattr(parser, "MAX_NESTING", 20)
    with pytest.raises(PDDLError) as err:
        load_task(SQUARE, _problem(goal=goal))
    assert err.value.code == ErrorCode.NESTING_LIMIT and err.value.details["limit"] == 20


@pytest.mark.parametrize("depth", [300, 2000, 20_000])
def test_no_recursion_error_at_any_depth(monkeypatch: pytest.MonkeyPatch, depth: int) -> None:
    monkeypatch.setattr(parser, "MAX_NESTING", 10**9)
    goal = "(not " * depth + "(> (x) 1)" + ")" * depth
    try:
        session = open_session(SQUARE, _problem(goal=goal), text=True)
        session.execute("(square)")
        session.validate()
    except PDDLError as err:
        assert err.code in (ErrorCode.NESTING_LIMIT, ErrorCode.SYNTAX_ERROR)


# ----------------------------------------------------------------------------- initial values, warnings


def test_identical_repeated_initial_value_is_a_located_warning() -> None:
    from pypddlengine.checker import check
    from pypddlengine.syntax import parse_domain, parse_problem

    repeated = _problem(init="(= (x) 2) (= (k) 89.48)\n  (= (k) 89.48)")
    report = check(parse_domain(SQUARE), parse_problem(repeated))
    assert report.errors == ()
    [warning] = [w for w in report.warnings if w.code == ErrorCode.DUPLICATE_DEFINITION]
    assert warning.span.line == 2 and "same initial value twice (first at line 1)" in warning.message
    assert open_session(SQUARE, repeated, text=True).execute("(square)").success
    different = _problem(init="(= (x) 2) (= (k) 89.48)\n  (= (k) 89.5)")
    with pytest.raises(PDDLError) as err:
        load_task(SQUARE, different)
    assert err.value.code == ErrorCode.DUPLICATE_DEFINITION and err.value.span.line == 2


def test_uninitialised_total_cost_read_as_zero_is_a_warning(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from pypddlengine.cli import main

    domain = tmp_path / "d.pddl"
    problem = tmp_path / "p.pddl"
    domain.write_text("(define (domain d) (:requirements :action-costs) (:predicates (p)) (:functions (total-cost))"
                      " (:action a :parameters () :precondition (and) :effect (and (p) (increase (total-cost) 1))))")
    problem.write_text("(define (problem q) (:domain d)\n (:init )\n (:goal (p)) (:metric minimize (total-cost)))")
    result = CliRunner().invoke(main, ["check", str(domain), str(problem)])
    assert result.exit_code == 0
    assert f"{problem}:2:3: warning[UNDEFINED_FUNCTION_VALUE]: (total-cost) has no initial value" in result.output
    report = validate_plan(load_task(str(domain), str(problem)), ["(a)"])
    assert report.valid and report.metric == 1  # read as 0, as Fast Downward does


# ----------------------------------------------------------------------------- the time limit of a validation


def test_validation_has_a_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from pypddlengine import validate
    from pypddlengine.bundled import bundled_task

    task = load_task(*bundled_task("blocksworld/p01"))
    plan = ["(pick-up b)", "(put-down b)"] * 100_000
    with pytest.raises(PDDLError) as err:
        validate_plan(task, plan, max_seconds=0.01)
    assert err.value.code == ErrorCode.VALIDATION_TIMEOUT and err.value.details["limit_seconds"] == 0.01
    assert "MAX_VALIDATION_SECONDS" in err.value.hint and 0 < err.value.details["steps_checked"] < len(plan)
    monkeypatch.setattr(validate, "MAX_VALIDATION_SECONDS", 0.01)
    session = open_session(*bundled_task("blocksworld/p01"))
    with pytest.raises(PDDLError) as err:
        session.validate(plan)
    assert err.value.code == ErrorCode.VALIDATION_TIMEOUT
    assert session.validate(plan[:4], max_seconds=60).steps_applied == 4


# ----------------------------------------------------------------------------- the gym adapter


def test_gym_nul_bytes_and_the_automatic_backend() -> None:
    pytest.importorskip("gymnasium")
    from pypddlengine.grounding import GroundingOptions
    from pypddlengine.gym import PDDLEnv

    with pytest.raises(PDDLError) as err:
        PDDLEnv(domain="\x00" * 10, problem="x")
    assert err.value.code == ErrorCode.FILE_NOT_FOUND and "\\x00" in err.value.message
    with pytest.raises(PDDLError) as err:  # too large for the automatic backend: refused at once, not grounded
        PDDLEnv(task="blocksworld/p02", options=GroundingOptions(max_actions=5))
    assert err.value.code == ErrorCode.FEATURE_UNAVAILABLE and "backend='grounded'" in err.value.hint
    env = PDDLEnv(task="blocksworld/p02")
    assert env.problems[0].session.grounded is not None


# ----------------------------------------------------------------------------- listed means executable

DRIVE = """(define (domain drive) (:requirements :typing :action-costs{numeric})
 (:types place)
 (:predicates (at ?p - place))
 (:functions (drive-cost ?a ?b - place) (total-cost){fluent})
 (:action drive :parameters (?a ?b - place) :precondition (at ?a)
   :effect (and (not (at ?a)) (at ?b) (increase (total-cost) (drive-cost ?a ?b)){effect})))"""
DRIVE_PROBLEM = """(define (problem d) (:domain drive) (:objects depot market - place)
 (:init (at depot) (= (drive-cost depot market) 3) (= (drive-cost market depot) 3) (= (total-cost) 0){init})
 (:goal (at market)) (:metric minimize (total-cost)))"""


@pytest.mark.parametrize("backend", ["grounded", "lifted"])
@pytest.mark.parametrize("numeric", [False, True])
def test_an_action_whose_cost_has_no_value_is_not_listed(backend: str, numeric: bool) -> None:
    """patty's tpp: (drive truck0 depot0 depot0) reads (drive-cost depot0 depot0), which has no value."""
    extra = dict(numeric=" :numeric-fluents", fluent=" (fuel)", effect=" (decrease (fuel) 1)", init=" (= (fuel) 9)") \
        if numeric else dict(numeric="", fluent="", effect="", init="")
    session = open_session(DRIVE.format(**extra), DRIVE_PROBLEM.format(**extra), text=True, backend=backend)
    assert session.applicable_names() == ["(drive depot market)"]
    refused = session.execute("(drive depot depot)")
    assert not refused.success and refused.failure.code == ErrorCode.UNDEFINED_FUNCTION_VALUE
    explained = session.explain("(drive depot depot)")
    assert not explained.applicable and explained.failure.code == ErrorCode.UNDEFINED_FUNCTION_VALUE
    assert session.explain("(drive depot market)").applicable
    assert session.execute("(drive depot market)").success and session.plan() == ["(drive depot market)"]


def test_zeros_that_change_nothing_do_not_count() -> None:
    assert exact.parse_number("1." + "0" * 5000) == 1
    assert exact.parse_number("-" + "0" * 5000 + "12.50") == Fraction(-25, 2)
    with pytest.raises(exact.NumberTooLarge):
        exact.parse_number("0." + "0" * 5000 + "1")
