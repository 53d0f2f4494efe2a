"""Durative actions and timed initial literals are read into the model, checked,
compiled into snap actions, or refused by name and place (issue 31)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from temporal_oracles import TEMPORAL_CORPUS, TEMPORAL_CORPUS_REASON, temporal_tasks

from pypddlengine import load_task
from pypddlengine.checker import check
from pypddlengine.errors import PDDLError
from pypddlengine.model import (
    Atom,
    BinaryExpr,
    DurationVar,
    Forall,
    ForallEffect,
    Not,
    NumericEffect,
    TimedLiteral,
    When,
)
from pypddlengine.syntax import parse_domain, parse_problem
from pypddlengine.temporal import compile_temporal, is_temporal

DOMAIN = """(define (domain shop)
 (:requirements :typing :durative-actions :duration-inequalities :numeric-fluents :conditional-effects)
 (:types part machine)
 (:predicates (free ?m - machine) (done ?p - part) (hot ?m - machine) (open))
 (:functions (energy) (speed ?m - machine))
 (:durative-action work
   :parameters (?p - part ?m - machine)
   :duration (and (>= ?duration 1) (<= ?duration (* 2 (speed ?m))))
   :condition (and (at start (free ?m)) (over all (open)) (at end (not (done ?p))))
   :effect (and (at start (not (free ?m)))
                (at end (free ?m)) (at end (done ?p))
                (at end (decrease (energy) (* ?duration 2)))
                (forall (?n - machine) (at end (when (hot ?n) (not (hot ?n)))))))
 (:durative-action heat
   :parameters (?m - machine)
   :duration (= ?duration 5)
   :condition (at start (free ?m))
   :effect (at end (hot ?m)))
 (:action open-shop :parameters () :precondition (and) :effect (open)))"""

PROBLEM = """(define (problem p1) (:domain shop)
 (:objects a b - part m - machine)
 (:init (free m) (= (energy) 100) (= (speed m) 3) (at 10 (open)) (at 20 (not (open))))
 (:goal (and (done a) (done b)))
 (:metric minimize (total-time)))"""


def test_a_durative_action_is_read_with_its_parts_and_positions() -> None:
    domain = parse_domain(DOMAIN)
    work, heat = domain.durative_actions
    assert [a.name for a in domain.actions] == ["open-shop"]
    assert (work.name, [p.name for p in work.parameters]) == ("work", ["?p", "?m"])
    assert [(d.op, d.at) for d in work.duration] == [(">=", "start"), ("<=", "start")]
    assert [c.at for c in work.conditions] == ["start", "all", "end"]
    assert isinstance(work.conditions[2].condition, Not)
    assert [e.at for e in work.effects] == ["start", "end", "end", "end", "end"]
    energy = work.effects[3].effect
    assert isinstance(energy, NumericEffect) and isinstance(energy.value, BinaryExpr)
    assert isinstance(energy.value.left, DurationVar) and energy.value.left.span.line == 12
    quantified = work.effects[4].effect  # (forall (?n) (at end e)) is read as (at end (forall (?n) e))
    assert isinstance(quantified, ForallEffect) and isinstance(quantified.effect, When)
    assert work.span.line == 6 and work.conditions[1].span.line == 9
    assert heat.duration[0].op == "=" and heat.effect_at("start") is None
    assert isinstance(heat.effect_at("end"), type(heat.effects[0].effect))


def test_quantified_timed_conditions_are_distributed() -> None:
    text = DOMAIN.replace("(at end (not (done ?p))))", "(forall (?n - machine) (and (at start (free ?n)) (over all (free ?n)))))")
    work = parse_domain(text).durative_actions[0]
    assert [c.at for c in work.conditions] == ["start", "all", "start", "all"]
    assert all(isinstance(c.condition, Forall) for c in work.conditions[2:])


def test_timed_initial_literals_and_the_task_load_in_the_temporal_stage() -> None:
    domain, problem = parse_domain(DOMAIN), parse_problem(PROBLEM)
    tils = [f for f in problem.init if isinstance(f, TimedLiteral)]
    assert [(t.time.value, type(t.literal).__name__) for t in tils] == [(10, "Atom"), (20, "Not")]
    assert is_temporal(domain, problem)
    task = compile_temporal(domain, problem)
    names = {s.name for s in task.lifted.schemas}
    assert {"work@start", "work@end", "work@all", "heat@start", "open-shop"} <= names
    assert task.duration_fluent is not None  # ?duration is read by an effect
    assert task.report.ok and not task.report.warnings  # the temporal requirements are used, not ignored


def test_classical_loading_refuses_a_temporal_task_by_name_and_place(tmp_path) -> None:
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(PROBLEM)
    with pytest.raises(PDDLError) as info:
        load_task(str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"))
    err = info.value
    assert err.code == "UNSUPPORTED_REQUIREMENT" and err.details["feature"] == "durative-actions"
    assert (err.span.line, err.span.column) == (6, 20) and "temporal" in (err.hint or "")


@pytest.mark.parametrize(("text", "feature", "line"), [
    (DOMAIN.replace("(at end (hot ?m)))", "(and (at end (hot ?m)) (increase (energy) (* #t 2))))"),
     "continuous-effects", 18),
    (DOMAIN.replace(" (:action open-shop", " (:process leak :parameters () :precondition (open) :effect (and))\n"
                    " (:action open-shop"), "processes-and-events", 19),
    (DOMAIN.replace("(at start (free ?m))\n   :effect (at end", "(preference ok (at start (free ?m)))\n   :effect (at end"),
     "preferences", 17),
])
def test_out_of_scope_temporal_features_are_refused_located(text: str, feature: str, line: int) -> None:
    report = check(parse_domain(text), parse_problem(PROBLEM), temporal=True)
    found = [e for e in report.errors if e.code == "UNSUPPORTED_REQUIREMENT"]
    assert found and found[0].details["feature"] == feature, [e.render() for e in report.errors]
    assert found[0].span is not None and found[0].span.line == line


@pytest.mark.parametrize(("edit", "code", "line"), [
    (("(at end (done ?p))", "(at end (finished ?p))"), "UNDEFINED_PREDICATE", 11),
    (("(over all (open))", "(over all (open ?p))"), "ARITY_MISMATCH", 9),
    (("(* 2 (speed ?m))", "(* 2 (speed ?q))"), "UNDEFINED_VARIABLE", 8),
    (("(decrease (energy) (* ?duration 2))", "(decrease (energy) (* ?d 2))"), "SYNTAX_ERROR", 12),
])
def test_errors_inside_durative_actions_are_located(edit: tuple[str, str], code: str, line: int) -> None:
    text = DOMAIN.replace(*edit)
    assert text != DOMAIN
    try:
        report = check(parse_domain(text), parse_problem(PROBLEM), temporal=True)
    except PDDLError as err:  # raised while parsing
        assert err.code == code and err.span.line == line, err.render()
        return
    assert report.errors and report.errors[0].code == code, [e.render() for e in report.errors]
    assert report.errors[0].span.line == line


def test_duration_outside_a_durative_action_is_an_error() -> None:
    text = DOMAIN.replace("(:action open-shop :parameters () :precondition (and) :effect (open))",
                          "(:action open-shop :parameters () :precondition (and) :effect (increase (energy) ?duration))")
    report = check(parse_domain(text), parse_problem(PROBLEM), temporal=True)
    assert [e.code for e in report.errors] == ["UNDEFINED_VARIABLE"] and report.errors[0].span.line == 19


def test_a_bare_zero_ary_function_is_an_effect_target() -> None:
    text = DOMAIN.replace("(decrease (energy) (* ?duration 2))", "(decrease energy (* ?duration 2))")
    effect = parse_domain(text).durative_actions[0].effects[3].effect
    assert isinstance(effect, NumericEffect) and effect.target.name == "energy"


def _sweep(limit: int | None) -> None:
    if not (TEMPORAL_CORPUS / "index.json").is_file():
        pytest.skip(TEMPORAL_CORPUS_REASON)
    domains: dict[str, object] = {}
    refused: list[str] = []
    loaded = 0
    for name, domain_path, problem_path in temporal_tasks(limit):
        try:
            domain = domains.get(str(domain_path))
            if domain is None:
                domain = domains[str(domain_path)] = parse_domain(domain_path.read_bytes(), filename=str(domain_path))
            compile_temporal(domain, parse_problem(problem_path.read_bytes(), filename=str(problem_path)))
            loaded += 1
        except PDDLError as err:  # refused: located, with a code
            assert err.span is not None and err.source is not None, (name, err.render())
            refused.append(f"{name}/{problem_path.name}: {err.code}")
    # every task loads (Temporal Machine Shop's object declared with two types is of both, as VAL reads it)
    assert not refused, refused
    assert loaded >= len(temporal_tasks(limit)) - len(refused) > 0


def test_the_first_problem_of_every_temporal_domain_loads_or_is_refused_located() -> None:
    _sweep(1)


@pytest.mark.slow
def test_every_temporal_task_loads_or_is_refused_located() -> None:
    _sweep(None)


def test_timed_plans_are_read_with_exact_times() -> None:
    from pypddlengine.temporal import parse_timed_plan

    steps = parse_timed_plan("; LPG\n0.0003:   (WALK D1 S2 P1-2) [79.0000])\n\n79.0005: (work A M) [1.5] ; note\n")
    assert [(s.time, s.name, s.args, s.duration, s.line) for s in steps] == [
        (Fraction(3, 10000), "walk", ("d1", "s2", "p1-2"), Fraction(79), 2),
        (Fraction(790005, 10000), "work", ("a", "m"), Fraction(3, 2), 4)]
    for bad in ("1: a b c", "1e400: (a) [1]", "0: (a) [1e-999]", "0: () [1]", "0: (a) [1] more"):
        with pytest.raises(PDDLError) as info:
            parse_timed_plan(f"0: (a) [1]\n{bad}\n", "x.plan")
        assert info.value.code == "SYNTAX_ERROR" and info.value.span.line == 2, bad
    assert Atom  # the model's atoms are what the literals hold
