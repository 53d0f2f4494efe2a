"""Typed results of the MCP tools: each model is a tool's output schema.

Conventions shared by every model (they keep replies small for an LLM):

* optional fields are left out of a reply when they carry nothing (the server
  dumps with ``exclude_none``), so a field that is absent means "not
  applicable", never "false" or "empty";
* every list is sorted (atoms and actions in natural order, ``b2`` before
  ``b10``), except plans and history, which are in execution order;
* at feedback level ``paper`` the seven paper tools return only the fields
  the paper names (``render.PAPER_FIELDS``); every field the richer levels
  always fill but that level leaves out is therefore optional here;
* a *state* is either grouped by predicate (``compact`` rendering, the
  default), ``{"on": ["a b", "c d"], "handempty": [""]}``, where each entry
  is an atom's arguments joined by one space (``""`` for a nullary atom), or
  a flat list of atoms, ``["(handempty)", "(on a b)", ...]`` (``plain``
  rendering, the paper's).

This module imports pydantic only; the server and the CLI import it lazily.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .names import RENDERINGS

__all__ = [
    "ActionSchemaView",
    "ActionsPage",
    "AdvanceOutcome",
    "BundledTasks",
    "CheckpointInfo",
    "CheckpointOutcome",
    "CloseOutcome",
    "Counters",
    "ExplainOutcome",
    "FailureView",
    "FeedbackView",
    "HistoryView",
    "Rendering",
    "ResetOutcome",
    "RunningView",
    "STATE_FORMAT",
    "SessionInfo",
    "SessionList",
    "SessionSummary",
    "StartView",
    "StateAtoms",
    "StateView",
    "StepFailureView",
    "StepOutcome",
    "UndoOutcome",
    "ValidationView",
]

Rendering = Literal[RENDERINGS]  # type: ignore[valid-type]  # defined once in .names
StateAtoms = dict[str, list[str]] | list[str]

STATE_FORMAT = (
    'Compact states group atoms by predicate: {"on": ["d b"], "handempty": [""]} is (on d b) and (handempty); '
    'each string holds one atom\'s arguments separated by spaces ("" for none); "(derived)" marks a derived '
    'predicate.'
)
"""How a state reads, told to the model in the server's instructions and in
the descriptions of the tools that return states."""
"""Atoms grouped by predicate (compact) or a flat sorted list (plain)."""

Number = int | float
Exact = int | float | str
"""A numeric fluent's value, exact: a JSON number when its decimal text is
exact (integers and terminating decimals such as 0.4 or 12.125), else a
string holding the exact fraction, such as "1/3" (values are rationals;
see pypddlengine.exact)."""
Values = dict[str, Exact]
"""Numeric values by ground function term, e.g. {"(fuel t1)": 12.5, "(cargo t1)": 0}."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FeedbackView(_Model):
    """Externally grounded feedback, filled according to the session's level.

    ``progress``: goal atoms satisfied (``goals_satisfied`` of
    ``goals_total``), the unsatisfied ones (at most the server's goal-list
    limit; ``more_unsatisfied`` counts the rest) and which goal atoms this
    step made true or false. ``heuristic`` adds the relaxed-plan distance
    ``h_ff`` (``None`` in a dead end), its change since the previous step,
    and ``dead_end`` with the goal atoms that can no longer be reached; a
    session started with another ``heuristic`` reports ``h``/``h_change``
    instead, named by ``heuristic``; ``dead_end_status`` is a proof verdict
    ("dead end (proved)", "no plan from here (proved)", "a plan exists from
    here", "unknown"); ``landmarks_accepted`` of ``landmarks_total``
    landmarks (atoms every plan makes true) reached in order so far, those
    this step reached (``landmarks_achieved``) and those reached before but
    needed again (``landmarks_required_again``). ``full`` adds
    ``revisited_step`` (this state was already reached after that step),
    ``relaxed_plan`` (the first actions of a relaxed plan: a hint, not a
    plan) and explanatory ``notes``."""

    goals_satisfied: int | None = None
    goals_total: int | None = None
    unsatisfied_goals: list[str] | None = None
    more_unsatisfied: int | None = None
    goals_achieved: list[str] | None = None
    goals_undone: list[str] | None = None
    h_ff: Number | None = None
    h_ff_change: Number | None = None
    dead_end: bool | None = None
    unreachable_goals: list[str] | None = None
    heuristic: str | None = None
    h: Number | None = None
    h_change: Number | None = None
    dead_end_status: str | None = None
    landmarks_accepted: int | None = None
    landmarks_total: int | None = None
    landmarks_achieved: list[str] | None = None
    landmarks_required_again: list[str] | None = None
    relaxed_plan: list[str] | None = None
    revisited_step: int | None = None
    notes: list[str] | None = None


