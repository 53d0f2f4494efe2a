"""The lifted PDDL model: frozen, slotted dataclasses.

Conventions that hold for every class here:

* Names are already case-folded (``name``) by the parser, the single place where
  PDDL case is folded; declarations also keep the spelling of the source
  (``display``) for output. Variables keep their leading ``?``.
* ``span`` (where the node came from) and ``display`` never take part in
  equality or hashing, so two parses of differently formatted but equivalent
  text compare equal.
* Collections are tuples; the model is immutable once built.

Conditions and effects are closed unions (see :data:`Condition`,
:data:`Effect`); consumers ``match`` on them. ADL (disjunction, quantifiers,
conditional and universal effects) and axioms (:class:`DerivedDecl`) are
supported; constructs the engine does not support (numeric fluents,
preferences) are still represented so that the checker can reject them by
name and line.
"""

from __future__ import annotations

from dataclasses import field

from .errors import SourceFile, Span
from .exact import Value, to_text
from .usercache import dataclass

__all__ = [
    "OBJECT_TYPE",
    "ActionDecl",
    "ActionRef",
    "Add",
    "And",
    "Atom",
    "BinaryExpr",
    "Compare",
    "Condition",
    "Constant",
    "Delete",
    "DerivedDecl",
    "Domain",
    "DurationConstraint",
    "DurationVar",
    "DurativeActionDecl",
    "Effect",
    "EffectAnd",
    "Equals",
    "Exists",
    "Forall",
    "ForallEffect",
    "FunctionDecl",
    "FunctionTerm",
    "Imply",
    "InitFact",
    "Metric",
    "Not",
    "NumExpr",
    "Number",
    "NumericEffect",
    "NumericFact",
    "ObjectDecl",
    "Or",
    "Parameter",
    "Plan",
    "PlanStep",
    "PredicateDecl",
    "Preference",
    "Problem",
    "Requirement",
    "Term",
    "TimedCondition",
    "TimedEffect",
    "TimedLiteral",
    "TypeDecl",
    "UnsupportedConstruct",
    "Variable",
    "When",
    "make_plan_step",
]

OBJECT_TYPE = "object"
"""The root of every type hierarchy."""


def _span() -> Span | None:
    return field(default=None, compare=False, repr=False)  # type: ignore[return-value]


# --------------------------------------------------------------------------- terms


@dataclass(frozen=True, slots=True)
class Variable:
    """A variable such as ``?x`` (the name keeps its ``?``)."""

    name: str
    span: Span | None = _span()

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Constant:
    """A reference to an object or a domain constant by name."""

    name: str
    span: Span | None = _span()

    def __str__(self) -> str:
        return self.name


Term = Variable | Constant

# --------------------------------------------------------------------------- conditions


@dataclass(frozen=True, slots=True)
class Atom:
    """``(predicate term ...)``. ``span`` points at the predicate name."""

    predicate: str
    terms: tuple[Term, ...]
    span: Span | None = _span()

    def __str__(self) -> str:
        if not self.terms:
            return f"({self.predicate})"
        return f"({self.predicate} {' '.join(t.name for t in self.terms)})"


@dataclass(frozen=True, slots=True)
class Not:
    """``(not operand)``."""

    operand: Condition
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class And:
    """``(and part ...)``."""

    parts: tuple[Condition, ...]
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Or:
    """``(or part ...)``."""

    parts: tuple[Condition, ...]
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Imply:
    """``(imply antecedent consequent)``."""

    antecedent: Condition
    consequent: Condition
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Exists:
    """``(exists (variables) body)``."""

    variables: tuple[Parameter, ...]
    body: Condition
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Forall:
    """``(forall (variables) body)`` in a condition."""

    variables: tuple[Parameter, ...]
    body: Condition
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Equals:
    """``(= t1 t2)`` between two terms (the ``:equality`` requirement)."""

    left: Term
    right: Term
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Compare:
    """A numeric comparison ``(op e1 e2)``; ``op`` is one of ``< <= = >= >``."""

    op: str
    left: NumExpr
    right: NumExpr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Preference:
    """``(preference name gd)`` (PDDL 3 soft goals)."""

    name: str | None
    body: Condition
    span: Span | None = _span()


Condition = Atom | Not | And | Or | Imply | Exists | Forall | Equals | Compare | Preference

# --------------------------------------------------------------------------- numeric expressions


@dataclass(frozen=True, slots=True)
class Number:
    """A numeric literal, exact (see :mod:`pypddlengine.exact`): an ``int``,
    or a ``Fraction`` for a decimal such as ``0.1``."""

    value: Value
    span: Span | None = _span()

    def __str__(self) -> str:
        return to_text(self.value)


@dataclass(frozen=True, slots=True)
class FunctionTerm:
    """``(f term ...)``, a numeric fluent or a static cost function."""

    name: str
    terms: tuple[Term, ...]
    span: Span | None = _span()

    def __str__(self) -> str:
        if not self.terms:
            return f"({self.name})"
        return f"({self.name} {' '.join(t.name for t in self.terms)})"


