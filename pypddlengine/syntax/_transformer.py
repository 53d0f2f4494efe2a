"""Parse-tree callbacks that build :mod:`pypddlengine.model` nodes.

The transformer runs inline with the LALR parser (no parse tree is built). It
is stateless: it only constructs nodes, folds case (the one place where that
happens) and records positions. Name resolution and every semantic rule live in
:mod:`pypddlengine.checker`. Errors raised here are purely structural (a
``- type`` with nothing before it, a repeated ``:effect``) and carry a span.
"""

from __future__ import annotations

import functools
import re
from typing import Any, cast

from ..errors import ErrorCode, PDDLSyntaxError, Span
from .. import exact
from ..exact import NumberTooLarge, parse_number
from ..model import (
    OBJECT_TYPE,
    ActionDecl,
    ActionRef,
    Add,
    And,
    Atom,
    BinaryExpr,
    Compare,
    Constant,
    Delete,
    DerivedDecl,
    DurationConstraint,
    DurationVar,
    DurativeActionDecl,
    Domain,
    EffectAnd,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    FunctionDecl,
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
    Plan,
    PlanStep,
    PredicateDecl,
    Preference,
    Problem,
    Requirement,
    TimedCondition,
    TimedEffect,
    TimedLiteral,
    TypeDecl,
    UnsupportedConstruct,
    Variable,
    When,
    make_plan_step,
)
from ._lalr import Token

__all__ = ["PDDLTransformer", "token_span"]


def token_span(tok: Token) -> Span:
    return Span(tok.line, tok.column, tok.end_line, tok.end_column)  # type: ignore[arg-type]


class _TypeSpec:
    """``- type`` or ``- (either t1 t2)`` inside a typed list."""

    __slots__ = ("span", "type_spans", "types")

    def __init__(self, types: tuple[str, ...], span: Span, type_spans: tuple[Span, ...] = ()) -> None:
        self.types = types
        self.span = span
        self.type_spans = type_spans  # where each type name is written, for messages


class _Section:
    """A domain or problem section before it is merged into its parent."""

    __slots__ = ("items", "kind", "span")

    def __init__(self, kind: str, items: Any, span: Span) -> None:
        self.kind = kind
        self.items = items
        self.span = span


class _Empty:
    """``()`` used as an empty precondition, effect or goal."""

    __slots__ = ()


_EMPTY = _Empty()


def _group_typed(children: list[Any]) -> list[tuple[Token, tuple[str, ...], tuple[Span, ...]]]:
    """Assign each name of a flat typed list its type(s) and where they are written.

    ``a b - t c`` gives ``[(a, (t,), ..), (b, (t,), ..), (c, (object,), ())]``."""
    out: list[tuple[Token, tuple[str, ...], tuple[Span, ...]]] = []
    pending: list[Token] = []
    for child in children:
        if isinstance(child, _TypeSpec):
            if not pending:
                raise PDDLSyntaxError(
                    "a '- type' must follow the names it types",
                    code=ErrorCode.SYNTAX_ERROR,
                    span=child.span,
                )
            out.extend((tok, child.types, child.type_spans) for tok in pending)
            pending = []
        else:
            pending.append(child)
    out.extend((tok, (OBJECT_TYPE,), ()) for tok in pending)
    return out


@functools.lru_cache(maxsize=1 << 16)
def _shared_term(name: str) -> Variable | Constant:
    """Span-less terms of atoms lexed as one token are shared (immutable)."""
    if name[0] == "?":
        return Variable(name)
    return Constant(name)


_RUN_PIECE = re.compile(r";[^\n]*|\(([^()]*)\)")
_INNER = re.compile(r"\(([^()]*)\)")
_NUMERIC_PIECE = re.compile(r";[^\n]*|\([ \t]*(=)[ \t]*(\(([^()]*)\))[ \t]*([-0-9.]+)[ \t]*\)")
_FIRST_NAME = re.compile(r"\(\s*([^\s()]+)")
"""The name of the first atom of a run, as spelt."""


_new_tuple = tuple.__new__


def _run_pieces(tok: Token) -> list[tuple[str, Span]]:
    """The ``(...)`` pieces of an ATOMS/GROUND_ATOMS token (a run of simple
    atoms with whitespace and comments between them): each one's inner text
    and its span. (A list, spans built as plain tuples: this loop runs once
    per step of a plan and per atom of an :init.)

    Plans and :init sections mostly hold one piece per line; then each line's
    piece is its stripped text, and its line number the line's index. A run
    with any other line (two pieces, or a piece and a comment) is split by
    :func:`_run_pieces_any`, which gives the same pieces for every run."""
    pieces: list[tuple[str, Span]] = []
    append = pieces.append
    line: int = tok.line  # type: ignore[assignment]
    shift: int = tok.column  # type: ignore[assignment]  # the first line starts at the token's column
    for text in tok.value.split("\n"):
        piece = text.strip()
        if piece:
            first = piece[0]
            if first == "(":
                if piece[-1] != ")" or piece.count("(") != 1 or piece.count(")") != 1:
                    return _run_pieces_any(tok)
                column = text.index("(") + shift
                append((piece[1:-1], _new_tuple(Span, (line, column, line, column + len(piece)))))
            elif first != ";":
                return _run_pieces_any(tok)
        line += 1
        shift = 1
    return pieces


