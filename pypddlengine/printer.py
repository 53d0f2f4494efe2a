"""Model to PDDL text: the round-trip partner of the parser.

``parse(print(x)) == x`` holds for every domain and problem the parser
accepts (positions and display spellings aside, which equality ignores).
Output is canonical: one section per line, lower-case keywords.
"""

from __future__ import annotations

from .exact import to_text
from .model import (
    OBJECT_TYPE,
    ActionDecl,
    Add,
    And,
    Atom,
    BinaryExpr,
    Compare,
    Condition,
    Delete,
    DerivedDecl,
    Domain,
    Effect,
    EffectAnd,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    FunctionTerm,
    Imply,
    Metric,
    Not,
    Number,
    NumericEffect,
    NumericFact,
    ObjectDecl,
    Or,
    Parameter,
    Preference,
    Problem,
    TimedLiteral,
    When,
)

__all__ = ["format_condition", "format_domain", "format_effect", "format_problem"]


def _types(types: tuple[str, ...]) -> str:
    return types[0] if len(types) == 1 else f"(either {' '.join(types)})"


def _typed(names: list[tuple[str, tuple[str, ...]]]) -> str:
    """A typed list. Untyped items are bare only at the end: a bare name before
    a ``- type`` would take that type when read back."""
    out: list[str] = []
    last_typed = max((i for i, (_, t) in enumerate(names) if t != (OBJECT_TYPE,)), default=-1)
    for i, (name, types) in enumerate(names):
        out.append(name if types == (OBJECT_TYPE,) and i > last_typed else f"{name} - {_types(types)}")
    return " ".join(out)


def _params(params: tuple[Parameter, ...]) -> str:
    return _typed([(p.name, p.types) for p in params])


def _num(expr: object) -> str:
    match expr:
        case Number(value=v):
            return to_text(v)
        case FunctionTerm():
            return str(expr)
        case BinaryExpr(op=op, left=left, right=None):
            return f"({op} {_num(left)})"
        case BinaryExpr(op=op, left=left, right=right):
            return f"({op} {_num(left)} {_num(right)})"
    raise TypeError(f"not a numeric expression: {expr!r}")


def format_condition(cond: Condition) -> str:
    match cond:
        case Atom():
            return str(cond)
        case And(parts=parts):
            return f"(and {' '.join(format_condition(p) for p in parts)})" if parts else "(and)"
        case Or(parts=parts):
            return f"(or {' '.join(format_condition(p) for p in parts)})" if parts else "(or)"
        case Not(operand=op):
            return f"(not {format_condition(op)})"
        case Imply(antecedent=a, consequent=c):
            return f"(imply {format_condition(a)} {format_condition(c)})"
        case Exists(variables=vs, body=b):
            return f"(exists ({_params(vs)}) {format_condition(b)})"
        case Forall(variables=vs, body=b):
            return f"(forall ({_params(vs)}) {format_condition(b)})"
        case Equals(left=l, right=r):
            return f"(= {l.name} {r.name})"
        case Compare(op=op, left=l, right=r):
            return f"({op} {_num(l)} {_num(r)})"
        case Preference(name=name, body=b):
            return f"(preference {name + ' ' if name else ''}{format_condition(b)})"
    raise TypeError(f"not a condition: {cond!r}")


def format_effect(eff: Effect) -> str:
    match eff:
        case Add(atom=atom):
            return str(atom)
        case Delete(atom=atom):
            return f"(not {atom})"
        case EffectAnd(parts=parts):
            return f"(and {' '.join(format_effect(p) for p in parts)})" if parts else "(and)"
        case When(condition=c, effect=e):
            return f"(when {format_condition(c)} {format_effect(e)})"
        case ForallEffect(variables=vs, effect=e):
            return f"(forall ({_params(vs)}) {format_effect(e)})"
        case NumericEffect(op=op, target=t, value=v):
            return f"({op} {t} {_num(v)})"
    raise TypeError(f"not an effect: {eff!r}")


def _objects(decls: tuple[ObjectDecl, ...]) -> str:
    return _typed([(o.name, o.types) for o in decls])


def _action(action: ActionDecl) -> str:
    lines = [f"  (:action {action.name}", f"    :parameters ({_params(action.parameters)})"]
    if action.precondition is not None:
        lines.append(f"    :precondition {format_condition(action.precondition)}")
    if action.effect is not None:
        lines.append(f"    :effect {format_effect(action.effect)}")
    return "\n".join(lines) + ")"


def _axiom(axiom: DerivedDecl) -> str:
    head = f"({axiom.predicate}{' ' if axiom.parameters else ''}{_params(axiom.parameters)})"
    return f"  (:derived {head}\n    {format_condition(axiom.body)})"


def format_domain(domain: Domain) -> str:
    """Canonical PDDL text of ``domain`` (unsupported sections are dropped)."""
    parts = [f"(define (domain {domain.name})"]
    if domain.requirements:
        parts.append(f"  (:requirements {' '.join(r.name for r in domain.requirements)})")
    if domain.types:
        parts.append(f"  (:types {_typed([(t.name, t.parents) for t in domain.types])})")
    if domain.constants:
        parts.append(f"  (:constants {_objects(domain.constants)})")
    if domain.predicates:
        preds = " ".join(
            f"({p.name}{' ' if p.parameters else ''}{_params(p.parameters)})" for p in domain.predicates
        )
        parts.append(f"  (:predicates {preds})")
    if domain.functions:
        funcs = " ".join(
            f"({f.name}{' ' if f.parameters else ''}{_params(f.parameters)}) - {f.result}" for f in domain.functions
        )
        parts.append(f"  (:functions {funcs})")
    parts.extend(_axiom(a) for a in domain.axioms)
    parts.extend(_action(a) for a in domain.actions)
    return "\n".join(parts) + ")\n"


def _init(fact: object) -> str:
    match fact:
        case Atom():
            return str(fact)
        case Not(operand=atom):
            return f"(not {atom})"
        case NumericFact(target=t, value=v):
            return f"(= {t} {_num(v)})"
        case TimedLiteral(time=t, literal=lit):
            return f"(at {_num(t)} {_init(lit)})"
    raise TypeError(f"not an init fact: {fact!r}")


def _metric(metric: Metric) -> str:
    return f"  (:metric {metric.direction} {_num(metric.expression)})"


def format_problem(problem: Problem) -> str:
    """Canonical PDDL text of ``problem``."""
    parts = [f"(define (problem {problem.name})", f"  (:domain {problem.domain_name})"]
    if problem.requirements:
        parts.append(f"  (:requirements {' '.join(r.name for r in problem.requirements)})")
    if problem.objects:
        parts.append(f"  (:objects {_objects(problem.objects)})")
    parts.append(f"  (:init {' '.join(_init(f) for f in problem.init)})")
    if problem.goal is not None:
        parts.append(f"  (:goal {format_condition(problem.goal)})")
    if problem.metric is not None:
        parts.append(_metric(problem.metric))
    return "\n".join(parts) + ")\n"
