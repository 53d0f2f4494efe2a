"""Time: durative actions and timed initial literals (PDDL 2.1 level 3, PDDL 2.2 TILs), one semantics.

A stage on top of :mod:`pypddlengine.step`, not a branch inside it. A temporal
task is compiled once into a plain lifted task (:class:`~pypddlengine.lifted.LiftedTask`)
whose schemas are *snap actions*: for each durative action ``d`` a start snap
``d@start`` (its ``at start`` conditions and effects), an end snap ``d@end``
(``at end``) and an invariant ``d@all`` (its ``over all`` condition, no effect).
Each snap instance is instantiated and executed by step.py exactly as a
classical step is (conditions, conditional effects, numeric effects, derived
atoms). ``?duration`` is a hidden 0-ary fluent, ``?duration``, that the
stage sets to the instance's duration while its snap is checked and applied.
Names with ``@`` cannot be written in PDDL, so they never clash with the
domain's own names, and a plan cannot name them.

The semantics (Fox and Long 2003, as VAL implements it; see docs/time.md):

* A plan's *happenings* are its distinct time points: starts, ends
  (start + duration), plain actions and timed initial literals.
* At a happening every snap action's condition is checked in the state
  before it; then all effects apply (each read in the state before).
  Two snap actions of one happening, or of happenings closer than
  ``epsilon``, must not interfere (one writes what the other reads or
  writes, increases and decreases of one fluent excepted).
* An ``over all`` condition holds in every state strictly inside the
  action's interval: after its start happening and after every happening
  before its end.
* Duration constraints are evaluated in the state before the start
  happening and compared with the duration the plan gives.
* The goal is checked in the state after the last happening; ``total-time``
  is the time of the last happening of an action (the makespan).

Nothing here prints or imports anything above the task layer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import field, replace
from decimal import Decimal
from fractions import Fraction
from math import lcm
from operator import itemgetter
from typing import Any

from .checker import ensure_valid
from .errors import ErrorCode, NumericError, PDDLError, PDDLSyntaxError, SourceFile, Span
from .exact import Value, normal, to_json, to_text
from .lazy import LazyTask
from .lifted import LiftedTask
from .model import (
    ActionDecl,
    ActionRef,
    Add,
    And,
    Atom,
    BinaryExpr,
    Compare,
    Condition,
    Domain,
    DurationVar,
    DurativeActionDecl,
    Effect,
    EffectAnd,
    Exists,
    Forall,
    ForallEffect,
    FunctionDecl,
    FunctionTerm,
    Imply,
    Not,
    Number,
    NumericEffect,
    NumericFact,
    NumExpr,
    Or,
    Parameter,
    Preference,
    Problem,
    TimedLiteral,
    Variable,
    When,
)
from .numeric import evaluate, fluent_ids
from .step import GroundAction, NumericState, read_error, thaw
from .usercache import dataclass

__all__ = [
    "DEFAULT_EPSILON",
    "DURATION_FLUENT",
    "TemporalReport",
    "TemporalTask",
    "TimedStep",
    "compile_temporal",
    "is_temporal",
    "load_temporal",
    "parse_timed_plan",
    "validate_timed_plan",
]

DEFAULT_EPSILON = Fraction(1, 100)
"""VAL's default temporal tolerance (``Validate -t``)."""
DURATION_FLUENT = "@duration"
"""The hidden fluent that holds a snap instance's duration while it is checked and applied."""
_SNAPS = ("start", "end", "all")


def is_temporal(domain: Domain, problem: Problem | None = None) -> bool:
    """Whether the task needs this stage: durative actions or timed initial literals."""
    return bool(domain.durative_actions) or (
        problem is not None and any(isinstance(f, TimedLiteral) for f in problem.init))


# --------------------------------------------------------------------------- compilation


def _uses_duration(node: Any) -> bool:
    match node:
        case DurationVar():
            return True
        case BinaryExpr(left=l, right=r):
            return _uses_duration(l) or (r is not None and _uses_duration(r))
        case Compare(left=l, right=r):
            return _uses_duration(l) or _uses_duration(r)
        case And(parts=ps) | Or(parts=ps) | EffectAnd(parts=ps):
            return any(_uses_duration(p) for p in ps)
        case Not(operand=x) | Exists(body=x) | Forall(body=x) | Preference(body=x) | ForallEffect(effect=x):
            return _uses_duration(x)
        case Imply(antecedent=a, consequent=c):
            return _uses_duration(a) or _uses_duration(c)
        case When(condition=c, effect=e):
            return _uses_duration(c) or _uses_duration(e)
        case NumericEffect(value=v):
            return _uses_duration(v)
    return False


_DURATION_TERM = FunctionTerm(DURATION_FLUENT, ())


def _expr(e: NumExpr) -> NumExpr:
    match e:
        case DurationVar():
            return FunctionTerm(DURATION_FLUENT, (), e.span)
        case BinaryExpr(op=op, left=l, right=r, span=s):
            return BinaryExpr(op, _expr(l), None if r is None else _expr(r), s)
    return e


def _cond(c: Condition | None) -> Condition | None:
    match c:
        case None:
            return None
        case Compare(op=op, left=l, right=r, span=s):
            return Compare(op, _expr(l), _expr(r), s)
        case And(parts=ps, span=s):
            return And(tuple(_cond(p) for p in ps), s)  # type: ignore[misc]
        case Or(parts=ps, span=s):
            return Or(tuple(_cond(p) for p in ps), s)  # type: ignore[misc]
        case Not(operand=x, span=s):
            return Not(_cond(x), s)  # type: ignore[arg-type]
        case Imply(antecedent=a, consequent=b, span=s):
            return Imply(_cond(a), _cond(b), s)  # type: ignore[arg-type]
        case Exists(variables=vs, body=b, span=s):
            return Exists(vs, _cond(b), s)  # type: ignore[arg-type]
        case Forall(variables=vs, body=b, span=s):
            return Forall(vs, _cond(b), s)  # type: ignore[arg-type]
    return c


