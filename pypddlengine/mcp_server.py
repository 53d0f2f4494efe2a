"""The engine as Model Context Protocol tools (official ``mcp`` SDK 2.x).

:func:`build_server` returns a fresh :class:`mcp.server.mcpserver.MCPServer`
that owns a :class:`SessionStore`: many simulation sessions, each behind an
unguessable ``session_id`` (the protocol does not identify clients, and an
HTTP server shares one lifespan between all of them). :func:`run_server`
serves it over stdio (the default) or streamable HTTP.

The seven tools keep the paper's names: ``initialise_session``,
``query_current_state``, ``query_applicable_actions``,
``execute_single_action``, ``reset_to_initial_state``,
``query_action_history`` and ``validate_complete_plan``. The extras are
``explain_action``, ``undo_last_action``, ``close_session``,
``list_sessions`` and ``list_bundled_tasks``; bundled PDDL files are also
resources (``pddl://domains/<name>``, ``pddl://problems/<domain>/<name>``).

Errors. A call that cannot be carried out (bad or missing argument, unknown
session, a limit, PDDL that does not parse, an action that names no action
of the task) returns a tool error (``is_error``) whose text starts with one
line ``[CODE] message; hint: next step`` (PDDL errors add their caret
snippet below it) and whose ``structured_content`` is ``{"error": {"code",
"message", "hint", ...}}``. No traceback ever reaches the client and no error
ends the session. An action that is well-formed but *not applicable* in the
current state is not an error of the call but an answer of the simulator, so
``execute_single_action`` returns ``success: false`` with the reason (code
``INAPPLICABLE_ACTION``, the failing preconditions and, at feedback level
``full``, hints); this is the paper's success flag and keeps the structured
reason available to harnesses.

Concurrency. Tools are ``async``: cheap calls run on the event loop, under a
per-session lock; parsing and grounding (initialise), plan validation and
every call on a session with heuristic feedback (h_FF costs up to a few
hundred ms on large tasks) run in worker threads under that same lock, so one
slow call never stalls the other clients of an HTTP server.
"""

import inspect
import json
import logging
import math
import secrets
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from . import __version__
from . import mcp_models as m
from .bundled import DEFAULT_TASK, bundled_domains, bundled_root, bundled_task, bundled_tasks
from .errors import ErrorCode, PDDLError
from .grounding import GroundingOptions, ground
from .lifted import compile_task
from .loading import read_file
from .printer import format_condition, format_effect
from .session import Failure, Feedback, FeedbackLevel, Session
from .syntax import parse_domain, parse_plan, parse_problem
from .task import State, natural_key

__all__ = [
    "ERROR_CODES",
    "ServerOptions",
    "SessionStore",
    "ToolFailure",
    "build_server",
    "run_server",
]

log = logging.getLogger("pypddlengine.mcp")
T = TypeVar("T")

# ----------------------------------------------------------------------------- errors

MISSING_ARGUMENT = "MISSING_ARGUMENT"
INVALID_ARGUMENT = "INVALID_ARGUMENT"
UNKNOWN_TOOL = "UNKNOWN_TOOL"
UNKNOWN_SESSION = "UNKNOWN_SESSION"
SESSION_EXPIRED = "SESSION_EXPIRED"
SESSION_CLOSED = "SESSION_CLOSED"
SESSION_LIMIT = "SESSION_LIMIT"
SERVER_CAPACITY = "SERVER_CAPACITY"
STEP_LIMIT = "STEP_LIMIT"
UNKNOWN_TASK = "UNKNOWN_TASK"
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
    ErrorCode.INPUT_TOO_LARGE: "pass a smaller input",
    ErrorCode.GROUNDING_LIMIT: "the task grounds to too many actions or atoms for this server; use a smaller task",
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
        self.message = _one_line(message)
        self.hint = _one_line(hint or ERROR_CODES.get(code) or _PDDL_HINT)
        self.details = dict(details or {})
        self.snippet = snippet
        super().__init__(self.text())

    def text(self) -> str:
        head = f"[{self.code}] {self.message}; hint: {self.hint}"
        return f"{head}\n{self.snippet}" if self.snippet else head

    def to_result(self, tool: str) -> CallToolResult:
        error: dict[str, Any] = {"code": self.code, "message": self.message, "hint": self.hint, "tool": tool}
        if self.details:
            error["details"] = self.details
        return CallToolResult(
            content=[TextContent(type="text", text=self.text())],
            structured_content={"error": error},
            is_error=True,
        )

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
        return cls(code or err.code, f"{loc}: {err.message}" if loc else err.message, hint,
                   details=details, snippet=snippet)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _clip(text: str, width: int = 40) -> str:
    text = _one_line(text)
    return text if len(text) <= width else text[: width - 3] + "..."


