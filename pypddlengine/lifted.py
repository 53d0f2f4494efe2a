"""The lifted task: a checked domain and problem compiled to integer tables.

Objects, predicates and schemas get dense integer ids in declaration order,
so every table is deterministic whatever the hash seed. A ground atom is a
*key*, the tuple ``(predicate_id, object_id, ...)``. An action schema keeps
its preconditions and effects as *templates* ``(predicate_id, args)`` where
``args[i] >= 0`` is a parameter index and ``args[i] < 0`` is the constant
``~args[i]``.

Everything above the lifted task reads it: the two backends (the
reachability grounder and the on-demand instantiation), which compile
schemas into ground actions with :mod:`pypddlengine.step`, the one
definition of a step; the validator, which resolves action names through
:meth:`LiftedTask.resolve`; and the explanations of inapplicable actions and
unsatisfied goals (:meth:`LiftedTask.unsatisfied`, :meth:`LiftedTask.explain`),
which evaluate conditions on atom keys with :meth:`LiftedTask.holds` to say
*why* something fails (they decide nothing).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import field
from fractions import Fraction
from typing import Any, cast

from .checker import TOTAL_COST, TOTAL_TIME, CheckReport, axiom_levels, ensure_valid, negative_cycle
from .errors import (
    ActionReferenceError,
    ErrorCode,
    GroundingLimitError,
    NumericError,
    PDDLSemanticError,
    counted,
    nesting_guard,
)
from .exact import Value, approx, normal, to_text
from .gcpause import paused_gc
from .model import (
    OBJECT_TYPE,
    ActionDecl,
    ActionRef,
    And,
    Atom,
    Compare,
    Condition,
    Constant,
    DerivedDecl,
    Domain,
    Equals,
    Exists,
    Forall,
    FunctionTerm,
    Not,
    Number,
    NumericEffect,
    NumericFact,
    NumExpr,
    Or,
    Parameter,
    Problem,
    Term,
)
from .normalise import (
    EffectRule,
    NormalEffect,
    axiom_rules,
    normalise_effect,
    split,
    substitute,
)
from .numeric import CONST, FLUENT, UNDEFINED, GExpr, Lookup, compare, deficit, ground, interpret, term_text
from .printer import format_condition
from .sources import PDDLSource, read_task_sources
from .syntax import MAX_INPUT_BYTES, parse_domain, parse_problem
from .usercache import dataclass

__all__ = ["AtomKey", "Instance", "Keys", "LiftedTask", "Schema", "compile_task", "load_task", "quantified_size"]

AtomKey = tuple[int, ...]
Template = tuple[int, tuple[int, ...]]

MAX_ASSIGNED_TERMS = 1_000_000
"""Ground terms of one function that an ``assign`` effect may give a value (each gets a place in every state)."""


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
    cost: tuple[Value | float | tuple[str, tuple[int, ...]], ...]
    residual: Condition | None = None
    """The precondition beyond its top-level literals (NNF), or ``None`` (STRIPS)."""
    rules: tuple[EffectRule, ...] = ()
    """Conditional and quantified effects (see :class:`EffectRule`)."""
    literals: tuple[Condition, ...] = ()
    """The top-level literals of the precondition (as ``pre``/``neg``/``eq``/``neq``)."""
    axiom: DerivedDecl | None = None
    """For an axiom rule (``LiftedTask.axiom_schemas``): the axiom; ``add`` is its head."""
    numeric: tuple[NumericEffect, ...] = ()
    """The unconditional numeric effects of a numeric task (``total-cost`` increases included)."""
    _parts: Callable[[tuple[int, ...]], tuple[tuple[Any, ...], ...]] | None = field(
        init=False, repr=False, compare=False, default=None
    )
    """Made on the first :meth:`instantiate` (a session that only lists and steps never needs it)."""

    @property
    def arity(self) -> int:
        return len(self.params)

    @property
    def condition(self) -> Condition:
        """The whole precondition (or axiom body) in NNF."""
        return And((*self.literals, *((self.residual,) if self.residual is not None else ())))

    @property
    def general(self) -> bool:
        """Whether the schema needs more than the STRIPS fast path."""
        return self.residual is not None or bool(self.rules) or bool(self.numeric)

    def binding(self, args: tuple[int, ...]) -> dict[str, int]:
        return dict(zip(self.params, args, strict=True))

    def instantiate(self, args: tuple[int, ...]) -> Instance:
        """The ground instance for ``args`` (object ids, already type-checked)."""
        parts = self._parts
        if parts is None:
            parts = _instantiator(self)
            object.__setattr__(self, "_parts", parts)
        return Instance(self, args, *parts(args))


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


MAX_REMEMBERED_STEPS = 1 << 18
"""How many distinct action references a backend remembers for the validator
(:meth:`pypddlengine.task.StepSpace.remembered_refs`; then it starts afresh)."""


class Keys(set):  # type: ignore[type-arg]
    """The atom keys of a state, with its numeric ``values`` (what the
    explanations of a numeric task read, see :meth:`LiftedTask.compare`)."""

    __slots__ = ("values",)

    def __init__(self, keys: Iterable[AtomKey], values: tuple[Value | None, ...] | list[Value | None]) -> None:
        super().__init__(keys)
        self.values = values


class LiftedTask:
    """A checked domain and problem as integer tables. Immutable after build
    (but for the memo of :meth:`step`, which only saves work).

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
            ts = decl.types if all(t in types for t in decl.types) else (OBJECT_TYPE,)
            if decl.name in index:  # declared again: of each type it is declared with (the checker warns)
                at = index[decl.name]
                decl_types[at] = tuple(dict.fromkeys((*decl_types[at], *ts)))
                continue
            index[decl.name] = len(names)
            names.append(decl.name)
            display.append(decl.display or decl.name)
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
        pindex = self.predicate_index
        self.derived_predicates: frozenset[int] = frozenset(pindex[a.predicate] for a in domain.axioms)
        """Predicates defined by :derived rules: computed after every step, never set by effects."""
        self._effects = [normalise_effect(a.effect) for a in domain.actions]
        added: set[int] = set(self.derived_predicates)
        deleted: set[int] = set()
        for ne in self._effects:
            added.update(pindex[a.predicate] for a in ne.adds)
            deleted.update(pindex[a.predicate] for a in ne.deletes)
            for rule in ne.rules:
                added.update(pindex[a.predicate] for a in rule.adds)
                deleted.update(pindex[a.predicate] for a in rule.deletes)
        self.added_predicates: frozenset[int] = frozenset(added)
        self.fluent_predicates: frozenset[int] = frozenset(added | deleted)

        # -------------------------------------------------------------- problem facts
        init: set[AtomKey] = set()
        numeric: dict[tuple[str, tuple[int, ...]], Value] = {}
        for fact in problem.init:
            if isinstance(fact, Atom):
                init.add(self._ground_key(fact))
            elif isinstance(fact, NumericFact):
                numeric[(fact.target.name, tuple(index[t.name] for t in fact.target.terms))] = fact.value.value
        self.init: frozenset[AtomKey] = frozenset(init)
        self.numeric = numeric
        self._numeric_fluents(domain, report)
        goal_pos: list[AtomKey] = []
        goal_neg: list[AtomKey] = []
        goal_static_false: list[str] = []
        goal_literals, self.goal_residual = split(problem.goal)
        for lit in goal_literals:
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
        self.uses_action_costs = report.uses_action_costs and not self.numeric_task
        """Whether steps cost their ``total-cost`` increase. Not in a numeric task: there
        ``total-cost`` is a fluent like any other (its increases may depend on the state)
        and the plan's quality is its metric, so a step costs 1."""

        # -------------------------------------------------------------- schemas and axioms
        self.schemas: tuple[Schema, ...] = tuple(
            self._schema(i, a.name, a.display or a.name, a, a.parameters, *split(a.precondition), self._effects[i])
            for i, a in enumerate(domain.actions)
        )
        self.schema_index: dict[str, Schema] = {s.name: s for s in self.schemas}
        axioms: list[Schema] = []
        for axiom in domain.axioms:
            for axiom_rule in axiom_rules(axiom):
                axiom_decl = ActionDecl(axiom.predicate, axiom_rule.parameters, None, None, axiom.span, axiom.display)
                head = NormalEffect((axiom.head,), (), (), ())
                axioms.append(self._schema(len(self.schemas) + len(axioms), axiom.predicate,
                                           axiom.display or axiom.predicate, axiom_decl, axiom_rule.parameters,
                                           list(axiom_rule.literals), axiom_rule.residual, head, axiom))
        self.axiom_schemas: tuple[Schema, ...] = tuple(axioms)
        """One schema per axiom rule, numbered after the action schemas."""
        self.axiom_strata: tuple[tuple[Schema, ...], ...] = self._stratify(domain)
        self.general = bool(axioms) or self.goal_residual is not None or any(s.general for s in self.schemas)
        """Whether the task uses ADL or axioms beyond the STRIPS fast path."""
        self.generated: dict[object, object] = {}
        """Code the backends generate from this task, kept for the next backend built on it."""

    # ------------------------------------------------------------------ building

    def _numeric_fluents(self, domain: Domain, report: CheckReport) -> None:
        """The values vector of a numeric task: which ground function terms
        change (fluents: their function is the target of some effect) and
        their ids, in a deterministic order: the initial values first (as
        written), then every type-consistent term of a function some
        ``assign`` sets (only these can get a value later; reading or
        increasing any other term is an error where it happens)."""
        self.numeric_task: bool = "numeric-fluents" in report.features
        """Whether states carry numeric values (see :mod:`pypddlengine.step`)."""
        self.function_index: dict[str, int] = {f.name: i for i, f in enumerate(domain.functions)}
        self.function_display: dict[str, str] = {f.name: f.display or f.name for f in domain.functions}
        assigned: dict[str, None] = {}
        assign_targets: dict[str, None] = {}
        for ne in self._effects:
            for eff in (*ne.numeric, *(e for rule in ne.rules for e in rule.numeric)):
                assigned[eff.target.name] = None
                if eff.op == "assign":
                    assign_targets[eff.target.name] = None
        if self.numeric_task and TOTAL_COST not in self.function_index and TOTAL_COST in assigned:
            self.function_index[TOTAL_COST] = len(self.function_index)  # used undeclared, as IPC files do
            self.function_display[TOTAL_COST] = TOTAL_COST
        self.fluent_functions: frozenset[str] = frozenset(assigned) if self.numeric_task else frozenset()
        """Functions some effect changes; the others are static and folded into constants."""
        terms: dict[tuple[str, tuple[int, ...]], None] = {}
        for key in self.numeric:
            if key[0] in self.fluent_functions:
                terms[key] = None
        if TOTAL_COST in self.fluent_functions and (TOTAL_COST, ()) not in terms:
            terms[(TOTAL_COST, ())] = None  # implicitly 0, as Fast Downward and VAL take it
        decls = {f.name: f for f in domain.functions}
        for name in assign_targets:
            decl = decls.get(name)
            if decl is None or not self.numeric_task:
                continue
            domains = [self._domain_of(p.types) for p in decl.parameters]
            if math.prod(len(d) for d in domains) > MAX_ASSIGNED_TERMS:
                raise GroundingLimitError(
                    f"the function '{name}' is assigned by an effect and has more than {MAX_ASSIGNED_TERMS:,} "
                    "ground terms", code=ErrorCode.GROUNDING_LIMIT, span=decl.span, source=domain.source,
                    details={"limit": MAX_ASSIGNED_TERMS, "kind": "numeric terms"})
            for combo in itertools.product(*domains):
                terms.setdefault((name, combo), None)
        self.fluent_terms: tuple[tuple[str, tuple[int, ...]], ...] = tuple(terms)
        """``fluent_terms[i]`` is the ground function term of value ``i`` of a state."""
        self.fluent_ids: dict[tuple[str, tuple[int, ...]], int] = {t: i for i, t in enumerate(self.fluent_terms)}
        self.initial_values: tuple[Value | None, ...] = tuple(
            self.numeric.get(t, 0 if t == (TOTAL_COST, ()) else None) for t in self.fluent_terms)
        """The values of the fluent terms in the initial state (``None``: undefined)."""

    def fluent(self, name: str, args: tuple[int, ...]) -> GExpr:
        """The ground form of function term ``(name args)``: a fluent's id, a
        static term's value, or undefined (see :func:`pypddlengine.numeric.ground`)."""
        key = (name, args)
        if name in self.fluent_functions:
            i = self.fluent_ids.get(key)
            if i is not None:
                return (FLUENT, i)
        else:
            value = self.numeric.get(key)
            if value is not None:
                return (CONST, value)
        return (UNDEFINED, term_text(name, args, self.object_display))

    def ground_expr(self, expr: NumExpr, binding: dict[str, int]) -> GExpr:
        """The ground form of a model expression under ``binding`` (static terms folded)."""
        return ground(expr, binding, self.object_index, self.fluent)

    def value_lookup(self, values: tuple[Value | None, ...] | list[Value | None]) -> Lookup:
        """``lookup(name, args)`` reading fluent terms from ``values`` and static terms from the problem."""
        ids, numeric, fluent = self.fluent_ids, self.numeric, self.fluent_functions

        def lookup(name: str, args: tuple[int, ...]) -> Value | None:
            if name in fluent:
                i = ids.get((name, args))
                return None if i is None else values[i]
            return numeric.get((name, args))

        return lookup

    def render_static_values(self) -> list[str]:
        """``(distance a b) = 7`` for each initial value of a static function (sorted)."""
        static = [(k, v) for k, v in self.numeric.items()
                  if k[0] in self.function_index and k[0] not in self.fluent_functions]
        return sorted(f"{term_text(self.function_display.get(name, name), args, self.object_display)} = {to_text(v)}"
                      for (name, args), v in static)

    def metric_value(self, values: tuple[Value | None, ...] | list[Value | None], steps: int,
                     cost: int | float | Value = 0) -> Value | None:
        """The value of the problem's ``:metric`` expression after a plan of
        ``steps`` steps ending with fluent ``values``: ``total-time`` is the
        number of steps (VAL's value for a sequential plan) and, in a task
        without numeric fluents, ``total-cost`` is the plan's action cost.
        Raises :class:`NumericError` (located in the problem) when the
        expression reads an undefined value or divides by zero."""
        metric = self.problem.metric
        if metric is None:
            return None
        lookup = self.value_lookup(values)

        def read(name: str, args: tuple[int, ...]) -> Value | None:
            if not args and name == TOTAL_TIME and name not in self.function_index:
                return steps
            if not args and name == TOTAL_COST and not self.numeric_task:
                return normal(cost) if not isinstance(cost, float) else normal(Fraction(cost))
            return lookup(name, args)

        return interpret(metric.expression, {}, read, self.object_display, self.object_index, self.problem.source)

    def render_values(self, values: tuple[Value | None, ...] | list[Value | None],
                      ids: Iterable[int] | None = None) -> list[str]:
        """``(fuel t1) = 12.5`` for each fluent (or each of ``ids``) with a value."""
        out = []
        for i in range(len(values)) if ids is None else ids:
            value = values[i]
            if value is not None:
                name, args = self.fluent_terms[i]
                out.append(f"{term_text(self.function_display.get(name, name), args, self.object_display)} = "
                           f"{to_text(value)}")
        return out

    def _ground_key(self, atom: Atom) -> AtomKey:
        return (self.predicate_index[atom.predicate], *[self.object_index[t.name] for t in atom.terms])

    def _schema(self, sid: int, name: str, display: str, decl: ActionDecl, parameters: tuple[Parameter, ...],
                literals: list[Condition], residual: Condition | None, effect: NormalEffect,
                axiom: DerivedDecl | None = None) -> Schema:
        params = {p.name: i for i, p in enumerate(parameters)}

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
        for lit in literals:
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
        cost: list[Value | float | tuple[str, tuple[int, ...]]] = []
        add.extend(template(a) for a in effect.adds)
        delete.extend(template(a) for a in effect.deletes)
        for eff in effect.numeric:
            if eff.target.name == TOTAL_COST:
                value = eff.value
                if isinstance(value, Number):
                    cost.append(value.value)
                elif isinstance(value, FunctionTerm):
                    cost.append((value.name, tuple(arg(t) for t in value.terms)))
        ptypes = tuple(p.types for p in parameters)
        domains = tuple(self._domain_of(ts) for ts in ptypes)
        n = len(self.objects)
        return Schema(
            id=sid,
            name=name,
            display=display,
            decl=decl,
            params=tuple(p.name for p in parameters),
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
            residual=residual,
            rules=effect.rules,
            literals=tuple(literals),
            axiom=axiom,
            numeric=effect.numeric if self.numeric_task else (),
        )

    def _stratify(self, domain: Domain) -> tuple[tuple[Schema, ...], ...]:
        """Axiom rules grouped by stratum: a derived predicate used negatively
        in a rule's body is complete in an earlier stratum. Raises
        ``UNSTRATIFIABLE_AXIOMS`` when negation runs through a cycle."""
        if negative_cycle(domain) is not None:  # the checker reports it; a safety net for a direct LiftedTask()
            raise PDDLSemanticError(
                "the derived predicates are not stratifiable: a derived predicate depends negatively on itself",
                code=ErrorCode.UNSTRATIFIABLE_AXIOMS,
                span=domain.axioms[0].span if domain.axioms else None,
                source=domain.source,
                hint="negation in :derived bodies must not run through a cycle of derived predicates",
            )
        level = axiom_levels(domain)
        strata: dict[int, list[Schema]] = {}
        for schema in self.axiom_schemas:
            strata.setdefault(level[schema.axiom.predicate], []).append(schema)  # type: ignore[union-attr]
        return tuple(tuple(strata[k]) for k in sorted(strata))

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
            import difflib

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
                import difflib

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
            allowed_set = schema.domain_sets[i]
            if allowed_set is not None and oid not in allowed_set:
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

    def resolve_known(self, name: str, args: tuple[str, ...]) -> tuple[Schema, tuple[int, ...]] | None:
        """:meth:`resolve` of a folded name and arguments that name an action
        of the task with objects of the right types, without building an
        :class:`ActionRef`; ``None`` for anything else (:meth:`resolve` then
        says what is wrong). The validator's path for a step met the first time."""
        schema = self.schema_index.get(name)
        if schema is None:
            return None
        ids = tuple(map(self.object_index.get, args))
        domains = schema.domain_sets
        if len(ids) != len(domains) or None in ids:
            return None
        for oid, domain in zip(ids, domains, strict=True):
            if domain is not None and oid not in domain:
                return None
        return schema, ids  # type: ignore[return-value]

    def action_cost(self, inst: Instance) -> Value | float:
        """The unconditional cost of a ground instance (1 when the task has no
        action costs); a step also pays :meth:`rule_cost` for each effect
        rule that fires."""
        if not self.uses_action_costs:
            return 1
        total: Value | float = 0
        for term in inst.schema.cost:
            if isinstance(term, tuple):
                name, targs = term
                total += self._cost_value(inst.schema, inst.args, name,
                                          tuple(inst.args[a] if a >= 0 else ~a for a in targs))
            else:
                total += term
        return total

    def rule_cost(self, schema: Schema, rule: EffectRule, binding: dict[str, int]) -> Value | float:
        """What one firing of the conditional or quantified effect ``rule``
        under ``binding`` adds to the step's cost: its ``(increase
        (total-cost) ...)`` effects (VAL charges them per firing); 0 when the
        task has no action costs."""
        if not self.uses_action_costs:
            return 0
        total: Value | float = 0
        for eff in rule.numeric:
            value = eff.value
            if eff.target.name != TOTAL_COST:
                continue
            if isinstance(value, Number):
                total += value.value
            elif isinstance(value, FunctionTerm):
                args = tuple(binding[p] for p in schema.params)
                total += self._cost_value(schema, args, value.name,
                                          tuple(self._object(t, binding) for t in value.terms))
        return total

    def _cost_value(self, schema: Schema, args: tuple[int, ...], name: str, objects: tuple[int, ...]) -> Value:
        value = self.numeric.get((name, objects))
        if value is None:
            raise PDDLSemanticError(
                f"the cost of {self.render_action(schema, args)} needs "
                f"({name} {' '.join(self.object_display[o] for o in objects)}), which has no value in :init",
                code=ErrorCode.UNDEFINED_FUNCTION_VALUE,
            )
        return value

    def unsatisfied(self, inst: Instance, state: frozenset[AtomKey] | set[AtomKey]) -> list[str]:
        """Each precondition literal of ``inst`` that fails in ``state``, as
        text; for a disjunction or quantifier, what makes it fail (see
        :meth:`explain`). ``state`` includes the derived atoms."""
        out = [self.render_key(k) for k in inst.pre if k not in state]
        out += [f"(not {self.render_key(k)})" for k in inst.neg if k in state]
        out += [f"(= {self.object_display[a]} {self.object_display[b]})" for a, b in inst.eq if a != b]
        out += [f"(not (= {self.object_display[a]} {self.object_display[b]}))" for a, b in inst.neq if a == b]
        if inst.schema.residual is not None:
            out += self.explain(inst.schema.residual, inst.schema.binding(inst.args), state)
        return out

    def unsatisfied_goals(self, state: frozenset[AtomKey] | set[AtomKey]) -> list[str]:
        """Each goal literal that fails in ``state``, as text (one per atom;
        one per failing disjunction or quantifier, explained)."""
        out = [self.render_key(k) for k in self.goal_pos if k not in state]
        out += [f"(not {self.render_key(k)})" for k in self.goal_neg if k in state]
        out += list(self.goal_static_false)
        if self.goal_residual is not None:
            out += self.explain(self.goal_residual, {}, state)
        return out

    def goal_parts(self) -> list[str]:
        """The goal's conjuncts as text: each literal, then each compound part."""
        out = [self.render_key(k) for k in self.goal_pos]
        out += [f"(not {self.render_key(k)})" for k in self.goal_neg]
        if self.goal_residual is not None:
            parts = self.goal_residual.parts if isinstance(self.goal_residual, And) else (self.goal_residual,)
            out += [self.render_condition(p, {}) for p in parts]
        return out

    # ------------------------------------------------------------------ lifted formulas (never grounds)

    def _object(self, term: Term, binding: dict[str, int]) -> int:
        return binding[term.name] if term.name.startswith("?") else self.object_index[term.name]

    def _key(self, atom: Atom, binding: dict[str, int]) -> AtomKey:
        return (self.predicate_index[atom.predicate], *[self._object(t, binding) for t in atom.terms])

    def holds(self, cond: Condition, binding: dict[str, int], state: frozenset[AtomKey] | set[AtomKey]) -> bool:
        """Whether the NNF condition ``cond`` holds in ``state`` (atom keys,
        derived atoms included) under ``binding``; quantifiers range over
        their typed objects."""
        match cond:
            case Atom():
                return self._key(cond, binding) in state
            case Not(operand=Atom() as atom):
                return self._key(atom, binding) not in state
            case Equals(left=a, right=b):
                return self._object(a, binding) == self._object(b, binding)
            case Not(operand=Equals(left=a, right=b)):
                return self._object(a, binding) != self._object(b, binding)
            case And(parts=parts):
                return all(self.holds(p, binding, state) for p in parts)
            case Or(parts=parts):
                return any(self.holds(p, binding, state) for p in parts)
            case Exists(variables=vs, body=body):
                return any(self.holds(body, b, state) for b in self._extend(binding, vs))
            case Forall(variables=vs, body=body):
                return all(self.holds(body, b, state) for b in self._extend(binding, vs))
            case Compare() | Not(operand=Compare()):
                return self.compare(cond, binding, state)[0]
        raise TypeError(f"not a normalised condition: {cond!r}")

    def compare(self, cond: Compare | Not, binding: dict[str, int], state: frozenset[AtomKey] | set[AtomKey]
                ) -> tuple[bool, str]:
        """Whether a numeric comparison (or the negation of an ``=``) holds in
        ``state`` (a :class:`Keys` with values), and why not: both sides'
        values and how far apart they are, or what could not be read."""
        negated = isinstance(cond, Not)
        cmp = cast(Compare, cond.operand) if isinstance(cond, Not) else cond  # a negated '=': not (= a b)
        values = getattr(state, "values", None)
        if values is None:
            return False, "no numeric values in this state"
        lookup = self.value_lookup(values)
        try:
            left = interpret(cmp.left, binding, lookup, self.object_display, self.object_index)
            right = interpret(cmp.right, binding, lookup, self.object_display, self.object_index)
        except NumericError as err:
            return False, err.message
        holds = compare(cmp.op, left, right) != negated
        if holds:
            return True, ""
        sides = f"left side {approx(left)}, right side {approx(right)}"
        if negated:
            return False, f"{sides}: they are equal"
        gap = approx(deficit(cmp.op, left, right))
        why = {
            ">=": f"short by {gap}", "<=": f"over by {gap}", "=": f"off by {gap}",
            ">": f"short by {gap}" if left != right else "equal, but it must be greater",
            "<": f"over by {gap}" if left != right else "equal, but it must be less",
        }[cmp.op]
        return False, f"{sides}: {why}"

    def _extend(self, binding: dict[str, int], variables: tuple[Parameter, ...]) -> Iterator[dict[str, int]]:
        names = [v.name for v in variables]
        for combo in itertools.product(*(self._domain_of(v.types) for v in variables)):
            yield {**binding, **dict(zip(names, combo, strict=True))}

    def render_condition(self, cond: Condition, binding: dict[str, int]) -> str:
        names: dict[str, Term] = {k: Constant(self.object_display[v]) for k, v in binding.items()}
        return format_condition(substitute(cond, names))

    def explain(self, cond: Condition, binding: dict[str, int], state: frozenset[AtomKey] | set[AtomKey],
                limit: int = 5) -> list[str]:
        """One line per failing top-level conjunct of the NNF ``cond``: a
        literal as itself; a disjunction with why each disjunct fails; a
        ``forall`` with the objects that violate it; an ``exists`` saying
        that no object satisfies it."""
        out: list[str] = []
        parts = cond.parts if isinstance(cond, And) else (cond,)
        for part in parts:
            if self.holds(part, binding, state):
                continue
            text = self.render_condition(part, binding)
            match part:
                case Or(parts=disjuncts):
                    why = []
                    for d in disjuncts:
                        shown, sub = self.render_condition(d, binding), self.explain(d, binding, state, 2)
                        why.append(shown if sub == [shown] else f"{shown} [{'; '.join(sub)}]")
                    out.append(f"{text} (no disjunct holds: " + " | ".join(why) + ")")
                case Forall(variables=vs, body=body):
                    bad = [b for b in itertools.islice(
                        (b for b in self._extend(binding, vs) if not self.holds(body, b, state)), limit + 1)]
                    shown = ", ".join(" ".join(f"{v.name}={self.object_display[b[v.name]]}" for v in vs)
                                      for b in bad[:limit])
                    more = " and more" if len(bad) > limit else ""
                    out.append(f"{text} (violated for {shown}{more})")
                case Exists():
                    out.append(f"{text} (no object satisfies it)")
                case Compare() | Not(operand=Compare()):
                    out.append(f"{text} ({self.compare(part, binding, state)[1]})")
                case _:
                    out.append(text)
        return out

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


