"""The lifted backend (issue 21) behind the same Session: on every corpus
task small enough to ground, a lifted session and a grounded session give
the same applicable actions (sorted, as listed to an agent), the same step
results (added and deleted atoms, fired effects, goal), the same answers to
explain (applicable or not, and which preconditions fail), the same undo and
the same validation verdicts along seeded random walks. And the IPC 2023
learning track's hard Blocksworld tasks, too large to ground quickly, open
lifted and walk.

Default run: the smallest task of each domain and three hard tasks;
``--runslow``: three tasks per domain, longer walks, every hard task."""

from __future__ import annotations

import random

import pytest
from corpus import CORPUS, CORPUS_REASON, smallest_cases

from pypddlengine import GroundingLimitError, Session, ground, load_task
from pypddlengine.grounding import GroundingOptions
from pypddlengine.lazy import LazyTask

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)

SMALL = GroundingOptions(max_actions=60_000, max_atoms=200_000, max_seconds=30)
HARD = CORPUS / "ipc2023-learning" / "blocksworld-testing-hard"


def _step_view(result):  # type: ignore[no-untyped-def]
    failure = None if result.failure is None else (result.failure.code, result.failure.unsatisfied)
    return (result.success, result.action, result.goal_reached, result.step, result.added, result.deleted,
            result.fired, failure)


def compare_sessions(domain: str, problem: str, walks: int, steps: int) -> None:
    lifted = load_task(CORPUS / domain, CORPUS / problem)
    try:
        grounded = Session(ground(lifted, SMALL))
    except GroundingLimitError as err:
        pytest.skip(f"too large to ground for this test: {err.message}")
    lazy = Session(LazyTask(lifted))
    assert (grounded.backend, lazy.backend) == ("grounded", "lifted")
    rng = random.Random(f"lifted-backend:{problem}")
    for walk in range(walks):
        for s in (grounded, lazy):
            s.reset()
        for _ in range(steps):
            names = grounded.applicable_names()
            assert lazy.applicable_names() == names, f"walk {walk} after {grounded.plan()}"
            assert lazy.state_atoms() == grounded.state_atoms()
            assert lazy.goal_status() == grounded.goal_status()
            for schema in rng.sample(lifted.schemas, min(2, len(lifted.schemas))):  # a direct reference
                if all(schema.domains):
                    text = lifted.render_action(schema, tuple(rng.choice(d) for d in schema.domains))
                    a, b = grounded.explain(text), lazy.explain(text)
                    assert (a.applicable, a.failure and a.failure.unsatisfied) == \
                        (b.applicable, b.failure and b.failure.unsatisfied), text
            if not names:
                break
            choice = rng.choice(names)
            assert _step_view(lazy.execute(choice)) == _step_view(grounded.execute(choice))
            if rng.random() < 0.1:
                assert lazy.undo() == grounded.undo() == 1
                assert lazy.state_atoms() == grounded.state_atoms()
        assert lazy.validate() == grounded.validate()
        plan = grounded.plan()
        if len(plan) >= 2:
            broken = [*plan[:-2], plan[-1], plan[-2]]
            assert lazy.validate(broken) == grounded.validate(broken)


@pytest.mark.parametrize(("domain", "problem"), smallest_cases(1), ids=[p for _, p in smallest_cases(1)])
def test_lifted_and_grounded_sessions_agree(domain: str, problem: str) -> None:
    compare_sessions(domain, problem, walks=2, steps=10)


@pytest.mark.slow
@pytest.mark.parametrize(("domain", "problem"), smallest_cases(3), ids=[p for _, p in smallest_cases(3)])
def test_lifted_and_grounded_sessions_agree_on_more_tasks(domain: str, problem: str) -> None:
    compare_sessions(domain, problem, walks=3, steps=40)


# ----------------------------------------------------------------------------- tasks too large to ground


def _hard(names: list[str] | None = None) -> list[str]:
    if not HARD.is_dir():
        return []
    found = sorted(p.name for p in HARD.glob("p*.pddl"))
    return [n for n in found if names is None or n in names]


def walk_hard_task(name: str, steps: int) -> None:
    session = Session(HARD / "domain.pddl", HARD / name, feedback="progress")
    estimate_says_lifted = "lifted" in session.backend_note
    assert session.backend == ("lifted" if estimate_says_lifted else "grounded")
    rng = random.Random(name)
    for _ in range(steps):
        names = session.applicable_names()
        assert names, "Blocksworld always has a move"
        result = session.execute(rng.choice(names))
        assert result.success and result.feedback is not None
    report = session.validate()
    assert report.steps_applied == steps and report.valid == session.is_goal()
    session.undo(steps)
    assert session.state == session.task.init


@pytest.mark.parametrize("name", _hard(["p01.pddl", "p15.pddl", "p30.pddl"]))
def test_hard_ipc2023_tasks_open_and_walk(name: str) -> None:
    walk_hard_task(name, 25)


@pytest.mark.slow
@pytest.mark.parametrize("name", _hard())
def test_every_hard_ipc2023_task_opens_and_walks(name: str) -> None:
    walk_hard_task(name, 100)


def test_the_largest_hard_task_goes_lifted_on_its_own() -> None:
    if not _hard(["p30.pddl"]):
        pytest.skip("the IPC 2023 hard Blocksworld split is not in the corpus")
    session = Session(HARD / "domain.pddl", HARD / "p30.pddl")
    assert session.backend == "lifted" and session.grounded is None
    assert "477,264" in session.backend_note  # the estimate (exact here: Blocksworld has no static atoms)