def _eff(e: Effect | None) -> Effect | None:
    match e:
        case None:
            return None
        case EffectAnd(parts=ps, span=s):
            return EffectAnd(tuple(_eff(p) for p in ps), s)  # type: ignore[misc]
        case When(condition=c, effect=x, span=s):
            return When(_cond(c), _eff(x), s)  # type: ignore[arg-type]
        case ForallEffect(variables=vs, effect=x, span=s):
            return ForallEffect(vs, _eff(x), s)  # type: ignore[arg-type]
        case NumericEffect(op=op, target=t, value=v, span=s):
            return NumericEffect(op, t, _expr(v), s)
    return e


def snap_task(domain: Domain, problem: Problem) -> tuple[Domain, Problem]:
    """The plain domain and problem of the snap actions (see the module docstring)."""
    actions: list[ActionDecl] = list(domain.actions)
    for d in domain.durative_actions:
        for at in _SNAPS:
            pre = _cond(d.condition_at(at))
            eff = None if at == "all" else _eff(d.effect_at(at))
            actions.append(ActionDecl(f"{d.name}@{at}", d.parameters, pre, eff, d.span, f"{d.display or d.name}"))
    functions = list(domain.functions)
    init = [f for f in problem.init if not isinstance(f, TimedLiteral)]
    if any(_uses_duration(c.condition) for d in domain.durative_actions for c in d.conditions) or any(
            _uses_duration(e.effect) for d in domain.durative_actions for e in d.effects):
        functions.append(FunctionDecl(DURATION_FLUENT, (), "number", None, DURATION_FLUENT))
        init.append(NumericFact(_DURATION_TERM, Number(0)))
        actions.append(ActionDecl("@set-duration", (), None, NumericEffect("assign", _DURATION_TERM, Number(0))))
    preds = {p.name: p for p in domain.predicates}
    for name in dict.fromkeys(_til_atom(f).predicate for f in problem.init if isinstance(f, TimedLiteral)):
        decl = preds.get(name)
        if decl is not None:  # a predicate a TIL changes is a fluent even when no action does
            params = tuple(Parameter(f"?x{i}", p.types) for i, p in enumerate(decl.parameters))
            atom = Atom(name, tuple(Variable(p.name) for p in params))
            actions.append(ActionDecl(f"@til-{name}", params, None, Add(atom)))
    snap_domain = replace(domain, functions=tuple(functions), actions=tuple(actions), durative_actions=())
    object.__setattr__(snap_domain, "source", domain.source)
    snap_problem = replace(problem, init=tuple(init))
    object.__setattr__(snap_problem, "source", problem.source)
    return snap_domain, snap_problem


class TemporalTask:
    """A checked temporal task: the snap-action lifted task and what the
    stage needs beside it (durative actions by name, timed initial literals)."""

    def __init__(self, domain: Domain, problem: Problem) -> None:
        self.report = ensure_valid(domain, problem, temporal=True)
        """The check of the task as written (its warnings are the user's)."""
        self.domain, self.problem = domain, problem
        snap_domain, snap_problem = snap_task(domain, problem)
        self.lifted: LiftedTask = LiftedTask(snap_domain, snap_problem, ensure_valid(snap_domain, snap_problem))
        self.durative: dict[str, DurativeActionDecl] = {d.name: d for d in domain.durative_actions}
        self.plain: frozenset[str] = frozenset(a.name for a in domain.actions)
        self.tils: tuple[TimedLiteral, ...] = tuple(f for f in problem.init if isinstance(f, TimedLiteral))
        self.duration_fluent: int | None = self.lifted.fluent_ids.get((DURATION_FLUENT, ())) \
            if self.lifted.numeric_task else None

    def schema(self, name: str) -> Any:
        return self.lifted.schema_index[name]


def compile_temporal(domain: Domain, problem: Problem) -> TemporalTask:
    """Check (durative actions and TILs allowed) and compile a temporal task."""
    return TemporalTask(domain, problem)


def load_temporal(domain_path: str, problem_path: str) -> TemporalTask:
    """Read, parse, check and compile a temporal task from two files."""
    from .sources import read_file
    from .syntax import parse_domain, parse_problem

    d = parse_domain(read_file(domain_path), filename=str(domain_path))
    p = parse_problem(read_file(problem_path), filename=str(problem_path))
    return compile_temporal(d, p)


# --------------------------------------------------------------------------- timed plans


@dataclass(frozen=True, slots=True)
class TimedStep:
    """``time: (name arg ...) [duration]`` of a timed plan (``duration`` ``None``
    for a plain action). Times and durations are exact decimals as written."""

    time: Fraction
    name: str
    args: tuple[str, ...]
    duration: Fraction | None
    text: str
    line: int = field(default=0, compare=False)

    @property
    def span(self) -> Span | None:
        return Span(self.line, 1, self.line, 1) if self.line else None


_STEP = re.compile(r"^\s*(?:(?P<time>[-+]?[0-9]{0,15}\.?[0-9]{1,15})\s*:)?\s*\(\s*(?P<body>[^()]*?)\s*\)"
                   r"\s*(?:\[\s*(?P<dur>[-+]?[0-9]{0,15}\.?[0-9]{1,15})\s*\])?\s*(?P<rest>.*)$")
