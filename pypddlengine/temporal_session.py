"""Stepping through time: a session on a temporal task (issue 31).

The state is the atoms and values, the clock and the running actions (each
with its start time and the window in which it may end). An agent starts a
durative action now, ends a running one when its duration allows it, runs a
plain action now, and lets time pass (to a given time, or to the next event:
the earliest time a running action may or must end, or a timed initial
literal). Everything it does at one clock time is one *happening*, judged as
the validator judges it (:mod:`pypddlengine.temporal`, the same helpers):
each snap action's condition is checked in the state at the start of the
happening, it must not interfere with the snap actions already done at that
time, and every running action's ``over all`` condition must hold after it.
A step that would break any of these is refused with its reason and changes
nothing. The history is a timed plan; :meth:`TemporalSession.validate` judges
it with the validator.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cached_property
from typing import Any

from .checker import TEMPORAL_FEATURES
from .errors import ActionReferenceError, FeatureUnavailableError, NumericError, PDDLError
from .exact import Value, normal, to_text
from .lazy import LazyTask
from .model import ActionRef, BinaryExpr, DurationVar, FunctionTerm
from .step import thaw
from .sources import PDDLSource, read_task_sources
from .syntax import MAX_INPUT_BYTES, parse_action_ref, parse_domain, parse_problem
from .temporal import (
    DEFAULT_EPSILON,
    TemporalFailure,
    TemporalReport,
    TemporalTask,
    _copy,
    _duration_ok,
    _Footprint,
    _freeze,
    _snap_durations,
    _til_footprint,
    _uses_duration,
    _with_duration,
    apply_snap,
    apply_til,
    compile_temporal,
    duration_window,
    plan_number,
    validate_timed_plan,
)

__all__ = ["SESSION_ONLY_OPTIONS", "Running", "StepRefused", "TemporalSession", "needs_time", "open_temporal_session"]

SESSION_ONLY_OPTIONS = ("heuristic", "proof_budget", "landmarks", "detect_loops", "observation", "backend",
                        "options")
"""Options of a classical :class:`~pypddlengine.session.Session` a temporal session does not take (given with a
value other than their default, :func:`open_temporal_session` refuses them)."""
_DEFAULTS: dict[str, Any] = {"heuristic": "h_ff", "backend": "auto"}


class StepRefused(PDDLError):
    """A temporal step that cannot be taken now; ``details`` say why (``unsatisfied``, ``window``, ...)."""

    default_code = "STEP_REFUSED"


@dataclass(frozen=True)
class Running:
    """A running durative action: ``id`` (to end it by), when it started and
    the window ``[least, most]`` of durations it may take (``None``: unbounded)."""

    id: int
    action: str
    name: str
    args: tuple[int, ...]
    start: Fraction
    least: Value | None
    most: Value | None
    duration: Value | None = None
    """Fixed when it started, when the plan had to say it then (its start reads ``?duration``)."""

    @cached_property  # a running action never changes; Fraction arithmetic is slow
    def earliest_end(self) -> Fraction:
        return self.start + (self.least or 0) if self.duration is None else self.start + self.duration

    @cached_property
    def latest_end(self) -> Fraction | None:
        if self.duration is not None:
            return self.start + self.duration
        return None if self.most is None else self.start + self.most

    def to_dict(self) -> dict[str, Any]:
        latest = self.latest_end
        return {"id": self.id, "action": self.action, "start": _num(self.start),
                "earliest_end": _num(self.earliest_end), "latest_end": None if latest is None else _num(latest)}


def _num(v: Value | Fraction) -> Any:
    n = normal(v) if isinstance(v, Fraction) else v
    return n if isinstance(n, int) else float(n)


@dataclass
class _Moment:
    """Everything a step changes (copied for checkpoints). ``running`` is never changed in place (a step
    gives the moment a new dict), so a record may keep the old one."""

    state: Any
    clock: Fraction
    before: Any
    prints: list[Any]
    running: dict[int, Running]
    history: list[tuple[Fraction, str, Value | None, int | None]] = field(default_factory=list)
    tils_done: int = 0
    next_id: int = 1
    must_end: frozenset[int] = frozenset()
    """Running actions whose ``over all`` condition a step at this time broke: they end at this time
    (the condition holds on the open interval only), or time cannot pass."""

    def copy(self) -> _Moment:
        return _Moment(_copy(self.state), self.clock, _copy(self.before), list(self.prints), dict(self.running),
                       list(self.history), self.tils_done, self.next_id, self.must_end)

    def mark(self) -> _Undo:
        """An undo record of this moment (for time passing): a copy of the state; the state at the start of
        the happening and the history list are shared (time passing replaces the one and only appends to
        the other)."""
        saved = _Moment(_copy(self.state), self.clock, self.before, list(self.prints), dict(self.running),
                        self.history, self.tils_done, self.next_id, self.must_end)
        return _Undo(saved, len(self.history))


HistoryEntry = tuple[Fraction, str, Value | None, int | None]


def _truncate(history: list[HistoryEntry], length: int, patched: list[tuple[int, HistoryEntry]]) -> None:
    """The history as it was at ``length`` entries: the entries a later end gave its duration put back."""
    for k, entry in reversed(patched):
        history[k] = entry
    del history[length:]


@dataclass
class _Undo:
    """A whole moment to go back to (time passing, a checkpoint restored); its history list is the live
    one, longer by the steps taken since (and ``patched``: an entry a later end gave its duration, with
    its value before)."""

    moment: _Moment
    length: int
    patched: list[tuple[int, HistoryEntry]] = field(default_factory=list)

    def back(self, live: _Moment) -> _Moment:
        m = self.moment
        _truncate(m.history, self.length, self.patched)
        return m


class _SnapUndo:
    """What one snap action changed in the live moment, to change it back (undo goes last in, first out:
    when this record is used, every later one has been, so the live moment is as this snap left it).
    ``atoms``: all the atoms the snap may write, with ``present`` those that held before, and ``old`` the
    values before of the fluents it may write. ``state``: with derived predicates, the state object the snap
    changed (the axioms then make the live state a new one), to change back and put back."""

    __slots__ = ("atoms", "before_value", "length", "must_end", "next_id", "old", "patched", "present", "prints",
                 "running", "state", "then")

    def __init__(self, m: _Moment, atoms: tuple[int, ...], fluents: tuple[int, ...], hidden: int | None,
                 derived: bool) -> None:
        state = m.state
        self.state = state if derived else None
        self.atoms = atoms
        self.present = state.intersection(atoms)
        values = getattr(state, "values", None)
        self.old = [(i, values[i]) for i in fluents] if values is not None else []
        self.before_value = (hidden, m.before.values[hidden]) if hidden is not None else None
        self.prints, self.running, self.next_id, self.must_end = len(m.prints), m.running, m.next_id, m.must_end
        self.length = len(m.history)
        self.patched: list[tuple[int, HistoryEntry]] = []
        self.then: _SnapUndo | None = None
        """A snap taken with this one as one step (a zero-duration action's end), undone first."""

    def back(self, m: _Moment) -> _Moment:
        if self.then is not None:
            m = self.then.back(m)
        state = m.state = m.state if self.state is None else self.state
        state.difference_update(self.atoms)
        state.update(self.present)
        for i, v in self.old:
            state.values[i] = v
        if self.before_value is not None:
            i, v = self.before_value
            m.before.values[i] = v
        del m.prints[self.prints:]
        m.running, m.next_id, m.must_end = self.running, self.next_id, self.must_end
        _truncate(m.history, self.length, self.patched)
        return m


def _writes(act: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The atoms and fluents a ground action may write (every effect, fired or not)."""
    atoms = act.add + act.delete
    updates = tuple(getattr(act, "numeric", ()))
    for e in getattr(act, "effects", ()):
        atoms += e.add + e.delete
        updates += e.numeric
    return atoms, tuple(u.target for u in updates if getattr(u, "target", None) is not None)


class TemporalSession:
    """A session on a :class:`~pypddlengine.temporal.TemporalTask` (see the module docstring)."""

    def __init__(self, task: TemporalTask, epsilon: Value = DEFAULT_EPSILON) -> None:
        self.task = task
        self.space = LazyTask(task.lifted)
        self.lifted = task.lifted
        self.hidden = task.duration_fluent
        self.epsilon = Fraction(epsilon)
        self.tils = sorted(task.tils, key=lambda t: Fraction(t.time.value))
        state = thaw(self.space.init)
        self._m = _Moment(state, Fraction(0), _copy(state), [], {})
        self._undo: list[_Undo | _SnapUndo] = []
        self._checkpoints: dict[str, _Moment] = {}
        self._prints: dict[tuple[int, tuple[int, ...]], _Footprint] = {}
        self._windows: dict[tuple[int, tuple[int, ...], str], tuple[Value | None, Value | None]] = {}
        self._steady: dict[int, bool] = {}
        self._all = {name: self.lifted.schema_index[f"{name}@all"] for name in task.durative}
        self._resolved: dict[tuple[str, str], tuple[str, Any, tuple[int, ...], str]] = {}
        self._chosen = [s.id for s in self.lifted.schemas if s.name.endswith("@start") or "@" not in s.name]
        """The schemas whose instances an agent may choose to take (ends are the running actions' own and over
        all snaps are no steps: their joins are not run)."""
        self._start_reads = {name: any(_uses_duration(e.effect) for e in d.effects if e.at == "start") or any(
            _uses_duration(c.condition) for c in d.conditions if c.at == "start") for name, d in task.durative.items()}
        self._apply_tils_until(Fraction(0))
        self._initial = self._m.copy()

    # ------------------------------------------------------------------ reading

    @property
    def clock(self) -> Fraction:
        return self._m.clock

    @property
    def running(self) -> list[Running]:
        return sorted(self._m.running.values(), key=lambda r: (r.start, r.id))

    def facts(self) -> list[str]:
        """The atoms that hold now (static ones included), as PDDL text."""
        return sorted(self.lifted.render_key(k) for k in self.space.keys(_freeze(self._m.state)))

    def values(self) -> list[str]:
        values = getattr(self._m.state, "values", None)
        if values is None:
            return []
        return [v for v in self.lifted.render_values(values) if not v.startswith(("@", "(@"))]  # not ?duration

    def unsatisfied_goals(self) -> list[str]:
        return list(self.lifted.unsatisfied_goals(self.space.keys(_freeze(self._m.state))))

    def goal_reached(self) -> bool:
        """The goal holds and nothing is running (a running action is not a plan yet)."""
        return not self._m.running and self.space.is_goal(_freeze(self._m.state))

    def next_event(self) -> Fraction | None:
        """The next time something happens or may happen: a running action's
        earliest or latest end, or a timed initial literal."""
        times = [t for r in self._m.running.values() for t in (r.earliest_end, r.latest_end)
                 if t is not None and t > self.clock]
        times += [Fraction(til.time.value) for til in self.tils[self._m.tils_done:]]
        return min(times) if times else None

    def observation(self) -> dict[str, Any]:
        nxt = self.next_event()
        return {"clock": _num(self.clock), "running": [r.to_dict() for r in self.running],
                "next_event": None if nxt is None else _num(nxt), "goal_reached": self.goal_reached(),
                "unsatisfied_goals": self.unsatisfied_goals()}

    def applicable(self) -> dict[str, list[dict[str, Any]]]:
        """What may happen now: durative actions that may start (with their
        duration windows), running actions that may end, plain actions."""
        before = _freeze(self._m.before)
        starts, plain = [], []
        for act in self.space.applicable(before, self._chosen):  # ends: the running actions' own
            name = act.schema.name
            if name.endswith("@start"):
                text = self.lifted.render_action(act.schema, act.args)
                try:
                    least, most = self._window(act.schema, act.args)
                except LookupError:
                    continue
                if least is not None and most is not None and least > most:
                    continue
                if self._start_reads[name[:-len("@start")]] and not act.applicable(self._probe(least)):
                    continue  # its condition reads ?duration: checked with its own (the least) duration
                if self._clash(act, least):
                    continue
                inv = self._invariant(name[:-len("@start")], act.args)
                if inv is None or not inv.applicable(self._m.state):  # it would break its own over all condition
                    continue
                starts.append({"action": text, "least": None if least is None else _num(least),
                               "most": None if most is None else _num(most)})
            elif "@" not in name and not self._clash(act, None):
                plain.append({"action": self.lifted.render_action(act.schema, act.args)})
        ends = []
        for r in self.running:
            try:
                self._end_checks(r)
            except StepRefused:
                continue
            ends.append(r.to_dict())
        return {"start": starts, "end": ends, "actions": plain}

    # ------------------------------------------------------------------ steps

    def start(self, action: str, duration: Value | str | None = None) -> Running:
        """Start a durative action now. ``duration``: needed when its window is
        not one value and its start reads ``?duration``; else the end decides."""
        name, schema, args, text = self._resolve(action, "@start")
        try:
            least, most = self._window(schema, args)
        except LookupError as err:
            raise StepRefused(f"{text} cannot start: its duration has no value ({err})") from None
        dur: Value | None = None if duration is None else duration if type(duration) is int else normal(
            Fraction(str(duration)))
        if dur is None and least is not None and least == most:
            dur = least
        if dur is not None and (dur < 0 or not all(_duration_ok(op, dur, bound, self.epsilon) for op, bound in
                                                    (("<=", most), (">=", least)) if bound is not None)):
            raise StepRefused(f"{text} cannot take {to_text(dur)}: its duration must lie in "
                              f"[{_show(least)}, {_show(most)}]", details={"least": least, "most": most})
        if dur is None and self._start_reads[name]:
            raise StepRefused(f"{text} reads ?duration when it starts: give its duration "
                              f"(in [{_show(least)}, {_show(most)}])", details={"least": least, "most": most})
        run = Running(self._m.next_id, text, name, args, self.clock, least, most, dur)

        def done(m: _Moment) -> None:
            m.running = {**m.running, run.id: run}  # a new dict: the undo record keeps the old one
            m.next_id += 1
            m.history.append((self.clock, text, dur, run.id))

        self._snap(schema, args, text, "start", dur if dur is not None else least, done)
        if (most if dur is None else dur) == 0:  # a zero duration: it ends in this happening (both or neither)
            try:
                self.end(run.id)
            except StepRefused:
                self._m = self._undo.pop().back(self._m)
                raise
            ended = self._undo.pop()  # one step to undo: the start and its end
            assert isinstance(ended, _SnapUndo)
            self._undo[-1].then = ended  # type: ignore[union-attr]  # the start's record (a snap's)
        return run

    def end(self, which: int | str) -> Running:
        """End a running action (by its id, or by its text: the earliest started); the action ended."""
        run = self._running(which)
        schema, dur = self._end_checks(run)

        def done(m: _Moment) -> tuple[int, HistoryEntry] | None:
            m.running = {k: r for k, r in m.running.items() if k != run.id}  # a new dict (see _Moment)
            for k in range(len(m.history) - 1, -1, -1):  # its start's entry gets the duration: one entry, not all
                when, text, old, i = m.history[k]
                if i == run.id:
                    m.history[k] = (when, text, dur, i)
                    return k, (when, text, old, i)  # for the undo record (it shares the history list)
            return None

        self._snap(schema, run.args, run.action, "end", dur, done)
        return run

    def execute(self, action: str) -> None:
        """Run a plain (instantaneous) action now."""
        _, schema, args, text = self._resolve(action, "")

        def done(m: _Moment) -> None:
            m.history.append((self.clock, text, None, None))

        self._snap(schema, args, text, "action", None, done)

    def advance(self, to: Value | str | None = None) -> Fraction:
        """Let time pass to ``to``, or to :meth:`next_event`. Timed initial
        literals on the way happen. Refused when a running action would pass
        the end of its window, or an ``over all`` condition would break."""
        target = self.next_event() if to is None else Fraction(str(to))
        if target is None:
            raise StepRefused("nothing is running and no timed literal is due: give a time to advance to")
        if target - self.clock <= self.epsilon / 10:
            raise StepRefused(f"time must move on by more than {to_text(normal(self.epsilon / 10))} "
                              f"(a tenth of epsilon: closer times are one happening)")
        m = self._m
        due = [r for r in m.running.values() if r.id in m.must_end or (r.latest_end is not None
                                                                        and r.latest_end < target)]
        for r in sorted(due, key=lambda r: (r.id not in m.must_end, r.latest_end is None, r.latest_end or 0,
                                            r.id)):  # the first deadline is told
            late = r.latest_end
            if r.id in self._m.must_end:
                raise StepRefused(f"{r.action} (id {r.id}) must end at {to_text(normal(self.clock))}: a step at this "
                                  "time broke its over all condition; end it (or undo that step) before time passes",
                                  details={"id": r.id})
            if late is not None and late < target:
                raise StepRefused(f"{r.action} (id {r.id}) must end by {to_text(normal(late))}: "
                                  f"advance to {to_text(normal(late))} and end it first", details={"id": r.id})
        if self.hidden is None and self.space.axioms is None and not (
                m.tils_done < len(self.tils) and Fraction(self.tils[m.tils_done].time.value) <= target):
            # nothing happens on the way: the undo record keeps the state object itself, which becomes the
            # state before the new happening (nothing writes into that without a ?duration fluent); one copy
            old = m.state
            self._undo.append(_Undo(_Moment(old, m.clock, m.before, list(m.prints), m.running, m.history,
                                            m.tils_done, m.next_id, m.must_end), len(m.history)))
            m.state = _copy(old)
            self._arrive(target, old)
            return target
        saved = m.mark()
        try:
            self._apply_tils_until(target)
        except StepRefused:
            self._m = saved.back(self._m)
            raise
        self._undo.append(saved)
        self._arrive(target)
        return target

    def step(self, text: str) -> Running | None:
        """One step from its text, as an agent writes it: ``(end 3)`` or ``(end
        (act a b))`` ends a running action (by id or text), a durative
        action's text starts it (``(act a b) [5]``: with duration 5), a plain
        action's text runs it. The action started or ended, else ``None``."""
        text = text.strip()
        duration = None
        if text.endswith("]") and "[" in text:
            text, _, rest = text.rpartition("[")
            duration, text = rest[:-1].strip(), text.strip()
        inner = text[1:-1].strip() if text.startswith("(") and text.endswith(")") else text
        word, _, rest = inner.partition(" ")
        if word.lower() == "end" and "end" not in self.task.durative and "end" not in self.task.plain:
            return self.end(rest.strip())
        if parse_action_ref(text).name in self.task.durative:
            return self.start(text, duration)
        self.execute(text)
        return None

    def explain(self, text: str) -> StepRefused | None:
        """Why :meth:`step` would refuse ``text`` now (``None``: it would be
        taken). Nothing changes. A text naming no action raises as :meth:`step` does."""
        saved, undo = self._m, list(self._undo)
        self._m = saved.copy()  # its own history list: the step's undo record shares that one, not the live one
        try:
            self.step(text)
        except StepRefused as err:
            return err
        finally:
            self._m, self._undo = saved, undo
        return None

    def step_count(self) -> int:
        """Steps taken (starts, plain actions) in the history, running actions included."""
        return len(self._m.history)

    def value_map(self) -> dict[str, str]:
        """The fluents' values now, by term (``{"(fuel t1)": "12.5"}``)."""
        return dict(v.rsplit(" = ", 1) for v in self.values())

    # ------------------------------------------------------------------ history

    def history(self) -> list[tuple[Fraction, str, Value | None]]:
        """The timed plan so far: ended durative actions and plain actions (a running action is not in it)."""
        ended = [(t, a, d) for t, a, d, i in self._m.history if i is None or i not in self._m.running]
        return sorted(ended, key=lambda s: s[0])

    def plan_text(self) -> str:
        return "".join(f"{plan_number(t)}: {a}{'' if d is None else f' [{plan_number(d)}]'}\n"
                       for t, a, d in self.history())

    def validate(self, epsilon: Value | None = None) -> TemporalReport:
        """Judge the history with the validator (the same semantics), at the
        session's tolerance or ``epsilon``. While actions run, the history is
        not yet a timed plan (a durative action needs its end): the verdict is
        then invalid, ``ACTIONS_RUNNING``, naming them, rather than a verdict
        on the plan without them."""
        report = validate_timed_plan(self.task, self.plan_text(), self.epsilon if epsilon is None else epsilon)
        running = self.running
        if not running:
            return report
        names = "; ".join(f"{r.action} (id {r.id}, started at {to_text(r.start)})" for r in running)
        what = "1 action is" if len(running) == 1 else f"{len(running)} actions are"
        failure = TemporalFailure(
            time=self.clock, step=None, action=running[0].action, code="ACTIONS_RUNNING",
            message=f"{what} still running: {names}; a timed plan gives each action its end: end them "
                    "first, or validate a given plan")
        return replace(report, valid=False, failure=failure)

    def reset(self) -> None:
        """Back to time 0 and the initial state (checkpoints are kept; undo then returns False)."""
        self._m = self._initial.copy()
        self._undo.clear()

    def checkpoints(self) -> list[tuple[str, int]]:
        """Each checkpoint's name and the steps in its history, oldest first."""
        return [(name, len(m.history)) for name, m in self._checkpoints.items()]

    def delete_checkpoint(self, name: str) -> None:
        if self._checkpoints.pop(name, None) is None:
            raise StepRefused(f"no checkpoint named '{name}'")

    def undo(self) -> bool:
        if not self._undo:
            return False
        self._m = self._undo.pop().back(self._m)
        return True

    def checkpoint(self, name: str) -> None:
        self._checkpoints[name] = self._m.copy()

    def restore(self, name: str) -> None:
        if name not in self._checkpoints:
            raise StepRefused(f"no checkpoint named '{name}'")
        self._undo.append(_Undo(self._m, len(self._m.history)))
        self._m = self._checkpoints[name].copy()

    # ------------------------------------------------------------------ inside

    def _resolve(self, action: str, suffix: str) -> tuple[str, Any, tuple[int, ...], str]:
        key = (action, suffix)
        found = self._resolved.get(key)
        if found is None:  # the same text always names the same action (refusals are not kept)
            if len(self._resolved) >= 4096:
                self._resolved.clear()  # bounded, whatever texts an agent sends
            found = self._resolved[key] = self._resolve_text(action, suffix)
        return found

    def _resolve_text(self, action: str, suffix: str) -> tuple[str, Any, tuple[int, ...], str]:
        ref = parse_action_ref(action)
        if suffix and ref.name not in self.task.durative:
            hint = "run it with execute" if ref.name in self.task.plain else "see the domain's actions"
            raise ActionReferenceError(f"'{ref.name}' is not a durative action ({hint})")
        if not suffix and ref.name not in self.task.plain:
            hint = "start it, then end it" if ref.name in self.task.durative else "see the domain's actions"
            raise ActionReferenceError(f"'{ref.name}' is not a plain action ({hint})")
        schema, args = self.lifted.resolve(ActionRef(ref.name + suffix, ref.args, ref.span, ref.text))
        return ref.name, schema, args, self.lifted.render_action(schema, args)

    def _running(self, which: int | str) -> Running:
        if isinstance(which, int) or (isinstance(which, str) and which.strip().isdigit()):
            found = self._m.running.get(int(which))
            if found is None:
                raise StepRefused(f"no running action has id {which}")
            return found
        ref = parse_action_ref(which)
        matches = [r for r in self.running if r.name == ref.name and
                   tuple(self.lifted.objects[a] for a in r.args) == ref.args]
        if not matches:
            raise StepRefused(f"{ref} is not running")
        due = [r for r in matches if r.earliest_end <= self.clock]
        return (due or matches)[0]

    def _end_checks(self, run: Running) -> tuple[Any, Value]:
        dur = normal(self.clock - run.start)
        if run.duration is not None and dur != run.duration:
            raise StepRefused(f"{run.action} (id {run.id}) ends at {to_text(normal(run.start + Fraction(run.duration)))} "
                              f"(its duration is {to_text(run.duration)}), not now")
        if not all(_duration_ok(op, dur, bound, self.epsilon) for op, bound in (("<=", run.most), (">=", run.least))
                   if bound is not None):
            raise StepRefused(f"{run.action} (id {run.id}) may end between "
                              f"{to_text(normal(run.earliest_end))} and "
                              f"{'any time' if run.latest_end is None else to_text(normal(run.latest_end))}, "
                              f"not at {to_text(normal(self.clock))}", details={"least": run.least, "most": run.most})
        schema = self.lifted.schema_index[f"{run.name}@end"]
        try:  # (at end (<= ?duration e)): read now, in the state before this happening
            least, most = self._window(schema, run.args, "end")
        except LookupError as err:
            raise StepRefused(f"{run.action} (id {run.id}) cannot end: its duration has no value ({err})") from None
        if not all(_duration_ok(op, dur, bound, self.epsilon) for op, bound in (("<=", most), (">=", least))
                   if bound is not None):
            raise StepRefused(f"{run.action} (id {run.id}) cannot end now: its duration {to_text(dur)} must lie in "
                              f"[{_show(least)}, {_show(most)}] by its at end constraints",
                              details={"least": least, "most": most})
        return schema, dur

    def _probe(self, duration: Value | None, state: Any = None) -> Any:
        """The state before this happening (or ``state``), with ``?duration`` set to ``duration``: a copy
        when the task has a ``?duration`` fluent to set, else the state itself (nothing writes into it)."""
        state = self._m.before if state is None else state
        if self.hidden is None or duration is None:
            return state
        probe = _copy(state)
        _with_duration(probe, self.hidden, duration)
        return probe

    def _window(self, schema: Any, args: tuple[int, ...], at: str = "start") -> tuple[Value | None, Value | None]:
        """:func:`~pypddlengine.temporal.duration_window` read in the state before this happening; kept per
        instance when the snap's duration bounds read no fluent (raises :class:`LookupError` as it does)."""
        key = (schema.id, args, at)
        found = self._windows.get(key)
        if found is not None:
            return found
        window = duration_window(self.task, schema, args, getattr(self._m.before, "values", ()), at)
        steady = self._steady.get(schema.id)
        if steady is None:
            fluents = self.lifted.fluent_functions
            steady = self._steady[schema.id] = not any(_reads_fluents(c.value, fluents)
                                                       for c in _snap_durations(self.task, schema))
        if steady:
            if len(self._windows) >= _KEPT:
                self._windows.clear()
            self._windows[key] = window
        return window

    def _invariant(self, name: str, args: tuple[int, ...]) -> Any:
        """The ground ``over all`` snap of durative action ``name`` (``None``: refuted statically)."""
        return self.space.lookup(self._all[name], args)

    def _footprint(self, act: Any, probe: Any) -> _Footprint:
        """``act``'s footprint in ``probe``; kept per ground action when no effect of it is conditional (only
        the conditions of its effects read the state)."""
        key = (act.schema.id, act.args)
        mine = self._prints.get(key)
        if mine is None:
            mine = _Footprint(act, probe, self.hidden, self.space, _snap_durations(self.task, act.schema))
            if all(e.cond is None for e in getattr(act, "effects", ())):
                if len(self._prints) >= _KEPT:
                    self._prints.clear()
                self._prints[key] = mine
        return mine

    def _clash(self, act: Any, duration: Value | None) -> bool:
        """Whether ``act`` (with ``duration``) interferes with a step already taken at this time. Footprints
        are made when a second step at one time needs them: a step's entry in ``prints`` is ``(act,
        duration)`` until then (the state before the happening, all a footprint reads, stays as it was)."""
        prints = self._m.prints
        if not prints:
            return False
        mine = self._footprint(act, self._probe(duration))
        for k, other in enumerate(prints):
            if other.__class__ is tuple:
                other = prints[k] = self._footprint(other[0], self._probe(other[1]))
            if mine.interferes(other):
                return True
        return False

    def _snap(self, schema: Any, args: tuple[int, ...], text: str, kind: str, duration: Value | None,
              done: Any) -> None:
        m = self._m
        act = self.space.lookup(schema, args)
        probe = self._probe(duration)
        what = {"start": "start", "end": "end", "action": "run"}[kind]
        if act is None or not act.applicable(probe):
            unsatisfied = self.lifted.unsatisfied(schema.instantiate(args), self.space.keys(_freeze(probe)))
            raise StepRefused(f"{text} cannot {what} now: its {kind if kind != 'action' else ''} condition does not "
                              "hold (conditions are read in the state at the start of this happening)".replace("  ", " "),
                              details={"unsatisfied": list(unsatisfied)})
        if self._clash(act, duration):
            raise StepRefused(f"{text} cannot {what} at {to_text(normal(self.clock))}: it interferes with a step "
                              "already taken at this time; advance the clock first")
        saved = _SnapUndo(m, *_writes(act), self.hidden, self.space.axioms is not None)
        try:  # (apply_snap writes ?duration into the state before: the record puts its value back)
            apply_snap(m.state, m.before, act, duration, self.hidden)
        except NumericError as err:
            self._m = saved.back(m)
            raise StepRefused(f"{text} cannot {what}: {err.message}") from None
        if self.space.axioms is not None:
            m.state = thaw(self.space.axioms(_freeze(m.state)))
        m.prints.append((act, duration))
        patched = done(m)
        if patched is not None:
            saved.patched.append(patched)
        broken = self._broken_invariants()
        if broken:
            clock = self.clock
            endable = [r for r, _ in broken if r.start < clock and r.earliest_end <= clock
                       and (r.latest_end is None or clock <= r.latest_end)]
            if len(endable) == len(broken):
                m.must_end = m.must_end | {r.id for r in endable}  # they end at this time, or time cannot pass
            else:
                self._m = saved.back(m)
                raise StepRefused(f"{text} cannot {what} now: it would break the over all condition of "
                                  + "; ".join(f"{r.action} (id {r.id}): {', '.join(u)}" for r, u in broken),
                                  details={"broken": [r.id for r, _ in broken]})
        self._undo.append(saved)

    def _broken_invariants(self) -> list[tuple[Running, list[str]]]:
        broken = []
        m = self._m
        state, clock, must_end, hidden = m.state, m.clock, m.must_end, self.hidden
        for r in m.running.values():
            if r.id in must_end:
                continue  # it ends at this time (see _Moment.must_end)
            if r.duration is not None and r.latest_end == clock:
                continue  # ends in this happening (its invariant holds on the open interval only)
            inv = self._invariant(r.name, r.args)
            probe = state if hidden is None else self._probe(r.duration if r.duration is not None else r.least,
                                                             state)
            if inv is None or not inv.applicable(probe):
                schema = self._all[r.name]
                broken.append((r, list(self.lifted.unsatisfied(schema.instantiate(r.args),
                                                              self.space.keys(_freeze(probe))))))
        return broken

    def _arrive(self, t: Fraction, before: Any = None) -> None:
        """The clock at ``t``: a new happening, whose state before is ``before`` (else a copy of the state)."""
        self._m.must_end = frozenset()
        self._m.clock = t
        self._m.before = _copy(self._m.state) if before is None else before
        self._m.prints = []

    def _apply_tils_until(self, target: Fraction) -> None:
        m = self._m
        while m.tils_done < len(self.tils) and Fraction(self.tils[m.tils_done].time.value) <= target:
            til = self.tils[m.tils_done]
            t = Fraction(til.time.value)
            if t > m.clock:
                self._arrive(t)
            apply_til(self.space, m.state, til)
            m.prints.append(_til_footprint(self.space, til))  # a step at this time must not interfere with it
            m.tils_done += 1
            broken = self._broken_invariants()
            if broken:
                raise StepRefused(f"time cannot pass {to_text(normal(t))}: the timed literal there breaks the over "
                                  "all condition of " + "; ".join(f"{r.action} (id {r.id})" for r, _ in broken))
        if self.space.axioms is not None:
            m.state = thaw(self.space.axioms(_freeze(m.state)))


def needs_time(err: PDDLError) -> bool:
    """Whether ``err`` is a classical session's refusal of a temporal task
    (open it with :func:`open_temporal_session` then)."""
    return err.code == "UNSUPPORTED_REQUIREMENT" and err.details.get("feature") in TEMPORAL_FEATURES


def open_temporal_session(domain: PDDLSource, problem: PDDLSource, *, epsilon: Value = DEFAULT_EPSILON,
                          domain_name: str | None = None, problem_name: str | None = None,
                          max_bytes: int = MAX_INPUT_BYTES, text: bool = False, feedback: Any = None,
                          **options: Any) -> TemporalSession:
    """A :class:`TemporalSession` on a domain and problem, each a file path or
    PDDL text (as :func:`pypddlengine.session.open_session` reads them; with
    ``text`` always text). ``epsilon``: VAL's ``-t``. ``feedback`` is
    accepted and not used (a temporal session's replies are the same at every
    level); :data:`SESSION_ONLY_OPTIONS` with a value other than their default
    are refused (``FEATURE_UNAVAILABLE``)."""
    given = sorted(k for k, v in options.items() if k not in SESSION_ONLY_OPTIONS or v not in (None, False, 0,
                                                                                                _DEFAULTS.get(k)))
    if given:
        raise FeatureUnavailableError(f"a temporal session takes no {', '.join(given)}",
                                      hint="open it without them (docs/time.md)", details={"options": given})

    (d_text, d_name), (p_text, p_name) = read_task_sources(domain, problem, max_bytes=max_bytes,
                                                           domain_name=domain_name, problem_name=problem_name,
                                                           text=text)
    task = compile_temporal(parse_domain(d_text, filename=d_name, max_bytes=max_bytes),
                            parse_problem(p_text, filename=p_name, max_bytes=max_bytes))
    return TemporalSession(task, epsilon)


_KEPT = 1 << 16
"""At most this many ground actions' footprints and duration windows are kept (then forgotten at once)."""


def _reads_fluents(e: Any, fluents: Any) -> bool:
    """Whether the numeric expression ``e`` reads a fluent (or ``?duration``)."""
    if isinstance(e, FunctionTerm):
        return e.name in fluents
    if isinstance(e, BinaryExpr):
        return _reads_fluents(e.left, fluents) or (e.right is not None and _reads_fluents(e.right, fluents))
    return isinstance(e, DurationVar)


def _show(v: Value | None) -> str:
    return "unbounded" if v is None else to_text(v)
