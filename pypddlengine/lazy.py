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

import _thread  # not threading: its import costs the fast commands more than they spend
import itertools
import time
from types import CodeType
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, cast

from .errors import ErrorCode, GroundingLimitError
from .gcpause import paused_gc
from .lifted import AtomKey, LiftedTask, Schema, quantified_size
from .model import And, Atom, Condition, Exists, Forall, Not, Or
from .step import (
    FALSE,
    TRUE,
    Derive,
    Formula,
    GroundAction,
    GroundAxiom,
    State,
    action_class,
    action_cost,
    action_source,
    attach,
    axiom_fires,
    encode,
    freeze,
    general_parts,
    initial_state,
    thaw,
    tuple_source,
)
from .task import Listing, StepSpace
from .usercache import compiled_batch

if TYPE_CHECKING:
    from .joins import OrderedQuery

__all__ = ["LazyListing", "LazyTask"]

_MISSING = object()
EMIT_WORK = 15
"""Join steps one candidate action counts for (it is instantiated), beyond its loop step."""

PAGE_WORK = 4 * EMIT_WORK
"""Join steps one action of a requested page adds to the work limit of a lazy listing."""

CACHE_LIMIT = 200_000
"""Instantiated actions kept per schema; beyond it the schema's cache starts
again (actions in a session's history stay alive through the history)."""


class LazyTask(StepSpace):
    """A task whose atoms and actions are interned on first use (see the
    module docstring). Not thread-safe: one per session or validation."""

    backend = "lifted"

    def __init__(self, lifted: LiftedTask, *, max_work: int = 3_000_000) -> None:
        """``max_work``: join steps one query of applicable actions (or one
        computation of derived atoms) may take before it stops with
        ``GROUNDING_LIMIT`` (a state with too many actions to list)."""
        self.lifted = lifted
        self.max_work = max_work
        self.atoms: list[AtomKey] = sorted(lifted.init)
        self.atom_ids: dict[AtomKey, int] = dict(zip(self.atoms, range(len(self.atoms)), strict=True))
        self.static = frozenset(range(len(lifted.predicates))) - lifted.fluent_predicates
        self._ids = itertools.count()
        self._caches: list[dict[tuple[int, ...], GroundAction | None]] = [{} for _ in lifted.schemas]
        """Each schema's instantiated actions by arguments (``None``: refuted statically)."""
        self._cache_limit = CACHE_LIMIT
        self._axiom_cache: dict[tuple[int, tuple[int, ...]], GroundAxiom | None] = {}
        self.general: object | None = True if lifted.general else None
        self._joins: _Joins | None = None
        schemas = (*lifted.schemas, *lifted.axiom_schemas)
        self._makers = [self._maker(s, code) for s, code in zip(schemas, _maker_codes(lifted, self.static),
                                                                  strict=True)]
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

    def _maker(self, schema: Schema, code: CodeType) -> Any:
        ns: dict[str, Any] = {
            "ids": self.atom_ids, "atoms": self.atoms, "append": self.atoms.append, "init": self.lifted.init,
            "schema": schema,
            "Action": action_class(self.lifted), "GroundAxiom": GroundAxiom,
            "new_id": self._ids.__next__,
            "cost_of": lambda a, s=schema: action_cost(self.lifted, s, a),
        }
        exec(code, ns)
        return ns["make"]

    # ------------------------------------------------------------------ actions and axioms

    def lookup(self, schema: Schema, args: tuple[int, ...]) -> GroundAction | None:
        """The ground action ``schema(args)`` (``args`` type-checked), or
        ``None`` when an equality or a static literal refutes it."""
        cache = self._caches[schema.id]
        act = cache.get(args, _MISSING)
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
        if len(cache) >= self._cache_limit:
            cache.clear()  # the same dict: the joins' generated code reads it
        cache[args] = act
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

    def joins(self) -> _Joins:
        """The successor generator (built on first use: validation needs none;
        with the garbage collector paused, as the task itself was built)."""
        if self._joins is None:
            with paused_gc():
                self._joins = _Joins(self)
        return self._joins

    def applicable(self, state: State, schemas: Iterable[int] | None = None) -> list[GroundAction]:
        """The applicable actions of ``state`` (of the schemas with ids ``schemas`` only, when given)."""
        joins = self.joins()
        joins.move(state)
        joins.start("listing the applicable actions of this state")
        out: list[GroundAction] = []
        apps = joins.applicable
        for app in apps if schemas is None else (apps[sid] for sid in schemas):
            app(out, state)
        return self.executable_only(out, state)

    def advanced(self, before: State, after: State, added: Iterable[int], deleted: Iterable[int]) -> None:
        joins = self._joins
        if joins is not None and joins.source is before and self.axioms is None:  # derived atoms change too
            joins.shift(after, added, deleted)

    def listing(self, state: State, schema: Schema | None = None) -> Listing:
        """The applicable actions of ``state`` (of ``schema`` only, when given)
        in canonical order, found as far as asked (the first page of a state
        with millions of them costs a page)."""
        return LazyListing(self, state, schema)

    def ordered(self, state: State, schema: Schema | None = None) -> Iterator[GroundAction]:
        """The applicable actions of ``state`` (of ``schema`` only, when given)
        in canonical order, one at a time, from the joins' current relations:
        whoever resumes it makes them hold ``state`` first (as
        :class:`LazyListing` does)."""
        joins = self.joins()
        queries = joins.ordered()
        if self._object_rank is None:
            self._rank()
        rels = (joins.fluent, joins.static_rel)
        lookup, general = self.lookup, self.general is not None
        order = sorted(range(len(queries)), key=self._schema_rank.__getitem__) if schema is None else [schema.id]
        for sid in order:
            query = queries[sid]
            schema = query.schema
            # as in the full listing: an instance costs more than a join step, a general one its quantifiers too
            work = EMIT_WORK + (quantified_size(self.lifted, schema.residual) if schema.general else 0)
            for args in query.answers(rels, joins.left, joins.tick):
                joins.left[0] -= work
                act = lookup(schema, args)
                if act is not None and (not general or act.applicable(state)):
                    yield act


