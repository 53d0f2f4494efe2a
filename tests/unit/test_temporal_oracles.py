"""The temporal oracles (tests/temporal_oracles.py) themselves: VAL accepts
LPG's plan of a corpus task at the IPC's tolerance, every corruption changes
a plan, and VAL rejects corrupted plans where the domain makes them wrong."""

from __future__ import annotations

import pytest
from temporal_oracles import (
    CORRUPTIONS,
    IPC_EPSILON,
    TEMPORAL_CORPUS,
    TEMPORAL_CORPUS_REASON,
    break_epsilon_gap,
    lpg_plan,
    lpg_unavailable_reason,
    normalise_lpg_plan,
    parse_timed_plan,
    parse_val_output,
    stretch_duration,
    temporal_tasks,
    up_timed_verdict,
    up_unavailable_reason,
    val_timed_verdict,
    val_unavailable_reason,
)

SATELLITE = TEMPORAL_CORPUS / "ipc2002-satellite-time-simple-automatic"
needs_corpus = pytest.mark.skipif(not SATELLITE.is_dir(), reason=TEMPORAL_CORPUS_REASON)
needs_val = pytest.mark.skipif(val_unavailable_reason() is not None, reason=str(val_unavailable_reason()))
needs_lpg = pytest.mark.skipif(lpg_unavailable_reason() is not None, reason=str(lpg_unavailable_reason()))
needs_up = pytest.mark.skipif(up_unavailable_reason() is not None, reason=str(up_unavailable_reason()))

SOL = """
; Version LPG-td-1.4
; MakeSpan 41.00


0.0003:   (SWITCH_ON INSTRUMENT0 SATELLITE0) [2.0000])
0.0002:   (TURN_TO SATELLITE0 GROUNDSTATION2 PHENOMENON6) [5.0000]
5.0005:   (CALIBRATE  SATELLITE0 INSTRUMENT0 GROUNDSTATION2) [5.0000])
"""
PLAN = ("0.0003: (switch_on instrument0 satellite0) [2.0000]\n"
        "0.0002: (turn_to satellite0 groundstation2 phenomenon6) [5.0000]\n"
        "5.0005: (calibrate satellite0 instrument0 groundstation2) [5.0000]\n")


def test_lpg_output_is_normalised() -> None:
    assert normalise_lpg_plan(SOL) == PLAN


@pytest.mark.parametrize("name", sorted(CORRUPTIONS))
@pytest.mark.parametrize("seed", range(6))
def test_every_corruption_changes_the_plan(name: str, seed: int) -> None:
    corrupted = CORRUPTIONS[name](PLAN, seed)
    assert parse_timed_plan(corrupted) != parse_timed_plan(PLAN)
    assert corrupted == CORRUPTIONS[name](PLAN, seed)  # seeded


@pytest.mark.parametrize("seed", range(6))
def test_epsilon_gap_is_below_epsilon(seed: int) -> None:
    before = {(s.action, s.start) for s in parse_timed_plan(PLAN)}
    steps = parse_timed_plan(break_epsilon_gap(PLAN, seed, epsilon=0.01))
    moved = next(s for s in steps if (s.action, s.start) not in before)
    others = [t for s in steps if s is not moved for t in (float(s.start), float(s.end))]
    assert 0 < min(abs(float(moved.start) - t) for t in others) < 0.01


def test_val_output_is_read_from_text() -> None:
    verdict = parse_val_output("Checking plan: p\nPlan executed successfully - checking goal\nPlan valid\n"
                               "Final value: 41.0028 \n")
    assert verdict.valid and verdict.value_text == "41.0028" and verdict.value == 41.0028
    bad = parse_val_output("Plan Validation details\n---\n\nChecking next happening (time 0.5)\n"
                           "Plan failed because of unsatisfied precondition in:\n(a b) - start\n\n"
                           "Plan failed to execute\n\nFailed plans:\n p\n")
    assert not bad.valid and bad.failed_at == "0.5" and bad.value is None
    assert bad.failure == ("Plan failed because of unsatisfied precondition in:", "(a b) - start",
                           "Plan failed to execute")


@needs_corpus
@needs_val
@needs_lpg
def test_val_accepts_lpg_plan_and_rejects_corruptions() -> None:
    domain, problem = SATELLITE / "domain.pddl", SATELLITE / "instance-1.pddl"
    plan = lpg_plan(domain, problem, timeout=60)
    assert plan is not None and parse_timed_plan(plan)
    verdict = val_timed_verdict(domain, problem, plan, epsilon=IPC_EPSILON)
    assert verdict.valid, verdict.raw
    assert verdict.value is not None and verdict.value == pytest.approx(
        max(float(s.end) for s in parse_timed_plan(plan)))  # no metric: VAL prints the makespan
    # the satellite domain fixes every duration, so a stretched one is wrong
    stretched = val_timed_verdict(domain, problem, stretch_duration(plan, 0), epsilon=IPC_EPSILON)
    assert not stretched.valid and stretched.failure and stretched.failed_at is not None
    # LPG's happenings are closer than VAL's default tolerance; the verdict depends on it
    dropped = val_timed_verdict(domain, problem, CORRUPTIONS["drop"](plan, 0), epsilon=IPC_EPSILON)
    assert not dropped.valid  # every step of LPG's satellite plan is needed


@needs_corpus
@needs_val
def test_val_bad_plan_description() -> None:
    verdict = val_timed_verdict(SATELLITE / "domain.pddl", SATELLITE / "instance-1.pddl",
                                "0.5: (turn_to satellite0 groundstation2 phenomenon6\n")
    assert not verdict.valid and "Bad plan description!" in verdict.failure


@needs_corpus
@needs_lpg
@needs_up
def test_up_second_opinion_agrees_on_lpg_plan() -> None:
    domain, problem = SATELLITE / "domain.pddl", SATELLITE / "instance-1.pddl"
    plan = lpg_plan(domain, problem, timeout=60)
    assert plan is not None
    assert up_timed_verdict(domain, problem, plan).valid is True
    assert up_timed_verdict(domain, problem, stretch_duration(plan, 0)).valid is False
    assert up_timed_verdict(domain, problem, "0.0: (no_such_action a) [1.0]\n").valid is None


@needs_corpus
def test_corpus_listing() -> None:
    tasks = temporal_tasks(per_domain=1)
    assert len(tasks) == 37 and all(d.is_file() and p.is_file() for _, d, p in tasks)
