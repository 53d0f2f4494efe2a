"""One definition of a step: what an action instance requires and does.

Every consumer that executes actions goes through this module: the plan
validator, the grounded session (:class:`pypddlengine.task.Task`, whose
actions the reachability grounder compiles) and the lifted session
(:class:`pypddlengine.lazy.LazyTask`, whose actions are instantiated on
demand). The semantics, written once:

* **Instantiation** (:func:`action_source`, :func:`general_parts`,
  :func:`encode`): a schema and its objects become a :class:`GroundAction`
  over atom *ids* (ints interned from atom keys). Equalities, inequalities
  and static literals (of predicates no action changes) are decided here:
  an instance they refute is never applicable and is not built at all.
  Compound preconditions and effect conditions become ground
  :data:`Formula` s, quantifiers expanded over their typed objects. The
  grounder and the on-demand instantiation generate their code with the
  same :func:`action_source`; only the way an atom key becomes an id
  differs (the grounder also queues new atoms for its fixpoint and folds
  atoms it proved unreachable to false).
* **Applicability** (:meth:`GroundAction.applicable`): the fluent positive
  preconditions hold, the negative ones do not, the compound part holds.
* **Effect** (:meth:`GroundAction.changes`): the conditional effects whose
  conditions hold in the state *before* the step fire; all deletes apply
  before all adds (an atom both deleted and added ends true).
* **Cost** (:meth:`GroundAction.step_cost`): the action's cost, plus the
  cost of each conditional effect each time it fires.
* **Derived atoms** (:class:`AxiomEvaluator`, or the lifted evaluator of
  :mod:`pypddlengine.lazy`): recomputed after the step from the fluent
  atoms, stratum by stratum, each stratum to its fixpoint.

States. A state is a ``frozenset`` of atom ids (static and derived atoms
included). Only four functions build states: :func:`initial_state`,
:meth:`GroundAction.apply` (and its in-place form :meth:`GroundAction.apply_to`
for the validator), :func:`revert` (undo) and the axiom evaluators.

Numeric fluents (PDDL 2.1 level 2) live here too, once for both backends. A
state of a numeric task is a :class:`NumericState`: a ``frozenset`` of atom
ids carrying ``values``, the tuple of fluent values (``None``: undefined);
the builders above carry the values over (:func:`thaw`/:func:`freeze` for
the mutable form). A numeric comparison is a :data:`Formula` of kind
:data:`NUMERIC` (a :class:`NumericTest`, static terms folded in), so it joins
preconditions, goals, effect conditions and axiom bodies like any other
condition; every action of a numeric task is a :class:`NumericAction`, whose
numeric effects (:class:`NumericUpdate`, also inside conditional effects)
all read the state before the step (:func:`numeric_changes`: increases and
decreases of one fluent add up, any other double change is an error, as in
VAL). Values are exact (:mod:`pypddlengine.exact`). Reading an undefined
value makes a condition false (the explanations say why) and makes an
effect fail with a located error, as does a division by zero.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, cast

from .errors import ErrorCode, NumericError, PDDLError
from . import exact
from .exact import Value, approx, fits, normal, size_text, to_text
from .lifted import AtomKey, LiftedTask, Schema, Template
from .model import And, Atom, Compare, Condition, Equals, Exists, Forall, Not, NumericEffect, Or
from .numeric import CONST, GExpr, assign, evaluator, interpret, term_text

__all__ = [
    "FALSE",
    "NUMERIC",
    "TRUE",
    "AdlAction",
    "AxiomEvaluator",
    "ConditionalEffect",
    "Formula",
    "GroundAction",
    "GroundAxiom",
    "NumericAction",
    "NumericSet",
    "NumericState",
    "NumericTest",
    "NumericUpdate",
    "State",
    "Transition",
    "UndefinedCost",
    "UndefinedTarget",
    "action_class",
    "action_cost",
    "action_source",
    "attach",
    "encode",
    "freeze",
    "general_parts",
    "holds",
    "initial_state",
    "numeric_changes",
    "numeric_condition",
    "read_error",
    "revert",
    "thaw",
]

State = frozenset[int]
"""A state: the set of ids of the atoms that hold (static atoms and derived
atoms included)."""


class NumericState(frozenset):  # type: ignore[type-arg]
    """A state of a numeric task: the atom ids, and ``values``, the tuple of
    fluent values (``values[i]`` of ``lifted.fluent_terms[i]``; ``None``:
    undefined). Equal (and hashed) by atoms *and* values; everything that
    reads only atoms (``in``, iteration, set operations, which return plain
    frozensets) works unchanged."""

    __slots__ = ("values",)

    values: tuple[Value | None, ...]

    def __new__(cls, atoms: Iterable[int] = (), values: tuple[Value | None, ...] = ()) -> NumericState:
        self = frozenset.__new__(cls, atoms)
        self.values = values
        return self

    def __eq__(self, other: object) -> bool:
        same = frozenset.__eq__(self, other)  # type: ignore[arg-type]
        return same is True and self.values == getattr(other, "values", None)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((frozenset.__hash__(self), self.values))

    def __reduce__(self) -> tuple[object, ...]:
        return (NumericState, (frozenset(self), self.values))

    def __repr__(self) -> str:
        return f"NumericState({set(self)!r}, {self.values!r})"


class NumericSet(set):  # type: ignore[type-arg]
    """The mutable form of a :class:`NumericState` (the validator's loop and
    the axiom evaluators work on one): atom ids and a ``values`` list."""

    __slots__ = ("values",)

    def __init__(self, atoms: Iterable[int] = (), values: list[Value | None] | None = None) -> None:
        super().__init__(atoms)
        self.values: list[Value | None] = [] if values is None else values


def thaw(state: State | set[int]) -> set[int]:
    """A mutable copy of ``state`` (a :class:`NumericSet` for a numeric state)."""
    values = getattr(state, "values", None)
    return set(state) if values is None else NumericSet(state, list(values))


def freeze(state: set[int]) -> State:
    """The immutable state of a mutable one (see :func:`thaw`)."""
    values = getattr(state, "values", None)
    return frozenset(state) if values is None else NumericState(state, tuple(values))


def initial_state(atoms: Iterable[int], values: tuple[Value | None, ...] | None = None) -> State:
    """The state in which exactly ``atoms`` hold (before derived atoms), with
    the fluent ``values`` of a numeric task."""
    return frozenset(atoms) if values is None else NumericState(atoms, values)


def revert(state: State, added: Iterable[int], deleted: Iterable[int],
           changed: Iterable[tuple[int, Value | None, Value]] = ()) -> State:
    """The state before a step that ``added`` and ``deleted`` these atoms
    (undo; derived atoms are among them) and ``changed`` these values
    (``(fluent id, old value, new value)``)."""
    atoms = state.difference(added).union(deleted)
    values = getattr(state, "values", None)
    if values is None:
        return atoms
    old = list(values)
    for i, before, _ in changed:
        old[i] = before
    return NumericState(atoms, tuple(old))


# ----------------------------------------------------------------------------- ground formulas

Formula = int | tuple  # type: ignore[type-arg]
"""A ground condition: atom id ``i`` (holds when ``i`` is in the state),
``~i`` (holds when it is not), ``(0, parts)`` a conjunction, ``(1, parts)``
a disjunction, ``(NUMERIC, test)`` a numeric comparison. Quantifiers were expanded and static atoms folded when
instantiating; :data:`TRUE` and :data:`FALSE` are the empty conjunction and
disjunction."""

TRUE: Formula = (0, ())
FALSE: Formula = (1, ())
NUMERIC = 2
"""The kind of a numeric comparison in a :data:`Formula`: ``(NUMERIC, test)``
where ``test`` is a :class:`NumericTest` of the state's values."""