def _run_pieces_any(tok: Token) -> list[tuple[str, Span]]:
    """:func:`_run_pieces` for any run: each piece found by a regular expression."""
    pieces: list[tuple[str, Span]] = []
    append = pieces.append
    value: str = tok.value
    line: int = tok.line  # type: ignore[assignment]
    line_start = -tok.column + 1  # type: ignore[operator]  # offset of the token's line start
    last = 0
    for m in _RUN_PIECE.finditer(value):
        inner = m.group(1)
        if inner is None:  # a comment between atoms
            continue
        start = m.start()
        if value.count("\n", last, start):
            line += value.count("\n", last, start)
            line_start = value.rfind("\n", last, start) + 1
        last = start
        append((inner, _new_tuple(Span, (line, start - line_start + 1, line, m.end() - line_start + 1))))
    return pieces


def _split_numeric_run(tok: Token) -> list[NumericFact]:
    """The facts of a NUMERIC_FACTS token (a run of one-line ``(= (f o ...) n)``),
    each with spans for the ``=``, the function term and the number, as the
    structural path gives them (the function term's arguments get theirs
    from the source when a message needs one, as atoms of a run do). The
    line bookkeeping is :func:`_run_pieces`' (kept apart: sharing it costs
    atom runs, the parser's hot loop, a generator level per atom)."""
    value: str = tok.value
    line: int = tok.line  # type: ignore[assignment]
    ls = -tok.column + 1  # type: ignore[operator]
    last = 0
    facts: list[NumericFact] = []
    for m in _NUMERIC_PIECE.finditer(value):
        if m.group(1) is None:  # a comment between facts
            continue
        start = m.start()
        if value.count("\n", last, start):
            line += value.count("\n", last, start)
            ls = value.rfind("\n", last, start) + 1
        last = start
        parts = m.group(3).lower().split()
        term = Span(line, m.start(2) - ls + 1, line, m.end(2) - ls + 1)
        target = FunctionTerm(parts[0], tuple([_shared_term(p) for p in parts[1:]]), term)
        number = _literal(m.group(4), Span(line, m.start(4) - ls + 1, line, m.end(4) - ls + 1))
        facts.append(NumericFact(target, number, Span(line, m.start(1) - ls + 1, line, m.end(1) - ls + 1)))
    return facts


_NAME_IN_RUN = re.compile(r"[^ \t\f\r\n]+")


def _split_names(tok: Token) -> list[Token]:
    """The NAME tokens a NAMES token (names separated by whitespace) stands
    for, each with the text and position the lexer would have given it."""
    value: str = tok.value
    line: int = tok.line  # type: ignore[assignment]
    base: int = tok.start_pos  # type: ignore[assignment]
    line_start = -tok.column + 1  # type: ignore[operator]  # offset of the token's line start in ``value``
    last = 0
    names: list[Token] = []
    for m in _NAME_IN_RUN.finditer(value):
        start, end = m.span()
        breaks = value.count("\n", last, start)
        if breaks:
            line += breaks
            line_start = value.rfind("\n", last, start) + 1
        last = start
        column = start - line_start + 1
        names.append(Token("NAME", m.group(), base + start, line, column, line, column + end - start, base + end))
    return names


def _split_atom_run(tok: Token) -> list[Atom]:
    """The atoms of an ATOMS/GROUND_ATOMS token, each with its own span."""
    atoms: list[Atom] = []
    for inner, span in _run_pieces(tok):
        parts = inner.lower().split()
        atoms.append(Atom(parts[0], tuple([_shared_term(p) for p in parts[1:]]), span))
    return atoms


class _Run:
    """Several atoms lexed as one token where the grammar allows one atom;
    flattened by conjunctions, rejected by :func:`_one` anywhere else."""

    __slots__ = ("items",)

    def __init__(self, items: list[Any]) -> None:
        self.items = items


def _atoms_or_run(tok: Token) -> Atom | _Run:
    atoms = _split_atom_run(tok)
    return atoms[0] if len(atoms) == 1 else _Run(atoms)


