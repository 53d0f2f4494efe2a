"""Token-frugal views of states, actions, feedback and failures for tool results.

Feedback level ``paper`` (:data:`PAPER_FIELDS`) renders exactly the signals the
paper names for its seven operations. The passage followed (§III-A,
"PyPDDLEngine and MCP Interface"):

    initialise_session: loads domain and problem files or strings and resets
    the environment to the initial state. query_current_state: returns the set
    of currently true predicates. query_applicable_actions: returns all ground
    actions valid in the current state. execute_single_action: applies one
    action and advances the state, returning a success flag, the updated
    state, and a goal-reached flag. reset_to_initial_state: restores the
    environment to the problem's initial state. query_action_history: returns
    the sequence of actions executed in the current session.
    validate_complete_plan: checks whether a submitted action sequence
    satisfies all goal conditions.

So at that level a step returns ``success``, ``state`` (the whole state, also
after a failed step, when it is unchanged) and ``goal_reached``, and nothing
else: no reason or unsatisfied preconditions on failure, no did-you-mean (an
action that names no action of the task is simply ``success: false``), no
added/deleted atoms, no ``next`` hints, no counters. A validation says
``valid``, nothing more (no failing step, no goal atoms). The state query
returns the state with static facts, the action query all applicable actions
(paged only beyond the server's largest page), the history the actions. The
initialisation returns the session handle and what was loaded (names, sources,
the level and rendering), not the task summary the richer levels give, since
the model has the PDDL. The tools outside the seven (``explain_action``,
``undo_last_action`` ...) are not the paper's and answer as at ``plain``.
Errors of the call itself (a missing argument, an unknown session, a limit,
PDDL that does not parse) stay tool errors at every level.
"""


import math
from collections.abc import Iterable
from typing import Any, TypeVar

from pydantic import BaseModel

from ..errors import ErrorCode
from ..exact import to_json
from ..numeric import term_text
from ..session import Failure, Feedback, FeedbackLevel, Session
from ..task import State, natural_key
from . import models as m
from .errors import ToolFailure
from .store import ServerOptions, SessionEntry

# ----------------------------------------------------------------------------- rendering

PAPER_FIELDS: dict[type, frozenset[str]] = {
    m.SessionSummary: frozenset({"session_id", "domain", "problem", "sources", "feedback_level", "rendering",
                                 "label"}),
    m.StateView: frozenset({"state", "values", *m.TIME_FIELDS}),  # values, the clock, running actions: the state
    m.ActionsPage: frozenset({"actions", "next_offset", "clock", "starts", "ends"}),
    m.StepOutcome: frozenset({"success", "state", "values", "goal_reached", "clock", "running"}),
    m.ResetOutcome: frozenset({"step"}),
    m.HistoryView: frozenset({"actions", "next_offset"}),
    m.ValidationView: frozenset({"valid"}),
}
"""The fields each of the paper's seven tools returns at feedback level
``paper`` (see the module docstring); other tools are not reduced."""

M = TypeVar("M", bound=BaseModel)


def for_level(level: FeedbackLevel, result: M) -> M:
    """``result`` as the session's feedback level shows it: at ``paper`` only
    the paper's fields of its tool (:data:`PAPER_FIELDS`), else unchanged."""
    keep = PAPER_FIELDS.get(type(result)) if level == FeedbackLevel.PAPER else None
    if keep is None:
        return result
    return type(result).model_validate({k: v for k, v in result.model_dump(exclude_none=True).items() if k in keep})


def number_or_none(value: float | None) -> int | float | None:
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else round(value, 3)