def holds(f: Formula, state: State | set[int]) -> bool:
    """Whether the ground formula ``f`` holds in ``state``."""
    if f.__class__ is int:
        return f in state if f >= 0 else ~f not in state  # type: ignore[operator]
    kind, parts = f  # type: ignore[misc]
    if kind == 0:
        for p in parts:
            if not holds(p, state):
                return False
        return True
    if kind == NUMERIC:
        return parts(state.values)  # type: ignore[no-any-return, union-attr]
    for p in parts:
        if holds(p, state):
            return True
    return False


def junction(conjunction: bool, parts: Iterable[Formula]) -> Formula:
    """Simplified ``(and ...)``/``(or ...)`` of ground formulas."""
    unit, zero = (TRUE, FALSE) if conjunction else (FALSE, TRUE)
    kept: list[Formula] = []
    for p in parts:
        if p == zero:
            return zero
        if p != unit:
            kept.append(p)
    if not kept:
        return unit
    if len(kept) == 1:
        return kept[0]
    return (0 if conjunction else 1, tuple(kept))


def _counted(items: Iterable[Any], step: Callable[[], None] | None) -> Iterable[Any]:
    if step is None:
        return items
    return (step() or item for item in items)  # type: ignore[func-returns-value]


AtomRef = Callable[[AtomKey], "int | bool"]
"""How instantiation sees an atom: its id, or a truth value that holds in
every state the caller cares about (static atoms; for the grounder also
atoms it proved unreachable)."""


def encode(lifted: LiftedTask, cond: Condition, binding: dict[str, int], atom: AtomRef,
           step: Callable[[], None] | None = None) -> Formula:
    """The ground :data:`Formula` of the NNF condition ``cond`` under
    ``binding`` (quantifiers expanded over their typed objects, equalities
    decided, atoms resolved by ``atom``). ``step`` is called for each binding
    a quantifier tries (the grounder's time and cancellation checks)."""
    match cond:
        case Atom() | Not(operand=Atom()):
            negative = isinstance(cond, Not)
            ref = atom(lifted._key(cond.operand if negative else cond, binding))  # type: ignore[union-attr, arg-type]
            if ref is True or ref is False:
                return TRUE if ref != negative else FALSE
            return ~ref if negative else ref  # type: ignore[operator]
        case Equals(left=a, right=b):
            return TRUE if lifted._object(a, binding) == lifted._object(b, binding) else FALSE
        case Not(operand=Equals(left=a, right=b)):
            return TRUE if lifted._object(a, binding) != lifted._object(b, binding) else FALSE
        case And(parts=parts) | Or(parts=parts):
            return junction(isinstance(cond, And), (encode(lifted, p, binding, atom, step) for p in parts))
        case Exists(variables=vs, body=body) | Forall(variables=vs, body=body):
            return junction(isinstance(cond, Forall),
                            (encode(lifted, body, e, atom, step) for e in _counted(lifted._extend(binding, vs), step)))
        case Compare() | Not(operand=Compare()):
            return numeric_condition(lifted, cond, binding)
    raise TypeError(f"not a normalised condition: {cond!r}")