def _flatten(items: list[Any]) -> tuple[Any, ...]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, _Run):
            out.extend(item.items)
        elif isinstance(item, str):  # a bare GROUND_ATOMS or NUMERIC_FACTS run (in :init)
            tok = cast(Token, item)  # a str child is a token (ours; lark's when lark explains an error)
            out.extend(_split_numeric_run(tok) if tok.type == "NUMERIC_FACTS" else _split_atom_run(tok))
        else:
            out.append(item)
    return tuple(out)


def _pair(c: list[Any], keyword: str, what: str) -> list[Any]:
    """The two operands after a keyword token, whether they came as two
    children or as one run of two atoms."""
    if len(c) == 2 and isinstance(c[1], str):
        atoms = _split_atom_run(cast(Token, c[1]))
        if len(atoms) != 2:
            span = atoms[2].span if len(atoms) > 2 else token_span(c[0])
            raise PDDLSyntaxError(f"'{keyword}' takes {what}, not {len(atoms)} atom(s)", span=span)
        return atoms
    return [_one(c[1]), _one(c[2])]


def _one(item: Any, what: str = "one condition") -> Any:
    if isinstance(item, _Run):
        second = item.items[1]
        raise PDDLSyntaxError(
            f"unexpected '{second}': only {what} may stand here",
            span=second.span,
            hint="wrap several conditions or effects in '(and ...)'",
        )
    return item


def _parts(c: list[Any], what: str) -> dict[str, Any]:
    """The ``(kind, value, span)`` sections of an action (``c[1]`` its name) by kind, each at most once."""
    parts: dict[str, Any] = {}
    for kind, value, span in c[2:]:
        if kind in parts:
            raise PDDLSyntaxError(
                f"the {what} '{c[1].value}' has more than one {kind} section",
                code=ErrorCode.DUPLICATE_SECTION,
                span=span,
            )
        parts[kind] = value
    return parts


def _term(tok: Token) -> Variable | Constant:
    span = Span(tok.line, tok.column, tok.end_line, tok.end_column)  # type: ignore[arg-type]
    if tok.type == "VARIABLE":
        return Variable(tok.value.lower(), span)
    return Constant(tok.value.lower(), span)


def _number(tok: Token) -> Number:
    return _literal(tok.value, token_span(tok))


def _literal(text: str, span: Span) -> Number:
    """The number ``text`` at ``span``; ``NUMERIC_OVERFLOW`` there when it
    passes the bound on exact numbers (:data:`pypddlengine.exact.MAX_NUMBER_BITS`)."""
    try:
        return Number(parse_number(text), span)
    except NumberTooLarge as err:
        raise PDDLSyntaxError(
            f"this number ({err.args[0]}) is past the bound of {exact.MAX_NUMBER_BITS:,} bits on exact numbers",
            code=ErrorCode.NUMERIC_OVERFLOW, span=span, details={"limit": exact.MAX_NUMBER_BITS},
            hint="write a smaller number, or raise pypddlengine.exact.MAX_NUMBER_BITS (see docs/limits.md)",
        ) from None


_STEP_WORDS: dict[str, tuple[str, tuple[str, ...], str]] = {}
"""Inner text of a step -> (name, args, text), shared by the plans of a process
(a batch validation parses many plans of one task: mostly the same steps)."""
_MAX_STEP_WORDS = 1 << 16


StepWords = tuple[str, tuple[str, ...], str]
"""A plan step's folded name, folded arguments and text ``(name arg ...)`` as written (whitespace made single)."""


def _fold_step(inner: str) -> StepWords:
    """The words of a step's inner text, remembered in :data:`_STEP_WORDS`."""
    folded = inner.lower().split()  # folding the whole text folds each word alike
    words = (folded[0], tuple(folded[1:]), f"({' '.join(inner.split())})")
    if len(_STEP_WORDS) >= _MAX_STEP_WORDS:
        _STEP_WORDS.clear()
    _STEP_WORDS[inner] = words
    return words


def step_words(inner: str) -> StepWords:
    """The words of a step's inner text ``name arg ...`` (remembered, see :data:`_STEP_WORDS`)."""
    return _STEP_WORDS.get(inner) or _fold_step(inner)


def _steps_from_run(tok: Token, time: float | None) -> list[PlanStep]:
    """Plan steps of a GROUND_ATOMS run, keeping each step's original text.

    ``span`` covers the whole ``(name arg ...)``; argument spans are left empty
    and recomputed from the source when a message needs one."""
    steps: list[PlanStep] = []
    append = steps.append
    known = _STEP_WORDS
    for inner, span in _run_pieces(tok):
        words = known.get(inner) or _fold_step(inner)
        append(make_plan_step(words[0], words[1], span, words[2], None if steps else time))
    return steps


class NotPlainPlan(Exception):
    """Raised by :class:`StepWordsTransformer` for a plan that is more than runs of steps."""


