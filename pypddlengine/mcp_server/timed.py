"""The MCP tools' answers on a temporal session (issue 31).

A temporal task's session is a :class:`~pypddlengine.temporal_session.TemporalSession`:
its state is the atoms and values, the clock and the running actions. Each
tool of :mod:`.tools` answers on it here, with the same reply model as on a
classical session and the time fields filled in (``clock``, ``running``,
``starts``, ``ends``, ``makespan``); ``advance_time`` lets time pass. A step
the session refuses (a condition, an invariant, a duration window, an
interference) is ``success: false`` with code ``STEP_REFUSED`` and changes
nothing; a text naming no action is a tool error, as on classical sessions.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Literal, cast

from ..errors import PDDLError
from ..exact import to_json
from ..temporal import TemporalReport, validate_timed_plan
from ..temporal_session import StepRefused, TemporalSession, _num
from . import models as m
from .errors import INVALID_ARGUMENT, MISSING_ARGUMENT, ToolFailure
from .store import SessionEntry

__all__ = ["actions_page", "advance", "checkpoint", "execute", "explain", "history", "reset", "schemas", "state",
           "undo", "validate"]


def _running(s: TemporalSession, only: list[dict[str, Any]] | None = None) -> list[m.RunningView]:
    return [m.RunningView(**{k: v for k, v in r.items() if v is not None})
            for r in (only if only is not None else [r.to_dict() for r in s.running])]


def _failure(err: PDDLError) -> m.FailureView:
    unsatisfied = err.details.get("unsatisfied")
    return m.FailureView(code=str(err.code), message=err.message,
                         unsatisfied=[str(u) for u in cast(list[Any], unsatisfied)] if unsatisfied else None,
                         hints=[err.hint] if err.hint else None)


def _values(s: TemporalSession) -> dict[str, Any] | None:
    return {k: v for k, v in s.value_map().items()} or None


def _tool_error(err: PDDLError) -> ToolFailure:
    return ToolFailure.from_pddl(err)


def _next(s: TemporalSession) -> Any:
    nxt = s.next_event()
    return None if nxt is None else _num(nxt)


def schemas(s: TemporalSession) -> list[m.ActionSchemaView]:
    """The durative actions (with their duration) and the plain actions, as written."""
    out = []
    for name, d in sorted(s.task.durative.items()):
        schema = s.lifted.schema_index[f"{name}@start"]
        out.append(m.ActionSchemaView(name=d.display or name, parameters=s.lifted.signature(schema)[1:-1],
                                      precondition="durative: start it, then end it with '(end ID)'"))
    for name in sorted(s.task.plain):
        schema = s.lifted.schema_index[name]
        out.append(m.ActionSchemaView(name=schema.display, parameters=s.lifted.signature(schema)[1:-1]))
    return out


def state(s: TemporalSession) -> m.StateView:
    facts = s.facts()
    return m.StateView(step=s.step_count(), goal_reached=s.goal_reached(), atoms=len(facts), static_included=True,
                       state=facts, values=_values(s), clock=_num(s.clock), running=_running(s), next_event=_next(s))


def actions_page(s: TemporalSession, offset: int, limit: int) -> m.ActionsPage:
    a = s.applicable()
    texts = [x["action"] for x in a["start"]] + [f"(end {r['id']})" for r in a["end"]] + \
        [x["action"] for x in a["actions"]]
    chunk = texts[offset: offset + limit]
    end = offset + len(chunk)
    return m.ActionsPage(
        step=s.step_count(), total=len(texts), offset=offset, limit=limit, actions=chunk,
        next_offset=end if end < len(texts) else None, clock=_num(s.clock),
        starts=[m.StartView(**{k: v for k, v in x.items() if v is not None}) for x in a["start"]],
        ends=_running(s, a["end"]))


def execute(entry: SessionEntry, s: TemporalSession, action: str) -> m.StepOutcome:
    before = set(s.facts())
    try:
        done = s.step(action)
    except StepRefused as err:
        entry.failed_attempts += 1
        return m.StepOutcome(success=False, action=action.strip(), step=s.step_count(), goal_reached=s.goal_reached(),
                             failure=_failure(err), attempts_left=entry.attempts_left, clock=_num(s.clock), fired_effects=None,
                             running=_running(s))
    except PDDLError as err:
        entry.failed_attempts += 1
        raise _tool_error(err) from None
    entry.steps_executed += 1
    after = set(s.facts())
    ended = action.strip().lstrip("(").lower().startswith("end ")
    text = action.strip() if done is None else f"(end {done.action})" if ended else done.action
    return m.StepOutcome(success=True, action=text, step=s.step_count(),
                         goal_reached=s.goal_reached(), added=sorted(after - before) or None,
                         deleted=sorted(before - after) or None, attempts_left=entry.attempts_left, fired_effects=None,
                         clock=_num(s.clock), running=_running(s))


def advance(entry: SessionEntry, s: TemporalSession, to: float | str | None, next_event: bool) -> m.AdvanceOutcome:
    if (to is None) == (not next_event):
        raise ToolFailure(MISSING_ARGUMENT if to is None else INVALID_ARGUMENT,
                          "advance_time needs either 'to' (a time) or next_event=true, not both",
                          "e.g. advance_time(next_event=true)", details={"argument": "to"})
    before = set(s.facts())
    failure = None
    try:
        s.advance(None if next_event else str(to))
    except StepRefused as err:
        failure = _failure(err)
        entry.failed_attempts += 1
    except (ValueError, ZeroDivisionError):
        raise ToolFailure(INVALID_ARGUMENT, f"'to' must be a time, not {to!r}") from None
    after = set(s.facts())
    return m.AdvanceOutcome(success=failure is None, clock=_num(s.clock), running=_running(s),
                            may_end=_running(s, s.applicable()["end"]) or None, next_event=_next(s),
                            goal_reached=s.goal_reached(), added=sorted(after - before) or None,
                            deleted=sorted(before - after) or None, failure=failure)


def reset(entry: SessionEntry, s: TemporalSession) -> m.ResetOutcome:
    discarded = s.step_count()
    s.reset()
    entry.resets += 1
    return m.ResetOutcome(step=0, goal_reached=s.goal_reached(), discarded_steps=discarded, counters=entry.counters())


def history(entry: SessionEntry, s: TemporalSession, offset: int, limit: int) -> m.HistoryView:
    plan = s.plan_text().splitlines()
    chunk = plan[offset: offset + limit]
    end = offset + len(chunk)
    return m.HistoryView(length=len(plan), offset=offset, actions=chunk, next_offset=end if end < len(plan) else None,
                         goal_reached=s.goal_reached(), counters=entry.counters())


def validate(s: TemporalSession, plan: list[str] | str | None, epsilon: float | None,
             max_steps: int) -> m.ValidationView:
    text = s.plan_text() if plan is None else plan if isinstance(plan, str) else "\n".join(plan)
    if len(text.splitlines()) > max_steps:
        raise ToolFailure("PLAN_TOO_LONG", f"the plan has more than {max_steps:,} lines")
    try:
        eps = s.epsilon if epsilon is None else Fraction(str(epsilon))
        report: TemporalReport = s.validate(eps) if plan is None else validate_timed_plan(s.task, text, eps)
    except PDDLError as err:
        raise _tool_error(err) from None
    f = report.failure
    return m.ValidationView(
        valid=report.valid, plan_source="history" if plan is None else "given", length=report.steps,
        goal_reached=report.goal_reached, unsatisfied_goals=list(report.unsatisfied_goals) or None,
        failure=m.StepFailureView(step=f.step or 0, time=None if f.time is None else to_json(f.time), action=f.action,
                                  code=f.code, message=f.message, unsatisfied=list(f.unsatisfied) or None)
        if f else None,
        metric=None if report.metric is None else to_json(report.metric),
        metric_direction=(cast('Literal["minimize", "maximize"]', report.metric_direction)
                          if report.metric is not None else None),
        summary=report.summary().splitlines()[0], makespan=to_json(report.makespan))


def explain(s: TemporalSession, action: str) -> m.ExplainOutcome:
    try:
        err = s.explain(action)
    except PDDLError as bad:
        raise _tool_error(bad) from None
    return m.ExplainOutcome(action=action.strip(), applicable=err is None,
                            failure=None if err is None else _failure(err))


def checkpoint(entry: SessionEntry, s: TemporalSession, op: str, name: str | None) -> m.CheckpointOutcome:
    if op != "list" and name is None:
        raise ToolFailure(MISSING_ARGUMENT, f"checkpoint: op '{op}' needs the checkpoint's name",
                          "e.g. checkpoint='lamp-on'", details={"argument": "checkpoint"})
    before = set(s.facts())
    try:
        if op == "save":
            s.checkpoint(str(name))
        elif op == "restore":
            s.restore(str(name))
            entry.restores += 1
        elif op == "delete":
            s.delete_checkpoint(str(name))
    except PDDLError as err:
        raise _tool_error(err) from None
    after = set(s.facts())
    restored = op == "restore"
    return m.CheckpointOutcome(
        name=name, step=s.step_count(), goal_reached=s.goal_reached() if restored else None,
        added=sorted(after - before) or None if restored else None,
        deleted=sorted(before - after) or None if restored else None,
        checkpoints=[m.CheckpointInfo(name=n, step=k) for n, k in s.checkpoints()])


_RUNNING = " (started, still running)"


def _taken(s: TemporalSession) -> list[tuple[Fraction, str, str]]:
    """The history's steps (start, action, ``" [duration]"`` or ``""``), then each running action (not yet in the
    timed plan)."""
    return ([(t, a, "" if d is None else f" [{_num(d)}]") for t, a, d in s.history()]
            + [(r.start, r.action, _RUNNING) for r in s.running])


def undo(entry: SessionEntry, s: TemporalSession, steps: int) -> m.UndoOutcome:
    before, plan, clock = set(s.facts()), _taken(s), s.clock
    n = 0
    while n < steps and s.undo():
        n += 1
    entry.undos += n
    after, now = set(s.facts()), set(_taken(s))
    undone = [f"{'the end of ' if d != _RUNNING and (t, a, _RUNNING) in now else ''}{_num(t)}: {a}{d}"
              for t, a, d in reversed(plan) if (t, a, d) not in now]  # an ended action running again: its end
    if clock != s.clock:
        undone.append(f"advance_time from {_num(s.clock)} to {_num(clock)}")
    return m.UndoOutcome(undone=undone if n else [], step=s.step_count(), goal_reached=s.goal_reached(),
                         added=sorted(after - before) or None, deleted=sorted(before - after) or None)
