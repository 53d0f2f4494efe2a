"""The Gymnasium adapter refuses temporal tasks with a clear reason (issue 31):
an RL step has no clock, and waiting is not an action of its space."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gymnasium")

from pypddlengine.errors import UnsupportedRequirementError  # noqa: E402
from pypddlengine.gym import PDDLEnv  # noqa: E402

DOMAIN = """(define (domain kitchen) (:requirements :durative-actions)
 (:predicates (dough) (baked))
 (:durative-action bake :parameters () :duration (= ?duration 30)
   :condition (at start (dough)) :effect (at end (baked))))"""
PROBLEM = "(define (problem dinner) (:domain kitchen) (:init (dough)) (:goal (baked)))"
TIL_DOMAIN = """(define (domain shop) (:predicates (open) (bought))
 (:action buy :parameters () :precondition (open) :effect (bought)))"""
TIL_PROBLEM = "(define (problem p) (:domain shop) (:init (at 5 (open))) (:goal (bought)))"


@pytest.mark.parametrize(("domain", "problem", "feature", "line"), [
    (DOMAIN, PROBLEM, "durative-actions", 3), (TIL_DOMAIN, TIL_PROBLEM, "timed-initial-literals", 1)])
def test_a_temporal_task_is_refused_with_its_feature_and_place(tmp_path: Path, domain: str, problem: str,
                                                               feature: str, line: int) -> None:
    (tmp_path / "d.pddl").write_text(domain)
    (tmp_path / "p.pddl").write_text(problem)
    with pytest.raises(UnsupportedRequirementError) as info:
        PDDLEnv(domain=str(tmp_path / "d.pddl"), problem=str(tmp_path / "p.pddl"))
    err = info.value
    assert err.code == "UNSUPPORTED_REQUIREMENT" and err.details["feature"] == feature
    assert err.span is not None and err.span.line == line and "TemporalSession" in (err.hint or "")
