"""The lifted backend: a task whose ground actions are built on demand.

:class:`LazyTask` interns atom ids lazily (the initial state's atoms first)
and instantiates an action the first time it is referred to, with the same
generated code as the grounder (:func:`pypddlengine.step.action_source`),
so a state is a ``frozenset`` of atom ids as in a grounded
:class:`~pypddlengine.task.Task` and a step means the same thing. Nothing is
grounded up front: memory grows with the atoms and actions actually met.

Derived atoms are computed per state from the axiom rules, stratum by
stratum: each rule's positive literals are joined with the state, and each
binding found instantiates a ground axiom (the same encoding as the
grounder's) that is then checked.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from types import CodeType
from typing import Any

from .errors import PDDLError
from .lifted import AtomKey, LiftedTask, Schema
from .model import Condition
from .step import (
    FALSE,
    TRUE,
    Derive,
    Formula,
    GroundAction,
    GroundAxiom,
    State,
    UndefinedCost,
    action_class,
    action_source,
    attach,
    axiom_fires,
    encode,
    general_parts,
    initial_state,
    tuple_source,
)
from .task import StepSpace

__all__ = ["LazyTask"]

_MISSING = object()

CACHE_LIMIT = 200_000
"""Instantiated actions kept per task; beyond it the cache starts again
(actions in a session's history stay alive through the history)."""


class LazyTask(StepSpace):
    """A task whose atoms and actions are interned on first use (see the
    module docstring). Not thread-safe: one per session or validation."""

    backend = "lifted"

    def __init__(self, lifted: LiftedTask) -> None:
        self.lifted = lifted
        self.atoms: list[AtomKey] = sorted(lifted.init)
        self.atom_ids: dict[AtomKey, int] = dict(zip(self.atoms, range(len(self.atoms)), strict=True))
        self.static = frozenset(range(len(lifted.predicates))) - lifted.fluent_predicates
        self._ids = itertools.count()
        self._cache: dict[tuple[int, tuple[int, ...]], GroundAction | None] = {}
        self._axiom_cache: dict[tuple[int, tuple[int, ...]], GroundAxiom | None] = {}
        self.general: object | None = True if lifted.general else None
        self._makers = [self._maker(s) for s in (*lifted.schemas, *lifted.axiom_schemas)]
        intern = self.intern
        init = range(len(self.atoms))
        self.static_atoms = frozenset(self.atom_ids[k] for k in lifted.init if k[0] in self.static)
        self.goal_pos = tuple(intern(k) for k in lifted.goal_pos)
        self.goal_neg = tuple(intern(k) for k in lifted.goal_neg)
        self.goal_cond: Formula | None = None
        if lifted.goal_residual is not None:
            self.goal_cond = encode(lifted, lifted.goal_residual, {}, self._atom)
        self.axioms: LiftedAxioms | None = LiftedAxioms(self) if lifted.axiom_schemas else None
        self.init = initial_state(init, lifted.initial_values if lifted.numeric_task else None)
        if self.axioms is not None:
            self.init = self.axioms(self.init)

    @property
    def derived_atoms(self) -> frozenset[int]:  # type: ignore[override]
        derived = self.lifted.derived_predicates
        return frozenset(i for i, k in enumerate(self.atoms) if k[0] in derived) if derived else frozenset()

    # ------------------------------------------------------------------ interning

    def intern(self, key: AtomKey) -> int:
        i = self.atom_ids.get(key)
        if i is None:
            i = self.atom_ids[key] = len(self.atoms)
            self.atoms.append(key)
        return i

    def _atom(self, key: AtomKey) -> int | bool:
        """:data:`pypddlengine.step.AtomRef`: static atoms by their initial value, the rest by id."""
        if key[0] in self.static:
            return key in self.lifted.init
        return self.intern(key)

    def _encode(self, cond: Condition, binding: dict[str, int]) -> Formula:
        return encode(self.lifted, cond, binding, self._atom)

    def _maker(self, schema: Schema) -> Any:
        ns: dict[str, Any] = {
            "ids": self.atom_ids, "atoms": self.atoms, "append": self.atoms.append, "init": self.lifted.init,
            "schema": schema,
            "Action": action_class(self.lifted), "GroundAxiom": GroundAxiom,
            "new_id": self._ids.__next__,
            "cost_of": lambda a, s=schema: self._cost(s, a),
        }
        exec(_maker_code(self.lifted, schema, self.static), ns)
        return ns["make"]

    def _cost(self, schema: Schema, args: tuple[int, ...]) -> int | float | UndefinedCost:
        try:
            return self.lifted.action_cost(schema.instantiate(args))
        except PDDLError as err:  # an error when executed, not when instantiated
            return UndefinedCost(err)

    # ------------------------------------------------------------------ actions and axioms

    def lookup(self, schema: Schema, args: tuple[int, ...]) -> GroundAction | None:
        """The ground action ``schema(args)`` (``args`` type-checked), or
        ``None`` when an equality or a static literal refutes it."""
        key = (schema.id, args)
        act = self._cache.get(key, _MISSING)
        if act is not _MISSING:
            return act  # type: ignore[return-value]
        act = self._makers[schema.id](args)
        if act is not None and self.general is not None:
            cond, effects = general_parts(self.lifted, schema, args, self._encode, self.intern)
            if cond == FALSE:
                act = None
            else:
                attach(act, self.lifted, cond, effects)
                act.derive = self.axioms
        cache = self._cache
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        cache[key] = act
        return act

    def axiom(self, schema: Schema, args: tuple[int, ...]) -> GroundAxiom | None:
        """The ground axiom of rule ``schema`` for ``args``, ``None`` when refuted statically."""
        key = (schema.id, args)
        cache = self._axiom_cache
        if key in cache:
            return cache[key]
        ax = self._makers[schema.id](args)
        if ax is not None and schema.residual is not None:
            cond = self._encode(schema.residual, schema.binding(args))
            ax = None if cond == FALSE else ax._replace(cond=None if cond == TRUE else cond)
        if len(cache) >= CACHE_LIMIT:
            cache.clear()
        cache[key] = ax
        return ax

    def applicable(self, state: State) -> list[GroundAction]:
        index = _Index(self, state)
        out = []
        for schema in self.lifted.schemas:
            for args in index.bindings(schema):
                act = self.lookup(schema, args)
                if act is not None and act.applicable(state):
                    out.append(act)
        return out


def _maker_code(lifted: LiftedTask, schema: Schema, static: frozenset[int]) -> CodeType:
    """The compiled ``make(a)`` of ``schema`` for :class:`LazyTask` (cached on
    the lifted task: every validation builds a :class:`LazyTask`)."""
    cache = lifted.generated
    code = cache.get(("lazy-make", schema.id))
    if code is not None:
        return code  # type: ignore[no-any-return]
    lines = ["def make(a):"]
    body, parts = action_source(schema, static, lazy=True, intern="ids.setdefault(k, len(atoms)); append(k)")
    lines += body
    if schema.axiom is not None:
        lines.append(f"    return GroundAxiom({parts['add'][0]}, {tuple_source(parts['pre'])}, "
                     f"{tuple_source(parts['neg'])}, None)")
    else:
        lines.append(
            f"    return Action(new_id(), schema, a, {tuple_source(parts['pre'])}, "
            f"{tuple_source(parts['neg'])}, {tuple_source(parts['add'])}, {tuple_source(parts['delete'])}, "
            f"{'cost_of(a)' if lifted.uses_action_costs else '1'})")
    code = cache[("lazy-make", schema.id)] = compile("\n".join(lines) + "\n", f"<make {schema.name}>", "exec")
    return code


class _Index:
    """The atoms of one state grouped by predicate, for joins."""

    def __init__(self, task: LazyTask, state: State | set[int]) -> None:
        self.task = task
        atoms = task.atoms
        by_pred: dict[int, list[AtomKey]] = {}
        for i in state:
            key = atoms[i]
            bucket = by_pred.get(key[0])
            if bucket is None:
                by_pred[key[0]] = [key]
            else:
                bucket.append(key)
        self.by_pred = by_pred

    def bindings(self, schema: Schema) -> Iterator[tuple[int, ...]]:
        """Every ``args`` of ``schema`` (typed) whose positive precondition
        atoms all hold: the rest of the precondition is the caller's check."""
        by_pred = self.by_pred
        templates = sorted(schema.pre, key=lambda t: len(by_pred.get(t[0], ())))
        if any(not by_pred.get(t[0]) for t in templates):
            return
        sets = schema.domain_sets
        values: list[int | None] = [None] * schema.arity

        def join(k: int) -> Iterator[tuple[int, ...]]:
            if k == len(templates):
                free = [i for i, v in enumerate(values) if v is None]
                if not free:
                    yield tuple(values)  # type: ignore[arg-type]
                    return
                for combo in itertools.product(*(schema.domains[i] for i in free)):
                    full = list(values)
                    for i, o in zip(free, combo, strict=True):
                        full[i] = o
                    yield tuple(full)  # type: ignore[arg-type]
                return
            pred, targs = templates[k]
            for key in by_pred.get(pred, ()):
                bound: list[int] = []
                for pos, a in enumerate(targs):
                    o = key[pos + 1]
                    if a < 0:
                        if ~a != o:
                            break
                    elif values[a] is None:
                        allowed = sets[a]
                        if allowed is not None and o not in allowed:
                            break
                        values[a] = o
                        bound.append(a)
                    elif values[a] != o:
                        break
                else:
                    yield from join(k + 1)
                for a in bound:
                    values[a] = None

        yield from join(0)


class LiftedAxioms(Derive):
    """Derived atoms of a :class:`LazyTask` state: per stratum, the rules'
    positive literals joined with the state, each binding's ground axiom
    checked, to the stratum's fixpoint."""

    def __init__(self, task: LazyTask) -> None:
        self.task = task
        self.predicates = task.lifted.derived_predicates

    @property
    def derived(self) -> frozenset[int]:  # type: ignore[override]
        return self.task.derived_atoms

    def update(self, state: set[int]) -> None:
        task = self.task
        atoms, preds = task.atoms, self.predicates
        state.difference_update([i for i in state if atoms[i][0] in preds])
        for stratum in task.lifted.axiom_strata:
            while True:
                index = _Index(task, state)
                new: list[int] = []
                for schema in stratum:
                    for args in index.bindings(schema):
                        ax = task.axiom(schema, args)
                        if ax is not None and ax.head not in state and axiom_fires(ax, state):
                            new.append(ax.head)
                if not new:
                    break
                state.update(new)
