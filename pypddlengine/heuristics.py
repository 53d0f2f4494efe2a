"""Delete-relaxation heuristics on integer-indexed arrays.

Everything here reads a task only through its delete relaxation,
:meth:`Task.relaxed_operators` and :attr:`Task.goal_atoms`, so conditional
effects and axioms work as soon as the task provides operators for them.
:class:`RelaxedTask` compiles that view once into flat lists (operator ->
preconditions, adds, cost; atom -> operators it is a precondition of) and
then evaluates states with a precondition counter per operator:

* ``goal_count``: positive goal atoms that do not hold;
* ``h_max`` and ``h_add`` (Bonet & Geffner): the cost of an atom is the
  cheapest achiever's cost plus the max (``h_max``) or the sum (``h_add``)
  of its preconditions' costs;
* ``h_FF`` (Hoffmann & Nebel): the cost of a relaxed plan extracted
  backwards from the goal through best supporters. Supporters come from the
  ``h_add`` exploration (as in Fast Downward's ``ff()``), so ``h_FF`` and
  ``h_add`` cost one exploration together.

The exploration is a generalised Dijkstra search over atoms with a bucket
per distinct cost value and a heap of those values (in unit-cost tasks a
handful of buckets, so it runs like Dial's algorithm). It stops as soon as every goal atom is
settled, so states near the goal are cheap; when some goal atom is never
settled it has run to exhaustion, and those goal atoms are unreachable even
ignoring deletes: a proof that no plan exists from the state.

With integer operator costs :meth:`RelaxedTask.explore` keeps one packed int
per operator (cost so far and preconditions still to settle), so a settling
precondition costs one add and one test. That loop runs in C
(``pypddlengine/_relaxed.c``, an optional extension built at install when
the machine has a C compiler; :data:`ACCELERATED` says whether it is in use,
``PYPDDL_PURE_PYTHON=1`` switches it off) with exactly the Python loop's
settling order, costs and supporters (``tests/unit/test_c_exploration.py``
compares both on every corpus domain).

Measured speeds, beside pyperplan's, are in ``bench/results.md``
(``python bench/bench_heuristics.py``). Sessions evaluate each state from
scratch: an incremental evaluation from the previous state's costs does not
pay on Blocksworld, where a step changes nearly every atom's cost
(``tests/incremental.py`` keeps one, as a test oracle).

Negative preconditions and negative goals are dropped by the relaxation.
``INF`` (``math.inf``) stands for "unreachable".
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
import weakref
from array import array
from collections.abc import Sequence
from typing import Any, Literal

from .task import GroundAction, State, Task
from .usercache import dataclass

__all__ = ["ACCELERATED", "HEURISTICS", "INF", "Evaluation", "RelaxedTask", "relaxed_task"]

_relaxed: Any = None
if not os.environ.get("PYPDDL_PURE_PYTHON"):
    try:  # the optional C code (pypddlengine/_relaxed.c), built when the machine has a C compiler
        import pypddlengine._relaxed as _relaxed  # type: ignore[no-redef]  # C module, no stub: typed Any above
        # (imported by its full name: a reader of the imports sees the C module)
    except ImportError:  # pragma: no cover - depends on the build
        _relaxed = None
ACCELERATED: bool = _relaxed is not None
"""Whether the C code is in use: integer-cost explorations, landmark labels and
the relaxed task's compressed rows (``PYPDDL_PURE_PYTHON=1`` runs everything
in Python, as on a machine without a C compiler; both give identical costs,
supporters and labels)."""

INF = math.inf
HEURISTICS = ("goal_count", "h_max", "h_add", "h_ff")
"""The heuristic names :meth:`RelaxedTask.value` accepts."""


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One state's relaxed values. ``h_add``/``h_ff`` (or ``h_max``) are
    ``INF`` when some goal atom is unreachable in the relaxation;
    ``relaxed_plan`` holds operator indices (see :meth:`RelaxedTask.actions`),
    ordered by the cost at which they become applicable;
    ``unreachable_goals`` lists the goal atom ids that cannot be reached."""

    goal_count: int
    h: float
    h_ff: float
    relaxed_plan: tuple[int, ...]
    unreachable_goals: tuple[int, ...]
    mode: str

    @property
    def dead_end(self) -> bool:
        return bool(self.unreachable_goals)


