"""LM-cut (Helmert and Domshlak 2009), an admissible heuristic for plain STRIPS tasks.

LM-cut repeats: compute h_max with a supporter per operator (the precondition
with the largest h_max, here the one settled last), take the *goal zone*
(the atoms from which zero-cost supported operators lead to the goal), and
the *cut*: the operators whose supporter is reachable from the state through
supported operators without entering the zone, and that add a zone atom.
Every plan uses an operator of the cut (a disjunctive action landmark); the
cheapest cut operator's cost is added to the value and taken off every cut
operator's cost, until the goal's h_max is zero. The sum never exceeds the
optimal cost (the costs taken off form a cost partitioning) and is at least
h_max.

The task is compiled once into operators over its atoms plus two: one that
always holds (the precondition of an action without one) and the goal,
added by a zero-cost operator that needs the goal atoms. With integer costs
whose sum is below 2**31 the loop runs in C (``pypddlengine/_relaxed.c``,
the optional extension of :mod:`pypddlengine.heuristics`); otherwise, and with
``PYPDDL_PURE_PYTHON=1``, :meth:`LMCut.python_value` runs the same loop (same
queue order, so the same supporters, cuts and values) in exact arithmetic.
"""

from __future__ import annotations

import heapq
import itertools
from array import array
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from .heuristics import INF, _relaxed
from .step import GroundAction, State
from .task import Task

__all__ = ["LMCut"]


