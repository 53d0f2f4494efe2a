"""Every task of the numeric corpus (IPC 2002 numeric tracks, IPC 2023
numeric track; read by path) parses and checks (no syntax error, no semantic
error, and warnings only where a file really has a slip), loads and takes
random-walk steps (the first task of each domain with both backends; every
task with --runslow)."""

from __future__ import annotations

from collections import defaultdict

import pytest
from numeric_cases import NUMERIC_CORPUS_REASON, numeric_tasks

from pypddlengine.checker import check
from pypddlengine.features import SUPPORTED_FEATURES
from pypddlengine.syntax import parse_domain, parse_problem

TASKS = numeric_tasks()
BY_DOMAIN: dict[str, list] = defaultdict(list)
for _name, _domain, _problem in TASKS:
    BY_DOMAIN[_name.rsplit("/", 1)[0]].append((_name, _domain, _problem))

# the slips the corpus really has (each a warning, each accepted by VAL or harmless)
EXPECTED_WARNINGS = {
    # "(:domain sailing-ln)" for the domain "sailing_ln"
    ("ipc2023-numeric/fo-sailing/pfile19", "DOMAIN_MISMATCH"),
} | {
    # initial values of (fuel-used) and (fuel), which the domain does not declare
    (f"ipc2023-numeric/markettrader/pfile{i}", "UNDEFINED_FUNCTION") for i in range(1, 21)
} | {
    # no initial value of (total-cost), which the domain increases (read as 0; issue 30)
    (f"ipc2023-numeric/fo-counters/pfile{i}", "UNDEFINED_FUNCTION_VALUE") for i in range(2, 21)
}


def test_the_corpus_is_there_or_the_tests_say_why() -> None:
    if not TASKS:
        pytest.skip(NUMERIC_CORPUS_REASON)
    assert len(BY_DOMAIN) == 19 and len(TASKS) == 382


@pytest.mark.parametrize("domain_name", sorted(BY_DOMAIN) or [pytest.param("none", marks=pytest.mark.skip(
    reason=NUMERIC_CORPUS_REASON))])
def test_every_task_parses_and_checks(domain_name: str) -> None:
    tasks = BY_DOMAIN[domain_name]
    domain = parse_domain(tasks[0][1].read_bytes(), filename=str(tasks[0][1]))
    for name, _, problem_path in tasks:
        problem = parse_problem(problem_path.read_bytes(), filename=str(problem_path))
        report = check(domain, problem)
        assert "numeric-fluents" in report.features
        errors = [e for e in report.errors
                  if not (e.code == "UNSUPPORTED_REQUIREMENT" and e.details["feature"] not in SUPPORTED_FEATURES
                          and e.details["feature"] == "numeric-fluents")]
        assert errors == [], f"{name}: " + "\n".join(e.render() for e in errors)
        warnings = {(name, w.code) for w in report.warnings}
        assert warnings <= EXPECTED_WARNINGS, f"{name}: " + "\n".join(w.render() for w in report.warnings)


def _loads_and_walks(domain_path, problem_path, backend: str) -> None:  # type: ignore[no-untyped-def]
    from numeric_cases import random_walk

    from pypddlengine import Session

    session = Session(domain_path, problem_path, backend=backend)
    assert session.lifted.numeric_task and session.state.values
    steps = random_walk(session, seed=5, steps=10)
    assert steps, f"{problem_path}: no step could be taken"
    report = session.validate()
    assert report.steps_applied == len(steps) and report.failure is None


@pytest.mark.parametrize("domain_name", sorted(BY_DOMAIN) or [pytest.param("none", marks=pytest.mark.skip(
    reason=NUMERIC_CORPUS_REASON))])
@pytest.mark.parametrize("backend", ["grounded", "lifted"])
def test_the_first_task_of_each_domain_loads_and_takes_steps(domain_name: str, backend: str) -> None:
    _, domain_path, problem_path = BY_DOMAIN[domain_name][0]
    _loads_and_walks(domain_path, problem_path, backend)


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS, ids=[t[0] for t in TASKS])
def test_every_task_loads_and_takes_steps(task) -> None:  # type: ignore[no-untyped-def]
    _loads_and_walks(task[1], task[2], "auto")