class LazyListing(Listing):
    """:class:`Listing` of a lifted state: the ordered joins resumed as far as asked."""

    def __init__(self, task: LazyTask, state: State, schema: Schema | None = None) -> None:
        super().__init__(state, [], schema)
        self.task = task
        self.complete = False
        self._more: Iterator[GroundAction] | None = None

    def first(self, k: int) -> list[GroundAction]:
        found = self.found
        if len(found) < k and not self.complete:
            joins = self.task.joins()
            joins.move(self.state)
            joins.start(f"listing the first {k:,} applicable actions of this state")
            joins.left[0] += PAGE_WORK * k  # a long page may take longer than the limit; dead ends may not
            if self._more is None:
                self._more = self.task.ordered(self.state, self.schema)
            try:
                found.extend(itertools.islice(self._more, k - len(found)))
            except BaseException:
                self._more, self.found = None, []  # the generator is finished: start again when asked again
                raise
            if len(found) < k:
                self.complete, self._more = True, None
        return found[:k]


def _maker_codes(lifted: LiftedTask, static: frozenset[int]) -> list[CodeType]:
    """The compiled ``make(a)`` of each action schema, then of each axiom
    rule, for :class:`LazyTask` (cached on the lifted task: every validation
    builds a :class:`LazyTask`; compiled through the per-user cache)."""
    cache = lifted.generated
    codes = cache.get("lazy-make")
    if codes is not None:
        return cast(list[CodeType], codes)
    sources = []
    for schema in (*lifted.schemas, *lifted.axiom_schemas):
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
        sources.append(("\n".join(lines) + "\n", f"<make {schema.name}>"))
    codes = cache["lazy-make"] = compiled_batch("make", sources)
    return codes


