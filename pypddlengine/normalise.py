"""The normalise stage: ADL conditions and effects in the forms that grounding
and simulation use (a layer above the model, below the lifted task).

* Conditions go to negation normal form (:func:`nnf`): ``imply`` expanded,
  negations pushed to atoms and equalities, quantifiers dualised.
* A precondition, goal or axiom body is split (:func:`split`) into its
  top-level *literals*, which the STRIPS joins of the grounder use, and a
  *residual* formula (disjunctions and quantifiers) evaluated at ground level.
  Grounding treats the residual optimistically (it never prunes a reachable
  action), so the grounding stays complete.
* An effect becomes unconditional adds and deletes (the STRIPS part) plus
  :class:`EffectRule` s, one per ``when``/``forall`` leaf: the quantified
  variables collected on the way down, the conjunction of the conditions
  met on the way down, and the atoms it adds and deletes.
* An axiom becomes one :class:`AxiomRule` per top-level disjunct of its body,
  with the body's top-level existential variables promoted to extra
  parameters (renamed apart), so that their joins are grounded like an
  action's.

A pure STRIPS action has no residual and no rules: it goes through unchanged.
"""

from __future__ import annotations

from .model import (
    Add,
    And,
    Atom,
    BinaryExpr,
    Compare,
    Condition,
    Delete,
    DerivedDecl,
    Effect,
    EffectAnd,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    FunctionTerm,
    Imply,
    Not,
    NumericEffect,
    NumExpr,
    Or,
    Parameter,
    Term,
    Variable,
    When,
)
from .usercache import dataclass

__all__ = ["AxiomRule", "EffectRule", "NormalEffect", "axiom_rules", "conjuncts",
           "expr_variables", "free_variables", "is_literal", "nnf", "normalise_effect", "split", "substitute",
           "substitute_expr"]

Literal = Atom | Not | Equals

_OPPOSITE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def is_literal(cond: Condition) -> bool:
    """An atom, an equality, or the negation of either."""
    return isinstance(cond, (Atom, Equals)) or (isinstance(cond, Not) and isinstance(cond.operand, (Atom, Equals)))


def nnf(cond: Condition, negate: bool = False) -> Condition:
    """``cond`` (negated when ``negate``) in negation normal form, with
    nested conjunctions and disjunctions flattened."""
    match cond:
        case Atom() | Equals():
            return Not(cond, cond.span) if negate else cond
        case Compare(op=op, left=left, right=right):
            # numbers are totally ordered: a negated comparison is the opposite comparison
            # (only "not =" stays a negation)
            if not negate:
                return cond
            if op == "=":
                return Not(cond, cond.span)
            return Compare(_OPPOSITE[op], left, right, cond.span)
        case Not(operand=inner):
            return nnf(inner, not negate)
        case And(parts=parts) | Or(parts=parts):
            conj = isinstance(cond, And) != negate
            out: list[Condition] = []
            for part in parts:
                n = nnf(part, negate)
                if isinstance(n, And if conj else Or):
                    out.extend(n.parts)  # type: ignore[union-attr]
                else:
                    out.append(n)
            if len(out) == 1:
                return out[0]
            return And(tuple(out), cond.span) if conj else Or(tuple(out), cond.span)
        case Imply(antecedent=a, consequent=c):
            return nnf(Or((Not(a, cond.span), c), cond.span), negate)
        case Exists(variables=vs, body=body):
            body = nnf(body, negate)
            return Forall(vs, body, cond.span) if negate else Exists(vs, body, cond.span)
        case Forall(variables=vs, body=body):
            body = nnf(body, negate)
            return Exists(vs, body, cond.span) if negate else Forall(vs, body, cond.span)
    raise TypeError(f"not a supported condition: {cond!r}")  # the checker rejected the rest


def conjuncts(cond: Condition | None) -> list[Condition]:
    """The top-level conjuncts of ``cond`` (none for ``None`` or ``(and)``)."""
    if cond is None:
        return []
    if isinstance(cond, And):
        out: list[Condition] = []
        for part in cond.parts:
            out.extend(conjuncts(part))
        return out
    return [cond]


def split(cond: Condition | None) -> tuple[list[Condition], Condition | None]:
    """``(literals, residual)`` of the NNF of ``cond``: its top-level literal
    conjuncts, and the conjunction of the others (``None`` when there are none)."""
    if cond is None:
        return [], None
    literals: list[Condition] = []
    rest: list[Condition] = []
    for part in conjuncts(nnf(cond)):
        (literals if is_literal(part) else rest).append(part)
    if not rest:
        return literals, None
    return literals, rest[0] if len(rest) == 1 else And(tuple(rest))