@dataclass(frozen=True, slots=True)
class BinaryExpr:
    """``(op e1 e2)`` with ``op`` in ``+ - * /``; unary minus has ``right=None``."""

    op: str
    left: NumExpr
    right: NumExpr | None
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class DurationVar:
    """``?duration`` in a numeric expression of a durative action (its
    duration, fixed when the action starts)."""

    span: Span | None = _span()

    def __str__(self) -> str:
        return "?duration"


NumExpr = Number | FunctionTerm | BinaryExpr | DurationVar

# --------------------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class Add:
    """An add effect: ``atom``."""

    atom: Atom
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Delete:
    """A delete effect: ``(not atom)``."""

    atom: Atom
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class EffectAnd:
    """``(and effect ...)`` in an effect."""

    parts: tuple[Effect, ...]
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class When:
    """``(when condition effect)``: a conditional effect."""

    condition: Condition
    effect: Effect
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class ForallEffect:
    """``(forall (variables) effect)``: a universal effect."""

    variables: tuple[Parameter, ...]
    effect: Effect
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class NumericEffect:
    """``(op (f ...) value)`` with ``op`` in assign/increase/decrease/scale-up/scale-down."""

    op: str
    target: FunctionTerm
    value: NumExpr
    span: Span | None = _span()


Effect = Add | Delete | EffectAnd | When | ForallEffect | NumericEffect

# --------------------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class Parameter:
    """A typed variable. ``types`` has one entry, or several for ``(either ...)``."""

    name: str
    types: tuple[str, ...] = (OBJECT_TYPE,)
    span: Span | None = _span()
    type_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)  # where each type is written


@dataclass(frozen=True, slots=True)
class TypeDecl:
    """A declared type and its parents (``object`` when none is given)."""

    name: str
    parents: tuple[str, ...] = (OBJECT_TYPE,)
    span: Span | None = _span()
    display: str = field(default="", compare=False, repr=False)
    type_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)  # where each parent is written


@dataclass(frozen=True, slots=True)
class ObjectDecl:
    """A problem object or a domain constant."""

    name: str
    types: tuple[str, ...] = (OBJECT_TYPE,)
    span: Span | None = _span()
    display: str = field(default="", compare=False, repr=False)
    type_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)  # where each type is written