class RunningView(_Model):
    """A running durative action (temporal tasks)."""

    id: int = Field(description="end it with execute_single_action('(end ID)')")
    action: str
    start: Exact = Field(description="when it started")
    earliest_end: Exact = Field(description="the earliest time it may end")
    latest_end: Exact | None = Field(default=None, description="the latest time it may end (absent: any time)")


class StartView(_Model):
    """A durative action that may start now, with its duration window (temporal tasks)."""

    action: str
    least: Exact | None = Field(default=None, description="its least duration (absent: 0)")
    most: Exact | None = Field(default=None, description="its greatest duration (absent: unbounded)")


TIME_FIELDS = ("clock", "running", "next_event")


class FailureView(_Model):
    """Why an action was not executed (nothing changed)."""

    code: str = Field(description="stable code, e.g. INAPPLICABLE_ACTION")
    message: str
    unsatisfied: list[str] | None = Field(default=None, description="preconditions that do not hold now")
    hints: list[str] | None = None
    suggestions: list[str] | None = None


class Counters(_Model):
    """Per-session counters for a harness (they survive resets and undos)."""

    steps_executed: int = Field(description="successful execute_single_action calls")
    failed_attempts: int = Field(description="execute_single_action calls that changed nothing")
    resets: int
    undos: int = Field(description="actions undone by undo_last_action")
    restores: int | None = Field(default=None, description="checkpoint restores (absent: none)")
    attempts_left: int = Field(description="execute attempts left before STEP_LIMIT")
    tool_calls: int = Field(description="calls of any tool on this session, this one included")


class ActionSchemaView(_Model):
    name: str
    parameters: str = Field(description="e.g. '?b - block ?target - block'")
    precondition: str | None = None
    effect: str | None = None


class Omitted(_Model):
    """What a reply left out of one field to stay within its size budget."""

    shown: int = Field(description="items shown")
    left_out: int = Field(description="items left out")
    by_group: dict[str, int] = Field(description="items left out per predicate (or type)")
    page: str = Field(description="how to page the rest")


OMITTED = Field(default=None, description="what this reply left out to stay within its size budget (reply_budget), per "
                "field: how many items it shows, how many it left out per predicate, how to page the rest")


class SessionSummary(_Model):
    """What initialise_session returns: the handle and a short task summary."""

    session_id: str = Field(description="pass it to every other tool")
    domain: str
    problem: str
    sources: dict[str, str] = Field(description="where domain and problem came from: text, file or bundled name")
    objects: dict[str, list[str]] | None = Field(default=None, description="objects (and constants) by type")
    actions: list[ActionSchemaView] | None = None
    goal: list[str] | None = None
    static_facts: StateAtoms | None = Field(
        None, description="facts no action changes; left out of later states unless include_static is set"
    )
    values: Values | None = Field(default=None, description="numeric tasks: the values of the fluents that can change")
    static_values: Values | None = Field(
        None, description="numeric tasks: values no action changes (distances, capacities ...), given once here")
    backend: str | None = Field(default=None, description="grounded (every action built up front) or lifted (actions "
                                "instantiated as met; no heuristic distances, landmarks or relaxed dead-end proofs)")
    backend_note: str | None = Field(default=None, description="why this backend")
    ground_actions: int | None = Field(default=None, description="ground actions of a grounded session (absent: lifted)")
    applicable_now: int | None = Field(default=None, description="actions applicable in the initial state (absent: a lifted "
                                       "session with too many to list at once; query_applicable_actions still "
                                       "pages them)")
    goal_reached: bool | None = None
    feedback_level: str
    rendering: Rendering
    max_steps: int | None = None
    idle_timeout_s: float | None = None
    label: str | None = None
    observation: str | None = Field(default=None, description="the rules hiding atoms from states (partial observability)")
    detect_loops: bool | None = Field(default=None, description="whether feedback says when a state repeats")
    feedback: FeedbackView | None = None
    warnings: list[str] | None = Field(default=None, description="what the checker noticed but accepted, e.g. a declared "
                                       "requirement the task never uses (every level but paper)")
    next: str | None = Field(default=None, description="what to call next")
    reply_budget: int | None = Field(default=None, description="this session's reply size budget in characters")
    omitted: dict[str, Omitted] | None = OMITTED


