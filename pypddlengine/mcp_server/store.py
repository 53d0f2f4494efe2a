"""Server options (limits) and the thread-safe store of simulation sessions."""


import bisect
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TypeVar

import anyio

from ..session import FeedbackLevel, Session
from ..temporal_session import TemporalSession
from . import models as m
from .errors import (
    SERVER_CAPACITY,
    SESSION_CLOSED,
    SESSION_EVICTED,
    SESSION_EXPIRED,
    SESSION_LIMIT,
    UNKNOWN_SESSION,
    ToolFailure,
    clip,
)
from .names import RENDERINGS

T = TypeVar("T")

# ----------------------------------------------------------------------------- options


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """Every limit and default of one server. Each limit, when hit, is a tool
    error with its own code (see :data:`ERROR_CODES`)."""

    max_sessions: int = 32
    """Live sessions at once (``SESSION_LIMIT``)."""
    max_sessions_per_client: int | None = None
    """Live sessions of one principal (see :mod:`.access`; ``SESSION_LIMIT``); ``None``: ``max_sessions``.
    Over HTTP it defaults to 8, so that one client cannot lock the others out."""
    auth_tokens: tuple[str, ...] = field(default=(), repr=False)
    """Bearer tokens of an HTTP server (each its own principal); a direct call carries none."""
    max_steps: int = 10_000
    """``execute_single_action`` attempts per session, successful or not (``STEP_LIMIT``)."""
    idle_timeout: float = 3600.0
    """Seconds without a call after which a session is closed (``SESSION_EXPIRED``)."""
    max_pddl_bytes: int = 2_000_000
    """Size of one domain or problem (``INPUT_TOO_LARGE``)."""
    max_ground_actions: int = 500_000
    max_ground_atoms: int = 1_000_000
    """Grounding limits of one task (``GROUNDING_LIMIT``); the action limit also
    refuses, before grounding, a schema whose unbound parameters span more."""
    grounding_timeout: float = 30.0
    """Seconds one grounding may take (with the relaxed analysis a heuristic
    feedback level needs at start), and the longest wait for a grounding slot
    (``GROUNDING_TIMEOUT``, ``SERVER_CAPACITY``)."""
    max_total_actions: int = 2_000_000
    """Ground actions summed over the live sessions, a memory bound (``SERVER_CAPACITY``)."""
    max_plan_steps: int = 20_000
    """Steps of a plan given to ``validate_complete_plan`` (``PLAN_TOO_LONG``)."""
    reply_budget: int = 25_000
    """Characters of one reply (its JSON text) by default; longer replies leave
    items out, say what and how to page them (see :mod:`.budget`)."""
    max_validation_seconds: float = 8.0
    """Time one ``validate_complete_plan`` may take (``VALIDATION_TIMEOUT``)."""
    page_size: int = 50
    """Default page of ``query_applicable_actions`` and ``query_action_history`` (compact rendering)."""
    max_page_size: int = 1000
    """Largest page; larger requests are clamped (the plain rendering uses it as its default)."""
    goal_list_limit: int = 20
    """At most this many unsatisfied goal atoms are listed in feedback and verdicts."""
    max_concurrent_initialise: int = 2
    """Groundings running at once (they are CPU-bound)."""
    feedback: str = "plain"
    """Default feedback level: paper (exactly the paper's signals), plain, progress, heuristic or full."""
    rendering: m.Rendering = "compact"
    """Default rendering: compact (grouped, static facts once, paginated) or plain."""
    allow_files: bool = True
    """Whether ``initialise_session`` may read file paths (off for HTTP by default)."""
    allowed_files: tuple[str, ...] | None = None
    """When set, the only files ``initialise_session`` reads (exact resolved
    paths; a bare file name stands for the one allowed file of that name), and
    no bundled task either: any other path or name is ``FILE_ACCESS_DENIED``,
    refused before anything is read. Set by the experiment harness for each
    run (the run's own domain and problem); overrides ``allow_files``."""
    reveal_session_ids: bool = True
    """Whether ``list_sessions`` shows whole ids to a caller without an owner
    (see :mod:`.access`; off for HTTP by default, where such callers cannot
    be told apart). An identified caller always sees its own ids."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, int | float) and not isinstance(value, bool) and not value > 0:
                raise ValueError(f"{f.name} must be positive, not {value!r}")
        FeedbackLevel.parse(self.feedback)
        if self.allowed_files is not None:
            resolved = tuple(dict.fromkeys(str(Path(p).expanduser().resolve()) for p in self.allowed_files))
            object.__setattr__(self, "allowed_files", resolved)
        if self.rendering not in RENDERINGS:
            raise ValueError(f"rendering must be one of {', '.join(RENDERINGS)}, not {self.rendering!r}")
        if self.page_size > self.max_page_size:
            raise ValueError("page_size must not exceed max_page_size")


# ----------------------------------------------------------------------------- sessions


def tokenless(entry: "SessionEntry") -> bool:
    """Whether ``entry`` was opened by a client without a token (see :mod:`.access`)."""
    return entry.owner is None or not entry.owner.startswith("token:")


@dataclass(eq=False, slots=True)
class SessionEntry:
    """One live session and what the server keeps around it."""

    session_id: str
    session: Session | TemporalSession
    """A temporal task's session is a :class:`TemporalSession` (see :attr:`classical` and :attr:`timed`)."""
    label: str | None
    domain: str
    problem: str
    sources: dict[str, str]
    rendering: m.Rendering
    max_steps: int
    last_used: float
    threaded: bool
    owner: str | None = None
    """The principal that opened it (:class:`.access.Caller`); no other principal can see it."""
    connection: str | None = None
    """The transport session it was opened on; released when that ends."""
    reply_budget: int | None = None
    """This session's reply size budget (``None``: the server's)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    tool_calls: int = 0
    steps_executed: int = 0
    failed_attempts: int = 0
    resets: int = 0
    undos: int = 0
    restores: int = 0
    goal_pos: frozenset[str] = frozenset()
    goal_neg: frozenset[str] = frozenset()
    level: FeedbackLevel = FeedbackLevel.PLAIN
    """The feedback level asked for (a classical session keeps its own, see :attr:`feedback_level`)."""

    @property
    def timed(self) -> TemporalSession | None:
        return self.session if isinstance(self.session, TemporalSession) else None

    @property
    def classical(self) -> Session:
        """The classical session (a temporal one is answered before any use of this)."""
        if isinstance(self.session, TemporalSession):
            raise ToolFailure("FEATURE_UNAVAILABLE", "this call is not available on a temporal session",
                              "see docs/time.md for the tools of a temporal session")
        return self.session

    @property
    def feedback_level(self) -> FeedbackLevel:
        return self.level if isinstance(self.session, TemporalSession) else self.session.feedback_level

    @property
    def step_count(self) -> int:
        """Steps in the session's history (a temporal one: steps of its timed plan, running actions included)."""
        s = self.session
        return s.step_count() if isinstance(s, TemporalSession) else len(s.history)

    @property
    def goal_reached(self) -> bool:
        s = self.session
        return s.goal_reached() if isinstance(s, TemporalSession) else s.is_goal()

    @property
    def actions(self) -> int:
        """Ground actions held (a lifted or temporal session holds none up front)."""
        grounded = None if isinstance(self.session, TemporalSession) else self.session.grounded
        return 0 if grounded is None else len(grounded.actions)

    @property
    def attempts_left(self) -> int:
        return max(0, self.max_steps - self.steps_executed - self.failed_attempts)

    def counters(self) -> m.Counters:
        return m.Counters(
            steps_executed=self.steps_executed,
            failed_attempts=self.failed_attempts,
            resets=self.resets,
            undos=self.undos,
            restores=self.restores or None,
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
        self._gone: OrderedDict[str, tuple[str, str | None]] = OrderedDict()  # closed/expired id -> code, owner
        self._pending = 0
        self._pending_by: dict[str | None, int] = {}
        self._last_sweep = clock()
        self._lock = threading.Lock()
        self._grounding = threading.BoundedSemaphore(options.max_concurrent_initialise)

    # -------------------------------------------------------------- table

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    @property
    def per_client_limit(self) -> int:
        return min(self.options.max_sessions_per_client or self.options.max_sessions, self.options.max_sessions)

    def limit_of(self, owner: str | None) -> int:
        """Live sessions ``owner`` may hold: the per-client quota, except for
        the principal ``None``, which is every caller that carries no identity
        (see :mod:`.access`), not one client: only the server's cap applies."""
        return self.options.max_sessions if owner is None else self.per_client_limit

    def reserve(self, owner: str | None = None) -> None:
        """Claim a slot for a session about to be built by ``owner`` (``SESSION_LIMIT``:
        the server's cap, or the owner's quota). Tokenless clients share the
        pool: when it is full (or, for the stateless clients' shared owner
        ``None``, its quota is), the least recently used idle tokenless session
        gives way (its next call gets ``SESSION_EVICTED``); sessions of token
        holders never do."""
        with self._lock:
            self._sweep_locked()
            mine = self._pending_by.get(owner, 0) + sum(1 for e in self._sessions.values() if e.owner == owner)
            if mine >= self.limit_of(owner) and not (owner is None and self._evict_locked(lambda e: e.owner is None)):
                raise ToolFailure(
                    SESSION_LIMIT, f"this client already holds its maximum of {self.limit_of(owner)} sessions"
                )
            if len(self._sessions) + self._pending >= self.options.max_sessions and not self._evict_locked(tokenless):
                raise ToolFailure(
                    SESSION_LIMIT, f"the server already holds its maximum of {self.options.max_sessions} sessions"
                )
            self._pending += 1
            self._pending_by[owner] = self._pending_by.get(owner, 0) + 1

    def release(self, owner: str | None = None) -> None:
        with self._lock:
            self._pending -= 1
            left = self._pending_by.get(owner, 0) - 1
            if left > 0:
                self._pending_by[owner] = left
            else:
                self._pending_by.pop(owner, None)

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
        """128 random bits, URL-safe base64 (22 characters)."""
        with self._lock:
            while True:
                sid = secrets.token_urlsafe(16)
                if sid not in self._sessions and sid not in self._gone:
                    return sid

    def get(self, session_id: str, owner: str | None = None) -> SessionEntry:
        """The live session ``session_id`` of ``owner``; another owner's session is
        ``UNKNOWN_SESSION``, like an id that never existed."""
        sid = session_id.strip().strip("'\"` ")
        now = self.clock()
        with self._lock:
            if now - self._last_sweep > 10.0:  # free idle sessions even if nobody lists or opens any
                self._sweep_locked()
            entry = self._sessions.get(sid)
            if entry is not None and entry.owner != owner:
                raise self._missing(sid, owner)
            if entry is not None and now - entry.last_used > self.options.idle_timeout:
                self._forget_locked(sid, SESSION_EXPIRED)
                entry = None
            if entry is None:
                raise self._missing(sid, owner)
            entry.last_used = now
            entry.tool_calls += 1
            return entry

    def close(self, session_id: str, owner: str | None = None) -> SessionEntry:
        entry = self.get(session_id, owner)
        with self._lock:
            self._forget_locked(entry.session_id, SESSION_CLOSED)
        return entry

    def release_connection(self, connection: str) -> int:
        """Close every session opened on a transport session that has ended; how many."""
        with self._lock:
            gone = [sid for sid, e in self._sessions.items() if e.connection == connection]
            for sid in gone:
                self._forget_locked(sid, SESSION_CLOSED)
            return len(gone)

    def page(self, owner: str | None, cursor: str | None, limit: int, *, by_id: bool = True
             ) -> tuple[list[SessionEntry], int, str | None]:
        """A page of ``owner``'s sessions (sorted by id), their total and the cursor
        of the next page (``None`` on the last). A cursor is the last id shown
        (``by_id``) or ``#<position>`` where ids must not be shown."""
        with self._lock:
            self._sweep_locked()
            mine = sorted(sid for sid, e in self._sessions.items() if e.owner == owner)
            if not cursor:
                start = 0
            elif cursor.startswith("#") and cursor[1:].isdigit():
                start = int(cursor[1:])
            else:
                start = bisect.bisect_right(mine, cursor)
            chosen = [self._sessions[sid] for sid in mine[start: start + limit]]
            end = start + len(chosen)
            following = None
            if end < len(mine):
                following = chosen[-1].session_id if by_id and chosen else f"#{end}"
            return chosen, len(mine), following

    def entries(self) -> list[SessionEntry]:
        """Every live session (for tests and embedding applications)."""
        with self._lock:
            self._sweep_locked()
            return sorted(self._sessions.values(), key=lambda e: e.session_id)

    # -------------------------------------------------------------- helpers

    def _missing(self, sid: str, owner: str | None) -> ToolFailure:
        shown = clip(sid, 32)
        code, was_owner = self._gone.get(sid, (None, None))
        if was_owner != owner:
            code = None
        if code == SESSION_EXPIRED:
            idle = self.options.idle_timeout
            return ToolFailure(code, f"session '{shown}' expired after {idle:g} s without a call")
        if code == SESSION_CLOSED:
            return ToolFailure(code, f"session '{shown}' was closed")
        if code == SESSION_EVICTED:
            return ToolFailure(code, f"session '{shown}' was closed to make room: the server holds at most "
                               f"{self.options.max_sessions} sessions, and when they are all taken the least "
                               "recently used session of a client without a token gives way to a new one")
        return ToolFailure(UNKNOWN_SESSION, f"no session '{shown}'")

    def _evict_locked(self, which: Callable[[SessionEntry], bool]) -> bool:
        """Close the least recently used session that ``which`` accepts and no
        call is using now (``SESSION_EVICTED``); whether there was one."""
        idle = [e for e in self._sessions.values() if which(e) and not e.lock.locked()]
        if not idle:
            return False
        victim = min(idle, key=lambda e: e.last_used)
        self._forget_locked(victim.session_id, SESSION_EVICTED)
        return True

    def _forget_locked(self, sid: str, code: str) -> None:
        entry = self._sessions.pop(sid, None)
        self._gone[sid] = (code, entry.owner if entry is not None else None)
        while len(self._gone) > 4096:
            self._gone.popitem(last=False)

    def _sweep_locked(self) -> None:
        now, idle = self.clock(), self.options.idle_timeout
        self._last_sweep = now
        for sid in [s for s, e in self._sessions.items() if now - e.last_used > idle]:
            self._forget_locked(sid, SESSION_EXPIRED)

    # -------------------------------------------------------------- running session code

    async def run(self, entry: SessionEntry, fn: Callable[[], T], *, thread: bool = False) -> T:
        """Run ``fn`` under the session's lock: on the event loop for cheap
        sessions, in a worker thread for sessions whose calls may be slow
        (a session is one or the other for life, so a lock held by a worker
        thread never blocks the event loop) and whenever ``thread`` is set
        (work that grows with the task, on a session nobody else holds yet)."""

        def locked() -> T:
            with entry.lock:
                return fn()

        if entry.threaded or thread:
            return await anyio.to_thread.run_sync(locked)
        return locked()

    def ground_slot(self) -> threading.BoundedSemaphore:
        return self._grounding