# ----------------------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class EffectRule:
    """One conditional or quantified effect: for every binding of
    ``variables`` (over their types) under which ``condition`` holds in the
    state before the step, ``adds`` become true and ``deletes`` false
    (deletes first, as for the unconditional effects), and ``numeric``
    applies once for that binding. ``index`` numbers the rules of an action
    in source order."""

    index: int
    variables: tuple[Parameter, ...]
    condition: Condition | None
    adds: tuple[Atom, ...]
    deletes: tuple[Atom, ...]
    source: Effect
    numeric: tuple[NumericEffect, ...] = ()
    """Numeric effects under the same condition and variables (all read the state before the step)."""


@dataclass(frozen=True, slots=True)
class NormalEffect:
    """An effect split into plain adds and deletes, numeric effects and rules."""

    adds: tuple[Atom, ...]
    deletes: tuple[Atom, ...]
    numeric: tuple[NumericEffect, ...]
    rules: tuple[EffectRule, ...]


def normalise_effect(eff: Effect | None) -> NormalEffect:
    """Unconditional adds, deletes and numeric effects, and the
    :class:`EffectRule` s of ``eff`` (see the module docstring)."""
    adds: list[Atom] = []
    deletes: list[Atom] = []
    numeric: list[NumericEffect] = []
    rules: list[EffectRule] = []

    def walk(e: Effect, variables: tuple[Parameter, ...], conds: tuple[Condition, ...], top: Effect | None) -> None:
        match e:
            case EffectAnd(parts=parts):
                for part in parts:
                    walk(part, variables, conds, top)
            case When(condition=c, effect=inner):
                walk(inner, variables, (*conds, c), top or e)
            case ForallEffect(variables=vs, effect=inner):
                walk(inner, (*variables, *vs), conds, top or e)
            case NumericEffect() | Add() | Delete():
                if not variables and not conds:
                    if isinstance(e, NumericEffect):
                        numeric.append(e)
                    else:
                        (adds if isinstance(e, Add) else deletes).append(e.atom)
                    return
                add = (e.atom,) if isinstance(e, Add) else ()
                delete = (e.atom,) if isinstance(e, Delete) else ()
                num = (e,) if isinstance(e, NumericEffect) else ()
                cond = None if not conds else nnf(conds[0] if len(conds) == 1 else And(conds))
                key = (variables, cond, id(top))
                last = rules[-1] if rules else None
                if last is not None and (last.variables, last.condition, id(last.source)) == key:
                    # one rule per when/forall leaf group: merge the effects of "(when c (and e1 e2))"
                    rules[-1] = EffectRule(last.index, variables, cond, (*last.adds, *add), (*last.deletes, *delete),
                                           last.source, (*last.numeric, *num))
                    return
                rules.append(EffectRule(len(rules), variables, cond, add, delete, top or e, num))

    if eff is not None:
        walk(eff, (), (), None)
    return NormalEffect(tuple(adds), tuple(deletes), tuple(numeric), tuple(rules))


# ----------------------------------------------------------------------------- axioms


@dataclass(frozen=True, slots=True)
class AxiomRule:
    """One disjunct of an axiom body: ``head`` holds when, for some binding
    of ``parameters[len(head params):]``, the ``literals`` and ``residual`` hold."""

    axiom: DerivedDecl
    parameters: tuple[Parameter, ...]
    literals: tuple[Condition, ...]
    residual: Condition | None


def substitute(cond: Condition, names: dict[str, Term]) -> Condition:
    """``cond`` with its free variables in ``names`` replaced (bound ones kept)."""
    def term(t: Term) -> Term:
        return names[t.name] if isinstance(t, Variable) and t.name in names else t

    match cond:
        case Atom(predicate=p, terms=ts):
            return Atom(p, tuple(term(t) for t in ts), cond.span)
        case Equals(left=a, right=b):
            return Equals(term(a), term(b), cond.span)
        case Not(operand=x):
            return Not(substitute(x, names), cond.span)
        case And(parts=ps):
            return And(tuple(substitute(p, names) for p in ps), cond.span)
        case Or(parts=ps):
            return Or(tuple(substitute(p, names) for p in ps), cond.span)
        case Imply(antecedent=a, consequent=c):
            return Imply(substitute(a, names), substitute(c, names), cond.span)
        case Exists(variables=vs, body=b) | Forall(variables=vs, body=b):
            bound = {v.name for v in vs}
            inner = {k: v for k, v in names.items() if k not in bound}
            return type(cond)(vs, substitute(b, inner), cond.span)
        case Compare(op=op, left=left, right=right):
            return Compare(op, substitute_expr(left, names), substitute_expr(right, names), cond.span)
    raise TypeError(f"not a normalised condition: {cond!r}")


