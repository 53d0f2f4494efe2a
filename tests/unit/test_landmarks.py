"""Fact landmarks: every landmark and every ordering holds on every path (by
exhaustive search on small tasks), and LM-count behaves along paths."""

from __future__ import annotations

import functools
import random
from collections import deque

import pytest

from pypddlengine import ground, load_task
from pypddlengine.bundled import bundled_task
from pypddlengine.landmarks import find_landmarks

SMALL = ["blocksworld/p01", "blocksworld/p02", "gripper/p01", "blocksworld-table/p01", "blocksworld-sizes/p01"]


@functools.cache
def small_task(name: str):  # type: ignore[no-untyped-def]
    return ground(load_task(*bundled_task(name)))


def _reaches(task, avoid: int, target) -> bool:  # type: ignore[no-untyped-def]
    """Whether some path from the initial state reaches a state satisfying
    ``target`` without ever passing through a state in which ``avoid`` holds."""
    if avoid in task.init:
        return False
    seen = {task.init}
    queue = deque(seen)
    while queue:
        state = queue.popleft()
        if target(state):
            return True
        for action in task.applicable(state):
            succ = action.apply(state)
            if avoid not in succ and succ not in seen:
                seen.add(succ)
                queue.append(succ)
    return False


@pytest.mark.parametrize("name", SMALL)
def test_landmarks_and_orderings_hold_on_every_path(name: str) -> None:
    task = small_task(name)
    lm = find_landmarks(task)
    assert lm.goals <= lm.atoms and not lm.unreachable_goals
    assert len(lm.atoms) > len(lm.goals)  # found more than the goal atoms
    for p in lm.atoms:
        assert not _reaches(task, p, task.is_goal), f"{task.render_atom(p)} is not a landmark"
    for q, before in lm.before.items():
        for p in before:  # q cannot be reached without p holding first
            assert not _reaches(task, p, lambda s, q=q: q in s), (task.render_atom(p), task.render_atom(q))
    for p, qs in lm.needed_by.items():
        for q in qs:  # every achiever of q needs p
            assert all(p in a.pre for a in task.achievers(q))


@pytest.mark.parametrize("name", SMALL)
def test_lm_count_along_random_walks(name: str) -> None:
    task = small_task(name)
    lm = find_landmarks(task)
    rng = random.Random(name)
    progress = lm.start(task.init)
    assert progress.accepted == lm.atoms & task.init  # every landmark true at the start has no predecessor
    state = task.init
    for _ in range(300):
        state = rng.choice(task.applicable(state)).apply(state)
        nxt = lm.step(progress.accepted, state)
        assert progress.accepted <= nxt.accepted <= lm.atoms
        assert set(nxt.newly_accepted) == nxt.accepted - progress.accepted
        assert nxt.required_again <= nxt.accepted and not (nxt.required_again & state)
        assert nxt.lm_count == len(lm.atoms - nxt.accepted) + len(nxt.required_again) >= 0
        progress = nxt
        if task.is_goal(state):
            assert progress.lm_count == 0
            break


def test_relaxed_unreachable_goal_is_reported() -> None:
    task = small_task("blocksworld-sizes/u01")  # (on c a): c is larger than a, no action ever makes it true
    lm = find_landmarks(task)
    assert [task.render_atom(g) if g >= 0 else g for g in lm.unreachable_goals] in (["(on c a)"], [-1])