def compile_task(domain: Domain, problem: Problem) -> LiftedTask:
    """Check ``domain`` and ``problem`` (raising the first error) and compile them."""
    with nesting_guard("the task"):
        report = ensure_valid(domain, problem)
        return LiftedTask(domain, problem, report)


def load_task(
    domain: PDDLSource,
    problem: PDDLSource,
    *,
    max_bytes: int = MAX_INPUT_BYTES,
    domain_name: str | None = None,
    problem_name: str | None = None,
    text: bool = False,
) -> LiftedTask:
    """Read, parse, check and compile a domain and problem into a
    :class:`LiftedTask`: each a file path or PDDL text (see
    :data:`pypddlengine.sources.PDDLSource`; with ``text`` always PDDL text or
    bytes, never a file name), at most ``max_bytes`` each. Messages name them
    ``domain_name`` and ``problem_name`` when given, else by their paths
    (``<domain>``, ``<problem>`` for text read as a source).

    The cyclic garbage collector is paused meanwhile (:func:`paused_gc`):
    the tokens, model and compiled task hold no reference cycles, and its
    scans of the growing heap cost 1-4 ms of a small task's 15-40 ms."""
    (d_text, d_name), (p_text, p_name) = read_task_sources(domain, problem, max_bytes=max_bytes,
                                                           domain_name=domain_name, problem_name=problem_name,
                                                           text=text)
    with paused_gc():
        return compile_task(parse_domain(d_text, filename=d_name, max_bytes=max_bytes),
                            parse_problem(p_text, filename=p_name, max_bytes=max_bytes))


def quantified_size(lifted: LiftedTask, cond: Condition | None, variables: tuple[Parameter, ...] = ()) -> int:
    """The bindings that evaluating the NNF condition ``cond`` (under every
    binding of the effect variables ``variables``) enumerates for one
    instance: a literal counts 1, a conjunction or disjunction the sum of its
    parts, a quantifier the product of its variables' domains times its
    body, so nested quantifiers multiply."""

    def size(c: Condition) -> int:
        match c:
            case And(parts=ps) | Or(parts=ps):
                return sum(size(p) for p in ps)
            case Exists(variables=vs, body=body) | Forall(variables=vs, body=body):
                return math.prod(len(lifted._domain_of(v.types)) for v in vs) * size(body)
        return 1

    outer = math.prod(len(lifted._domain_of(v.types)) for v in variables)
    return outer * (1 + (size(cond) if cond is not None else 0)) if variables else (size(cond) if cond else 0)
