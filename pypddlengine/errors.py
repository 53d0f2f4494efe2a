"""Typed errors with stable codes and source positions.

Every failure the engine reports is a :class:`PDDLError` subclass carrying a
stable ``code`` (upper snake case, part of the public contract: MCP clients and
CLI scripts match on it), a human message, and where there is a file, a
:class:`Span` plus the :class:`SourceFile` it points into, so that ``str(err)``
renders as ``file:line:col: error[CODE]: message`` followed by a caret snippet.

This module is the bottom layer: it imports nothing from the package.
"""

from __future__ import annotations

import functools
from dataclasses import field
from typing import NamedTuple

from .usercache import dataclass

__all__ = [
    "ActionReferenceError",
    "CheckpointError",
    "ErrorCode",
    "FeatureUnavailableError",
    "GroundingLimitError",
    "InputTooLargeError",
    "NumericError",
    "ObservationRuleError",
    "PDDLError",
    "PDDLSemanticError",
    "PDDLSyntaxError",
    "SourceFile",
    "Span",
    "TimeLimitError",
    "UnsupportedRequirementError",
    "counted",
    "nesting_guard",
]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in the right number: ``1 step``, ``2 steps``,
    ``0 steps`` (``plural`` for irregular nouns)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


class ErrorCode:
    """The stable error codes. Values never change once released."""

    # input and syntax
    EMPTY_INPUT = "EMPTY_INPUT"
    BINARY_INPUT = "BINARY_INPUT"
    INPUT_TOO_LARGE = "INPUT_TOO_LARGE"
    NESTING_LIMIT = "NESTING_LIMIT"
    FILE_NOT_FOUND = "FILE_NOT_FOUND"
    UNKNOWN_TASK = "UNKNOWN_TASK"
    SYNTAX_ERROR = "SYNTAX_ERROR"
    UNBALANCED_PARENTHESES = "UNBALANCED_PARENTHESES"
    UNEXPECTED_END = "UNEXPECTED_END"
    UNKNOWN_SECTION = "UNKNOWN_SECTION"
    WRONG_FILE_KIND = "WRONG_FILE_KIND"
    PLAN_SYNTAX = "PLAN_SYNTAX"
    # semantics
    UNKNOWN_REQUIREMENT = "UNKNOWN_REQUIREMENT"
    UNSUPPORTED_REQUIREMENT = "UNSUPPORTED_REQUIREMENT"
    UNDEFINED_TYPE = "UNDEFINED_TYPE"
    UNDEFINED_PREDICATE = "UNDEFINED_PREDICATE"
    UNDEFINED_FUNCTION = "UNDEFINED_FUNCTION"
    UNDEFINED_OBJECT = "UNDEFINED_OBJECT"
    UNDEFINED_VARIABLE = "UNDEFINED_VARIABLE"
    ARITY_MISMATCH = "ARITY_MISMATCH"
    TYPE_MISMATCH = "TYPE_MISMATCH"
    TYPE_CYCLE = "TYPE_CYCLE"
    DUPLICATE_DEFINITION = "DUPLICATE_DEFINITION"
    DUPLICATE_SECTION = "DUPLICATE_SECTION"
    MISSING_SECTION = "MISSING_SECTION"
    DOMAIN_MISMATCH = "DOMAIN_MISMATCH"
    INVALID_EFFECT = "INVALID_EFFECT"
    INVALID_COST = "INVALID_COST"
    UNDEFINED_FUNCTION_VALUE = "UNDEFINED_FUNCTION_VALUE"
    DIVISION_BY_ZERO = "DIVISION_BY_ZERO"
    NUMERIC_OVERFLOW = "NUMERIC_OVERFLOW"
    NUMERIC_EFFECT_CONFLICT = "NUMERIC_EFFECT_CONFLICT"
    UNSTRATIFIABLE_AXIOMS = "UNSTRATIFIABLE_AXIOMS"
    # grounding
    GROUNDING_LIMIT = "GROUNDING_LIMIT"
    GROUNDING_TIMEOUT = "GROUNDING_TIMEOUT"
    VALIDATION_TIMEOUT = "VALIDATION_TIMEOUT"
    # action references (session, plans)
    UNKNOWN_ACTION = "UNKNOWN_ACTION"
    WRONG_ARITY = "WRONG_ARITY"
    UNKNOWN_OBJECT = "UNKNOWN_OBJECT"
    ACTION_SYNTAX = "ACTION_SYNTAX"
    # session checkpoints and observation rules
    UNKNOWN_CHECKPOINT = "UNKNOWN_CHECKPOINT"
    CHECKPOINT_LIMIT = "CHECKPOINT_LIMIT"
    BAD_CHECKPOINT_NAME = "BAD_CHECKPOINT_NAME"
    BAD_OBSERVATION_RULE = "BAD_OBSERVATION_RULE"
    # what a session's backend cannot do (the lifted backend has no ground task)
    FEATURE_UNAVAILABLE = "FEATURE_UNAVAILABLE"