# ----------------------------------------------------------------------------- numeric conditions and effects


class NumericTest:
    """A ground numeric comparison ``left op right`` (negated for ``not
    (= ...)``) on a state's values. Static terms were folded in when it was
    built. A value it cannot compute (an undefined term, a division by zero)
    makes it false; :meth:`LiftedTask.compare` says why, from ``cond``
    under ``binding``, the comparison as written."""

    __slots__ = ("binding", "cond", "left", "negated", "op", "right", "test")

    def __init__(self, cond: Compare, binding: dict[str, int], left: GExpr, right: GExpr, negated: bool) -> None:
        self.cond, self.binding, self.op, self.negated = cond, binding, cond.op, negated
        self.left, self.right = left, right
        self.test = _comparison(cond.op, evaluator(left), evaluator(right), negated)

    def __call__(self, values: tuple[Value | None, ...] | list[Value | None]) -> bool:
        try:
            return self.test(values)  # type: ignore[no-any-return]
        except (TypeError, LookupError, ZeroDivisionError):  # an undefined value or a division by zero
            return False

    def __repr__(self) -> str:
        return f"NumericTest({self.left} {'!=' if self.negated else self.op} {self.right})"


def _comparison(op: str, left: Callable[..., Any], right: Callable[..., Any], negated: bool) -> Callable[..., bool]:
    if op == "=":
        def equal(v: Any) -> bool:
            a, b = left(v), right(v)
            if a is None or b is None:
                raise LookupError("undefined")
            return (a == b) != negated
        return equal
    if op == ">=":
        return lambda v: left(v) >= right(v)  # None raises TypeError
    if op == "<=":
        return lambda v: left(v) <= right(v)
    if op == ">":
        return lambda v: left(v) > right(v)
    return lambda v: left(v) < right(v)


def read_error(action: GroundAction, state: State | set[int]) -> NumericError | None:
    """Why ``action`` cannot be judged in ``state`` when a numeric comparison
    its precondition evaluates (as :func:`holds` does, in order, stopping
    where the answer is known) reads an undefined value or divides by zero:
    the located error (VAL stops there: "validator failed"); else ``None``."""
    cond = getattr(action, "cond", None)
    values = getattr(state, "values", None)
    if cond is None or values is None:
        return None
    lifted: LiftedTask | None = getattr(action, "lifted", None)

    def walk(f: Formula) -> bool | NumericError:
        if f.__class__ is int:
            return f in state if f >= 0 else ~f not in state  # type: ignore[operator]
        kind, parts = f  # type: ignore[misc]
        if kind == NUMERIC:
            try:
                return bool(parts.test(values))
            except (TypeError, LookupError, ZeroDivisionError):
                return _comparison_error(lifted, parts, values)
        for p in parts:
            r = walk(p)
            if r is not (kind == 0):  # a false conjunct, a true disjunct, or an error decides
                return r
        return kind == 0

    result = walk(cond)
    return result if isinstance(result, NumericError) else None


def _comparison_error(lifted: LiftedTask | None, test: NumericTest, values: Any) -> NumericError:
    if lifted is not None:
        lookup = lifted.value_lookup(values)
        try:
            interpret(test.cond.left, test.binding, lookup, lifted.object_display, lifted.object_index,
                      lifted.domain.source)
            interpret(test.cond.right, test.binding, lookup, lifted.object_display, lifted.object_index,
                      lifted.domain.source)
        except NumericError as err:
            return err
    return NumericError("a numeric condition cannot be evaluated", span=test.cond.span)


def numeric_condition(lifted: LiftedTask, cond: Compare | Not, binding: dict[str, int]) -> Formula:
    """The ground :data:`Formula` of a numeric comparison (or of ``not (= ...)``):
    :data:`TRUE`/:data:`FALSE` when it reads static terms only and they all
    have values, else ``(NUMERIC, test)``."""
    negated = isinstance(cond, Not)
    cmp = cast(Compare, cond.operand) if isinstance(cond, Not) else cond  # a negated '=': not (= a b)
    left, right = lifted.ground_expr(cmp.left, binding), lifted.ground_expr(cmp.right, binding)
    test = NumericTest(cmp, dict(binding), left, right, negated)
    if left[0] == CONST and right[0] == CONST:
        return TRUE if test(()) else FALSE
    return (NUMERIC, test)


