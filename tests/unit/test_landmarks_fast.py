"""find_landmarks (labels as bitsets) equals the frozenset label propagation
it replaced, kept here as the oracle: the same landmarks, natural orderings,
greedy-necessary orderings and unreachable goals, from the initial state and
from seeded random states of bundled tasks (and, in
tests/integration/test_landmarks_corpus.py, STRIPS corpus tasks)."""

from __future__ import annotations

import copy
import random
from collections import deque

import pytest
from temporal_pending import engine_tasks

from pypddlengine import ground, load_task
from pypddlengine.bundled import bundled_task, bundled_tasks
from pypddlengine.heuristics import relaxed_task
from pypddlengine.landmarks import bits, find_landmarks
from pypddlengine.task import Task

NAMES = [n for n in bundled_tasks() if n.rsplit("/p", 1)[-1] in ("01", "03", "05")]


def reference_landmarks(task: Task) -> tuple:
    """The label propagation with frozensets (the implementation before bitsets)."""
    rt = relaxed_task(task)
    pre, add, by_pre, n, init = rt.pre, rt.add, rt.by_pre, rt.n_atoms, task.init
    label: list[frozenset[int] | None] = [frozenset((a,)) if a in init else None for a in range(n)] + [frozenset()]
    waiting = [len(p) or 1 for p in pre]
    queue = deque([*init, n])
    fired = bytearray(len(pre))
    seen: set[int] = set()
    while queue:
        a = queue.popleft()
        if a not in seen:
            seen.add(a)
            for o in by_pre[a]:
                waiting[o] -= 1
        for o in by_pre[a]:
            if waiting[o]:
                continue
            fired[o] = 1
            union = frozenset().union(*[label[r] for r in pre[o]])
            for q in add[o]:
                old = label[q]
                if old is not None and len(old) == 1:
                    continue
                if old is None:
                    label[q] = union | {q}
                    queue.append(q)
                elif len((old - union) - {q}):
                    label[q] = (old & union) | {q}
                    queue.append(q)
    unreachable = tuple(g for g in rt.goals if label[g] is None) + rt.missing_goals
    atoms = frozenset().union(*(label[g] or () for g in rt.goals))
    before = {q: (label[q] or frozenset()) - {q} for q in atoms}
    needed_by: dict[int, set[int]] = {}
    for q in atoms - init:
        ops = [o for o in rt.by_add[q] if fired[o]]
        shared = set(pre[ops[0]]).intersection(*(pre[o] for o in ops[1:])) if ops else set()
        for p in shared & atoms:
            needed_by.setdefault(p, set()).add(q)
    return atoms, before, {p: frozenset(qs) for p, qs in needed_by.items()}, unreachable


def assert_same_from(task: Task, state: frozenset[int]) -> None:
    moved = copy.copy(task)
    moved.init = state
    lm = find_landmarks(moved)
    assert (lm.atoms, lm.before, lm.needed_by, lm.unreachable_goals) == reference_landmarks(moved)


def test_bits() -> None:
    assert bits(0) == []
    assert bits(0b1011) == [0, 1, 3]
    assert bits(1 << 200 | 1 << 7) == [7, 200]


@pytest.mark.parametrize("name", engine_tasks(NAMES))
def test_bitset_labels_equal_the_frozenset_ones(name: str) -> None:
    task = ground(load_task(*bundled_task(name)))
    rng = random.Random(f"landmarks:{name}")
    state = task.init
    for _ in range(8):
        assert_same_from(task, state)
        actions = task.applicable(state)
        if not actions:
            break
        state = rng.choice(actions).apply(state)