class Span(NamedTuple):
    """A 1-based source range: ``line``/``column`` of the first character and
    ``end_line``/``end_column`` one past the last (lark's convention).

    A named tuple rather than a dataclass: one is made for most model nodes,
    and a tuple is built twice as fast."""

    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class SourceFile:
    """Text and display name of one parsed input, kept for error snippets.

    ``name`` is the path given by the user, or ``<domain>``/``<problem>``/
    ``<plan>`` for strings."""

    name: str
    text: str = field(repr=False)

    def line_text(self, line: int) -> str:
        lines = _lines(self.text)
        if 1 <= line <= len(lines):
            return lines[line - 1]
        return ""

    def snippet(self, span: Span) -> str:
        """The source line of ``span`` with a caret line under it."""
        text = self.line_text(span.line).expandtabs(1)
        if not text.strip():
            return ""
        start = max(span.column - 1, 0)
        if span.end_line == span.line and span.end_column > span.column:
            width = span.end_column - span.column
        else:
            width = 1
        width = max(1, min(width, max(len(text) - start, 1)))
        shown = text if len(text) <= 160 else text[max(0, start - 60) : start + 100]
        if len(text) > 160:
            start = min(start, 60)
            width = max(1, min(width, len(shown) - start))  # the carets stay under the part shown
        return f"    {shown}\n    {' ' * start}{'^' * width}"


@functools.lru_cache(maxsize=16)
def _lines(text: str) -> list[str]:
    return text.splitlines()


class PDDLError(Exception):
    """Base class of every error the engine raises on bad input.

    Attributes are the machine-readable contract: ``code`` (stable string),
    ``message`` (one sentence, no position), ``span`` and ``source`` (may be
    ``None`` for inputs that are not files), ``hint`` (an optional next step),
    ``details`` (JSON-friendly extras such as ``expected`` or ``suggestions``).
    """

    default_code = ErrorCode.SYNTAX_ERROR

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        span: Span | None = None,
        source: SourceFile | None = None,
        hint: str | None = None,
        details: dict[str, object] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.span = span
        self.source = source
        self.hint = hint
        self.details = dict(details or {})

    @property
    def location(self) -> str:
        """``file:line:col`` (or the parts that are known)."""
        parts = []
        if self.source is not None:
            parts.append(self.source.name)
        if self.span is not None:
            parts.append(f"{self.span.line}:{self.span.column}")
        return ":".join(parts)

    def headline(self) -> str:
        """One line: ``location: error[CODE]: message``."""
        loc = self.location
        head = f"error[{self.code}]: {self.message}"
        return f"{loc}: {head}" if loc else head

    def render(self, *, snippet: bool = True) -> str:
        """The headline, then a caret snippet and the hint when available."""
        out = [self.headline()]
        if snippet and self.source is not None and self.span is not None:
            snip = self.source.snippet(self.span)
            if snip:
                out.append(snip)
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)

    def to_dict(self) -> dict[str, object]:
        """A JSON-friendly description (used by the CLI's ``--json`` and MCP)."""
        data: dict[str, object] = {"code": self.code, "message": self.message}
        if self.source is not None:
            data["file"] = self.source.name
        if self.span is not None:
            data["line"] = self.span.line
            data["column"] = self.span.column
        if self.hint:
            data["hint"] = self.hint
        if self.details:
            data["details"] = self.details
        return data

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:  # keep errors picklable across processes
        return (_rebuild, (type(self), self.message, self.code, self.span, self.source, self.hint, self.details))


