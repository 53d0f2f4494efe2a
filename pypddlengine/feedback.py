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
usual. Costs are exact numbers; ``None`` stands for "unreachable".
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

    Dijkstra over atoms with the usual counter per action; it stops as soon
    as every goal atom is settled, so states near the goal are cheap."""
    goals = [g for g in task.goal_pos]
    if any(g < 0 for g in goals):  # a goal atom the grounding never reached
        missing = tuple(g for g in goals if g < 0)
        return RelaxedAnalysis(None, None, (), missing)
    pre_index = task.precondition_index()
    cost: dict[int, float] = {}
    supporter: dict[int, GroundAction | None] = {}
    heap: list[tuple[float, int]] = []
    for a in state:
        cost[a] = 0.0
        supporter[a] = None
        heap.append((0.0, a))
    heapq.heapify(heap)
    remaining: dict[int, int] = {}
    acc: dict[int, float] = {}
    pending_goals = {g for g in goals if g not in state}

    def fire(action: GroundAction, base: float) -> None:
        c = base + action.cost
        for e in action.add:
            old = cost.get(e)
            if old is None or c < old:
                cost[e] = c
                supporter[e] = action
                heapq.heappush(heap, (c, e))

    for action in task.unconditioned:  # no fluent preconditions: free in the relaxation
        fire(action, 0.0)
    settled: set[int] = set()
    while heap and pending_goals:
        c, atom = heapq.heappop(heap)
        if atom in settled or c > cost.get(atom, c):
            continue
        settled.add(atom)
        pending_goals.discard(atom)
        for action in pre_index.get(atom, ()):
            aid = action.id
            left = remaining.get(aid)
            if left is None:
                left = len(set(action.pre))
            left -= 1
            remaining[aid] = left
            total = acc.get(aid, 0.0) + c
            acc[aid] = total
            if left == 0:
                fire(action, total)
    unreachable = tuple(g for g in goals if g not in cost)
    if unreachable:
        return RelaxedAnalysis(None, None, (), unreachable)
    h_add = float(sum(cost[g] for g in goals))
    plan: dict[int, GroundAction] = {}
    stack = [g for g in goals if supporter.get(g) is not None]
    seen: set[int] = set()
    while stack:
        atom = stack.pop()
        if atom in seen:
            continue
        seen.add(atom)
        action = supporter.get(atom)
        if action is None or action.id in plan:
            continue
        plan[action.id] = action
        stack.extend(p for p in action.pre if supporter.get(p) is not None)
    ordered = tuple(sorted(plan.values(), key=lambda a: (max((cost[p] for p in a.pre), default=0.0), a.id)))
    return RelaxedAnalysis(h_add, float(sum(a.cost for a in ordered)), ordered, ())