class NumericUpdate:
    """One ground numeric effect ``(op f value)``: ``target`` is the fluent's
    id, ``value`` its right-hand side (static terms folded), read in the
    state before the step like every right-hand side of the step."""

    __slots__ = ("binding", "effect", "evaluate", "op", "target", "value")

    def __init__(self, effect: NumericEffect, binding: dict[str, int], target: int, value: GExpr) -> None:
        self.effect, self.binding, self.op, self.target, self.value = effect, binding, effect.op, target, value
        self.evaluate = evaluator(value)

    def __repr__(self) -> str:
        return f"NumericUpdate({self.op} x{self.target} {self.value})"


def numeric_updates(lifted: LiftedTask, effects: Iterable[NumericEffect], binding: dict[str, int]
                    ) -> tuple[NumericUpdate | UndefinedTarget, ...]:
    """The ground numeric effects ``effects`` under ``binding``."""
    out: list[NumericUpdate | UndefinedTarget] = []
    for eff in effects:
        args = tuple(binding[t.name] if t.name.startswith("?") else lifted.object_index[t.name]
                     for t in eff.target.terms)
        i = lifted.fluent_ids.get((eff.target.name, args))
        value = lifted.ground_expr(eff.value, binding)
        if i is None:  # never has a value: no place in the vector (see LiftedTask._numeric_fluents)
            out.append(UndefinedTarget(eff, dict(binding), term_text(eff.target.name, args, lifted.object_display)))
        else:
            out.append(NumericUpdate(eff, dict(binding), i, value))
    return tuple(out)


class UndefinedTarget:
    """A numeric effect on a term that never has a value (not in the initial
    state, never assigned): an error when it is executed."""

    __slots__ = ("binding", "effect", "text")

    def __init__(self, effect: NumericEffect, binding: dict[str, int], text: str) -> None:
        self.effect, self.binding, self.text = effect, binding, text


def _numeric_error(lifted: LiftedTask, update: NumericUpdate | UndefinedTarget, values: Any,
                   err: BaseException | None = None) -> NumericError:
    """The located error of a numeric effect that cannot be executed."""
    eff = update.effect
    source = lifted.domain.source
    if isinstance(update, UndefinedTarget) or (isinstance(err, LookupError) and err.args == (eff.op,)):
        text = update.text if isinstance(update, UndefinedTarget) else \
            term_text(*lifted.fluent_terms[update.target], lifted.object_display)
        if eff.op == "assign" and isinstance(update, UndefinedTarget):
            message = f"{text} cannot be assigned: the domain never gives it a value"
        else:
            message = f"{text} has no value, so '{eff.op}' cannot change it"
        return NumericError(message, span=eff.span, source=source, details={"term": text},
                            hint="give it a value in :init (or assign it before it is changed)")
    try:  # locate what went wrong in the right-hand side, as written
        value = interpret(eff.value, update.binding, lifted.value_lookup(values), lifted.object_display,
                          lifted.object_index, source)
    except NumericError as located:
        return located
    # the right-hand side is fine: scale-down by zero
    return NumericError(f"division by zero: '{eff.op}' by {to_text(value)}", code=ErrorCode.DIVISION_BY_ZERO,
                        span=eff.span, source=source)


def numeric_changes(lifted: LiftedTask, updates: Iterable[NumericUpdate | UndefinedTarget],
                    values: tuple[Value | None, ...] | list[Value | None]) -> dict[int, Value]:
    """The new values the numeric effects ``updates`` of one step give,
    every right-hand side read from ``values`` (the state before the step).
    As VAL: several ``increase``/``decrease`` of one fluent add up; any other
    second change of a fluent in the same step is an error
    (``NUMERIC_EFFECT_CONFLICT``), as are an undefined value read
    (``UNDEFINED_FUNCTION_VALUE``) and a division by zero
    (``DIVISION_BY_ZERO``), each located in the domain."""
    new: dict[int, Value] = {}
    kinds: dict[int, str] = {}
    last: dict[int, NumericUpdate] = {}
    for u in updates:
        if isinstance(u, UndefinedTarget):
            raise _numeric_error(lifted, u, values)
        try:
            value = u.evaluate(values)
            if value is None:
                raise LookupError("undefined")
            i, op = u.target, u.op
            if i in kinds:
                additive = op in ("increase", "decrease") and kinds[i] == "additive"
                if not additive:
                    text = term_text(*lifted.fluent_terms[i], lifted.object_display)
                    raise NumericError(f"one step changes {text} twice ('{op}' and another change); only "
                                       "increases and decreases of one value add up", code=ErrorCode.NUMERIC_EFFECT_CONFLICT,
                                       span=u.effect.span, source=lifted.domain.source, details={"term": text})
                new[i] = normal(new[i] + value if op == "increase" else new[i] - value)
                last[i] = u
                continue
            kinds[i] = "additive" if op in ("increase", "decrease") else op
            new[i] = assign(op, values[i], value)
            last[i] = u
        except NumericError:
            raise
        except (TypeError, LookupError, ZeroDivisionError) as err:
            raise _numeric_error(lifted, u, values, err) from None
    for i, value in new.items():
        if not fits(value):
            raise overflow_error(lifted, last[i], value)
    return new


