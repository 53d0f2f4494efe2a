"""Deliberately unsolvable tasks (the Blocksworld-MCP "impossible" category).

Each kind comes with the argument for why no plan exists; the proof that
:mod:`.proofs` can check mechanically is named in :data:`KINDS`:

``size-inversion`` (domain ``blocksworld-sizes``; relaxed reachability, any size)
    The goal puts a block on a strictly smaller one. No ``(fits ...)`` fact
    allows that stack, so the goal atom is unreachable even ignoring deletes.
``hanoi-two-positions`` (``blocksworld-sizes``; exhaustive search)
    Towers of Hanoi with only two table positions. To move the largest disk
    the gripper must hold it while every other disk stands elsewhere, but the
    only other place is the target position, which must then be free.
``one-position`` (``blocksworld-table``; exhaustive search)
    One table position holding a tower, and a goal that reorders it. Only
    the top block can ever move, and it can only go back where it was.
``two-positions`` (``blocksworld-table``; exhaustive search)
    Two table positions, one tower, and a goal asking for the same tower
    with its two lowest blocks swapped. A block can only move between the
    tops of the two towers, so the sequence read up the tower on ``p1`` and
    then down the tower on ``p2`` (the held block in between) never changes;
    the goal needs a different one. (This invariant makes the reachable
    space tiny, so the exhaustive proof works at any size.)
``cycle`` (``blocksworld``; exhaustive search)
    The goal asks for a cycle of ``on`` facts (a on b, b on c, c on a),
    which no state has. Relaxed reachability cannot see this.
``table-cycle`` (``blocksworld-table`` with three positions; exhaustive search)
    The same cycle on a table with three positions: every state is
    reachable, so a proof must visit them all (35,280 states at 6 blocks).

The exhaustive proofs are practical up to roughly 7 blocks (the 4-operator
state space grows like n!); the generator does not prove anything itself.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .blocksworld import _sized_task, goal_atoms, hanoi_disks, position_names, state_atoms
from .text import Atom, block_names, generated_by, problem_text
from .towers import SizedTowerSampler, TowerSampler, TowerState

__all__ = ["KINDS", "unsolvable"]

# kind -> (domain, proof method that applies)
KINDS: dict[str, tuple[str, str]] = {
    "size-inversion": ("blocksworld-sizes", "relaxed-reachability"),
    "hanoi-two-positions": ("blocksworld-sizes", "exhaustive-search"),
    "one-position": ("blocksworld-table", "exhaustive-search"),
    "two-positions": ("blocksworld-table", "exhaustive-search"),
    "cycle": ("blocksworld", "exhaustive-search"),
    "table-cycle": ("blocksworld-table", "exhaustive-search"),
}


@dataclass(frozen=True)
class _Spec:
    kind: str
    blocks: int
    seed: int
    name: str | None  # as given; the problem is called ``label``

    @property
    def label(self) -> str:
        return self.name or f"{self.kind}-{self.blocks}-{self.seed}"

    def header(self, why: str) -> list[str]:
        domain, method = KINDS[self.kind]
        return [
            f"UNSOLVABLE ({self.kind}, domain {domain}, {self.blocks} blocks): {why}",
            f"expected proof: {method}",
            generated_by("unsolvable", kind=self.kind, blocks=self.blocks, seed=self.seed, name=self.name),
        ]


def _size_inversion(spec: _Spec) -> str:
    rng = random.Random(spec.seed)
    names = block_names(spec.blocks)
    # two size classes at least, so that a strictly smaller block exists
    sizes = {b: rng.randint(1, max(2, spec.blocks // 2)) for b in names}
    if len(set(sizes.values())) == 1:
        sizes[names[0]] += 1
    places = position_names(3)
    sampler = SizedTowerSampler(sizes, 3)
    start, target = sampler.sample(rng), sampler.sample(rng)
    big = rng.choice([b for b in names if sizes[b] > min(sizes.values())])
    small = rng.choice([b for b in names if sizes[b] < sizes[big]])
    keep = [
        g for g in goal_atoms(target, places)
        if not (g[0] == "on" and (g[1] == big or g[2] == small)) and not (g[0] == "ontable" and g[1] == big)
    ]
    goal: list[Atom] = [("on", big, small), *keep]
    why = f"the goal puts {big} (size {sizes[big]}) on the smaller {small} (size {sizes[small]})"
    comments = [*spec.header(why), "sizes: " + ", ".join(f"{b}={s}" for b, s in sizes.items())]
    return _sized_task(spec.label, sizes, places, start, goal, comments)


def _hanoi_two_positions(spec: _Spec) -> str:
    sizes = hanoi_disks(spec.blocks)
    order = tuple(reversed(list(sizes)))
    places = position_names(2)
    goal = goal_atoms(TowerState((order,), (1,)), places)
    comments = [*spec.header("Towers of Hanoi from p1 to p2 with no third position"),
                "sizes: d1 smallest .. dN largest"]
    return _sized_task(spec.label, sizes, places, TowerState((order,), (0,)), goal, comments)


def _tower_task(spec: _Spec, positions: int, why: str) -> str:
    rng = random.Random(spec.seed)
    names = block_names(spec.blocks)
    tower = names[:]
    rng.shuffle(tower)
    target = tower[:]
    if positions == 1:  # any other order; swap the top two blocks
        target[-1], target[-2] = target[-2], target[-1]
    else:  # swap the two lowest blocks
        target[0], target[1] = target[1], target[0]
    places = position_names(positions)
    init = state_atoms(TowerState((tuple(tower),), (0,)), places)
    goal = goal_atoms(TowerState((tuple(target),), (0,)), places)
    objects = [(names, "block"), (places, "position")]
    return problem_text(spec.label, "blocksworld-table", objects, init, goal, spec.header(why))


def _cycle(spec: _Spec, positions: int | None) -> str:
    rng = random.Random(spec.seed)
    names = block_names(spec.blocks)
    start = TowerSampler(spec.blocks, positions).sample(rng, names)
    ring = rng.sample(names, k=min(spec.blocks, 3))
    goal: list[Atom] = [("on", ring[i], ring[(i + 1) % len(ring)]) for i in range(len(ring))]
    why = "the goal asks for the cycle " + ", ".join(f"{a} on {b}" for _, a, b in goal)
    if positions is None:
        return problem_text(spec.label, "blocksworld", [(names, "block")], state_atoms(start), goal, spec.header(why))
    places = position_names(positions)
    objects = [(names, "block"), (places, "position")]
    return problem_text(spec.label, "blocksworld-table", objects, state_atoms(start, places), goal, spec.header(why))


def unsolvable(kind: str, blocks: int, seed: int = 0, *, name: str | None = None) -> str:
    """The problem text of an unsolvable task of ``kind`` (see :data:`KINDS`)
    with ``blocks`` blocks. Its domain is ``KINDS[kind][0]``."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind '{kind}'; known: {', '.join(KINDS)}")
    if blocks < 2:
        raise ValueError("an unsolvable task needs at least two blocks")
    spec = _Spec(kind, blocks, seed, name)
    if kind == "size-inversion":
        return _size_inversion(spec)
    if kind == "hanoi-two-positions":
        return _hanoi_two_positions(spec)
    if kind == "one-position":
        return _tower_task(spec, 1, "one table position; the goal reorders the tower standing on it")
    if kind == "two-positions":
        if blocks < 3:
            raise ValueError("two-positions needs at least three blocks (two blocks can be swapped)")
        return _tower_task(spec, 2, "two table positions; the goal swaps the two lowest blocks of the tower on p1")
    return _cycle(spec, 3 if kind == "table-cycle" else None)