class StateView(_Model):
    step: int | None = Field(default=None, description="number of actions executed since the initial state")
    goal_reached: bool | None = None
    atoms: int | None = Field(default=None, description="how many atoms are shown")
    static_included: bool | None = None
    state: StateAtoms
    clock: Exact | None = Field(default=None, description="temporal tasks: the time now")
    running: list[RunningView] | None = Field(default=None, description="temporal tasks: the running actions")
    next_event: Exact | None = Field(default=None, description="temporal tasks: the next time an action may or must "
                                     "end or a timed literal happens (advance_time(next_event=true) goes there)")
    values: Values | None = Field(default=None, description="numeric tasks: the fluents' values now (static ones with "
                                  "include_static)")
    feedback: FeedbackView | None = None
    part: str | None = Field(default=None, description="a page: which part (state, static, objects or goal)")
    total: int | None = Field(default=None, description="a page: items of that part (and group) in all")
    offset: int | None = None
    next_offset: int | None = Field(default=None, description="a page: offset of the next page; absent on the last page")
    omitted: dict[str, Omitted] | None = OMITTED


class ActionsPage(_Model):
    step: int | None = None
    total: int | None = Field(default=None, description="applicable actions matching the filters (absent when they "
                              "were too many to count: see total_at_least)")
    total_at_least: int | None = Field(default=None, description="when the total was not counted (a lifted session "
                                       "with too many actions to list at once): at least this many match; pages "
                                       "are found lazily, in the same sorted order")
    offset: int | None = None
    limit: int | None = None
    actions: list[str]
    next_offset: int | None = Field(default=None, description="offset of the next page; absent on the last page")
    by_schema: dict[str, int] | None = Field(default=None, description="how many of the matching actions each schema has")
    clock: Exact | None = Field(default=None, description="temporal tasks: the time now")
    starts: list[StartView] | None = Field(default=None, description="temporal tasks: durative actions that may start "
                                           "now; execute '(act args)', or '(act args) [d]' to fix its duration")
    ends: list[RunningView] | None = Field(default=None, description="temporal tasks: running actions that may end "
                                           "now; execute '(end ID)'")


class StepOutcome(_Model):
    """The result of execute_single_action."""

    success: bool
    action: str | None = Field(default=None, description="the action as understood (canonical form)")
    step: int | None = None
    goal_reached: bool
    added: list[str] | None = None
    deleted: list[str] | None = None
    fired_effects: list[str] | None = Field(
        None, description="ADL tasks: the conditional effects that fired, each with its condition and objects")
    values_changed: Values | None = Field(default=None, description="numeric tasks: the new value of each fluent the step "
                                          "changed")
    state: StateAtoms | None = None
    values: Values | None = Field(default=None, description="numeric tasks, with the whole state: every fluent's value")
    failure: FailureView | None = None
    feedback: FeedbackView | None = None
    attempts_left: int | None = None
    clock: Exact | None = Field(default=None, description="temporal tasks: the time now")
    running: list[RunningView] | None = Field(default=None, description="temporal tasks: the running actions")
    omitted: dict[str, Omitted] | None = OMITTED