def overflow_error(lifted: LiftedTask, update: NumericUpdate, value: Value) -> NumericError:
    """``NUMERIC_OVERFLOW``, located at the effect that would store ``value``."""
    text = term_text(*lifted.fluent_terms[update.target], lifted.object_display)
    return NumericError(
        f"'{update.op}' would give {text} {size_text(value)} ({approx(value)}), past the bound of "
        f"{exact.MAX_NUMBER_BITS:,} bits on exact numbers", code=ErrorCode.NUMERIC_OVERFLOW,
        span=update.effect.span, source=lifted.domain.source, details={"term": text, "limit": exact.MAX_NUMBER_BITS},
        hint="raise pypddlengine.exact.MAX_NUMBER_BITS if such values are meant (see docs/limits.md)")


# ----------------------------------------------------------------------------- ground actions


class Transition(NamedTuple):
    """One executed step: the new state, the atoms that really changed
    (derived atoms included), the conditional effects that fired, the cost."""

    state: State
    added: tuple[int, ...]
    deleted: tuple[int, ...]
    fired: tuple[ConditionalEffect, ...]
    cost: Value | float
    changed: tuple[tuple[int, Value | None, Value], ...] = ()
    """Numeric values that really changed: ``(fluent id, old value, new value)``."""


_transition = tuple.__new__


class GroundAction:
    """A ground action. ``pre``/``neg`` hold the ids of the positive and
    negative *fluent* preconditions (static ones were decided when the action
    was instantiated); ``add``/``delete`` the effect ids. Identity is the
    action's ``id`` within its task."""

    __slots__ = ("_rest", "add", "args", "cost", "delete", "id", "neg", "pre", "schema")

    def __init__(
        self,
        id: int,
        schema: Schema,
        args: tuple[int, ...],
        pre: tuple[int, ...],
        neg: tuple[int, ...],
        add: tuple[int, ...],
        delete: tuple[int, ...],
        cost: int | float,
    ) -> None:
        self.id = id
        self.schema = schema
        self.args = args
        self.pre = pre
        self.neg = neg
        self.add = add
        self.delete = delete
        self.cost = cost
        self._rest: tuple[int, ...] = pre

    def applicable(self, state: State | set[int]) -> bool:  # loops unrolled: hot path
        for a in self.pre:
            if a not in state:
                return False
        for a in self.neg:
            if a in state:
                return False
        return True

    def fired(self, state: State | set[int]) -> tuple[ConditionalEffect, ...]:
        """The conditional effects that fire in ``state`` (none for STRIPS)."""
        return ()

    def changes(self, state: State | set[int]) -> tuple[Iterable[int], Iterable[int]]:
        """``(delete, add)``: the atoms the step makes false, then true, when
        executed in ``state`` (the state before the step)."""
        return self.delete, self.add

    def executable(self, state: State | set[int]) -> bool:
        """Whether executing the action in ``state`` (where it is applicable)
        succeeds: its cost has a value and (a numeric task) every effect can
        be computed and stored. An action that fails here is not listed as
        applicable, so that what is listed executes (VAL too rejects a plan at
        a step whose effect reads an undefined value)."""
        return self.step_error(state) is None

    def step_error(self, state: State | set[int]) -> Exception | None:
        """The typed error executing the action in ``state`` would raise (see
        :meth:`executable`), ``None`` when it would succeed."""
        cost = self.cost
        return cost.error if cost.__class__ is UndefinedCost else None  # type: ignore[union-attr]

    def step_cost(self, state: State | set[int]) -> Value | float:
        """The cost of executing the action in ``state``. Raises the
        :class:`~pypddlengine.errors.PDDLError` of an :class:`UndefinedCost`."""
        cost = self.cost
        if cost.__class__ is UndefinedCost:
            raise cost.error  # type: ignore[union-attr]
        return cost

    def apply(self, state: State) -> State:
        """The successor state: deletes first, then adds (an atom both
        deleted and added ends true)."""
        if self.delete:
            state = state.difference(self.delete)
        if self.add:
            state = state.union(self.add)
        return state

    def apply_to(self, state: set[int]) -> None:
        """:meth:`apply` in place, on a mutable set (the validator's loop)."""
        state.difference_update(self.delete)
        state.update(self.add)

    def step(self, state: State) -> Transition:
        """Execute in ``state`` (applicability is the caller's check)."""
        cost = self.cost
        if cost.__class__ is UndefinedCost:
            raise cost.error  # type: ignore[union-attr]
        new = self.apply(state)
        added = tuple([a for a in self.add if a not in state])
        deleted = tuple([d for d in self.delete if d in state and d not in new])
        return _transition(Transition, (new, added, deleted, (), cost, ()))  # tuple.__new__: a hot path

    def __repr__(self) -> str:
        return f"<GroundAction {self.id} {self.schema.name}{self.args}>"