def substitute_expr(expr: NumExpr, names: dict[str, Term]) -> NumExpr:
    """A numeric expression with its variables in ``names`` replaced."""
    match expr:
        case FunctionTerm(name=name, terms=ts):
            return FunctionTerm(name, tuple(names[t.name] if isinstance(t, Variable) and t.name in names else t
                                            for t in ts), expr.span)
        case BinaryExpr(op=op, left=left, right=right):
            return BinaryExpr(op, substitute_expr(left, names),
                              None if right is None else substitute_expr(right, names), expr.span)
    return expr


def expr_variables(expr: NumExpr, out: dict[str, None]) -> None:
    """Add the variables a numeric expression reads to ``out`` (in order)."""
    match expr:
        case FunctionTerm(terms=ts):
            out.update((t.name, None) for t in ts if isinstance(t, Variable))
        case BinaryExpr(left=left, right=right):
            expr_variables(left, out)
            if right is not None:
                expr_variables(right, out)


def axiom_rules(axiom: DerivedDecl, cap: int = 64) -> list[AxiomRule]:
    """The :class:`AxiomRule` s of one axiom: the body in disjunctive normal
    form over its top-level structure (a disjunction in a conjunction is
    distributed, an existential is promoted to parameters, renamed apart),
    so that each rule's atoms bind its variables through joins. A
    disjunction that would take the axiom past ``cap`` rules stays in the
    rule's residual instead."""
    work: list[tuple[list[Condition], list[Condition], list[Parameter]]] = [
        (conjuncts(nnf(axiom.body)), [], list(axiom.parameters))
    ]
    done: list[tuple[list[Condition], list[Condition], list[Parameter]]] = []
    fresh = 0
    while work:
        parts, kept, params = work.pop()
        at = next((i for i, p in enumerate(parts) if isinstance(p, (Or, Exists))), None)
        if at is None:
            done.append((parts, kept, params))
            continue
        part, rest = parts[at], parts[:at] + parts[at + 1:]
        if isinstance(part, Exists):
            names: dict[str, Term] = {}
            new: list[Parameter] = []
            for v in part.variables:
                fresh += 1
                names[v.name] = Variable(f"{v.name}~{fresh}")
                new.append(Parameter(f"{v.name}~{fresh}", v.types, v.span))
            work.append((rest + conjuncts(substitute(part.body, names)), kept, params + new))
        elif len(done) + len(work) + len(part.parts) > cap:  # type: ignore[union-attr]
            work.append((rest, [*kept, part], params))
        else:
            for disjunct in reversed(part.parts):  # type: ignore[union-attr]
                work.append((rest + conjuncts(disjunct), list(kept), list(params)))
    out: list[AxiomRule] = []
    for parts, kept, params in done:
        literals = tuple(p for p in parts if is_literal(p))
        rest_parts = [p for p in parts if not is_literal(p)] + kept
        residual = None if not rest_parts else rest_parts[0] if len(rest_parts) == 1 else And(tuple(rest_parts))
        out.append(AxiomRule(axiom, tuple(params), literals, residual))
    return out


def free_variables(cond: Condition) -> tuple[str, ...]:
    """The variables ``cond`` uses without binding them, in first-use order."""
    out: dict[str, None] = {}

    def walk(c: Condition, bound: frozenset[str]) -> None:
        match c:
            case Atom(terms=ts):
                out.update((t.name, None) for t in ts if isinstance(t, Variable) and t.name not in bound)
            case Equals(left=a, right=b):
                out.update((t.name, None) for t in (a, b) if isinstance(t, Variable) and t.name not in bound)
            case Compare(left=a, right=b):
                found: dict[str, None] = {}
                expr_variables(a, found)
                expr_variables(b, found)
                out.update((v, None) for v in found if v not in bound)
            case Not(operand=x):
                walk(x, bound)
            case And(parts=ps) | Or(parts=ps):
                for part in ps:
                    walk(part, bound)
            case Imply(antecedent=a, consequent=b):
                walk(a, bound)
                walk(b, bound)
            case Exists(variables=vs, body=b) | Forall(variables=vs, body=b):
                walk(b, bound | {v.name for v in vs})

    walk(cond, frozenset())
    return tuple(out)
