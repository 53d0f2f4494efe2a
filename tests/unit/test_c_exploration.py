"""The C exploration (``pypddlengine/_relaxed.c``) against the Python loop it
mirrors: identical costs and best supporters for every atom, h_add and h_max,
with and without the early stop, along seeded random walks; on the bundled
tasks with their own costs and with random integer costs (zero-cost operators
included, which refill the bucket being read), and on the smallest task of
every corpus domain (STRIPS, ADL and axioms). Both paths are run explicitly,
so each test compares two different implementations."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from corpus import CORPUS, CORPUS_REASON, entries, smallest_task
from oracles import random_walk
from temporal_pending import engine_tasks

from pypddl_experiments.generators.blocksworld import blocksworld
from pypddl_experiments.generators.proofs import ground_text
from pypddlengine import ground, load_task
from pypddlengine import heuristics as hmod
from temporal_pending import engine_tasks

from pypddlengine.bundled import bundled_task, bundled_tasks
from pypddlengine.heuristics import RelaxedTask
from pypddlengine.task import State, Task

needs_c = pytest.mark.skipif(hmod._relaxed is None, reason="the C exploration was not built (no C compiler at install)")


def walk(task: Task, seed: str, n: int = 10) -> list[State]:
    return random_walk(task, seed, n)  # type: ignore[no-any-return]


def python_loop(rt: RelaxedTask, state: State, additive: bool, stop: bool) -> tuple[list[float], list[int]]:
    rt.accelerated = False
    try:
        return rt.explore(state, additive, stop=stop)
    finally:
        rt.accelerated = True


def assert_c_equals_python(rt: RelaxedTask, states: list[State]) -> None:
    assert rt.integer_costs and rt.accelerated
    for state in states:
        for additive in (True, False):
            for stop in (True, False):
                cost, sup = rt.explore_arrays(state, additive, stop=stop)
                assert type(cost).__name__ == "array"  # the C path ran
                assert (cost.tolist(), sup.tolist()) == python_loop(rt, state, additive, stop)
        for mode in ("add", "max"):
            fast = rt.evaluate(state, mode)  # type: ignore[arg-type]
            rt.accelerated = False
            try:
                assert fast == rt.evaluate(state, mode)  # type: ignore[arg-type]
            finally:
                rt.accelerated = True


SMALL = [n for n in bundled_tasks() if n.rsplit("/p", 1)[-1] in ("01", "04")]


@needs_c
@pytest.mark.parametrize("name", engine_tasks(SMALL))
def test_c_equals_python_on_bundled_tasks(name: str) -> None:
    task = ground(load_task(*bundled_task(name)))
    assert_c_equals_python(RelaxedTask(task), walk(task, name))


@needs_c
@pytest.mark.parametrize("name", engine_tasks(SMALL))
def test_c_equals_python_with_random_integer_costs(name: str) -> None:
    task = ground(load_task(*bundled_task(name)))
    rt = RelaxedTask(task)
    rng = random.Random(f"c-costs:{name}")
    rt.cost = [float(rng.choice((0, 0, 1, 2, 7, 1000))) for _ in rt.cost]
    assert_c_equals_python(rt, walk(task, name))


@needs_c
def test_huge_costs_fall_back_to_python() -> None:
    domain = bundled_task("blocksworld/p01")[0].read_text()
    task = ground_text(domain, blocksworld(30, 1))
    rt = RelaxedTask(task)
    assert len(rt.cost) > 2**10
    rt.cost = [float(2**51)] * len(rt.cost)  # sums could leave 64 bits in C: the Python loop runs
    assert rt.integer_costs and not rt.accelerated
    assert type(rt.explore_arrays(task.init)[0]) is list


ENTRIES = entries() if (CORPUS / "index.json").is_file() else []


@needs_c
@pytest.mark.skipif(not ENTRIES, reason=CORPUS_REASON)
@pytest.mark.parametrize("entry", ENTRIES, ids=[e["domain"] for e in ENTRIES])
def test_c_equals_python_on_every_corpus_domain(entry: dict) -> None:
    _, domain, problem = smallest_task(entry)
    task = ground(load_task(domain, problem))
    rt = RelaxedTask(task)
    if not rt.accelerated:
        pytest.skip("this task's costs are not integers (the Python reference exploration runs)")
    assert_c_equals_python(rt, walk(task, entry["domain"], 6))


@needs_c
def test_pure_python_switch_gives_the_same_values() -> None:
    """``PYPDDL_PURE_PYTHON=1`` is the machine without a compiler: no C at
    all (relaxed-task rows, exploration, landmarks), and the same numbers."""
    code = (
        "import json, sys\n"
        "from pypddlengine import ground, load_task, heuristics as h\n"
        "from pypddlengine.bundled import bundled_task\n"
        "from pypddlengine.landmarks import find_landmarks\n"
        "task = ground(load_task(*bundled_task('blocksworld/p04')))\n"
        "rt = h.relaxed_task(task)\n"
        "ev = rt.evaluate(task.init)\n"
        "lm = find_landmarks(task)\n"
        "print(json.dumps([h.ACCELERATED, h._relaxed is None, rt._csr is None, ev.h, ev.h_ff, list(ev.relaxed_plan),"
        " sorted(lm.atoms), {str(k): sorted(v) for k, v in lm.needed_by.items()}]))\n"
    )
    env = {**os.environ, "PYPDDL_PURE_PYTHON": "1"}
    pure = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                     check=True).stdout)
    env.pop("PYPDDL_PURE_PYTHON")
    fast = json.loads(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                     check=True).stdout)
    assert pure[:3] == [False, True, True]
    assert fast[:3] == [True, False, False]
    assert pure[3:] == fast[3:]
    assert fast[4] > 0 and fast[6]


def assert_same_labels(task: Task) -> None:
    from pypddlengine.landmarks import zhu_givan_labels

    rt = RelaxedTask(task)
    c_labels, c_common = zhu_givan_labels(rt, task.init, use_c=True)
    py_labels, py_common = zhu_givan_labels(rt, task.init, use_c=False)
    assert c_labels == py_labels
    assert c_common == py_common
    assert set(rt.goals) <= set(c_labels)


@needs_c
@pytest.mark.parametrize("name", engine_tasks(SMALL))
def test_c_landmark_labels_equal_python_on_bundled_tasks(name: str) -> None:
    assert_same_labels(ground(load_task(*bundled_task(name))))


@needs_c
@pytest.mark.skipif(not ENTRIES, reason=CORPUS_REASON)
@pytest.mark.parametrize("entry", ENTRIES, ids=[e["domain"] for e in ENTRIES])
def test_c_landmark_labels_equal_python_on_every_corpus_domain(entry: dict) -> None:
    _, domain, problem = smallest_task(entry)
    assert_same_labels(ground(load_task(domain, problem)))


@needs_c
def test_find_landmarks_is_the_same_from_c_and_python(monkeypatch: pytest.MonkeyPatch) -> None:
    from pypddlengine import landmarks

    domain = bundled_task("blocksworld/p01")[0].read_text()
    for blocks, seed in ((8, 1), (15, 2), (30, 3)):
        task = ground_text(domain, blocksworld(blocks, seed))
        with_c = landmarks.find_landmarks(task)
        monkeypatch.setattr(landmarks, "_relaxed", None)
        without = landmarks.find_landmarks(task)
        monkeypatch.undo()
        assert (with_c.atoms, with_c.before, with_c.needed_by, with_c.unreachable_goals) == (
            without.atoms, without.before, without.needed_by, without.unreachable_goals)
        assert len(with_c.atoms) > blocks  # not vacuous: Blocksworld has landmarks beyond its goals


@needs_c
@pytest.mark.parametrize("name", engine_tasks(SMALL))
def test_c_transpose_gives_the_python_by_pre(name: str) -> None:
    task = ground(load_task(*bundled_task(name)))
    rt = RelaxedTask(task)
    rt.csr()  # the C transpose
    from_c = rt.by_pre
    rt._csr, rt._by_pre = None, None
    assert from_c == rt.by_pre  # the Python loop
    assert sum(map(len, from_c)) == sum(rt.npre)


@needs_c
def test_c_functions_refuse_bad_arrays_with_python_errors() -> None:
    from array import array

    c = hmod._relaxed
    task = ground(load_task(*bundled_task("blocksworld/p01")))
    rt = RelaxedTask(task)
    by_pre_ptr, by_pre_idx, add_ptr, add_idx, packed, goal_flag = rt._c_arrays()
    n = rt.n_atoms + 1
    cost, sup = array("d", bytes(8 * n)), array("i", bytes(4 * n))
    args = (by_pre_ptr, by_pre_idx, add_ptr, add_idx, packed, goal_flag, rt._shift)
    with pytest.raises(ValueError, match="sizes"):
        c.explore(*args, task.init, True, False, len(rt.goals), array("d", bytes(8 * (n - 1))), sup)
    with pytest.raises(IndexError):
        c.explore(*args, [n + 5], True, False, len(rt.goals), cost, sup)
    with pytest.raises(TypeError):
        c.explore(*args, ["on"], True, False, len(rt.goals), cost, sup)
    with pytest.raises(TypeError):
        c.pack((1, 2))
    with pytest.raises(ValueError, match="int32"):
        c.pack([(1, -2)])
    with pytest.raises(IndexError):
        c.labels(*rt.csr(), [n + 5], array("i", rt.npre), array("i", rt.goals))
    with pytest.raises(ValueError):
        c.transpose(*rt.csr()[4:6], array("q", bytes(8 * 3)), array("i"), 0)