class UndefinedCost:
    """The cost of an action whose cost needs a function value the problem
    does not define: an error when the action is executed, not before (the
    on-demand backend instantiates actions it may never execute)."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"UndefinedCost({self.error})"


class ConditionalEffect(NamedTuple):
    """A ground conditional effect: when ``cond`` (``None``: always) holds in
    the state before the step, ``delete`` then ``add`` apply. ``rule`` and
    ``args`` name the effect rule of the schema and its quantified objects."""

    cond: Formula | None
    add: tuple[int, ...]
    delete: tuple[int, ...]
    rule: int
    args: tuple[int, ...]
    cost: Value | float | UndefinedCost = 0
    """Charged each time the effect fires (a ``total-cost`` increase inside ``when``/``forall``);
    an :class:`UndefinedCost` when a function value it needs is missing."""
    numeric: tuple[NumericUpdate | UndefinedTarget, ...] = ()
    """Its numeric effects (a numeric task)."""


class AdlAction(GroundAction):
    """A ground action of a task beyond STRIPS: ``cond`` is the precondition
    beyond ``pre``/``neg`` (``None``: nothing more), ``effects`` the
    conditional effects, ``derive`` the task's axioms (``None``: none)."""

    __slots__ = ("cond", "derive", "effects")

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.cond: Formula | None = None
        self.effects: tuple[ConditionalEffect, ...] = ()
        self.derive: Derive | None = None

    def applicable(self, state: State | set[int]) -> bool:
        return super().applicable(state) and (self.cond is None or holds(self.cond, state))

    def fired(self, state: State | set[int]) -> tuple[ConditionalEffect, ...]:
        return tuple(e for e in self.effects if e.cond is None or holds(e.cond, state))

    def changes(self, state: State | set[int], fired: Iterable[ConditionalEffect] | None = None
                ) -> tuple[Iterable[int], Iterable[int]]:
        fired = self.fired(state) if fired is None else fired
        if not fired:
            return self.delete, self.add
        delete = set(self.delete)
        add = set(self.add)
        for e in fired:
            delete.update(e.delete)
            add.update(e.add)
        return delete, add

    def apply(self, state: State) -> State:
        delete, add = self.changes(state)
        new = state.difference(delete).union(add)
        return new if self.derive is None else self.derive(new)

    def apply_to(self, state: set[int]) -> None:
        delete, add = self.changes(state)
        state.difference_update(delete)
        state.update(add)
        if self.derive is not None:
            self.derive.update(state)

    def step_error(self, state: State | set[int]) -> Exception | None:
        for cost in (self.cost, *(e.cost for e in self.fired(state))):
            if cost.__class__ is UndefinedCost:
                return cost.error  # type: ignore[union-attr]
        return None

    def step_cost(self, state: State | set[int], fired: Iterable[ConditionalEffect] | None = None) -> Value | float:
        cost = super().step_cost(state)
        for e in self.fired(state) if fired is None else fired:
            if e.cost.__class__ is UndefinedCost:
                raise e.cost.error  # type: ignore[union-attr]  # narrowed by the class test above
            cost += e.cost  # type: ignore[operator]  # not an UndefinedCost (the class test above)
        return cost

    def step(self, state: State) -> Transition:
        fired = self.fired(state)
        cost = self.step_cost(state, fired)
        delete, add = self.changes(state, fired)
        new = state.difference(delete).union(add)
        if self.derive is not None:
            new = self.derive(new)
        return Transition(new, tuple(sorted(new - state)), tuple(sorted(state - new)), fired, cost)


class NumericAction(AdlAction):
    """A ground action of a numeric task (every action of one is): states
    carry values (:class:`NumericState`), ``numeric`` holds the unconditional
    numeric effects, and a conditional effect that fires brings its own.
    Every right-hand side reads the state before the step; the values change
    with the atoms, before the derived atoms are recomputed (their rules may
    compare values). A numeric effect that cannot be executed raises its
    located :class:`~pypddlengine.errors.NumericError` and changes nothing."""

    __slots__ = ("lifted", "numeric")

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.numeric: tuple[NumericUpdate | UndefinedTarget, ...] = ()
        self.lifted: LiftedTask | None = None

    def new_values(self, state: State | set[int], fired: Iterable[ConditionalEffect]) -> dict[int, Value]:
        """The fluents the step changes and their new values (see :func:`numeric_changes`)."""
        updates = self.numeric
        for e in fired:
            if e.numeric:
                updates = (*updates, *e.numeric)
        if not updates:
            return {}
        return numeric_changes(self.lifted, updates, state.values)  # type: ignore[arg-type, union-attr]

    def step_error(self, state: State | set[int]) -> Exception | None:
        fired = self.fired(state)
        try:
            self.step_cost(state, fired)
            self.new_values(state, fired)
        except PDDLError as err:
            return err
        return None

    def apply(self, state: State) -> State:
        return self.step(state).state

    def apply_to(self, state: set[int]) -> None:
        fired = self.fired(state)
        new = self.new_values(state, fired)  # before anything changes: it may raise
        delete, add = self.changes(state, fired)
        state.difference_update(delete)
        state.update(add)
        values: list[Value | None] = state.values  # type: ignore[attr-defined]
        for i, v in new.items():
            values[i] = v
        if self.derive is not None:
            self.derive.update(state)

    def step(self, state: State) -> Transition:
        fired = self.fired(state)
        cost = self.step_cost(state, fired)
        new = self.new_values(state, fired)
        delete, add = self.changes(state, fired)
        old: tuple[Value | None, ...] = state.values  # type: ignore[attr-defined]
        values = list(old)
        for i, v in new.items():
            values[i] = v
        after = NumericState(state.difference(delete).union(add), tuple(values))
        if self.derive is not None:
            after = self.derive(after)  # type: ignore[assignment]
        changed = tuple((i, old[i], v) for i, v in sorted(new.items()) if old[i] != v or old[i] is None)
        return Transition(after, tuple(sorted(after - state)), tuple(sorted(state - after)), fired, cost, changed)