class _Joins:
    """The lifted successor generator of one :class:`LazyTask`: a generated
    conjunctive query per action schema and per axiom rule (see
    :mod:`pypddlengine.joins`), static atoms indexed once, and the fluent
    atoms of the state last asked about, moved from state to state by the
    atoms that change."""

    def __init__(self, task: LazyTask) -> None:
        from .joins import Relations, namespace  # here: validation, which lists no actions, needs no joins

        self.task = task
        lifted = task.lifted
        codes, used, reruns = _join_codes(lifted, task.static)
        npred = len(lifted.predicates)
        static_rel = Relations(npred, {p: tuple(sorted(v)) for (st, p), v in used.items() if st})
        static_rel.update(k for k in lifted.init if k[0] in task.static)
        self.fluent = Relations(npred, {p: tuple(sorted(v)) for (st, p), v in used.items() if not st})
        self.ids: set[int] = set()
        """The atom ids :attr:`fluent` holds (static ones included, though not indexed)."""
        self.source: State | None = None
        """The frozen state :attr:`ids` equals, when known."""
        self.reruns = reruns
        self.left = [task.max_work]
        self.budget = 0
        self.doing = ""
        base = {"SK": static_rel.keys, "SP": static_rel.by_pred, "SX": static_rel.by_pos,
                "FK": self.fluent.keys, "FP": self.fluent.by_pred, "FX": self.fluent.by_pos, "lookup": task.lookup,
                "left": self.left, "tick": self.tick}

        def function(code: CodeType, schema: Schema, name: str) -> Any:
            ns = {**base, **namespace(schema), "schema": schema, "M": _MISSING,
                  "C": task._caches[schema.id] if schema.id < len(task._caches) else None}
            exec(code, ns)
            return ns[name]

        self.static_rel = static_rel
        self._ordered: list[OrderedQuery] | None = None
        self.applicable = [function(codes[("app", s.id)], s, "app") for s in lifted.schemas]
        self.full = {s.id: function(codes[("full", s.id)], s, "full") for s in lifted.axiom_schemas}
        self.triggers: dict[int, list[tuple[Schema, Any]]] = {}
        for s in lifted.axiom_schemas:
            for i, (pred, _) in enumerate(s.pre):
                if ("trig", s.id, i) in codes:
                    self.triggers.setdefault(pred, []).append((s, function(codes[("trig", s.id, i)], s, "trig")))

    def ordered(self) -> list[OrderedQuery]:
        """One :class:`OrderedQuery` per action schema (built on first use,
        with the positions they look up indexed then)."""
        if self._ordered is None:
            from .joins import JoinStats, OrderedQuery

            task = self.task
            if task._object_rank is None:
                task._rank()
            rank = task._object_rank
            assert rank is not None
            stats = JoinStats.of(task.lifted)
            queries = [OrderedQuery(s, task.static, stats, rank) for s in task.lifted.schemas]
            for q in queries:
                for (st, pred), positions in q.needs.items():
                    for pos in positions:
                        (self.static_rel if st else self.fluent).index(pred, pos)
            self._ordered = queries
        return self._ordered

    def start(self, doing: str) -> None:
        """Give the next joins the task's work limit, a chunk at a time (the
        time limit of the calling thread, :func:`time_limit`, is checked
        between chunks)."""
        chunk = min(self.task.max_work, _CHUNK)
        self.left[0] = chunk
        self.budget = self.task.max_work - chunk
        self.doing = doing

    def tick(self) -> None:
        """The joins used up their chunk: the next one, or the typed error of
        the work limit or of the time limit."""
        deadline: float | None = getattr(_limits, "deadline", None)
        if deadline is not None and time.monotonic() > deadline:
            raise _limits.error()
        while self.left[0] < 0 and self.budget > 0:
            chunk = min(self.budget, _CHUNK)
            self.budget -= chunk
            self.left[0] += chunk
        if self.left[0] >= 0:
            return
        limit = self.task.max_work
        raise GroundingLimitError(
            f"{self.doing} took more than {limit:,} join steps: the state has too many candidate actions (or "
            "derived atoms) to enumerate",
            code=ErrorCode.GROUNDING_LIMIT,
            hint="ask for the first actions only (applicable_actions(limit=k); over MCP, pages), execute an "
                 "action by name (that needs no enumeration), or raise the limit (max_actions)",
            details={"limit": limit, "kind": "lifted"},
        )

    def move(self, state: State | set[int]) -> None:
        """Make :attr:`fluent` hold the atoms of ``state``."""
        if state is self.source:
            return
        ids = self.ids
        gone = ids.difference(state)
        new = state.difference(ids) if isinstance(state, frozenset) else state - ids
        self.shift(state, new, gone)
        self.source = state if isinstance(state, frozenset) else None

    def shift(self, state: State | set[int], added: Iterable[int], deleted: Iterable[int]) -> None:
        """Make :attr:`fluent` hold ``state``, which the state it holds becomes
        by adding ``added`` and deleting ``deleted`` (exactly: nothing else changes)."""
        ids, atoms, static, rel = self.ids, self.task.atoms, self.task.static, self.fluent
        for i in deleted:
            key = atoms[i]
            if key[0] not in static:
                rel.remove(key)
        for i in added:
            key = atoms[i]
            if key[0] not in static:
                rel.add(key)
        ids.difference_update(deleted)
        ids.update(added)
        self.source = state  # type: ignore[assignment]

    def add(self, atom: int, key: AtomKey) -> None:
        self.ids.add(atom)
        self.fluent.add(key)
        self.source = None


