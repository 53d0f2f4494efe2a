"""The fast exploration (:meth:`RelaxedTask.explore`, integer costs) equals
the reference one (:meth:`RelaxedTask.explore_reference`) exactly: the same
cost and the same best supporter for every atom, so the same h_max, h_add,
h_FF and relaxed plan, on seeded random states of bundled tasks, with their
unit costs and with random integer costs (zero included)."""

from __future__ import annotations

import random

import pytest
from oracles import random_walk
from temporal_pending import engine_tasks

from pypddlengine import ground, load_task
from pypddlengine.bundled import bundled_task, bundled_tasks
from pypddlengine.heuristics import Evaluation, RelaxedTask
from pypddlengine.task import State, Task

NAMES = [n for n in bundled_tasks() if n.rsplit("/p", 1)[-1] in ("01", "03", "05")]


def walk(task: Task, seed: str, n: int = 12) -> list[State]:
    return random_walk(task, seed, n)  # type: ignore[no-any-return]


def reference_evaluation(rt: RelaxedTask, state: State, mode: str) -> Evaluation:
    cost, sup = rt.explore_reference(state, mode == "add", stop=True)
    return rt.evaluation(state, mode, cost, sup)


def assert_same(rt: RelaxedTask, states: list[State]) -> None:
    assert rt.integer_costs
    for state in states:
        for additive in (True, False):
            for stop in (True, False):
                assert rt.explore(state, additive, stop=stop) == rt.explore_reference(state, additive, stop=stop)
        for mode in ("add", "max"):
            assert rt.evaluate(state, mode) == reference_evaluation(rt, state, mode)  # type: ignore[arg-type]


def test_the_bundled_tasks_are_many() -> None:
    assert len(NAMES) >= 5


@pytest.mark.parametrize("name", engine_tasks(NAMES))
def test_fast_equals_reference_on_random_states(name: str) -> None:
    task = ground(load_task(*bundled_task(name)))
    rt = RelaxedTask(task)
    assert_same(rt, walk(task, name))


@pytest.mark.parametrize("name", engine_tasks(NAMES))
def test_fast_equals_reference_with_integer_costs(name: str) -> None:
    task = ground(load_task(*bundled_task(name)))
    rt = RelaxedTask(task)
    rng = random.Random(f"costs:{name}")
    rt.cost[:] = [float(rng.choice((0, 1, 1, 2, 5))) for _ in rt.cost]
    rt.compile_costs()
    assert_same(rt, walk(task, name))


def test_non_integer_costs_use_the_reference() -> None:
    task = ground(load_task(*bundled_task("blocksworld/p03")))
    rt = RelaxedTask(task)
    rt.cost[:] = [0.1 * (i % 7) for i in range(len(rt.cost))]
    rt.compile_costs()
    assert not rt.integer_costs
    for state in walk(task, "fractional"):
        assert rt.explore(state) == rt.explore_reference(state)