"""A step: decimals as IPC plans write them (at most 15 digits each side of the point: times stay finite and
exact in floating point's range, where VAL computes them)."""
_PLACES = re.compile(r"\.([0-9]+)")
_WRITTEN = re.compile(r"([-+]?[0-9]{0,15}\.?[0-9]{1,15}): \(([^()]*)\)(?: \[([-+]?[0-9]{0,15}\.?[0-9]{1,15})\])?")
"""A step as planners write it (``0.000: (act a b) [5.000]``), read first: a line it matches whole, :data:`_STEP`
matches with the same time, duration and words (its body is stripped, which splitting ignores) and nothing after."""


def parse_timed_plan(text: str, name: str = "<plan>") -> list[TimedStep]:
    """Steps of an IPC timed plan: ``0.000: (act a b) [5.000]`` per line;
    ``;`` comments, blank lines and a stray ``)`` after a step (LPG writes
    one) are skipped; names are folded here. Anything else raises a located
    :class:`PDDLSyntaxError`."""
    steps: list[TimedStep] = []
    for index, (time, words, dur, number) in enumerate(_plan_lines(text, name)):
        # through Decimal: the same exact value as Fraction(text), whose own parsing is several times slower
        steps.append(TimedStep(Fraction(Decimal(time)) if time is not None else Fraction(index), words[0],
                               tuple(words[1:]), Fraction(Decimal(dur)) if dur is not None else None,
                               f"({' '.join(words)})", number))
    return steps


def _plan_lines(text: str, name: str) -> list[tuple[str | None, list[str], str | None, int]]:
    """``(time, words, duration, line)`` of each step of a timed plan, numbers as written (``None``: absent),
    words folded: the one reader of timed plans, behind :func:`parse_timed_plan` and the validator."""
    lines: list[tuple[str | None, list[str], str | None, int]] = []
    match, written = _STEP.match, _WRITTEN.fullmatch
    seen: dict[str, list[str]] = {}  # steps written alike share one list of words (the validator resolves it once)
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].strip()
        if not line or line == ")":
            continue
        m = written(line)
        if m is not None:
            time, body, dur = m.groups()
            words = seen.get(body)
            if words is None:
                words = seen[body] = body.lower().split()
            if words:
                lines.append((time, words, dur, number))
                continue
        m = match(line)
        if m is not None:
            time, body, dur, rest = m.groups()
            rest = rest.strip()
            if body and not (rest and rest.strip(")")):
                lines.append((time, body.lower().split(), dur, number))
                continue
        quoted = f"'{line}'" if len(line) <= 120 else f"'{line[:100]}...' ({len(line):,} characters)"
        raise PDDLSyntaxError(f"not a timed plan step: {quoted}", span=Span(number, 1, number, len(raw) + 1),
                              source=SourceFile(name, text), hint="write 'time: (action arg ...) [duration]'")
    return lines


# --------------------------------------------------------------------------- validation


@dataclass(frozen=True, slots=True)
class TemporalFailure:
    """Why a timed plan fails: at which happening (time), which step, what."""

    time: Value | None
    step: int | None
    action: str
    code: str
    message: str
    unsatisfied: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return {"time": None if self.time is None else to_json(self.time), "step": self.step,
                "action": self.action, "code": self.code, "message": self.message,
                "unsatisfied": list(self.unsatisfied)}


@dataclass(frozen=True, slots=True)
class TemporalReport:
    """The verdict on a timed plan (VAL's: valid when every happening executes,
    every invariant and duration holds, no interference, and the goal holds)."""

    valid: bool
    steps: int
    happenings: int
    makespan: Value
    goal_reached: bool
    unsatisfied_goals: tuple[str, ...] = ()
    failure: TemporalFailure | None = None
    metric: Value | None = None
    metric_direction: str | None = None

    def summary(self) -> str:
        if self.valid:
            text = f"Plan valid: {self.steps} steps, {self.happenings} happenings, makespan {to_text(self.makespan)}"
            if self.metric is not None:
                text += f", metric ({self.metric_direction}) {to_text(self.metric)}"
            return text
        if self.failure is not None:
            f = self.failure
            at = f" at time {to_text(f.time)}" if f.time is not None else ""
            step = f" (step {f.step})" if f.step else ""
            why = "".join(f"\n  unsatisfied: {u}" for u in f.unsatisfied)
            return f"Plan failed{at}: {f.action}{step}: {f.message} [{f.code}]{why}"
        goals = "".join(f"\n  unsatisfied: {u}" for u in self.unsatisfied_goals)
        return f"Plan executed but the goal does not hold (makespan {to_text(self.makespan)}){goals}"

    def to_dict(self) -> dict[str, object]:
        return {"valid": self.valid, "steps": self.steps, "happenings": self.happenings,
                "makespan": to_json(self.makespan), "goal_reached": self.goal_reached,
                "unsatisfied_goals": list(self.unsatisfied_goals),
                "failure": None if self.failure is None else self.failure.to_dict(),
                "metric": None if self.metric is None else to_json(self.metric),
                "metric_direction": self.metric_direction}


class _Failed(Exception):
    def __init__(self, failure: TemporalFailure) -> None:
        self.failure = failure


def _lifted_reads(space: LazyTask, cond: Condition | None, binding: dict[str, int], atoms: set[int],
                  fluents: set[int], seen: set[Any] | None = None) -> None:
    """Every atom and fluent a condition mentions under ``binding``, quantifiers
    expanded, static parts included: VAL judges interference on the
    conditions as written, not as simplified by the static facts. A derived
    atom reads what its rules' bodies read (VAL: a step adding an atom a
    derived condition depends on interferes with the step reading it)."""
    lifted = space.lifted
    match cond:
        case Atom():
            key = lifted._key(cond, binding)  # noqa: SLF001
            atoms.add(space.intern(key))
            _derived_reads(space, key, atoms, fluents, seen)
        case Not(operand=x):
            _lifted_reads(space, x, binding, atoms, fluents, seen)
        case And(parts=ps) | Or(parts=ps):
            for part in ps:
                _lifted_reads(space, part, binding, atoms, fluents, seen)
        case Imply(antecedent=a, consequent=c):
            _lifted_reads(space, a, binding, atoms, fluents, seen)
            _lifted_reads(space, c, binding, atoms, fluents, seen)
        case Exists(variables=vs, body=b) | Forall(variables=vs, body=b):
            for inner in lifted._extend(binding, vs):  # noqa: SLF001
                _lifted_reads(space, b, inner, atoms, fluents, seen)
        case Compare(left=left, right=right):
            for side in (left, right):
                try:
                    fluent_ids(lifted.ground_expr(side, binding), fluents)
                except (LookupError, PDDLError):
                    pass


