"""Grounding by relaxed reachability, and a brute-force oracle.

:func:`ground` computes the atoms and actions reachable from the initial
state when delete effects are ignored (the Datalog-style fixpoint of Fast
Downward's translator, without Prolog text): every action applicable in some
state reachable from the initial state is among them, so the simulator never
misses a legal move, and no goal-relevance pruning is applied.

The fixpoint is semi-naive and driven by a queue of reached atoms. When an
atom leaves the queue it is added to per-predicate and per-position indexes,
then joined, for each positive precondition it can match, against the atoms
processed so far (greedy order: most-bound precondition first, through the
position index). A complete binding that passes type, equality and static
negative-precondition tests becomes a ground action; its new add effects join
the queue. Each instance is produced exactly once: when its last processed
precondition atom leaves the queue, through the first precondition (in schema
order) that atom matches; preconditions before that one may not reuse it.
Static preconditions (of predicates no action changes) are decided here and
dropped from the ground action.

Speed: for each (schema, matched precondition) the join is generated as
nested Python loops, and for each schema the code that interns atoms and
builds the ground action, from the integer templates of
:mod:`pypddlengine.lifted` (as ``dataclasses`` generates ``__init__``). The
same generated code files each action in the successor index
(:class:`pypddlengine.task.Task`), under the precondition predicted to be
true least often: the rarity of a predicate is estimated before grounding as
(atoms true initially + 1) / (type-consistent atoms + 1).

:func:`ground_brute_force` enumerates the type-consistent product of every
schema's parameters and keeps the instances whose preconditions hold in the
relaxed-reachable atoms: the test oracle for :func:`ground`.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from typing import TYPE_CHECKING, TypeVar

from .errors import ErrorCode, GroundingLimitError, SourceFile, Span
from .gcpause import paused_gc
from .lifted import AtomKey, LiftedTask, Schema, Template, quantified_size
from .model import And, Atom, Compare, Condition, Equals, Exists, Forall, Not, Or, Parameter
from .normalise import free_variables
from .step import (
    FALSE,
    TRUE,
    Formula,
    GroundAction,
    GroundAxiom,
    action_class,
    action_cost,
    action_source,
    attach,
    encode,
    general_parts,
    numeric_condition,
)
from .step import tuple_source as tup
from .task import GeneralParts, GroundingStats, Task
from .usercache import dataclass

if TYPE_CHECKING:
    import threading  # the cancel event's type (its module is not needed to ground)

__all__ = [
    "DEFAULT_OPTIONS",
    "GroundingEstimate",
    "GroundingOptions",
    "check_estimate",
    "check_lifted",
    "check_quantifiers",
    "estimate_grounding",
    "ground",
    "ground_brute_force",
    "quantified_size",
    "stop_check",
]

T = TypeVar("T")

_CHECK_EVERY = 4096
"""Candidate actions (and full predicate scans, and queued atoms) between two
checks of the time limit and the cancellation flag."""


@dataclass(frozen=True, slots=True)
class GroundingOptions:
    """Limits that turn a blow-up into a clear :class:`GroundingLimitError`.

    ``max_actions`` also bounds, before grounding starts, the combinations one
    action schema enumerates for the parameters no positive precondition
    binds (parameters bound only by a negative precondition, an equality or
    nothing): each time the schema fires, the grounder tries every one of
    them; and the bindings the quantifiers of one instance range over
    (:func:`check_estimate`), and the conditional effects of the task.
    ``max_seconds`` is a cooperative time limit (``GROUNDING_TIMEOUT``),
    checked every few thousand candidate actions, quantifier bindings and
    conditional effects; ``None``: no limit. Setting ``cancel`` (from another
    thread) stops the grounding the same way."""

    max_actions: int = 3_000_000
    max_atoms: int = 5_000_000
    max_seconds: float | None = None
    cancel: threading.Event | None = field(default=None, compare=False)


DEFAULT_OPTIONS = GroundingOptions()


# ----------------------------------------------------------------------------- join plans


@dataclass(frozen=True, slots=True)
class _Step:
    """One atom of a rule body in the order the join visits it."""

    pred: int
    args: tuple[int, ...]
    lookup: tuple[int, int] | None  # (position, arg) to index by, or None: scan the predicate
    before: bool  # precedes the trigger in schema order: may not reuse the new atom


def _join_steps(schema: Schema, trigger: int, static: frozenset[int]) -> tuple[list[_Step], list[int]]:
    """Greedy join order for the preconditions other than ``trigger`` and the
    parameters that no precondition binds."""
    bound = {a for a in schema.pre[trigger][1] if a >= 0}
    remaining = [(i, t) for i, t in enumerate(schema.pre) if i != trigger]
    steps: list[_Step] = []
    while remaining:

        def score(item: tuple[int, Template]) -> tuple[int, int, int]:
            pred, args = item[1]
            nbound = sum(1 for a in args if a < 0 or a in bound)
            nfree = sum(1 for a in args if a >= 0 and a not in bound)
            return (-nbound, 0 if pred in static else 1, nfree)

        best = min(remaining, key=score)
        remaining.remove(best)
        index, (pred, args) = best
        lookup = next(((pos, a) for pos, a in enumerate(args) if a < 0 or a in bound), None)
        steps.append(_Step(pred, args, lookup, index < trigger))
        bound.update(a for a in args if a >= 0)
    return steps, [i for i in range(schema.arity) if i not in bound]


def _term(x: int) -> str:
    return f"v{x}" if x >= 0 else str(~x)


def _bind(lines: list[str], indent: str, source: str, args: tuple[int, ...], bound: set[int],
          schema: Schema, skip: int | None, fail: str) -> None:
    """Unify ``source`` (an atom key variable) with template ``args``."""
    for j, a in enumerate(args):
        if j == skip:
            continue
        if a < 0:
            lines.append(f"{indent}if {source}[{j + 1}] != {~a}: {fail}")
        elif a in bound:
            lines.append(f"{indent}if {source}[{j + 1}] != v{a}: {fail}")
        else:
            lines.append(f"{indent}v{a} = {source}[{j + 1}]")
            if schema.domain_sets[a] is not None:
                lines.append(f"{indent}if v{a} not in d{a}: {fail}")
            bound.add(a)


_MAX_LOOPS = 16
"""Nested loops per generated function: CPython refuses more than 20
statically nested blocks ("too many statically nested blocks"), so a deeper
join (an action with 20 or more preconditions and unbound parameters, e.g.
caldera or organic-synthesis of IPC 2018) continues in a function of its own,
called with the objects bound so far. Schemas below the limit get one
function, as before."""


def _trigger_source(schema: Schema, trigger: int, static: frozenset[int]) -> str:
    """Source of ``trig(key)``: all instances of ``schema`` whose precondition
    ``trigger`` is the new atom ``key``, joined with the processed atoms
    (in a chain of functions ``trig``, ``j1``, ``j2``, ... when the join has
    more than :data:`_MAX_LOOPS` levels)."""
    steps, free = _join_steps(schema, trigger, static)
    lines = ["def trig(key):"]
    indent = "    "
    bound: set[int] = set()
    loops = 0

    def nest() -> None:  # one more loop level: continue in a new function when this one is full
        nonlocal indent, loops
        if loops == _MAX_LOOPS:
            names = ", ".join(["key", *(f"v{a}" for a in sorted(bound))])
            part = sum(1 for line in lines if line.startswith("def "))
            lines.append(f"{indent}j{part}({names})")
            lines.append(f"def j{part}({names}):")
            indent, loops = "    ", 0
        loops += 1

    _bind(lines, indent, "key", schema.pre[trigger][1], bound, schema, None, "return")
    for k, step in enumerate(steps):
        cand = f"c{k}"
        nest()
        if step.lookup is None:
            src = f"by_pred[{step.pred}]"
            skip = None
        else:
            pos, x = step.lookup
            src = f"by_pos.get(({step.pred}, {pos}, {_term(x)}), ())"
            skip = pos
        lines.append(f"{indent}for {cand} in {src}:")
        indent += "    "
        if step.lookup is None:  # a whole predicate scanned: count it towards the time checks
            lines.append(f"{indent}left[0] -= 1")
            lines.append(f"{indent}if left[0] < 0: tick()")
        if step.before:
            lines.append(f"{indent}if {cand} is key: continue")
        _bind(lines, indent, cand, step.args, bound, schema, skip, "continue")
    for f in free:
        nest()
        lines.append(f"{indent}for v{f} in D{f}:")
        indent += "    "
        bound.add(f)
    args = ", ".join(f"v{i}" for i in range(schema.arity))
    lines.append(f"{indent}left[0] -= 1")  # every candidate counts towards the time checks
    lines.append(f"{indent}if left[0] < 0: tick()")
    lines.append(f"{indent}make(({args},))" if schema.arity else f"{indent}make(())")
    return "\n".join(lines) + "\n"


def _maker_source(schema: Schema, static: frozenset[int], watch: int, unit_cost: bool,
                  sink: str = "actions") -> str:
    """Source of ``make(a)``: the instantiation of :func:`pypddlengine.step.action_source`
    (new add effects join the queue), then the ground action is created and
    filed in the successor index under its fluent precondition number
    ``watch`` (or with the actions that have none)."""
    lines = ["def make(a):"]
    if schema.residual is not None:  # ADL: decided optimistically (only static atoms can refute it)
        lines.append("    if not possible(a): return")
    queue = ["    if not reached[{v}]:", "        reached[{v}] = True", "        queue.append(k)"]
    body, parts = action_source(schema, static, lazy=False, pre_known=True, add_hook=queue)
    lines += body
    lines.append(f"    n = len({sink})")
    lines.append("    if n >= limit: too_many()")
    cost = "1" if unit_cost or sink != "actions" else "cost_of(a)"
    lines.append(
        f"    act = GroundAction(n, schema, a, {tup(parts['pre'])}, {tup(parts['neg'])}, {tup(parts['add'])}, "
        f"{tup(parts['delete'])}, {cost})"
    )
    lines.append(f"    {sink}.append(act)")
    if sink != "actions":  # an axiom: no successor index
        return "\n".join(lines) + "\n"
    if schema.rules:
        lines.append("    expand(act)")
    lines.append("    by_args[a] = act")
    pre = parts["pre"]
    if pre:
        lines.append(f"    act._rest = {tup([p for i, p in enumerate(pre) if i != watch])}")
        lines.append(f"    bucket = watch.get(p{watch})")
        lines.append(f"    if bucket is None: watch[p{watch}] = [act]")
        lines.append("    else: bucket.append(act)")
    else:
        lines.append("    always.append(act)")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- ADL and axioms


class _General:
    """The grounding of what STRIPS joins cannot express (the normalise
    stage's residual conditions, effect rules and axioms).

    During the fixpoint, a residual condition is decided optimistically: it
    rejects an instance only when its static atoms refute it. Effect rules
    are expanded over their variables' types as soon as their action is
    created, with the same optimistic test on their conditions, and their
    adds join the queue. After the fixpoint, :meth:`finalise` encodes every
    condition exactly as a ground :data:`~pypddlengine.task.Formula` (static
    atoms and unreachable atoms folded to constants)."""

    def __init__(self, g: _Grounder) -> None:
        self.g = g
        self.lifted = g.lifted
        self.pending: dict[int, list[tuple[int, tuple[int, ...]]]] = {}
        # a condition often depends on a few of its action's parameters (openstacks: the order, not the
        # stack counts): results are memoised on the objects bound to its free variables
        self._free: dict[int, tuple[str, ...]] = {}
        self._memo: dict[tuple[bool, int, tuple[int, ...]], object] = {}

    def _memoised(self, exact: bool, cond: Condition, b: dict[str, int], compute: Callable[[], object]) -> object:
        free = self._free.get(id(cond))
        if free is None:
            free = self._free[id(cond)] = free_variables(cond)
        key = (exact, id(cond), tuple(b[v] for v in free))
        value = self._memo.get(key, self)
        if value is self:
            value = self._memo[key] = compute()
        return value

    def possible_for(self, schema: Schema) -> Callable[[tuple[int, ...]], bool] | None:
        cond = schema.residual
        if cond is None:
            return None
        return lambda a: self._possible(cond, schema.binding(a))

    def _possible(self, cond: Condition, b: dict[str, int]) -> bool:
        return self._memoised(False, cond, b, lambda: possible(self.lifted, self.g.static, cond, b,  # type: ignore[return-value]
                                                               self.g.step))

    def _encode(self, cond: Condition, b: dict[str, int]) -> Formula:
        return self._memoised(True, cond, b, lambda: self.encode(cond, b))  # type: ignore[return-value]

    def expand(self, act: GroundAction) -> None:
        g, lifted = self.g, self.lifted
        schema = act.schema
        base = schema.binding(act.args)
        pending: list[tuple[int, tuple[int, ...]]] = []
        step = g.step
        for rule in schema.rules:
            names = [v.name for v in rule.variables]
            for combo in itertools.product(*(lifted._domain_of(v.types) for v in rule.variables)):
                step()
                b = {**base, **dict(zip(names, combo, strict=True))}
                if rule.condition is not None and not self._possible(rule.condition, b):
                    continue
                for atom in (*rule.adds, *rule.deletes):
                    key = lifted._key(atom, b)
                    i = g.ids.get(key)
                    if i is None:
                        i = g.intern(key)
                    if atom in rule.adds and not g.reached[i]:
                        g.reached[i] = True
                        g.queue.append(key)
                pending.append((rule.index, combo))
        self.pending[act.id] = pending
        g.effects += len(pending)
        if g.effects > g.options.max_actions:
            raise GroundingLimitError(
                f"grounding produced more than {g.options.max_actions:,} conditional effects",
                code=ErrorCode.GROUNDING_LIMIT,
                hint="the task's forall/when effects are too large to ground; raise the limit if this is intended",
                details={"limit": g.options.max_actions, "kind": "effects"},
            )

    def atom(self, key: AtomKey) -> int | bool:
        """How the finished grounding sees an atom (:data:`pypddlengine.step.AtomRef`):
        a static atom by its initial value, an unreached one as false."""
        g = self.g
        if key[0] in g.static:
            return key in self.lifted.init
        i = g.ids.get(key)
        return i if i is not None and g.reached[i] else False

    def encode(self, cond: Condition, b: dict[str, int]) -> Formula:
        """The ground formula of ``cond`` under ``b`` (after the fixpoint)."""
        return encode(self.lifted, cond, b, self.atom, self.g.step)

    def finalise(self) -> GeneralParts:
        g, lifted = self.g, self.lifted
        step = g.step
        for act in g.actions:
            step()
            cond, effects = general_parts(lifted, act.schema, act.args, self._encode, g.ids.__getitem__,
                                          self.pending.get(act.id, ()), step)
            attach(act, lifted, cond, effects)
        stratum_of = {schema.id: k for k, stratum in enumerate(lifted.axiom_strata) for schema in stratum}
        strata: list[list[GroundAxiom]] = [[] for _ in lifted.axiom_strata]
        for ax in g.axioms:
            step()
            schema = ax.schema
            cond = TRUE if schema.residual is None else self._encode(schema.residual, schema.binding(ax.args))
            if cond != FALSE:
                axiom = GroundAxiom(ax.add[0], ax.pre, ax.neg, None if cond == TRUE else cond)
                strata[stratum_of[schema.id]].append(axiom)
        goal = None if lifted.goal_residual is None else self.encode(lifted.goal_residual, {})
        derived = lifted.derived_predicates
        return GeneralParts(
            tuple(tuple(s) for s in strata),
            goal,
            frozenset(i for i, k in enumerate(g.atoms) if k[0] in derived),
        )


def possible(lifted: LiftedTask, static: frozenset[int], cond: Condition, b: dict[str, int],
             step: Callable[[], None] | None = None) -> bool:
    """The relaxed reading of an NNF condition: static literals exact, every
    fluent literal (positive or negative) possible. ``step`` is called for
    each binding a quantifier tries (the grounder's time and cancel checks)."""
    match cond:
        case Atom():
            key = lifted._key(cond, b)
            return key[0] not in static or key in lifted.init
        case Not(operand=Atom() as atom):
            key = lifted._key(atom, b)
            return key[0] not in static or key not in lifted.init
        case Equals() | Not(operand=Equals()):
            return lifted.holds(cond, b, lifted.init)
        case And(parts=parts):
            return all(possible(lifted, static, p, b, step) for p in parts)
        case Or(parts=parts):
            return any(possible(lifted, static, p, b, step) for p in parts)
        case Exists(variables=vs, body=body):
            return any(possible(lifted, static, body, e, step) for e in _stepped(lifted._extend(b, vs), step))
        case Forall(variables=vs, body=body):
            return all(possible(lifted, static, body, e, step) for e in _stepped(lifted._extend(b, vs), step))
        case Compare() | Not(operand=Compare()):  # decided when it reads static terms only, else possible
            return numeric_condition(lifted, cond, b) != FALSE
    raise TypeError(f"not a normalised condition: {cond!r}")


def _stepped(items: Iterator[T], step: Callable[[], None] | None) -> Iterator[T]:
    """``items``, calling ``step`` before each one (when given)."""
    if step is None:
        yield from items
        return
    for item in items:
        step()
        yield item


# ----------------------------------------------------------------------------- the fixpoint


class _Grounder:
    def __init__(self, lifted: LiftedTask, options: GroundingOptions) -> None:
        self.lifted = lifted
        self.options = options
        self.started = time.monotonic()
        self.left = [_CHECK_EVERY]
        self.effects = 0
        """Conditional effects expanded so far (bounded by ``max_actions``)."""
        self.atoms: list[AtomKey] = []
        self.ids: dict[AtomKey, int] = {}
        self.reached: list[bool] = []
        self.queue: list[AtomKey] = []
        npred = len(lifted.predicates)
        self.by_pred: list[list[AtomKey]] = [[] for _ in range(npred)]
        self.by_pos: dict[tuple[int, int, int], list[AtomKey]] = {}
        self.actions: list[GroundAction] = []
        self.axioms: list[GroundAction] = []
        self.schemas = (*lifted.schemas, *lifted.axiom_schemas)
        self.by_args: list[dict[tuple[int, ...], GroundAction]] = [{} for _ in self.schemas]
        self.watch: dict[int, list[GroundAction]] = {}
        self.always: list[GroundAction] = []
        self.static = frozenset(range(npred)) - lifted.fluent_predicates
        self.general = _General(self) if lifted.general else None
        rarity = self._rarity()
        self.makers = [self._maker(s, rarity) for s in self.schemas]
        self.triggers: list[list[Callable[[AtomKey], None]]] = [[] for _ in range(npred)]
        for schema in self.schemas:
            for i, (pred, _) in enumerate(schema.pre):
                self.triggers[pred].append(self._trigger(schema, i))

    def _rarity(self) -> dict[int, float]:
        """Predicted share of a predicate's atoms that hold in a state."""
        lifted = self.lifted
        true_counts = [0] * len(lifted.predicates)
        for key in lifted.init:
            true_counts[key[0]] += 1
        out: dict[int, float] = {}
        for pid, decl in enumerate(lifted.domain.predicates):
            sizes = [len(lifted._domain_of(p.types)) for p in decl.parameters]
            possible = math.prod(sizes) if sizes else 1
            out[pid] = (true_counts[pid] + 1) / (possible + 1)
        return out

    def _namespace(self, schema: Schema) -> dict[str, object]:
        ns: dict[str, object] = {
            "left": self.left,
            "tick": self.tick,
            "by_pred": self.by_pred,
            "by_pos": self.by_pos,
            "ids": self.ids,
            "intern": self.intern,
            "reached": self.reached,
            "queue": self.queue,
            "init": self.lifted.init,
            "actions": self.actions,
            "by_args": self.by_args[schema.id],
            "watch": self.watch,
            "always": self.always,
            "limit": self.options.max_actions,
            "too_many": self.too_many,
            "GroundAction": action_class(self.lifted),
            "schema": schema,
            "axioms": self.axioms,
            "cost_of": lambda a, s=schema: action_cost(self.lifted, s, a),
        }
        for i, dom in enumerate(schema.domain_sets):
            ns[f"d{i}"] = dom
            ns[f"D{i}"] = schema.domains[i]
        if self.general is not None:
            ns["possible"] = self.general.possible_for(schema)
            ns["expand"] = self.general.expand
        return ns

    def _maker(self, schema: Schema, rarity: dict[int, float]) -> Callable[[tuple[int, ...]], None]:
        fluent = [t[0] for t in schema.pre if t[0] not in self.static]
        ranks = [rarity[p] for p in fluent]
        watch = ranks.index(min(ranks)) if ranks else -1
        ns = self._namespace(schema)
        sink = "axioms" if schema.axiom is not None else "actions"
        source = _maker_source(schema, self.static, watch, not self.lifted.uses_action_costs, sink)
        exec(source, ns)
        return ns["make"]  # type: ignore[return-value]

    def _trigger(self, schema: Schema, index: int) -> Callable[[AtomKey], None]:
        ns = self._namespace(schema)
        ns["make"] = self.makers[schema.id]
        exec(_trigger_source(schema, index, self.static), ns)
        return ns["trig"]  # type: ignore[return-value]

    def step(self) -> None:
        """One unit of work outside the generated joins (a quantifier binding, a conditional effect, an
        instance without preconditions): counts towards :meth:`tick`."""
        left = self.left
        left[0] -= 1
        if left[0] < 0:
            self.tick()

    def tick(self) -> None:
        """Every :data:`_CHECK_EVERY` candidates: stop when cancelled or past the deadline."""
        self.left[0] = _CHECK_EVERY
        _stop_if_due(self.options, self.started, "grounding",
                     f"{len(self.actions):,} actions and {len(self.atoms):,} atoms so far",
                     actions=len(self.actions), atoms=len(self.atoms))

    def too_many(self) -> None:
        raise GroundingLimitError(
            f"grounding produced more than {self.options.max_actions:,} actions",
            code=ErrorCode.GROUNDING_LIMIT,
            hint="the task is too large to ground; raise the limit if this is intended",
            details={"limit": self.options.max_actions, "kind": "actions"},
        )

    def intern(self, key: AtomKey) -> int:
        i = len(self.atoms)
        if i >= self.options.max_atoms:
            raise GroundingLimitError(
                f"grounding reached more than {self.options.max_atoms:,} atoms",
                code=ErrorCode.GROUNDING_LIMIT,
                details={"limit": self.options.max_atoms, "kind": "atoms"},
            )
        self.ids[key] = i
        self.atoms.append(key)
        self.reached.append(False)
        return i

    def run(self) -> None:
        ids, reached, queue = self.ids, self.reached, self.queue
        for key in sorted(self.lifted.init):
            i = ids.get(key)
            if i is None:
                i = self.intern(key)
            if not reached[i]:
                reached[i] = True
                queue.append(key)
        for schema in self.schemas:
            if not schema.pre:
                make = self.makers[schema.id]
                for args in itertools.product(*schema.domains):
                    self.step()
                    make(args)
        head = 0
        by_pred, by_pos, triggers, left = self.by_pred, self.by_pos, self.triggers, self.left
        while head < len(queue):
            key = queue[head]
            head += 1
            left[0] -= 1
            if left[0] < 0:
                self.tick()
            pred = key[0]
            by_pred[pred].append(key)
            for pos in range(1, len(key)):
                slot = (pred, pos - 1, key[pos])
                bucket = by_pos.get(slot)
                if bucket is None:
                    by_pos[slot] = [key]
                else:
                    bucket.append(key)
            for trig in triggers[pred]:
                trig(key)


@dataclass(frozen=True, slots=True)
class GroundingEstimate:
    """A cheap, pessimistic guess of a grounding's size, made before it (see
    :func:`estimate_grounding`)."""

    actions: float
    atoms: float

    def small(self, limit: float) -> bool:
        return self.actions <= limit and self.atoms <= 4 * limit


def estimate_grounding(lifted: LiftedTask) -> GroundingEstimate:
    """How many actions and fluent atoms grounding ``lifted`` may produce, in
    a few milliseconds: per schema, the product of its parameters' type sizes,
    cut down by its static positive preconditions (which are exact: a
    parameter pair bound by a static relation of n atoms has at most n
    values, fewer when one side is already bound, judged from the relation's
    distinct values per position). Fluent preconditions are not used (which
    of their atoms are reachable is what grounding finds out), so the guess
    can only be high: an upper bound up to those estimates' averaging."""
    static = frozenset(range(len(lifted.predicates))) - lifted.fluent_predicates
    size: dict[int, int] = {}
    distinct: dict[tuple[int, int], set[int]] = {}
    for key in lifted.init:
        if key[0] in static:
            size[key[0]] = size.get(key[0], 0) + 1
            for pos, o in enumerate(key[1:]):
                distinct.setdefault((key[0], pos), set()).add(o)
    actions = 0.0
    for schema in lifted.schemas:
        estimate = 1.0
        bound: set[int] = set()
        templates = [t for t in schema.pre if t[0] in static]
        if any(t[0] not in size for t in templates):
            continue  # a static precondition no atom satisfies: never applicable
        while templates:
            best = min(templates, key=lambda t: _fanout(t, schema, bound, size, distinct))
            templates.remove(best)
            if any(a >= 0 and a not in bound for a in best[1]):
                estimate *= max(_fanout(best, schema, bound, size, distinct), 1.0)
            bound.update(a for a in best[1] if a >= 0)
        estimate *= math.prod(len(schema.domains[i]) for i in range(schema.arity) if i not in bound)
        actions += estimate
    atoms = 0.0
    for pid in lifted.fluent_predicates:
        decl = lifted.domain.predicates[pid]
        atoms += math.prod(len(lifted._domain_of(p.types)) for p in decl.parameters)
    return GroundingEstimate(actions, atoms)


def _fanout(t: Template, schema: Schema, bound: set[int], size: dict[int, int],
            distinct: dict[tuple[int, int], set[int]]) -> float:
    """Expected new bindings of the static atom template ``t`` once ``bound`` are bound."""
    pred, args = t
    free = {a for a in args if a >= 0 and a not in bound}
    known = [len(distinct.get((pred, pos), ())) for pos, a in enumerate(args) if a < 0 or a in bound]
    return min(size[pred] / max(known, default=1), math.prod(len(schema.domains[a]) for a in free))


def _stop_if_due(options: GroundingOptions, started: float, what: str, progress: str, **details: object) -> None:
    """Raise ``GROUNDING_TIMEOUT`` when ``options.cancel`` is set or
    ``options.max_seconds`` have passed since ``started``."""
    cancelled = options.cancel is not None and options.cancel.is_set()
    seconds = time.monotonic() - started
    if cancelled or (options.max_seconds is not None and seconds > options.max_seconds):
        reason = "was cancelled" if cancelled else f"took more than its limit of {options.max_seconds:g} s"
        raise GroundingLimitError(
            f"{what} {reason} ({seconds:.1f} s, {progress})",
            code=ErrorCode.GROUNDING_TIMEOUT,
            hint="the task is too large to ground in time; use a smaller task or raise the time limit",
            details={"limit_s": options.max_seconds, "kind": "cancelled" if cancelled else "time", **details},
        )


def stop_check(options: GroundingOptions, started: float, what: str) -> Callable[[], None]:
    """A ``check`` for work that follows grounding (such as
    :meth:`Task.relaxed_operators` at session start): it raises
    ``GROUNDING_TIMEOUT`` once ``options.cancel`` is set or
    ``options.max_seconds`` have passed since ``started`` (``time.monotonic``)."""
    return lambda: _stop_if_due(options, started, what, "stopped before it was done")


def check_estimate(lifted: LiftedTask, options: GroundingOptions = DEFAULT_OPTIONS) -> None:
    """Refuse, before grounding, what would enumerate more than
    ``options.max_actions`` combinations (``GROUNDING_LIMIT``, kind
    ``estimate``): a schema (action or axiom rule) whose parameters that no
    positive precondition binds span more (the grounder would try all of
    them, each time the schema fires, whatever the negative preconditions and
    equalities then reject), or quantifiers that, for one instance of an
    action or axiom rule or for the goal, range over more bindings (a
    ``forall``/``exists`` in a condition, a ``forall`` effect and its
    ``when``: see :func:`quantified_size`)."""
    _check_unbound(lifted, options, (*lifted.schemas, *lifted.axiom_schemas))
    check_quantifiers(lifted, options)


def check_lifted(lifted: LiftedTask, options: GroundingOptions = DEFAULT_OPTIONS) -> None:
    """What bounds the lifted backend as much as the grounder, refused the same
    way (``GROUNDING_LIMIT``, kind ``estimate``): quantifiers (see
    :func:`check_quantifiers`; an instance's are expanded each time it is met)
    and the unbound parameters of derived-predicate rules (derived atoms are
    computed in every state, the initial one first). An action's unbound
    parameters are not refused: they only make listing a state's actions stop
    at the lifted work limit, and an action named directly still executes."""
    _check_unbound(lifted, options, lifted.axiom_schemas)
    check_quantifiers(lifted, options)


def _check_unbound(lifted: LiftedTask, options: GroundingOptions, schemas: Iterable[Schema]) -> None:
    limit = options.max_actions
    for schema in schemas:
        what = f"action '{schema.display}'" if schema.axiom is None else f"derived predicate '{schema.display}'"
        bound = {a for _, args in schema.pre for a in args if a >= 0}
        free = [i for i in range(schema.arity) if i not in bound]
        tries = math.prod(len(schema.domains[i]) for i in free)
        if tries > limit:
            names = " ".join(_shown(schema.params[i]) for i in free)
            sizes = " x ".join(str(len(schema.domains[i])) for i in free)
            params = schema.decl.parameters
            decl = params[free[0]] if len(params) > free[0] else None
            _refuse_estimate(
                options,
                f"{what}: no positive precondition binds {names}, so grounding would try "
                f"{sizes} = {tries:.3g} combinations of them, more than the limit of {limit:,} actions",
                decl.span if decl is not None and decl.span is not None else schema.decl.span, lifted.domain.source,
                tries, "bind these parameters with positive preconditions (e.g. a type or a static predicate), or "
                "use fewer objects",
                action=schema.display, parameters=[_shown(schema.params[i]) for i in free])


def check_quantifiers(lifted: LiftedTask, options: GroundingOptions = DEFAULT_OPTIONS) -> None:
    """Refuse (``GROUNDING_LIMIT``, kind ``estimate``) quantifiers that, for
    one instance of an action or axiom rule or for the goal, range over more
    than ``options.max_actions`` bindings. Unlike the size of the whole
    grounding, this bounds every backend: the lifted one expands an
    instance's quantifiers too, each time it meets the instance."""
    for schema in (*lifted.schemas, *lifted.axiom_schemas):
        what = f"action '{schema.display}'" if schema.axiom is None else f"derived predicate '{schema.display}'"
        body = "precondition" if schema.axiom is None else "body"
        parts: list[tuple[str, Condition | None, tuple[Parameter, ...]]] = [(body, schema.residual, ())]
        parts += [("effect", rule.condition, rule.variables) for rule in schema.rules]
        for part, cond, variables in parts:
            _check_quantifiers(lifted, options, f"{what}: the quantifiers of its {part}", cond, variables,
                               schema.decl.span, lifted.domain.source, " for each instance")
    _check_quantifiers(lifted, options, "the goal's quantifiers", lifted.goal_residual, (), None, lifted.problem.source,
                       "")


def _check_quantifiers(lifted: LiftedTask, options: GroundingOptions, what: str, cond: Condition | None,
                       variables: tuple[Parameter, ...], fallback: Span | None, source: SourceFile | None,
                       per: str) -> None:
    total = quantified_size(lifted, cond, variables)
    if total <= options.max_actions:
        return
    names: list[Parameter] = list(variables)
    span: Span | None = None

    def collect(c: Condition) -> None:
        nonlocal span
        match c:
            case And(parts=ps) | Or(parts=ps):
                for p in ps:
                    collect(p)
            case Exists(variables=vs, body=body) | Forall(variables=vs, body=body):
                span = span or c.span
                names.extend(vs)
                collect(body)

    if cond is not None:
        collect(cond)
    if variables:
        span = variables[0].span
    unique = list(dict.fromkeys(names))
    sizes = " x ".join(str(len(lifted._domain_of(v.types))) for v in unique)
    _refuse_estimate(
        options,
        f"{what} ({' '.join(_shown(v.name) for v in unique)} over {sizes} objects) take {total:.3g} bindings"
        f"{per}, more than the limit of {options.max_actions:,}",
        span or fallback, source, total, "quantify over fewer variables or narrower types, or use fewer objects",
        parameters=[_shown(v.name) for v in unique])


def _shown(variable: str) -> str:
    """A variable as written (an axiom's existential variables are renamed apart as ``?x~1``)."""
    return variable.split("~", 1)[0]


def _refuse_estimate(options: GroundingOptions, message: str, span: Span | None, source: SourceFile | None,
                     combinations: int, hint: str, **details: object) -> None:
    raise GroundingLimitError(
        message,
        code=ErrorCode.GROUNDING_LIMIT,
        span=span,
        source=source if span is not None else None,
        hint=hint,
        details={"limit": options.max_actions, "kind": "estimate", "combinations": combinations, **details},
    )


def ground(lifted: LiftedTask, options: GroundingOptions = DEFAULT_OPTIONS) -> Task:
    """Ground ``lifted`` by relaxed reachability (see the module docstring).

    Raises :class:`GroundingLimitError` when ``options`` limits are exceeded:
    ``GROUNDING_LIMIT`` (checked first by :func:`check_estimate`, then while
    grounding) or ``GROUNDING_TIMEOUT`` when ``options.max_seconds`` pass or
    ``options.cancel`` is set (checked cooperatively, every few thousand
    candidates)."""
    check_estimate(lifted, options)
    start = time.perf_counter()
    with paused_gc():
        g = _Grounder(lifted, options)
        g.run()
        general = g.general.finalise() if g.general is not None else None
    seconds = time.perf_counter() - start
    fluent = lifted.fluent_predicates
    stats = GroundingStats(
        objects=len(lifted.objects),
        atoms=len(g.atoms),
        reachable_atoms=sum(g.reached),
        static_atoms=sum(1 for k in lifted.init if k[0] not in fluent),
        actions=len(g.actions),
        seconds=seconds,
    )
    return Task(lifted, g.atoms, g.ids, g.reached, g.actions, stats,
                by_args=g.by_args[: len(lifted.schemas)], watch=g.watch, always=g.always, general=general)


def ground_brute_force(lifted: LiftedTask, limit: int = 2_000_000) -> set[tuple[int, tuple[int, ...]]]:
    """``(schema id, args)`` of every type-consistent instance whose positive
    preconditions are relaxed-reachable and whose equality and static
    negative preconditions hold, and whose compound precondition is possible
    in the relaxation (:func:`possible`). Effect rules add their atoms for
    every binding whose condition is possible; axioms count as actions that
    add their head. Exponential: small tasks only (the oracle :func:`ground`
    is tested against)."""
    instances: list[tuple[Schema, tuple[int, ...]]] = []
    total = 0
    static = frozenset(range(len(lifted.predicates))) - lifted.fluent_predicates
    for schema in (*lifted.schemas, *lifted.axiom_schemas):
        for args in itertools.product(*schema.domains):
            total += 1
            if total > limit:
                raise GroundingLimitError("brute-force grounding is too large", details={"limit": limit})
            inst = schema.instantiate(args)
            if all(a == b for a, b in inst.eq) and not any(a == b for a, b in inst.neq) and (
                schema.residual is None or possible(lifted, static, schema.residual, schema.binding(args))
            ):
                instances.append((schema, args))
    reached: set[AtomKey] = set(lifted.init)
    result: set[tuple[int, tuple[int, ...]]] = set()
    changed = True
    while changed:
        changed = False
        for schema, args in instances:
            if (schema.id, args) in result:
                continue
            inst = schema.instantiate(args)
            if any(k[0] in static and k in lifted.init for k in inst.neg):
                continue
            if all(k in reached for k in inst.pre):
                result.add((schema.id, args))
                adds = list(inst.add)
                for rule in schema.rules:
                    for b in lifted._extend(schema.binding(args), rule.variables):
                        if rule.condition is None or possible(lifted, static, rule.condition, b):
                            adds.extend(lifted._key(a, b) for a in rule.adds)
                for k in adds:
                    if k not in reached:
                        reached.add(k)
                        changed = True
    return {(sid, args) for sid, args in result if sid < len(lifted.schemas)}
