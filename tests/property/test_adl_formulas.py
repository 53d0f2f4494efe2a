"""Random ADL formulas (and, or, not over anything, imply, exists, forall,
equality, constants) decided in random states: the grounded engine (normalise
stage, optimistic grounding, ground formulas), the on-demand backend, the
validator and the goal test all agree with the brute-force oracle of tests/oracles.py, which
evaluates the formula as written."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import BruteForce

from pypddlengine import compile_task, ground, parse_domain, parse_problem, validate_plan
from pypddlengine.lazy import LazyTask
from pypddlengine.model import And, Atom, Constant, Equals, Exists, Forall, Imply, Not, Or, Parameter, Variable
from pypddlengine.printer import format_condition

OBJECTS = ("o1", "o2", "o3")
DOMAIN = """(define (domain f) (:requirements :adl) (:types a)
  (:constants o1 o2 o3 - a)
  (:predicates (p ?x - a) (q ?x - a ?y - a) (r))
  (:action flip :parameters (?x ?y - a)
    :effect (and (when (p ?x) (not (p ?x))) (when (not (p ?x)) (p ?x))
                 (when (q ?x ?y) (not (q ?x ?y))) (when (not (q ?x ?y)) (q ?x ?y))
                 (when (r) (not (r))) (when (not (r)) (r))))
  (:action test :parameters () :precondition COND :effect (r)))
"""
ATOMS = [("p", o) for o in OBJECTS] + [("q", a, b) for a in OBJECTS for b in OBJECTS] + [("r",)]


def conditions(scope: tuple[str, ...], depth: int) -> st.SearchStrategy:
    terms = st.sampled_from([Constant(o) for o in OBJECTS] + [Variable(v) for v in scope])
    leaves = st.one_of(
        st.builds(lambda t: Atom("p", (t,)), terms),
        st.builds(lambda a, b: Atom("q", (a, b)), terms, terms),
        st.just(Atom("r", ())),
        st.builds(Equals, terms, terms),
    )
    if depth == 0:
        return leaves
    inner = conditions(scope, depth - 1)
    fresh = f"?v{len(scope)}"
    quantified = conditions((*scope, fresh), depth - 1)
    return st.one_of(
        leaves,
        st.builds(Not, inner),
        st.builds(lambda ps: And(tuple(ps)), st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda ps: Or(tuple(ps)), st.lists(inner, min_size=1, max_size=3)),
        st.builds(Imply, inner, inner),
        st.builds(lambda b: Exists((Parameter(fresh, ("a",)),), b), quantified),
        st.builds(lambda b: Forall((Parameter(fresh, ("a",)),), b), quantified),
    )


def _atom_text(atom: tuple[str, ...]) -> str:
    return f"({' '.join(atom)})"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cond=conditions((), 3), state=st.sets(st.sampled_from(ATOMS)))
def test_random_formulas_agree_with_direct_evaluation(cond, state) -> None:  # type: ignore[no-untyped-def]
    text = format_condition(cond)
    init = " ".join(_atom_text(a) for a in sorted(state))
    domain = parse_domain(DOMAIN.replace("COND", text))
    problem = parse_problem(f"(define (problem f) (:domain f) (:init {init}) (:goal {text}))")
    lifted = compile_task(domain, problem)
    expected = BruteForce(lifted).holds(cond, {}, set(state))
    task = ground(lifted)
    applicable = {a.schema.name for a in task.applicable(task.init)}
    assert ("test" in applicable) == expected, text
    assert task.is_goal(task.init) == expected, text
    lazy = LazyTask(lifted)  # the on-demand instantiation of the same formulas
    assert ("test" in {a.schema.name for a in lazy.applicable(lazy.init)}) == expected, text
    assert lazy.is_goal(lazy.init) == expected, text
    assert validate_plan(lifted, ["(test)"]).steps_applied == int(expected), text
    assert validate_plan(lifted, []).valid == expected, text