# ----------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """Every limit and default of one server. Each limit, when hit, is a tool
    error with its own code (see :data:`ERROR_CODES`)."""

    max_sessions: int = 32
    """Live sessions at once (``SESSION_LIMIT``)."""
    max_steps: int = 10_000
    """``execute_single_action`` attempts per session, successful or not (``STEP_LIMIT``)."""
    idle_timeout: float = 3600.0
    """Seconds without a call after which a session is closed (``SESSION_EXPIRED``)."""
    max_pddl_bytes: int = 2_000_000
    """Size of one domain or problem (``INPUT_TOO_LARGE``)."""
    max_ground_actions: int = 500_000
    max_ground_atoms: int = 1_000_000
    """Grounding limits of one task (``GROUNDING_LIMIT``)."""
    max_total_actions: int = 2_000_000
    """Ground actions summed over the live sessions, a memory bound (``SERVER_CAPACITY``)."""
    max_plan_steps: int = 20_000
    """Steps of a plan given to ``validate_complete_plan`` (``PLAN_TOO_LONG``)."""
    page_size: int = 50
    """Default page of ``query_applicable_actions`` and ``query_action_history`` (compact rendering)."""
    max_page_size: int = 1000
    """Largest page; larger requests are clamped (the plain rendering uses it as its default)."""
    goal_list_limit: int = 20
    """At most this many unsatisfied goal atoms are listed in feedback and verdicts."""
    max_concurrent_initialise: int = 2
    """Groundings running at once (they are CPU-bound)."""
    feedback: str = "plain"
    """Default feedback level: plain (the paper's), progress, heuristic or full."""
    rendering: m.Rendering = "compact"
    """Default rendering: compact (grouped, static facts once, paginated) or plain."""
    allow_files: bool = True
    """Whether ``initialise_session`` may read file paths (off for HTTP by default)."""
    reveal_session_ids: bool = True
    """Whether ``list_sessions`` shows whole ids (off for HTTP by default)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, int | float) and not isinstance(value, bool) and not value > 0:
                raise ValueError(f"{f.name} must be positive, not {value!r}")
        FeedbackLevel.parse(self.feedback)
        if self.rendering not in ("compact", "plain"):
            raise ValueError(f"rendering must be 'compact' or 'plain', not {self.rendering!r}")
        if self.page_size > self.max_page_size:
            raise ValueError("page_size must not exceed max_page_size")


# ----------------------------------------------------------------------------- sessions


@dataclass(eq=False, slots=True)
class SessionEntry:
    """One live session and what the server keeps around it."""

    session_id: str
    session: Session
    label: str | None
    domain: str
    problem: str
    sources: dict[str, str]
    rendering: m.Rendering
    max_steps: int
    last_used: float
    threaded: bool
    lock: threading.Lock = field(default_factory=threading.Lock)
    tool_calls: int = 0
    steps_executed: int = 0
    failed_attempts: int = 0
    resets: int = 0
    undos: int = 0
    goal_pos: frozenset[str] = frozenset()
    goal_neg: frozenset[str] = frozenset()

    @property
    def actions(self) -> int:
        return len(self.session.task.actions)

    @property
    def attempts_left(self) -> int:
        return max(0, self.max_steps - self.steps_executed - self.failed_attempts)

    def counters(self) -> m.Counters:
        return m.Counters(
            steps_executed=self.steps_executed,
            failed_attempts=self.failed_attempts,
            resets=self.resets,
            undos=self.undos,
            attempts_left=self.attempts_left,
            tool_calls=self.tool_calls,
        )


class SessionStore:
    """The live sessions of one server, with their limits. Thread-safe: the
    table is guarded by a lock, each session by its own."""

    def __init__(self, options: ServerOptions, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.options = options
        self.clock = clock
        self._sessions: dict[str, SessionEntry] = {}
        self._gone: OrderedDict[str, str] = OrderedDict()  # recently closed/expired id -> code
        self._pending = 0
        self._last_sweep = clock()
        self._lock = threading.Lock()
        self._grounding = threading.BoundedSemaphore(options.max_concurrent_initialise)

    # -------------------------------------------------------------- table

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    def reserve(self) -> None:
        """Claim a slot for a session about to be built (``SESSION_LIMIT``)."""
        with self._lock:
            self._sweep_locked()
            if len(self._sessions) + self._pending >= self.options.max_sessions:
                raise ToolFailure(
                    SESSION_LIMIT, f"the server already holds its maximum of {self.options.max_sessions} sessions"
                )
            self._pending += 1

    def release(self) -> None:
        with self._lock:
            self._pending -= 1

    def add(self, entry: SessionEntry) -> None:
        """Register a built session (its slot was reserved)."""
        with self._lock:
            total = sum(e.actions for e in self._sessions.values()) + entry.actions
            if total > self.options.max_total_actions:
                raise ToolFailure(
                    SERVER_CAPACITY,
                    f"the live sessions would hold {total:,} ground actions, more than this server's "
                    f"{self.options.max_total_actions:,}",
                )
            self._sessions[entry.session_id] = entry

    def new_id(self) -> str:
        """96 random bits as 24 hex digits (unguessable, easy to copy)."""
        with self._lock:
            while True:
                sid = secrets.token_hex(12)
                if sid not in self._sessions and sid not in self._gone:
                    return sid

    def get(self, session_id: str) -> SessionEntry:
        sid = session_id.strip().strip("'\"` ")
        now = self.clock()
        with self._lock:
            if now - self._last_sweep > 10.0:  # free idle sessions even if nobody lists or opens any
                self._sweep_locked()
            entry = self._sessions.get(sid)
            if entry is not None and now - entry.last_used > self.options.idle_timeout:
                self._forget_locked(sid, SESSION_EXPIRED)
                entry = None
            if entry is None:
                raise self._missing(sid)
            entry.last_used = now
            entry.tool_calls += 1
            return entry

    def close(self, session_id: str) -> SessionEntry:
        entry = self.get(session_id)
        with self._lock:
            self._forget_locked(entry.session_id, SESSION_CLOSED)
        return entry

    def entries(self) -> list[SessionEntry]:
        with self._lock:
            self._sweep_locked()
            return sorted(self._sessions.values(), key=lambda e: e.session_id)

    # -------------------------------------------------------------- helpers

    def _missing(self, sid: str) -> ToolFailure:
        shown = _clip(sid, 32)
        code = self._gone.get(sid)
        if code == SESSION_EXPIRED:
            idle = self.options.idle_timeout
            return ToolFailure(code, f"session '{shown}' expired after {idle:g} s without a call")
        if code == SESSION_CLOSED:
            return ToolFailure(code, f"session '{shown}' was closed")
        return ToolFailure(UNKNOWN_SESSION, f"no session '{shown}'")

    def _forget_locked(self, sid: str, code: str) -> None:
        self._sessions.pop(sid, None)
        self._gone[sid] = code
        while len(self._gone) > 4096:
            self._gone.popitem(last=False)

    def _sweep_locked(self) -> None:
        now, idle = self.clock(), self.options.idle_timeout
        self._last_sweep = now
        for sid in [s for s, e in self._sessions.items() if now - e.last_used > idle]:
            self._forget_locked(sid, SESSION_EXPIRED)

    # -------------------------------------------------------------- running session code

    async def run(self, entry: SessionEntry, fn: Callable[[], T]) -> T:
        """Run ``fn`` under the session's lock: on the event loop for cheap
        sessions, in a worker thread for sessions whose calls may be slow
        (a session is one or the other for life, so a lock held by a worker
        thread never blocks the event loop)."""

        def locked() -> T:
            with entry.lock:
                return fn()

        if entry.threaded:
            return await anyio.to_thread.run_sync(locked)
        return locked()

    def ground_slot(self) -> threading.BoundedSemaphore:
        return self._grounding


# ----------------------------------------------------------------------------- rendering



def _number(value: float | None) -> int | float | None:
    if value is None or not math.isfinite(value):
        return None
    return int(value) if float(value).is_integer() else round(value, 3)


class View:
    """Renders one session's atoms, states and feedback for replies."""

    def __init__(self, entry: SessionEntry, options: ServerOptions) -> None:
        self.entry = entry
        self.session = entry.session
        self.task = entry.session.task
        self.options = options
        self.plain = entry.rendering == "plain"

    def atoms(self, ids: Iterable[int]) -> m.StateAtoms:
        task = self.task
        if self.plain:
            return sorted(task.render_atom(i) for i in ids)
        lifted = task.lifted
        groups: dict[str, list[str]] = {}
        for i in ids:
            key = task.atoms[i]
            args = " ".join(lifted.object_display[o] for o in key[1:])
            groups.setdefault(lifted.predicate_display[key[0]], []).append(args)
        return {name: sorted(groups[name], key=natural_key) for name in sorted(groups)}

    def state_ids(self, state: State, include_static: bool | None) -> State:
        static = self.plain if include_static is None else include_static
        return state if static else state - self.task.static_atoms

    def state(self, include_static: bool | None = None) -> m.StateAtoms:
        return self.atoms(self.state_ids(self.session.state, include_static))

    def maybe_state(self, include_state: bool | None) -> m.StateAtoms | None:
        wanted = self.plain if include_state is None else include_state
        return self.state() if wanted else None

    def goal_list(self, goals: Iterable[str]) -> tuple[list[str] | None, int | None]:
        ordered = sorted(goals, key=natural_key)
        limit = len(ordered) if self.plain else self.options.goal_list_limit
        shown, more = ordered[:limit], len(ordered) - limit
        return (shown or None), (more if more > 0 else None)

    def feedback(
        self,
        fb: Feedback | None,
        *,
        added: Iterable[str] = (),
        deleted: Iterable[str] = (),
    ) -> m.FeedbackView | None:
        """The compact form of the engine's feedback (``None`` at level plain)."""
        if fb is None or fb.goals is None:
            return None
        goals = fb.goals
        unsatisfied, more = self.goal_list(goals.unsatisfied)
        achieved = [a for a in added if a in self.entry.goal_pos]
        achieved += [f"(not {d})" for d in deleted if f"(not {d})" in self.entry.goal_neg]
        undone = [d for d in deleted if d in self.entry.goal_pos]
        undone += [f"(not {a})" for a in added if f"(not {a})" in self.entry.goal_neg]
        level = self.session.feedback_level
        heuristic = level >= FeedbackLevel.HEURISTIC
        return m.FeedbackView(
            goals_satisfied=len(goals.satisfied),
            goals_total=goals.total,
            unsatisfied_goals=unsatisfied,
            more_unsatisfied=more,
            goals_achieved=sorted(achieved, key=natural_key) or None,
            goals_undone=sorted(undone, key=natural_key) or None,
            h_ff=_number(fb.distance) if heuristic else None,
            h_ff_change=_number(fb.distance_change),
            dead_end=True if fb.dead_end else None,
            unreachable_goals=sorted(fb.unreachable_goals, key=natural_key) or None,
            revisited_step=fb.revisited_step,
            notes=list(fb.notes) or None,
        )

    def current_feedback(self) -> m.FeedbackView | None:
        """Feedback on the current state without a step (initialise, queries)."""
        session = self.session
        level = session.feedback_level
        if level < FeedbackLevel.PROGRESS:
            return None
        distance, dead = None, False
        unreachable: tuple[str, ...] = ()
        notes: tuple[str, ...] = ()
        if level >= FeedbackLevel.HEURISTIC:
            ra = session.analysis()
            distance, dead = ra.h_ff, ra.dead_end
            unreachable = tuple(
                self.task.render_atom(g) if g >= 0 else "(unreachable goal atom)" for g in ra.unreachable_goals
            )
            if dead:
                notes = ("dead end: the goal can no longer be reached from this state; reset or undo",)
        return self.feedback(Feedback(session.goal_status(), distance, None, dead, unreachable, None, notes))

    def failure(self, failure: Failure) -> m.FailureView:
        return m.FailureView(
            code=failure.code,
            message=failure.message,
            unsatisfied=list(failure.unsatisfied) or None,
            hints=list(failure.hints) or None,
            suggestions=list(failure.suggestions) or None,
        )

    def diff(self, before: State, after: State) -> tuple[list[str] | None, list[str] | None]:
        render = self.task.render_atom
        added = sorted((render(a) for a in after - before), key=natural_key)
        deleted = sorted((render(d) for d in before - after), key=natural_key)
        return added or None, deleted or None


def reference_failure(failure: Failure, lifted: Any) -> ToolFailure:
    """A tool error for an action text that names no action of the task."""
    hint = failure.hints[0] if failure.hints else None
    if failure.suggestions and "did you mean" not in failure.message:
        hint = "did you mean " + " or ".join(f"'{s}'" for s in failure.suggestions[:3]) + "?"
    if failure.code == ErrorCode.UNKNOWN_OBJECT:
        names = sorted(lifted.object_display, key=natural_key)
        shown = ", ".join(names[:15]) + (" ..." if len(names) > 15 else "")
        hint = f"the objects are: {shown}"
    details = {"suggestions": list(failure.suggestions)} if failure.suggestions else None
    return ToolFailure(failure.code, failure.message, hint, details=details)


# ----------------------------------------------------------------------------- task input


def _looks_like_pddl(text: str) -> bool:
    for line in text.lstrip().splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(";"):
            return stripped.startswith("(")
    return False


@dataclass(frozen=True, slots=True)
class TaskInput:
    """Domain and problem as bytes or text, with display names and sources."""

    domain: str | bytes
    problem: str | bytes
    domain_name: str
    problem_name: str
    sources: dict[str, str]


def resolve_task_input(
    options: ServerOptions, task: str | None, domain: str | None, problem: str | None
) -> TaskInput:
    """Turn initialise_session's arguments into texts, or a :class:`ToolFailure`."""
    if task is not None and (domain is not None or problem is not None):
        raise ToolFailure(INVALID_ARGUMENT, "give either task or domain and problem, not both",
                          "use task='blocksworld/p01' alone, or domain and problem alone")
    if task is not None:
        try:
            d, p = bundled_task(task)
        except PDDLError as err:
            raise ToolFailure.from_pddl(err, code=UNKNOWN_TASK) from None
        name = task.strip()
        return TaskInput(d.read_text(), p.read_text(), str(d.name), f"{name}.pddl",
                         {"domain": f"bundled:{name.partition('/')[0]}", "problem": f"bundled:{name}"})
    if domain is None or problem is None:
        missing = "domain and problem" if domain is None and problem is None else (
            "domain" if domain is None else "problem")
        raise ToolFailure(MISSING_ARGUMENT, f"initialise_session needs {missing} (or task)",
                          f"pass domain and problem as PDDL text or file paths, or task='{DEFAULT_TASK}'")
    d_text, d_name, d_src = _one_input(options, "domain", domain, None)
    bundled_domain = d_src.removeprefix("bundled:") if d_src.startswith("bundled:") else None
    p_text, p_name, p_src = _one_input(options, "problem", problem, bundled_domain)
    return TaskInput(d_text, p_text, d_name, p_name, {"domain": d_src, "problem": p_src})


def _one_input(
    options: ServerOptions, kind: str, value: str, bundled_domain: str | None
) -> tuple[str | bytes, str, str]:
    limit = options.max_pddl_bytes
    if _looks_like_pddl(value):
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise ToolFailure(ErrorCode.INPUT_TOO_LARGE,
                              f"the {kind} is {size:,} bytes, more than the limit of {limit:,}")
        return value, f"<{kind}>", "text"
    name = value.strip()
    if len(name) > 1024 or "\n" in name or "\x00" in name or not name:
        raise ToolFailure(NOT_PDDL, f"the {kind} is not PDDL text: it should start with '(define ({kind} ...'")
    if options.allow_files:
        path = Path(name).expanduser()
        if path.is_file():
            try:
                return read_file(path, max_bytes=limit), str(path), f"file:{path}"
            except PDDLError as err:
                raise ToolFailure.from_pddl(err) from None
    bundled = _bundled_input(kind, name, bundled_domain)
    if bundled is not None:
        return bundled
    looks_like_path = "/" in name or "\\" in name or name.lower().endswith(".pddl")
    if looks_like_path and not options.allow_files:
        raise ToolFailure(FILE_ACCESS_DENIED, f"the {kind} '{_clip(name)}' looks like a file path, and this "
                          "server does not read files")
    if looks_like_path:
        raise ToolFailure(ErrorCode.FILE_NOT_FOUND, f"no such {kind} file: '{_clip(name, 80)}'")
    raise ToolFailure(
        NOT_PDDL,
        f"the {kind} '{_clip(name)}' is not PDDL text, a readable file or a bundled {kind} name",
        f"pass the whole PDDL text (it starts with '(define ({kind} ...'), or task='{DEFAULT_TASK}' "
        "(see list_bundled_tasks)",
    )


def _bundled_input(kind: str, name: str, bundled_domain: str | None) -> tuple[str, str, str] | None:
    folded = name.lower().removesuffix(".pddl")
    try:
        if kind == "domain":
            if folded in bundled_domains():
                path = bundled_root("domains") / f"{folded}.pddl"
                return path.read_text(), path.name, f"bundled:{folded}"
            return None
        candidates = [folded] if "/" in folded else ([f"{bundled_domain}/{folded}"] if bundled_domain else [])
        for candidate in candidates:
            if candidate in bundled_tasks():
                _, path = bundled_task(candidate)
                return path.read_text(), f"{candidate}.pddl", f"bundled:{candidate}"
    except PDDLError:
        return None
    return None


def build_session(options: ServerOptions, spec: TaskInput, feedback: FeedbackLevel) -> Session:
    """Parse, check and ground (CPU-bound: runs in a worker thread)."""
    limit = options.max_pddl_bytes
    d = parse_domain(spec.domain, filename=spec.domain_name, max_bytes=limit)
    p = parse_problem(spec.problem, filename=spec.problem_name, max_bytes=limit)
    grounding = GroundingOptions(max_actions=options.max_ground_actions, max_atoms=options.max_ground_atoms)
    return Session(ground(compile_task(d, p), grounding), feedback=feedback)


def summarise_objects(session: Session) -> dict[str, list[str]]:
    lifted = session.lifted
    groups: dict[str, list[str]] = {}
    for oid, name in enumerate(lifted.object_display):
        types = lifted.object_types[oid]
        key = types[0] if len(types) == 1 else f"(either {' '.join(types)})"
        groups.setdefault(key, []).append(name)
    return {t: sorted(groups[t], key=natural_key) for t in sorted(groups)}


def summarise_actions(session: Session) -> list[m.ActionSchemaView]:
    out = []
    lifted = session.lifted
    decls = {a.name: a for a in lifted.domain.actions}
    for schema in sorted(lifted.schemas, key=lambda s: s.name):
        decl = decls.get(schema.name)
        out.append(
            m.ActionSchemaView(
                name=schema.display,
                parameters=lifted.signature(schema)[1:-1],
                precondition=format_condition(decl.precondition) if decl and decl.precondition else None,
                effect=format_effect(decl.effect) if decl and decl.effect else None,
            )
        )
    return out


# ----------------------------------------------------------------------------- the server


def _reply(model: BaseModel) -> CallToolResult:
    """A result whose structured content is ``model`` (``None`` fields left out)
    and whose text is the same, as compact JSON."""
    data = model.model_dump(mode="json", exclude_none=True)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


class EngineServer(MCPServer):
    """An :class:`MCPServer` whose tool errors all follow one format:
    ``[CODE] message; hint: ...`` plus ``{"error": {...}}`` structured content.

    The SDK's own failures (arguments that fail the input schema, an unknown
    tool, an unexpected exception) are translated here, so a client never
    sees pydantic's multi-line report or a traceback."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tool_parameters: dict[str, tuple[str, ...]] = {}
        """Each tool's parameter names (for hints on misnamed arguments)."""

    def register(self, fn: Callable[..., Any], annotations: ToolAnnotations) -> None:
        self.add_tool(fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=annotations)
        self.tool_parameters[fn.__name__] = tuple(inspect.signature(fn).parameters)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except MCPError:
            raise
        except ToolError as exc:
            failure = _translate(self, name, arguments, exc)
            if failure.code == INTERNAL_ERROR:
                log.error("tool %r failed unexpectedly", name, exc_info=exc.__cause__ or exc)
            else:
                log.info("tool %r: %s", name, failure.text().splitlines()[0])
            return failure.to_result(name)


def _translate(server: "EngineServer", name: str, arguments: dict[str, Any], exc: ToolError) -> ToolFailure:
    cause = exc.__cause__
    if isinstance(exc, ToolFailure):
        return exc
    if isinstance(cause, ToolFailure):
        return cause
    unexpected_cause = cause is not None and not isinstance(cause, ValidationError | ToolError)
    if isinstance(exc, UnexpectedToolError) or unexpected_cause:
        return ToolFailure(INTERNAL_ERROR, f"{name} failed unexpectedly")
    if isinstance(cause, ValidationError):
        return _argument_failure(server, name, arguments, cause)
    if str(exc).startswith("Unknown tool"):
        names = ", ".join(sorted(server.tool_parameters))
        return ToolFailure(UNKNOWN_TOOL, f"no tool '{_clip(name)}'", f"the tools are: {names}")
    return ToolFailure(INVALID_ARGUMENT, _one_line(str(exc)))


def _argument_failure(
    server: "EngineServer", name: str, arguments: dict[str, Any], err: ValidationError
) -> ToolFailure:
    known = set(server.tool_parameters.get(name, ()))
    problems = err.errors()
    first = problems[0]
    where = ".".join(str(p) for p in first["loc"]) or "arguments"
    unknown = sorted(k for k in arguments if k not in known)
    if first["type"] == "missing":
        hint = f"'{where}' is required"
        if unknown:
            hint = f"unknown argument(s) {', '.join(repr(_clip(u, 24)) for u in unknown[:3])}; the parameters are " + \
                ", ".join(sorted(known))
        return ToolFailure(MISSING_ARGUMENT, f"{name}: missing argument '{where}'", hint,
                           details={"argument": where, "parameters": sorted(known)})
    message = _one_line(first.get("msg", "invalid value"))
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    return ToolFailure(INVALID_ARGUMENT, f"{name}: argument '{where}': {message}{more}",
                       details={"argument": where, "parameters": sorted(known)})


INSTRUCTIONS = """\
Step-wise PDDL simulation. Start with initialise_session (PDDL text, file paths, or a bundled task such as \
'blocksworld/p01'; see list_bundled_tasks); it returns a session_id that every other tool needs. Then loop: \
query_current_state, query_applicable_actions, execute_single_action (one action, e.g. '(unstack c a)'). \
reset_to_initial_state or undo_last_action go back; validate_complete_plan checks a plan (the session's history \
by default); close_session frees the session. Errors start with [CODE] and say what to do next."""

SessionId = Annotated[
    str, Field(min_length=1, max_length=128, description="the session_id returned by initialise_session")
]
ActionText = Annotated[
    str, Field(max_length=2000, description="one ground action, e.g. '(stack a b)' (also 'stack a b', 'stack(a, b)')")
]
FeedbackName = Literal["plain", "progress", "heuristic", "full"]
LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def _writes(*, destructive: bool, idempotent: bool) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=False, destructive_hint=destructive, idempotent_hint=idempotent, open_world_hint=False
    )


