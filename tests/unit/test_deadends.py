"""Dead-end verdicts are proofs: checked against an exhaustive search of
the states reachable from each state of random walks on small tasks."""

from __future__ import annotations

import random

import pytest
from oracles import bundled_grounded, reaches

from pypddlengine.deadends import DEAD_END, NO_PLAN, PLAN_EXISTS, UNKNOWN, dead_end

TASKS = ["blocksworld/p01", "gripper/p01", "blocksworld-table/p01", "blocksworld-table/u01", "blocksworld-table/u02",
         "blocksworld-sizes/p01", "blocksworld-sizes/u01", "blocksworld-sizes/u02"]


@pytest.mark.parametrize("name", TASKS)
def test_verdicts_agree_with_exhaustive_search(name: str) -> None:
    task = bundled_grounded(name)
    rng = random.Random(name)
    state = task.init
    seen_statuses = set()
    for _ in range(25):
        solvable = reaches(task, state, task.is_goal)
        verdict = dead_end(task, state, max_states=200_000)
        seen_statuses.add(verdict.status)
        if verdict.status in (DEAD_END, NO_PLAN):
            assert not solvable, f"{verdict.status} where a plan exists"
        else:
            assert verdict.status == PLAN_EXISTS and solvable
        relaxed = dead_end(task, state)  # no search: relaxed proof or unknown
        assert relaxed.status in (DEAD_END, UNKNOWN)
        if relaxed.status == DEAD_END:
            assert not solvable and relaxed.unreachable_goals
        actions = task.applicable(state)
        if not actions:
            break
        state = rng.choice(actions).apply(state)
    if name.split("/")[1].startswith("u"):
        assert seen_statuses & {DEAD_END, NO_PLAN}


def test_budget_too_small_says_unknown() -> None:
    task = bundled_grounded("blocksworld-table/u02")  # 11 reachable states, none a goal
    assert dead_end(task, task.init, max_states=3).status == UNKNOWN
    full = dead_end(task, task.init, max_states=1000)
    assert full.status == NO_PLAN and full.states == 11


def test_plan_length_is_shortest() -> None:
    task = bundled_grounded("blocksworld/p01")
    verdict = dead_end(task, task.init, max_states=10_000)
    assert verdict.status == PLAN_EXISTS and verdict.plan_length == 6
