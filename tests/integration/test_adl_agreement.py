"""ADL and derived predicates (issue 11) against oracles that share nothing
with the engine's normalise stage and grounder: the brute-force simulator of
tests/oracles.py along seeded random walks on the smallest task of every ADL
and axiom domain of the corpus (applicable actions, successor states with
derived atoms, goal test, the lifted validator's verdict on the walk)."""

from __future__ import annotations

import random

import pytest
from corpus import CORPUS, CORPUS_REASON, entries, smallest_task
from oracles import BruteForce

from pypddlengine import Session, ground, load_task, validate_plan

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)

ADL_FEATURES = {"conditional-effects", "derived-predicates", "disjunctive-preconditions", "universal-preconditions",
                "existential-preconditions", "universal-effects"}
ADL = [e for e in entries() if ADL_FEATURES & set(e["features_detected"])]
IDS = [e["domain"] for e in ADL]


def _facts(task, state) -> set[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    lifted = task.lifted
    return {(lifted.predicates[k[0]], *[lifted.objects[o] for o in k[1:]]) for k in task.keys(state)}


def test_the_corpus_has_the_adl_domains() -> None:
    assert len(ADL) >= 9


@pytest.mark.parametrize("entry", ADL, ids=IDS)
def test_random_walks_agree_with_brute_force(entry: dict) -> None:
    _, domain, problem = smallest_task(entry)
    lifted = load_task(domain, problem)
    try:
        oracle = BruteForce(lifted)
    except ValueError as err:
        pytest.skip(str(err))
    session = Session(ground(lifted))
    task = session.task
    rng = random.Random(f"adl-walk:{entry['domain']}")
    for walk in range(2):
        session.reset()
        facts = oracle.initial()
        assert _facts(task, session.state) == facts
        for _ in range(12):
            ours = {(a.schema.name, *[lifted.objects[o] for o in a.args]) for a in task.applicable(session.state)}
            assert ours == oracle.applicable(facts), f"walk {walk} after {session.plan()}"
            assert task.is_goal(session.state) == oracle.is_goal(facts)
            if not ours:
                break
            name, *args = rng.choice(sorted(ours))
            result = session.execute(f"({name} {' '.join(args)})")
            assert result.success
            facts = oracle.apply(name, tuple(args), facts)
            assert _facts(task, session.state) == facts, f"walk {walk} after {session.plan()}"
        report = validate_plan(lifted, session.plan())
        assert report.steps_applied == len(session.plan())
        assert report.goal_reached == oracle.is_goal(facts)