def _tool(server: "EngineServer", annotations: ToolAnnotations) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
        server.register(fn, annotations)
        return fn

    return decorator


def build_server(
    options: ServerOptions | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
    log_level: LogLevel = "WARNING",
    **overrides: Any,
) -> EngineServer:
    """A new MCP server with its own, empty :class:`SessionStore`.

    ``overrides`` replace fields of ``options`` (e.g. ``max_sessions=4``);
    ``clock`` (monotonic seconds) is injectable so tests can expire sessions.
    Logs go to stderr (the SDK's handler), never to stdout."""
    opts = replace(options or ServerOptions(), **overrides)
    store = SessionStore(opts, clock=clock)
    server = EngineServer(
        "pypddlengine",
        title="PDDL step-wise simulator",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level=log_level,
    )
    server.store = store  # type: ignore[attr-defined]  # for tests and embedding applications

    def entry_of(session_id: str) -> SessionEntry:
        return store.get(session_id)

    # ------------------------------------------------------------------ initialise

    @_tool(server, _writes(destructive=False, idempotent=False))
    async def initialise_session(
        task: Annotated[str | None, Field(max_length=200, description="a bundled task, e.g. 'blocksworld/p01'")] = None,
        domain: Annotated[str | None, Field(description="the domain as PDDL text, or a file path")] = None,
        problem: Annotated[str | None, Field(description="the problem as PDDL text, or a file path")] = None,
        feedback: Annotated[FeedbackName | None, Field(
            description="feedback after each step: plain (the paper's: success and state), progress (goal k/n), "
                        "heuristic (adds h_FF distance, dead ends), full (adds why-not hints, revisits)")] = None,
        rendering: Annotated[m.Rendering | None, Field(
            description="compact (default: atoms grouped by predicate, static facts only here, state diffs) or "
                        "plain (the paper's flat lists, full state after each step)")] = None,
        max_steps: Annotated[int | None, Field(ge=1, description="lower this session's step limit")] = None,
        label: Annotated[str | None, Field(max_length=64, description="a free label shown by list_sessions")] = None,
    ) -> Annotated[CallToolResult, m.SessionSummary]:
        """Start a simulation session on a PDDL task and return its session_id.

        Give a bundled task name (see list_bundled_tasks), or domain and problem as PDDL text or file paths.
        The reply summarises objects by type, the action schemas, the goal and the static facts."""
        spec = resolve_task_input(opts, task, domain, problem)
        level = FeedbackLevel.parse(feedback or opts.feedback)
        store.reserve()
        try:

            def work() -> Session:
                with store.ground_slot():
                    return build_session(opts, spec, level)

            try:
                session = await anyio.to_thread.run_sync(work)
            except PDDLError as err:
                raise ToolFailure.from_pddl(err) from None
            status = session.goal_status()
            entry = SessionEntry(
                session_id=store.new_id(),
                session=session,
                label=_one_line(label) if label else None,
                domain=session.lifted.domain.display or session.lifted.domain.name,
                problem=session.lifted.problem.display or session.lifted.problem.name,
                sources=spec.sources,
                rendering=rendering or opts.rendering,
                max_steps=min(max_steps or opts.max_steps, opts.max_steps),
                last_used=store.clock(),
                threaded=level >= FeedbackLevel.HEURISTIC,
                tool_calls=1,
                goal_pos=frozenset(g for g in (*status.satisfied, *status.unsatisfied) if not g.startswith("(not ")),
                goal_neg=frozenset(g for g in (*status.satisfied, *status.unsatisfied) if g.startswith("(not ")),
            )
            view = View(entry, opts)

            def summary() -> m.SessionSummary:
                static = session.task.static_atoms & session.state
                return m.SessionSummary(
                    session_id=entry.session_id,
                    domain=entry.domain,
                    problem=entry.problem,
                    sources=entry.sources,
                    objects=summarise_objects(session),
                    actions=summarise_actions(session),
                    goal=sorted((*status.satisfied, *status.unsatisfied), key=natural_key),
                    static_facts=view.atoms(static) if static else None,
                    ground_actions=len(session.task.actions),
                    applicable_now=len(session.applicable_actions()),
                    goal_reached=session.is_goal(),
                    feedback_level=level.name.lower(),
                    rendering=entry.rendering,
                    max_steps=entry.max_steps,
                    idle_timeout_s=opts.idle_timeout,
                    label=entry.label,
                    feedback=view.current_feedback(),
                    next="call query_current_state and query_applicable_actions, then execute_single_action",
                )

            result = await store.run(entry, summary)
            store.add(entry)
            return _reply(result)
        finally:
            store.release()

    # ------------------------------------------------------------------ queries

    @_tool(server, READ_ONLY)
    async def query_current_state(
        session_id: SessionId,
        include_static: Annotated[bool | None, Field(
            description="also list static facts (compact rendering leaves them out after initialise_session)")] = None,
    ) -> Annotated[CallToolResult, m.StateView]:
        """The atoms that hold now, grouped by predicate (compact) or as a flat list (plain), and whether the goal
        is reached."""
        entry = entry_of(session_id)
        view = View(entry, opts)

        def work() -> m.StateView:
            s = entry.session
            static = view.plain if include_static is None else include_static
            ids = view.state_ids(s.state, static)
            return m.StateView(
                step=len(s.history),
                goal_reached=s.is_goal(),
                atoms=len(ids),
                static_included=static or not s.task.static_atoms,
                state=view.atoms(ids),
                feedback=view.current_feedback(),
            )

        return _reply(await store.run(entry, work))

    @_tool(server, READ_ONLY)
    async def query_applicable_actions(
        session_id: SessionId,
        offset: Annotated[int, Field(ge=0, description="index of the first action to return")] = 0,
        limit: Annotated[int | None, Field(ge=1, description="page size (clamped to the server's maximum)")] = None,
        schema: Annotated[str | None, Field(
            max_length=200, description="only actions of this schema, e.g. 'stack'")] = None,
        involving: Annotated[str | None, Field(
            max_length=200, description="only actions with this object as an argument")] = None,
    ) -> Annotated[CallToolResult, m.ActionsPage]:
        """The actions applicable in the current state, sorted, one page at a time, with the total count and a
        count per schema."""
        entry = entry_of(session_id)
        page = _page_size(opts, entry, limit)

        def work() -> m.ActionsPage:
            s = entry.session
            lifted = s.lifted
            actions = s.applicable_actions()
            if schema is not None:
                wanted = lifted.schema_index.get(schema.strip().lower())
                if wanted is None:
                    names = ", ".join(sorted(sc.display for sc in lifted.schemas))
                    raise ToolFailure(INVALID_ARGUMENT, f"no action schema '{_clip(schema)}'",
                                      f"the schemas are: {names}")
                actions = [a for a in actions if a.schema is wanted]
            if involving is not None:
                oid = lifted.object_index.get(involving.strip().lower())
                if oid is None:
                    raise reference_failure(Failure(ErrorCode.UNKNOWN_OBJECT, f"unknown object '{_clip(involving)}'"),
                                            lifted)
                actions = [a for a in actions if oid in a.args]
            chunk = actions[offset: offset + page]
            end = offset + len(chunk)
            return m.ActionsPage(
                step=len(s.history),
                total=len(actions),
                offset=offset,
                limit=page,
                actions=[s.task.render_action(a) for a in chunk],
                next_offset=end if end < len(actions) else None,
                by_schema=dict(sorted(Counter(a.schema.display for a in actions).items())),
            )

        return _reply(await store.run(entry, work))

    # ------------------------------------------------------------------ execution

    @_tool(server, _writes(destructive=False, idempotent=False))
    async def execute_single_action(
        session_id: SessionId,
        action: ActionText,
        include_state: Annotated[bool | None, Field(
            description="also return the whole new state (default: only in plain rendering; compact returns "
                        "the atoms added and deleted)")] = None,
    ) -> Annotated[CallToolResult, m.StepOutcome]:
        """Execute one action in the current state. On success the state advances (reply: added and deleted atoms,
        goal_reached); if the action is not applicable nothing changes and success is false with the unsatisfied
        preconditions. An action that names no action of the task is a tool error."""
        entry = entry_of(session_id)
        view = View(entry, opts)

        def work() -> m.StepOutcome:
            if entry.attempts_left <= 0:
                raise ToolFailure(STEP_LIMIT, f"session used all {entry.max_steps} of its execute attempts")
            r = entry.session.execute(action)
            if r.failure is not None and r.failure.code in ACTION_REFERENCE_CODES:
                entry.failed_attempts += 1
                raise reference_failure(r.failure, entry.session.lifted)
            if r.success:
                entry.steps_executed += 1
            else:
                entry.failed_attempts += 1
            return m.StepOutcome(
                success=r.success,
                action=r.action,
                step=r.step,
                goal_reached=r.goal_reached,
                added=list(r.added) or None,
                deleted=list(r.deleted) or None,
                state=view.maybe_state(include_state) if r.success else None,
                failure=view.failure(r.failure) if r.failure else None,
                feedback=view.feedback(r.feedback, added=r.added, deleted=r.deleted),
                attempts_left=entry.attempts_left,
            )

        return _reply(await store.run(entry, work))

    @_tool(server, READ_ONLY)
    async def explain_action(session_id: SessionId, action: ActionText) -> Annotated[CallToolResult, m.ExplainOutcome]:
        """Say whether an action is applicable now and, if not, which preconditions fail (with hints at feedback
        level full). Changes nothing and does not count as an attempt."""
        entry = entry_of(session_id)
        view = View(entry, opts)

        def work() -> m.ExplainOutcome:
            e = entry.session.explain(action)
            if e.failure is not None and e.failure.code in ACTION_REFERENCE_CODES:
                raise reference_failure(e.failure, entry.session.lifted)
            return m.ExplainOutcome(
                action=e.action, applicable=e.applicable, failure=view.failure(e.failure) if e.failure else None
            )

        return _reply(await store.run(entry, work))

    @_tool(server, _writes(destructive=True, idempotent=True))
    async def reset_to_initial_state(
        session_id: SessionId,
        include_state: Annotated[bool | None, Field(description="also return the initial state")] = None,
    ) -> Annotated[CallToolResult, m.ResetOutcome]:
        """Go back to the initial state and clear the action history (counters are kept)."""
        entry = entry_of(session_id)
        view = View(entry, opts)

        def work() -> m.ResetOutcome:
            s = entry.session
            discarded = len(s.history)
            s.reset()
            entry.resets += 1
            return m.ResetOutcome(
                step=0,
                goal_reached=s.is_goal(),
                discarded_steps=discarded,
                state=view.maybe_state(include_state),
                counters=entry.counters(),
            )

        return _reply(await store.run(entry, work))

    @_tool(server, _writes(destructive=False, idempotent=False))
    async def undo_last_action(
        session_id: SessionId,
        steps: Annotated[int, Field(ge=1, le=1_000_000, description="how many actions to undo")] = 1,
        include_state: Annotated[bool | None, Field(description="also return the whole state")] = None,
    ) -> Annotated[CallToolResult, m.UndoOutcome]:
        """Undo the last executed action(s); the reply lists them and the atoms that changed back."""
        entry = entry_of(session_id)
        view = View(entry, opts)

        def work() -> m.UndoOutcome:
            s = entry.session
            before, plan = s.state, s.plan()
            n = s.undo(steps)
            entry.undos += n
            added, deleted = view.diff(before, s.state)
            return m.UndoOutcome(
                undone=plan[len(plan) - n:][::-1],
                step=len(s.history),
                goal_reached=s.is_goal(),
                added=added,
                deleted=deleted,
                state=view.maybe_state(include_state),
            )

        return _reply(await store.run(entry, work))

    @_tool(server, READ_ONLY)
    async def query_action_history(
        session_id: SessionId,
        offset: Annotated[int, Field(ge=0, description="index of the first step to return")] = 0,
        limit: Annotated[int | None, Field(ge=1, description="page size (clamped to the server's maximum)")] = None,
    ) -> Annotated[CallToolResult, m.HistoryView]:
        """The actions executed since the initial state (the current plan), in order, and the session's counters:
        steps executed, failed attempts, resets, undos, attempts left."""
        entry = entry_of(session_id)
        page = opts.max_page_size if limit is None else min(limit, opts.max_page_size)

        def work() -> m.HistoryView:
            s = entry.session
            plan = s.plan()
            chunk = plan[offset: offset + page]
            end = offset + len(chunk)
            return m.HistoryView(
                length=len(plan),
                offset=offset,
                actions=chunk,
                next_offset=end if end < len(plan) else None,
                goal_reached=s.is_goal(),
                counters=entry.counters(),
            )

        return _reply(await store.run(entry, work))

    @_tool(server, READ_ONLY)
    async def validate_complete_plan(
        session_id: SessionId,
        plan: Annotated[list[Annotated[str, Field(max_length=2000)]] | str | None, Field(
            description="the plan: a list of actions, or one text with an action per line (VAL format); "
                        "omit it to validate the session's own history")] = None,
    ) -> Annotated[CallToolResult, m.ValidationView]:
        """Check a complete plan from the initial state without changing the session: every step must apply in turn
        and the goal must hold at the end. The verdict names the first failing step and its unsatisfied
        preconditions, or the goal atoms left unsatisfied."""
        entry = entry_of(session_id)
        view = View(entry, opts)
        steps = _plan_steps(opts, plan)

        def snapshot() -> list[Any]:
            return entry.session.plan() if steps is None else steps

        given = await store.run(entry, snapshot)
        report = await anyio.to_thread.run_sync(entry.session.validate, given)
        unsatisfied, more = view.goal_list(report.unsatisfied_goals)
        f = report.failure
        return _reply(
            m.ValidationView(
                valid=report.valid,
                plan_source="history" if steps is None else "given",
                length=report.length,
                steps_applied=report.steps_applied,
                cost=report.cost,
                goal_reached=report.goal_reached,
                unsatisfied_goals=unsatisfied,
                more_unsatisfied=more,
                failure=m.StepFailureView(
                    step=f.step, action=f.action, code=f.code, message=f.message,
                    unsatisfied=list(f.unsatisfied) or None,
                ) if f else None,
                summary=_verdict(report),
            )
        )

    # ------------------------------------------------------------------ session management

    @_tool(server, _writes(destructive=True, idempotent=False))
    async def close_session(session_id: SessionId) -> Annotated[CallToolResult, m.CloseOutcome]:
        """Close a session and free its memory; the reply has its final counters."""
        entry = store.close(session_id)

        def work() -> m.CloseOutcome:
            return m.CloseOutcome(
                session_id=entry.session_id,
                closed=True,
                plan_length=len(entry.session.history),
                goal_reached=entry.session.is_goal(),
                counters=entry.counters(),
            )

        return _reply(await store.run(entry, work))

    @_tool(server, READ_ONLY)
    async def list_sessions() -> Annotated[CallToolResult, m.SessionList]:
        """The live sessions of this server, with their task, step and counters."""
        now = store.clock()
        infos = []
        for e in store.entries():
            shown = e.session_id if opts.reveal_session_ids else e.session_id[:6] + "..."
            infos.append(
                m.SessionInfo(
                    session_id=shown,
                    label=e.label,
                    domain=e.domain,
                    problem=e.problem,
                    step=len(e.session.history),
                    goal_reached=e.session.is_goal(),
                    idle_s=round(max(0.0, now - e.last_used), 1),
                    counters=e.counters(),
                )
            )
        return _reply(m.SessionList(sessions=infos, live=len(infos), max_sessions=opts.max_sessions,
                                    ids_redacted=not opts.reveal_session_ids))

    @_tool(server, READ_ONLY)
    async def list_bundled_tasks() -> Annotated[CallToolResult, m.BundledTasks]:
        """The PDDL tasks that ship with the server; pass a name as initialise_session(task=...)."""
        return _reply(m.BundledTasks(tasks=bundled_tasks(), domains=bundled_domains(),
                                     next=f"initialise_session(task='{DEFAULT_TASK}')"))

    _add_bundled_resources(server)
    return server


