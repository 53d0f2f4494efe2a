"""Helpers for the generator tests: bundled domain texts, grounding, and an
exhaustive search written independently of ``generators.proofs``."""

from __future__ import annotations

from pypddl_experiments.generators import ground_text
from pypddlengine.bundled import bundled_root
from pypddlengine.task import State, Task


def domain_text(name: str) -> str:
    return (bundled_root("domains") / f"{name}.pddl").read_text()


def ground_problem(domain: str, problem_text: str) -> Task:
    return ground_text(domain_text(domain), problem_text)


def reachable_states(task: Task, limit: int = 2_000_000) -> set[State]:
    """Every state reachable from the initial state (depth-first, checking
    every action by scan rather than through the successor index)."""
    seen = {task.init}
    stack = [task.init]
    while stack:
        state = stack.pop()
        for action in task.applicable_scan(state):
            succ = action.apply(state)
            if succ not in seen:
                seen.add(succ)
                assert len(seen) <= limit, "state space larger than the test allows"
                stack.append(succ)
    return seen


def atom_id(task: Task, text: str) -> int:
    for i in range(len(task.atoms)):
        if task.render_atom(i) == text:
            return i
    raise KeyError(text)


def facts(task: Task, state: State) -> set[str]:
    return {task.render_atom(i) for i in state}
