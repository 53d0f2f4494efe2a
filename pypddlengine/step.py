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
for the validator), :func:`revert` (undo) and the axiom evaluators. **Numeric
fluents plug in here**: a state can become a ``frozenset`` subclass carrying
a tuple of fluent values; numeric conditions join :meth:`GroundAction.applicable`
(and :data:`Formula`), numeric effects :meth:`GroundAction.changes` (evaluated
in the state before the step, simultaneously), and these builders carry the
values over. Consumers that only read atoms (``in``, iteration, hashing,
set differences for rendering) need no change.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from .lifted import AtomKey, LiftedTask, Schema, Template
from .model import And, Atom, Condition, Equals, Exists, Forall, Not, Or

__all__ = [
    "FALSE",
    "TRUE",
    "AdlAction",
    "AxiomEvaluator",
    "ConditionalEffect",
    "Formula",
    "GroundAction",
    "GroundAxiom",
    "State",
    "Transition",
    "UndefinedCost",
    "action_source",
    "encode",
    "general_parts",
    "holds",
    "initial_state",
    "revert",
]

State = frozenset[int]
"""A state: the set of ids of the atoms that hold (static atoms and derived
atoms included)."""


def initial_state(atoms: Iterable[int]) -> State:
    """The state in which exactly ``atoms`` hold (before derived atoms)."""
    return frozenset(atoms)


def revert(state: State, added: Iterable[int], deleted: Iterable[int]) -> State:
    """The state before a step that ``added`` and ``deleted`` these atoms
    (undo; derived atoms are among them)."""
    return state.difference(added).union(deleted)


# ----------------------------------------------------------------------------- ground formulas

Formula = int | tuple  # type: ignore[type-arg]
"""A ground condition: atom id ``i`` (holds when ``i`` is in the state),
``~i`` (holds when it is not), ``(0, parts)`` a conjunction, ``(1, parts)``
a disjunction. Quantifiers were expanded and static atoms folded when
instantiating; :data:`TRUE` and :data:`FALSE` are the empty conjunction and
disjunction."""

TRUE: Formula = (0, ())
FALSE: Formula = (1, ())


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


AtomRef = Callable[[AtomKey], "int | bool"]
"""How instantiation sees an atom: its id, or a truth value that holds in
every state the caller cares about (static atoms; for the grounder also
atoms it proved unreachable)."""


def encode(lifted: LiftedTask, cond: Condition, binding: dict[str, int], atom: AtomRef) -> Formula:
    """The ground :data:`Formula` of the NNF condition ``cond`` under
    ``binding`` (quantifiers expanded over their typed objects, equalities
    decided, atoms resolved by ``atom``)."""
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
            return junction(isinstance(cond, And), (encode(lifted, p, binding, atom) for p in parts))
        case Exists(variables=vs, body=body) | Forall(variables=vs, body=body):
            return junction(isinstance(cond, Forall),
                            (encode(lifted, body, e, atom) for e in lifted._extend(binding, vs)))
    raise TypeError(f"not a normalised condition: {cond!r}")


# ----------------------------------------------------------------------------- ground actions


class Transition(NamedTuple):
    """One executed step: the new state, the atoms that really changed
    (derived atoms included), the conditional effects that fired, the cost."""

    state: State
    added: tuple[int, ...]
    deleted: tuple[int, ...]
    fired: tuple[ConditionalEffect, ...]
    cost: int | float


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

    def step_cost(self, state: State | set[int]) -> int | float:
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
        return _transition(Transition, (new, added, deleted, (), cost))  # tuple.__new__: a hot path

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
    cost: int | float = 0
    """Charged each time the effect fires (a ``total-cost`` increase inside ``when``/``forall``)."""


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

    def step_cost(self, state: State | set[int], fired: Iterable[ConditionalEffect] | None = None) -> int | float:
        cost = super().step_cost(state)
        fired = self.fired(state) if fired is None else fired
        return cost + sum(e.cost for e in fired) if fired else cost

    def step(self, state: State) -> Transition:
        fired = self.fired(state)
        cost = self.step_cost(state, fired)
        delete, add = self.changes(state, fired)
        new = state.difference(delete).union(add)
        if self.derive is not None:
            new = self.derive(new)
        return Transition(new, tuple(sorted(new - state)), tuple(sorted(state - new)), fired, cost)


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
        cur = set(state)
        self.update(cur)
        return frozenset(cur)

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
                  ) -> tuple[Formula, tuple[ConditionalEffect, ...]]:
    """The compound precondition and the conditional effects of
    ``schema(args)``: ``(cond, effects)``, ``cond`` :data:`TRUE` when there
    is nothing beyond the literals. Effects whose condition is :data:`FALSE`
    are left out. ``bindings``: ``(rule index, objects of its variables)`` to
    instantiate (default: every typed binding of every rule)."""
    b = schema.binding(args)
    cond = TRUE if schema.residual is None else encoder(schema.residual, b)
    if bindings is None:
        bindings = ((rule.index, combo) for rule in schema.rules
                    for combo in _products(lifted, rule.variables))
    effects: list[ConditionalEffect] = []
    for index, combo in bindings:
        rule = schema.rules[index]
        bb = {**b, **dict(zip((v.name for v in rule.variables), combo, strict=True))}
        c = TRUE if rule.condition is None else encoder(rule.condition, bb)
        if c == FALSE:
            continue
        effects.append(ConditionalEffect(
            None if c == TRUE else c,
            tuple(dict.fromkeys(effect_atom(lifted._key(a, bb)) for a in rule.adds)),
            tuple(dict.fromkeys(effect_atom(lifted._key(a, bb)) for a in rule.deletes)),
            index, combo))
    return cond, tuple(effects)


def _products(lifted: LiftedTask, variables: Any) -> Iterable[tuple[int, ...]]:
    return itertools.product(*(lifted._domain_of(v.types) for v in variables))
