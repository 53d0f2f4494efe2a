"""Semantic checks of a parsed domain and problem.

One pass over the immutable model collects every diagnostic it can (like a
compiler), each a typed error with a stable code, a span and the source it
points into: undefined predicates, types, objects, constants and variables,
arity and type mismatches, duplicates, missing or repeated sections, a problem
naming another domain, :derived rules whose negation runs through a cycle
(:func:`negative_cycle`), and every PDDL feature the engine does not support
(:class:`UnsupportedRequirementError`, naming the feature and where it is
first used). Features are detected from use, not from ``:requirements``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field

from .errors import (
    ErrorCode,
    PDDLError,
    PDDLSemanticError,
    PDDLSyntaxError,
    SourceFile,
    Span,
    UnsupportedRequirementError,
)
from .features import (
    FEATURE_INFO,
    KNOWN_REQUIREMENTS,
    SUPPORTED_FEATURES,
    SUPPORTED_REQUIREMENTS,
    describe_feature,
)
from .hierarchy import TypeTable
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
    DurationVar,
    DurativeActionDecl,
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
    NumExpr,
    ObjectDecl,
    Or,
    Parameter,
    Preference,
    Problem,
    Term,
    TimedLiteral,
    UnsupportedConstruct,
    Variable,
    When,
)
from .syntax import KNOWN_DOMAIN_SECTIONS, KNOWN_PROBLEM_SECTIONS
from .usercache import dataclass

__all__ = ["NUMBER_TYPES", "TOTAL_COST", "TOTAL_TIME", "CheckReport", "PDDLWarning", "axiom_levels", "check",
           "ensure_valid", "is_action_cost", "negative_cycle", "term_span"]

TOTAL_COST = "total-cost"
TOTAL_TIME = "total-time"
"""In a sequential plan, the number of steps (VAL's value); usable in a metric without a declaration."""
NUMBER_TYPES = ("number", "int", "float")
"""Result types of numeric functions (``- number``, and the two older spellings)."""


def is_action_cost(eff: NumericEffect) -> bool:
    """Whether ``eff`` is an action cost in the sense of ``:action-costs``:
    ``(increase (total-cost) e)`` with ``e`` a number or a function term
    (whose values the checker requires to be static, non-negative costs)."""
    return (eff.op == "increase" and eff.target.name == TOTAL_COST and not eff.target.terms
            and isinstance(eff.value, (Number, FunctionTerm)))


_is_action_cost = is_action_cost

_AT_WORDS = {"start": "at start", "end": "at end", "all": "over all"}
TEMPORAL_FEATURES = frozenset({"durative-actions", "duration-inequalities", "timed-initial-literals"})
"""Features the temporal stage supports on top of :data:`SUPPORTED_FEATURES`."""
_TEMPORAL_HINT = ("a temporal task is read by the temporal stage: 'pypddl validate' checks its timed plans, "
                  "pypddlengine.temporal_session.TemporalSession steps through time (docs/time.md); this use of the "
                  "engine takes no durative actions or timed initial literals")
_TEMPORAL_REQUIREMENTS = frozenset({":durative-actions", ":duration-inequalities", ":timed-initial-literals"})

_SINGLE_DOMAIN_SECTIONS = (":requirements", ":types", ":constants", ":predicates", ":functions")
_SINGLE_PROBLEM_SECTIONS = (":domain", ":requirements", ":objects", ":init", ":goal", ":metric")
_UNSUPPORTED_SECTIONS = {
    ":durative-action": "durative-actions",
    ":constraints": "constraints",
    ":process": "processes-and-events",
    ":event": "processes-and-events",
}


class PDDLWarning(PDDLError):
    """A diagnostic that does not stop the task from being used (never raised)."""

    default_code = "WARNING"

    def headline(self) -> str:
        loc = self.location
        head = f"warning[{self.code}]: {self.message}"
        return f"{loc}: {head}" if loc else head


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check` found. ``errors`` are ordered unsupported features
    first (they often explain the rest), then by position."""

    errors: tuple[PDDLError, ...]
    warnings: tuple[PDDLWarning, ...]
    features: frozenset[str]
    types: TypeTable = field(repr=False)
    uses_action_costs: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_first(self) -> None:
        if self.errors:
            raise self.errors[0]


def term_span(atom_span: Span | None, index: int, source: SourceFile | None) -> Span | None:
    """The position of term ``index`` of an atom whose terms carry no span
    (atoms lexed as one token): re-read from the source line."""
    if atom_span is None or source is None or atom_span.line != atom_span.end_line:
        return atom_span
    line = source.line_text(atom_span.line)
    text = line[atom_span.column - 1 : atom_span.end_column - 1]
    words = list(re.finditer(r"[^\s()]+", text))
    if index + 1 < len(words):
        m = words[index + 1]
        col = atom_span.column + m.start()
        return Span(atom_span.line, col, atom_span.line, col + len(m.group()))
    return atom_span


def _suggest(name: str, options: list[str] | set[str] | frozenset[str]) -> str | None:
    import difflib

    close = difflib.get_close_matches(name, sorted(options), n=1, cutoff=0.75)
    return f"did you mean '{close[0]}'?" if close else None


class _Checker:
    def __init__(self, domain: Domain, problem: Problem | None, temporal: bool = False) -> None:
        self.domain = domain
        self.problem = problem
        self.errors: list[PDDLError] = []
        self.warnings: list[PDDLWarning] = []
        self.features: dict[str, tuple[Span | None, SourceFile | None]] = {}
        self.source: SourceFile | None = domain.source
        self.types = TypeTable.build(domain)
        self.predicates: dict[str, tuple[tuple[str, ...], ...]] = {}
        self.functions: dict[str, tuple[tuple[str, ...], ...]] = {}
        self.constants: dict[str, tuple[str, ...]] = {}
        self.objects: dict[str, tuple[str, ...]] = {}
        self.action_costs = False
        self.object_functions: set[str] = set()
        self.assigned: dict[str, Span | None] = {}
        """Functions some effect changes (the others are static), with the first such effect."""
        self.cost_functions: dict[str, Span | None] = {}
        """Functions read as action costs ``(increase (total-cost) (f ...))``."""
        self._untyped_warned = False
        self.reads: dict[str, tuple[Span | None, SourceFile | None]] = {}
        """Functions an action reads (in a condition, a value, or the target of increase ...), with the first read."""
        self.readers: dict[str, set[str]] = {}
        """Function -> the actions that read it."""
        self.assigners: dict[str, set[str]] = {}
        """Function -> the actions that assign it (one that does not also read it can give it a value first)."""
        self._action_name = ""
        self.derived: set[str] = {a.predicate for a in domain.axioms}
        self._agree: dict[tuple[tuple[str, ...], tuple[str, ...], bool], bool] = {}
        # (object, declared argument types) pairs already found to agree in a ground atom: an :init
        # repeats a few pairs thousands of times, and each agreeing pair reports nothing
        self._ground_fits: set[tuple[str, tuple[str, ...]]] = set()
        self._in_durative = False
        self.temporal = temporal

    # ------------------------------------------------------------------ reporting

    def error(self, cls: type[PDDLError], code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        self.errors.append(cls(message, code=code, span=span, source=self.source, hint=hint))

    def warn(self, code: str, message: str, span: Span | None) -> None:
        self.warnings.append(PDDLWarning(message, code=code, span=span, source=self.source))

    def feature(self, name: str, span: Span | None) -> None:
        if name not in self.features:
            self.features[name] = (span, self.source)

    # ------------------------------------------------------------------ domain

    def check_domain(self) -> None:
        d = self.domain
        self._sections(d.section_spans, _SINGLE_DOMAIN_SECTIONS, "domain")
        self._requirements(d.requirements)
        for construct in d.unsupported:
            self._other_section(construct)
        self._types()
        for const in d.constants:
            self._declare_object(const, self.constants, "constant")
        for pred in d.predicates:
            if pred.name in self.predicates:
                self.error(PDDLSemanticError, ErrorCode.DUPLICATE_DEFINITION,
                           f"the predicate '{pred.display or pred.name}' is declared twice", pred.span)
                continue
            self._parameters(pred.parameters, f"predicate '{pred.name}'")
            self.predicates[pred.name] = tuple(p.types for p in pred.parameters)
        for func in d.functions:
            if func.name in self.functions:
                self.error(PDDLSemanticError, ErrorCode.DUPLICATE_DEFINITION,
                           f"the function '{func.display or func.name}' is declared twice", func.span)
                continue
            self._parameters(func.parameters, f"function '{func.name}'")
            if func.result not in NUMBER_TYPES:
                self.feature("object-fluents", func.span)
                self.object_functions.add(func.name)
            self.functions[func.name] = tuple(p.types for p in func.parameters)
        for axiom in d.axioms:
            self._axiom(axiom)
        if d.axioms:
            self._stratification(d)
        seen: set[str] = set()
        declared: tuple[ActionDecl | DurativeActionDecl, ...] = (*d.actions, *d.durative_actions)
        for action in declared:  # one name space for plain and durative actions
            if action.name in seen:
                self.error(PDDLSemanticError, ErrorCode.DUPLICATE_DEFINITION,
                           f"the action '{action.display or action.name}' is declared twice", action.span)
            seen.add(action.name)
            if isinstance(action, DurativeActionDecl):
                self._durative_action(action)
            else:
                self._action(action)

    def _sections(self, spans: tuple[tuple[str, Span], ...], single: tuple[str, ...], what: str) -> None:
        counts: dict[str, int] = {}
        for kind, span in spans:
            counts[kind] = counts.get(kind, 0) + 1
            if kind in single and counts[kind] == 2:
                self.error(PDDLSyntaxError, ErrorCode.DUPLICATE_SECTION,
                           f"the {what} has more than one {kind} section", span,
                           hint=f"merge the {kind} sections into one")

    def _other_section(self, construct: UnsupportedConstruct) -> None:
        keyword, span = construct.keyword, construct.span
        feature = _UNSUPPORTED_SECTIONS.get(keyword)
        if feature is not None:
            self.feature(feature, span)
            if construct.continuous is not None:
                self.feature("continuous-effects", construct.continuous)
            return
        known = [*_UNSUPPORTED_SECTIONS, *KNOWN_DOMAIN_SECTIONS, *KNOWN_PROBLEM_SECTIONS]
        self.error(PDDLSyntaxError, ErrorCode.UNKNOWN_SECTION, f"unknown section '{keyword}'", span,
                   hint=_suggest(keyword, known))

    def _requirements(self, reqs: tuple) -> None:
        for req in reqs:
            if req.name not in KNOWN_REQUIREMENTS:
                self.error(PDDLSemanticError, ErrorCode.UNKNOWN_REQUIREMENT,
                           f"unknown requirement '{req.name}'", req.span,
                           hint=_suggest(req.name, KNOWN_REQUIREMENTS))

    def _types(self) -> None:
        declared: dict[str, Span | None] = {}
        for decl in self.domain.types:
            self.feature("typing", decl.span)
            if decl.name == OBJECT_TYPE:
                continue
            if decl.name in declared:
                self.warn(ErrorCode.DUPLICATE_DEFINITION,
                          f"the type '{decl.display or decl.name}' is declared more than once; its parents are merged",
                          decl.span)
            declared[decl.name] = decl.span
        cycle = self.types.find_cycle()
        if cycle:
            first = next((d for d in self.domain.types if d.name == cycle[0]), None)
            self.error(PDDLSemanticError, ErrorCode.TYPE_CYCLE,
                       "the type hierarchy has a cycle: " + " -> ".join(cycle), first.span if first else None)

    def _check_type_names(self, types: tuple[str, ...], span: Span | None, owner: str = "",
                          type_spans: tuple[Span, ...] = ()) -> bool:
        ok = True
        for i, t in enumerate(types):
            if t not in self.types:
                ok = False
                where = type_spans[i] if i < len(type_spans) else span  # the caret under the type itself
                self.error(PDDLSemanticError, ErrorCode.UNDEFINED_TYPE, f"undefined type '{t}'{owner}", where,
                           hint=_suggest(t, set(self.types.names())) or "declare it in :types")
        if types != (OBJECT_TYPE,):
            self.feature("typing", span)
        return ok

    def _parameters(self, params: tuple[Parameter, ...], owner: str) -> None:
        seen: set[str] = set()
        for p in params:
            if p.name in seen:
                message = f"the parameter '{p.name}' of {owner} is declared twice"
                if owner.startswith(("predicate", "function")):
                    # harmless in a declaration (logistics00 has '(in ?obj ?obj)')
                    self.warn(ErrorCode.DUPLICATE_DEFINITION, message, p.span)
                else:
                    self.error(PDDLSemanticError, ErrorCode.DUPLICATE_DEFINITION, message, p.span)
            seen.add(p.name)
            self._check_type_names(p.types, p.span, type_spans=p.type_spans)

    def _declare_object(self, decl: ObjectDecl, table: dict[str, tuple[str, ...]], kind: str) -> None:
        if kind == "object" and not self.domain.types and decl.types != (OBJECT_TYPE,):
            # An untyped domain cannot tell types apart, so typed objects are
            # harmless there (planning.domains' larger blocks problems do this).
            if not self._untyped_warned:
                self._untyped_warned = True
                self.warn(ErrorCode.UNDEFINED_TYPE,
                          f"the domain declares no types; the object type '{_types(decl.types)}' is read as 'object'",
                          decl.span)
            decl = ObjectDecl(decl.name, (OBJECT_TYPE,), decl.span, decl.display)
        else:
            self._check_type_names(decl.types, decl.span, f" (the type of {kind} '{decl.display or decl.name}')",
                                   decl.type_spans)
        if decl.name in table:
            # VAL reads a second declaration as a second type: the object belongs to each (IPC 2011 Temporal
            # Machine Shop writes 'kiln0 - kiln8' and 'kiln0 - kiln20'); the lifted task does the same
            before = table[decl.name]
            merged = tuple(dict.fromkeys((*before, *decl.types)))
            also = "" if merged == before else \
                f"; it belongs to each of its types ({', '.join(merged)}), as VAL reads it"
            self.warn(ErrorCode.DUPLICATE_DEFINITION,
                      f"the {kind} '{decl.display or decl.name}' is declared twice{also}", decl.span)
            table[decl.name] = merged
            return
        table[decl.name] = decl.types

    # ------------------------------------------------------------------ actions

    def _action(self, action: ActionDecl) -> None:
        self._action_name = action.name
        self._parameters(action.parameters, f"action '{action.name}'")
        scope = {p.name: p.types for p in action.parameters}
        if action.precondition is not None:
            self._condition(action.precondition, scope, "precondition", lifted=True)
        if action.effect is not None:
            self._effect(action.effect, scope)

    def _durative_action(self, action: DurativeActionDecl) -> None:
        """A ``:durative-action``: its parts are checked as an action's are,
        ``?duration`` being a number inside it (and nowhere else)."""
        self.feature("durative-actions", action.span)
        self._parameters(action.parameters, f"durative action '{action.name}'")
        scope = {p.name: p.types for p in action.parameters}
        self._in_durative = True
        try:
            if len(action.duration) > 1 or any(d.op != "=" for d in action.duration):
                self.feature("duration-inequalities", action.duration[0].span if action.duration else action.span)
            for constraint in action.duration:
                self._num_expr(constraint.value, scope, lifted=True)
            for timed in action.conditions:
                self._condition(timed.condition, scope, f"condition {_AT_WORDS[timed.at]}", lifted=True)
            for effect in action.effects:
                if effect.at == "cross-time":
                    self.feature("cross-time-conditional-effects", effect.span)
                    continue
                if effect.at == "continuous" or _continuous(effect.effect):
                    self.feature("continuous-effects", _continuous(effect.effect) or effect.span)
                    continue
                self._effect(effect.effect, scope)
        finally:
            self._in_durative = False

    def _axiom(self, axiom: DerivedDecl) -> None:
        self.feature("derived-predicates", axiom.span)
        name = axiom.display or axiom.predicate
        self._parameters(axiom.parameters, f"derived predicate '{name}'")
        declared = self.predicates.get(axiom.predicate)
        if declared is None:
            self.error(PDDLSemanticError, ErrorCode.UNDEFINED_PREDICATE,
                       f"the derived predicate '{name}' is not declared in :predicates", axiom.span,
                       hint="declare it in :predicates like any other predicate")
        elif len(declared) != len(axiom.parameters):
            self.error(PDDLSemanticError, ErrorCode.ARITY_MISMATCH,
                       f"the predicate '{name}' takes {len(declared)} argument(s), "
                       f"but its :derived head has {len(axiom.parameters)}", axiom.span)
        scope = {p.name: p.types for p in axiom.parameters}
        self._condition(axiom.body, scope, "body of a derived predicate", lifted=True)

    def _stratification(self, d: Domain) -> None:
        name = negative_cycle(d)
        if name is None:
            return
        cyclic = next(a for a in d.axioms if a.predicate == name)
        self.error(PDDLSemanticError, ErrorCode.UNSTRATIFIABLE_AXIOMS,
                   f"the derived predicates are not stratifiable: '{cyclic.display or cyclic.predicate}' depends "
                   "negatively on itself through a cycle of derived predicates", cyclic.span,
                   hint="negation in :derived bodies must not run through a cycle of derived predicates")

    def _condition(self, cond: Condition, scope: dict[str, tuple[str, ...]], where: str, *, lifted: bool) -> None:
        match cond:
            case Atom():
                if lifted or scope:
                    self._atom(cond, scope, where, lifted=lifted)
                else:
                    self._ground_atom(cond, where)
            case And(parts=parts):
                for part in parts:
                    self._condition(part, scope, where, lifted=lifted)
            case Not(operand=Atom() as atom):
                self.feature("negative-preconditions", cond.span)
                self._atom(atom, scope, where, lifted=lifted)
            case Not(operand=Equals() as eq):
                self.feature("equality", cond.span)
                self._equals(eq, scope, where, lifted=lifted)
            case Not(operand=inner):
                self.feature("disjunctive-preconditions", cond.span)
                self._condition(inner, scope, where, lifted=lifted)
            case Equals():
                self.feature("equality", cond.span)
                self._equals(cond, scope, where, lifted=lifted)
            case Or(parts=parts):
                self.feature("disjunctive-preconditions", cond.span)
                for part in parts:
                    self._condition(part, scope, where, lifted=lifted)
            case Imply(antecedent=a, consequent=c):
                self.feature("disjunctive-preconditions", cond.span)
                self._condition(a, scope, where, lifted=lifted)
                self._condition(c, scope, where, lifted=lifted)
            case Exists(variables=vs, body=body) | Forall(variables=vs, body=body):
                self.feature("existential-preconditions" if isinstance(cond, Exists) else "universal-preconditions",
                             cond.span)
                self._parameters(vs, "a quantifier")
                inner_scope = dict(scope)
                inner_scope.update({v.name: v.types for v in vs})
                self._condition(body, inner_scope, where, lifted=lifted)
            case Compare(left=left, right=right):
                self.feature("numeric-fluents", cond.span)
                self._num_expr(left, scope, lifted=lifted)
                self._num_expr(right, scope, lifted=lifted)
            case Preference(body=body):
                self.feature("preferences", cond.span)
                self._condition(body, scope, where, lifted=lifted)

    def _effect(self, eff: Effect, scope: dict[str, tuple[str, ...]]) -> None:
        match eff:
            case Add(atom=atom) | Delete(atom=atom):
                if atom.predicate in self.derived:
                    self.error(PDDLSemanticError, ErrorCode.INVALID_EFFECT,
                               f"the derived predicate '{atom.predicate}' cannot be changed by an effect", atom.span,
                               hint="derived predicates are computed by their :derived rules after every step")
                    return
                self._atom(atom, scope, "effect", lifted=True)
            case EffectAnd(parts=parts):
                for part in parts:
                    self._effect(part, scope)
            case When(condition=c, effect=e):
                self.feature("conditional-effects", eff.span)
                self._condition(c, scope, "effect condition", lifted=True)
                self._effect(e, scope)
            case ForallEffect(variables=vs, effect=e):
                self.feature("universal-effects", eff.span)
                self._parameters(vs, "a quantified effect")
                inner = dict(scope)
                inner.update({v.name: v.types for v in vs})
                self._effect(e, inner)
            case NumericEffect():
                self._numeric_effect(eff, scope)

    def _numeric_effect(self, eff: NumericEffect, scope: dict[str, tuple[str, ...]]) -> None:
        target, value = eff.target, eff.value
        self.assigned.setdefault(target.name, eff.span)
        if eff.op == "assign":
            self.assigners.setdefault(target.name, set()).add(self._action_name)
        else:  # increase, decrease, scale-up/down read the value they change
            self._read(target)
        if not _is_action_cost(eff):
            self.feature("numeric-fluents", eff.span)
            self._function_term(target, scope, lifted=True)
            self._num_expr(value, scope, lifted=True)
            return
        if TOTAL_COST not in self.functions:
            self.warn(ErrorCode.UNDEFINED_FUNCTION,
                      "'total-cost' is used but not declared in :functions", target.span)
        self.feature("action-costs", eff.span)
        self.action_costs = True
        if isinstance(value, FunctionTerm):
            self.cost_functions.setdefault(value.name, eff.span)
        match value:
            case Number(value=v):
                if v < 0:
                    self.error(PDDLSemanticError, ErrorCode.INVALID_COST,
                               f"an action cost must not be negative (got {v})", value.span)
            case FunctionTerm() if value.name != TOTAL_COST:
                self._function_term(value, scope, lifted=True)
            case _:
                self._refuse_non_static_cost(eff)

    def _refuse_non_static_cost(self, eff: NumericEffect) -> None:
        """An action cost that cannot be computed from numbers and static
        :init values alone, such as a read of ``(total-cost)`` itself
        (``(increase (total-cost) (total-cost))``), makes the task a numeric
        one: ``total-cost`` is then a fluent like any other, read in the state
        before the step (issue 20; before numeric fluents this was refused)."""
        self.feature("numeric-fluents", eff.span)

    def _num_expr(self, expr: NumExpr, scope: dict[str, tuple[str, ...]], *, lifted: bool) -> None:
        """Check every function term of a numeric expression."""
        match expr:
            case DurationVar() if not self._in_durative:
                self.error(PDDLSemanticError, ErrorCode.UNDEFINED_VARIABLE,
                           "?duration stands for a number only inside a durative action", expr.span)
            case FunctionTerm():
                self._function_term(expr, scope, lifted=lifted, read=True)
            case BinaryExpr(left=left, right=right):
                self._num_expr(left, scope, lifted=lifted)
                if right is not None:
                    self._num_expr(right, scope, lifted=lifted)

    def _function_term(self, term: FunctionTerm, scope: dict[str, tuple[str, ...]], *, lifted: bool,
                       read: bool = False) -> None:
        if term.name.startswith("?"):  # "(= (f ?x) ?y)": a variable where a number is needed
            self.error(PDDLSemanticError, ErrorCode.TYPE_MISMATCH,
                       f"the variable '{term.name}' stands for an object, not a number", term.span,
                       hint="compare objects with (= ?x ?y); numeric terms are numbers or (function args ...)")
            return
        if term.name not in self.functions:
            if term.name == TOTAL_COST:
                return  # the checker warns where it is increased
            hint = _suggest(term.name, set(self.functions))
            if hint is None and not term.terms and (term.name in self.objects or term.name in self.constants):
                hint = f"'{term.name}' is an object; a function term is written '(name args ...)'"
            self.error(PDDLSemanticError, ErrorCode.UNDEFINED_FUNCTION, f"undefined function '{term.name}'",
                       term.span, hint=hint or "declare it in :functions")
            return
        if read and term.name in self.object_functions:
            self.error(PDDLSemanticError, ErrorCode.TYPE_MISMATCH,
                       f"the function '{term.name}' has object values, so it cannot be used as a number", term.span)
        if read and lifted:
            self._read(term)
        expected = self.functions[term.name]
        if len(expected) != len(term.terms):
            self.error(PDDLSemanticError, ErrorCode.ARITY_MISMATCH,
                       f"the function '{term.name}' takes {len(expected)} argument(s), not {len(term.terms)}",
                       term.span)
            return
        for i, (t, exp) in enumerate(zip(term.terms, expected, strict=True)):
            self._term(t, exp, scope, term.span, i, f"function '{term.name}'", lifted=lifted)

    def _read(self, term: FunctionTerm) -> None:
        self.reads.setdefault(term.name, (term.span, self.source))
        self.readers.setdefault(term.name, set()).add(self._action_name)

    # ------------------------------------------------------------------ atoms and terms

    def _atom(self, atom: Atom, scope: dict[str, tuple[str, ...]], where: str, *, lifted: bool) -> None:
        expected = self.predicates.get(atom.predicate)
        if expected is None:
            if atom.predicate == "=":
                return
            self.error(PDDLSemanticError, ErrorCode.UNDEFINED_PREDICATE,
                       f"undefined predicate '{atom.predicate}' in the {where}", atom.span,
                       hint=_suggest(atom.predicate, set(self.predicates)) or "declare it in :predicates")
            return
        if len(expected) != len(atom.terms):
            self.error(PDDLSemanticError, ErrorCode.ARITY_MISMATCH,
                       f"the predicate '{atom.predicate}' takes {len(expected)} argument(s), "
                       f"but {atom} has {len(atom.terms)}", atom.span)
            return
        for i, (term, exp) in enumerate(zip(atom.terms, expected, strict=True)):
            self._term(term, exp, scope, atom.span, i, f"predicate '{atom.predicate}'", lifted=lifted)

    def _equals(self, eq: Equals, scope: dict[str, tuple[str, ...]], where: str, *, lifted: bool) -> None:
        for i, term in enumerate((eq.left, eq.right)):
            self._term(term, (OBJECT_TYPE,), scope, eq.span, i, "'='", lifted=lifted)

    def _term(self, term: Term, expected: tuple[str, ...], scope: dict[str, tuple[str, ...]],
              atom_span: Span | None, index: int, owner: str, *, lifted: bool) -> None:
        if isinstance(term, Variable):
            types = scope.get(term.name)
            if types is None:
                self.error(PDDLSemanticError, ErrorCode.UNDEFINED_VARIABLE,
                           f"the variable '{term.name}' is not a parameter here",
                           self._term_span(term, atom_span, index), hint=_suggest(term.name, set(scope)))
                return
            if not self._types_agree(types, expected, variable=True):
                self.error(PDDLSemanticError, ErrorCode.TYPE_MISMATCH,
                           f"argument {index + 1} of {owner} must be of type {_types(expected)}, "
                           f"but '{term.name}' is of type {_types(types)}", self._term_span(term, atom_span, index))
            return
        types = self.constants.get(term.name)
        if types is None and not lifted:
            types = self.objects.get(term.name)
        if types is None:
            if lifted:
                self.error(PDDLSemanticError, ErrorCode.UNDEFINED_OBJECT,
                           f"the constant '{term.name}' is not declared in the domain's :constants",
                           self._term_span(term, atom_span, index), hint=_suggest(term.name, set(self.constants)))
            else:
                names = set(self.objects) | set(self.constants)
                self.error(PDDLSemanticError, ErrorCode.UNDEFINED_OBJECT, f"undefined object '{term.name}'",
                           self._term_span(term, atom_span, index),
                           hint=_suggest(term.name, names) or "declare it in :objects")
            return
        if not self._types_agree(types, expected, variable=False):
            self.error(PDDLSemanticError, ErrorCode.TYPE_MISMATCH,
                       f"argument {index + 1} of {owner} must be of type {_types(expected)}, "
                       f"but '{term.name}' is of type {_types(types)}", self._term_span(term, atom_span, index))
        elif not lifted:
            self._ground_fits.add((term.name, expected))

    def _ground_atom(self, atom: Atom, where: str) -> None:
        """``_atom`` for an atom of the problem (an :init fact, a goal atom),
        skipping the atoms whose every argument is a pair already seen to
        agree (they would report nothing)."""
        expected = self.predicates.get(atom.predicate)
        if expected is not None and len(expected) == len(atom.terms):
            fits = self._ground_fits
            for term, exp in zip(atom.terms, expected):
                if (term.name, exp) not in fits:
                    break
            else:
                return
        self._atom(atom, {}, where, lifted=False)

    def _term_span(self, term: Term, atom_span: Span | None, index: int) -> Span | None:
        """Where a term is written (only needed when there is something to report)."""
        return term.span or term_span(atom_span, index, self.source)

    def _types_agree(self, actual: tuple[str, ...], expected: tuple[str, ...], *, variable: bool) -> bool:
        """A term of type ``actual`` may stand where ``expected`` is declared: a
        constant's type must fit, a variable's only overlap; unknown types are
        reported elsewhere. Remembered per pair: an :init repeats a few pairs
        thousands of times."""
        key = (actual, expected, variable)
        agree = self._agree.get(key)
        if agree is None:
            known = all(t in self.types for t in actual) and all(t in self.types for t in expected)
            fits = self.types.overlaps if variable else self.types.fits
            agree = self._agree[key] = not known or expected == (OBJECT_TYPE,) or fits(actual, expected)
        return agree

    # ------------------------------------------------------------------ problem

    def check_problem(self) -> None:
        p = self.problem
        assert p is not None
        self.source = p.source
        kinds = {kind for kind, _ in p.section_spans}
        self._sections(p.section_spans, _SINGLE_PROBLEM_SECTIONS, "problem")
        for construct in p.unsupported:
            self._other_section(construct)
        for section in (":domain", ":init", ":goal"):
            if section not in kinds:
                self.error(PDDLSyntaxError, ErrorCode.MISSING_SECTION,
                           f"the problem has no {section} section", p.span)
        if ":domain" in kinds and p.domain_name != self.domain.name and \
                p.domain_name.replace("_", "-") == self.domain.name.replace("_", "-"):
            # VAL and the planners do not compare the names; a '-'/'_' slip (IPC 2023 fo-sailing's
            # pfile19 names 'sailing-ln' for 'sailing_ln') is reported, not refused
            self.warn(ErrorCode.DOMAIN_MISMATCH,
                      f"the problem names domain '{p.domain_name}', but the domain is '{self.domain.name}' "
                      "(the names differ only in '-' and '_'; accepted)", p.domain_span)
        elif ":domain" in kinds and p.domain_name != self.domain.name:
            self.error(PDDLSemanticError, ErrorCode.DOMAIN_MISMATCH,
                       f"the problem is for domain '{p.domain_name}', but the domain is '{self.domain.name}'",
                       p.domain_span, hint="check that the domain and problem files belong together")
            return  # the root cause: checking the problem against another domain would only cascade
        self._requirements(p.requirements)
        self._ground_fits.clear()  # the objects are this problem's
        for obj in p.objects:
            if obj.name in self.constants:
                if self.types.ancestors_of(obj.types) == self.types.ancestors_of(self.constants[obj.name]):
                    self.warn(ErrorCode.DUPLICATE_DEFINITION,
                              f"the object '{obj.display or obj.name}' repeats the domain constant of that name",
                              obj.span)
                    continue
                self.error(PDDLSemanticError, ErrorCode.DUPLICATE_DEFINITION,
                           f"the object '{obj.display or obj.name}' is already a domain constant of another type",
                           obj.span)
                continue
            self._declare_object(obj, self.objects, "object")
        negatives = 0
        initial_values: dict[tuple[str, tuple[str, ...]], NumericFact] = {}
        for fact in p.init:
            match fact:
                case Atom(predicate=name) if name in self.derived:
                    self.error(PDDLSemanticError, ErrorCode.INVALID_EFFECT,
                               f"the derived predicate '{name}' cannot be set in :init", fact.span,
                               hint="derived predicates are computed by their :derived rules")
                case Atom():
                    self._ground_atom(fact, ":init")
                case NumericFact(target=target, value=value):
                    if target.name == TOTAL_COST and not target.terms and TOTAL_COST not in self.functions:
                        continue
                    if target.name not in self.functions:
                        # nothing can read it (every read is checked against :functions), so it is
                        # harmless; IPC 2023 markettrader sets (fuel-used) and (fuel) this way
                        self.warn(ErrorCode.UNDEFINED_FUNCTION,
                                  f"{target} has an initial value, but '{target.name}' is not declared in the "
                                  "domain's :functions; the value is ignored", fact.span)
                        continue
                    self._function_term(target, {}, lifted=False)
                    key = (target.name, tuple(t.name for t in target.terms))
                    first = initial_values.setdefault(key, fact)
                    if first is not fact:
                        where = f" (first at line {first.span.line})" if first.span is not None else ""
                        if first.value.value == value.value:  # VAL and unified-planning read it (IPC 2023 satellite)
                            self.warn(ErrorCode.DUPLICATE_DEFINITION,
                                      f"{target} is given the same initial value twice{where}; the repeat is "
                                      "ignored", fact.span)
                        else:
                            self.error(PDDLSemanticError, ErrorCode.DUPLICATE_DEFINITION,
                                       f"{target} is given an initial value twice, two different values{where}", fact.span,
                                       hint="keep one '(= ...)' per function term")
                case Not(operand=atom):
                    negatives += 1
                    if isinstance(atom, Atom):
                        self._atom(atom, {}, ":init", lifted=False)
                case TimedLiteral():
                    self.feature("timed-initial-literals", fact.span)
        if TOTAL_COST in self.assigned and (TOTAL_COST, ()) not in initial_values and p.metric is not None \
                and _reads_total_cost(p.metric.expression):
            init_span = dict(p.section_spans).get(":init", p.span)
            self.warn(ErrorCode.UNDEFINED_FUNCTION_VALUE,
                      "(total-cost) has no initial value: it is read as 0, as Fast Downward does (VAL leaves it "
                      "undefined); write '(= (total-cost) 0)' in :init to say so", init_span)
        if negatives:
            self.warn("NEGATIVE_INIT", f"{negatives} negative literal(s) in :init are redundant under the "
                      "closed-world assumption and are ignored", None)
        self._unset_reads(initial_values)
        if p.goal is not None:
            self._condition(p.goal, {}, "goal", lifted=False)
        if p.metric is not None:
            self._metric(p.metric)

    def _unset_reads(self, initial: Mapping[tuple[str, tuple[str, ...]], object]) -> None:
        """Warn, at the read in the domain, when an action reads a function
        to which :init gives no value at all: a step reading it cannot apply
        (VAL: an undefined value), so every plan through it fails. Functions
        of no or one parameter only, and none that an action assigns (a plan
        may set it first). A table given for some objects only is not
        reported: it is often partial on purpose (``(price ?l)`` for depots
        only), read only where a precondition allows."""
        objects = {**self.constants, **self.objects}
        for name, (span, source) in self.reads.items():
            if name in (TOTAL_COST, TOTAL_TIME) or name not in self.functions \
                    or self.assigners.get(name, set()) - self.readers.get(name, set()):
                continue
            parameters = self.functions[name]
            if len(parameters) > 1:
                continue
            if parameters:
                missing = [f"({name} {o})" for o, types in objects.items()
                           if self._types_agree(types, parameters[0], variable=False)
                           and (name, (o,)) not in initial]
            else:
                missing = [] if (name, ()) in initial else [f"({name})"]
            if not missing or len(missing) < sum(key[0] == name for key in initial) + len(missing):
                continue  # a value for some object: maybe partial on purpose
            shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
            self.warnings.append(PDDLWarning(
                f"{shown} {'has' if len(missing) == 1 else 'have'} no value in :init, but an action reads "
                f"'{name}' here: a step that reads an undefined value cannot be applied", code="UNDEFINED_VALUE_READ",
                span=span, source=source))

    def _metric(self, metric: Metric) -> None:
        """``total-cost`` minimised is action costs; ``total-time`` alone is
        the number of steps of a sequential plan (VAL's value); any other
        expression is a numeric metric. ``(is-violated p)`` is PDDL 3."""
        expr = metric.expression
        if isinstance(expr, FunctionTerm) and not expr.terms and expr.name in (TOTAL_COST, TOTAL_TIME):
            if expr.name == TOTAL_COST and metric.direction != "minimize":
                self.feature("numeric-fluents", metric.span)
            return

        def walk(e: NumExpr) -> None:
            match e:
                case FunctionTerm(name="is-violated") if "is-violated" not in self.functions:
                    self.feature("preferences", e.span)
                case FunctionTerm(name=name, terms=()) if name in (TOTAL_TIME, TOTAL_COST) \
                        and name not in self.functions:
                    pass
                case FunctionTerm():
                    self._function_term(e, {}, lifted=False, read=True)
                case BinaryExpr(left=left, right=right):
                    walk(left)
                    if right is not None:
                        walk(right)

        self.feature("numeric-fluents", metric.span)
        walk(expr)

    # ------------------------------------------------------------------ result

    def report(self) -> CheckReport:
        for name, span in self.cost_functions.items():
            if name in self.assigned:  # a cost that changes is a numeric fluent, not an action cost
                self.feature("numeric-fluents", self.assigned[name])
        unsupported: list[PDDLError] = []
        for name, (span, source) in self.features.items():
            if name in SUPPORTED_FEATURES or (self.temporal and name in TEMPORAL_FEATURES):
                continue
            unsupported.append(
                UnsupportedRequirementError(
                    f"unsupported PDDL feature: {describe_feature(name)}",
                    span=span,
                    source=source,
                    hint=_TEMPORAL_HINT if name in TEMPORAL_FEATURES else
                    "pypddlengine supports STRIPS and ADL (typing, negative and disjunctive conditions, "
                    "quantifiers, equality, conditional effects), derived predicates, action costs and numeric "
                    "fluents (PDDL 2.1 level 2), and durative actions and timed initial literals in timed plan "
                    "validation (not continuous effects, processes, events, constraints or preferences)",
                    details={"feature": name, "requirement": FEATURE_INFO.get(name, ("", ""))[0]},
                )
            )
        declared = {r.name: (r, self.domain.source) for r in self.domain.requirements}
        if self.problem is not None:
            declared.update({r.name: (r, self.problem.source) for r in self.problem.requirements
                             if r.name not in declared})
        supported = SUPPORTED_REQUIREMENTS | (_TEMPORAL_REQUIREMENTS if self.temporal else frozenset())
        for name in sorted(declared.keys() & KNOWN_REQUIREMENTS - supported) if not unsupported else ():
            req, source = declared[name]
            self.warnings.append(
                PDDLWarning(f"the requirement '{name}' is declared but not used: the task uses only supported "
                            "features, so it is accepted and the requirement is ignored",
                            code="UNUSED_REQUIREMENT", span=req.span, source=source)
            )

        def position(err: PDDLError) -> tuple[str, int, int]:
            src = err.source.name if err.source else ""
            return (src, err.span.line if err.span else 0, err.span.column if err.span else 0)

        unsupported.sort(key=position)
        errors = unsupported + sorted(self.errors, key=position)
        return CheckReport(
            errors=tuple(errors),
            warnings=tuple(self.warnings),
            features=frozenset(self.features),
            types=self.types,
            uses_action_costs=self.action_costs,
        )


def _continuous(node: object) -> Span | None:
    """Where ``#t`` is first written in an effect (a continuous effect), if anywhere."""
    match node:
        case FunctionTerm(name="#t"):
            return node.span
        case NumericEffect(value=v):
            return _continuous(v)
        case BinaryExpr(left=left, right=right):
            return _continuous(left) or _continuous(right)
        case EffectAnd(parts=parts):
            return next((s for s in map(_continuous, parts) if s is not None), None)
        case When(effect=e) | ForallEffect(effect=e):
            return _continuous(e)
    return None


def _types(types: tuple[str, ...]) -> str:
    return types[0] if len(types) == 1 else f"(either {' '.join(types)})"


def _derived_uses(domain: Domain) -> list[tuple[str, str, bool]]:
    """``(head, predicate, positive)`` for each use of a derived predicate in
    a :derived body; negative under ``not`` or in the antecedent of ``imply``."""
    derived = {a.predicate for a in domain.axioms}
    uses: list[tuple[str, str, bool]] = []

    def walk(head: str, cond: Condition, positive: bool) -> None:
        match cond:
            case Atom(predicate=p):
                if p in derived:
                    uses.append((head, p, positive))
            case Not(operand=x):
                walk(head, x, not positive)
            case And(parts=ps) | Or(parts=ps):
                for part in ps:
                    walk(head, part, positive)
            case Imply(antecedent=a, consequent=c):
                walk(head, a, not positive)
                walk(head, c, positive)
            case Exists(body=b) | Forall(body=b) | Preference(body=b):
                walk(head, b, positive)

    for axiom in domain.axioms:
        walk(axiom.predicate, axiom.body, True)
    return uses


def negative_cycle(domain: Domain) -> str | None:
    """A derived predicate that depends negatively on itself (through a
    cycle of derived predicates with a negative use on it), or ``None``
    when the axioms are stratifiable."""
    uses = _derived_uses(domain)
    depends: dict[str, set[str]] = {}
    for head, q, _ in uses:
        depends.setdefault(head, set()).add(q)
    for head, q, positive in uses:
        if positive:
            continue
        seen, todo = {q}, [q]
        while todo:  # does q depend on head?
            for r in depends.get(todo.pop(), ()):
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
        if head in seen:
            return head
    return None


def axiom_levels(domain: Domain) -> dict[str, int]:
    """The stratum of each derived predicate of a stratifiable domain (see
    :func:`negative_cycle`): at least that of every derived predicate its
    rules use positively, above that of every one they use negatively."""
    uses = _derived_uses(domain)
    level = {a.predicate: 0 for a in domain.axioms}
    for _ in range(len(level) + 1):
        changed = False
        for head, q, positive in uses:
            need = level[q] + (0 if positive else 1)
            if level[head] < need:
                level[head] = need
                changed = True
        if not changed:
            break
    return level


def check(domain: Domain, problem: Problem | None = None, *, temporal: bool = False) -> CheckReport:
    """Check a domain, and a problem against it; collect every diagnostic.
    ``temporal``: durative actions and timed initial literals are supported
    (the caller is the temporal stage, :mod:`pypddlengine.temporal`)."""
    checker = _Checker(domain, problem, temporal)
    checker.check_domain()
    if problem is not None:
        checker.check_problem()
    return checker.report()


def ensure_valid(domain: Domain, problem: Problem | None = None, *, temporal: bool = False) -> CheckReport:
    """:func:`check`, raising the first error (unsupported features first)."""
    report = check(domain, problem, temporal=temporal)
    report.raise_first()
    return report


def _reads_total_cost(expr: object) -> bool:
    """Whether a metric expression reads ``(total-cost)``."""
    if isinstance(expr, FunctionTerm):
        return expr.name == TOTAL_COST and not expr.terms
    if isinstance(expr, BinaryExpr):
        return _reads_total_cost(expr.left) or (expr.right is not None and _reads_total_cost(expr.right))
    return False