def _page_size(opts: ServerOptions, entry: SessionEntry, limit: int | None) -> int:
    if limit is None:
        return opts.max_page_size if entry.rendering == "plain" else opts.page_size
    return min(limit, opts.max_page_size)


def _plan_steps(opts: ServerOptions, plan: list[str] | str | None) -> list[Any] | None:
    if plan is None:
        return None
    if isinstance(plan, str):
        if len(plan) > opts.max_plan_steps * 200:
            raise ToolFailure(PLAN_TOO_LONG, f"the plan text is {len(plan):,} characters long")
        try:
            steps: list[Any] = list(parse_plan(plan, filename="<plan>").steps)
        except PDDLError as err:
            raise ToolFailure.from_pddl(err) from None
    else:
        steps = list(plan)
    if len(steps) > opts.max_plan_steps:
        raise ToolFailure(PLAN_TOO_LONG, f"the plan has {len(steps):,} steps, more than the limit of "
                                         f"{opts.max_plan_steps:,}")
    return steps


def _verdict(report: Any) -> str:
    if report.valid:
        return f"valid plan: {report.length} step(s), cost {_number(report.cost)}"
    f = report.failure
    if f is not None:
        return f"invalid plan: step {f.step} {f.action} fails ({f.code})"
    n = len(report.unsatisfied_goals)
    return f"invalid plan: all {report.length} step(s) apply but {n} goal atom(s) do not hold at the end"


