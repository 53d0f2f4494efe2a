"""A numeric relaxation for the ``heuristic`` feedback level: h_add and h_max
with repetitions over linear numeric conditions.

The relaxation follows the subgoaling heuristics of Scala, Haslum, Thiébaux
and Ramírez ("Heuristics for Numeric Planning via Subgoaling", IJCAI 2016;
"Subgoaling Techniques for Satisficing and Optimal Numeric Planning", JAIR
68, 2020), which extend Bonet and Geffner's h_add/h_max to numeric
conditions, in the spirit of Hoffmann's Metric-FF (JAIR 20, 2003): delete
effects are ignored, and a numeric condition that does not hold is reached
by repeating one action that moves it the right way. Written here from those
papers, not from their code:

* every comparison is brought to the linear form ``sum(w_i * x_i) + k >= 0``
  (or ``> 0``); ``=`` gives two conditions, ``<=`` and ``<`` turn around;
  static terms were folded into the constants when the task was grounded;
* an action's numeric effects contribute ``sum(w_i * delta_i)`` to a
  condition when they increase or decrease its fluents by constants; an
  action that assigns or scales one of its fluents, or changes it by an
  amount that depends on the state, is taken to reach the condition in one
  application (optimistic);
* the cost of a condition ``c`` that does not hold in the state is the
  cheapest ``cost(pre(a)) + n * cost(a)`` over the actions ``a`` that
  contribute ``d > 0`` to it, with ``n`` the number of repetitions that
  cover the condition's deficit (``ceil(deficit / d)``; one more when the
  comparison is strict and ``d`` divides the deficit); atoms cost as in
  h_add/h_max; ``cost(pre(a))`` sums (h_add) or maximises (h_max) over the
  atoms and conditions of the action's precondition; the goal likewise.

Conditions that are not linear, negated equalities and disjunctions are
left out of preconditions (optimistic); a non-linear goal condition counts
as reached by any action that changes one of its fluents. The result is a
relaxation: when some goal cannot be reached in it (``INF``), no plan
reaches it either: every action that could move a failing condition towards
holding, or set it outright, is an achiever of it, so the dead end is
proved. Actions cost 1 (a numeric task's quality is its metric).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

from .exact import Value, to_float
from .numeric import linear
from .step import NUMERIC, Formula, GroundAction, NumericTest, NumericUpdate, State
from .task import Task

__all__ = ["INF", "NumericEvaluation", "NumericRelaxation", "numeric_relaxation"]

INF = math.inf

# a linear condition: (coefficients by fluent id, constant, strict): sum + constant >= 0 (> 0 when strict)
Linear = tuple[tuple[tuple[int, Value], ...], Value, bool]


@dataclass(frozen=True, slots=True)
class NumericEvaluation:
    """One state's values: ``h_add`` and ``h_max`` (``INF`` when a goal
    cannot be reached even in the relaxation: a proof), the goals that
    cannot (as text), and ``goal_count``: goal atoms and goal comparisons
    that do not hold."""

    h_add: float
    h_max: float
    goal_count: int
    unreachable: tuple[str, ...]

    @property
    def dead_end(self) -> bool:
        return bool(self.unreachable)


class _Op:
    __slots__ = ("action", "add", "conds", "cost", "effects", "pre")

    def __init__(self, pre: list[int], conds: list[int], add: tuple[int, ...], effects: dict[int, Any],
                 cost: float, action: GroundAction | None) -> None:
        self.pre, self.conds, self.add, self.effects, self.cost, self.action = pre, conds, add, effects, cost, action


class NumericRelaxation:
    """The relaxation of one grounded numeric task (built once, then
    :meth:`evaluate` per state)."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.cond_index: dict[Linear, int] = {}
        self.conds: list[Linear | None] = []  # None: a non-linear condition, kept as its test
        self.tests: list[NumericTest | None] = []
        self.cond_text: list[str] = []
        self.ops: list[_Op] = []
        for action in task.actions:
            pre, conds = self._conjuncts(action.cond, list(action.pre))  # type: ignore[attr-defined]
            self._op(pre, conds, action.add, getattr(action, "numeric", ()), action)
            for e in getattr(action, "effects", ()):
                epre, econds = self._conjuncts(e.cond, list(pre))
                self._op(epre, [*conds, *econds], e.add, e.numeric, action)
        general = task.general
        if general is not None:
            for stratum in general.strata:
                for ax in stratum:
                    apre, aconds = self._conjuncts(ax.cond, list(ax.pre))
                    self.ops.append(_Op(apre, aconds, (ax.head,), {}, 0.0, None))
        goal_atoms = [g for g in task.goal_pos]
        self.goal_atoms, self.goal_conds = self._conjuncts(task.goal_cond, goal_atoms, goal=True)
        # Conditions with the same coefficients form a group (satellite's "(>= (fuel s) (slew_time a b))" for
        # every a, b is one group per satellite): an op's contribution is the same for the whole group. For each
        # op, the groups it may help and by how much (None: in one application).
        groups: dict[object, int] = {}
        self.group_of: list[int] = []
        self.members: list[list[int]] = []
        for c, lin in enumerate(self.conds):
            key = lin[0] if lin is not None else ("test", c)
            g = groups.get(key)
            if g is None:
                g = groups[key] = len(self.members)
                self.members.append([])
            self.members[g].append(c)
            self.group_of.append(g)
        by_fluent: dict[int, list[int]] = {}
        for g, members in enumerate(self.members):
            lin = self.conds[members[0]]
            fluents = [i for i, _ in lin[0]] if lin is not None else sorted(_fluents_of(self.tests[members[0]]))
            for i in fluents:
                by_fluent.setdefault(i, []).append(g)
        self.helpers: list[list[tuple[int, Fraction | None]]] = [[] for _ in self.members]
        """For each group, the ops that may help it and by how much (None: in one application)."""
        for k, op in enumerate(self.ops):
            touched = {g for i in op.effects for g in by_fluent.get(i, ())}
            for g in sorted(touched):
                lin = self.conds[self.members[g][0]]
                if lin is None or any(op.effects[i] is None for i, _ in lin[0] if i in op.effects):
                    self.helpers[g].append((k, None))
                    continue
                d = sum((w * op.effects[i] for i, w in lin[0] if i in op.effects), Fraction(0))
                if d > 0:
                    self.helpers[g].append((k, d))
        self.needs: dict[tuple[str, int], list[int]] = {}
        for k, op in enumerate(self.ops):
            for a in set(op.pre):
                self.needs.setdefault(("a", a), []).append(k)
            for c in set(op.conds):
                self.needs.setdefault(("c", c), []).append(k)

    # ------------------------------------------------------------------ building

    def _op(self, pre: list[int], conds: list[int], add: tuple[int, ...], updates: Any,
            action: GroundAction) -> None:
        effects: dict[int, Any] = {}
        for u in updates:
            if not isinstance(u, NumericUpdate):
                continue  # an effect on a term that never has a value: it only fails
            form = linear(u.value)
            constant = form is not None and not form[0]
            if u.op in ("increase", "decrease") and constant and effects.get(u.target, 0) is not None:
                delta = form[1] if u.op == "increase" else -form[1]  # type: ignore[index]
                effects[u.target] = effects.get(u.target, 0) + delta
            else:
                effects[u.target] = None  # assigned, scaled or changed by a state-dependent amount
        if add or effects:
            self.ops.append(_Op(pre, conds, tuple(add), effects, 1.0, action))

    def _conjuncts(self, f: Formula | None, atoms: list[int], goal: bool = False) -> tuple[list[int], list[int]]:
        """The atoms and numeric conditions of the top-level conjunction of ``f``
        (what the relaxation keeps of it; see the module docstring)."""
        conds: list[int] = []
        if f is None:
            return atoms, conds
        stack = [f]
        while stack:
            g = stack.pop()
            if g.__class__ is int:
                if g >= 0:  # type: ignore[operator]
                    atoms.append(g)  # type: ignore[arg-type]
                continue
            kind, parts = g  # type: ignore[misc]
            if kind == 0:
                stack.extend(parts)
            elif kind == NUMERIC:
                conds.extend(self._condition(parts, goal))
        return atoms, conds

    def _condition(self, test: NumericTest, goal: bool) -> list[int]:
        if test.negated:
            return []
        left, right = linear(test.left), linear(test.right)
        if left is None or right is None:
            if not goal:
                return []  # a non-linear precondition: left out (optimistic)
            return [self._add(None, test)]
        coef: dict[int, Value] = dict(left[0])
        for i, w in right[0].items():
            coef[i] = coef.get(i, 0) - w
        const = left[1] - right[1]
        out = []
        if test.op in (">=", ">", "="):
            out.append(self._add((tuple(sorted(coef.items())), const, test.op == ">"), test))
        if test.op in ("<=", "<", "="):
            neg = tuple(sorted((i, -w) for i, w in coef.items()))
            out.append(self._add((neg, -const, test.op == "<"), test))
        return out

    def _add(self, lin: Linear | None, test: NumericTest) -> int:
        key: Any = lin if lin is not None else ("test", id(test))
        c = self.cond_index.get(key)
        if c is None:
            c = self.cond_index[key] = len(self.conds)
            self.conds.append(lin)
            self.tests.append(test)
            lifted = self.task.lifted
            self.cond_text.append(lifted.render_condition(test.cond, test.binding))
        return c

    # ------------------------------------------------------------------ evaluation

    def _status(self, c: int, values: tuple[Value | None, ...]) -> tuple[bool, Fraction | None]:
        """Whether condition ``c`` holds, and its deficit (``None``: unknown)."""
        lin = self.conds[c]
        if lin is None:
            return bool(self.tests[c](values)), None  # type: ignore[misc]
        total: Value = lin[1]
        for i, w in lin[0]:
            v = values[i]
            if v is None:
                return False, None
            total = total + w * v
        holds = total > 0 if lin[2] else total >= 0
        return holds, None if holds else Fraction(-total)

    def evaluate(self, state: State, mode: str = "both") -> NumericEvaluation:
        """The state's values; ``mode`` ``"add"`` or ``"max"`` computes only
        that one (the other is then ``nan``), ``"both"`` both."""
        values: tuple[Value | None, ...] = state.values  # type: ignore[attr-defined]
        status = [self._status(c, values) for c in range(len(self.conds))]
        goal_count = sum(1 for g in self.goal_atoms if g < 0 or g not in state)
        goal_count += sum(1 for c in self.goal_conds if not status[c][0])
        h_add = self._explore(state, status, sum) if mode != "max" else None
        h_max: tuple[float, tuple[str, ...]] | None
        if h_add is not None and h_add[0] == INF:
            h_max = h_add  # the same goals are unreachable in both
        else:
            h_max = self._explore(state, status, max) if mode != "add" else None
        found = h_add if h_add is not None else h_max
        return NumericEvaluation(math.nan if h_add is None else h_add[0], math.nan if h_max is None else h_max[0],
                                 goal_count, found[1])  # type: ignore[index]

    def _explore(self, state: State, status: list[tuple[bool, Fraction | None]], combine: Any
                 ) -> tuple[float, tuple[str, ...]]:
        """Generalised Dijkstra over atoms and conditions (``combine`` sums
        for h_add, maximises for h_max); the goal's value and the goals it
        cannot reach."""
        atom_cost: dict[int, float] = dict.fromkeys(state, 0.0)
        cond_cost = [0.0 if ok else INF for ok, _ in status]
        failing: list[list[int]] = [[c for c in members if not status[c][0]] for members in self.members]
        helps: dict[int, list[tuple[int, Fraction | None]]] = {}  # op -> the failing groups it may help
        for g, members in enumerate(failing):
            if members:
                for k, d in self.helpers[g]:
                    helps.setdefault(k, []).append((g, d))
        left = [len(set(op.pre)) + len(set(op.conds)) for op in self.ops]
        pre_costs: list[list[float]] = [[] for _ in self.ops]
        heap: list[tuple[float, int, str, int]] = []
        tick = 0
        for a in state:
            heap.append((0.0, tick, "a", a))
            tick += 1
        for c, (ok, _) in enumerate(status):
            if ok:
                heap.append((0.0, tick, "c", c))
                tick += 1
        heapq.heapify(heap)
        settled: set[tuple[str, int]] = set()

        def fire(k: int) -> None:
            nonlocal tick
            op = self.ops[k]
            base = combine(pre_costs[k]) if pre_costs[k] else 0.0
            cost = base + op.cost
            for a in op.add:
                if cost < atom_cost.get(a, INF):
                    atom_cost[a] = cost
                    heapq.heappush(heap, (cost, tick, "a", a))
                    tick += 1
            for g, d in helps.get(k, ()):
                for c in failing[g]:
                    deficit = status[c][1]
                    reps = 1
                    if d is not None and deficit is not None:
                        reps = max(1, math.ceil(deficit / d))
                        # strict: one more (a condition with a deficit is linear)
                        if cast(Linear, self.conds[c])[2] and deficit == reps * d:
                            reps += 1
                    value = base + reps * op.cost
                    if value < cond_cost[c]:
                        cond_cost[c] = value
                        heapq.heappush(heap, (value, tick, "c", c))
                        tick += 1

        for k in range(len(self.ops)):
            if left[k] == 0:
                fire(k)
        wanted = {("a", g) for g in self.goal_atoms if g >= 0} | {("c", c) for c in self.goal_conds}
        while heap and wanted:  # stop once every goal is settled: their costs are final
            cost, _, kind, node = heapq.heappop(heap)
            key = (kind, node)
            if key in settled:
                continue
            settled.add(key)
            wanted.discard(key)
            for k in self.needs.get(key, ()):
                left[k] -= 1
                pre_costs[k].append(cost)
                if left[k] == 0:
                    fire(k)
        costs = [atom_cost.get(g, INF) if g >= 0 else INF for g in self.goal_atoms]
        costs += [cond_cost[c] for c in self.goal_conds]
        missing = [self.task.render_atom(g) if g >= 0 else "a goal atom no action can add"
                   for g in self.goal_atoms if (atom_cost.get(g, INF) if g >= 0 else INF) == INF]
        missing += [self.cond_text[c] for c in self.goal_conds if cond_cost[c] == INF]
        if missing:
            return INF, tuple(dict.fromkeys(missing))
        return (to_float(combine(costs)) if costs else 0.0), ()


def _fluents_of(test: NumericTest | None) -> set[int]:
    from .numeric import fluent_ids

    if test is None:
        return set()
    return fluent_ids(test.left) | fluent_ids(test.right)


def numeric_relaxation(task: Task) -> NumericRelaxation:
    """The task's relaxation, built on first use and kept with the task."""
    cached = getattr(task, "_numeric_relaxation", None)
    if cached is None:
        cached = NumericRelaxation(task)
        task._numeric_relaxation = cached  # type: ignore[attr-defined]
    return cached