def _derived_reads(space: LazyTask, key: Any, atoms: set[int], fluents: set[int], seen: set[Any] | None) -> None:
    """What a derived atom reads: its rules' bodies under its arguments (recursion cut by ``seen``)."""
    lifted = space.lifted
    if key[0] not in lifted.derived_predicates or key in (seen := set() if seen is None else seen):
        return
    seen.add(key)
    for axiom in lifted.domain.axioms:
        if lifted.predicate_index[axiom.predicate] == key[0]:
            inner = {p.name: arg for p, arg in zip(axiom.parameters, key[1:], strict=True)}
            _lifted_reads(space, axiom.body, inner, atoms, fluents, seen)


def _formula_reads(space: LazyTask, f: Any, atoms: set[int], fluents: set[int]) -> None:
    """Every atom and fluent a ground formula reads (see :data:`pypddlengine.step.Formula`), derived atoms
    standing for what their rules read."""
    from .step import NUMERIC

    if f.__class__ is int:
        atom = f if f >= 0 else ~f
        atoms.add(atom)
        _derived_reads(space, space.atoms[atom], atoms, fluents, None)
        return
    kind, parts = f
    if kind == NUMERIC:
        for side in (parts.left, parts.right):
            fluent_ids(side, fluents)
        return
    for part in parts:
        _formula_reads(space, part, atoms, fluents)


def _snap_durations(task: TemporalTask, schema: Any) -> tuple[Any, ...]:
    """The duration constraints a snap action reads: a start's (unmarked or ``at start``), an end's (``at end``)."""
    name, _, at = schema.name.rpartition("@")
    d = task.durative.get(name)
    return () if d is None or at not in ("start", "end") else tuple(_constraints_at(d, at))


class _Footprint:
    """What a snap action reads and writes in the state before its happening (for interference)."""

    __slots__ = ("add", "additive", "delete", "fluents_read", "fluents_written", "reads")

    def __init__(self, act: GroundAction, state: Any, hidden: int | None, space: LazyTask,
                 durations: Iterable[Any] = ()) -> None:
        reads: set[int] = set(act.pre) | set(act.neg)
        fr: set[int] = set()
        add, delete = set(act.add), set(act.delete)
        fw: set[int] = set()
        additive: set[int] = set()
        binding = act.schema.binding(act.args)
        _lifted_reads(space, act.schema.decl.precondition, binding, reads, fr)
        for c in durations:  # a duration constraint reads its fluents when it is checked (VAL: a mutex)
            try:
                fluent_ids(space.lifted.ground_expr(c.value, binding), fr)
            except (LookupError, PDDLError):
                pass
        updates = list(getattr(act, "numeric", ()))
        for e in getattr(act, "effects", ()):
            if e.cond is None or _holds(e.cond, state):  # the condition of an effect that fires is read (VAL:
                add.update(e.add)  # one that does not fire reads nothing, whatever another step does to it)
                delete.update(e.delete)
                updates.extend(e.numeric)
                if e.cond is not None:
                    _formula_reads(space, e.cond, reads, fr)
        for u in updates:
            target = getattr(u, "target", None)
            if target is None:
                continue
            fw.add(target)
            if u.op in ("increase", "decrease"):
                additive.add(target)
            fluent_ids(u.value, fr)
        if hidden is not None:
            fr.discard(hidden)
            fw.discard(hidden)
        self.reads, self.add, self.delete = reads, add, delete
        self.fluents_read, self.fluents_written, self.additive = fr, fw, additive - (fw - additive)

    def interferes(self, other: _Footprint) -> bool:
        a, b = self, other
        if (a.add | a.delete) & b.reads or (b.add | b.delete) & a.reads:
            return True
        if a.add & b.delete or b.add & a.delete:
            return True
        if a.fluents_written & b.fluents_read or b.fluents_written & a.fluents_read:
            return True
        both = a.fluents_written & b.fluents_written
        return bool(both - (a.additive & b.additive))


def _holds(f: Any, state: Any) -> bool:
    from .step import holds

    return holds(f, state)


def _with_duration(state: Any, hidden: int | None, value: Value | None) -> None:
    if hidden is not None and value is not None:
        state.values[hidden] = value


_END, _START, _ACTION, _TIL = 0, 1, 2, 3
"""The snap actions of a happening, in the order they are taken: ends, starts, plain actions, timed literals."""
_KINDS = ("end", "start", "action", "timed literal")
_ORDER = itemgetter(0)