class View:
    """Renders one session's atoms, states and feedback for replies."""

    def __init__(self, entry: SessionEntry, options: ServerOptions) -> None:
        self.entry = entry
        self.options = options
        self.plain = entry.rendering == "plain"
        self.paper = entry.feedback_level == FeedbackLevel.PAPER
        """The paper's level: whole states (static facts included), all actions at once."""

    @property
    def session(self) -> Session:
        return self.entry.classical

    @property
    def task(self) -> Any:
        return self.entry.classical.task

    def atoms(self, ids: Iterable[int]) -> m.StateAtoms:
        task = self.task
        if self.plain:
            return sorted(task.render_atom(i) for i in ids)
        lifted = task.lifted
        groups: dict[str, list[str]] = {}
        derived = lifted.derived_predicates
        for i in ids:
            key = task.atoms[i]
            args = " ".join(lifted.object_display[o] for o in key[1:])
            name = lifted.predicate_display[key[0]]
            groups.setdefault(f"{name} (derived)" if key[0] in derived else name, []).append(args)
        return {name: sorted(groups[name], key=natural_key) for name in sorted(groups)}

    def state_ids(self, state: State, include_static: bool | None) -> State:
        """The atoms of ``state`` to show: the visible ones (partial observability), static ones if asked."""
        static = (self.plain or self.paper) if include_static is None else include_static
        state = self.session.observe(state)
        return state if static else state - self.task.static_atoms

    def state(self, include_static: bool | None = None) -> m.StateAtoms:
        return self.atoms(self.state_ids(self.session.state, include_static))

    def wants_state(self, include_state: bool | None) -> bool:
        """Whether a reply shows the state (``include_state``, by default in
        the plain and paper renderings)."""
        return (self.plain or self.paper) if include_state is None else include_state

    def maybe_state(self, include_state: bool | None) -> m.StateAtoms | None:
        return self.state() if self.wants_state(include_state) else None

    def values(self, state: State, include_static: bool = False) -> m.Values | None:
        """A numeric task's values in ``state`` (exact, see :data:`models.Exact`), ``None`` for other tasks."""
        values = getattr(state, "values", None)
        if values is None:
            return None
        lifted = self.task.lifted
        out = {_term(lifted, i): to_json(v) for i, v in enumerate(values) if v is not None}
        if include_static:
            out.update(static_values(lifted))
        return out

    def values_changed(self, before: State, after: State) -> m.Values | None:
        """The new values of the fluents whose value differs between two states."""
        old, new = getattr(before, "values", None), getattr(after, "values", None)
        if old is None or new is None:
            return None
        lifted = self.task.lifted
        changed = {_term(lifted, i): to_json(v) if v is not None else "undefined"
                   for i, (u, v) in enumerate(zip(old, new, strict=True)) if u != v or (u is None) != (v is None)}
        return changed or None

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
        """The compact form of the engine's feedback (``None`` at level plain,
        unless the session detects loops)."""
        if fb is None:
            return None
        if fb.goals is None:
            loop = fb.revisited_step is not None
            return m.FeedbackView(revisited_step=fb.revisited_step, notes=list(fb.notes) or None) if loop else None
        goals = fb.goals
        unsatisfied, more = self.goal_list(goals.unsatisfied)
        achieved = [a for a in added if a in self.entry.goal_pos]
        achieved += [f"(not {d})" for d in deleted if f"(not {d})" in self.entry.goal_neg]
        undone = [d for d in deleted if d in self.entry.goal_pos]
        undone += [f"(not {a})" for a in added if f"(not {a})" in self.entry.goal_neg]
        level = self.session.feedback_level
        heuristic = level >= FeedbackLevel.HEURISTIC
        ff = fb.heuristic in (None, "h_ff")
        return m.FeedbackView(
            goals_satisfied=len(goals.satisfied),
            goals_total=goals.total,
            unsatisfied_goals=unsatisfied,
            more_unsatisfied=more,
            goals_achieved=sorted(achieved, key=natural_key) or None,
            goals_undone=sorted(undone, key=natural_key) or None,
            h_ff=number_or_none(fb.distance) if heuristic and ff else None,
            h_ff_change=number_or_none(fb.distance_change) if ff else None,
            dead_end=True if fb.dead_end else None,
            unreachable_goals=sorted(fb.unreachable_goals, key=natural_key) or None,
            heuristic=None if ff else fb.heuristic,
            h=None if ff else number_or_none(fb.distance),
            h_change=None if ff else number_or_none(fb.distance_change),
            dead_end_status=fb.dead_end_status,
            landmarks_accepted=fb.landmarks_accepted,
            landmarks_total=fb.landmarks_total,
            landmarks_achieved=list(fb.landmarks_achieved) or None,
            landmarks_required_again=list(fb.landmarks_required_again) or None,
            relaxed_plan=list(fb.relaxed_plan) or None,
            revisited_step=fb.revisited_step,
            notes=list(fb.notes) or None,
        )

    def current_feedback(self) -> m.FeedbackView | None:
        """Feedback on the current state without a step (initialise, queries)."""
        return self.feedback(self.session.current_feedback())

    def failure(self, failure: Failure) -> m.FailureView:
        return m.FailureView(
            code=failure.code,
            message=failure.message,
            unsatisfied=list(failure.unsatisfied) or None,
            hints=list(failure.hints) or None,
            suggestions=list(failure.suggestions) or None,
        )

    def diff(self, before: State, after: State) -> tuple[list[str] | None, list[str] | None]:
        """Atoms that became true and false, as far as the agent sees them."""
        render = self.task.render_atom
        before, after = self.session.observe(before), self.session.observe(after)
        added = sorted((render(a) for a in after - before), key=natural_key)
        deleted = sorted((render(d) for d in before - after), key=natural_key)
        return added or None, deleted or None


def _term(lifted: Any, i: int) -> str:
    name, args = lifted.fluent_terms[i]
    return term_text(lifted.function_display.get(name, name), args, lifted.object_display)


def static_values(lifted: Any) -> m.Values:
    """The values of a numeric task's static functions (they never change)."""
    if not lifted.numeric_task:
        return {}
    out: dict[str, Any] = {}
    for (name, args), v in sorted(lifted.numeric.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if name in lifted.function_index and name not in lifted.fluent_functions:
            out[term_text(lifted.function_display.get(name, name), args, lifted.object_display)] = to_json(v)
    return out


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


