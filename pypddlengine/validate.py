"""Plan validation: the one validator behind the session, the CLI and MCP.

Each step is resolved by name and instantiated from its schema on demand
(:class:`pypddlengine.lazy.LazyTask`), then checked and applied through the
one definition of a step (:mod:`pypddlengine.step`), the same the sessions
use. Nothing is grounded, so its cost is proportional to the plan, not to
the task (VAL works the same way). A session validates its own history
with its own backend and ground actions, without re-reading any text.

Verdicts follow VAL: a plan is valid when every step resolves and is
applicable in turn and the goal holds at the end. Validation stops at the
first failing step; the goal literals that do not hold in the state reached
are still listed, one per atom.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any
from dataclasses import field
from typing import Any, cast

from .errors import ActionReferenceError, NumericError, PDDLError, Span, TimeLimitError, counted, nesting_guard
from .exact import Value, to_json, to_text
from .lazy import LazyTask, time_limit
from .lifted import MAX_REMEMBERED_STEPS, LiftedTask
from .model import ActionRef, Plan
from .step import GroundAction, read_error, thaw
from .syntax import StepWords, parse_action_ref
from .task import StepSpace
from .usercache import dataclass

__all__ = ["INAPPLICABLE_ACTION", "MAX_VALIDATION_SECONDS", "StepFailure", "ValidationReport", "validate_plan"]

MAX_VALIDATION_SECONDS = 8.0
"""The time one plan validation may take by default (``VALIDATION_TIMEOUT``
past it; read at each call, ``max_seconds=`` overrides it, ``math.inf`` for
none). A plan of the IPC corpus takes milliseconds; a step of a lifted task
with hundreds of thousands of derived atoms per state can take seconds."""

_UNKNOWN = object()

INAPPLICABLE_ACTION = "INAPPLICABLE_ACTION"
"""Failure code of a step whose preconditions do not hold."""


@dataclass(frozen=True, slots=True)
class StepFailure:
    """Why step ``step`` (1-based) could not be executed.

    ``code`` is ``INAPPLICABLE_ACTION`` (then ``unsatisfied`` lists each
    precondition literal that does not hold) or an action-reference code:
    ``UNKNOWN_ACTION``, ``WRONG_ARITY``, ``UNKNOWN_OBJECT``, ``TYPE_MISMATCH``,
    ``ACTION_SYNTAX``, ``UNDEFINED_FUNCTION_VALUE``."""

    step: int
    action: str
    code: str
    message: str
    unsatisfied: tuple[str, ...] = ()
    span: Span | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, object]:
        return {
            "step": self.step,
            "action": self.action,
            "code": self.code,
            "message": self.message,
            "unsatisfied": list(self.unsatisfied),
        }


@dataclass(frozen=True, slots=True)
class ValidationReport:
    """The verdict on one plan.

    ``length`` counts the plan's steps, ``steps_applied`` those executed
    before a failure (all of them when none failed). ``cost`` is the summed
    action cost of the applied steps (the step count in unit-cost tasks)."""

    valid: bool
    length: int
    steps_applied: int
    cost: Value | float
    goal_reached: bool
    unsatisfied_goals: tuple[str, ...]
    failure: StepFailure | None = None
    unit_cost: bool = True
    metric: Value | None = None
    """The value of the problem's ``:metric`` expression after the plan (exact;
    ``total-time`` is the number of steps, as VAL counts a sequential plan);
    ``None`` without a metric, after a failing step, or when it cannot be
    evaluated (``metric_error`` says why)."""
    metric_direction: str | None = None
    metric_error: str | None = None

    @property
    def failed_step(self) -> int | None:
        return self.failure.step if self.failure else None

    def headline(self) -> str:
        """The verdict in the one wording every interface uses (the API's
        :meth:`summary`, ``pypddl validate``, the MCP ``validate_plan`` tool,
        the unified-planning adapter), without the unsatisfied conditions:
        ``valid plan: 12 steps, cost 12``, ``invalid plan: step 2 (pick b)
        fails: ...`` or ``invalid plan: all 2 steps apply but the goal is not
        reached``."""
        if self.valid:
            text = f"valid plan: {counted(self.length, 'step')}, cost {_num(self.cost)}"
            if self.metric is not None:
                text += f", metric {to_text(self.metric)} ({self.metric_direction})"
            elif self.metric_error is not None:
                text += f"; the metric cannot be evaluated: {self.metric_error}"
            return text
        if self.failure is not None:
            f = self.failure
            return f"invalid plan: step {f.step} {f.action} fails: {f.message}"
        steps = ("the plan has no step" if self.length == 0 else "the only step applies" if self.length == 1
                 else f"all {self.length} steps apply")
        return f"invalid plan: {steps} but the goal is not reached"

    def summary(self) -> str:
        """One line: :meth:`headline` and what does not hold, e.g.
        ``invalid plan: ... the goal is not reached; unsatisfied: (on a b)``."""
        unsatisfied = self.failure.unsatisfied if self.failure is not None else self.unsatisfied_goals
        detail = f"; unsatisfied: {', '.join(unsatisfied)}" if not self.valid and unsatisfied else ""
        return self.headline() + detail

    def to_dict(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "length": self.length,
            "steps_applied": self.steps_applied,
            "cost": self.cost,
            "unit_cost": self.unit_cost,
            "goal_reached": self.goal_reached,
            "unsatisfied_goals": list(self.unsatisfied_goals),
            "failure": self.failure.to_dict() if self.failure else None,
            "metric": None if self.metric is None else to_json(self.metric),
            "metric_direction": self.metric_direction,
            "summary": self.summary(),
        }


def _num(value: int | float | Value) -> str:
    if not isinstance(value, float):
        return to_text(value)
    return str(int(value)) if value.is_integer() else f"{value:g}"


def _text(step: ActionRef | str | GroundAction | StepWords) -> str:
    if isinstance(step, tuple):
        return step[2]
    if isinstance(step, GroundAction):
        return step.schema.display
    return step.strip() if isinstance(step, str) else (step.text or str(step))


def validate_plan(
    task: LiftedTask | StepSpace,
    plan: Plan | Iterable[ActionRef | str | GroundAction | StepWords],
    *,
    max_seconds: float | None = None,
) -> ValidationReport:
    """Validate ``plan`` (a parsed :class:`Plan`, action refs, action strings
    in any accepted form, ground actions of ``task``, or the step words of
    :func:`pypddlengine.syntax.plan_words`, whose failures have no place in
    the file) from the initial state. ``task``: a lifted task (validated with
    a fresh :class:`~pypddlengine.lazy.LazyTask`, which grounds nothing) or a
    session's backend, which remembers the steps it met for later plans.
    A validation that takes more than ``max_seconds`` (default
    :data:`MAX_VALIDATION_SECONDS`) raises :class:`TimeLimitError`
    (``VALIDATION_TIMEOUT``) after the step that passed it."""
    limit = MAX_VALIDATION_SECONDS if max_seconds is None else max_seconds
    with nesting_guard("a condition or effect of the plan's actions"):
        return _validate(task, plan, limit)


class _Clock:
    """The deadline of one validation and the error past it (also raised by
    the lifted joins inside a slow step, see :class:`~pypddlengine.lazy.time_limit`)."""

    def __init__(self, limit: float, length: int) -> None:
        self.limit, self.length, self.checked = limit, length, 0
        self.deadline = time.monotonic() + limit

    def error(self) -> TimeLimitError:
        return _timeout(self.limit, self.checked, self.length)


def _validate(task: LiftedTask | StepSpace, plan: Plan | Iterable[ActionRef | str | GroundAction | StepWords],
              limit: float) -> ValidationReport:
    space = task if isinstance(task, StepSpace) else LazyTask(task)
    lifted = space.lifted
    steps = plan.steps if isinstance(plan, Plan) else tuple(plan)
    known = space.remembered_refs()
    watch = _Clock(limit, len(steps))
    with time_limit(watch.deadline, watch.error):
        return _steps(space, lifted, steps, known, watch)


def _steps(space: StepSpace, lifted: LiftedTask, steps: tuple[Any, ...], known: dict[Any, Any],
           watch: _Clock) -> ValidationReport:
    state: set[int] = thaw(space.init)
    cost: Value | float = 0
    failure: StepFailure | None = None
    applied = 0
    resolve, lookup = lifted.resolve_known, space.lookup
    key: tuple[Any, ...] | None
    ref: ActionRef | None
    action: GroundAction | None
    clock, deadline = time.monotonic, watch.deadline
    for number, step in enumerate(steps, start=1):
        watch.checked = number - 1
        if clock() > deadline:
            raise watch.error()
        try:
            kind = step.__class__
            if kind is tuple:  # plan_words: (name, args, text), remembered as it is; no place in the file
                key, ref, span = cast(StepWords, step), None, None
            elif isinstance(step, GroundAction):
                key, ref, span = None, None, None
            else:
                ref = parse_action_ref(cast(str, step)) if kind is str else cast(ActionRef, step)
                key, span = (ref.name, ref.args), ref.span
            if key is None:
                action = cast(GroundAction, step)
                schema, args = action.schema, action.args
            else:
                found = known.get(key, _UNKNOWN)
                if found is _UNKNOWN or found is None:
                    hit = resolve(key[0], key[1])
                    if hit is None:  # a bad reference: the full resolution raises its precise error
                        if ref is None:  # plan_words: key is the step's (name, args, text)
                            words_name, words_args, words_text = cast(StepWords, key)
                            ref = ActionRef(words_name, words_args, None, words_text)
                        hit = lifted.resolve(ref)
                    schema, args = hit
                    action = None
                    if found is _UNKNOWN:
                        action = lookup(schema, args)
                        if len(known) >= MAX_REMEMBERED_STEPS:
                            known.clear()
                        known[key] = action
                else:
                    action = cast(GroundAction, found)
                    schema, args = action.schema, action.args
            if action is not None and action.applicable(state):
                cost += action.step_cost(state)
                action.apply_to(state)
                applied += 1
                continue
            read = None if action is None else read_error(action, state)
            if read is not None:  # a comparison read an undefined value or divided by zero (VAL: an error)
                failure = StepFailure(number, lifted.render_action(schema, args), read.code,
                                      _located(read), (), span)
                break
            failure = StepFailure(
                number,
                lifted.render_action(schema, args),  # the task's spelling, like the atoms beside it
                INAPPLICABLE_ACTION,
                "its preconditions do not hold",
                tuple(lifted.unsatisfied(schema.instantiate(args), space.keys(state))),
                span,
            )
        except ActionReferenceError as err:
            failure = StepFailure(number, _text(step), err.code, err.message, (), err.span)
        except NumericError as err:  # a numeric effect that cannot be executed (located in the domain)
            failure = StepFailure(number, lifted.render_action(schema, args), err.code, _located(err), (), span)
        except TimeLimitError:
            raise
        except PDDLError as err:  # malformed action text, missing cost value
            failure = StepFailure(number, _text(step), err.code, err.message, (), err.span)
        break
    goal = failure is None and space.is_goal(state)
    unsatisfied = () if goal else tuple(lifted.unsatisfied_goals(space.keys(state)))
    metric = metric_error = None
    if lifted.problem.metric is not None and failure is None:
        try:
            metric = lifted.metric_value(getattr(state, "values", ()), applied, cost)
        except NumericError as err:
            metric_error = _located(err)
    return ValidationReport(
        valid=goal,
        length=len(steps),
        steps_applied=applied,
        cost=cost,
        goal_reached=goal,
        unsatisfied_goals=unsatisfied,
        failure=failure,
        unit_cost=not lifted.uses_action_costs,
        metric=metric,
        metric_direction=None if lifted.problem.metric is None else lifted.problem.metric.direction,
        metric_error=metric_error,
    )


def _timeout(limit: float, checked: int, length: int) -> TimeLimitError:
    return TimeLimitError(
        f"validating the plan took more than {limit:g} s (the time limit of a validation); {checked} of "
        f"{counted(length, 'step')} were checked", details={"limit_seconds": limit, "steps_checked": checked},
        hint="validate a shorter plan, or raise the limit: max_seconds= (library), "
             "pypddlengine.validate.MAX_VALIDATION_SECONDS, --max-validation-seconds (server); see docs/limits.md")


def _located(err: PDDLError) -> str:
    """The message with the place in the domain or problem it points at."""
    where = err.location
    return f"{err.message} ({where})" if where else err.message