@dataclass(frozen=True, slots=True)
class PredicateDecl:
    """A predicate of ``:predicates`` with its typed parameters."""

    name: str
    parameters: tuple[Parameter, ...]
    span: Span | None = _span()
    display: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class FunctionDecl:
    """A function of ``:functions`` with its typed parameters and result type."""

    name: str
    parameters: tuple[Parameter, ...]
    result: str = "number"
    span: Span | None = _span()
    display: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ActionDecl:
    """An ``:action``: parameters, precondition and effect as written."""

    name: str
    parameters: tuple[Parameter, ...]
    precondition: Condition | None
    effect: Effect | None
    span: Span | None = _span()
    display: str = field(default="", compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class DurationConstraint:
    """``(op ?duration value)`` of a ``:duration`` with ``op`` in ``= <= >= < >``;
    ``at`` is ``"start"`` (the usual reading: evaluated when the action starts)
    or ``"end"`` for PDDL 2.1's ``(at end (<= ?duration e))``."""

    op: str
    value: NumExpr
    at: str = "start"
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class TimedCondition:
    """A condition of a durative action: ``(at start c)``, ``(at end c)`` or
    ``(over all c)`` (``at`` is ``"start"``, ``"end"`` or ``"all"``)."""

    at: str
    condition: Condition
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class TimedEffect:
    """An effect of a durative action: ``(at start e)`` or ``(at end e)``."""

    at: str
    effect: Effect
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class DurativeActionDecl:
    """A ``:durative-action`` as written: its duration constraints (a
    conjunction), timed conditions and timed effects (quantifiers over timed
    parts are distributed into them by the parser)."""

    name: str
    parameters: tuple[Parameter, ...]
    duration: tuple[DurationConstraint, ...]
    conditions: tuple[TimedCondition, ...]
    effects: tuple[TimedEffect, ...]
    span: Span | None = _span()
    display: str = field(default="", compare=False, repr=False)

    def condition_at(self, at: str) -> Condition | None:
        """The conjunction of the conditions at ``"start"``, ``"end"`` or over ``"all"``."""
        parts = tuple(c.condition for c in self.conditions if c.at == at)
        return None if not parts else parts[0] if len(parts) == 1 else And(parts, parts[0].span)

    def effect_at(self, at: str) -> Effect | None:
        """The conjunction of the effects at ``"start"`` or ``"end"``."""
        parts = tuple(e.effect for e in self.effects if e.at == at)
        return None if not parts else parts[0] if len(parts) == 1 else EffectAnd(parts, parts[0].span)


@dataclass(frozen=True, slots=True)
class DerivedDecl:
    """An axiom ``(:derived (p ?x - t ...) body)``: ``p(x)`` holds in a state
    exactly when some axiom for ``p`` has a true body there (stratified
    fixpoint). ``span`` points at the head predicate."""

    predicate: str
    parameters: tuple[Parameter, ...]
    body: Condition
    span: Span | None = _span()
    display: str = field(default="", compare=False, repr=False)

    @property
    def head(self) -> Atom:
        return Atom(self.predicate, tuple(Variable(p.name) for p in self.parameters), self.span)


@dataclass(frozen=True, slots=True)
class Requirement:
    """A ``:requirements`` flag such as ``:typing`` (folded, with its colon)."""

    name: str
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class UnsupportedConstruct:
    """A section the engine recognises but does not support (``:durative-action``,
    ``:derived``, ``:constraints``, ...), kept so the checker can name it."""

    keyword: str
    span: Span | None = _span()
    continuous: Span | None = _span()
    """Inside a ``:durative-action``: where ``#t`` (a continuous effect) is first written."""


# --------------------------------------------------------------------------- problem parts


@dataclass(frozen=True, slots=True)
class NumericFact:
    """``(= (f obj ...) value)`` in ``:init``."""

    target: FunctionTerm
    value: Number
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class TimedLiteral:
    """``(at time literal)`` in ``:init`` (a timed initial literal, PDDL 2.2)."""

    time: Number
    literal: Atom | Not
    span: Span | None = _span()


InitFact = Atom | Not | NumericFact | TimedLiteral


@dataclass(frozen=True, slots=True)
class Metric:
    """``(:metric minimize|maximize expression)``."""

    direction: str
    expression: NumExpr
    span: Span | None = _span()


@dataclass(frozen=True, slots=True)
class Domain:
    """A parsed domain. ``source`` keeps the text for error snippets."""

    name: str
    requirements: tuple[Requirement, ...] = ()
    types: tuple[TypeDecl, ...] = ()
    constants: tuple[ObjectDecl, ...] = ()
    predicates: tuple[PredicateDecl, ...] = ()
    functions: tuple[FunctionDecl, ...] = ()
    actions: tuple[ActionDecl, ...] = ()
    unsupported: tuple[UnsupportedConstruct, ...] = ()
    span: Span | None = _span()
    source: SourceFile | None = field(default=None, compare=False, repr=False)
    display: str = field(default="", compare=False, repr=False)
    section_spans: tuple[tuple[str, Span], ...] = field(default=(), compare=False, repr=False)
    axioms: tuple[DerivedDecl, ...] = ()
    durative_actions: tuple[DurativeActionDecl, ...] = ()


@dataclass(frozen=True, slots=True)
class Problem:
    """A parsed problem. ``goal`` is ``None`` only when the section is missing
    (the checker reports that)."""

    name: str
    domain_name: str
    requirements: tuple[Requirement, ...] = ()
    objects: tuple[ObjectDecl, ...] = ()
    init: tuple[InitFact, ...] = ()
    goal: Condition | None = None
    metric: Metric | None = None
    unsupported: tuple[UnsupportedConstruct, ...] = ()
    span: Span | None = _span()
    source: SourceFile | None = field(default=None, compare=False, repr=False)
    display: str = field(default="", compare=False, repr=False)
    section_spans: tuple[tuple[str, Span], ...] = field(default=(), compare=False, repr=False)
    domain_span: Span | None = _span()


# --------------------------------------------------------------------------- plans and action references


@dataclass(frozen=True, slots=True)
class ActionRef:
    """An action named in text: ``(stack a b)``, ``stack a b`` or ``stack(a, b)``.

    ``name`` and ``args`` are folded; ``text`` is what the user wrote."""

    name: str
    args: tuple[str, ...]
    span: Span | None = _span()
    text: str = field(default="", compare=False, repr=False)
    arg_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)

    def __str__(self) -> str:
        return f"({' '.join((self.name, *self.args))})"


@dataclass(frozen=True, slots=True)
class PlanStep(ActionRef):
    """One step of a plan file (``time`` is VAL's optional ``N:`` prefix)."""

    time: float | None = field(default=None, compare=False)


def make_plan_step(name: str, args: tuple[str, ...], span: Span | None, text: str, time: float | None) -> PlanStep:
    """``PlanStep(name, args, span, text, (), time)``, built without the frozen
    dataclass ``__init__`` (which sets each slot through ``object.__setattr__``):
    a plan file makes one per step, and this is twice as fast. The result is
    an ordinary, equal :class:`PlanStep` (a test compares the two)."""
    step = _new_object(PlanStep)
    _set_name(step, name)
    _set_args(step, args)
    _set_span(step, span)
    _set_text(step, text)
    _set_arg_spans(step, ())
    _set_time(step, time)
    return step


@dataclass(frozen=True, slots=True)
class Plan:
    """A parsed plan: its steps in order, and the text they came from."""

    steps: tuple[PlanStep, ...]
    source: SourceFile | None = field(default=None, compare=False, repr=False)

    def __len__(self) -> int:
        return len(self.steps)


_new_object = object.__new__
_set_name, _set_args, _set_span, _set_text, _set_arg_spans = (
    ActionRef.__dict__[f].__set__ for f in ("name", "args", "span", "text", "arg_spans"))
_set_time = PlanStep.__dict__["time"].__set__
