"""The PDDL, plan and action-reference parser.

One LALR grammar, ``pddl.lark`` (shipped in this package), analysed by lark.
Parsing runs on :mod:`._lalr`, a small runtime replaying lark's tables from
the per-user cache, so a short command such as ``pypddl validate`` neither
imports lark nor analyses the grammar; the transformer runs inline, so no
parse tree is built. When the input does not parse, lark itself parses it
again (``_lark_parser``) and its exception is translated into a
:class:`PDDLSyntaxError` whose message names what was expected in PDDL words
(``')'``, ``a predicate name``), never lark's terminal names.
"""

from __future__ import annotations

import _thread
import functools
import itertools
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..errors import ErrorCode, InputTooLargeError, PDDLError, PDDLSyntaxError, SourceFile, Span
from ..model import ActionRef, Domain, Plan, Problem
from ..usercache import cache_folder
from ._lalr import ParseFailure, Tables, load_tables
from ._transformer import NotPlainPlan, PDDLTransformer, StepWords, StepWordsTransformer, step_words

if TYPE_CHECKING:
    from lark import Lark, Token
    from lark.exceptions import UnexpectedInput

__all__ = [
    "KNOWN_DOMAIN_SECTIONS",
    "KNOWN_PROBLEM_SECTIONS",
    "MAX_INPUT_BYTES",
    "MAX_NESTING",
    "StepWords",
    "parse_action_ref",
    "parse_domain",
    "parse_pddl",
    "parse_plan",
    "parse_problem",
    "plan_words",
    "read_text",
]

MAX_INPUT_BYTES = 8 * 1024 * 1024
"""Inputs larger than this are rejected with ``INPUT_TOO_LARGE`` (override per call). It bounds the time and
memory of a parse: a domain of 8 MiB written out in full (no runs of simple atoms, the slow case) took 50 s and
223 MB at load 7 on the project's 2-core machine (the limit was 64 MiB, where a 41 MB domain took more than 90 s
and 1.6 GB). 8 MiB is 40 times the largest file of the IPC corpus."""

KNOWN_DOMAIN_SECTIONS = (":requirements", ":types", ":constants", ":predicates", ":functions", ":action", ":derived")
KNOWN_PROBLEM_SECTIONS = (":domain", ":requirements", ":objects", ":init", ":goal", ":metric")

_GRAMMAR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pddl.lark")
_lock = _thread.allocate_lock()  # not threading: its import costs more than the parse of a plan

MAX_NESTING = 200
"""Parentheses nested deeper than this are rejected with ``NESTING_LIMIT``
before parsing (the checker and compiler recurse once or twice a level; real
PDDL nests a few dozen levels at most)."""


START = ("pddl_file", "plan", "action_ref")


def grammar_text() -> str:
    """The grammar, ``pddl.lark``: the single source of both parser runtimes."""
    with open(_GRAMMAR, encoding="utf-8") as f:
        return f.read()


def _cache_file(grammar: str) -> str | bool:
    """Where lark keeps its analysed grammar between processes (used only to
    explain syntax errors), or ``False``. A pickle, so it lives in the
    per-user folder (mode 0700), never in a shared temporary folder; its name
    carries a digest of the grammar and the lark version."""
    folder = cache_folder()
    if folder is None:
        return False
    import hashlib

    import lark

    digest = hashlib.sha256(f"{lark.__version__}\n{grammar}".encode()).hexdigest()[:20]
    return os.path.join(folder, f"pddl-grammar-{digest}.lark-cache")


@functools.cache
def _lark_parser() -> Lark:
    """The reference runtime: lark itself, with the same transformer."""
    from lark import Lark

    from ._lalr_build import lark_options

    with _lock:
        grammar = grammar_text()
        return Lark(grammar, transformer=PDDLTransformer(), cache=_cache_file(grammar), **lark_options(START))


@functools.cache
def _words_parser() -> tuple[Tables, Any] | None:
    """The fast parser with :class:`StepWordsTransformer` for the plan rules."""
    fast = _fast_parser()
    if fast is None:
        return None
    tables = fast[0]
    callbacks, tokens = tables.bind(StepWordsTransformer())
    return tables, (callbacks, tokens)


@functools.cache
def _fast_parser() -> tuple[Tables, Any] | None:
    """The tables and the bound transformer, or ``None`` when the tables
    cannot be built (lark then parses everything)."""
    with _lock:
        try:
            tables = load_tables(grammar_text(), START)
        except Exception:  # e.g. a grammar needing a lark feature the runtime lacks: lark parses instead
            return None
        return tables, tables.bind(PDDLTransformer())


