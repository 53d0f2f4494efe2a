"""Relabelled copies of corpus tasks: every reference plan, mapped, is valid on
the copy for our validator and VAL; seeded random walks agree step by step.
A sample runs by default; --runslow runs every reference plan."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import CORPUS, CORPUS_REASON, entries, smallest_task, supported
from oracles import val_binary, val_verdict
from plan_cases import reference_plans
from relabel_support import relabelled_copy, sessions, walks_agree

from pypddlengine import validate_plan
from pypddlengine.loading import load_domain, load_plan, load_problem, load_task

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)


def _plans() -> list:  # type: ignore[type-arg]
    cases = reference_plans(CORPUS) if CORPUS.is_dir() else []
    by_split: dict[str, object] = {}
    for case in cases:  # the first plan of each split runs by default
        by_split.setdefault(case[0].split("/")[0], case)
    sample = set(by_split.values())
    return [pytest.param(*c, id=c[0], marks=() if c in sample else pytest.mark.slow) for c in cases]


@pytest.mark.parametrize(("case", "domain", "problem", "plan"), _plans())
def test_mapped_reference_plan_is_valid_on_the_copy(case: str, domain: Path, problem: Path, plan: Path,
                                                    tmp_path: Path) -> None:
    d_text, p_text, mapping = relabelled_copy(load_domain(domain), load_problem(problem), seed=len(case))
    mapped = mapping.map_plan(load_plan(plan).steps)
    report = validate_plan(load_task(d_text, p_text), mapped)
    assert report.valid, report.summary()
    if val_binary() is not None:
        (tmp_path / "domain.pddl").write_text(d_text)
        (tmp_path / "problem.pddl").write_text(p_text)
        assert val_verdict(tmp_path / "domain.pddl", tmp_path / "problem.pddl", "\n".join(mapped) + "\n")


def _domains() -> list:  # type: ignore[type-arg]
    chosen = [e for e in entries() if supported(e)]
    return [pytest.param(e, id=e["id"] if "id" in e else e["domain_file"], marks=() if i % 8 == 0 else pytest.mark.slow)
            for i, e in enumerate(chosen)]


@pytest.mark.parametrize("entry", _domains())
def test_random_walks_agree_on_a_relabelled_corpus_task(entry: dict) -> None:  # type: ignore[type-arg]
    _, domain, problem = smallest_task(entry)
    original, copy, mapping, _, _ = sessions(load_domain(domain), load_problem(problem), seed=7)
    walks_agree(original, copy, mapping, seed=7, steps=25)