_CHUNK = 20_000
"""Join steps between two looks at the clock (a few ms)."""

_limits = _thread._local()


class time_limit:  # noqa: N801 (a context manager read as a phrase)
    """``with time_limit(deadline, error):`` makes the lifted joins of this
    thread (listing actions, derived atoms) raise ``error()`` (a
    :class:`~pypddlengine.errors.TimeLimitError`) once ``time.monotonic()``
    passes ``deadline``: a plan validation stops inside a slow step, not after it."""

    __slots__ = ("deadline", "error", "saved")

    def __init__(self, deadline: float, error: Any) -> None:
        self.deadline, self.error = deadline, error

    def __enter__(self) -> None:
        self.saved = (getattr(_limits, "deadline", None), getattr(_limits, "error", None))
        _limits.deadline, _limits.error = self.deadline, self.error

    def __exit__(self, *_: object) -> None:
        _limits.deadline, _limits.error = self.saved


JoinCodes = tuple[dict[object, CodeType], dict[tuple[bool, int], set[int]], frozenset[int]]


def _join_codes(lifted: LiftedTask, static: frozenset[int]) -> JoinCodes:
    """The compiled join functions of a task (cached on it): ``app`` per
    action schema, ``full`` and ``trig`` (one per body atom of a derived
    predicate of the rule's own stratum) per axiom rule; the looked-up
    positions; and the strata whose residual conditions read derived atoms of
    their own stratum (evaluated naively to their fixpoint)."""
    from .joins import JoinStats, join_source

    cached = lifted.generated.get("lazy-joins")
    if cached is not None:
        return cached  # type: ignore[return-value]
    stats = JoinStats.of(lifted)
    used: dict[tuple[bool, int], set[int]] = {}
    sources: dict[object, tuple[str, str]] = {}  # compiled together at the end, through the per-user cache

    for schema in lifted.schemas:
        # an instance costs more than a join step; a general one also evaluates its residual precondition,
        # whose quantifiers enumerate their bindings each time (so the work limit bounds them too)
        work = EMIT_WORK + (quantified_size(lifted, schema.residual) if schema.general else 0)
        emit = [f"left[0] -= {work}", "if left[0] < 0: tick()", "act = C.get(a, M)",
                "if act is M: act = lookup(schema, a)"]
        if schema.general:
            emit.append("if act is not None and act.applicable(state): out.append(act)")
        else:  # the join decided the whole precondition
            emit.append("if act is not None: out.append(act)")
        src = join_source(schema, static, stats, name="app", params="out, state", emit=emit, used=used)
        sources[("app", schema.id)] = (src, f"<applicable {schema.name}>")
    reruns: set[int] = set()
    for k, stratum in enumerate(lifted.axiom_strata):
        own = {s.add[0][0] for s in stratum}
        names = {lifted.predicates[p] for p in own}
        for schema in stratum:
            pred, args = schema.add[0]
            head = f"({', '.join([str(pred), *[f'v{a}' if a >= 0 else str(~a) for a in args]])},)"
            emit = [f"out.append((a, {head}))"]
            src = join_source(schema, static, stats, name="full", params="out", emit=emit, used=used)
            sources[("full", schema.id)] = (src, f"<axiom {schema.name}>")
            for i, (p, _) in enumerate(schema.pre):
                if p in own:
                    src = join_source(schema, static, stats, name="trig", params="key, out", emit=emit,
                                      trigger=i, used=used)
                    sources[("trig", schema.id, i)] = (src, f"<axiom {schema.name} on {i}>")
            if schema.residual is not None and _predicates(schema.residual) & names:
                reruns.add(k)
    codes = dict(zip(sources, compiled_batch("joins", list(sources.values())), strict=True))
    result = (codes, used, frozenset(reruns))
    lifted.generated["lazy-joins"] = result
    return result


