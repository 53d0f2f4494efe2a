"""Every corpus task whose features are supported parses, checks, grounds
and round-trips through the printer; every other task fails with
UnsupportedRequirementError naming a feature the task really uses.

CI runs the first two problems of every domain; ``--runslow`` runs all 2,321."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import CORPUS, CORPUS_REASON, entries, supported, task_paths

from pypddlengine import (
    PDDLError,
    UnsupportedRequirementError,
    check,
    compile_task,
    ground,
    load_domain,
    load_problem,
)
from pypddlengine.grounding import GroundingOptions
from pypddlengine.printer import format_domain, format_problem
from pypddlengine.syntax import parse_domain, parse_problem

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)

ENTRIES = entries()
FEW = [(e, rel, d, p) for e in ENTRIES for rel, d, p in task_paths(e, limit=2)]
ALL = [(e, rel, d, p) for e in ENTRIES for rel, d, p in task_paths(e)]


def _sweep(entry: dict, domain_path: Path, problem_path: Path) -> None:
    features = set(entry["features_detected"])
    try:
        domain = load_domain(domain_path)
        problem = load_problem(problem_path)
        report = check(domain, problem)
        report.raise_first()
    except UnsupportedRequirementError as err:
        assert not supported(entry), f"supported task rejected: {err}"
        assert err.feature in features, f"{err.feature} not in {sorted(features)}"
        assert err.span is not None and err.source is not None
        return
    except PDDLError as err:  # pragma: no cover - shows the message on failure
        pytest.fail(err.render())
    assert supported(entry), f"unsupported features {sorted(features)} accepted"
    task = ground(compile_task(domain, problem), GroundingOptions(max_actions=2_000_000))
    assert task.stats.actions > 0
    assert all(task.reachable[i] for i in task.init)
    # printing and parsing again gives the same model
    assert parse_domain(format_domain(domain)) == domain
    assert parse_problem(format_problem(problem)) == problem


def test_every_corpus_domain_uses_only_supported_features() -> None:
    # since ADL and derived predicates (issue 11): the corpus has no numeric or temporal domain
    assert len(ENTRIES) >= 61
    assert [e["domain_file"] for e in ENTRIES if not supported(e)] == []


@pytest.mark.parametrize("case", FEW, ids=[c[1] for c in FEW])
def test_sweep_first_problems(case: tuple) -> None:
    entry, _, domain, problem = case
    _sweep(entry, domain, problem)


@pytest.mark.slow
@pytest.mark.parametrize("case", ALL, ids=[c[1] for c in ALL])
def test_sweep_all_problems(case: tuple) -> None:
    entry, _, domain, problem = case
    _sweep(entry, domain, problem)
