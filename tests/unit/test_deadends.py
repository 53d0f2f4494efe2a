"""Dead-end verdicts are proofs: checked against an exhaustive search of
the states reachable from each state of random walks on small tasks."""

from __future__ import annotations

import functools
import random

import pytest

from pypddlengine import ground, load_task
from pypddlengine.bundled import bundled_task
from pypddlengine.deadends import DEAD_END, NO_PLAN, PLAN_EXISTS, UNKNOWN, dead_end

TASKS = ["blocksworld/p01", "gripper/p01", "blocksworld-table/p01", "blocksworld-table/u01", "blocksworld-table/u02",
         "blocksworld-sizes/p01", "blocksworld-sizes/u01", "blocksworld-sizes/u02"]


@functools.cache
def small_task(name: str):  # type: ignore[no-untyped-def]
    return ground(load_task(*bundled_task(name)))


def goal_reachable(task, start) -> bool:  # type: ignore[no-untyped-def]
    """Depth-first enumeration of every state reachable from ``start`` (the oracle)."""
    seen = {start}
    stack = [start]
    while stack:
        state = stack.pop()
        if task.is_goal(state):
            return True
        for action in task.applicable_scan(state):
            succ = action.apply(state)
            if succ not in seen:
                seen.add(succ)
                stack.append(succ)
    return False


@pytest.mark.parametrize("name", TASKS)
def test_verdicts_agree_with_exhaustive_search(name: str) -> None:
    task = small_task(name)
    rng = random.Random(name)
    state = task.init
    seen_statuses = set()
    for _ in range(25):
        solvable = goal_reachable(task, state)
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
    task = small_task("blocksworld-table/u02")  # 11 reachable states, none a goal
    assert dead_end(task, task.init, max_states=3).status == UNKNOWN
    full = dead_end(task, task.init, max_states=1000)
    assert full.status == NO_PLAN and full.states == 11


def test_plan_length_is_shortest() -> None:
    task = small_task("blocksworld/p01")
    verdict = dead_end(task, task.init, max_states=10_000)
    assert verdict.status == PLAN_EXISTS and verdict.plan_length == 6