def _add_bundled_resources(server: MCPServer) -> None:
    """Each bundled domain and problem as a text resource."""
    try:
        domains, tasks = bundled_domains(), bundled_tasks()
    except PDDLError:  # an installation without bundled files
        return
    for d in domains:
        path = bundled_root("domains") / f"{d}.pddl"
        server.add_resource(FunctionResource.from_function(
            _reader(path), uri=f"pddl://domains/{d}", name=f"domain {d}", mime_type="text/plain",
            description=f"bundled PDDL domain '{d}'"))
    for t in tasks:
        path = bundled_task(t)[1]
        server.add_resource(FunctionResource.from_function(
            _reader(path), uri=f"pddl://problems/{t}", name=f"problem {t}", mime_type="text/plain",
            description=f"bundled PDDL problem '{t}' (initialise_session(task='{t}'))"))


def _reader(path: Path) -> Callable[[], str]:
    def read() -> str:
        return path.read_text()

    return read


# ----------------------------------------------------------------------------- running


def run_server(
    transport: str = "stdio", host: str = "127.0.0.1", port: int = 8000, *, log_level: LogLevel = "WARNING",
    **options: Any,
) -> None:
    """Serve until interrupted: ``stdio`` (default) or ``streamable-http``
    (alias ``http``) on ``host:port`` at path ``/mcp``. ``options`` are
    :class:`ServerOptions` fields; over HTTP ``allow_files`` and
    ``reveal_session_ids`` default to off, since any client may connect."""
    if transport == "http":
        transport = "streamable-http"
    if transport not in ("stdio", "streamable-http"):
        raise ValueError(f"unknown transport '{transport}'; use 'stdio' or 'streamable-http'")
    if transport == "streamable-http":
        options.setdefault("allow_files", False)
        options.setdefault("reveal_session_ids", False)
    server = build_server(log_level=log_level, **options)
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port, streamable_http_path="/mcp")