def _rebuild(cls: type[PDDLError], message: str, code: str, span: Span | None, source: SourceFile | None,
             hint: str | None, details: dict[str, object]) -> PDDLError:
    err = cls.__new__(cls)
    PDDLError.__init__(err, message, code=code, span=span, source=source, hint=hint, details=details)
    return err


class PDDLSyntaxError(PDDLError):
    """The text is not well-formed PDDL (or not a well-formed plan)."""

    default_code = ErrorCode.SYNTAX_ERROR


class PDDLSemanticError(PDDLError):
    """Well-formed text that breaks a PDDL rule (undefined name, bad arity, ...)."""

    default_code = ErrorCode.UNDEFINED_PREDICATE


class UnsupportedRequirementError(PDDLError):
    """The input uses a PDDL feature this engine does not support.

    ``details["feature"]`` names the feature (``conditional-effects``,
    ``derived-predicates``, ...) and the span points at its first use."""

    default_code = ErrorCode.UNSUPPORTED_REQUIREMENT

    @property
    def feature(self) -> str:
        return str(self.details.get("feature", ""))


class GroundingLimitError(PDDLError):
    """Grounding would exceed a configured size limit."""

    default_code = ErrorCode.GROUNDING_LIMIT


class TimeLimitError(PDDLError):
    """A call ran past its time limit (``VALIDATION_TIMEOUT``: a plan
    validation); ``details`` give the ``limit`` in seconds and how far it got."""

    default_code = ErrorCode.VALIDATION_TIMEOUT


class InputTooLargeError(PDDLError):
    """An input is larger than the configured limit."""

    default_code = ErrorCode.INPUT_TOO_LARGE


class NumericError(PDDLError):
    """A numeric expression cannot be evaluated where a step, a goal or the
    metric reads it: a function term without a value (``UNDEFINED_FUNCTION_VALUE``,
    VAL's rule: an error where it is read, never a silent 0) or a division by
    zero (``DIVISION_BY_ZERO``), or a value past the bound on exact numbers
    (``NUMERIC_OVERFLOW``, see :data:`pypddlengine.exact.MAX_NUMBER_BITS`). The span points at the term or the operator
    in the domain or problem; ``details`` names the ground term."""

    default_code = ErrorCode.UNDEFINED_FUNCTION_VALUE


class ActionReferenceError(PDDLError):
    """An action named in a plan or a session call does not resolve to an
    action of the task: unknown schema, wrong arity, unknown object, or an
    object of the wrong type. ``details`` carries ``suggestions`` when any."""

    default_code = ErrorCode.UNKNOWN_ACTION


class CheckpointError(PDDLError):
    """A checkpoint call that cannot be honoured: an unknown name
    (``UNKNOWN_CHECKPOINT``), too many checkpoints (``CHECKPOINT_LIMIT``) or a
    name that is empty or too long (``BAD_CHECKPOINT_NAME``)."""

    default_code = ErrorCode.UNKNOWN_CHECKPOINT


class ObservationRuleError(PDDLError):
    """An observation rule that does not parse or names no predicate of the
    task (``BAD_OBSERVATION_RULE``)."""

    default_code = ErrorCode.BAD_OBSERVATION_RULE


class FeatureUnavailableError(PDDLError):
    """An analysis the session's backend cannot give (``FEATURE_UNAVAILABLE``):
    relaxed heuristics, landmarks and relaxed dead-end proofs need the
    grounded task, which a lifted session does not have."""

    default_code = ErrorCode.FEATURE_UNAVAILABLE


class nesting_guard:  # noqa: N801 (a context manager read as a phrase: ``with nesting_guard("the goal"):``)
    """Turns a ``RecursionError`` inside the block into ``NESTING_LIMIT``: with
    ``pypddlengine.syntax.parser.MAX_NESTING`` raised past what the interpreter's
    stack holds, a deeply nested input is refused by the stage that would
    recurse too deep (checking, compiling, grounding, a step), never a bare
    ``RecursionError``."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: object) -> None:
        if kind is not None and issubclass(kind, RecursionError):
            raise InputTooLargeError(
                f"{self.what} is nested too deeply for this interpreter's stack", code=ErrorCode.NESTING_LIMIT,
                hint="nest less, or lower pypddlengine.syntax.parser.MAX_NESTING to refuse such input at once",
            ) from None