# ----------------------------------------------------------------------------- derived atoms


class GroundAxiom(NamedTuple):
    """``head`` holds when ``pre`` hold, ``neg`` do not and ``cond`` holds."""

    head: int
    pre: tuple[int, ...]
    neg: tuple[int, ...]
    cond: Formula | None


class Derive:
    """The derived atoms of a state, recomputed from its fluent atoms:
    ``derive(state)`` returns the new state, ``derive.update(s)`` changes a
    mutable set in place."""

    derived: frozenset[int]

    def __call__(self, state: State | set[int]) -> State:
        cur = thaw(state)
        self.update(cur)
        return freeze(cur)

    def update(self, state: set[int]) -> None:
        raise NotImplementedError


class AxiomEvaluator(Derive):
    """Ground axioms by stratum: the strata in order, each to its fixpoint
    (negated derived atoms come from earlier strata, so within a stratum the
    rules are monotone)."""

    __slots__ = ("derived", "strata")

    def __init__(self, strata: tuple[tuple[GroundAxiom, ...], ...], derived: frozenset[int]) -> None:
        self.strata = strata
        self.derived = derived

    def update(self, cur: set[int]) -> None:
        cur.difference_update(self.derived)
        for stratum in self.strata:
            pending = [ax for ax in stratum if ax.head not in cur]
            changed = True
            while changed and pending:
                changed = False
                rest = []
                for ax in pending:
                    if ax.head in cur:
                        continue
                    if axiom_fires(ax, cur):
                        cur.add(ax.head)
                        changed = True
                        continue
                    rest.append(ax)
                pending = rest


def axiom_fires(ax: GroundAxiom, state: State | set[int]) -> bool:
    """Whether the body of ``ax`` holds in ``state``."""
    for a in ax.pre:
        if a not in state:
            return False
    for n in ax.neg:
        if n in state:
            return False
    return ax.cond is None or holds(ax.cond, state)


# ----------------------------------------------------------------------------- instantiation


def _key_source(t: Template, term: Callable[[int], str]) -> str:
    return f"({', '.join([str(t[0]), *map(term, t[1])])},)"


def action_source(schema: Schema, static: frozenset[int], *, lazy: bool, add_hook: list[str] = (),  # type: ignore[assignment]
                  pre_known: bool = False, intern: str = "intern(k)") -> tuple[list[str], dict[str, list[str]]]:
    """The body of ``make(a)`` up to the ground action's parts, as source
    lines (indented once): reject ``a`` (``return``) when an equality, an
    inequality or a static literal refutes it, then intern the fluent
    precondition and effect atoms.

    Returns the lines and, for ``pre``, ``neg``, ``add`` and ``delete``, the
    names of the variables holding their ids (see :func:`tuple_source`). With ``lazy``, static
    positive preconditions are checked against ``init``; without, the caller
    (the grounder's joins) has already matched them. ``pre_known``: the
    positive preconditions are already interned (``ids[k]``). ``intern``:
    the expression giving a new id to key ``k`` (absent from ``ids``).
    ``add_hook`` lines run after a new add atom ``v``/key ``k`` is interned."""

    def term(x: int) -> str:
        return f"a[{x}]" if x >= 0 else str(~x)

    lines: list[str] = []
    for x, y in schema.eq:
        lines.append(f"    if {term(x)} != {term(y)}: return")
    for x, y in schema.neq:
        lines.append(f"    if {term(x)} == {term(y)}: return")
    for t in schema.neg:
        if t[0] in static:
            lines.append(f"    if {_key_source(t, term)} in init: return")
    if lazy:
        for t in schema.pre:
            if t[0] in static:
                lines.append(f"    if {_key_source(t, term)} not in init: return")
    fluent_pre = [t for t in schema.pre if t[0] not in static]
    pre = [f"p{i}" for i in range(len(fluent_pre))]
    known = {t: f"p{i}" for i, t in enumerate(fluent_pre)}  # STRIPS deletes are mostly preconditions
    for i, t in enumerate(fluent_pre):
        if pre_known:
            lines.append(f"    p{i} = ids[{_key_source(t, term)}]")
        else:
            lines.append(f"    k = {_key_source(t, term)}")
            lines.append(f"    p{i} = ids.get(k)")
            lines.append(f"    if p{i} is None: p{i} = {intern}")
    names: dict[str, list[str]] = {"neg": [], "add": [], "delete": []}
    count = 0
    for kind, templates in (("neg", schema.neg), ("add", schema.add), ("delete", schema.delete)):
        for t in templates:
            if kind == "neg" and t[0] in static:
                continue
            if kind == "delete" and t in known:
                names[kind].append(known[t])
                continue
            v = f"x{count}"
            count += 1
            lines.append(f"    k = {_key_source(t, term)}")
            lines.append(f"    {v} = ids.get(k)")
            lines.append(f"    if {v} is None: {v} = {intern}")
            if kind == "add":
                lines.extend(line.replace("{v}", v) for line in add_hook)
            names[kind].append(v)

    return lines, {"pre": pre, **names}


