"""Numeric expressions: evaluation, comparison, assignment, static folding,
linear forms and compiled evaluators (PDDL 2.1 level 2).

Values are exact (:mod:`pypddlengine.exact`). Two forms of expression:

* The model's :data:`~pypddlengine.model.NumExpr` with variables, read by
  :func:`interpret` under a binding of variables to object ids, through a
  ``lookup(function, object_ids)`` that returns a value or ``None``
  (undefined). It reports errors with their place in the source: this is
  what the validator and every explanation use, and what a compiled
  evaluator falls back to in order to locate an error.
* A ground expression (:data:`GExpr`), small tuples without variables:
  ``(CONST, value)``, ``(FLUENT, id)`` (an index into a state's values
  vector), ``(UNDEFINED, text)`` (a static term without a value: an error
  if it is ever read), ``(op, left, right)`` for ``+ - * /`` and
  ``(NEG, operand)``. :func:`ground` builds one from a model expression,
  folding *static* functions (no effect changes them) into constants, as
  Fast Downward and ENHSP do; constant subtrees are folded, except a
  division by a constant zero, which must fail when (and only if) it is
  evaluated. :func:`source` turns a ground expression into Python source for
  compiled evaluators; :func:`linear` gives its linear form when it has one
  (for the numeric heuristics).

Semantics, as in PDDL 2.1 and VAL: a function term without a value is an
error where it is read, never a silent 0; a division by zero is an error of
the step (or goal, or metric) that evaluates it; the right-hand sides of all
numeric effects of a step read the state before the step. Comparisons are
exact, so ``<`` is strict (VAL's 0.0001 tolerance is not copied; see
docs/numeric.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction

from .errors import ErrorCode, NumericError, SourceFile
from .exact import Value, approx, normal, to_text
from .model import BinaryExpr, FunctionTerm, Number, NumExpr

__all__ = [
    "ADD",
    "ASSIGN_OPS",
    "COMPARISONS",
    "CONST",
    "DIV",
    "FLUENT",
    "MUL",
    "NEG",
    "RUNTIME",
    "SUB",
    "UNDEFINED",
    "GExpr",
    "Lookup",
    "assign",
    "compare",
    "deficit",
    "divide",
    "evaluate",
    "evaluator",
    "fluent_ids",
    "ground",
    "interpret",
    "is_constant",
    "linear",
    "source",
    "term_text",
]

COMPARISONS = ("<", "<=", "=", ">=", ">")
ASSIGN_OPS = ("assign", "increase", "decrease", "scale-up", "scale-down")

CONST, FLUENT, UNDEFINED, NEG = "c", "x", "u", "neg"
ADD, SUB, MUL, DIV = "+", "-", "*", "/"

GExpr = tuple  # type: ignore[type-arg]
"""A ground numeric expression (see the module docstring)."""

Lookup = Callable[[str, tuple[int, ...]], "Value | None"]
"""``lookup(function, object_ids)``: the current value of a ground function term, ``None`` when undefined."""


# ----------------------------------------------------------------------------- arithmetic


def divide(a: Value, b: Value) -> Value:
    """``a / b`` exactly (``ZeroDivisionError`` when ``b`` is 0, ``TypeError``
    when either is ``None``, an undefined value)."""
    if a.__class__ is int and b.__class__ is int:
        q, r = divmod(a, b)
        return q if r == 0 else Fraction(a, b)
    return normal(Fraction(a) / b)  # type: ignore[arg-type]


def _arith(op: str, a: Value, b: Value) -> Value:
    if op == ADD:
        return normal(a + b)
    if op == SUB:
        return normal(a - b)
    if op == MUL:
        return normal(a * b)
    return divide(a, b)


def compare(op: str, left: Value, right: Value) -> bool:
    """``left op right``, exactly."""
    if op == ">=":
        return left >= right
    if op == "<=":
        return left <= right
    if op == ">":
        return left > right
    if op == "<":
        return left < right
    return left == right


def deficit(op: str, left: Value, right: Value) -> Value:
    """How far ``left op right`` is from holding, as a non-negative amount by
    which ``left`` would have to move (0 when it holds; for a strict
    comparison at equality, 0 as well: any positive move is enough)."""
    if op in (">=", ">"):
        return normal(max(right - left, 0))
    if op in ("<=", "<"):
        return normal(max(left - right, 0))
    return normal(max(left - right, right - left))


def assign(op: str, old: Value | None, value: Value) -> Value:
    """The new value of a fluent whose value was ``old`` after ``(op f value)``.

    Raises ``LookupError`` when ``op`` reads an undefined ``old`` (all but
    ``assign`` do) and ``ZeroDivisionError`` for ``scale-down`` by 0."""
    if op == "assign":
        return value
    if old is None:
        raise LookupError(op)
    if op == "increase":
        return normal(old + value)
    if op == "decrease":
        return normal(old - value)
    if op == "scale-up":
        return normal(old * value)
    return divide(old, value)


# ----------------------------------------------------------------------------- the model level (with positions)


def term_text(name: str, args: tuple[int, ...], objects: tuple[str, ...]) -> str:
    """``(f a b)`` for a ground function term."""
    return f"({' '.join([name, *(objects[o] for o in args)])})"


def interpret(
    expr: NumExpr,
    binding: Mapping[str, int],
    lookup: Lookup,
    objects: tuple[str, ...],
    object_index: Mapping[str, int],
    source: SourceFile | None = None,
) -> Value:
    """The value of a model expression under ``binding`` (variable -> object
    id; constants resolve through ``object_index``). Raises
    :class:`NumericError` located at the undefined function term
    (``UNDEFINED_FUNCTION_VALUE``) or the dividing ``/``
    (``DIVISION_BY_ZERO``); ``source`` is the file the spans point into."""
    match expr:
        case Number(value=v):
            return v
        case FunctionTerm(name=name, terms=terms):
            args = tuple(binding[t.name] if t.name.startswith("?") else object_index[t.name] for t in terms)
            value = lookup(name, args)
            if value is None:
                text = term_text(name, args, objects)
                raise NumericError(f"{text} has no value here, but it is read", span=expr.span, source=source,
                                   hint="give it a value in :init or assign it before it is read",
                                   details={"term": text})
            return value
        case BinaryExpr(op=op, left=left, right=None):
            return normal(-interpret(left, binding, lookup, objects, object_index, source))
        case BinaryExpr(op=op, left=left, right=right):
            a = interpret(left, binding, lookup, objects, object_index, source)
            b = interpret(right, binding, lookup, objects, object_index, source)  # type: ignore[arg-type]
            if op == DIV and b == 0:
                raise NumericError(f"division by zero: {approx(a)} / 0", code=ErrorCode.DIVISION_BY_ZERO,
                                   span=expr.span, source=source, details={"dividend": to_text(a)})
            return _arith(op, a, b)
    raise TypeError(f"not a numeric expression: {expr!r}")


# ----------------------------------------------------------------------------- ground expressions


def is_constant(g: GExpr) -> bool:
    return g[0] == CONST


def ground(
    expr: NumExpr,
    binding: Mapping[str, int],
    object_index: Mapping[str, int],
    fluent: Callable[[str, tuple[int, ...]], GExpr],
) -> GExpr:
    """The ground form of a model expression. ``fluent(name, args)`` returns
    the ground form of a function term: ``(FLUENT, id)`` for a fluent,
    ``(CONST, v)`` for a static term with a value, ``(UNDEFINED, text)`` for a
    static term without one."""
    match expr:
        case Number(value=v):
            return (CONST, v)
        case FunctionTerm(name=name, terms=terms):
            args = tuple(binding[t.name] if t.name.startswith("?") else object_index[t.name] for t in terms)
            return fluent(name, args)
        case BinaryExpr(op=op, left=left, right=None):
            inner = ground(left, binding, object_index, fluent)
            return (CONST, normal(-inner[1])) if inner[0] == CONST else (NEG, inner)
        case BinaryExpr(op=op, left=left, right=right):
            a = ground(left, binding, object_index, fluent)
            b = ground(right, binding, object_index, fluent)  # type: ignore[arg-type]
            if a[0] == CONST and b[0] == CONST and not (op == DIV and b[1] == 0):
                return (CONST, _arith(op, a[1], b[1]))
            return (op, a, b)
    raise TypeError(f"not a numeric expression: {expr!r}")


def evaluate(g: GExpr, values: tuple[Value | None, ...] | list[Value | None]) -> Value:
    """The value of a ground expression in a values vector. Raises
    ``LookupError`` on an undefined value and ``ZeroDivisionError`` on a
    division by zero; callers locate them with :func:`interpret`."""
    kind = g[0]
    if kind == CONST:
        return g[1]  # type: ignore[no-any-return]
    if kind == FLUENT:
        v = values[g[1]]
        if v is None:
            raise LookupError(g[1])
        return v
    if kind == UNDEFINED:
        raise LookupError(g[1])
    if kind == NEG:
        return normal(-evaluate(g[1], values))
    return _arith(kind, evaluate(g[1], values), evaluate(g[2], values))


def evaluator(g: GExpr) -> Callable[[tuple[Value | None, ...] | list[Value | None]], Value | None]:
    """A closure evaluating ``g`` on a values vector, built once per ground
    expression (no code generation): the fast path of conditions and
    effects. A bare fluent returns its value as it is, ``None`` when
    undefined (the caller checks); any arithmetic on ``None`` raises
    ``TypeError``; an undefined static term raises ``LookupError``; a
    division by zero ``ZeroDivisionError``."""
    kind = g[0]
    if kind == CONST:
        value = g[1]
        return lambda v: value
    if kind == FLUENT:
        i = g[1]
        return lambda v: v[i]
    if kind == UNDEFINED:
        text = g[1]

        def undefined(v: object) -> Value:
            raise LookupError(text)

        return undefined
    if kind == NEG:
        inner = evaluator(g[1])
        return lambda v: normal(-inner(v))  # type: ignore[operator]
    a, b = evaluator(g[1]), evaluator(g[2])
    if g[1][0] == FLUENT and g[2][0] == CONST:  # the most common shapes, one call less
        i, c = g[1][1], g[2][1]
        if kind == ADD:
            return lambda v: normal(v[i] + c)  # type: ignore[operator]
        if kind == SUB:
            return lambda v: normal(v[i] - c)  # type: ignore[operator]
    if kind == ADD:
        return lambda v: normal(a(v) + b(v))  # type: ignore[operator]
    if kind == SUB:
        return lambda v: normal(a(v) - b(v))  # type: ignore[operator]
    if kind == MUL:
        return lambda v: normal(a(v) * b(v))  # type: ignore[operator]
    return lambda v: divide(a(v), b(v))  # type: ignore[arg-type]


def fluent_ids(g: GExpr, out: set[int] | None = None) -> set[int]:
    """The fluent ids a ground expression reads."""
    out = set() if out is None else out
    kind = g[0]
    if kind == FLUENT:
        out.add(g[1])
    elif kind == NEG:
        fluent_ids(g[1], out)
    elif kind in (ADD, SUB, MUL, DIV):
        fluent_ids(g[1], out)
        fluent_ids(g[2], out)
    return out


def linear(g: GExpr) -> tuple[dict[int, Value], Value] | None:
    """``({fluent id: coefficient}, constant)`` when ``g`` is linear in the
    fluents (``None`` otherwise, or when it reads an undefined static term).
    Zero coefficients are dropped."""
    kind = g[0]
    if kind == CONST:
        return {}, g[1]
    if kind == FLUENT:
        return {g[1]: 1}, 0
    if kind == UNDEFINED:
        return None
    if kind == NEG:
        inner = linear(g[1])
        return None if inner is None else ({k: normal(-c) for k, c in inner[0].items()}, normal(-inner[1]))
    a, b = linear(g[1]), linear(g[2])
    if a is None or b is None:
        return None
    if kind in (ADD, SUB):
        sign = 1 if kind == ADD else -1
        coef = dict(a[0])
        for k, c in b[0].items():
            coef[k] = normal(coef.get(k, 0) + sign * c)
        return {k: c for k, c in coef.items() if c != 0}, normal(a[1] + sign * b[1])
    if kind == MUL:
        if a[0] and b[0]:
            return None
        (terms, const), factor = (a, b[1]) if not b[0] else (b, a[1])
        return {k: normal(c * factor) for k, c in terms.items() if c * factor != 0}, normal(const * factor)
    if b[0] or b[1] == 0:  # division by a fluent term, or by zero
        return None
    return {k: divide(c, b[1]) for k, c in a[0].items()}, divide(a[1], b[1])


def source(g: GExpr, constants: dict[str, Value], values: str = "v", *, guard: bool = True) -> str:
    """Python source evaluating ``g`` on the vector named ``values``.
    Fraction constants are put in ``constants`` under fresh names (ints are
    written as literals); the code calls ``_div`` for ``/`` (bind it to
    :func:`divide`), ``_undef`` for an undefined static term and ``_def`` for
    a bare fluent read (bind both to the functions of :data:`RUNTIME`). An
    undefined fluent value is ``None``, on which every arithmetic operation
    and every ordering raises ``TypeError``; a bare read (``g`` is one
    fluent) is wrapped in ``_def``, which raises ``LookupError``, unless
    ``guard`` is false (for a caller that compares with ``<``, ``<=``, ``>``
    or ``>=``, which raise by themselves)."""
    if guard and g[0] == FLUENT:
        return f"_def({values}[{g[1]}])"
    kind = g[0]
    if kind == CONST:
        value = g[1]
        if value.__class__ is int:
            return f"({value})"
        name = f"_k{len(constants)}"
        constants[name] = value
        return name
    if kind == FLUENT:
        return f"{values}[{g[1]}]"
    if kind == UNDEFINED:
        return f"_undef({g[1]!r})"
    if kind == NEG:
        return f"(-{source(g[1], constants, values, guard=False)})"
    a, b = source(g[1], constants, values, guard=False), source(g[2], constants, values, guard=False)
    if kind == DIV:
        return f"_div({a}, {b})"
    return f"({a} {kind} {b})"


def _undef(text: str) -> Value:
    raise LookupError(text)


def _def(value: Value | None) -> Value:
    if value is None:
        raise LookupError("undefined")
    return value


RUNTIME: dict[str, Callable[..., Value]] = {"_div": divide, "_undef": _undef, "_def": _def}
"""The functions the code of :func:`source` calls, by the names it uses."""