class RelaxedTask:
    """A task's delete relaxation compiled into integer-indexed arrays."""

    def __init__(self, task: Task) -> None:
        ops = task.relaxed_operators()
        # Beyond STRIPS the relaxation has atoms of its own after the task's (the virtual goal atom and
        # "is false" atoms, see Task.relaxed_operators); the always-true atom comes after all of them.
        self.operators = ops
        self.pre: list[tuple[int, ...]] = [op.pre for op in ops]
        self.add: list[tuple[int, ...]] = [op.add for op in ops]
        self._csr: tuple[array, ...] | None = None
        if _relaxed is not None:  # compressed rows for C code, and the largest atom id on the way
            pre_rows, add_rows = _rows(self.pre), _rows(self.add)
            largest = max(pre_rows[2], add_rows[2])
        else:
            largest = max(max(map(max, filter(None, self.pre)), default=-1),
                          max(map(max, filter(None, self.add)), default=-1))
        n = 1 + max(len(task.atoms) - 1, largest, *task.goal_atoms)
        self.n_atoms = n
        self.general = task.general is not None
        self._facts = task.relaxed_facts
        self._is_goal = task.is_goal
        self._virtual_goal = self.general and len(task.atoms) in task.goal_atoms
        self._cost: list[float] = [op.cost for op in ops]
        # operators without preconditions wait for atom ``n``, an extra atom that always holds
        self.npre: list[int] = [len(p) or 1 for p in self.pre]
        self._by_pre: list[tuple[int, ...]] | None = None
        goals = task.goal_atoms
        self.missing_goals: tuple[int, ...] = tuple(g for g in goals if g < 0)
        self.goals: tuple[int, ...] = tuple(dict.fromkeys(g for g in goals if g >= 0))
        self._inf = [INF] * (n + 1)
        self._none = [-1] * (n + 1)
        self._goal_flag = bytearray(n + 1)
        for g in self.goals:
            self._goal_flag[g] = 1
        self._by_add: list[tuple[int, ...]] | None = None
        if _relaxed is not None:
            by_pre = (array("q", bytes(8 * (n + 2))), array("i", bytes(4 * sum(self.npre))))
            _relaxed.transpose(*pre_rows[:2], *by_pre, n)
            self._csr = (*by_pre, *add_rows[:2], *pre_rows[:2])
        self.compile_costs()

    @property
    def by_pre(self) -> list[tuple[int, ...]]:
        """Atom -> the operators it is a precondition of (those without any
        under the always-true atom ``n_atoms``); built on first use."""
        if self._by_pre is None:
            if self._csr is not None:
                ptr, idx = self._csr[0], self._csr[1]
                self._by_pre = [tuple(idx[ptr[a]:ptr[a + 1]]) for a in range(self.n_atoms + 1)]
            else:
                n = self.n_atoms
                by_pre: list[list[int]] = [[] for _ in range(n + 1)]
                for i, pre in enumerate(self.pre):
                    for a in pre or (n,):
                        by_pre[a].append(i)
                self._by_pre = [tuple(x) for x in by_pre]
        return self._by_pre

    @property
    def cost(self) -> list[float]:
        """Operator costs; assigning a new list recompiles the exploration
        (after changing it in place, call :meth:`compile_costs`)."""
        return self._cost

    @cost.setter
    def cost(self, value: list[float]) -> None:
        self._cost = value
        self.compile_costs()

    def compile_costs(self) -> None:
        """Choose the exploration for :attr:`cost`."""
        # with integer costs an operator's cost can be summed as its preconditions settle, packed with
        # its count of preconditions still to settle: (own cost + preconditions' so far) << shift | count
        self.integer_costs = all(0 <= c < 2**52 and float(c).is_integer() for c in set(self.cost))
        # the count needs as few bits as possible: then packed values stay one-digit (30-bit) ints
        self._shift = shift = max(self.npre, default=0).bit_length()
        pairs = zip(self.cost, self.npre, strict=True)
        self._packed = [int(c) << shift | k for c, k in pairs] if self.integer_costs else []
        # the C exploration packs into 64-bit ints and keeps costs as doubles: an atom never costs more than
        # all operators together, so a total below 2**53 is exact in both
        total = int(math.fsum(self.cost)) if self.integer_costs else 0  # correctly rounded, so the bound holds
        self.accelerated = (ACCELERATED and self.integer_costs and total < 2**53 and (total + 1) << shift < 2**62
                            and self.n_atoms < 2**31)
        self._arrays: tuple[array | bytes, ...] | None = None
        if self.accelerated:  # built here, so that a task's set-up time includes them
            self._c_arrays()

    def _c_arrays(self) -> tuple[array | bytes, ...]:
        """The flat arrays the C exploration reads: :meth:`csr`'s by_pre and
        add rows, the packed counters and the goal flags."""
        if self._arrays is None:
            by_pre_ptr, by_pre_idx, add_ptr, add_idx, _, _ = self.csr()
            self._arrays = (by_pre_ptr, by_pre_idx, add_ptr, add_idx, array("q", self._packed), bytes(self._goal_flag))
        return self._arrays

    def csr(self) -> tuple[array, ...]:
        """:attr:`by_pre`, :attr:`add` and :attr:`pre` as compressed rows
        (offsets ``int64``, then entries ``int32``) for C code; built with
        the task when the C extension is there."""
        if self._csr is None:
            chain, acc = itertools.chain.from_iterable, itertools.accumulate
            self._csr = tuple(array(code, values) for table in (self.by_pre, self.add, self.pre)
                              for code, values in (("q", acc(map(len, table), initial=0)), ("i", chain(table))))
        return self._csr

    @property
    def by_add(self) -> list[tuple[int, ...]]:
        """Atom -> the operators that add it (built on first use)."""
        if self._by_add is None:
            by_add: list[list[int]] = [[] for _ in range(self.n_atoms + 1)]
            for i, adds in enumerate(self.add):
                for a in adds:
                    by_add[a].append(i)
            self._by_add = [tuple(x) for x in by_add]
        return self._by_add

    # ------------------------------------------------------------------ values

    def goal_count(self, state: State) -> int:
        """Positive goal atoms that do not hold (a never-reachable one counts);
        for a goal that is not a conjunction of atoms, 0 or 1 (reached or not)."""
        if self._virtual_goal:
            return 0 if self._is_goal(state) else 1
        return len(self.missing_goals) + sum(1 for g in self.goals if g not in state)

    def facts(self, state: State) -> list[int]:
        """The relaxation's atoms that hold in ``state`` (beyond STRIPS, with
        the "is false" atoms of the atoms it lacks)."""
        return list(self._facts(state)) if self.general else list(state)

    def actions(self, plan: tuple[int, ...]) -> tuple[GroundAction, ...]:
        """The ground actions of a relaxed plan (axioms left out)."""
        ops = self.operators
        return tuple(a for a in dict.fromkeys(ops[i].action for i in plan) if a is not None)

    def value(self, name: str, state: State) -> float:
        """One heuristic by name (see :data:`HEURISTICS`); ``INF`` for a
        relaxed dead end."""
        if name == "goal_count":
            return float(self.goal_count(state))
        if name == "h_max":
            return self.evaluate(state, "max").h
        if name == "h_add":
            return self.evaluate(state, "add").h
        if name == "h_ff":
            return self.evaluate(state, "add").h_ff
        raise ValueError(f"unknown heuristic '{name}'; choose one of {', '.join(HEURISTICS)}")

    def evaluate(self, state: State, mode: Literal["add", "max"] = "add", *, plan: bool = True) -> Evaluation:
        """Explore from ``state``; ``h`` is ``h_add`` or ``h_max`` per ``mode``,
        ``h_ff`` the relaxed plan's cost (extracted when ``plan``)."""
        if self.missing_goals:
            return Evaluation(self.goal_count(state), INF, INF, (), self.missing_goals, mode)
        cost, sup = self.explore_arrays(state, mode == "add", stop=True)
        return self.evaluation(state, mode, cost, sup, plan)

    def h_ff(self, state: State) -> float:
        """:meth:`evaluate`'s ``h_ff`` alone (the relaxed plan is not ordered): for searches that only rank states."""
        if self.missing_goals:
            return INF
        cost, sup = self.explore_arrays(state, True, stop=True)
        goals = self.goals
        for g in goals:
            if cost[g] == INF:
                return INF
        op_cost = self.cost
        return float(sum(op_cost[o] for o in self.extract(goals, sup)))

    def evaluation(
        self, state: State, mode: str, cost: Sequence[float], sup: Sequence[int], plan: bool = True
    ) -> Evaluation:
        """The :class:`Evaluation` of ``state`` from its explored costs and supporters."""
        gc = self.goal_count(state)
        goals = self.goals
        unreachable = tuple(g for g in goals if cost[g] == INF)
        if unreachable:
            return Evaluation(gc, INF, INF, (), unreachable, mode)
        h = sum(cost[g] for g in goals) if mode == "add" else max((cost[g] for g in goals), default=0)
        if not plan:
            return Evaluation(gc, float(h), INF, (), (), mode)
        chosen = self.extract(goals, sup)
        op_cost = self.cost
        h_ff = sum(op_cost[o] for o in chosen)
        pre = self.pre
        ordered = tuple(sorted(chosen, key=lambda o: (max((cost[p] for p in pre[o]), default=0), o)))
        return Evaluation(gc, float(h), float(h_ff), ordered, (), mode)

    def extract(self, goals: tuple[int, ...], sup: Sequence[int]) -> set[int]:
        """The relaxed plan: best supporters, backwards from ``goals``."""
        chosen: set[int] = set()
        seen: set[int] = set()
        stack = list(goals)
        pre = self.pre
        while stack:
            atom = stack.pop()
            if atom in seen:
                continue
            seen.add(atom)
            o = sup[atom]
            if o < 0 or o in chosen:
                continue
            chosen.add(o)
            stack.extend(pre[o])
        return chosen

    # ------------------------------------------------------------------ exploration

    def explore_arrays(
        self, state: State, additive: bool = True, *, stop: bool = False
    ) -> tuple[Sequence[float], Sequence[int]]:
        """:meth:`explore`'s costs and supporters as they come: arrays from
        the C exploration (no conversion to lists), lists otherwise."""
        if not self.accelerated:
            return self.explore(state, additive, stop=stop)
        by_pre_ptr, by_pre_idx, add_ptr, add_idx, packed, goal_flag = self._c_arrays()
        assert _relaxed is not None
        n = self.n_atoms + 1
        cost = array("d", bytes(8 * n))
        sup = array("i", bytes(4 * n))
        first = self.facts(state) if self.general else state
        _relaxed.explore(by_pre_ptr, by_pre_idx, add_ptr, add_idx, packed, goal_flag, self._shift, first,
                         additive, stop, len(self.goals), cost, sup)
        return cost, sup

    def explore(self, state: State, additive: bool = True, *, stop: bool = False) -> tuple[list[float], list[int]]:
        """Cost of every atom (``INF`` if unreachable) and its best supporter
        (operator index, ``-1`` for atoms of ``state``); both lists have one
        extra entry at the end, an internal atom that always holds. With
        ``stop`` the search ends once every goal atom is settled (costs of
        unsettled atoms are then upper bounds).

        With integer operator costs this is a faster form of
        :meth:`explore_reference` with exactly its results (same settling
        order, so the same supporters among equally cheap ones): an
        operator's precondition cost is accumulated as each precondition
        settles instead of summed when the last one does. When the C
        exploration is built (:data:`ACCELERATED`) this very loop runs there.
        """
        if self.accelerated:
            c_cost, c_sup = self.explore_arrays(state, additive, stop=stop)
            return c_cost.tolist(), c_sup.tolist()  # type: ignore[attr-defined]
        if not self._packed:
            return self.explore_reference(state, additive, stop=stop)
        cost: list[float] = self._inf[:]
        sup = self._none[:]
        packed = self._packed[:]
        by_pre, add, is_goal = self.by_pre, self.add, self._goal_flag
        shift = self._shift
        low = (1 << shift) - 1
        first = [*(self.facts(state) if self.general else state), self.n_atoms]  # + the always-true atom
        for a in first:
            cost[a] = 0
        buckets: dict[int, list[int]] = {0: first}  # packed costs are integers
        keys: list[int] = [0]
        left = len(self.goals) if stop else -1
        pop, push = heapq.heappop, heapq.heappush
        while keys:
            b = pop(keys)
            # one precondition fewer to wait for; with h_add b more cost, with h_max b is added on firing
            step, extra = ((b << shift) - 1, 0) if additive else (-1, b)
            for a in buckets[b]:
                if cost[a] != b:
                    continue
                if is_goal[a]:
                    left -= 1
                    if left == 0:
                        return cost, sup
                for o in by_pre[a]:
                    v = packed[o] + step
                    packed[o] = v
                    if v & low:
                        continue
                    c = (v >> shift) + extra
                    bucket = None
                    for q in add[o]:
                        if c < cost[q]:
                            cost[q] = c
                            sup[q] = o
                            if bucket is None:
                                bucket = buckets.get(c)
                                if bucket is None:
                                    bucket = buckets[c] = []
                                    push(keys, c)
                            bucket.append(q)
            del buckets[b]
        return cost, sup

    def explore_reference(
        self, state: State, additive: bool = True, *, stop: bool = False
    ) -> tuple[list[float], list[int]]:
        """The reference exploration (any costs): cost of every atom (``INF`` if unreachable) and its best supporter
        (operator index, ``-1`` for atoms of ``state``); both lists have one
        extra entry at the end, an internal atom that always holds. With
        ``stop`` the search ends once every goal atom is settled (costs of
        unsettled atoms are then upper bounds)."""
        cost: list[float] = self._inf[:]
        sup = self._none[:]
        remaining = self.npre[:]
        by_pre, add, pre, op_cost = self.by_pre, self.add, self.pre, self.cost
        first = [*(self.facts(state) if self.general else state), self.n_atoms]  # + the always-true atom
        for a in first:
            cost[a] = 0
        # a bucket per distinct cost, and a heap of the costs that have one
        buckets: dict[float, list[int]] = {0: first}
        keys: list[float] = [0]
        goal_set = set(self.goals)
        left = len(goal_set) if stop else -1
        at = cost.__getitem__
        while keys:
            b = heapq.heappop(keys)
            for a in buckets[b]:  # zero-cost operators append to this bucket while it is read
                if cost[a] != b:
                    continue
                if a in goal_set:
                    left -= 1
                    if left == 0:
                        return cost, sup
                for o in by_pre[a]:
                    r = remaining[o] - 1
                    remaining[o] = r
                    if r:
                        continue
                    # the last precondition settled: with h_max the operator costs b, with h_add the sum
                    c = (sum(map(at, pre[o])) if additive else b) + op_cost[o]
                    for q in add[o]:
                        if c < cost[q]:
                            cost[q] = c
                            sup[q] = o
                            if c in buckets:
                                buckets[c].append(q)
                            else:
                                buckets[c] = [q]
                                heapq.heappush(keys, c)
            del buckets[b]
        return cost, sup


def _rows(table: list[tuple[int, ...]]) -> tuple[array, array, int]:
    """``table`` as compressed rows (offsets, entries) and its largest entry (C)."""
    assert _relaxed is not None
    offsets, entries, largest = _relaxed.pack(table)
    ptr, idx = array("q"), array("i")
    ptr.frombytes(offsets)
    idx.frombytes(entries)
    return ptr, idx, largest


def relaxed_task(task: Task) -> RelaxedTask:
    """The task's :class:`RelaxedTask`, built once per task and cached on it."""
    cached = _CACHE.get(task)
    if cached is None:
        cached = _CACHE[task] = RelaxedTask(task)
    return cached


_CACHE: weakref.WeakKeyDictionary[Task, RelaxedTask] = weakref.WeakKeyDictionary()