class StepWordsTransformer:
    """The plan rules for :func:`pypddlengine.syntax.plan_words`: a plan's steps
    as shared :data:`StepWords`, no object per step. Only plans written as
    runs of ``(name arg ...)`` steps (what planners and most scripts write)
    are taken; a time prefix, a duration or a step the lexer did not take as
    part of a run raises :class:`NotPlainPlan`."""

    def plan(self, c: list[list[StepWords]]) -> list[StepWords]:
        return [words for run in c for words in run]

    def plan_step(self, c: list[Token]) -> list[StepWords]:
        if len(c) != 1 or c[0].type != "GROUND_ATOMS":
            raise NotPlainPlan
        value: str = c[0].value
        # without a comment, every "(...)" of a run is a step (a run holds nothing but steps and whitespace)
        inners = _INNER.findall(value) if ";" not in value else [inner for inner, _ in _run_pieces(c[0])]
        known = _STEP_WORDS
        return [known.get(inner) or _fold_step(inner) for inner in inners]


class PDDLTransformer:
    """Builds model nodes from the grammar in ``pddl.lark``.

    Its methods are called by either parser runtime (:mod:`._lalr`, or lark
    when explaining an error), so a token is recognised as a ``str`` (both
    runtimes' tokens subclass it; no other child is a string)."""

    # ------------------------------------------------------------ files

    def domain(self, c: list[Any]) -> Domain:
        name_tok: Token = c[0]
        reqs: list[Requirement] = []
        types: list[TypeDecl] = []
        constants: list[ObjectDecl] = []
        predicates: list[PredicateDecl] = []
        functions: list[FunctionDecl] = []
        actions: list[ActionDecl] = []
        axioms: list[DerivedDecl] = []
        durative: list[DurativeActionDecl] = []
        unsupported: list[UnsupportedConstruct] = []
        spans: list[tuple[str, Span]] = []
        for item in c[1:]:
            if isinstance(item, ActionDecl):
                actions.append(item)
                continue
            if isinstance(item, DurativeActionDecl):
                durative.append(item)
                continue
            if isinstance(item, DerivedDecl):
                axioms.append(item)
                continue
            if isinstance(item, UnsupportedConstruct):
                unsupported.append(item)
                spans.append((item.keyword, item.span))  # type: ignore[arg-type]
                continue
            spans.append((item.kind, item.span))
            if item.kind == ":requirements":
                reqs.extend(item.items)
            elif item.kind == ":types":
                types.extend(item.items)
            elif item.kind == ":constants":
                constants.extend(item.items)
            elif item.kind == ":predicates":
                predicates.extend(item.items)
            elif item.kind == ":functions":
                functions.extend(item.items)
        return Domain(
            name=name_tok.value.lower(),
            requirements=tuple(reqs),
            types=tuple(types),
            constants=tuple(constants),
            predicates=tuple(predicates),
            functions=tuple(functions),
            actions=tuple(actions),
            unsupported=tuple(unsupported),
            span=token_span(name_tok),
            display=name_tok.value,
            section_spans=tuple(spans),
            axioms=tuple(axioms),
            durative_actions=tuple(durative),
        )

    def problem(self, c: list[Any]) -> Problem:
        name_tok: Token = c[0]
        domain_name = ""
        domain_span: Span | None = None
        reqs: list[Requirement] = []
        objects: list[ObjectDecl] = []
        init: list[Any] = []
        goal: Any = None
        metric: Metric | None = None
        unsupported: list[UnsupportedConstruct] = []
        spans: list[tuple[str, Span]] = []
        for item in c[1:]:
            if isinstance(item, UnsupportedConstruct):
                unsupported.append(item)
                spans.append((item.keyword, item.span))  # type: ignore[arg-type]
                continue
            spans.append((item.kind, item.span))
            kind = item.kind
            if kind == ":domain":
                domain_name, domain_span = item.items
            elif kind == ":requirements":
                reqs.extend(item.items)
            elif kind == ":objects":
                objects.extend(item.items)
            elif kind == ":init":
                init.extend(item.items)
            elif kind == ":goal":
                goal = item.items
            elif kind == ":metric":
                metric = item.items
        if isinstance(goal, _Empty):
            goal = And((), None)
        return Problem(
            name=name_tok.value.lower(),
            domain_name=domain_name,
            requirements=tuple(reqs),
            objects=tuple(objects),
            init=tuple(init),
            goal=goal,
            metric=metric,
            unsupported=tuple(unsupported),
            span=token_span(name_tok),
            display=name_tok.value,
            section_spans=tuple(spans),
            domain_span=domain_span,
        )

    # ------------------------------------------------------------ domain sections

    def requirements(self, c: list[Token]) -> _Section:
        return _Section(
            ":requirements",
            [Requirement(t.value.lower(), token_span(t)) for t in c[1:]],
            token_span(c[0]),
        )

    def types_def(self, c: list[Any]) -> _Section:
        items = [TypeDecl(tok.value.lower(), types, token_span(tok), tok.value, spans) for tok, types, spans in c[1]]
        return _Section(":types", items, token_span(c[0]))

    def constants_def(self, c: list[Any]) -> _Section:
        items = [ObjectDecl(tok.value.lower(), types, token_span(tok), tok.value, spans) for tok, types, spans in c[1]]
        return _Section(":constants", items, token_span(c[0]))

    def objects_def(self, c: list[Any]) -> _Section:
        items = [ObjectDecl(tok.value.lower(), types, token_span(tok), tok.value, spans) for tok, types, spans in c[1]]
        return _Section(":objects", items, token_span(c[0]))

    def predicates_def(self, c: list[Any]) -> _Section:
        return _Section(":predicates", c[1:], token_span(c[0]))

    def predicate_skeleton(self, c: list[Any]) -> PredicateDecl:
        tok: Token = c[0]
        return PredicateDecl(tok.value.lower(), tuple(c[1]), token_span(tok), tok.value)

    def functions_def(self, c: list[Any]) -> _Section:
        out: list[FunctionDecl] = []
        pending: list[FunctionDecl] = []
        for child in c[1:]:
            if isinstance(child, _TypeSpec):
                if not pending:
                    raise PDDLSyntaxError("a '- type' must follow the functions it types", span=child.span)
                result = child.types[0] if len(child.types) == 1 else "either"
                out.extend(
                    FunctionDecl(f.name, f.parameters, result, f.span, f.display) for f in pending
                )
                pending = []
            else:
                pending.append(child)
        out.extend(pending)
        return _Section(":functions", out, token_span(c[0]))

    def function_skeleton(self, c: list[Any]) -> FunctionDecl:
        tok: Token = c[0]
        return FunctionDecl(tok.value.lower(), tuple(c[1]), "number", token_span(tok), tok.value)

    def action_def(self, c: list[Any]) -> ActionDecl:
        name_tok: Token = c[1]
        parts = _parts(c, "action")
        pre = parts.get(":precondition")
        eff = parts.get(":effect")
        return ActionDecl(
            name=name_tok.value.lower(),
            parameters=tuple(parts.get(":parameters", ())),
            precondition=None if isinstance(pre, _Empty) else pre,
            effect=None if isinstance(eff, _Empty) else eff,
            span=token_span(name_tok),
            display=name_tok.value,
        )

    def parameters(self, c: list[Any]) -> tuple[str, Any, Span]:
        return (":parameters", c[1], token_span(c[0]))

    def precondition(self, c: list[Any]) -> tuple[str, Any, Span]:
        return (":precondition", _one(c[1]), token_span(c[0]))

    def effect_part(self, c: list[Any]) -> tuple[str, Any, Span]:
        return (":effect", _one(c[1], "one effect"), token_span(c[0]))

    def empty(self, c: list[Any]) -> _Empty:
        return _EMPTY

    def derived_head(self, c: list[Any]) -> tuple[Token, list[Parameter]]:
        return (c[0], c[1])

    def derived_def(self, c: list[Any]) -> DerivedDecl:
        head = c[1]
        if len(c) == 2:  # "(p ?x) (q ?x)": an untyped head and a one-atom body lexed as one run
            atom, body = _pair(c, ":derived", "a head and one condition")
        else:
            body = _one(c[2])
            atom = _one(_atoms_or_run(cast(Token, head)), "one head atom") if isinstance(head, str) else None
        if atom is not None:  # "(p ?x ?y)" lexed as (part of) an atom run
            if any(isinstance(t, Constant) for t in atom.terms):
                raise PDDLSyntaxError(
                    f"the head of a derived predicate takes variables only: {atom}",
                    code=ErrorCode.SYNTAX_ERROR, span=atom.span)
            params = [Parameter(t.name, span=atom.span) for t in atom.terms]
            name, display, span = atom.predicate, _FIRST_NAME.match(head.value).group(1), atom.span  # type: ignore[union-attr]
        else:
            tok, params = head
            name, display, span = tok.value.lower(), tok.value, token_span(tok)
        return DerivedDecl(name, tuple(params), body, span, display)

    # ------------------------------------------------------------ durative actions

    def durative_def(self, c: list[Any]) -> DurativeActionDecl:
        name_tok: Token = c[1]
        parts = _parts(c, "durative action")
        duration = parts.get(":duration")
        if duration is None:
            raise PDDLSyntaxError(f"the durative action '{name_tok.value}' has no :duration",
                                  span=token_span(name_tok), hint="add ':duration (= ?duration 1)'")
        return DurativeActionDecl(
            name=name_tok.value.lower(),
            parameters=tuple(parts.get(":parameters", ())),
            duration=tuple(duration),
            conditions=tuple(parts.get(":condition", ())),
            effects=tuple(parts.get(":effect", ())),
            span=token_span(name_tok),
            display=name_tok.value,
        )

    def da_duration(self, c: list[Any]) -> tuple[str, Any, Span]:
        return (":duration", [] if isinstance(c[1], _Empty) else c[1], token_span(c[0]))

    def dur_and(self, c: list[Any]) -> list[DurationConstraint]:
        return [d for part in c[1:] for d in part]

    def dur_compare(self, c: list[Any]) -> list[DurationConstraint]:
        op, var = c[0], c[1]
        if var.value.lower() != "?duration":
            raise PDDLSyntaxError(f"a duration constraint compares ?duration, not '{var.value}'",
                                  span=token_span(var))
        return [DurationConstraint(op.value, c[2], "start", token_span(op))]

    def dur_timed(self, c: list[Any]) -> list[DurationConstraint]:
        at = c[1].value.lower()
        return [DurationConstraint(d.op, d.value, at, d.span) for d in c[2]]

    def da_condition(self, c: list[Any]) -> tuple[str, Any, Span]:
        return (":condition", [] if isinstance(c[1], _Empty) else c[1], token_span(c[0]))

    def da_and(self, c: list[Any]) -> list[TimedCondition]:
        return [t for part in c[1:] for t in part]

    def da_timed(self, c: list[Any]) -> list[TimedCondition]:
        return [TimedCondition(c[1].value.lower(), _one(c[2]), token_span(c[0]))]

    def da_over_all(self, c: list[Any]) -> list[TimedCondition]:
        return [TimedCondition("all", _one(c[2]), token_span(c[0]))]

    def da_forall(self, c: list[Any]) -> list[TimedCondition]:
        # (forall (?x) (and (at start a) (over all b))) = (at start (forall (?x) a)) and (over all (forall (?x) b))
        return [TimedCondition(t.at, Forall(tuple(c[1]), t.condition, token_span(c[0])), t.span) for t in c[2]]

    def da_preference(self, c: list[Any]) -> list[TimedCondition]:
        name = c[1].value.lower() if len(c) == 3 else None
        return [TimedCondition(t.at, Preference(name, t.condition, token_span(c[0])), t.span) for t in c[-1]]

    def da_effect_part(self, c: list[Any]) -> tuple[str, Any, Span]:
        return (":effect", [] if isinstance(c[1], _Empty) else c[1], token_span(c[0]))

    def da_eff_and(self, c: list[Any]) -> list[TimedEffect]:
        return [t for part in c[1:] for t in part]

    def da_eff_timed(self, c: list[Any]) -> list[TimedEffect]:
        effect = _one(c[2], "one effect")
        return [TimedEffect(c[1].value.lower(), effect, token_span(c[0]))]

    def da_eff_untimed(self, c: list[Any]) -> list[TimedEffect]:
        # PDDL 2.1 writes a continuous effect untimed: (increase (f) (* #t 2))
        return [TimedEffect("continuous", self.eff_numeric(c), token_span(c[0]))]

    def da_eff_when(self, c: list[Any]) -> list[TimedEffect]:
        # (when (at end c) (at end e)) = (at end (when c e)); a condition at another time than its effect
        # (at start c -> at end e, or over all) is kept as at "cross-time" for the checker to refuse, located
        span = token_span(c[0])
        conds: list[TimedCondition] = c[1]
        out = []
        for timed in c[2]:
            parts = tuple(t.condition for t in conds)
            cond = parts[0] if len(parts) == 1 else And(parts, span)
            at = timed.at if all(t.at == timed.at for t in conds) else "cross-time"
            out.append(TimedEffect(at, When(cond, timed.effect, span) if parts else timed.effect, span))
        return out

    def da_eff_forall(self, c: list[Any]) -> list[TimedEffect]:
        return [TimedEffect(t.at, ForallEffect(tuple(c[1]), t.effect, token_span(c[0])), t.span) for t in c[2]]

    def other_section(self, c: list[Any]) -> UnsupportedConstruct:
        tok: Token = c[0]
        hash_t = next((t for t in c[1:] if t.value.lower() == "#t"), None)
        return UnsupportedConstruct(tok.value.lower(), token_span(tok), token_span(hash_t) if hash_t else None)

    # ------------------------------------------------------------ typed lists

    def typed_names(self, c: list[Any]) -> list[tuple[Token, tuple[str, ...], tuple[Span, ...]]]:
        if any(getattr(child, "type", None) == "NAMES" for child in c):
            c = [name for child in c for name in
                 (_split_names(child) if getattr(child, "type", None) == "NAMES" else (child,))]
        return _group_typed(c)

    def typed_variables(self, c: list[Any]) -> list[Parameter]:
        return [Parameter(tok.value.lower(), types, token_span(tok), spans) for tok, types, spans in _group_typed(c)]

    def type_spec(self, c: list[Any]) -> _TypeSpec:
        arg = c[1]
        if isinstance(arg, str):
            tok = cast(Token, arg)
            return _TypeSpec((tok.value.lower(),), token_span(c[0]), (token_span(tok),))
        return _TypeSpec(tuple(t.value.lower() for t in arg), token_span(c[0]), tuple(token_span(t) for t in arg))

    def either(self, c: list[Token]) -> list[Token]:
        return c[1:]

    # ------------------------------------------------------------ goal descriptions

    def atomic_formula(self, c: list[Token]) -> Atom:
        tok = c[0]
        if tok.type == "ATOMS":
            return _atoms_or_run(tok)  # type: ignore[return-value]
        return Atom(
            tok.value.lower(),
            tuple([_term(t) for t in c[1:]]),
            Span(tok.line, tok.column, tok.end_line, tok.end_column),  # type: ignore[arg-type]
        )

    def gd_and(self, c: list[Any]) -> And:
        return And(_flatten(c[1:]), token_span(c[0]))

    def gd_not(self, c: list[Any]) -> Not:
        return Not(_one(c[1]), token_span(c[0]))

    def gd_or(self, c: list[Any]) -> Or:
        return Or(_flatten(c[1:]), token_span(c[0]))

    def gd_imply(self, c: list[Any]) -> Imply:
        parts = _pair(c, "imply", "two conditions")
        return Imply(parts[0], parts[1], token_span(c[0]))

    def gd_exists(self, c: list[Any]) -> Exists:
        return Exists(tuple(c[1]), _one(c[2]), token_span(c[0]))

    def gd_forall(self, c: list[Any]) -> Forall:
        return Forall(tuple(c[1]), _one(c[2]), token_span(c[0]))

    def gd_equals(self, c: list[Any]) -> Equals | Compare:
        left, right = c[1], c[2]
        if isinstance(left, str) and isinstance(right, str):
            return Equals(_term(cast(Token, left)), _term(cast(Token, right)), token_span(c[0]))
        return Compare("=", self._as_num(left), self._as_num(right), token_span(c[0]))

    def gd_compare(self, c: list[Any]) -> Compare:
        return Compare(c[0].value, c[1], c[2], token_span(c[0]))

    def gd_preference(self, c: list[Any]) -> Preference:
        name = c[1].value.lower() if len(c) == 3 else None
        return Preference(name, _one(c[-1]), token_span(c[0]))

    @staticmethod
    def _as_num(arg: Any) -> Any:
        if isinstance(arg, str):  # a bare name or variable used as a number
            tok = cast(Token, arg)
            return FunctionTerm(tok.value.lower(), (), token_span(tok))
        return arg

    # ------------------------------------------------------------ numeric expressions

    def f_bare(self, c: list[Token]) -> FunctionTerm:
        return FunctionTerm(c[0].value.lower(), (), token_span(c[0]))

    def f_variable(self, c: list[Token]) -> DurationVar:
        tok = c[0]
        if tok.value.lower() != "?duration":
            raise PDDLSyntaxError(f"a variable is not a number: '{tok.value}' (only ?duration, inside a durative "
                                  "action, stands for a number)", span=token_span(tok),
                                  hint="write a function term such as '(f ?x)'")
        return DurationVar(token_span(tok))

    def f_continuous(self, c: list[Token]) -> FunctionTerm:
        return FunctionTerm("#t", (), token_span(c[0]))  # the checker refuses it as a continuous effect

    def f_number(self, c: list[Token]) -> Number:
        return _number(c[0])

    def f_head(self, c: list[Token]) -> FunctionTerm:
        tok = c[0]
        return FunctionTerm(tok.value.lower(), tuple(_term(t) for t in c[1:]), token_span(tok))

    def f_binary(self, c: list[Any]) -> BinaryExpr:
        op: Token = c[0]
        span = token_span(op)
        expr = BinaryExpr(op.value, c[1], c[2], span)
        for more in c[3:]:
            expr = BinaryExpr(op.value, expr, more, span)
        return expr

    def f_minus(self, c: list[Any]) -> BinaryExpr:
        if len(c) == 2:  # (- e): negation
            return BinaryExpr("-", c[1], None, token_span(c[0]))
        return self.f_binary(c)

    # ------------------------------------------------------------ effects

    def eff_and(self, c: list[Any]) -> EffectAnd:
        return EffectAnd(_flatten(c[1:]), token_span(c[0]))

    def eff_forall(self, c: list[Any]) -> ForallEffect:
        return ForallEffect(tuple(c[1]), _one(c[2], "one effect"), token_span(c[0]))

    def eff_when(self, c: list[Any]) -> When:
        parts = _pair(c, "when", "a condition and an effect")
        effect = Add(parts[1], parts[1].span) if isinstance(parts[1], Atom) else parts[1]
        return When(parts[0], _one(effect, "one effect"), token_span(c[0]))

    def eff_delete(self, c: list[Any]) -> Delete:
        return Delete(_one(c[1], "one atom"), token_span(c[0]))

    def eff_add(self, c: list[Any]) -> Add | _Run:
        if isinstance(c[0], _Run):
            return _Run([Add(a, a.span) for a in c[0].items])
        return Add(c[0], c[0].span)

    def eff_numeric(self, c: list[Any]) -> NumericEffect:
        name = cast(Token, c[1])  # a 0-ary function written without parentheses: its name token
        target = c[1] if not isinstance(c[1], str) else FunctionTerm(name.value.lower(), (), token_span(name))
        return NumericEffect(c[0].value.lower(), target, c[2], token_span(c[0]))

    # ------------------------------------------------------------ problem sections

    def problem_domain(self, c: list[Token]) -> _Section:
        return _Section(":domain", (c[1].value.lower(), token_span(c[1])), token_span(c[0]))

    def init_def(self, c: list[Any]) -> _Section:
        return _Section(":init", _flatten(c[1:]), token_span(c[0]))

    def goal_def(self, c: list[Any]) -> _Section:
        return _Section(":goal", _one(c[1]), token_span(c[0]))

    def metric_def(self, c: list[Any]) -> _Section:
        metric = Metric(c[1].value.lower(), c[2], token_span(c[1]))
        return _Section(":metric", metric, token_span(c[0]))

    def ground_atom(self, c: list[Token]) -> Atom:
        tok = c[0]
        if tok.type == "GROUND_ATOMS":
            return _atoms_or_run(tok)  # type: ignore[return-value]
        terms = tuple(
            [
                Constant(t.value.lower(), Span(t.line, t.column, t.end_line, t.end_column))  # type: ignore[arg-type]
                for t in c[1:]
            ]
        )
        return Atom(tok.value.lower(), terms, Span(tok.line, tok.column, tok.end_line, tok.end_column))  # type: ignore[arg-type]

    def init_not(self, c: list[Any]) -> Not:
        return Not(_one(c[1], "one atom"), token_span(c[0]))

    init_negated = init_not

    def init_numeric(self, c: list[Any]) -> NumericFact:
        return NumericFact(c[1], _number(c[2]), token_span(c[0]))

    def init_timed(self, c: list[Any]) -> TimedLiteral:
        head: Token = c[0]
        if head.value.lower() != "at":
            raise PDDLSyntaxError(
                f"unexpected number after '{head.value}': an :init fact is '(predicate object ...)'",
                span=token_span(c[1]),
            )
        return TimedLiteral(_number(c[1]), _one(c[2], "one atom"), token_span(head))

    # ------------------------------------------------------------ plans and action references

    def plan(self, c: list[list[PlanStep]]) -> Plan:
        return Plan(tuple(step for steps in c for step in steps))

    def plan_step(self, c: list[Token]) -> list[PlanStep]:
        time: float | None = None
        i = 0
        if c[0].type == "STEP_TIME":
            time = float(c[0].value.rstrip(": \t"))
            i = 1
        if c[-1].type == "DURATION":
            c = c[:-1]
        if c[i].type == "GROUND_ATOMS":
            return _steps_from_run(c[i], time)
        name = c[i]
        args = c[i + 1 :]
        text = f"({' '.join(t.value for t in (name, *args))})"
        return [
            PlanStep(
                name.value.lower(),
                tuple(t.value.lower() for t in args),
                token_span(name),
                text,
                tuple(token_span(t) for t in args),
                time,
            )
        ]

    def _ref(self, c: list[Token]) -> ActionRef:
        name, args = c[0], c[1:]
        return ActionRef(
            name.value.lower(),
            tuple(t.value.lower() for t in args),
            token_span(name),
            f"({' '.join(t.value for t in c)})",
            tuple(token_span(t) for t in args),
        )

    def ref_token(self, c: list[Token]) -> ActionRef:
        steps = _steps_from_run(c[0], None)
        if len(steps) > 1:
            raise PDDLSyntaxError(
                f"unexpected '{steps[1].text}': give one action at a time", span=steps[1].span
            )
        step = steps[0]
        return ActionRef(step.name, step.args, step.span, step.text, step.arg_spans)

    ref_paren = _ref
    ref_words = _ref
    ref_call = _ref
