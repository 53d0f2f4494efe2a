"""Uniformly random Blocksworld states: forests of towers, exactly counted.

Two samplers, both exact (big-integer arithmetic, one ``randrange`` per
decision, so every state has exactly the same probability):

:class:`TowerSampler`
    Slaney and Thiébaux's method ("Blocks World revisited", AIJ 2001, §3):
    a state is built from ``n`` single-block *ungrounded* towers by taking one
    designated ungrounded tower at a time and either *grounding* it (standing
    it on the table) or putting it on top of one of the other towers,
    grounded or not. The number of completions ``g(m, k)`` from ``m``
    ungrounded and ``k`` grounded towers depends only on ``m`` and ``k``::

        g(0, k) = 1
        g(m, k) = g(m-1, k+1) + (m-1+k) * g(m-1, k)

    and each choice is made with probability proportional to its count of
    completions. Distinct choices lead to disjoint sets of final states (the
    designated tower's bottom block ends on the table, or on the top block of
    the tower it was put on, and later steps never change that), so the final
    state is uniform. ``g(n, 0)`` is the number of states: 1, 3, 13, 73, 501,
    4051, ... for n = 1, 2, 3, ...

    With ``positions=P`` the table has P distinguishable places, one tower
    each, and a state also says which tower stands where. Grounding then has
    ``P-k`` choices (the free places), so ``g(m, k)`` gets the weight ``P-k``
    on its first term and ``g(0, k) = 1`` for ``k <= P``.

:class:`SizedTowerSampler`
    States in which every block stands on a block at least as large (the
    Blocksworld-MCP ``block_size`` rule). Blocks are inserted from largest
    to smallest; the block being inserted is the smallest so far, so it can
    go on the table (a new tower) or into a tower anywhere above the blocks
    strictly larger than it. With ``t`` towers and ``j`` earlier blocks of its
    own size there are ``t + j`` such slots, whatever the towers look like,
    so the completions again depend on two numbers only and the same
    proportional choice gives a uniform state. With all sizes equal it counts
    the same states as :class:`TowerSampler` (a test checks this).

Both return a :class:`TowerState`: towers listed bottom to top, and where
the table has positions, the position index of each tower.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["SizedTowerSampler", "TowerSampler", "TowerState", "count_states"]


@dataclass(frozen=True)
class TowerState:
    """A Blocksworld state with an empty hand: ``towers[i]`` lists the blocks
    of one tower from the table up; ``positions[i]`` is that tower's table
    position (0-based) when the table has positions, else ``None``."""

    towers: tuple[tuple[str, ...], ...]
    positions: tuple[int, ...] | None = None

    def canonical(self) -> object:
        """A hashable key equal for equal states (tower order is irrelevant
        without positions)."""
        if self.positions is None:
            return frozenset(self.towers)
        return frozenset(zip(self.positions, self.towers, strict=True))

    def below(self) -> dict[str, str | None]:
        """For each block, the block it stands on (``None``: the table)."""
        out: dict[str, str | None] = {}
        for tower in self.towers:
            for i, block in enumerate(tower):
                out[block] = tower[i - 1] if i else None
        return out

    def position_of(self) -> dict[str, int]:
        """For each tower's bottom block, its table position (positions only)."""
        if self.positions is None:
            return {}
        return {tower[0]: p for tower, p in zip(self.towers, self.positions, strict=True)}

    def sorted(self) -> TowerState:
        """The same state with towers in a stable order (by position, else by
        bottom block), for readable output."""
        if self.positions is None:
            return TowerState(tuple(sorted(self.towers, key=lambda t: t[0])))
        pairs = sorted(zip(self.positions, self.towers, strict=True))
        return TowerState(tuple(t for _, t in pairs), tuple(p for p, _ in pairs))


def _check(blocks: Sequence[str], positions: int | None) -> None:
    if len(set(blocks)) != len(blocks):
        raise ValueError("block names must be distinct")
    if positions is not None and positions < 1 and blocks:
        raise ValueError("a table needs at least one position")


