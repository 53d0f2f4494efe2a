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
from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import NamedTuple

from .lifted import AtomKey, LiftedTask, Schema
from .usercache import dataclass

__all__ = [
    "FALSE",
    "TRUE",
    "AdlAction",
    "AxiomEvaluator",
    "ConditionalEffect",
    "Formula",
    "GeneralParts",
    "GroundAction",
    "GroundAxiom",
    "GroundingStats",
    "RelaxedOperator",
    "State",
    "Task",
    "holds",
]

State = frozenset[int]
"""A state: the set of ids of the atoms that hold (static atoms and derived
atoms included)."""

Formula = int | tuple  # type: ignore[type-arg]
"""A ground condition: atom id ``i`` (holds when ``i`` is in the state),
``~i`` (holds when it is not), ``(0, parts)`` a conjunction, ``(1, parts)``
a disjunction. Quantifiers were expanded and static atoms folded when
grounding; :data:`TRUE` and :data:`FALSE` are the empty conjunction and
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
    for p in f[1]:  # type: ignore[index]
        _negative_atoms(p, out)


class GroundAction:
    """A ground action. ``pre``/``neg`` hold the ids of the positive and
    negative *fluent* preconditions (static ones were checked when grounding,
    so they are always true in reachable states); ``add``/``delete`` the
    effect ids. Identity is the action's ``id`` within its task."""

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

    def apply(self, state: State) -> State:
        """The successor state: deletes first, then adds (an atom both
        deleted and added ends true)."""
        if self.delete:
            state = state.difference(self.delete)
        if self.add:
            state = state.union(self.add)
        return state

    def __repr__(self) -> str:
        return f"<GroundAction {self.id} {self.schema.name}{self.args}>"


class ConditionalEffect(NamedTuple):
    """A ground conditional effect: when ``cond`` (``None``: always) holds in
    the state before the step, ``delete`` then ``add`` apply. ``rule`` and
    ``args`` name the effect rule of the schema and its quantified objects."""

    cond: Formula | None
    add: tuple[int, ...]
    delete: tuple[int, ...]
    rule: int
    args: tuple[int, ...]


class GroundAxiom(NamedTuple):
    """``head`` holds when ``pre`` hold, ``neg`` do not and ``cond`` holds."""

    head: int
    pre: tuple[int, ...]
    neg: tuple[int, ...]
    cond: Formula | None


class AxiomEvaluator:
    """Computes the derived atoms of a state: the strata in order, each to
    its fixpoint (negated derived atoms come from earlier strata, so within a
    stratum the rules are monotone)."""

    __slots__ = ("derived", "strata")

    def __init__(self, strata: tuple[tuple[GroundAxiom, ...], ...], derived: frozenset[int]) -> None:
        self.strata = strata
        self.derived = derived

    def __call__(self, state: State | set[int]) -> State:
        cur = set(state)
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
                    for a in ax.pre:
                        if a not in cur:
                            break
                    else:
                        if not any(n in cur for n in ax.neg) and (ax.cond is None or holds(ax.cond, cur)):
                            cur.add(ax.head)
                            changed = True
                            continue
                    rest.append(ax)
                pending = rest
        return frozenset(cur)


class GeneralParts(NamedTuple):
    """What a task beyond STRIPS adds to its ground actions: the axioms by
    stratum, the goal's compound part, and the ids of derived atoms."""

    strata: tuple[tuple[GroundAxiom, ...], ...]
    goal: Formula | None
    derived: frozenset[int]


class AdlAction(GroundAction):
    """A ground action of a task beyond STRIPS: ``cond`` is the precondition
    beyond ``pre``/``neg`` (``None``: nothing more), ``effects`` the
    conditional effects, ``derive`` the task's axioms (``None``: none).

    :meth:`apply` evaluates every effect condition in the state before the
    step, deletes before adds (for conditional effects too), then recomputes
    the derived atoms."""

    __slots__ = ("cond", "derive", "effects")

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.cond: Formula | None = None
        self.effects: tuple[ConditionalEffect, ...] = ()
        self.derive: AxiomEvaluator | None = None

    def applicable(self, state: State | set[int]) -> bool:
        return super().applicable(state) and (self.cond is None or holds(self.cond, state))

    def fired(self, state: State | set[int]) -> list[ConditionalEffect]:
        """The conditional effects whose condition holds in ``state``."""
        return [e for e in self.effects if e.cond is None or holds(e.cond, state)]

    def apply(self, state: State) -> State:
        fired = self.fired(state) if self.effects else ()
        if fired:
            delete = set(self.delete)
            add = set(self.add)
            for e in fired:
                delete.update(e.delete)
                add.update(e.add)
            new = state.difference(delete).union(add)
        else:
            new = super().apply(state)
        return new if self.derive is None else self.derive(new)


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


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key for names in natural order: ``b2`` before ``b10``."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in _DIGITS.split(text))