def _predicates(cond: Condition) -> set[str]:
    """The predicates an NNF condition names."""
    match cond:
        case Atom(predicate=p):
            return {p}
        case Not(operand=x):
            return _predicates(x)
        case And(parts=ps) | Or(parts=ps):
            return set().union(*(_predicates(p) for p in ps))
        case Exists(body=b) | Forall(body=b):
            return _predicates(b)
    return set()


class LiftedAxioms(Derive):
    """Derived atoms of a :class:`LazyTask` state, stratum by stratum,
    semi-naive: each rule's query is answered once against the state, then
    each new derived atom triggers only the queries that can use it. A rule
    with a compound condition has it checked on its ground axiom (the same
    encoding as the grounder's)."""

    def __init__(self, task: LazyTask) -> None:
        self.task = task
        self.predicates = task.lifted.derived_predicates

    @property
    def derived(self) -> frozenset[int]:  # type: ignore[override]
        return self.task.derived_atoms

    def __call__(self, state: State | set[int]) -> State:
        cur = thaw(state)  # a numeric state keeps its values (rules may compare them)
        self.update(cur)
        out = freeze(cur)
        joins = self.task.joins()
        if joins.source is None and joins.ids == cur:
            joins.source = out
        return out

    def update(self, state: set[int]) -> None:
        task = self.task
        atoms, preds, ids = task.atoms, self.predicates, task.atom_ids
        state.difference_update([i for i in state if atoms[i][0] in preds])
        joins = task.joins()
        joins.move(state)
        joins.start("computing the derived atoms of this state")
        queue: list[AtomKey] = []

        def accept(schema: Schema, found: list[tuple[tuple[int, ...], AtomKey]]) -> None:
            for args, head in found:
                h = ids.get(head)
                if h is None:
                    h = task.intern(head)
                if h in state:
                    continue
                if schema.residual is not None:
                    ax = task.axiom(schema, args)
                    if ax is None or not axiom_fires(ax, state):
                        continue
                state.add(h)
                joins.add(h, head)
                queue.append(head)

        for k, stratum in enumerate(task.lifted.axiom_strata):
            while True:
                before = len(state)
                for schema in stratum:
                    found: list[tuple[tuple[int, ...], AtomKey]] = []
                    joins.full[schema.id](found)
                    accept(schema, found)
                while queue:
                    key = queue.pop()
                    for schema, trig in joins.triggers.get(key[0], ()):
                        found = []
                        trig(key, found)
                        accept(schema, found)
                if k not in joins.reruns or len(state) == before:
                    break  # semi-naive is complete; a compound condition on this stratum needs a naive fixpoint
