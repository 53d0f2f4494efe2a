"""Token-frugal views of states, actions, feedback and failures for tool results."""


import math
from collections.abc import Iterable
from typing import Any

from ..errors import ErrorCode
from ..session import Failure, Feedback, FeedbackLevel
from ..task import State, natural_key
from . import models as m
from .errors import ToolFailure
from .store import ServerOptions, SessionEntry

# ----------------------------------------------------------------------------- rendering



def number_or_none(value: float | None) -> int | float | None:
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else round(value, 3)


class View:
    """Renders one session's atoms, states and feedback for replies."""

    def __init__(self, entry: SessionEntry, options: ServerOptions) -> None:
        self.entry = entry
        self.session = entry.session
        self.task = entry.session.task
        self.options = options
        self.plain = entry.rendering == "plain"

    def atoms(self, ids: Iterable[int]) -> m.StateAtoms:
        task = self.task
        if self.plain:
            return sorted(task.render_atom(i) for i in ids)
        lifted = task.lifted
        groups: dict[str, list[str]] = {}
        for i in ids:
            key = task.atoms[i]
            args = " ".join(lifted.object_display[o] for o in key[1:])
            groups.setdefault(lifted.predicate_display[key[0]], []).append(args)
        return {name: sorted(groups[name], key=natural_key) for name in sorted(groups)}

    def state_ids(self, state: State, include_static: bool | None) -> State:
        static = self.plain if include_static is None else include_static
        return state if static else state - self.task.static_atoms

    def state(self, include_static: bool | None = None) -> m.StateAtoms:
        return self.atoms(self.state_ids(self.session.state, include_static))

    def maybe_state(self, include_state: bool | None) -> m.StateAtoms | None:
        wanted = self.plain if include_state is None else include_state
        return self.state() if wanted else None

    def goal_list(self, goals: Iterable[str]) -> tuple[list[str] | None, int | None]:
        ordered = sorted(goals, key=natural_key)
        limit = len(ordered) if self.plain else self.options.goal_list_limit
        shown, more = ordered[:limit], len(ordered) - limit
        return (shown or None), (more if more > 0 else None)

    def feedback(
        self,
        fb: Feedback | None,
        *,
        added: Iterable[str] = (),
        deleted: Iterable[str] = (),
    ) -> m.FeedbackView | None:
        """The compact form of the engine's feedback (``None`` at level plain)."""
        if fb is None or fb.goals is None:
            return None
        goals = fb.goals
        unsatisfied, more = self.goal_list(goals.unsatisfied)
        achieved = [a for a in added if a in self.entry.goal_pos]
        achieved += [f"(not {d})" for d in deleted if f"(not {d})" in self.entry.goal_neg]
        undone = [d for d in deleted if d in self.entry.goal_pos]
        undone += [f"(not {a})" for a in added if f"(not {a})" in self.entry.goal_neg]
        level = self.session.feedback_level
        heuristic = level >= FeedbackLevel.HEURISTIC
        return m.FeedbackView(
            goals_satisfied=len(goals.satisfied),
            goals_total=goals.total,
            unsatisfied_goals=unsatisfied,
            more_unsatisfied=more,
            goals_achieved=sorted(achieved, key=natural_key) or None,
            goals_undone=sorted(undone, key=natural_key) or None,
            h_ff=number_or_none(fb.distance) if heuristic else None,
            h_ff_change=number_or_none(fb.distance_change),
            dead_end=True if fb.dead_end else None,
            unreachable_goals=sorted(fb.unreachable_goals, key=natural_key) or None,
            revisited_step=fb.revisited_step,
            notes=list(fb.notes) or None,
        )

    def current_feedback(self) -> m.FeedbackView | None:
        """Feedback on the current state without a step (initialise, queries)."""
        session = self.session
        level = session.feedback_level
        if level < FeedbackLevel.PROGRESS:
            return None
        distance, dead = None, False
        unreachable: tuple[str, ...] = ()
        notes: tuple[str, ...] = ()
        if level >= FeedbackLevel.HEURISTIC:
            ra = session.analysis()
            distance, dead = ra.h_ff, ra.dead_end
            unreachable = tuple(
                self.task.render_atom(g) if g >= 0 else "(unreachable goal atom)" for g in ra.unreachable_goals
            )
            if dead:
                notes = ("dead end: the goal can no longer be reached from this state; reset or undo",)
        return self.feedback(Feedback(session.goal_status(), distance, None, dead, unreachable, None, notes))

    def failure(self, failure: Failure) -> m.FailureView:
        return m.FailureView(
            code=failure.code,
            message=failure.message,
            unsatisfied=list(failure.unsatisfied) or None,
            hints=list(failure.hints) or None,
            suggestions=list(failure.suggestions) or None,
        )

    def diff(self, before: State, after: State) -> tuple[list[str] | None, list[str] | None]:
        render = self.task.render_atom
        added = sorted((render(a) for a in after - before), key=natural_key)
        deleted = sorted((render(d) for d in before - after), key=natural_key)
        return added or None, deleted or None


def reference_failure(failure: Failure, lifted: Any) -> ToolFailure:
    """A tool error for an action text that names no action of the task."""
    hint = failure.hints[0] if failure.hints else None
    if failure.suggestions and "did you mean" not in failure.message:
        hint = "did you mean " + " or ".join(f"'{s}'" for s in failure.suggestions[:3]) + "?"
    if failure.code == ErrorCode.UNKNOWN_OBJECT:
        names = sorted(lifted.object_display, key=natural_key)
        shown = ", ".join(names[:15]) + (" ..." if len(names) > 15 else "")
        hint = f"the objects are: {shown}"
    details = {"suggestions": list(failure.suggestions)} if failure.suggestions else None
    return ToolFailure(failure.code, failure.message, hint, details=details)


