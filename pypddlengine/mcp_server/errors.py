"""Tool errors: one line ``[CODE] message; hint: ...`` and the error as JSON (see :mod:`.wire`), never a traceback."""


from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

from ..errors import ErrorCode, PDDLError
from .wire import error_result

# ----------------------------------------------------------------------------- errors

MISSING_ARGUMENT = "MISSING_ARGUMENT"
INVALID_ARGUMENT = "INVALID_ARGUMENT"
UNKNOWN_TOOL = "UNKNOWN_TOOL"
UNKNOWN_SESSION = "UNKNOWN_SESSION"
SESSION_EXPIRED = "SESSION_EXPIRED"
SESSION_CLOSED = "SESSION_CLOSED"
SESSION_LIMIT = "SESSION_LIMIT"
SESSION_EVICTED = "SESSION_EVICTED"
SERVER_CAPACITY = "SERVER_CAPACITY"
STEP_LIMIT = "STEP_LIMIT"
UNKNOWN_TASK = ErrorCode.UNKNOWN_TASK  # the engine's code: the CLI and the server say the same
NOT_PDDL = "NOT_PDDL"
FILE_ACCESS_DENIED = "FILE_ACCESS_DENIED"
PLAN_TOO_LONG = "PLAN_TOO_LONG"
INTERNAL_ERROR = "INTERNAL_ERROR"

ERROR_CODES: dict[str, str] = {
    # code -> the default one-line hint (used when the engine gives none)
    MISSING_ARGUMENT: "add the missing argument; the tool's input schema lists them",
    INVALID_ARGUMENT: "fix the argument as described; the tool's input schema lists the types",
    UNKNOWN_TOOL: "call one of the listed tools (tools/list)",
    UNKNOWN_SESSION: "use the session_id returned by initialise_session, or call initialise_session",
    SESSION_EXPIRED: "the session was idle too long and was closed; call initialise_session again",
    SESSION_CLOSED: "call initialise_session for a new session",
    SESSION_LIMIT: "close a session you no longer need (close_session), or wait for idle ones to expire",
    SESSION_EVICTED: "call initialise_session again; a client with its own token (--auth-token) keeps its sessions",
    SERVER_CAPACITY: "close sessions on large tasks (close_session), or use a smaller task",
    STEP_LIMIT: "validate or inspect the session, then close it and start a new one",
    UNKNOWN_TASK: "call list_bundled_tasks for the bundled task names",
    NOT_PDDL: "pass the PDDL text itself (it starts with '(define'), a file path, or task='blocksworld/p01'",
    FILE_ACCESS_DENIED: "pass the PDDL text itself (it starts with '(define'), or a bundled task name",
    PLAN_TOO_LONG: "validate a shorter plan",
    INTERNAL_ERROR: "the server hit an unexpected problem on this call; the session is unchanged, try again",
    ErrorCode.UNKNOWN_ACTION: "call query_applicable_actions for the actions that apply now",
    ErrorCode.WRONG_ARITY: "call query_applicable_actions for correctly formed actions",
    ErrorCode.UNKNOWN_OBJECT: "use the object names listed by initialise_session",
    ErrorCode.TYPE_MISMATCH: "use objects of the types the action's parameters require",
    ErrorCode.ACTION_SYNTAX: "write one action as '(name arg1 arg2)', e.g. '(stack a b)'",
    ErrorCode.FILE_NOT_FOUND: "check the path, or pass the PDDL text itself",
    ErrorCode.INPUT_TOO_LARGE: "pass a smaller input, or start the server with a larger limit "
                               "(pypddl serve --max-input-mb N; default 2)",
    ErrorCode.GROUNDING_LIMIT: "the task grounds to too many actions or atoms for this server; use a smaller task",
    ErrorCode.GROUNDING_TIMEOUT: "the task takes too long to ground on this server; use a smaller task",
    ErrorCode.NUMERIC_OVERFLOW: "a value passed the bound on exact numbers; undo, or use smaller numbers",
    ErrorCode.VALIDATION_TIMEOUT: "validate a shorter plan, or ask for a server with a larger --max-validation-seconds",
    ErrorCode.NESTING_LIMIT: "flatten the deeply nested (and ...)/(not ...) and call initialise_session again",
}
_PDDL_HINT = "fix the PDDL at the position shown and call initialise_session again"

ACTION_REFERENCE_CODES = frozenset(
    {ErrorCode.UNKNOWN_ACTION, ErrorCode.WRONG_ARITY, ErrorCode.UNKNOWN_OBJECT, ErrorCode.TYPE_MISMATCH,
     ErrorCode.ACTION_SYNTAX}
)


class ToolFailure(ToolError):
    """An anticipated failure of a tool call: a stable ``code``, a one-sentence
    ``message``, a one-line ``hint`` and optional ``details`` (JSON-friendly).
    ``snippet`` holds extra lines (a PDDL caret snippet) shown after the first."""

    def __init__(
        self,
        code: str,
        message: str,
        hint: str | None = None,
        *,
        details: dict[str, Any] | None = None,
        snippet: str = "",
    ) -> None:
        self.code = code
        self.message = one_line(message)
        self.hint = one_line(hint or ERROR_CODES.get(code) or _PDDL_HINT)
        self.details = dict(details or {})
        self.snippet = snippet
        super().__init__(self.text())

    def text(self) -> str:
        head = f"[{self.code}] {self.message}; hint: {self.hint}"
        return f"{head}\n{self.snippet}" if self.snippet else head

    def to_error(self, tool: str) -> dict[str, Any]:
        """The error as JSON: code, message, hint, tool, and where known the
        suggestions, the location (file, line, column) and other details."""
        details = dict(self.details)
        error: dict[str, Any] = {"code": self.code, "message": self.message, "hint": self.hint, "tool": tool}
        suggestions = details.pop("suggestions", None)
        if suggestions:
            error["suggestions"] = list(suggestions)
        location = {k: details.pop(k) for k in ("file", "line", "column") if k in details}
        if location:
            error["location"] = location
        if details:
            error["details"] = details
        return error

    def to_result(self, tool: str) -> CallToolResult:
        """An ``isError`` result with no structured content (see :mod:`.wire`)."""
        return error_result(self.text(), self.to_error(tool))

    @classmethod
    def from_pddl(cls, err: PDDLError, *, code: str | None = None) -> "ToolFailure":
        details: dict[str, Any] = {}
        if err.source is not None:
            details["file"] = err.source.name
        if err.span is not None:
            details["line"], details["column"] = err.span.line, err.span.column
        for key, value in err.details.items():
            if isinstance(value, str | int | float | bool) or (
                isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
            ):
                details[key] = list(value) if isinstance(value, tuple) else value
        loc = err.location
        snippet = ""
        if err.source is not None and err.span is not None:
            snippet = err.source.snippet(err.span)
        hint = err.hint or ERROR_CODES.get(code or err.code) or _PDDL_HINT
        if (code or err.code) == ErrorCode.INPUT_TOO_LARGE:  # the server's limit, raised by its option
            hint = ERROR_CODES[ErrorCode.INPUT_TOO_LARGE]
        return cls(code or err.code, f"{loc}: {err.message}" if loc else err.message, hint,
                   details=details, snippet=snippet)


def one_line(text: str) -> str:
    return " ".join(str(text).split())


def clip(text: str, width: int = 40) -> str:
    text = one_line(text)
    return text if len(text) <= width else text[: width - 3] + "..."


