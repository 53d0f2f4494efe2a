"""Dead ends: states from which no plan exists, and proofs of it.

Two proofs, never a guess:

* **relaxed**: some goal atom cannot be reached from the state even when
  delete effects are ignored (one relaxed exploration, cheap at any size):
  ``DEAD_END``, "dead end (proved)", with the goal atoms that cannot be
  reached;
* **exhaustive**: a breadth-first search from the state visits every state
  reachable from it within a node budget and none satisfies the goal:
  ``NO_PLAN``, "no plan from here (proved)".

When the search finds a goal state the verdict is ``PLAN_EXISTS`` (with the
length of a shortest plan from the state); when the budget runs out first it
is ``UNKNOWN``.
"""

from __future__ import annotations

from collections import deque

from .errors import NumericError
from .heuristics import INF, relaxed_task
from .task import GroundAction, State, StepSpace, Task
from .usercache import dataclass

__all__ = ["DEAD_END", "NO_PLAN", "PLAN_EXISTS", "UNKNOWN", "DeadEndVerdict", "breadth_first_search", "dead_end"]

DEAD_END = "dead end (proved)"
NO_PLAN = "no plan from here (proved)"
PLAN_EXISTS = "a plan exists from here"
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class DeadEndVerdict:
    """``status`` is one of :data:`DEAD_END`, :data:`NO_PLAN`,
    :data:`PLAN_EXISTS`, :data:`UNKNOWN`; ``unreachable_goals`` the goal atom
    ids the relaxation cannot reach (``-1``: never reachable at all);
    ``states`` the states the search visited (0 when it did not run);
    ``plan_length`` a shortest plan's length when one was found."""

    status: str
    unreachable_goals: tuple[int, ...] = ()
    states: int = 0
    plan_length: int | None = None

    @property
    def proved_dead(self) -> bool:
        return self.status in (DEAD_END, NO_PLAN)


def relaxed_unreachable(task: Task, state: State) -> tuple[int, ...]:
    """The goal atoms that no sequence of actions can make true from ``state``
    (a full relaxed exploration, no early stop)."""
    rt = relaxed_task(task)
    if rt.missing_goals:
        return rt.missing_goals
    cost, _ = rt.explore_arrays(state, False)
    return tuple(g for g in rt.goals if cost[g] == INF)


def breadth_first_search(
    task: StepSpace, start: State, max_states: int
) -> tuple[list[GroundAction] | None, int, bool]:
    """Breadth-first search from ``start`` (unit costs): a shortest plan or
    ``None``, the number of distinct states reached, and whether every
    reachable state was visited (then ``None`` proves there is no plan)."""
    parent: dict[State, tuple[State, GroundAction] | None] = {start: None}
    queue: deque[State] = deque([start])
    goal: State | None = start if task.is_goal(start) else None
    while queue and goal is None:
        state = queue.popleft()
        for action in task.applicable(state):
            try:
                succ = action.apply(state)
            except NumericError:  # a numeric effect that cannot be executed: no successor
                continue
            if succ in parent:
                continue
            parent[succ] = (state, action)
            if task.is_goal(succ):
                goal = succ
                break
            if len(parent) >= max_states:
                return None, len(parent), False
            queue.append(succ)
    if goal is None:
        return None, len(parent), True
    steps: list[GroundAction] = []
    node = parent[goal]
    while node is not None:
        prev, action = node
        steps.append(action)
        node = parent[prev]
    return steps[::-1], len(parent), False


def dead_end(task: StepSpace, state: State, max_states: int = 0) -> DeadEndVerdict:
    """The verdict on ``state``: the relaxed proof first (on a grounded
    :class:`Task` only), then (with ``max_states > 0``) a breadth-first
    search of at most that many states (on either backend)."""
    unreachable = relaxed_unreachable(task, state) if isinstance(task, Task) else ()
    if unreachable or task.lifted.goal_static_false:
        return DeadEndVerdict(DEAD_END, unreachable)
    if max_states <= 0:
        return DeadEndVerdict(UNKNOWN)
    plan, states, exhausted = breadth_first_search(task, state, max_states)
    if plan is not None:
        return DeadEndVerdict(PLAN_EXISTS, (), states, len(plan))
    return DeadEndVerdict(NO_PLAN if exhausted else UNKNOWN, (), states)
