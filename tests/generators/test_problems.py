"""Generated problems: seeded stability, validity against the bundled
domains, valid initial states, reachability claims and known optimal plan
lengths (checked by breadth-first search)."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from collections.abc import Callable

import pytest
from gen_helpers import atom_id, facts, ground_problem, reachable_states

from pypddl_experiments.generators import (
    blocksworld,
    blocksworld_sizes,
    blocksworld_table,
    breadth_first,
    gripper,
    gripper_optimal_length,
    hanoi,
    logistics,
)

# (domain, make(seed) -> text): every randomised generator at small sizes
GENERATORS: dict[str, tuple[str, Callable[[int], str]]] = {
    "blocksworld": ("blocksworld", lambda s: blocksworld(6, s)),
    "blocksworld-table": ("blocksworld-table", lambda s: blocksworld_table(6, 3, s)),
    "blocksworld-sizes": ("blocksworld-sizes", lambda s: blocksworld_sizes(6, 3, 3, s)),
    "gripper-scatter": ("gripper", lambda s: gripper(5, rooms=3, seed=s, scatter=True)),
    "logistics": ("logistics", lambda s: logistics(3, 3, 5, airplanes=1, seed=s)),
}


@pytest.mark.parametrize("kind", GENERATORS)
def test_same_seed_same_text_other_seed_other_text(kind: str) -> None:
    _, make = GENERATORS[kind]
    assert make(11) == make(11)
    assert len({make(s) for s in range(1, 6)}) == 5


def test_output_does_not_depend_on_the_process_or_hash_seed() -> None:
    code = (
        "import hashlib\n"
        "from pypddl_experiments.generators import blocksworld, blocksworld_sizes, logistics, gripper, unsolvable\n"
        "texts = [blocksworld(30, 4), blocksworld_sizes(12, 4, 3, 5), logistics(4, 3, 9, seed=6),\n"
        "         gripper(6, rooms=4, seed=7, scatter=True), unsolvable('size-inversion', 9, 8)]\n"
        "print(hashlib.sha256(''.join(texts).encode()).hexdigest())\n"
    )
    digests = set()
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        digests.add(out.stdout.strip())
    from pypddl_experiments.generators import unsolvable

    here = [blocksworld(30, 4), blocksworld_sizes(12, 4, 3, 5), logistics(4, 3, 9, seed=6),
            gripper(6, rooms=4, seed=7, scatter=True), unsolvable("size-inversion", 9, 8)]
    digests.add(hashlib.sha256("".join(here).encode()).hexdigest())
    assert len(digests) == 1


@pytest.mark.parametrize("kind", GENERATORS)
def test_problems_check_against_their_domain_and_are_not_trivial(kind: str) -> None:
    domain, make = GENERATORS[kind]
    for seed in range(1, 9):
        task = ground_problem(domain, make(seed))
        assert not task.is_goal(task.init)
        assert not task.unreachable_goals


def _towers_valid(state_facts: set[str], blocks: list[str], positions: bool) -> None:
    """Each block stands on exactly one thing, clear iff nothing is on it,
    no cycles, one tower per position, hand empty."""
    on = {}
    for f in state_facts:
        m = re.fullmatch(r"\(on (\S+) (\S+)\)", f)
        if m:
            on[m.group(1)] = m.group(2)
    table = {}
    for f in state_facts:
        m = re.fullmatch(r"\(ontable (\S+)(?: (\S+))?\)", f)
        if m:
            table[m.group(1)] = m.group(2)
    assert "(handempty)" in state_facts
    for b in blocks:
        assert (b in on) != (b in table), b
        covered = b in on.values()
        assert (f"(clear {b})" in state_facts) != covered, b
        seen, x = set(), b
        while x in on:  # walking down ends on the table
            assert x not in seen
            seen.add(x)
            x = on[x]
    if positions:
        used = list(table.values())
        assert len(used) == len(set(used))
        assert all(f"(free {p})" not in state_facts for p in used)


@pytest.mark.parametrize("seed", range(1, 6))
def test_initial_states_are_valid_blocksworld_states(seed: int) -> None:
    for domain, text, positions in [
        ("blocksworld", blocksworld(12, seed), False),
        ("blocksworld-table", blocksworld_table(12, 4, seed), True),
        ("blocksworld-sizes", blocksworld_sizes(12, 4, 3, seed), True),
    ]:
        task = ground_problem(domain, text)
        init = facts(task, task.init)
        blocks = list("abcdefghijkl")
        _towers_valid(init, blocks, positions)
        if domain == "blocksworld-sizes":
            for f in init:
                m = re.fullmatch(r"\(on (\S+) (\S+)\)", f)
                if m:
                    assert f"(fits {m.group(1)} {m.group(2)})" in init


@pytest.mark.parametrize(("domain", "make", "n"), [
    ("blocksworld", lambda: blocksworld(4, 1), 73),
    ("blocksworld-table", lambda: blocksworld_table(4, 3, 1), 360),
    ("blocksworld-table", lambda: blocksworld_table(5, 3, 2), 2520),
])
def test_every_state_is_reachable_with_three_positions(domain: str, make: Callable[[], str], n: int) -> None:
    """The generators' solvability claim: with the plain table or 3+
    positions every state (hand empty) is reachable from any start."""
    task = ground_problem(domain, make())
    hand = atom_id(task, "(handempty)")
    assert sum(1 for s in reachable_states(task) if hand in s) == n


def test_every_size_respecting_state_is_reachable_with_three_positions() -> None:
    from pypddl_experiments.generators import SizedTowerSampler

    text = blocksworld_sizes(5, 3, 3, 1)
    sizes = dict(re.findall(r"(\w)=(\d)", text.splitlines()[1]))  # the sizes the generator drew
    task = ground_problem("blocksworld-sizes", text)
    hand = atom_id(task, "(handempty)")
    expected = SizedTowerSampler({b: int(s) for b, s in sizes.items()}, 3).count()
    assert sum(1 for s in reachable_states(task) if hand in s) == expected


@pytest.mark.parametrize("balls", [1, 2, 3, 4])
def test_gripper_optimal_length_formula(balls: int) -> None:
    task = ground_problem("gripper", gripper(balls))
    result = breadth_first(task)
    assert result.plan is not None and len(result.plan) == gripper_optimal_length(balls)


@pytest.mark.parametrize("disks", [1, 2, 3, 4])
def test_hanoi_shortest_plan(disks: int) -> None:
    task = ground_problem("blocksworld-sizes", hanoi(disks))
    result = breadth_first(task)
    assert result.plan is not None and len(result.plan) == 2 * (2**disks - 1)


def test_logistics_packages_move_and_tasks_are_solvable() -> None:
    for seed in range(1, 4):
        text = logistics(2, 2, 2, seed=seed)
        task = ground_problem("logistics", text)
        assert breadth_first(task).plan is not None
    text = logistics(3, 3, 8, seed=1)
    init = re.findall(r"\(at (pkg\d+) (\S+?)\)", text.split("(:goal")[0])
    goal = re.findall(r"\(at (pkg\d+) (\S+?)\)", text.split("(:goal")[1])
    assert len(init) == len(goal) == 8
    assert all(dict(init)[p] != q for p, q in goal)


@pytest.mark.parametrize("call", [
    lambda: blocksworld(0, 1),
    lambda: blocksworld(1, 1),
    lambda: blocksworld_table(5, 2, 1),
    lambda: blocksworld_sizes(5, 2, 3, 1),
    lambda: blocksworld_sizes(5, 3, 0, 1),
    lambda: hanoi(0),
    lambda: hanoi(3, 3, target=1),
    lambda: gripper(0),
    lambda: gripper(3, rooms=1),
    lambda: logistics(2, 2, 3, airplanes=0),
    lambda: logistics(1, 1, 1),
])
def test_bad_sizes_raise_value_error(call: Callable[[], str]) -> None:
    with pytest.raises(ValueError):
        call()