class AdvanceOutcome(_Model):
    """The result of advance_time (temporal tasks)."""

    success: bool
    clock: Exact = Field(description="the time now")
    running: list[RunningView]
    may_end: list[RunningView] | None = Field(default=None, description="running actions that may end now")
    next_event: Exact | None = None
    goal_reached: bool
    added: list[str] | None = Field(default=None, description="atoms timed literals on the way made true")
    deleted: list[str] | None = Field(default=None, description="atoms timed literals on the way made false")
    failure: FailureView | None = None


class ExplainOutcome(_Model):
    action: str
    applicable: bool
    failure: FailureView | None = None


class ResetOutcome(_Model):
    step: int
    goal_reached: bool | None = None
    discarded_steps: int | None = Field(default=None, description="how many executed actions the reset dropped")
    state: StateAtoms | None = None
    values: Values | None = None
    counters: Counters | None = None
    omitted: dict[str, Omitted] | None = OMITTED


class UndoOutcome(_Model):
    undone: list[str] = Field(description="the actions undone, most recent first")
    step: int
    goal_reached: bool
    added: list[str] | None = None
    deleted: list[str] | None = None
    values_changed: Values | None = Field(default=None, description="numeric tasks: fluents whose value changed back, with "
                                          "their value now")
    state: StateAtoms | None = None
    values: Values | None = None
    omitted: dict[str, Omitted] | None = OMITTED


class CheckpointInfo(_Model):
    name: str
    step: int = Field(description="actions in the checkpoint's history")


class CheckpointOutcome(_Model):
    """The result of the checkpoint tool."""

    name: str | None = Field(default=None, description="the checkpoint saved, restored or deleted")
    step: int = Field(description="the session's step after the call")
    goal_reached: bool | None = None
    added: list[str] | None = Field(default=None, description="atoms that became true (restore)")
    deleted: list[str] | None = Field(default=None, description="atoms that became false (restore)")
    values_changed: Values | None = Field(default=None, description="numeric tasks: fluents whose value the restore "
                                          "changed, with their value now")
    state: StateAtoms | None = None
    values: Values | None = None
    checkpoints: list[CheckpointInfo] = Field(description="the session's checkpoints, oldest first")


class HistoryView(_Model):
    length: int | None = Field(default=None, description="actions executed since the initial state (the current plan)")
    offset: int | None = None
    actions: list[str] = Field(description="in execution order, starting at step offset+1")
    next_offset: int | None = None
    goal_reached: bool | None = None
    counters: Counters | None = None


class StepFailureView(_Model):
    step: int
    time: Exact | None = Field(default=None, description="temporal plans: the happening's time")
    action: str
    code: str
    message: str
    unsatisfied: list[str] | None = None


class ValidationView(_Model):
    valid: bool
    plan_source: Literal["given", "history"] | None = None
    length: int | None = None
    steps_applied: int | None = None
    cost: Number | None = None
    goal_reached: bool | None = None
    unsatisfied_goals: list[str] | None = None
    more_unsatisfied: int | None = None
    failure: StepFailureView | None = None
    metric: Exact | None = Field(default=None, description="the problem's :metric expression after the plan (total-time: "
                                 "the number of steps)")
    metric_direction: Literal["minimize", "maximize"] | None = None
    metric_error: str | None = Field(default=None, description="why the metric could not be evaluated")
    summary: str | None = None
    makespan: Exact | None = Field(default=None, description="temporal plans: the time of the last happening")


class CloseOutcome(_Model):
    session_id: str
    closed: bool
    plan_length: int
    goal_reached: bool
    counters: Counters


class SessionInfo(_Model):
    session_id: str = Field(description="redacted to a prefix when the server hides ids (HTTP)")
    label: str | None = None
    domain: str
    problem: str
    step: int
    goal_reached: bool
    idle_s: float
    counters: Counters


class SessionList(_Model):
    sessions: list[SessionInfo]
    live: int
    max_sessions: int
    ids_redacted: bool


class BundledTasks(_Model):
    tasks: list[str]
    domains: list[str]
    next: str
