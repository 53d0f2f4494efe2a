"""An incremental h_add / h_max evaluation (tests only): a differential oracle
for :class:`pypddlengine.heuristics.RelaxedTask`'s exploration, which the
engine does from scratch in every state (this does not pay on Blocksworld,
see the module docstring of :mod:`pypddlengine.heuristics`)."""

from __future__ import annotations

import heapq
from typing import Literal

from pypddlengine.heuristics import INF, Evaluation, RelaxedTask
from pypddlengine.task import State

__all__ = ["IncrementalEvaluator"]


class IncrementalEvaluator:
    """``h_add`` or ``h_max`` (and ``h_FF``) of a sequence of states, each
    computed from the previous one's full exploration where that pays.

    The atoms whose cost depended on an atom the step made false (their best
    supporter needs it, transitively) are re-costed from their achievers, and
    the step's new atoms (cost 0) are propagated, both with one priority
    queue: the costs equal a full exploration's exactly. When more than
    ``max_affected`` of the atoms depend on what the step deleted (in
    Blocksworld, every pick-up deletes ``handempty`` that everything needs) it
    explores from scratch instead. Supporters may differ from a fresh
    exploration's among equally cheap ones, so ``h_FF`` may too (it is still
    the cost of a relaxed plan)."""

    def __init__(self, rt: RelaxedTask, mode: Literal["add", "max"] = "add", max_affected: float = 0.2) -> None:
        self.rt = rt
        self.mode = mode
        self.max_affected = max_affected
        self.incremental = 0
        self.from_scratch = 0
        self._state: State | None = None
        self._cost: list[float] = []
        self._sup: list[int] = []

    def evaluate(self, state: State, *, plan: bool = True) -> Evaluation:
        rt = self.rt
        if rt.missing_goals:
            return rt.evaluate(state, self.mode, plan=plan)
        old = self._state
        # beyond STRIPS a step also changes "is false" atoms and derived ones: explore afresh
        if old is None or rt.general or not self._update(old - state, state - old, state):
            self._cost, self._sup = rt.explore(state, self.mode == "add")
            self.from_scratch += 1
        else:
            self.incremental += 1
        self._state = state
        return rt.evaluation(state, self.mode, self._cost, self._sup, plan)

    def _op_cost(self, o: int) -> float:
        cost = self._cost
        total = 0.0
        if self.mode == "add":
            for p in self.rt.pre[o]:
                total += cost[p]
        else:
            for p in self.rt.pre[o]:
                if cost[p] > total:
                    total = cost[p]
        return total + self.rt.cost[o]

    def _update(self, removed: State, added: State, state: State) -> bool:
        rt, cost, sup = self.rt, self._cost, self._sup
        by_pre, add, by_add = rt.by_pre, rt.add, rt.by_add
        limit = self.max_affected * rt.n_atoms
        affected = set(removed)
        stack = list(removed)
        while stack:
            x = stack.pop()
            for o in by_pre[x]:
                for q in add[o]:
                    if sup[q] == o and q not in affected and q not in state:
                        affected.add(q)
                        stack.append(q)
            if len(affected) > limit:
                return False
        for x in affected:
            cost[x] = INF
            sup[x] = -1
        heap: list[tuple[float, int]] = []
        for x in affected:
            for o in by_add[x]:
                c = self._op_cost(o)
                if c < cost[x]:
                    cost[x] = c
                    sup[x] = o
            if sup[x] >= 0:
                heap.append((cost[x], x))
        for a in added:
            cost[a] = 0
            sup[a] = -1
            heap.append((0, a))
        heapq.heapify(heap)
        while heap:
            c, q = heapq.heappop(heap)
            if c > cost[q]:
                continue
            for o in by_pre[q]:
                oc = self._op_cost(o)
                if oc == INF:
                    continue
                for r in add[o]:
                    if oc < cost[r]:
                        cost[r] = oc
                        sup[r] = o
                        heapq.heappush(heap, (oc, r))
        return True
