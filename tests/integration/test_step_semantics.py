"""One definition of a step (issue 21): the grounded form (the reachability
grounder's compiled actions and axioms) and the on-demand form
(:class:`pypddlengine.lazy.LazyTask`, which the validator uses) are built
from the same instantiation code; here they are tested equal along seeded
random walks on every corpus domain small enough to ground: the same
applicable actions, successor states (derived atoms included), fired
conditional effects, step costs and goal tests, and the validator gives the
same verdict through either backend and through the session's own history.

Default run: the smallest task of each domain, short walks. ``--runslow``:
the three smallest tasks of each domain, longer walks."""

from __future__ import annotations

import random

import pytest
from corpus import CORPUS, CORPUS_REASON, smallest_cases

from pypddlengine import GroundingLimitError, Session, ground, load_task, validate_plan
from pypddlengine.grounding import GroundingOptions
from pypddlengine.lazy import LazyTask

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)

SMALL = GroundingOptions(max_actions=60_000, max_atoms=200_000, max_seconds=30)
"""What "small enough to ground" means here."""



def _name(space, action) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    lifted = space.lifted
    return (action.schema.name, *[lifted.objects[o] for o in action.args])


def _keys(space, state) -> frozenset:  # type: ignore[no-untyped-def]
    return frozenset(space.atoms[i] for i in state)


def _fired(space, action, state) -> set:  # type: ignore[no-untyped-def]
    return {(e.rule, e.args, frozenset(space.atoms[i] for i in e.add), frozenset(space.atoms[i] for i in e.delete))
            for e in action.fired(state)}


def _random_references(lifted, rng: random.Random, count: int) -> list:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(count):
        schema = rng.choice(lifted.schemas)
        if all(schema.domains):
            out.append((schema, tuple(rng.choice(d) for d in schema.domains)))
    return out


def walk_and_compare(domain: str, problem: str, walks: int, steps: int) -> None:
    lifted = load_task(CORPUS / domain, CORPUS / problem)
    try:
        task = ground(lifted, SMALL)
    except GroundingLimitError as err:
        pytest.skip(f"too large to ground for this test: {err.message}")
    lazy = LazyTask(lifted)
    session = Session(task)
    rng = random.Random(f"step-semantics:{problem}")
    assert _keys(task, task.init) == _keys(lazy, lazy.init)
    for walk in range(walks):
        session.reset()
        gs, ls = task.init, lazy.init
        plan: list[str] = []
        for _ in range(steps):
            ga = {_name(task, a): a for a in task.applicable(gs)}
            la = {_name(lazy, a): a for a in lazy.applicable(ls)}
            assert set(ga) == set(la), f"walk {walk} after {plan}"
            assert task.is_goal(gs) == lazy.is_goal(ls)
            for schema, args in _random_references(lifted, rng, 25):  # actions named directly, mostly inapplicable
                g, lz = task.lookup(schema, args), lazy.lookup(schema, args)
                assert (g is not None and g.applicable(gs)) == (lz is not None and lz.applicable(ls)), (schema.name, args)
            if not ga:
                break
            name = rng.choice(sorted(ga))
            g, lz = ga[name], la[name]
            assert _fired(task, g, gs) == _fired(lazy, lz, ls)
            assert g.step_cost(gs) == lz.step_cost(ls)
            gt, lt = g.step(gs), lz.step(ls)
            assert _keys(task, gt.state) == _keys(lazy, lt.state), f"walk {walk} after {plan} + {name}"
            assert {task.atoms[i] for i in gt.added} == {lazy.atoms[i] for i in lt.added}
            assert {task.atoms[i] for i in gt.deleted} == {lazy.atoms[i] for i in lt.deleted}
            text = f"({' '.join(name)})"
            assert session.execute(text).success
            gs, ls = gt.state, lt.state
            assert session.state == gs
            plan.append(text)
        verdicts = [validate_plan(lifted, plan), validate_plan(task, plan), validate_plan(lazy, plan), session.validate()]
        assert all(v == verdicts[0] for v in verdicts), [v.summary() for v in verdicts]
        assert verdicts[0].steps_applied == len(plan)
        assert verdicts[0].goal_reached == task.is_goal(gs)
        if len(plan) >= 2:  # a corrupted plan: the same verdict (and failing step) either way
            broken = plan[1:] if walk % 2 == 0 else [*plan[:-2], plan[-1], plan[-2]]
            first, second = validate_plan(lifted, broken), validate_plan(task, broken)
            assert first == second, (first.summary(), second.summary())


@pytest.mark.parametrize(("domain", "problem"), smallest_cases(1), ids=[p for _, p in smallest_cases(1)])
def test_grounded_and_on_demand_steps_agree(domain: str, problem: str) -> None:
    walk_and_compare(domain, problem, walks=2, steps=10)


@pytest.mark.slow
@pytest.mark.parametrize(("domain", "problem"), smallest_cases(3), ids=[p for _, p in smallest_cases(3)])
def test_grounded_and_on_demand_steps_agree_on_more_tasks(domain: str, problem: str) -> None:
    walk_and_compare(domain, problem, walks=3, steps=40)