# ----------------------------------------------------------------------------- input checks


def read_text(data: str | bytes, *, name: str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """Decode and sanity-check raw input: size, emptiness, binary content.

    Bytes are decoded as UTF-8 (a BOM is dropped), falling back to Latin-1 for
    legacy files whose comments hold other bytes."""
    size = len(data)
    if size > max_bytes:
        raise InputTooLargeError(
            f"{name} is {size:,} bytes, more than the limit of {max_bytes:,}",
            hint="raise the size limit if this input is really intended",
            details={"size": size, "limit": max_bytes},
        )
    if isinstance(data, bytes):
        if b"\x00" in data:
            raise PDDLSyntaxError(f"{name} is binary data, not PDDL text", code=ErrorCode.BINARY_INPUT)
        try:  # "utf-8" and the BOM dropped by hand: the "utf-8-sig" codec is a module imported on first use
            text = data.decode("utf-8")
            if text.startswith("\ufeff"):
                text = text[1:]
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    else:
        text = data
        if text.startswith("\ufeff"):
            text = text[1:]
    if "\x00" in text or _looks_binary(text):
        raise PDDLSyntaxError(f"{name} is binary data, not PDDL text", code=ErrorCode.BINARY_INPUT)
    text = unify_line_ends(text)
    if _is_blank(text):
        raise PDDLSyntaxError(f"{name} is empty (no PDDL apart from comments)", code=ErrorCode.EMPTY_INPUT)
    return text


_LINE_END = re.compile(r"\r\n?")


def unify_line_ends(text: str) -> str:
    """``text`` with every line end as ``\\n``: a CR-LF pair, and a lone CR
    (classic Mac files), are each one line end. Columns stay as they were."""
    return _LINE_END.sub("\n", text) if "\r" in text else text


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
_CODE_LINE = re.compile(r"^[ \t\r\f\v]*+[^;\s]", re.MULTILINE)


_COMMENT = re.compile(r";[^\n]*")
_NOT_PAREN = re.compile(r"[^()]+")
_PAREN_OR_COMMENT = re.compile(r";[^\n]*|[()]")
_STEP = {"(": 1, ")": -1}


def check_nesting(text: str, source: SourceFile, what: str, limit: int | None = None) -> None:
    """Raise ``NESTING_LIMIT`` at the first parenthesis nested deeper than
    ``limit`` (default: :data:`MAX_NESTING` as it is when called, so setting
    it at run time takes effect; comments ignored). Linear and mostly in C: a
    few ms per MB."""
    if limit is None:
        limit = MAX_NESTING
    if text.count("(") <= limit:
        return
    parens = _NOT_PAREN.sub("", _COMMENT.sub("", text))
    if max(itertools.accumulate(map(_STEP.__getitem__, parens)), default=0) <= limit:
        return
    depth = 0
    for match in _PAREN_OR_COMMENT.finditer(text):
        token = match.group()
        depth += _STEP.get(token, 0)
        if depth > limit:
            start = match.start()
            line = text.count("\n", 0, start) + 1
            column = start - text.rfind("\n", 0, start)
            raise InputTooLargeError(
                f"{what} nests parentheses more than {limit} levels deep",
                code=ErrorCode.NESTING_LIMIT,
                span=Span(line, column, line, column + 1),
                source=source,
                hint=f"flatten the nested (and ...)/(not ...): at most {limit} levels are accepted",
                details={"limit": limit},
            )


def _looks_binary(text: str) -> bool:
    sample = text[:4096]
    return len(_CONTROL.findall(sample)) > max(4, len(sample) // 50)


def _is_blank(text: str) -> bool:
    """Nothing but whitespace and comments."""
    return _CODE_LINE.search(text) is None


# ----------------------------------------------------------------------------- error translation

_WORDS = {
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "NAME": "a name",
    "NAMES": "a name",
    "VARIABLE": "a variable such as ?x",
    "KEYWORD": "a :keyword",
    "NUMBER": "a number",
    "SEXPR_ATOM": "a symbol",
    "STEP_TIME": "a step time such as '0:'",
    "DURATION": "a duration such as '[1]'",
    "MINUS": "'-'",
    "PLUS": "'+'",
    "TIMES": "'*'",
    "DIVIDE": "'/'",
    "EQUALS": "'='",
    "LT": "'<'",
    "LE": "'<='",
    "GT": "'>'",
    "GE": "'>='",
    "$END": "the end of the input",
    "<END-OF-FILE>": "the end of the input",
    "ATOMS": "an atom",
    "GROUND_ATOMS": "an atom",
    "NUMERIC_FACTS": "an initial value '(= (f ...) n)'",
    "_DEFINE": "'define'",
    "_DOMAIN": "'domain'",
    "_PROBLEM": "'problem'",
    "MINIMIZE": "'minimize'",
    "MAXIMIZE": "'maximize'",
    "SCALE_UP": "'scale-up'",
    "SCALE_DOWN": "'scale-down'",
    "DOMAIN_REF": "':domain'",
    "DURATIVE_ACTION": "':durative-action'",
    "DURATION_KW": "':duration'",
    "CONDITION": "':condition'",
    "HASH_T": "'#t'",
}


def _word(terminal: str) -> str:
    if terminal in _WORDS:
        return _WORDS[terminal]
    if terminal.isupper() and terminal.isidentifier():
        keyword = terminal.lower().replace("_", "-")
        if terminal in {
            "REQUIREMENTS", "TYPES", "CONSTANTS", "PREDICATES", "FUNCTIONS", "ACTION", "PARAMETERS",
            "PRECONDITION", "EFFECT", "OBJECTS", "INIT", "GOAL", "METRIC",
        }:
            return f"':{keyword}'"
        return f"'{keyword}'"
    return "a symbol"  # anonymous terminals never reach users by their lark name


def _expected_words(expected: Any) -> list[str]:
    words = sorted({_word(t) for t in expected})
    # present the most helpful alternatives first
    order = {"')'": 0, "'('": 1}
    return sorted(words, key=lambda w: (order.get(w, 2), w))


def _describe_token(tok: Token) -> str:
    if tok.type == "$END":
        return "the end of the input"
    value = tok.value if len(tok.value) <= 40 else tok.value[:37] + "..."
    return f"'{value}'"


def _parens(text: str) -> Iterator[tuple[str, int, int]]:
    """Each '(' or ')' outside comments, with its line and column."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        code = line.split(";", 1)[0]
        for col, ch in enumerate(code, start=1):
            if ch in "()":
                yield ch, lineno, col


def _unclosed_paren(text: str) -> Span | None:
    """Position of the '(' that is never closed (the outermost when it is the
    only one, else the innermost)."""
    stack: list[tuple[int, int]] = []
    for ch, line, col in _parens(text):
        if ch == "(":
            stack.append((line, col))
        elif stack:
            stack.pop()
    if not stack:
        return None
    line, col = stack[0] if len(stack) == 1 else stack[-1]
    return Span(line, col, line, col + 1)


def _open_before(text: str, where: Span) -> Span | None:
    """The innermost '(' still open just before the position ``where``."""
    stack: list[tuple[int, int]] = []
    for ch, line, col in _parens(text):
        if (line, col) >= (where.line, where.column):
            break
        if ch == "(":
            stack.append((line, col))
        elif stack:
            stack.pop()
    if not stack:
        return None
    line, col = stack[-1]
    return Span(line, col, line, col + 1)


def _first_depth(text: str, depth_reached: int) -> Span | None:
    """Position of the first ')' after which the nesting depth is
    ``depth_reached``: 0 is the end of the first top-level form, -1 an
    unmatched ')'."""
    depth = 0
    for ch, line, col in _parens(text):
        depth += 1 if ch == "(" else -1
        if ch == ")" and depth == depth_reached:
            return Span(line, col, line, col + 1)
    return None


def _translate(err: UnexpectedInput, source: SourceFile, what: str) -> PDDLSyntaxError:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    text = source.text
    if isinstance(err, UnexpectedCharacters):
        line, col = err.line, err.column
        pos = err.pos_in_stream
        ch = text[pos] if pos is not None and 0 <= pos < len(text) else "?"
        expected = _expected_words(err.allowed or ())
        msg = f"unexpected character {ch!r} in {what}"
        if expected:
            msg += f"; expected {_join(expected)}"
        return PDDLSyntaxError(
            msg,
            code=ErrorCode.SYNTAX_ERROR,
            span=Span(line, col, line, col + 1),
            source=source,
            details={"expected": expected, "found": ch},
        )
    if isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END"):
        expected = _expected_words(getattr(err, "expected", ()) or ())
        open_span = _unclosed_paren(text)
        if open_span is not None:
            return PDDLSyntaxError(
                f"unbalanced parentheses: the '(' at {open_span} is never closed",
                code=ErrorCode.UNBALANCED_PARENTHESES,
                span=open_span,
                source=source,
                hint="add the missing ')'",
                details={"expected": expected},
            )
        lines = text.splitlines() or [""]
        end = Span(len(lines), len(lines[-1]) + 1, len(lines), len(lines[-1]) + 1)
        return PDDLSyntaxError(
            f"{what} ends too early; expected {_join(expected) or 'more input'}",
            code=ErrorCode.UNEXPECTED_END,
            span=end,
            source=source,
            details={"expected": expected},
        )
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    if tok.type == "NAMES":  # a run of names where none may stand: the first name is the unexpected token
        from lark import Token as LarkToken

        first = tok.value.split()[0]
        tok = LarkToken("NAME", first, tok.start_pos, tok.line, tok.column, tok.line,
                        tok.column + len(first), tok.start_pos + len(first))
    span = Span(tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + 1)
    expected = _expected_words(err.expected or ())
    if tok.type == "RPAR" and "')'" not in expected:
        extra = _first_depth(text, -1)
        if extra is not None:
            return PDDLSyntaxError(
                f"unbalanced parentheses: the ')' at {extra} has no matching '('",
                code=ErrorCode.UNBALANCED_PARENTHESES,
                span=extra,
                source=source,
                details={"expected": expected},
            )
    foreign = next(((i, c) for i, c in enumerate(str(tok.value)) if not c.isascii()), None)
    if foreign is not None and "\n" not in str(tok.value)[:foreign[0]]:
        at = Span(tok.line, tok.column + foreign[0], tok.line, tok.column + foreign[0] + 1)
        char = foreign[1]
        return PDDLSyntaxError(
            f"unexpected {_describe_token(tok)} in {what}: {char!r} (U+{ord(char):04X}) at {at} is not allowed in "
            "a PDDL name",
            code=ErrorCode.SYNTAX_ERROR,
            span=at,
            source=source,
            hint="names are ASCII letters, digits, '-' and '_', starting with a letter",
            details={"expected": expected, "found": tok.value, "character": char},
        )
    if what == "the plan" and "')'" in expected:
        opened = _open_before(text, span)
        if opened is not None:
            return PDDLSyntaxError(
                f"unbalanced parentheses: the '(' at {opened} is not closed before {_describe_token(tok)} at {span}",
                code=ErrorCode.UNBALANCED_PARENTHESES,
                span=opened,
                source=source,
                hint="add the missing ')' to close this step",
                details={"expected": expected, "found": tok.value},
            )
    if expected == ["the end of the input"] and what != "the plan":
        closed = _first_depth(text, 0)
        if closed is not None and (closed.line, closed.column) < (span.line, span.column):
            return PDDLSyntaxError(
                f"unbalanced parentheses: the ')' at {closed} closes the top-level form early, "
                f"so {_describe_token(tok)} at {span} is left outside it",
                code=ErrorCode.UNBALANCED_PARENTHESES,
                span=closed,
                source=source,
                hint="remove an extra ')' at or before this position",
                details={"expected": expected},
            )
    msg = f"unexpected {_describe_token(tok)} in {what}; expected {_join(expected)}"
    hint = None
    if tok.type in {"KEYWORD", "NAME"}:
        options = [w.strip("'") for w in expected if w.startswith("'")]
        import difflib

        close = difflib.get_close_matches(tok.value.lower(), options, n=1, cutoff=0.7)
        if close:
            hint = f"did you mean '{close[0]}'?"
    return PDDLSyntaxError(
        msg,
        code=ErrorCode.SYNTAX_ERROR,
        span=span,
        source=source,
        hint=hint,
        details={"expected": expected, "found": tok.value},
    )


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    if len(words) > 8:
        words = [*words[:8], "..."]
    return ", ".join(words[:-1]) + " or " + words[-1]


def _run(text: str, start: str, source: SourceFile, what: str) -> Any:
    try:
        fast = _fast_parser()
        if fast is not None:
            try:
                return fast[0].parse(text, start, fast[1])
            except ParseFailure:
                pass  # lark parses it again to say what is wrong
        return _run_lark(text, start, source, what)
    except PDDLError as err:  # structural errors raised by the transformer
        if err.source is None:
            err.source = source
        raise


def _run_lark(text: str, start: str, source: SourceFile, what: str) -> Any:
    from lark.exceptions import UnexpectedInput

    try:
        return _lark_parser().parse(text, start=start)
    except UnexpectedInput as err:
        raise _translate(err, source, what) from None
    except RecursionError:
        raise PDDLSyntaxError(
            f"{what} is nested too deeply to parse", code=ErrorCode.SYNTAX_ERROR, source=source
        ) from None


# ----------------------------------------------------------------------------- public entry points


def parse_pddl(
    data: str | bytes,
    *,
    filename: str | None = None,
    max_bytes: int = MAX_INPUT_BYTES,
    _what: str = "the PDDL file",
) -> Domain | Problem:
    """Parse a domain or a problem, whichever the text holds."""
    name = filename or "<pddl>"
    text = read_text(data, name=name, max_bytes=max_bytes)
    source = SourceFile(name, text)
    check_nesting(text, source, _what)
    node = _run(text, "pddl_file", source, _what)
    return _with_source(node, source)


def _with_source(node: Domain | Problem, source: SourceFile) -> Domain | Problem:
    object.__setattr__(node, "source", source)
    return node


def _parse_kind(data: str | bytes, filename: str | None, max_bytes: int, kind: str) -> Domain | Problem:
    """Parse a file that must hold a ``kind`` ("domain" or "problem")."""
    node = parse_pddl(data, filename=filename or f"<{kind}>", max_bytes=max_bytes, _what=f"the {kind}")
    found = "domain" if isinstance(node, Domain) else "problem"
    if found != kind:
        raise PDDLSyntaxError(
            f"expected a {kind} '(define ({kind} ...) ...)', found a {found}",
            code=ErrorCode.WRONG_FILE_KIND,
            span=node.span,
            source=node.source,
            hint="the domain and the problem may have been given in the wrong order",
        )
    return node


def parse_domain(
    data: str | bytes, *, filename: str | None = None, max_bytes: int = MAX_INPUT_BYTES
) -> Domain:
    """Parse a domain from PDDL text (or bytes). ``filename`` is used in messages.

    Raises :class:`PDDLSyntaxError` on malformed text, including a problem
    passed where a domain is expected (code ``WRONG_FILE_KIND``)."""
    return _parse_kind(data, filename, max_bytes, "domain")  # type: ignore[return-value]


def parse_problem(
    data: str | bytes, *, filename: str | None = None, max_bytes: int = MAX_INPUT_BYTES
) -> Problem:
    """Parse a problem from PDDL text (or bytes). See :func:`parse_domain`."""
    return _parse_kind(data, filename, max_bytes, "problem")  # type: ignore[return-value]


def parse_plan(data: str | bytes, *, filename: str | None = None, max_bytes: int = MAX_INPUT_BYTES) -> Plan:
    """Parse a plan in IPC/VAL format: one ``(action arg ...)`` per step.

    ``;`` comments, VAL's ``N:`` step prefixes and ``[duration]`` suffixes are
    accepted, and so are the forms a session takes and ``pypddl play`` prints
    (:func:`plain_steps`): a step without parentheses on a line of its own
    (``unstack c a``) and a numbered line (``1. (unstack c a)``). An empty
    plan (only comments) is a valid, zero-step plan."""
    text, source = _plan_text(data, filename or "<plan>", max_bytes)
    try:
        plan: Plan = _run(text, "plan", source, "the plan")
    except PDDLSyntaxError as err:
        if err.code == ErrorCode.SYNTAX_ERROR:
            err.code = ErrorCode.PLAN_SYNTAX
        raise
    return Plan(plan.steps, source)


def plan_words(data: str | bytes, *, filename: str | None = None, max_bytes: int = MAX_INPUT_BYTES
               ) -> list[StepWords] | None:
    """A plan's steps as ``(name, args, text)`` (see :data:`StepWords`),
    without an object per step: for validating many plans quickly
    (:func:`pypddlengine.validate.validate_plan` takes them). The same grammar
    and parser as :func:`parse_plan`, which gives the same steps. ``None`` when
    the plan is more than runs of plain steps (time prefixes, durations) or
    cannot be parsed: :func:`parse_plan` then gives the steps, or the error."""
    words = _words_parser()
    if words is None:
        return None
    try:
        text, _ = _plan_text(data, filename or "<plan>", max_bytes)
        return words[0].parse(text, "plan", words[1])  # type: ignore[no-any-return]
    except (PDDLError, ParseFailure, NotPlainPlan):
        return None


def _plan_text(data: str | bytes, name: str, max_bytes: int) -> tuple[str, SourceFile]:
    """A plan file's text (size and binary checks, decoded, line ends unified) and its source."""
    size = len(data)
    if size > max_bytes:
        raise InputTooLargeError(f"{name} is {size:,} bytes, more than the limit of {max_bytes:,}")
    if isinstance(data, bytes):
        if b"\x00" in data:
            raise PDDLSyntaxError(f"{name} is binary data, not a plan", code=ErrorCode.BINARY_INPUT)
        try:  # "utf-8" and the BOM dropped by hand: the "utf-8-sig" codec is a module imported on first use
            text = data.decode("utf-8")
            if text.startswith("\ufeff"):
                text = text[1:]
        except UnicodeDecodeError:
            text = data.decode("latin-1")
    else:
        text = data
    text = plain_steps(unify_line_ends(text))
    source = SourceFile(name, text)
    if _looks_binary(text) or "\x00" in text:
        raise PDDLSyntaxError(f"{name} is binary data, not a plan", code=ErrorCode.BINARY_INPUT, source=source)
    return text, source


# "1. (unstack c a)": a history line of ``pypddl play``; not VAL's "0.5: (a)" (a digit follows the dot there)
_NUMBERED_LINE = re.compile(r"^([ \t]*)(\d+\.)(?=[ \t(])", re.MULTILINE)
# "unstack c a": one step of ASCII names without parentheses, alone on its line (a comment may follow)
_BARE_STEP = re.compile(r"^([ \t]*)([A-Za-z][\w-]*(?:[ \t]+[\w-]+)*)(?=[ \t]*(?:;|$))", re.MULTILINE | re.ASCII)


def plain_steps(text: str) -> str:
    """A plan's text with the forms a session accepts written in IPC form: a
    line number ``1.`` (as ``pypddl play``'s history prints it) becomes blanks
    of the same width, and a bare step ``unstack c a`` alone on its line
    becomes ``(unstack c a)``. Everything else is left as it is, so a line
    that is neither still reads as the syntax error it is."""
    if "." in text:
        text = _NUMBERED_LINE.sub(lambda m: m[1] + " " * len(m[2]), text)
    return _BARE_STEP.sub(r"\1(\2)", text)


_REF_SOURCE_NAME = "<action>"
_PLAIN_REF = re.compile(
    r"\((?![ \t]*(?i:and|or|not|imply|exists|forall|when|preference|either|assign|increase|decrease|scale-up|"
    r"scale-down)[ \t)])[ \t]*[a-zA-Z][a-zA-Z0-9_\-]*+(?:[ \t]++[a-zA-Z][a-zA-Z0-9_\-]*+)*+[ \t]*+\)")
"""One ``(name arg ...)`` of plain names: the grammar's GROUND_ATOMS token (``pddl.lark``) for one atom. An
action text that is one needs no parser: its words are the ones the parser's ``ref_token`` rule gives it."""


def parse_action_ref(text: str) -> ActionRef:
    """Parse an action written as ``(stack a b)``, ``stack a b`` or ``stack(a, b)``.

    Any case is accepted; surrounding whitespace, backticks and quotes are
    ignored. Raises :class:`PDDLSyntaxError` with code ``ACTION_SYNTAX``."""
    cleaned = text.strip().strip("`'\"").strip()
    source = SourceFile(_REF_SOURCE_NAME, cleaned)
    if not cleaned:
        raise PDDLSyntaxError("the action is empty", code=ErrorCode.ACTION_SYNTAX, source=source)
    if len(cleaned) > 10_000:
        raise PDDLSyntaxError("the action text is too long", code=ErrorCode.ACTION_SYNTAX)
    if cleaned[0] == "(" and _PLAIN_REF.fullmatch(cleaned):  # what sessions are sent: no parser needed
        name, args, written = step_words(cleaned[1:-1])
        return ActionRef(name, args, Span(1, 1, 1, 1 + len(cleaned)), written)
    try:
        ref: ActionRef = _run(cleaned, "action_ref", source, "the action")
    except PDDLSyntaxError as err:
        err.code = ErrorCode.ACTION_SYNTAX
        err.hint = err.hint or "write an action as '(name arg1 arg2)', e.g. '(stack a b)'"
        raise
    return ref