class LMCut:
    """LM-cut of one task; ``LMCut(task)(state)`` is the value (``INF`` when
    the goal is unreachable even ignoring deletes). Build it with
    :meth:`of`, which says ``None`` for a task beyond plain STRIPS (derived
    atoms, conditional effects, a goal that is not a conjunction of atoms)."""

    def __init__(self, task: Task) -> None:
        n = len(task.atoms)
        acts = [a for a in task.actions if a.add]
        self.truth = n
        self.goal = n + 1
        # without repeated atoms (an action whose parameters coincide may name one twice): a cut operator
        # listed twice under its supporter would lose its cost twice
        self.pre: list[tuple[int, ...]] = [tuple(dict.fromkeys(a.pre)) or (n,) for a in acts]
        self.pre.append(tuple(dict.fromkeys(task.goal_pos)) or (n,))
        self.add: list[tuple[int, ...]] = [tuple(dict.fromkeys(a.add)) for a in acts] + [(n + 1,)]
        self.cost: list[Any] = [a.cost for a in acts] + [0]
        self.npre = [len(p) for p in self.pre]
        by_pre: list[list[int]] = [[] for _ in range(n + 2)]
        by_add: list[list[int]] = [[] for _ in range(n + 2)]
        for o, (pre, add) in enumerate(zip(self.pre, self.add, strict=True)):
            for p in pre:
                by_pre[p].append(o)
            for q in add:
                by_add[q].append(o)
        self.by_pre = [tuple(x) for x in by_pre]
        self.by_add = [tuple(x) for x in by_add]
        integer = all(c.__class__ is int and c >= 0 for c in self.cost)
        self.accelerated = _relaxed is not None and integer and sum(self.cost) < 2**31 and n + 2 < 2**31
        self._arrays: tuple[array, ...] = ()
        if self.accelerated:
            chain, acc = itertools.chain.from_iterable, itertools.accumulate
            rows = [array(code, values) for table in (self.pre, self.add, self.by_pre, self.by_add)
                    for code, values in (("q", acc(map(len, table), initial=0)), ("i", chain(table)))]
            self._arrays = (*rows, array("q", self.cost))

    @classmethod
    def of(cls, task: Task) -> LMCut | None:
        """LM-cut of ``task``, ``None`` when the task is beyond plain STRIPS (or
        an action's cost is negative or undefined)."""
        if (task.derived_atoms or task.goal_cond is not None or task.goal_neg or any(g < 0 for g in task.goal_pos)
                or any(a.__class__ is not GroundAction for a in task.actions)
                or any(not (isinstance(a.cost, int | float | Fraction) and a.cost >= 0) for a in task.actions)):
            return None
        return cls(task)

    def __call__(self, state: State) -> float:
        if self.accelerated:
            value = _relaxed.lmcut(*self._arrays, state)
            return INF if value < 0 else value  # type: ignore[no-any-return]
        return self.python_value(state)

    def python_value(self, state: Iterable[int]) -> Any:
        """The value computed in Python (the C loop's reference, step for step)."""
        n_atoms = self.goal + 1
        truth, goal = self.truth, self.goal
        pre, add, by_pre, by_add = self.pre, self.add, self.by_pre, self.by_add
        cost = self.cost[:]
        n_ops = len(cost)
        init = [*dict.fromkeys(state), truth]
        pop, push = heapq.heappop, heapq.heappush
        # h_max with supporters (the precondition settled last) and their values
        hm: list[Any] = [INF] * n_atoms
        sup = [-1] * n_ops
        supc: list[Any] = [0] * n_ops
        unsat = self.npre[:]
        for a in init:
            hm[a] = 0
        heap = [(0, a) for a in init]
        heapq.heapify(heap)
        while heap:
            v, a = pop(heap)
            if v > hm[a]:
                continue
            for o in by_pre[a]:
                left = unsat[o] - 1
                unsat[o] = left
                if left:
                    continue
                sup[o] = a
                supc[o] = v
                nv = v + cost[o]
                for q in add[o]:
                    if nv < hm[q]:
                        hm[q] = nv
                        push(heap, (nv, q))
        total: Any = 0
        stamp = [0] * n_ops
        for round_ in itertools.count(1):
            if hm[goal] == INF:
                return INF
            if hm[goal] == 0:
                return total
            status = bytearray(n_atoms)  # 1: in the goal zone, 2: reached from the state outside it
            status[goal] = 1
            stack = [goal]
            while stack:
                q = stack.pop()
                for o in by_add[q]:
                    s = sup[o]
                    if cost[o] == 0 and s >= 0 and status[s] != 1:
                        status[s] = 1
                        stack.append(s)
            for a in init:
                status[a] = 2
            stack = init[:]
            cut: list[int] = []
            while stack:
                p = stack.pop()
                for o in by_pre[p]:
                    if sup[o] != p or stamp[o] == round_:
                        continue
                    stamp[o] = round_  # met once, even when listed twice under p
                    entering = False
                    for q in add[o]:
                        if status[q] == 1:
                            entering = True
                        elif not status[q]:
                            status[q] = 2
                            stack.append(q)
                    if entering:
                        cut.append(o)
            if not cut:  # cannot happen for a finite positive h_max; stays admissible regardless
                return total
            m = min(cost[o] for o in cut)
            if not m > 0:  # likewise impossible: a cut operator has a positive cost
                return total
            total += m
            # h_max again, incrementally: only the cut operators got cheaper (as Fast Downward's LM-cut does)
            heap = []
            for o in cut:
                cost[o] -= m
                c = supc[o] + cost[o]
                for q in add[o]:
                    if c < hm[q]:
                        hm[q] = c
                        push(heap, (c, q))
            while heap:
                v, a = pop(heap)
                if v > hm[a]:
                    continue
                for o in by_pre[a]:
                    if sup[o] != a or supc[o] <= v:
                        continue
                    best, bv = -1, -1  # the first precondition of the largest value
                    for p in pre[o]:
                        if hm[p] > bv:
                            best, bv = p, hm[p]
                    sup[o] = best
                    old = supc[o]
                    supc[o] = bv
                    if bv == old:
                        continue
                    c = bv + cost[o]
                    for q in add[o]:
                        if c < hm[q]:
                            hm[q] = c
                            push(heap, (c, q))
        raise AssertionError("unreachable")  # pragma: no cover - the loop above returns
