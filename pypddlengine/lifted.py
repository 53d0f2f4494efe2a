"""The lifted task: a checked domain and problem compiled to integer tables.

Objects, predicates and schemas get dense integer ids in declaration order,
so every table is deterministic whatever the hash seed. A ground atom is a
*key*, the tuple ``(predicate_id, object_id, ...)``. An action schema keeps
its preconditions and effects as *templates* ``(predicate_id, args)`` where
``args[i] >= 0`` is a parameter index and ``args[i] < 0`` is the constant
``~args[i]``.

Three consumers share this module: the reachability grounder, the plan
validator (which never grounds: it instantiates each plan step from its
schema, which is why validating a 1,000-step plan on 400 blocks takes
milliseconds), and the session's explanations of inapplicable actions. They
all resolve action names through :meth:`LiftedTask.resolve` and instantiate
through :meth:`Schema.instantiate`, so there is one semantics.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .checker import TOTAL_COST, CheckReport, ensure_valid
from .errors import ActionReferenceError, ErrorCode, PDDLSemanticError, counted
from .model import (
    OBJECT_TYPE,
    ActionDecl,
    ActionRef,
    Add,
    And,
    Atom,
    Condition,
    Constant,
    Delete,
    Domain,
    Effect,
    EffectAnd,
    Equals,
    FunctionTerm,
    Not,
    Number,
    NumericEffect,
    NumericFact,
    Problem,
    Term,
)

__all__ = ["AtomKey", "Instance", "LiftedTask", "Schema", "compile_task"]

AtomKey = tuple[int, ...]
Template = tuple[int, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Instance:
    """A schema applied to objects: what a ground action needs and does.

    All atom collections are tuples of keys; ``eq``/``neq`` are pairs of
    object ids that must be equal / different."""

    schema: Schema
    args: tuple[int, ...]
    pre: tuple[AtomKey, ...]
    neg: tuple[AtomKey, ...]
    eq: tuple[tuple[int, int], ...]
    neq: tuple[tuple[int, int], ...]
    add: tuple[AtomKey, ...]
    delete: tuple[AtomKey, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Schema:
    """A compiled action schema (see the module docstring for encodings)."""

    id: int
    name: str
    display: str
    decl: ActionDecl = field(repr=False)
    params: tuple[str, ...]
    param_types: tuple[tuple[str, ...], ...]
    domains: tuple[tuple[int, ...], ...] = field(repr=False)
    domain_sets: tuple[frozenset[int] | None, ...] = field(repr=False)
    pre: tuple[Template, ...]
    neg: tuple[Template, ...]
    eq: tuple[tuple[int, int], ...]
    neq: tuple[tuple[int, int], ...]
    add: tuple[Template, ...]
    delete: tuple[Template, ...]
    cost: tuple[int | float | tuple[str, tuple[int, ...]], ...]
    _parts: Callable[[tuple[int, ...]], tuple[tuple[Any, ...], ...]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "_parts", _instantiator(self))

    @property
    def arity(self) -> int:
        return len(self.params)

    def instantiate(self, args: tuple[int, ...]) -> Instance:
        """The ground instance for ``args`` (object ids, already type-checked)."""
        return Instance(self, args, *self._parts(args))

    def parts(self, args: tuple[int, ...]) -> tuple[tuple[Any, ...], ...]:
        """``(pre, neg, eq, neq, add, delete)`` of :meth:`instantiate`, without
        building an :class:`Instance` (the validator's inner loop)."""
        return self._parts(args)


def _instantiator(schema: Schema) -> Callable[[tuple[int, ...]], tuple[tuple[Any, ...], ...]]:
    """Generate ``f(args) -> (pre, neg, eq, neq, add, delete)`` for one schema.

    The templates are unrolled into one tuple expression (as ``dataclasses``
    and ``namedtuple`` generate code): validation instantiates every plan
    step, and this is about three times faster than interpreting templates."""

    def term(a: int) -> str:
        return f"a[{a}]" if a >= 0 else str(~a)

    def keys(templates: tuple[Template, ...]) -> str:
        items = [f"({', '.join([str(p), *map(term, targs)])},)" for p, targs in templates]
        return f"({', '.join(items)},)" if items else "()"

    def pairs(items: tuple[tuple[int, int], ...]) -> str:
        out = [f"({term(x)}, {term(y)})" for x, y in items]
        return f"({', '.join(out)},)" if out else "()"

    body = ", ".join(
        [keys(schema.pre), keys(schema.neg), pairs(schema.eq), pairs(schema.neq),
         keys(schema.add), keys(schema.delete)]
    )
    namespace: dict[str, Any] = {}
    exec(f"def parts(a):\n    return ({body})\n", namespace)
    return namespace["parts"]  # type: ignore[no-any-return]


class LiftedTask:
    """A checked domain and problem as integer tables. Immutable after build.

    Build with :func:`compile_task`. Rendering helpers turn keys back into
    PDDL text with the spelling of the declarations."""

    def __init__(self, domain: Domain, problem: Problem, report: CheckReport) -> None:
        self.domain = domain
        self.problem = problem
        self.report = report
        types = report.types

        # -------------------------------------------------------------- objects
        names: list[str] = []
        display: list[str] = []
        decl_types: list[tuple[str, ...]] = []
        index: dict[str, int] = {}
        for decl in (*domain.constants, *problem.objects):
            if decl.name in index:
                continue
            index[decl.name] = len(names)
            names.append(decl.name)
            display.append(decl.display or decl.name)
            ts = decl.types if all(t in types for t in decl.types) else (OBJECT_TYPE,)
            decl_types.append(ts)
        self.objects: tuple[str, ...] = tuple(names)
        self.object_display: tuple[str, ...] = tuple(display)
        self.object_index: dict[str, int] = index
        self.object_types: tuple[tuple[str, ...], ...] = tuple(decl_types)
        self._object_ancestors = tuple(types.ancestors_of(ts) for ts in decl_types)
        members: dict[str, list[int]] = {t: [] for t in types.names()}
        for oid, anc in enumerate(self._object_ancestors):
            for t in anc:
                members.setdefault(t, []).append(oid)
        self.type_members: dict[str, tuple[int, ...]] = {t: tuple(ids) for t, ids in members.items()}

        # -------------------------------------------------------------- predicates
        self.predicates: tuple[str, ...] = tuple(p.name for p in domain.predicates)
        self.predicate_display: tuple[str, ...] = tuple(p.display or p.name for p in domain.predicates)
        self.predicate_index: dict[str, int] = {n: i for i, n in enumerate(self.predicates)}
        self.predicate_arity: tuple[int, ...] = tuple(len(p.parameters) for p in domain.predicates)
        added: set[int] = set()
        deleted: set[int] = set()
        for action in domain.actions:
            for eff in _effect_literals(action.effect):
                pid = self.predicate_index[eff.atom.predicate]
                (added if isinstance(eff, Add) else deleted).add(pid)
        self.added_predicates: frozenset[int] = frozenset(added)
        self.fluent_predicates: frozenset[int] = frozenset(added | deleted)

        # -------------------------------------------------------------- problem facts
        init: set[AtomKey] = set()
        numeric: dict[tuple[str, tuple[int, ...]], int | float] = {}
        for fact in problem.init:
            if isinstance(fact, Atom):
                init.add(self._ground_key(fact))
            elif isinstance(fact, NumericFact):
                numeric[(fact.target.name, tuple(index[t.name] for t in fact.target.terms))] = fact.value.value
        self.init: frozenset[AtomKey] = frozenset(init)
        self.numeric = numeric
        goal_pos: list[AtomKey] = []
        goal_neg: list[AtomKey] = []
        goal_static_false: list[str] = []
        for lit in _literals(problem.goal):
            match lit:
                case Atom():
                    goal_pos.append(self._ground_key(lit))
                case Not(operand=Atom() as atom):
                    goal_neg.append(self._ground_key(atom))
                case Equals(left=l, right=r):
                    if l.name != r.name:
                        goal_static_false.append(f"(= {l.name} {r.name})")
                case Not(operand=Equals(left=l, right=r)):
                    if l.name == r.name:
                        goal_static_false.append(f"(not (= {l.name} {r.name}))")
        self.goal_pos: tuple[AtomKey, ...] = tuple(dict.fromkeys(goal_pos))
        self.goal_neg: tuple[AtomKey, ...] = tuple(dict.fromkeys(goal_neg))
        self.goal_static_false: tuple[str, ...] = tuple(goal_static_false)
        self.uses_action_costs = report.uses_action_costs

        # -------------------------------------------------------------- schemas
        self.schemas: tuple[Schema, ...] = tuple(self._schema(i, a) for i, a in enumerate(domain.actions))
        self.schema_index: dict[str, Schema] = {s.name: s for s in self.schemas}

    # ------------------------------------------------------------------ building

    def _ground_key(self, atom: Atom) -> AtomKey:
        return (self.predicate_index[atom.predicate], *[self.object_index[t.name] for t in atom.terms])

    def _schema(self, sid: int, action: ActionDecl) -> Schema:
        params = {p.name: i for i, p in enumerate(action.parameters)}

        def arg(term: Term) -> int:
            if isinstance(term, Constant):
                return ~self.object_index[term.name]
            return params[term.name]

        def template(atom: Atom) -> Template:
            return (self.predicate_index[atom.predicate], tuple(arg(t) for t in atom.terms))

        pre: list[Template] = []
        neg: list[Template] = []
        eq: list[tuple[int, int]] = []
        neq: list[tuple[int, int]] = []
        for lit in _literals(action.precondition):
            match lit:
                case Atom():
                    pre.append(template(lit))
                case Not(operand=Atom() as atom):
                    neg.append(template(atom))
                case Equals(left=l, right=r):
                    eq.append((arg(l), arg(r)))
                case Not(operand=Equals(left=l, right=r)):
                    neq.append((arg(l), arg(r)))
        add: list[Template] = []
        delete: list[Template] = []
        cost: list[int | float | tuple[str, tuple[int, ...]]] = []
        for eff in _effect_literals(action.effect, with_numeric=True):
            if isinstance(eff, Add):
                add.append(template(eff.atom))
            elif isinstance(eff, Delete):
                delete.append(template(eff.atom))
            elif isinstance(eff, NumericEffect) and eff.target.name == TOTAL_COST:
                value = eff.value
                if isinstance(value, Number):
                    cost.append(value.value)
                elif isinstance(value, FunctionTerm):
                    cost.append((value.name, tuple(arg(t) for t in value.terms)))
        ptypes = tuple(p.types for p in action.parameters)
        domains = tuple(self._domain_of(ts) for ts in ptypes)
        n = len(self.objects)
        return Schema(
            id=sid,
            name=action.name,
            display=action.display or action.name,
            decl=action,
            params=tuple(p.name for p in action.parameters),
            param_types=ptypes,
            domains=domains,
            domain_sets=tuple(None if len(d) == n else frozenset(d) for d in domains),
            pre=tuple(dict.fromkeys(pre)),
            neg=tuple(dict.fromkeys(neg)),
            eq=tuple(eq),
            neq=tuple(neq),
            add=tuple(dict.fromkeys(add)),
            delete=tuple(dict.fromkeys(delete)),
            cost=tuple(cost),
        )

    def _domain_of(self, types: tuple[str, ...]) -> tuple[int, ...]:
        if len(types) == 1:
            return self.type_members.get(types[0], ())
        ids: set[int] = set()
        for t in types:
            ids.update(self.type_members.get(t, ()))
        return tuple(sorted(ids))

    # ------------------------------------------------------------------ queries

    def resolve(self, ref: ActionRef) -> tuple[Schema, tuple[int, ...]]:
        """The schema and object ids an action text names.

        Raises :class:`ActionReferenceError` with code ``UNKNOWN_ACTION``,
        ``WRONG_ARITY``, ``UNKNOWN_OBJECT`` or ``TYPE_MISMATCH`` and, where it
        helps, ``details["suggestions"]``."""
        schema = self.schema_index.get(ref.name)
        if schema is None:
            close = difflib.get_close_matches(ref.name, list(self.schema_index), n=3, cutoff=0.6)
            names = ", ".join(s.display for s in self.schemas)
            raise ActionReferenceError(
                f"unknown action '{ref.name}'" + (f"; did you mean '{close[0]}'?" if close else ""),
                code=ErrorCode.UNKNOWN_ACTION,
                span=ref.span,
                hint=f"the actions are: {names}",
                details={"action": ref.name, "suggestions": close},
            )
        if len(ref.args) != schema.arity:
            raise ActionReferenceError(
                f"'{schema.display}' takes {counted(schema.arity, 'argument')} {self.signature(schema)}, "
                f"but {len(ref.args)} {'was' if len(ref.args) == 1 else 'were'} given",
                code=ErrorCode.WRONG_ARITY,
                span=ref.span,
                details={"action": schema.name, "expected": schema.arity, "given": len(ref.args)},
            )
        ids: list[int] = []
        for i, name in enumerate(ref.args):
            oid = self.object_index.get(name)
            span = ref.arg_spans[i] if i < len(ref.arg_spans) else ref.span
            if oid is None:
                close = difflib.get_close_matches(name, list(self.object_index), n=3, cutoff=0.6)
                allowed = schema.domains[i]
                shown = ", ".join(self.object_display[o] for o in allowed[:20])
                more = f" and {len(allowed) - 20} more" if len(allowed) > 20 else ""
                raise ActionReferenceError(
                    f"unknown object '{name}'" + (f"; did you mean '{close[0]}'?" if close else ""),
                    code=ErrorCode.UNKNOWN_OBJECT,
                    span=span,
                    hint=f"objects that fit argument {i + 1} of '{schema.display}': {shown}{more}" if allowed else None,
                    details={"object": name, "suggestions": close},
                )
            allowed = schema.domain_sets[i]
            if allowed is not None and oid not in allowed:
                raise ActionReferenceError(
                    f"argument {i + 1} of '{schema.display}' ({schema.params[i]}) must be of type "
                    f"{_types(schema.param_types[i])}, but '{self.object_display[oid]}' is of type "
                    f"{_types(self.object_types[oid])}",
                    code=ErrorCode.TYPE_MISMATCH,
                    span=span,
                    details={"argument": i + 1, "expected": list(schema.param_types[i]),
                             "object": name, "actual": list(self.object_types[oid])},
                )
            ids.append(oid)
        return schema, tuple(ids)

    def action_cost(self, inst: Instance) -> int | float:
        """The cost of a ground instance (1 when the task has no action costs)."""
        if not self.uses_action_costs:
            return 1
        total: int | float = 0
        for term in inst.schema.cost:
            if isinstance(term, tuple):
                name, targs = term
                key = (name, tuple(inst.args[a] if a >= 0 else ~a for a in targs))
                value = self.numeric.get(key)
                if value is None:
                    raise PDDLSemanticError(
                        f"the cost of {self.render_action(inst.schema, inst.args)} needs "
                        f"({name} {' '.join(self.object_display[o] for o in key[1])}), which has no value in :init",
                        code=ErrorCode.UNDEFINED_FUNCTION_VALUE,
                    )
                total += value
            else:
                total += term
        return total

    def unsatisfied(self, inst: Instance, state: frozenset[AtomKey] | set[AtomKey]) -> list[str]:
        """Each precondition literal of ``inst`` that fails in ``state``, as text."""
        out = [self.render_key(k) for k in inst.pre if k not in state]
        out += [f"(not {self.render_key(k)})" for k in inst.neg if k in state]
        out += [f"(= {self.object_display[a]} {self.object_display[b]})" for a, b in inst.eq if a != b]
        out += [f"(not (= {self.object_display[a]} {self.object_display[b]}))" for a, b in inst.neq if a == b]
        return out

    def unsatisfied_goals(self, state: frozenset[AtomKey] | set[AtomKey]) -> list[str]:
        """Each goal literal that fails in ``state``, as text (one per atom)."""
        out = [self.render_key(k) for k in self.goal_pos if k not in state]
        out += [f"(not {self.render_key(k)})" for k in self.goal_neg if k in state]
        out += list(self.goal_static_false)
        return out

    def is_goal(self, state: frozenset[AtomKey] | set[AtomKey]) -> bool:
        return (
            not self.goal_static_false
            and all(k in state for k in self.goal_pos)
            and not any(k in state for k in self.goal_neg)
        )

    # ------------------------------------------------------------------ rendering

    def render_key(self, key: AtomKey) -> str:
        name = self.predicate_display[key[0]]
        if len(key) == 1:
            return f"({name})"
        return f"({name} {' '.join([self.object_display[o] for o in key[1:]])})"

    def render_action(self, schema: Schema, args: Iterable[int]) -> str:
        names = [self.object_display[o] for o in args]
        return f"({' '.join([schema.display, *names])})"

    def signature(self, schema: Schema) -> str:
        parts = [f"{p} - {_types(t)}" for p, t in zip(schema.params, schema.param_types, strict=True)]
        return f"({' '.join(parts)})"


def _types(types: tuple[str, ...]) -> str:
    return types[0] if len(types) == 1 else f"(either {' '.join(types)})"


def _literals(cond: Condition | None) -> list[Condition]:
    """The literals of a conjunction (the checker has rejected anything else)."""
    if cond is None:
        return []
    if isinstance(cond, And):
        out: list[Condition] = []
        for part in cond.parts:
            out.extend(_literals(part))
        return out
    return [cond]


def _effect_literals(eff: Effect | None, *, with_numeric: bool = False) -> list[Effect]:
    if eff is None:
        return []
    if isinstance(eff, EffectAnd):
        out: list[Effect] = []
        for part in eff.parts:
            out.extend(_effect_literals(part, with_numeric=with_numeric))
        return out
    if isinstance(eff, (Add, Delete)) or (with_numeric and isinstance(eff, NumericEffect)):
        return [eff]
    return []


def compile_task(domain: Domain, problem: Problem) -> LiftedTask:
    """Check ``domain`` and ``problem`` (raising the first error) and compile them."""
    report = ensure_valid(domain, problem)
    adl = sorted(report.features - {"typing", "negative-preconditions", "equality", "action-costs"})
    if adl:  # checked and parsed, not yet simulated (the grounding stage comes next)
        from .errors import UnsupportedRequirementError
        from .features import describe_feature

        raise UnsupportedRequirementError(f"not simulated yet: {describe_feature(adl[0])}",
                                          details={"feature": adl[0]})
    return LiftedTask(domain, problem, report)