def tuple_source(items: list[str]) -> str:
    """A tuple expression of the variables ``items``."""
    return f"({', '.join(items)},)" if items else "()"


Encoder = Callable[[Condition, dict[str, int]], Formula]
"""``encoder(cond, binding)``: :func:`encode` with the caller's :data:`AtomRef` (and memo)."""


def general_parts(lifted: LiftedTask, schema: Schema, args: tuple[int, ...], encoder: Encoder,
                  effect_atom: Callable[[AtomKey], int],
                  bindings: Iterable[tuple[int, tuple[int, ...]]] | None = None,
                  step: Callable[[], None] | None = None,
                  ) -> tuple[Formula, tuple[ConditionalEffect, ...]]:
    """The compound precondition and the conditional effects of
    ``schema(args)``: ``(cond, effects)``, ``cond`` :data:`TRUE` when there
    is nothing beyond the literals. Effects whose condition is :data:`FALSE`
    are left out; an effect's cost is what one firing adds (its ``total-cost``
    increases; an :class:`UndefinedCost` when a function value it needs is
    missing). ``bindings``: ``(rule index, objects of its variables)`` to
    instantiate (default: every typed binding of every rule); ``step`` is
    called per binding (time and cancellation checks)."""
    b = schema.binding(args)
    cond = TRUE if schema.residual is None else encoder(schema.residual, b)
    if bindings is None:
        bindings = ((rule.index, combo) for rule in schema.rules
                    for combo in _products(lifted, rule.variables))
    effects: list[ConditionalEffect] = []
    for index, combo in _counted(bindings, step):
        rule = schema.rules[index]
        bb = {**b, **dict(zip((v.name for v in rule.variables), combo, strict=True))}
        c = TRUE if rule.condition is None else encoder(rule.condition, bb)
        if c == FALSE:
            continue
        effects.append(ConditionalEffect(
            None if c == TRUE else c,
            tuple(dict.fromkeys(effect_atom(lifted._key(a, bb)) for a in rule.adds)),
            tuple(dict.fromkeys(effect_atom(lifted._key(a, bb)) for a in rule.deletes)),
            index, combo, _rule_cost(lifted, schema, rule, bb) if rule.numeric else 0,
            numeric_updates(lifted, rule.numeric, bb) if lifted.numeric_task else ()))
    return cond, tuple(effects)


def action_cost(lifted: LiftedTask, schema: Schema, args: tuple[int, ...]) -> Value | float | UndefinedCost:
    """The cost of the instance ``schema(args)``, or an :class:`UndefinedCost`
    when it reads a function without a value: an error when the action is
    executed, not when it is built (both backends; such an action is not
    listed as applicable, see :meth:`GroundAction.executable`)."""
    try:
        return lifted.action_cost(schema.instantiate(args))
    except PDDLError as err:
        return UndefinedCost(err)


def _rule_cost(lifted: LiftedTask, schema: Schema, rule: Any, binding: dict[str, int]) -> Value | float | UndefinedCost:
    try:
        return lifted.rule_cost(schema, rule, binding)
    except PDDLError as err:  # an error when the effect fires, not before
        return UndefinedCost(err)


def attach(act: GroundAction, lifted: LiftedTask, cond: Formula, effects: tuple[ConditionalEffect, ...]) -> None:
    """Give an :class:`AdlAction` what :func:`general_parts` found (``cond``
    not :data:`FALSE`), and a :class:`NumericAction` its numeric effects."""
    act.cond = None if cond == TRUE else cond  # type: ignore[attr-defined]
    act.effects = effects  # type: ignore[attr-defined]
    if isinstance(act, NumericAction):
        act.lifted = lifted
        act.numeric = numeric_updates(lifted, act.schema.numeric, act.schema.binding(act.args))


def action_class(lifted: LiftedTask) -> type[GroundAction]:
    """The class of a task's ground actions: :class:`NumericAction` for a
    numeric task, :class:`AdlAction` beyond STRIPS, else :class:`GroundAction`."""
    if lifted.numeric_task:
        return NumericAction
    return AdlAction if lifted.general else GroundAction


def _products(lifted: LiftedTask, variables: Any) -> Iterable[tuple[int, ...]]:
    return itertools.product(*(lifted._domain_of(v.types) for v in variables))