class TowerSampler:
    """Uniform random states over ``n`` blocks (Slaney & Thiébaux's counting
    method); see the module docstring. The count table costs O(n²) big
    integers, built once per sampler."""

    def __init__(self, n: int, positions: int | None = None) -> None:
        if n < 0:
            raise ValueError("the number of blocks must be >= 0")
        _check([str(i) for i in range(n)], positions)
        self.n = n
        self.positions = positions
        # rows[m][k] = g(m, k) for k = 0 .. n - m (more towers than blocks cannot be grounded)
        rows: list[list[int]] = [[1 if positions is None or k <= positions else 0 for k in range(n + 1)]]
        for m in range(1, n + 1):
            prev = rows[m - 1]
            rows.append([self._ground_weight(k) * prev[k + 1] + (m - 1 + k) * prev[k] for k in range(n + 1 - m)])
        self._rows = rows

    def _ground_weight(self, k: int) -> int:
        if self.positions is None:
            return 1
        return max(self.positions - k, 0)

    def count(self, m: int | None = None, k: int = 0) -> int:
        """``g(m, k)``; ``count()`` is the number of states with ``n`` blocks."""
        return self._rows[self.n if m is None else m][k]

    def sample(self, rng: random.Random, blocks: Sequence[str]) -> TowerState:
        if len(blocks) != self.n:
            raise ValueError(f"this sampler is for {self.n} blocks, got {len(blocks)}")
        _check(blocks, self.positions)
        ungrounded: list[list[str]] = [[b] for b in blocks]
        grounded: list[list[str]] = []
        where: list[int] = []
        free = list(range(self.positions or 0))
        while ungrounded:
            m, k = len(ungrounded), len(grounded)
            tower = ungrounded.pop(0)  # the designated tower: always the first
            ground_each = self._rows[m - 1][k + 1]
            grounding = self._ground_weight(k) * ground_each
            r = rng.randrange(self._rows[m][k])
            if r < grounding:
                grounded.append(tower)
                if self.positions is not None:
                    where.append(free.pop(r // ground_each))
                continue
            target = (r - grounding) // self._rows[m - 1][k]
            others = ungrounded + grounded  # m - 1 + k towers
            others[target].extend(tower)
        return TowerState(tuple(tuple(t) for t in grounded), tuple(where) if self.positions is not None else None)


class SizedTowerSampler:
    """Uniform random states in which no block stands on a smaller one.

    ``sizes[b]`` is the size of block ``b``; equal sizes may stack either
    way. See the module docstring for the insertion method."""

    def __init__(self, sizes: dict[str, int], positions: int | None = None) -> None:
        blocks = list(sizes)
        _check(blocks, positions)
        self.positions = positions
        # largest first; ties keep the given order (any fixed order will do)
        self.order = sorted(blocks, key=lambda b: -sizes[b])
        self.sizes = dict(sizes)
        n = len(self.order)
        self._same: list[int] = []  # earlier blocks of the same size, per insertion step
        for i, b in enumerate(self.order):
            same = self._same[i - 1] + 1 if i and sizes[self.order[i - 1]] == sizes[b] else 0
            self._same.append(same)
        # table[i][t] = completions after inserting i blocks into t towers
        limit = n if positions is None else min(n, positions)
        table = [[0] * (limit + 2) for _ in range(n + 1)]
        for t in range(limit + 1):
            table[n][t] = 1
        for i in range(n - 1, -1, -1):
            for t in range(min(i, limit) + 1):
                table[i][t] = self._new_weight(t) * table[i + 1][t + 1] + (t + self._same[i]) * table[i + 1][t]
        self._table = table

    def _new_weight(self, t: int) -> int:
        if self.positions is None:
            return 1
        return max(self.positions - t, 0)

    def count(self) -> int:
        """The number of size-respecting states."""
        return self._table[0][0]

    def sample(self, rng: random.Random) -> TowerState:
        towers: list[list[str]] = []
        where: list[int] = []
        free = list(range(self.positions or 0))
        for i, block in enumerate(self.order):
            t = len(towers)
            new_each = self._table[i + 1][t + 1]
            new = self._new_weight(t) * new_each
            r = rng.randrange(self._table[i][t])
            if r < new:
                towers.append([block])
                if self.positions is not None:
                    where.append(free.pop(r // new_each))
                continue
            slot = (r - new) // self._table[i + 1][t]
            size = self.sizes[block]
            for tower in towers:
                lowest = len(tower)  # the lowest slot: just above the last strictly larger block
                while lowest and self.sizes[tower[lowest - 1]] == size:
                    lowest -= 1
                slots = len(tower) - lowest + 1
                if slot < slots:
                    tower.insert(lowest + slot, block)
                    break
                slot -= slots
        return TowerState(tuple(tuple(t) for t in towers), tuple(where) if self.positions is not None else None)


def count_states(n: int, positions: int | None = None) -> int:
    """The number of Blocksworld states (empty hand) over ``n`` blocks."""
    return TowerSampler(n, positions).count()
