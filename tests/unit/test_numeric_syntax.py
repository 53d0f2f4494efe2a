"""Numeric fluents, front end: the grammar (subtraction beside negation, the
numeric-fact run token), exact literals, the printer round trip, and the
checker's diagnostics for functions, terms, effects, initial values and
metrics; PDDL features beyond numeric fluents are refused by name and
position, never as syntax errors."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from malformed_cases import reformat
from numeric_cases import DOMAIN, PROBLEM

from pypddlengine.checker import check
from pypddlengine.exact import approx, normal, parse_number, to_json, to_text
from pypddlengine.model import BinaryExpr, Compare, FunctionTerm, Number, NumericFact
from pypddlengine.printer import format_domain, format_problem
from pypddlengine.syntax import parse_domain, parse_problem


def _pre(text: str):  # the precondition of a one-action domain
    domain = parse_domain(
        "(define (domain d) (:functions (x) (y ?o)) (:action a :parameters (?o) "
        f":precondition {text} :effect (and)))"
    )
    return domain.actions[0].precondition


# ---------------------------------------------------------------- grammar


def test_binary_minus_is_subtraction_and_unary_minus_negation() -> None:
    sub = _pre("(>= (- (y ?o) 1) (x))")
    assert sub.left == BinaryExpr("-", FunctionTerm("y", sub.left.left.terms), Number(1))
    neg = _pre("(>= (- (y ?o)) 0)")
    assert neg.left.op == "-" and neg.left.right is None
    two_terms = _pre("(> (- (y ?o) (x)) 0)")  # was a syntax error before the grammar fix
    assert two_terms.left.right == FunctionTerm("x", ())
    nary = _pre("(< (- 10 (x) 2) 1)")  # left-associative: (10 - x) - 2
    assert nary.left == BinaryExpr("-", BinaryExpr("-", Number(10), FunctionTerm("x", ())), Number(2))
    assert _pre("(= (x) -3)").right == Number(-3)


def test_literals_are_exact() -> None:
    assert parse_number("0.1") == Fraction(1, 10) and type(parse_number("0.1")) is Fraction
    assert parse_number("2.0") == 2 and type(parse_number("2.0")) is int
    assert parse_number("-7") == -7 and parse_number("-0.25") == Fraction(-1, 4)
    x = parse_number("0.1")
    assert x + x + x + x == parse_number("0.4")  # with doubles: 0.30000000000000004 + 0.1
    assert x + x + x == parse_number("0.3")      # doubles say 0.30000000000000004 != 0.3
    assert normal(Fraction(6, 3)) == 2 and type(normal(Fraction(6, 3))) is int


@pytest.mark.parametrize(("value", "text", "json"), [
    (3, "3", 3), (Fraction(3), "3", 3), (Fraction(2, 5), "0.4", 0.4), (Fraction(-25, 8), "-3.125", -3.125),
    (Fraction(1, 3), "1/3", "1/3"), (Fraction(-1, 3), "-1/3", "-1/3"), (Fraction(1, 20), "0.05", 0.05),
    (Fraction(123456789123456789, 10**18), "0.123456789123456789", "0.123456789123456789"),
])
def test_exact_text_and_json(value, text, json) -> None:
    assert to_text(value) == text
    assert to_json(value) == json and type(to_json(value)) is type(json)
    assert parse_number(text) == value if "/" not in text else True


def test_approx_is_short() -> None:
    assert approx(Fraction(2, 5)) == "0.4" and approx(Fraction(1, 3)) == "~0.333333" and approx(12) == "12"


def test_numeric_fact_runs_keep_positions_and_values() -> None:
    text = ("(define (problem p) (:domain d) (:objects a b)\n(:init (p a)\n   (= (f a) 3.5) (= (g a b) -2) ; c\n"
            "   (= (h) 0)\n (r b) (= (f b)\n   1))\n(:goal (and)))")
    facts = [f for f in parse_problem(text).init if isinstance(f, NumericFact)]
    assert [(str(f.target), f.value.value) for f in facts] == [
        ("(f a)", Fraction(7, 2)), ("(g a b)", -2), ("(h)", 0), ("(f b)", 1)]
    assert [(f.span.line, f.span.column) for f in facts] == [(3, 5), (3, 19), (4, 5), (5, 9)]
    assert [(f.value.span.line, f.value.span.column) for f in facts] == [(3, 13), (3, 29), (4, 11), (6, 4)]


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9))
def test_reformatting_keeps_the_numeric_model(seed: int) -> None:
    rng = random.Random(seed)
    assert parse_domain(reformat(DOMAIN, rng)) == parse_domain(DOMAIN)
    assert parse_problem(reformat(PROBLEM, rng)) == parse_problem(PROBLEM)


def test_printer_round_trip_keeps_exact_values() -> None:
    domain, problem = parse_domain(DOMAIN), parse_problem(PROBLEM)
    assert parse_domain(format_domain(domain)) == domain
    printed = format_problem(problem)
    assert "(= (level t2) 0.5)" in printed and "1/2" not in printed
    assert parse_problem(printed) == problem


# ---------------------------------------------------------------- checker


def _errors(domain: str, problem: str | None = None) -> list:
    report = check(parse_domain(domain), parse_problem(problem) if problem else None)
    return [e for e in report.errors if e.code != "UNSUPPORTED_REQUIREMENT"
            or e.details.get("feature") != "numeric-fluents"]


def test_the_case_domain_has_no_other_error() -> None:
    report = check(parse_domain(DOMAIN), parse_problem(PROBLEM))
    assert "numeric-fluents" in report.features
    assert _errors(DOMAIN, PROBLEM) == [] and report.warnings == ()


@pytest.mark.parametrize(("old", "new", "code", "words"), [
    ("(> (energy) 0)", "(> (enrgy) 0)", "UNDEFINED_FUNCTION", "'enrgy'"),
    ("(increase (level ?t) (rate ?p))", "(increase (level ?t ?p) (rate ?p))", "ARITY_MISMATCH", "takes 1"),
    ("(increase (level ?t) (rate ?p))", "(increase (level ?p) (rate ?p))", "TYPE_MISMATCH", "tank"),
    ("(* 2 (capacity ?t))", "(* 2 (capacity ?q))", "UNDEFINED_VARIABLE", "'?q'"),
    ("(scale-up (rate ?p) 1.25)", "(scale-up (speed ?p) 1.25)", "UNDEFINED_FUNCTION", "'speed'"),
    ("(>= (level ?t) (capacity ?t))", "(>= (level ?t) (capacity ?t ?t))", "ARITY_MISMATCH", "capacity"),
])
def test_domain_errors_are_located(old: str, new: str, code: str, words: str) -> None:
    assert old in DOMAIN
    errors = _errors(DOMAIN.replace(old, new, 1))
    assert errors and errors[0].code == code and words in errors[0].message
    line = DOMAIN.replace(old, new, 1).splitlines()[errors[0].span.line - 1]
    assert new.split()[0].lstrip("(") in line or new in line


@pytest.mark.parametrize(("old", "new", "code", "words"), [
    ("(= (rate p2) 0.1)", "(= (rate t2) 0.1)", "TYPE_MISMATCH", "pump"),
    ("(= (rate p2) 0.1)", "(= (rate p3) 0.1)", "UNDEFINED_OBJECT", "'p3'"),
    ("(= (energy) 12)", "(= (energy) 12) (= (energy) 3)", "DUPLICATE_DEFINITION", "twice"),
    ("(>= (level t2) 0.7)", "(>= (level t2 t1) 0.7)", "ARITY_MISMATCH", "level"),
    ("(* -0.5 (energy))", "(* -0.5 (enegy))", "UNDEFINED_FUNCTION", "'enegy'"),
])
def test_problem_errors_are_located(old: str, new: str, code: str, words: str) -> None:
    assert old in PROBLEM
    errors = _errors(DOMAIN, PROBLEM.replace(old, new, 1))
    assert errors and errors[0].code == code and words in errors[0].message
    assert errors[0].source.name == "<problem>" and errors[0].span is not None


def test_an_undeclared_initial_value_is_a_warning() -> None:
    report = check(parse_domain(DOMAIN), parse_problem(PROBLEM.replace("(= (energy) 12)", "(= (energy) 12) (= (fuel) 7.0)")))
    assert _errors(DOMAIN, PROBLEM) == []
    warning = next(w for w in report.warnings if w.code == "UNDEFINED_FUNCTION")
    assert "(fuel)" in warning.message and "ignored" in warning.message


def test_a_variable_or_object_fluent_is_not_a_number() -> None:
    errors = _errors(DOMAIN.replace("(> (energy) 0)", "(= (energy) ?p)"))
    assert errors[0].code == "TYPE_MISMATCH" and "'?p'" in errors[0].message
    objf = DOMAIN.replace("(pumped) (energy) - number", "(pumped) (energy) - number (best ?t - tank) - pump")
    report = check(parse_domain(objf.replace("(> (energy) 0)", "(> (best t1) 0)")))
    assert any(e.details.get("feature") == "object-fluents" for e in report.errors)


def test_total_time_is_a_metric_and_a_changing_cost_is_numeric() -> None:
    classic = ("(define (domain c) (:requirements :action-costs) (:predicates (p)) (:functions (total-cost) (k)) "
               "(:action a :parameters () :precondition (and) :effect (and (p) (increase (total-cost) (k)))){}")
    report = check(parse_domain(classic.format(")")))
    assert report.features >= {"action-costs"} and "numeric-fluents" not in report.features
    changing = classic.format(" (:action b :parameters () :precondition (and) :effect (and (increase (k) 1))))")
    assert "numeric-fluents" in check(parse_domain(changing)).features
    timed = check(parse_domain(classic.format(")")), parse_problem(
        "(define (problem q) (:domain c) (:init (= (k) 1)) (:goal (p)) (:metric minimize (total-time)))"))
    assert timed.errors == () and timed.warnings == ()


# ---------------------------------------------------------------- beyond level 2: refused by name and place


_DURATIVE = """(define (domain t) (:requirements :typing)
 (:predicates (p) (q)) (:functions (f))
 (:durative-action go :parameters () :duration (= ?duration 2)
   :condition (at start (p))
   :effect (and (at end (q)) (increase (f) (* #t 2)))))"""


@pytest.mark.parametrize(("domain", "problem", "feature", "line", "column"), [
    (_DURATIVE, None, "durative-actions", 3, 20),  # refused outside the temporal stage, at the action's name
    (_DURATIVE, None, "continuous-effects", 5, 47),
    ("(define (domain c) (:predicates (p)) (:action a :parameters () :precondition (and) :effect (p)))",
     "(define (problem q) (:domain c) (:init) (:goal (p))\n (:constraints (always (p))))", "constraints", 2, 3),
    ("(define (domain c) (:predicates (p)) (:action a :parameters () :precondition (and) :effect (p)))",
     "(define (problem q) (:domain c) (:init) (:goal (and (p)\n  (preference g1 (p)))))", "preferences", 2, 4),
    ("(define (domain c) (:predicates (p)) (:action a :parameters () :precondition (and) :effect (p)))",
     "(define (problem q) (:domain c) (:init) (:goal (p))\n (:metric minimize (is-violated g1)))", "preferences", 2, 21),
    ("(define (domain c) (:requirements :preferences) (:predicates (p))\n (:action a :parameters ()"
     " :precondition (preference w (p)) :effect (p)))", None, "preferences", 2, 43),
])
def test_unsupported_constructs_are_named_and_located(domain, problem, feature, line, column) -> None:
    report = check(parse_domain(domain), parse_problem(problem) if problem else None)
    found = [e for e in report.errors if e.code == "UNSUPPORTED_REQUIREMENT" and e.details["feature"] == feature]
    assert found, [e.render() for e in report.errors]
    assert (found[0].span.line, found[0].span.column) == (line, column)
    assert found[0].source is not None
    assert not any(e.code == "SYNTAX_ERROR" for e in report.errors)


def test_metric_and_comparisons_are_read() -> None:
    problem = parse_problem(PROBLEM)
    assert problem.metric.direction == "minimize"
    assert problem.metric.expression.right.left == Number(Fraction(-1, 2))
    goal = problem.goal.parts[1]
    assert isinstance(goal, Compare) and goal.op == ">=" and goal.right == Number(Fraction(7, 10))