class Task:
    """A grounded task, built by :func:`pypddlengine.grounding.ground`.

    ``atoms[i]`` is the key of atom id ``i``; ``reachable[i]`` tells whether
    the relaxed reachability analysis reached it (only reachable atoms can
    ever hold). ``actions`` are complete for every state reachable from
    ``init``: nothing is pruned for goal relevance."""

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
        self.init: State = frozenset(atom_ids[k] for k in lifted.init)
        self.general = general
        """ADL and axiom parts (``None`` for a STRIPS task: the fast path)."""
        self.derived_atoms: frozenset[int] = general.derived if general is not None else frozenset()
        self.goal_cond: Formula | None = general.goal if general is not None else None
        self.axioms: AxiomEvaluator | None = None
        if general is not None and any(general.strata):
            self.axioms = AxiomEvaluator(general.strata, general.derived)
            for action in self.actions:
                action.derive = self.axioms  # type: ignore[attr-defined]
            self.init = self.axioms(self.init)
        fluent = lifted.fluent_predicates
        self.static_atoms: frozenset[int] = frozenset(i for i in self.init if atoms[i][0] not in fluent)
        self.goal_pos: tuple[int, ...] = tuple(atom_ids.get(k, -1) for k in lifted.goal_pos)
        self.goal_neg: tuple[int, ...] = tuple(atom_ids[k] for k in lifted.goal_neg if k in atom_ids)
        self.unreachable_goals: tuple[AtomKey, ...] = tuple(
            k for k in lifted.goal_pos if k not in atom_ids or not self.reachable[atom_ids[k]]
        )
        obj_rank = sorted(range(len(lifted.objects)), key=lambda o: natural_key(lifted.object_display[o]))
        self._object_rank = [0] * len(obj_rank)
        for rank, oid in enumerate(obj_rank):
            self._object_rank[oid] = rank
        schema_rank = sorted(range(len(lifted.schemas)), key=lambda s: lifted.schemas[s].name)
        self._schema_rank = [0] * len(schema_rank)
        for rank, sid in enumerate(schema_rank):
            self._schema_rank[sid] = rank

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
        return out

    def applicable_scan(self, state: State) -> list[GroundAction]:
        """The same set as :meth:`applicable`, by checking every action (oracle)."""
        return [a for a in self.actions if a.applicable(state)]

    def sort_actions(self, actions: Iterable[GroundAction]) -> list[GroundAction]:
        """Order by schema name, then argument names in natural order
        (``b2`` before ``b10``): deterministic and readable."""
        srank, orank = self._schema_rank, self._object_rank
        return sorted(actions, key=lambda a: (srank[a.schema.id], [orank[o] for o in a.args]))

    # ------------------------------------------------------------------ goals and rendering

    def is_goal(self, state: State) -> bool:
        if self.lifted.goal_static_false:
            return False
        for a in self.goal_pos:
            if a not in state:
                return False
        if self.goal_cond is not None and not holds(self.goal_cond, state):
            return False
        return all(a not in state for a in self.goal_neg)

    def keys(self, state: Iterable[int]) -> set[AtomKey]:
        atoms = self.atoms
        return {atoms[i] for i in state}

    def render_atom(self, atom_id: int) -> str:
        if atom_id == len(self.atoms):  # the virtual goal atom (see goal_atoms)
            return self.lifted.render_condition(self.lifted.goal_residual, {})  # type: ignore[arg-type]
        return self.lifted.render_key(self.atoms[atom_id])

    def render_action(self, action: GroundAction) -> str:
        return self.lifted.render_action(action.schema, action.args)

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

    def relaxed_operators(self) -> tuple[RelaxedOperator, ...]:
        """The task's delete relaxation as :class:`RelaxedOperator` s (built on
        first use, then cached), in action order. Operators that add nothing
        are left out: they cannot help in the relaxation.

        Beyond STRIPS: a compound precondition or effect condition is put in
        disjunctive normal form, one operator per disjunct; a negative
        literal needs an "is false" atom of its own (see
        :meth:`relaxed_facts`), added by the effects that delete the atom;
        a conditional effect gives operators of its own (the action's cost,
        its condition added to the preconditions); an axiom gives operators
        of cost 0 adding its head; a goal that is not a conjunction of
        positive literals gives cost-0 operators adding the virtual goal atom
        of :attr:`goal_atoms`. Two weakenings keep it sound but less
        informed: a negated *derived* atom is dropped (h_FF is not defined
        for negation through axioms; the relaxation takes it as true), and a
        condition whose normal form would exceed 32 disjuncts is dropped
        altogether. So a dead end found is always a real dead end."""
        if self._relaxed is None:
            if self.general is None:
                self._relaxed = self._strips_operators()
            else:
                self._relaxed = tuple(self._general_operators())
        return self._relaxed

    def _strips_operators(self) -> tuple[RelaxedOperator, ...]:
        # C-level iteration: about a quarter faster than a generator of RelaxedOperator(...) calls
        acts = [a for a in self.actions if a.add]
        pres = map(tuple, map(dict.fromkeys, map(attrgetter("pre"), acts)))
        costs = map(float, map(attrgetter("cost"), acts))
        return tuple(map(RelaxedOperator._make, zip(pres, map(attrgetter("add"), acts), costs, acts, itertools.repeat(-1))))

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

    def _general_operators(self) -> list[RelaxedOperator]:
        general = self.general
        assert general is not None
        ops: list[RelaxedOperator] = []
        # "atom i is false" as an atom of its own (id after the virtual goal atom), for every fluent
        # atom a condition needs false, achieved by the effects that delete it; a negated derived atom
        # has no achievers in this sense and its literal is dropped (the relaxation is weaker there)
        needed: set[int] = set()
        for a in self.actions:
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

        for a in self.actions:
            cond: Formula | None = a.cond  # type: ignore[attr-defined]
            emit(a.pre, a.neg, cond, a.add, a.delete, float(a.cost), a, -1)
            for i, e in enumerate(a.effects):  # type: ignore[attr-defined]
                both = e.cond if cond is None else (cond if e.cond is None else (0, (cond, e.cond)))
                emit(a.pre, a.neg, both, e.add, e.delete, float(a.cost), a, i)
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