def validate_timed_plan(task: TemporalTask, plan: Sequence[TimedStep] | str,
                        epsilon: Value = DEFAULT_EPSILON, name: str = "<plan>") -> TemporalReport:
    """Validate a timed plan (steps, or its text, named ``name`` in errors)
    with the semantics of the module docstring. ``epsilon`` is VAL's ``-t``.

    Times are exact and counted here in integers: every time and duration of
    the plan and every timed literal's time is a whole number of ``1 / unit``
    (for decimals as plans write them, ``unit`` is ten to the largest number
    of places), so that their sums, comparisons and dictionary keys are
    integer ones; Fractions are made only for the report and for the value of
    ``?duration``. Whether two times are one happening, and whether a
    duration meets its bound, is decided in floating point, as VAL does."""
    texts: list[str] | None = None
    tils = task.tils
    til_times = [Fraction(til.time.value) for til in tils]
    if isinstance(plan, str):
        lines: list[tuple[Any, list[str], Any, int]] = _plan_lines(plan, name)  # type: ignore[assignment]
        unit = _time_unit(plan, til_times)
    else:
        given = list(plan)
        texts = [st.text for st in given]
        lines = [(st.time, [st.name, *st.args], st.duration, st.line) for st in given]
        unit = _time_unit(None, [*(x for st in given for x in (st.time, st.duration) if x is not None), *til_times])
    shift = [unit // 10 ** p for p in range(len(str(unit)))]  # unit // 10 ** p for every p with 10 ** p | unit

    def exact(t: int) -> Fraction:
        return Fraction(t, unit)

    space = LazyTask(task.lifted)
    lifted = space.lifted
    lookup = space.lookup
    hidden = task.duration_fluent
    eps = Fraction(epsilon) if not isinstance(epsilon, Fraction) else epsilon
    tolerance = float(eps)
    state: Any = thaw(space.init)
    numeric = hasattr(state, "values")
    failure: TemporalFailure | None = None
    happenings = 0
    makespan = 0  # in units, as every time below
    # step n (from 1) is steps[n]: its snap schemas (start or plain action, end, over all), objects, time, duration
    steps: list[tuple[tuple[Any, Any, Any], tuple[int, ...], int, int]] = [((None, None, None), (), 0, 0)]

    def label(n: int) -> str:  # made for a failure only
        return lifted.render_action(steps[n][0][0], steps[n][1])

    try:
        events: dict[int, list[tuple[int, int, float]]] = {}  # time -> (kind, step or TIL, time as VAL computes it)
        snaps: dict[str, tuple[Any, Any, Any]] = {
            d: (lifted.schema_index[f"{d}@start"], lifted.schema_index[f"{d}@end"], lifted.schema_index[f"{d}@all"])
            for d in task.durative}
        starts = {d: f"{d}@start" for d in task.durative}
        plain = task.plain
        resolve = lifted.resolve_known
        known: dict[int, tuple[Any, Any]] = {}  # id(words) -> (snap schemas, resolution), for steps written alike
        for number, (time, words, dur, line) in enumerate(lines, start=1):
            if time.__class__ is str:  # _in_units(time, unit), inline
                whole, _, places = time.partition(".")
                t = int(whole + places) * shift[len(places)]
            else:
                t = (number - 1) * unit if time is None else _in_units(time, unit)
            fat = t / unit  # the time in binary floating point, as VAL reads it (an int division rounds exactly)
            found = known.get(id(words))
            if found is not None:
                triple, hit = found
            else:
                verb, args = words[0], words[1:]
                triple = snaps.get(verb)
                if triple is None and verb not in plain:
                    raise _Failed(TemporalFailure(exact(t), number, _words(verb, args) if texts is None
                                                  else texts[number - 1], ErrorCode.UNKNOWN_ACTION,
                                                  f"the domain has no action '{verb}'"))
                key = verb if triple is None else starts[verb]
                hit = resolve(key, args)  # type: ignore[arg-type]  # (a list: it is only read)
                if hit is None:  # a bad reference: the full resolution says what is wrong
                    text = _words(verb, args) if texts is None else texts[number - 1]
                    try:
                        hit = lifted.resolve(ActionRef(key, tuple(args), Span(line, 1, line, 1) if line else None,
                                                       text))
                    except PDDLError as err:
                        raise _Failed(TemporalFailure(exact(t), number, text, err.code, err.message)) from None
                known[id(words)] = triple, hit
            if triple is None:
                steps.append(((hit[0], None, None), hit[1], t, 0))  # VAL ignores a duration after a plain action
                at = events.get(t)
                if at is None:
                    events[t] = [(_ACTION, number, fat)]
                else:
                    at.append((_ACTION, number, fat))
                continue
            if dur is None:
                raise _Failed(TemporalFailure(exact(t), number, lifted.render_action(*hit), "MISSING_DURATION",
                                              "a durative action needs its duration: '[d]' after the action"))
            d = _in_units(dur, unit)
            if d < 0:  # VAL runs the end before the start instead (docs/time.md)
                raise _Failed(TemporalFailure(exact(t), number, lifted.render_action(*hit), "BAD_DURATION",
                                              f"the duration {to_text(normal(exact(d)))} is negative"))
            steps.append((triple, hit[1], t, d))
            at = events.get(t)
            if at is None:
                events[t] = [(_START, number, fat)]
            else:
                at.append((_START, number, fat))
            at = events.get(t + d)
            if at is None:  # VAL: the end's time is the start's float plus the duration's
                events[t + d] = [(_END, number, fat + d / unit)]
            else:
                at.append((_END, number, fat + d / unit))
        for i, til_time in enumerate(til_times):
            t = _in_units(til_time, unit)
            events.setdefault(t, []).append((_TIL, i, t / unit))
        bounds = _DurationBounds(task)
        fixed, evaluate_bounds = bounds.cache, bounds.of
        running: dict[int, Any] = {}  # step -> its invariant action, for every action running
        watched: dict[int, Any] = {}  # the same, for the running actions whose invariant may fail
        merge = tolerance / 10

        def condition(t: int, kind: int, n: int, before: Any) -> Any:
            """The ground snap action ``kind`` of step ``n``, its duration and condition checked in ``before``."""
            triple, args, _, length = steps[n]
            schema = triple[kind == _END]
            if kind != _ACTION:  # (at end (<= ?duration e)) is read at the end (PDDL 2.1, VAL)
                found = fixed.get(schema.id)  # the bounds of every instance, when they are the same
                if found is None:
                    found = evaluate_bounds(schema, args, before.values if numeric else ())
                for op, bound, expr in found:
                    if bound is None:
                        raise _Failed(TemporalFailure(exact(t), n, label(n), "BAD_DURATION",
                                                      f"the duration bound {_show(expr)} has no value here"))
                    if not _fits(op, length / unit, float(bound), tolerance):
                        raise _Failed(TemporalFailure(
                            exact(t), n, label(n), "BAD_DURATION",
                            f"the duration {to_text(normal(exact(length)))} does not satisfy "
                            f"(?duration {op} {_show(expr)}) = {to_text(bound)}"))
                if hidden is not None:  # the hidden ?duration slot is set for each reader in turn
                    before.values[hidden] = exact(length)
            act = lookup(schema, args)
            if act is None or not act.applicable(before):
                read = None if act is None else read_error(act, before)
                why = "its condition does not hold" if read is None else read.message
                raise _Failed(TemporalFailure(
                    exact(t), n, f"{label(n)} ({_KINDS[kind]})", "INAPPLICABLE_ACTION", why,
                    tuple(lifted.unsatisfied(schema.instantiate(args), space.keys(before)))))
            return act

        def effect(state: Any, before: Any, t: int, kind: int, n: int, act: Any) -> None:
            """Apply the snap action ``act`` (``kind`` of step ``n``), its effects read in ``before``."""
            try:
                apply_snap(state, before, act, None if kind == _ACTION else exact(steps[n][3]), hidden)
            except NumericError as err:
                raise _Failed(TemporalFailure(exact(t), n, label(n), err.code, err.message)) from None

        def start(n: int) -> None:
            triple, args, _, _ = steps[n]
            inv = running[n] = lookup(triple[2], args)
            if not (inv.__class__ is GroundAction and hidden is None and not inv.pre and not inv.neg):
                watched[n] = inv  # (an invariant without a condition holds in every state)

        for t, group in _happenings(events, merge):
            happenings += 1
            if len(group) == 1:  # one snap: no other to interfere with, its effects can read the state itself
                kind, n, _ = group[0]
                if kind == _TIL:
                    apply_til(space, state, tils[n])
                else:
                    act = condition(t, kind, n, state)
                    if act.__class__ is GroundAction and hidden is None:  # STRIPS: what apply_snap does
                        state.difference_update(act.delete)
                        state.update(act.add)
                    else:
                        effect(state, state, t, kind, n, act)
                    if kind == _START:
                        start(n)
                    elif kind == _END:
                        running.pop(n, None)
                        watched.pop(n, None)
                    if t > makespan:  # total-time: the last happening of the plan's own steps (VAL's)
                        makespan = t
            else:
                group.sort(key=_ORDER)  # stable: a kind's snaps in time order, then plan (or TIL) order
                before = _copy(state)
                acts: list[Any] = []
                prints: list[tuple[int, int, _Footprint]] = []
                # conditions, in the state before the happening
                for kind, n, _ in group:
                    if kind == _TIL:  # a timed literal interferes like a snap action that sets its atom (VAL)
                        acts.append(None)
                        prints.append((kind, n, _til_footprint(space, tils[n])))
                        continue
                    act = condition(t, kind, n, before)
                    acts.append(act)
                    schema = steps[n][0][kind == _END]
                    prints.append((kind, n, _Footprint(act, before, hidden, space, _snap_durations(task, schema))))
                # interference within the happening and with happenings closer than epsilon
                for i, (ka, na, fa) in enumerate(prints):
                    for kb, nb, fb in prints[i + 1:]:
                        if fa.interferes(fb):
                            first = _til_text(lifted, tils[na]) if ka == _TIL else label(na)
                            second = _til_text(lifted, tils[nb]) if kb == _TIL else label(nb)
                            raise _Failed(TemporalFailure(exact(t), None if kb == _TIL else nb, second, "INTERFERENCE",
                                                          f"interferes with {first} ({_KINDS[ka]}) at the same time"))
                # effects: each read in the state before the happening, timed literals last
                for (kind, n, _), act in zip(group, acts, strict=True):
                    if kind != _TIL:
                        effect(state, before, t, kind, n, act)
                for kind, n, _ in group:
                    if kind == _TIL:
                        apply_til(space, state, tils[n])
                # a zero-duration action starts and ends here: starts first
                for kind, n, _ in group:
                    if kind == _START:
                        start(n)
                for kind, n, _ in group:
                    if kind == _END:
                        running.pop(n, None)
                        watched.pop(n, None)
                if t > makespan and any(kind != _TIL for kind, _, _ in group):
                    makespan = t
            if space.axioms is not None:
                state = thaw(space.axioms(_freeze(state)))
            # invariants in the state after the happening, for every action still running
            # in the order they started (by start time, then plan line): when several break at once, the one VAL
            # names is named; the dict keeps that order, as starts are added happening by happening, line by line
            for n, inv in watched.items():
                if hidden is not None:  # exact arithmetic only where ?duration is read
                    state.values[hidden] = exact(steps[n][3])
                if inv is None or not inv.applicable(state):
                    _, ids, began, length = steps[n]
                    raise _Failed(TemporalFailure(
                        exact(t), n, f"{label(n)} (over all)", "INVARIANT_VIOLATED",
                        f"its over all condition does not hold after the happening at {to_text(normal(exact(t)))} "
                        f"(it runs from {to_text(normal(exact(began)))} to {to_text(normal(exact(began + length)))})",
                        tuple(lifted.unsatisfied(steps[n][0][2].instantiate(ids), space.keys(state)))))
    except _Failed as failed:
        failure = failed.failure
    if failure is not None and failure.time is not None:
        failure = TemporalFailure(normal(failure.time), failure.step, failure.action, failure.code,
                                  failure.message, failure.unsatisfied)
    frozen = _freeze(state)
    goal = failure is None and space.is_goal(frozen)
    unsatisfied = () if goal or failure is not None else tuple(lifted.unsatisfied_goals(space.keys(frozen)))
    metric = None
    span = normal(exact(makespan))
    if goal and lifted.problem.metric is not None:
        try:
            metric = lifted.metric_value(state.values if numeric else (), span)  # type: ignore[attr-defined, arg-type]
        except NumericError:
            metric = None
    return TemporalReport(goal, len(lines), happenings, span, goal, unsatisfied, failure, metric,
                          None if lifted.problem.metric is None else lifted.problem.metric.direction)


def apply_snap(state: Any, before: Any, act: GroundAction, duration: Value | None, hidden: int | None) -> None:
    """Apply ``act``'s effects, computed in ``before`` (the state before its
    happening, ``?duration`` set to ``duration``), to the mutable ``state``.
    Raises the :class:`NumericError` of an effect that cannot be executed."""
    work = before  # everything is computed before ``state`` changes (it may be ``before`` itself)
    _with_duration(work, hidden, duration)
    fired = act.fired(work)
    delete, add = act.changes(work, fired) if fired else act.changes(work)  # type: ignore[call-arg]
    new = act.new_values(work, fired) if hasattr(act, "new_values") else {}
    state.difference_update(delete)
    state.update(add)
    for i, v in new.items():
        if i != hidden:
            old, now = work.values[i], state.values[i]
            # another snap of this happening changed the fluent already: both updates are increases or
            # decreases (anything else interferes), which commute: add this one's change (VAL sums them)
            state.values[i] = v if now == old else now + (v - old)


def _til_footprint(space: LazyTask, til: TimedLiteral) -> _Footprint:
    """What a timed initial literal writes: its atom (it reads nothing)."""
    aid = space.intern(space.lifted._ground_key(_til_atom(til)))  # noqa: SLF001
    fp = _Footprint.__new__(_Footprint)
    fp.reads, fp.fluents_read, fp.fluents_written, fp.additive = set(), set(), set(), set()
    fp.add, fp.delete = ({aid}, set()) if isinstance(til.literal, Atom) else (set(), {aid})
    return fp


def apply_til(space: LazyTask, state: Any, til: TimedLiteral) -> None:
    """Make a timed initial literal true (or false) in the mutable ``state``."""
    aid = space.intern(space.lifted._ground_key(_til_atom(til)))  # noqa: SLF001
    if isinstance(til.literal, Atom):
        state.add(aid)
    else:
        state.discard(aid)


def duration_window(task: TemporalTask, schema: Any, args: tuple[int, ...], values: Any, at: str = "start"
                    ) -> tuple[Value | None, Value | None]:
    """``(least, most)`` duration the instance may take by its constraints
    read at ``at`` (``"start"``: all but ``(at end ...)`` ones; ``"end"``:
    those), in a state with fluent ``values`` (``None``: unbounded). Raises
    :class:`LookupError` when a bound has no value."""
    lifted = task.lifted
    d = task.durative[schema.name.rsplit("@", 1)[0]]
    binding = schema.binding(args)
    least: Value | None = None
    most: Value | None = None
    for c in _constraints_at(d, at):
        try:
            bound = evaluate(lifted.ground_expr(c.value, binding), values)
        except (TypeError, ZeroDivisionError, PDDLError) as err:
            raise LookupError(str(err)) from None
        if c.op in ("=", ">=", ">"):
            least = bound if least is None else max(least, bound)
        if c.op in ("=", "<=", "<"):
            most = bound if most is None else min(most, bound)
    return least, most


def _happenings(events: dict[int, list[tuple[int, int, float]]], merge: float
                ) -> Iterable[tuple[int, list[tuple[int, int, float]]]]:
    """The plan's happenings: its time points in order, where a time at most
    ``merge`` (a tenth of epsilon) after the first time of a happening joins
    it (VAL's reading of ``-t``: times closer than a tenth of the tolerance
    are one time; see docs/time.md), decided on the times as VAL computes
    them in floating point (an event's third item)."""
    group_time: int | None = None
    group_float = 0.0
    group: list[tuple[int, int, float]] = []
    for t in sorted(events):
        snaps = events[t]
        here = snaps[0][2] if len(snaps) == 1 else min(snap[2] for snap in snaps)
        if group_time is not None and here <= group_float + merge:  # VAL's test, rounding included
            group.extend(snaps)
            continue
        if group_time is not None:
            yield group_time, group
        group_time, group_float, group = t, here, snaps
    if group_time is not None:
        yield group_time, group


def _time_unit(text: str | None, numbers: Iterable[Value]) -> int:
    """The unit of a validation's times: every number of a plan's ``text`` (ten to the most decimal places of
    any number in it, comments included: a larger unit is as exact) and every exact number of ``numbers`` is a
    whole number of ``1 / unit``."""
    unit = 1 if text is None else 10 ** max(map(len, _PLACES.findall(text)), default=0)
    return lcm(unit, *(Fraction(x).denominator for x in numbers))


def _in_units(x: Any, unit: int) -> int:
    """A time or duration, a decimal as a plan writes it (a string) or an exact number, as a whole number of
    ``1 / unit`` (from :func:`_time_unit`: exact, ``x * unit``)."""
    if x.__class__ is str:
        whole, _, places = x.partition(".")
        return int(whole + places) * (unit // 10 ** len(places))
    x = Fraction(x)
    return x.numerator * (unit // x.denominator)  # type: ignore[no-any-return]


def _words(name: str, args: Sequence[str]) -> str:
    return f"({' '.join((name, *args))})"


class _DurationBounds:
    """The duration constraints of snap instances (see :func:`_snap_durations`),
    each ``(op, bound, expression)`` (``bound`` ``None``: it has no value), for
    one validation. A bound is evaluated once for every instance of a schema
    when it is made of numbers alone (``(= ?duration 3)``, as in most IPC
    domains), once for an instance when it reads no fluent (static functions
    only), and in the state before the happening otherwise."""

    __slots__ = ("cache", "lifted", "task")

    def __init__(self, task: TemporalTask) -> None:
        self.task, self.lifted = task, task.lifted
        self.cache: dict[Any, tuple[tuple[str, Value | None, NumExpr], ...]] = {}

    def of(self, schema: Any, args: tuple[int, ...], values: Any) -> tuple[tuple[str, Value | None, NumExpr], ...]:
        cache = self.cache
        found = cache.get(schema.id)
        if found is None:
            found = cache.get((schema.id, args))
            if found is None:
                found = self._evaluate(schema, args, values)
        return found

    def _evaluate(self, schema: Any, args: tuple[int, ...], values: Any
                  ) -> tuple[tuple[str, Value | None, NumExpr], ...]:
        constraints = _snap_durations(self.task, schema)
        binding = schema.binding(args) if constraints else {}
        out: list[tuple[str, Value | None, NumExpr]] = []
        every = each = True  # the same for every instance of the schema / for this instance in every state
        for c in constraints:
            closed = _closed(c.value)
            every = every and closed
            bound: Value | None
            try:
                g = self.lifted.ground_expr(c.value, binding)
                if not closed and fluent_ids(g):
                    each = False
                bound = evaluate(g, values)
            except (TypeError, LookupError, ZeroDivisionError, PDDLError):
                bound = None
            out.append((c.op, bound, c.value))
        found = tuple(out)
        if every:
            self.cache[schema.id] = found
        elif each:
            self.cache[(schema.id, args)] = found
        return found


def _closed(e: NumExpr) -> bool:
    """Whether a numeric expression is made of numbers alone (the same value for every instance, in every state)."""
    if isinstance(e, Number):
        return True
    if isinstance(e, BinaryExpr):
        return _closed(e.left) and (e.right is None or _closed(e.right))
    return False


def _til_text(lifted: LiftedTask, til: TimedLiteral) -> str:
    text = lifted.render_key(lifted._ground_key(_til_atom(til)))  # noqa: SLF001
    return f"(at {til.time} {text if isinstance(til.literal, Atom) else f'(not {text})'})"


def _til_atom(til: TimedLiteral) -> Atom:
    """The atom a timed initial literal makes true or false."""
    lit = til.literal
    atom = lit if isinstance(lit, Atom) else lit.operand
    assert isinstance(atom, Atom)  # the grammar takes a ground atom or its negation only
    return atom


def _copy(state: Any) -> Any:
    from .step import NumericSet

    if hasattr(state, "values"):
        return NumericSet(state, list(state.values))
    return set(state)


def _freeze(state: Any) -> Any:
    if hasattr(state, "values"):
        return NumericState(state, tuple(state.values))
    return frozenset(state)


def _constraints_at(d: DurativeActionDecl, at: str) -> Iterable[Any]:
    """The duration constraints read at the start (unmarked or ``at start``) or at the end (``at end``)."""
    return (c for c in d.duration if (c.at == "end") == (at == "end"))


def _duration_ok(op: str, dur: Value, bound: Value | None, eps: Value = DEFAULT_EPSILON) -> bool:
    """Whether a duration meets ``(?duration op bound)`` within the tolerance ``eps``, decided as VAL does
    (measured against VAL on random bounds at -t 0.1, 0.01, 0.001): ``|dur - bound| <= eps`` for ``=``,
    ``dur - bound <= eps`` for ``<=``, ``bound - dur <= eps`` for ``>=``, computed in binary floating point
    (at -t 0.01 a fixed duration 2 accepts 2.01 and refuses 1.99)."""
    return True if bound is None else _fits(op, float(dur), float(bound), float(eps))


def _fits(op: str, d: float, b: float, tol: float) -> bool:
    """:func:`_duration_ok` on the duration, the bound and the tolerance in floating point."""
    if op == "=":
        return abs(d - b) <= tol
    if op in ("<=", "<"):
        return d - b <= tol if op == "<=" else d - b < tol
    return b - d <= tol if op == ">=" else b - d < tol


def _show(e: NumExpr) -> str:
    match e:
        case BinaryExpr(op=op, left=l, right=None):
            return f"(- {_show(l)})"
        case BinaryExpr(op=op, left=l, right=r):
            return f"({op} {_show(l)} {_show(r)})"  # type: ignore[arg-type]
    return str(e)


def plan_number(x: Value) -> str:
    """A time or duration as a timed plan writes it: a decimal (exact when it has at most 10 places, else
    rounded to 10: ``40/3`` is ``13.3333333333``; a plan line cannot hold ``40/3``, and neither VAL nor
    :func:`parse_timed_plan` reads it)."""
    text = to_text(normal(x))
    if "/" not in text and len(text.partition(".")[2]) <= 10:
        return text
    return to_text(normal(Fraction(round(Fraction(x) * 10**10), 10**10)))


def timed_plan_text(steps: Iterable[TimedStep]) -> str:
    """The IPC text of timed steps (what VAL reads)."""
    out = []
    for s in steps:
        dur = f" [{plan_number(s.duration)}]" if s.duration is not None else ""
        out.append(f"{plan_number(s.time)}: {s.text}{dur}")
    return "\n".join(out) + "\n"
