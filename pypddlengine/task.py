"""The grounded task: interned atoms, ground actions, immutable states.

A state is a ``frozenset`` of atom ids (ints): immutable, hashable, and
fast for the two operations a simulator needs, membership and
``(state - delete) | add``. Atom ids are assigned in a deterministic order
(the order in which grounding reaches atoms), so they are the same under any
``PYTHONHASHSEED``.

Applicable actions are found with a *watched-atom index* instead of a scan:
each ground action is filed under one of its positive fluent preconditions,
the one expected to be true least often (the grounder estimates that per
predicate and builds the index as it creates the actions). A query
intersects the state with the watched atoms in C and checks only the actions
filed under atoms that hold. On Blocksworld with 200 blocks that is a few
hundred checks instead of 80,400.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import Any, NamedTuple, cast

from .exact import to_float
from .lifted import AtomKey, Keys, LiftedTask, Schema
from .step import (
    NUMERIC,
    AxiomEvaluator,
    Formula,
    GroundAction,
    GroundAxiom,
    State,
    holds,
    initial_state,
)
from .usercache import dataclass

__all__ = ["GeneralParts", "GroundingStats", "Listing", "RelaxedOperator", "StepSpace", "Task", "natural_key"]
# GroundAction, State, Formula, holds, ... live in pypddlengine.step (imported here for older imports)

def _positive_dnf(f: Formula | None, negated: dict[int, int], cap: int = 32) -> list[tuple[int, ...]]:
    """The disjuncts of ``f`` in DNF over atoms: a negative literal ``~i``
    becomes the atom ``negated[i]`` (the relaxation's "i is false"), or is
    dropped when ``i`` has none; ``[()]`` for ``None``, or when the normal
    form would have more than ``cap`` disjuncts (the condition is dropped)."""
    def dnf(g: Formula) -> list[tuple[int, ...]] | None:
        if g.__class__ is int:
            if g >= 0:  # type: ignore[operator]
                return [(g,)]  # type: ignore[list-item]
            n = negated.get(~g)  # type: ignore[operator]
            return [(n,)] if n is not None else [()]
        kind, parts = g  # type: ignore[misc]
        if kind == NUMERIC:  # numeric conditions are left out of this relaxation (optimistic)
            return [()]
        if kind == 1:
            out: list[tuple[int, ...]] = []
            for p in parts:
                sub = dnf(p)
                if sub is None:
                    return None
                out.extend(sub)
            return out if len(out) <= cap else None
        acc: list[tuple[int, ...]] = [()]
        for p in parts:
            sub = dnf(p)
            if sub is None or len(acc) * len(sub) > cap:
                return None
            acc = [(*x, *y) for x in acc for y in sub]
        return acc

    if f is None:
        return [()]
    result = dnf(f)
    if result is None:
        return [()]
    return list(dict.fromkeys(result))


def _negative_atoms(f: Formula | None, out: set[int]) -> None:
    if f is None:
        return
    if f.__class__ is int:
        if f < 0:  # type: ignore[operator]
            out.add(~f)  # type: ignore[operator]
        return
    if f[0] == NUMERIC:  # type: ignore[index]
        return
    for p in f[1]:  # type: ignore[index]
        _negative_atoms(p, out)


class GeneralParts(NamedTuple):
    """What a task beyond STRIPS adds to its ground actions: the axioms by
    stratum, the goal's compound part, and the ids of derived atoms."""

    strata: tuple[tuple[GroundAxiom, ...], ...]
    goal: Formula | None
    derived: frozenset[int]


@dataclass(frozen=True, slots=True)
class GroundingStats:
    """Sizes and timings of one grounding (for ``pypddl ground`` and benchmarks)."""

    objects: int
    atoms: int
    reachable_atoms: int
    static_atoms: int
    actions: int
    seconds: float


class RelaxedOperator(NamedTuple):
    """One operator of the delete relaxation, the only view of a task that
    heuristics and relaxed dead-end analysis may use.

    ``pre``: ids of the positive fluent atoms that must hold (no duplicates;
    negative conditions are dropped by the relaxation); ``add``: the atoms it
    makes true; ``cost``: its cost (0 for an axiom); ``action``: the ground
    action it comes from, or ``None`` for an axiom; ``effect``: which part of
    the action it relaxes, ``-1`` for the unconditional effects, ``i >= 0``
    for the action's conditional effect number ``i`` (whose condition's
    positive atoms are then part of ``pre``). A STRIPS action gives exactly
    one operator with ``effect == -1``."""

    pre: tuple[int, ...]
    add: tuple[int, ...]
    cost: float
    action: GroundAction | None
    effect: int


_CHECK_ACTIONS = 65_536
"""Actions between two calls of the ``check`` of :meth:`Task.relaxed_operators`."""


def _no_check() -> None:
    pass


def _strips_relaxed(acts: list[GroundAction]) -> tuple[RelaxedOperator, ...]:
    # C-level iteration: about a quarter faster than a generator of RelaxedOperator(...) calls
    pres = map(tuple, map(dict.fromkeys, map(attrgetter("pre"), acts)))
    costs = map(float, map(attrgetter("cost"), acts))
    return tuple(map(RelaxedOperator._make, zip(pres, map(attrgetter("add"), acts), costs, acts, itertools.repeat(-1))))


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key for names in natural order: ``b2`` before ``b10``."""
    return tuple([(0, int(p), "") if p.isdigit() else (1, 0, p) for p in _DIGITS.split(text)])  # a list: faster


SORT_KEYS = 500_000
"""Sort keys a backend keeps at most (then it starts afresh)."""


class Listing:
    """The applicable actions of one state in the canonical order of
    :meth:`StepSpace.sort_actions`, listed as far as asked: :meth:`first`
    ``(k)`` lists the first ``k``. This one lists everything at once (the
    grounded backend); the lifted backend's lists lazily."""

    def __init__(self, state: State, found: list[GroundAction], schema: Schema | None = None) -> None:
        self.state = state
        self.schema = schema
        """Only this schema's actions (``None``: all)."""
        self.found = found
        self.complete = True
        """Whether :attr:`found` holds every applicable action."""

    def first(self, k: int) -> list[GroundAction]:
        return self.found[:k]


class StepSpace:
    """What the session and the validator need from a backend: atom ids and
    their keys, the initial state, ground actions by reference, the goal
    test and rendering. Two backends: the grounded :class:`Task` (every
    reachable action built up front, applicable actions from an index) and
    the lifted :class:`pypddlengine.lazy.LazyTask` (actions instantiated on
    demand, applicable actions by joins). Both build their actions with
    :mod:`pypddlengine.step`, so a step means the same in both."""

    backend = "grounded"
    """``"grounded"`` or ``"lifted"``."""
    lifted: LiftedTask
    atoms: Sequence[AtomKey]
    """``atoms[i]`` is the key of atom id ``i``."""
    atom_ids: dict[AtomKey, int]
    init: State
    static_atoms: frozenset[int]
    """The atoms of static predicates true in every state (a subset of :attr:`init`)."""
    derived_atoms: frozenset[int]
    goal_pos: tuple[int, ...]
    goal_neg: tuple[int, ...]
    goal_cond: Formula | None
    general: object | None
    """``None`` for a STRIPS task (the fast paths), else what it adds (backend-specific)."""
    _object_rank: list[int] | None = None
    _sort_keys: dict[GroundAction, int] | None = None
    """Each listed action's sort key (see :meth:`sort_actions`), kept for the next listing."""
    _schema_rank: list[int]
    _by_ref: dict[tuple[Any, ...], GroundAction | None] | None = None

    def remembered_refs(self) -> dict[tuple[Any, ...], GroundAction | None]:
        """The ground action of each step a plan validated on this backend has
        named so far (``None``: it can never apply), keyed by the folded
        ``(name, args)`` of an action reference or by the ``(name, args,
        text)`` words of :func:`pypddlengine.syntax.plan_words`: validating
        many plans of one task (``pypddl validate`` with many plans) resolves
        each step once. Filled by :func:`pypddlengine.validate.validate_plan`."""
        memo = self._by_ref
        if memo is None:
            memo = self._by_ref = {}
        return memo

    def _rank(self) -> None:
        """The sort order of objects and schemas (for :meth:`sort_actions`)."""
        lifted = self.lifted
        obj_rank = sorted(range(len(lifted.objects)), key=lambda o: natural_key(lifted.object_display[o]))
        self._object_rank = [0] * len(obj_rank)
        for rank, oid in enumerate(obj_rank):
            self._object_rank[oid] = rank
        schema_rank = sorted(range(len(lifted.schemas)), key=lambda s: lifted.schemas[s].name)
        self._schema_rank = [0] * len(schema_rank)
        for rank, sid in enumerate(schema_rank):
            self._schema_rank[sid] = rank

    def applicable(self, state: State) -> list[GroundAction]:
        """The actions applicable in ``state``, in no particular order (see
        :meth:`sort_actions`)."""
        raise NotImplementedError

    def executable_only(self, actions: list[GroundAction], state: State) -> list[GroundAction]:
        """Of ``actions``, applicable in ``state``, those whose step succeeds
        (:meth:`GroundAction.executable`): listing and execution agree. Only
        tasks with numeric effects or costs read from functions can differ."""
        lifted = self.lifted
        if not (lifted.numeric_task or lifted.uses_action_costs):
            return actions
        return [a for a in actions if a.executable(state)]

    def lookup(self, schema: Schema, args: tuple[int, ...]) -> GroundAction | None:
        """The ground action for a resolved reference, or ``None`` when it is
        applicable in no state reachable from the initial state."""
        raise NotImplementedError

    def advanced(self, before: State, after: State, added: Iterable[int], deleted: Iterable[int]) -> None:
        """Told by a session that a step went from ``before`` to ``after``,
        adding and deleting exactly these atoms (a backend that follows its
        states, like the lifted one's joins, moves without comparing them)."""

    def listing(self, state: State, schema: Schema | None = None) -> Listing:
        """The applicable actions of ``state`` (of ``schema`` only, when given)
        in canonical order, to be listed as far as asked."""
        found = self.sort_actions(self.applicable(state))
        return Listing(state, found if schema is None else [a for a in found if a.schema is schema], schema)

    def sort_actions(self, actions: Iterable[GroundAction]) -> list[GroundAction]:
        """Order by schema name, then argument names in natural order
        (``b2`` before ``b10``): deterministic and readable."""
        if self._object_rank is None:
            self._rank()
        keys = self._sort_keys
        if keys is None or len(keys) > SORT_KEYS:
            keys = self._sort_keys = {}
        actions = actions if isinstance(actions, list) else list(actions)
        missing = [a for a in actions if a not in keys]
        if missing:  # one integer per action (faster to compare than a tuple): digits in base len(objects)
            srank, orank = self._schema_rank, self._object_rank
            assert orank is not None
            base = len(orank) + 1
            top = max((len(s.params) for s in self.lifted.schemas), default=0)
            for a in missing:
                key = srank[a.schema.id]
                for o in a.args:
                    key = key * base + orank[o] + 1
                keys[a] = key * base ** (top - len(a.args))
        return sorted(actions, key=keys.__getitem__)

    def is_goal(self, state: State | set[int]) -> bool:
        if self.lifted.goal_static_false:
            return False
        for a in self.goal_pos:
            if a not in state:
                return False
        if self.goal_cond is not None and not holds(self.goal_cond, state):
            return False
        return all(a not in state for a in self.goal_neg)

    def keys(self, state: Iterable[int]) -> set[AtomKey]:
        """The atom keys of a state (with its values: a :class:`~pypddlengine.lifted.Keys`)."""
        atoms = self.atoms
        values = getattr(state, "values", None)
        if values is not None:
            return Keys((atoms[i] for i in state), values)
        return {atoms[i] for i in state}

    def render_atom(self, atom_id: int) -> str:
        return self.lifted.render_key(self.atoms[atom_id])

    def render_action(self, action: GroundAction) -> str:
        return self.lifted.render_action(action.schema, action.args)


class Task(StepSpace):
    """A grounded task, built by :func:`pypddlengine.grounding.ground`.

    ``atoms[i]`` is the key of atom id ``i``; ``reachable[i]`` tells whether
    the relaxed reachability analysis reached it (only reachable atoms can
    ever hold). ``actions`` are complete for every state reachable from
    ``init``: nothing is pruned for goal relevance."""

    general: GeneralParts | None
    """``None`` for a STRIPS task, else its axioms, compound goal and derived atoms."""

    def __init__(
        self,
        lifted: LiftedTask,
        atoms: list[AtomKey],
        atom_ids: dict[AtomKey, int],
        reachable: Sequence[bool],
        actions: list[GroundAction],
        stats: GroundingStats,
        *,
        by_args: list[dict[tuple[int, ...], GroundAction]],
        watch: dict[int, list[GroundAction]],
        always: list[GroundAction],
        general: GeneralParts | None = None,
    ) -> None:
        self.lifted = lifted
        self.atoms: tuple[AtomKey, ...] = tuple(atoms)
        self.atom_ids = atom_ids
        self.reachable = tuple(reachable)
        self.actions: tuple[GroundAction, ...] = tuple(actions)
        self.stats = stats
        self._by_args = by_args
        self._watch = watch
        self._watched: frozenset[int] = frozenset(watch)
        self.unconditioned: tuple[GroundAction, ...] = tuple(always)
        """Actions without positive fluent preconditions (checked on every query)."""
        self._pre_index: dict[int, list[GroundAction]] | None = None
        self._relaxed: tuple[RelaxedOperator, ...] | None = None
        self._relaxed_index: tuple[dict[int, list[int]], list[int]] | None = None
        self._negated: dict[int, int] = {}
        self._add_index: dict[int, tuple[GroundAction, ...]] | None = None
        self.init = initial_state((atom_ids[k] for k in lifted.init),
                                  lifted.initial_values if lifted.numeric_task else None)
        self.general = general
        """ADL and axiom parts (``None`` for a STRIPS task: the fast path)."""
        self.derived_atoms = general.derived if general is not None else frozenset()
        self.goal_cond = general.goal if general is not None else None
        self.axioms: AxiomEvaluator | None = None
        if general is not None and any(general.strata):
            self.axioms = AxiomEvaluator(general.strata, general.derived)
            for action in self.actions:
                action.derive = self.axioms  # type: ignore[attr-defined]
            self.init = self.axioms(self.init)
        fluent = lifted.fluent_predicates
        self.static_atoms = frozenset(i for i in self.init if atoms[i][0] not in fluent)
        self.goal_pos = tuple(atom_ids.get(k, -1) for k in lifted.goal_pos)
        self.goal_neg = tuple(atom_ids[k] for k in lifted.goal_neg if k in atom_ids)
        self.unreachable_goals: tuple[AtomKey, ...] = tuple(
            k for k in lifted.goal_pos if k not in atom_ids or not self.reachable[atom_ids[k]]
        )
        self._rank()

    # ------------------------------------------------------------------ successor index

    def applicable(self, state: State) -> list[GroundAction]:
        """The actions applicable in ``state``, in no particular order (see
        :meth:`sort_actions`)."""
        out = [a for a in self.unconditioned if a.applicable(state)]
        watch = self._watch
        for atom in self._watched.intersection(state):
            for action in watch[atom]:
                for a in action._rest:
                    if a not in state:
                        break
                else:
                    for a in action.neg:
                        if a in state:
                            break
                    else:
                        out.append(action)
        if self.general is not None:
            out = [a for a in out if a.cond is None or holds(a.cond, state)]  # type: ignore[attr-defined]
        return self.executable_only(out, state)

    def applicable_scan(self, state: State) -> list[GroundAction]:
        """The same set as :meth:`applicable`, by checking every action (oracle)."""
        return [a for a in self.actions if a.applicable(state)]

    # ------------------------------------------------------------------ rendering

    def render_atom(self, atom_id: int) -> str:
        if atom_id == len(self.atoms):  # the virtual goal atom (see goal_atoms)
            return self.lifted.render_condition(self.lifted.goal_residual, {})  # type: ignore[arg-type]
        return self.lifted.render_key(self.atoms[atom_id])

    def precondition_index(self) -> dict[int, list[GroundAction]]:
        """Atom id -> the actions with that atom as a fluent precondition
        (built on first use; heuristics need it, plain simulation does not)."""
        if self._pre_index is None:
            index: dict[int, list[GroundAction]] = {}
            for action in self.actions:
                for a in set(action.pre):
                    index.setdefault(a, []).append(action)
            self._pre_index = index
        return self._pre_index

    def relaxed_operators(self, check: Callable[[], None] | None = None) -> tuple[RelaxedOperator, ...]:
        """The task's delete relaxation as :class:`RelaxedOperator` s (built on
        first use, then cached), in action order. Operators that add nothing
        are left out: they cannot help in the relaxation.

        Beyond STRIPS: a compound precondition or effect condition is put in
        disjunctive normal form, one operator per disjunct; a negative
        literal needs an "is false" atom of its own (see
        :meth:`relaxed_facts`), added by the effects that delete the atom;
        a conditional effect gives operators of its own (the action's cost
        plus the effect's, its condition added to the preconditions); an axiom gives operators
        of cost 0 adding its head; a goal that is not a conjunction of
        positive literals gives cost-0 operators adding the virtual goal atom
        of :attr:`goal_atoms`. Two weakenings keep it sound but less
        informed: a negated *derived* atom is dropped (h_FF is not defined
        for negation through axioms; the relaxation takes it as true), and a
        condition whose normal form would exceed 32 disjuncts is dropped
        altogether. So a dead end found is always a real dead end.

        ``check``, when given, is called every few thousand actions while the
        operators are built (not once they are cached); it may raise to stop
        (the MCP server's time limit and cancellation at session start)."""
        if self._relaxed is None:
            if self.general is None:
                self._relaxed = self._strips_operators(check)
            else:
                self._relaxed = tuple(self._general_operators(check))
        return self._relaxed

    def _strips_operators(self, check: Callable[[], None] | None = None) -> tuple[RelaxedOperator, ...]:
        acts = [a for a in self.actions if a.add]
        if check is None:
            return _strips_relaxed(acts)
        out: list[RelaxedOperator] = []
        for start in range(0, len(acts), _CHECK_ACTIONS):
            check()
            out.extend(_strips_relaxed(acts[start:start + _CHECK_ACTIONS]))
        return tuple(out)

    def relaxed_index(self) -> tuple[dict[int, list[int]], list[int]]:
        """Atom id -> positions in :meth:`relaxed_operators` of the operators
        with that precondition, and the positions of those without any."""
        if self._relaxed_index is None:
            index: dict[int, list[int]] = {}
            free: list[int] = []
            for i, op in enumerate(self.relaxed_operators()):
                for a in op.pre:
                    index.setdefault(a, []).append(i)
                if not op.pre:
                    free.append(i)
            self._relaxed_index = (index, free)
        return self._relaxed_index

    def _general_operators(self, check: Callable[[], None] | None = None) -> list[RelaxedOperator]:
        general = self.general
        assert general is not None
        ops: list[RelaxedOperator] = []
        check = check or _no_check
        # "atom i is false" as an atom of its own (id after the virtual goal atom), for every fluent
        # atom a condition needs false, achieved by the effects that delete it; a negated derived atom
        # has no achievers in this sense and its literal is dropped (the relaxation is weaker there)
        needed: set[int] = set()
        for n, a in enumerate(self.actions):
            if n % _CHECK_ACTIONS == 0:
                check()
            needed.update(a.neg)
            _negative_atoms(a.cond, needed)  # type: ignore[attr-defined]
            for e in a.effects:  # type: ignore[attr-defined]
                _negative_atoms(e.cond, needed)
        for stratum in general.strata:
            for ax in stratum:
                needed.update(ax.neg)
                _negative_atoms(ax.cond, needed)
        needed.update(self.goal_neg)
        _negative_atoms(self.goal_cond, needed)
        base = len(self.atoms) + 1
        negated = {i: base + k for k, i in enumerate(sorted(needed - general.derived))}
        self._negated = negated

        def emit(pre: Iterable[int], neg: Iterable[int], cond: Formula | None, add: Iterable[int],
                 delete: Iterable[int], cost: float, action: GroundAction | None, effect: int) -> None:
            adds = (*add, *[negated[d] for d in delete if d in negated])
            if not adds:
                return
            fixed = (*pre, *[negated[n] for n in neg if n in negated])
            for term in _positive_dnf(cond, negated):
                ops.append(RelaxedOperator(tuple(dict.fromkeys((*fixed, *term))), adds, cost, action, effect))

        for n, a in enumerate(self.actions):
            if n % 1024 == 0:  # an action may have many conditional effects
                check()
            cond: Formula | None = a.cond  # type: ignore[attr-defined]
            emit(a.pre, a.neg, cond, a.add, a.delete, to_float(a.cost), a, -1)
            for i, e in enumerate(a.effects):  # type: ignore[attr-defined]
                both = e.cond if cond is None else (cond if e.cond is None else (0, (cond, e.cond)))
                emit(a.pre, a.neg, both, e.add, e.delete, to_float(a.cost + e.cost), a, i)
        for stratum in general.strata:
            for ax in stratum:
                emit(ax.pre, ax.neg, ax.cond, (ax.head,), (), 0.0, None, -1)
        goal_pos = [g for g in self.goal_pos if g >= 0]
        if self.goal_cond is not None or (self.goal_neg and negated):
            emit(goal_pos, self.goal_neg, self.goal_cond, (len(self.atoms),), (), 0.0, None, -1)
        return ops

    def relaxed_facts(self, state: State) -> Iterable[int]:
        """The atoms true in ``state`` for :meth:`relaxed_operators`: its
        atoms, and for a task beyond STRIPS the "is false" atoms of the
        atoms it lacks."""
        self.relaxed_operators()
        if not self._negated:
            return state
        return itertools.chain(state, (n for i, n in self._negated.items() if i not in state))

    @property
    def goal_atoms(self) -> tuple[int, ...]:
        """The positive goal atom ids a relaxed analysis must reach (``-1`` for
        a goal atom the grounding never reached: unreachable from the start).
        For a goal that is not a conjunction of literals, one virtual atom
        (id ``len(atoms)``, rendered as the goal) stands for it, added by the
        goal's operators in :meth:`relaxed_operators`."""
        if self.general is not None and (self.goal_cond is not None or self.goal_neg):
            return (len(self.atoms),) if all(g >= 0 for g in self.goal_pos) else self.goal_pos
        return self.goal_pos

    def achievers(self, atom: int) -> tuple[GroundAction, ...]:
        """The actions that add ``atom`` (index built on first use)."""
        if self._add_index is None:
            index: dict[int, list[GroundAction]] = {}
            for action in self.actions:
                adds = set(action.add)
                for effect in getattr(action, "effects", ()):  # conditional adds count too
                    adds.update(effect.add)
                for a in adds:
                    index.setdefault(a, []).append(action)
            self._add_index = {k: tuple(v) for k, v in index.items()}
        return self._add_index.get(atom, ())

    def lookup(self, schema: Schema, args: tuple[int, ...]) -> GroundAction | None:
        """The ground action for a resolved reference, or ``None`` when the
        grounding proved it never applicable from the initial state."""
        return self._by_args[schema.id].get(args)
