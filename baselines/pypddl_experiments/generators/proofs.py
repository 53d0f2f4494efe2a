"""Proofs about generated tasks: unsolvability, and shortest plans of small ones.

Two kinds of proof that a task has no plan:

* **relaxed reachability**: some goal atom cannot be reached even when
  delete effects are ignored (the engine's grounding and
  :func:`pypddlengine.feedback.analyse` compute this); cheap at any size;
* **exhaustive search**: a breadth-first search visits every state reachable
  from the initial state and none satisfies the goal; small tasks only.

The same breadth-first search gives the length of a shortest plan of a small
solvable task (used for the known optimal lengths of the bundled ladder).
Everything works on PDDL text, so generators stay free of file I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypddlengine.deadends import breadth_first_search
from pypddlengine.feedback import analyse
from pypddlengine.grounding import ground
from pypddlengine.lifted import compile_task
from pypddlengine.syntax import parse_domain, parse_problem
from pypddlengine.task import Task

__all__ = ["BFSResult", "Proof", "breadth_first", "ground_text", "prove_unsolvable"]

DEFAULT_MAX_STATES = 500_000


@dataclass(frozen=True)
class Proof:
    """Why a task has no plan. ``method`` is ``relaxed-reachability`` or
    ``exhaustive-search``; ``states`` the number of reachable states visited
    (exhaustive search only)."""

    method: str
    detail: str
    states: int | None = None

    def comment(self) -> str:
        return f"proved unsolvable by {self.method}: {self.detail}"


@dataclass(frozen=True)
class BFSResult:
    """``plan`` is a shortest plan (action strings) or ``None``; ``states``
    counts the distinct states reached; ``exhausted`` is true when every
    reachable state was visited (so ``plan is None`` proves unsolvability)."""

    plan: list[str] | None
    states: int
    exhausted: bool


def ground_text(domain_text: str, problem_text: str) -> Task:
    """Parse, check and ground a task given as PDDL text."""
    lifted = compile_task(
        parse_domain(domain_text, filename="<domain>"), parse_problem(problem_text, filename="<problem>")
    )
    return ground(lifted)


def breadth_first(task: Task, max_states: int = DEFAULT_MAX_STATES) -> BFSResult:
    """Breadth-first search from the initial state (unit costs), stopping at
    the first goal state or after ``max_states`` distinct states."""
    plan, states, exhausted = breadth_first_search(task, task.init, max_states)
    steps = None if plan is None else [task.render_action(a) for a in plan]
    return BFSResult(steps, states, exhausted)


def prove_unsolvable(
    domain_text: str, problem_text: str, *, max_states: int = DEFAULT_MAX_STATES
) -> Proof | None:
    """A proof that the task has no plan, or ``None`` when neither method
    gives one (the task is solvable, or too large to search exhaustively)."""
    task = ground_text(domain_text, problem_text)
    lifted = task.lifted
    if lifted.goal_static_false:
        return Proof("relaxed-reachability", "the goal contains a static fact that is false")
    if task.unreachable_goals:
        atoms = ", ".join(lifted.render_key(k) for k in task.unreachable_goals)
        return Proof("relaxed-reachability", f"goal atom(s) {atoms} unreachable even ignoring delete effects")
    relaxed = analyse(task, task.init)
    if relaxed.dead_end:
        atoms = ", ".join(task.render_atom(a) for a in relaxed.unreachable_goals)
        return Proof("relaxed-reachability", f"goal atom(s) {atoms} unreachable even ignoring delete effects")
    result = breadth_first(task, max_states)
    if result.exhausted and result.plan is None:
        return Proof(
            "exhaustive-search", f"all {result.states} reachable states visited, none satisfies the goal", result.states
        )
    return None
