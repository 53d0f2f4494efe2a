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

from .heuristics import relaxed_task
from .task import GroundAction, State, Task
from .usercache import dataclass

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
    """Compute ``h_add``, ``h_FF`` and unreachable goals for ``state`` (one
    exploration of :class:`pypddlengine.heuristics.RelaxedTask`)."""
    rt = relaxed_task(task)
    ev = rt.evaluate(state, "add")
    if ev.dead_end:
        return RelaxedAnalysis(None, None, (), ev.unreachable_goals)
    return RelaxedAnalysis(ev.h, ev.h_ff, rt.actions(ev.relaxed_plan), ())
