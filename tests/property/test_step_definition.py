"""The one definition of a step (issue 21) on random states and random
action sequences: the grounded backend (:func:`pypddlengine.ground`), the
on-demand backend (:class:`pypddlengine.lazy.LazyTask`) and the brute-force
simulator of tests/oracles.py (which evaluates the parsed model as written)
agree on applicable actions, successor states with their derived atoms,
goal tests and the validator's verdicts.

The domain is built to stress the order of a step: conditional effects whose
conditions read atoms the same action deletes and adds, a delete and an add
of the same atom, a universally quantified conditional effect, negative and
quantified preconditions, and derived predicates over two strata (one uses
the other negatively)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import BruteForce

from pypddlengine import compile_task, ground, parse_domain, parse_problem, validate_plan
from pypddlengine.lazy import LazyTask
from pypddlengine.syntax import plan_words

OBJECTS = ("a", "b", "c")
DOMAIN = """(define (domain step) (:requirements :adl :derived-predicates) (:types o)
  (:predicates (p ?x - o) (q ?x - o ?y - o) (r) (d ?x - o) (e ?x - o))
  (:derived (d ?x - o) (or (p ?x) (exists (?y - o) (and (q ?x ?y) (d ?y)))))
  (:derived (e ?x - o) (and (not (d ?x)) (not (r))))
  (:action toggle :parameters (?x - o)
    :effect (and (when (p ?x) (not (p ?x))) (when (not (p ?x)) (p ?x))))
  (:action link :parameters (?x ?y - o)
    :precondition (and (not (= ?x ?y)) (not (q ?x ?y)))
    :effect (and (q ?x ?y) (not (r)) (when (r) (p ?y))))
  (:action flood :parameters (?x - o)
    :precondition (or (d ?x) (r))
    :effect (forall (?y - o) (when (q ?x ?y) (and (not (q ?x ?y)) (q ?y ?x) (p ?y)))))
  (:action reset :parameters ()
    :precondition (forall (?x - o) (imply (p ?x) (e ?x)))
    :effect (and (r) (not (r)) (forall (?x - o) (not (p ?x)))))
  (:action mark :parameters (?x - o)
    :precondition (and (e ?x) (not (r)))
    :effect (and (r) (when (r) (not (p ?x))) (when (not (r)) (p ?x)))))
"""
ATOMS = [("p", o) for o in OBJECTS] + [("q", x, y) for x in OBJECTS for y in OBJECTS] + [("r",)]
GOAL = "(and (r) (exists (?x - o) (d ?x)))"


def _lifted(init: set[tuple[str, ...]]):  # type: ignore[no-untyped-def]
    facts = " ".join(f"({' '.join(a)})" for a in sorted(init))
    objects = " ".join(OBJECTS)
    problem = f"(define (problem s) (:domain step) (:objects {objects} - o) (:init {facts}) (:goal {GOAL}))"
    return compile_task(parse_domain(DOMAIN), parse_problem(problem))


def _facts(space, state) -> set[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    lifted = space.lifted
    return {(lifted.predicates[k[0]], *[lifted.objects[o] for o in k[1:]]) for k in (space.atoms[i] for i in state)}


def _names(space, actions) -> dict[tuple[str, ...], object]:  # type: ignore[no-untyped-def]
    lifted = space.lifted
    return {(a.schema.name, *[lifted.objects[o] for o in a.args]): a for a in actions}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(init=st.sets(st.sampled_from(ATOMS)), choices=st.lists(st.integers(0, 10_000), max_size=8))
def test_grounded_on_demand_and_brute_force_steps_agree(init, choices) -> None:  # type: ignore[no-untyped-def]
    lifted = _lifted(init)
    oracle = BruteForce(lifted)
    task, lazy = ground(lifted), LazyTask(lifted)
    facts = oracle.initial()
    gs, ls = task.init, lazy.init
    plan: list[str] = []
    for choice in [*choices, None]:
        assert _facts(task, gs) == facts == _facts(lazy, ls), plan
        assert task.is_goal(gs) == oracle.is_goal(facts) == lazy.is_goal(ls), plan
        ga, la = _names(task, task.applicable(gs)), _names(lazy, lazy.applicable(ls))
        assert set(ga) == oracle.applicable(facts) == set(la), plan
        if choice is None or not ga:
            break
        name = sorted(ga)[choice % len(ga)]
        gs, ls = ga[name].apply(gs), la[name].apply(ls)  # type: ignore[attr-defined]
        facts = oracle.apply(name[0], name[1:], facts)
        plan.append(f"({' '.join(name)})")
    reports = [validate_plan(lifted, plan), validate_plan(task, plan), validate_plan(lazy, plan)]
    assert reports[0] == reports[1] == reports[2]
    assert reports[0].steps_applied == len(plan) and reports[0].goal_reached == oracle.is_goal(facts)


ALL_REFS = ([f"(toggle {x})" for x in OBJECTS] + [f"(link {x} {y})" for x in OBJECTS for y in OBJECTS]
            + [f"(flood {x})" for x in OBJECTS] + ["(reset)"] + [f"(mark {x})" for x in OBJECTS]
            + ["(LINK A B)", "(fly a)", "(toggle a b)", "(toggle z)"])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(init=st.sets(st.sampled_from(ATOMS)),
       plans=st.lists(st.lists(st.sampled_from(ALL_REFS), max_size=6), min_size=2, max_size=5))
def test_a_backend_validating_many_plans_judges_each_as_a_fresh_one(init, plans) -> None:  # type: ignore[no-untyped-def]
    """``pypddl validate`` with many plans reuses one backend, whose remembered
    steps (applicable or not, never applicable, malformed) must not change a
    later plan's report."""
    lifted = _lifted(init)
    shared = [ground(lifted), LazyTask(lifted)]
    for plan in plans:
        fresh = validate_plan(lifted, plan)
        words = plan_words("\n".join(plan))  # the batch command's steps, no object per step
        assert words is not None
        for space in shared:
            assert validate_plan(space, plan) == fresh, plan
            by_words = validate_plan(space, words)
            assert by_words.valid == fresh.valid and by_words.steps_applied == fresh.steps_applied, plan
            if fresh.valid:  # the command keeps a valid verdict from the words, else it parses the plan in full
                assert by_words == fresh, plan
            else:
                assert by_words.failure is None or by_words.failure.code == fresh.failure.code  # type: ignore[union-attr]
