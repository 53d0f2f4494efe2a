"""Externally grounded feedback: relaxed-planning heuristics and dead ends.

The paper this project starts from concludes that step feedback which only
says "applicable" leaves an agent to judge its own progress. This module
computes signals the environment can vouch for:

* ``h_add`` and ``h_FF`` of a state (Bonet & Geffner's additive heuristic and
  Hoffmann & Nebel's relaxed-plan heuristic, computed with best supporters
  from ``h_add``), counted in action costs (steps in unit-cost tasks);
* goal atoms that are unreachable even when delete effects are ignored: a
  proof that the state is a dead end (no plan from it exists).

Negative preconditions and negative goals are ignored by the relaxation, as
usual (in ADL tasks, negative literals inside formulas and negated derived
atoms too; see :meth:`pypddlengine.task.Task.relaxed_operators`): a dead end
reported is a real dead end. Costs are exact numbers; ``None`` stands for
"unreachable".
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from .task import GroundAction, State, Task

__all__ = ["RelaxedAnalysis", "analyse"]


@dataclass(frozen=True, slots=True)
class RelaxedAnalysis:
    """Relaxed-planning facts about one state.

    ``h_ff`` is the cost of a relaxed plan (``None`` when the goal is
    unreachable in the relaxation, i.e. the state is a proven dead end);
    ``relaxed_plan`` lists its actions; ``unreachable_goals`` the goal atom
    ids that no sequence of actions can make true from this state."""

    h_add: float | None
    h_ff: float | None
    relaxed_plan: tuple[GroundAction, ...]
    unreachable_goals: tuple[int, ...]

    @property
    def dead_end(self) -> bool:
        return bool(self.unreachable_goals)


def analyse(task: Task, state: State) -> RelaxedAnalysis:
    """Compute ``h_add``, ``h_FF`` and unreachable goals for ``state``.

    Dijkstra over atoms with the usual counter per operator of
    :meth:`Task.relaxed_operators` (one per STRIPS action; conditional
    effects, axioms and compound goals add their own, see there); it stops
    as soon as every goal atom is settled, so states near the goal are cheap.
    ``h_FF`` counts each action of the relaxed plan once."""
    goals = list(task.goal_atoms)
    if any(g < 0 for g in goals):  # a goal atom the grounding never reached
        missing = tuple(g for g in goals if g < 0)
        return RelaxedAnalysis(None, None, (), missing)
    ops = task.relaxed_operators()
    pre_index, free = task.relaxed_index()
    cost: dict[int, float] = {}
    supporter: dict[int, int] = {}
    heap: list[tuple[float, int]] = []
    for a in task.relaxed_facts(state):
        cost[a] = 0.0
        heap.append((0.0, a))
    heapq.heapify(heap)
    remaining: dict[int, int] = {}
    acc: dict[int, float] = {}
    pending_goals = {g for g in goals if g not in state}

    def fire(i: int, base: float) -> None:
        op = ops[i]
        c = base + op.cost
        for e in op.add:
            old = cost.get(e)
            if old is None or c < old:
                cost[e] = c
                supporter[e] = i
                heapq.heappush(heap, (c, e))

    for i in free:  # no fluent preconditions: free in the relaxation
        fire(i, 0.0)
    settled: set[int] = set()
    while heap and pending_goals:
        c, atom = heapq.heappop(heap)
        if atom in settled or c > cost.get(atom, c):
            continue
        settled.add(atom)
        pending_goals.discard(atom)
        for i in pre_index.get(atom, ()):
            left = remaining.get(i)
            if left is None:
                left = len(ops[i].pre)
            left -= 1
            remaining[i] = left
            total = acc.get(i, 0.0) + c
            acc[i] = total
            if left == 0:
                fire(i, total)
    unreachable = tuple(g for g in goals if g not in cost)
    if unreachable:
        return RelaxedAnalysis(None, None, (), unreachable)
    h_add = float(sum(cost[g] for g in goals))
    used: dict[int, float] = {}
    actions: dict[int, GroundAction] = {}
    stack = [g for g in goals if g in supporter]
    seen: set[int] = set()
    while stack:
        atom = stack.pop()
        if atom in seen:
            continue
        seen.add(atom)
        i = supporter.get(atom)
        if i is None or i in used:
            continue
        op = ops[i]
        used[i] = max((cost[p] for p in op.pre), default=0.0)
        if op.action is not None:
            actions.setdefault(op.action.id, op.action)
        stack.extend(p for p in op.pre if p in supporter)
    first = {}
    for i, level in used.items():
        action = ops[i].action
        if action is not None:
            first[action.id] = min(first.get(action.id, level), level)
    ordered = tuple(sorted(actions.values(), key=lambda a: (first[a.id], a.id)))
    return RelaxedAnalysis(h_add, float(sum(a.cost for a in ordered)), ordered, ())
