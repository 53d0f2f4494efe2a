"""The MCP tools, one module-level function each.

A tool on a session is a plain function ``fn(call, **arguments) -> model``
decorated with :func:`session_tool`; the decorator does what every such
tool needs: it finds the caller's session (``session_id``, first parameter
of the published schema), runs ``fn`` under the session's lock (in a worker
thread when the session's calls may be slow), cuts the reply to the session's
feedback level and replies with the model as structured content and compact
JSON text. An ``async`` function is awaited instead, and takes the lock
itself (:meth:`Call.locked`). A tool without a session (:func:`server_tool`)
gets the server's :class:`Served` state. :func:`build_server` in
:mod:`.server` registers :data:`REGISTRY`, in the order of
:data:`~.names.TOOLS`.

The parameters' ``Annotated`` types are the published input schemas; a
function's docstring is its description.
"""

from __future__ import annotations

import functools
import inspect
import json
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any, Literal, TypeVar, cast

import anyio
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from ..bundled import DEFAULT_TASK, bundled_domains, bundled_tasks
from ..errors import ErrorCode, PDDLError, counted
from ..exact import to_json
from ..names import FEEDBACK_LEVELS, HEURISTIC_NAMES
from ..session import Failure, FeedbackLevel, Session
from ..syntax import parse_plan
from ..temporal_session import TemporalSession
from ..task import natural_key
from . import models as m
from . import names
from . import timed as tm
from .access import SessionPage, current_caller
from .errors import (
    ACTION_REFERENCE_CODES,
    INVALID_ARGUMENT,
    MISSING_ARGUMENT,
    PLAN_TOO_LONG,
    SERVER_CAPACITY,
    STEP_LIMIT,
    ToolFailure,
    clip,
    one_line,
)
from .budget import MIN_BUDGET, budget_of, fit, flatten, prefix, regroup
from .inputs import build_session, resolve_task_input, summarise_actions, summarise_objects
from .render import View, for_level, reference_failure, static_values
from .store import ServerOptions, SessionEntry, SessionStore

__all__ = ["REGISTRY", "Call", "Served", "Tool", "reply", "server_tool", "session_tool"]

T = TypeVar("T")
PageT = TypeVar("PageT", m.ActionsPage, m.HistoryView)

THREADED_ACTIONS = 5_000
"""A session of more ground actions runs every call in a worker thread (its
applicable-action queries grow with the task), like a heuristic one."""
MAX_PROOF_BUDGET = 100_000
MAX_WARNINGS = 20
"""Checker warnings an initialise_session reply lists at most."""
SLOT_POLL_S = 0.25
"""How often a call waiting for a grounding slot looks whether it was cancelled."""

SessionId = Annotated[
    str, Field(min_length=1, max_length=128, description="the session_id returned by initialise_session")
]
ActionText = Annotated[
    str, Field(max_length=2000, description="one ground action, e.g. '(stack a b)' (also 'stack a b', 'stack(a, b)')")
]
PageSize = Annotated[int | None, Field(ge=1, description="page size (clamped to the server's maximum)")]
ReplyBudget = Annotated[int | None, Field(ge=MIN_BUDGET, description="most characters of this reply")]
FeedbackName = Literal[FEEDBACK_LEVELS]  # type: ignore[valid-type]  # the names, defined once in ..names
HeuristicName = Literal[HEURISTIC_NAMES]  # type: ignore[valid-type]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def writes(*, destructive: bool, idempotent: bool) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=False, destructive_hint=destructive, idempotent_hint=idempotent, open_world_hint=False
    )


def reply(model: BaseModel) -> CallToolResult:
    """A result whose structured content is ``model`` (``None`` fields left out)
    and whose text is the same, as compact JSON."""
    data = model.model_dump(mode="json", exclude_none=True)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


# ----------------------------------------------------------------------------- the two decorators


@dataclass(frozen=True)
class Served:
    """One server's state, as every tool sees it."""

    store: SessionStore
    opts: ServerOptions


@dataclass(frozen=True)
class Call:
    """A call of a tool on a session: the caller's session and how to render it."""

    entry: SessionEntry
    view: View
    served: Served

    @property
    def session(self) -> Session:
        return self.entry.classical

    @property
    def timed(self) -> TemporalSession | None:
        """The session when it is on a temporal task (:mod:`.timed` answers then)."""
        return self.entry.timed

    @property
    def opts(self) -> ServerOptions:
        return self.served.opts

    async def locked(self, fn: Callable[[], T], *, thread: bool = False) -> T:
        """``fn`` under the session's lock (see :meth:`SessionStore.run`)."""
        return await self.served.store.run(self.entry, fn, thread=thread)


@dataclass(frozen=True)
class Tool:
    """A registered tool: its function and how to serve it."""

    fn: Callable[..., Any]
    annotations: ToolAnnotations
    on_session: bool
    level: bool
    closes: bool

    @property
    def name(self) -> str:
        return self.fn.__name__

    def bind(self, served: Served) -> Callable[..., Awaitable[CallToolResult]]:
        """The async callable the MCP server registers for ``served``: its
        signature is the function's, with ``call`` (or ``served``) replaced
        by ``session_id`` for a session tool, so the published schema is
        the function's own parameters."""
        fn, signature = self.fn, inspect.signature(self.fn, eval_str=True)
        params = list(signature.parameters.values())[1:]
        handler: Callable[..., Awaitable[CallToolResult]]
        if not self.on_session:

            async def serve_plain(**arguments: Any) -> CallToolResult:
                result = await fn(served, **arguments)
                return reply(fit(result, budget_of(arguments.get("reply_budget"), served.opts.reply_budget)))

            handler = serve_plain
        else:
            session_id = inspect.Parameter("session_id", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                           annotation=SessionId)
            params = [session_id, *params]
            store, opts = served.store, served.opts

            async def serve_session(session_id: str, **arguments: Any) -> CallToolResult:
                owner = current_caller().owner
                entry = store.close(session_id, owner) if self.closes else store.get(session_id, owner)
                call = Call(entry, View(entry, opts), served)
                if inspect.iscoroutinefunction(fn):
                    result = await fn(call, **arguments)
                else:
                    result = await store.run(entry, lambda: fn(call, **arguments))
                result = for_level(entry.feedback_level, result) if self.level else result
                return reply(fit(result, budget_of(arguments.get("reply_budget"), entry.reply_budget,
                                                   opts.reply_budget)))

            handler = serve_session
        handler.__name__ = fn.__name__
        handler.__doc__ = fn.__doc__
        handler.__signature__ = signature.replace(  # type: ignore[union-attr]  # typeshed's functions lack it
            parameters=params, return_annotation=Annotated[CallToolResult, signature.return_annotation])
        return handler


REGISTRY: list[Tool] = []
"""Every tool, in the order of definition (:func:`build_server` lists them in
the order of :data:`~.names.TOOLS`)."""


def _register(fn: Callable[..., Any], annotations: ToolAnnotations, *, on_session: bool, level: bool,
              states: bool, closes: bool = False) -> Callable[..., Any]:
    if fn.__name__ not in names.TOOLS:
        raise ValueError(f"tool {fn.__name__!r} is not in mcp_server.names.TOOLS")
    if states:  # the description also says how a state reads
        fn.__doc__ = inspect.cleandoc(fn.__doc__ or "") + "\n\n" + m.STATE_FORMAT
    REGISTRY.append(Tool(fn, annotations, on_session, level, closes))
    return fn


def session_tool(annotations: ToolAnnotations, *, level: bool = True, states: bool = False,
                 closes: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn(call, **arguments)`` as a tool on a session (see the
    module docstring). ``level``: the reply is cut to the session's feedback
    level; ``states``: the description says how a state reads; ``closes``:
    the session is closed (taken from the store) before ``fn`` runs."""
    return lambda fn: _register(fn, annotations, on_session=True, level=level, states=states, closes=closes)


def server_tool(annotations: ToolAnnotations, *, states: bool = False
                ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``async fn(served, **arguments)`` as a tool without a session."""
    return lambda fn: _register(fn, annotations, on_session=False, level=False, states=states)


# ----------------------------------------------------------------------------- initialise


def applicable_now(session: Session) -> int | None:
    """How many actions apply in the current state; None when a lifted session
    has too many to list at once (query_applicable_actions pages them lazily)."""
    return session.applicable_count()


@server_tool(writes(destructive=False, idempotent=False), states=True)
async def initialise_session(
    served: Served,
    task: Annotated[str | None, Field(max_length=200, description="a bundled task, e.g. 'blocksworld/p01'")] = None,
    domain: Annotated[str | None, Field(description="the domain as PDDL text, or a file path")] = None,
    problem: Annotated[str | None, Field(description="the problem as PDDL text, or a file path")] = None,
    feedback: Annotated[FeedbackName | None, Field(
        description="feedback after each step: paper (only the paper's signals: success, state, goal "
                    "reached; a validation says valid or not), plain (adds the reason of a failure), progress "
                    "(goal k/n), heuristic (adds h_FF distance, dead ends), full (adds why-not hints, "
                    "revisits)")] = None,
    rendering: Annotated[m.Rendering | None, Field(
        description="compact (default: atoms grouped by predicate, static facts only here, state diffs) or "
                    "plain (the paper's flat lists, full state after each step)")] = None,
    max_steps: Annotated[int | None, Field(ge=1, description="lower this session's step limit")] = None,
    label: Annotated[str | None, Field(max_length=64, description="a free label shown by list_sessions")] = None,
    heuristic: Annotated[HeuristicName | None, Field(
        description="at feedback heuristic/full, the distance reported: h_ff (default: relaxed plan length), "
                    "h_add, h_max, goal_count, lm_count (landmarks not yet reached plus those needed "
                    "again)")] = None,
    proof_budget: Annotated[int | None, Field(
        ge=0, le=MAX_PROOF_BUDGET, description="at feedback heuristic/full, how many states a breadth-first "
        "search may visit after each step to prove a dead end or find that a plan exists (default 0: only the "
        "relaxed proof)")] = None,
    observation: Annotated[str | None, Field(
        max_length=2000,
        description="partial observability: rules hiding atoms from states, e.g. 'blocksworld-top2' (only "
                    "the top two blocks of a stack are seen), 'hide PRED [ARG|?...]'; ';' separates rules")] = None,
    detect_loops: Annotated[bool | None, Field(
        description="report repeated states at any feedback level")] = None,
    backend: Annotated[Literal["auto", "grounded", "lifted"] | None, Field(
        description="grounded (heuristics, landmarks) or lifted (large tasks open fast); auto: grounded "
                    "when a size estimate says small")] = None,
    reply_budget: Annotated[int | None, Field(
        ge=MIN_BUDGET, description="most characters of a reply (default 25,000; see 'omitted')")] = None,
) -> m.SessionSummary:
    """Start a simulation session on a PDDL task and return its session_id.

    Give a bundled task name (see list_bundled_tasks), or domain and problem as PDDL text or file paths.
    The reply summarises objects by type, the action schemas, the goal and the static facts. A reply over its
    budget leaves items out and says in 'omitted' what and how to page them."""
    store, opts = served.store, served.opts
    spec = resolve_task_input(opts, task, domain, problem)
    level = FeedbackLevel.parse(feedback or opts.feedback)
    caller = current_caller()
    store.reserve(caller.owner)
    cancel = threading.Event()
    try:

        def work() -> tuple[Session | TemporalSession, Any]:
            slot = store.ground_slot()
            give_up = time.monotonic() + opts.grounding_timeout
            while not slot.acquire(timeout=SLOT_POLL_S):  # a call that gives up stops waiting too
                if cancel.is_set():
                    raise ToolFailure(SERVER_CAPACITY, "the call was cancelled while it waited for a slot")
                if time.monotonic() >= give_up:
                    raise ToolFailure(SERVER_CAPACITY, f"every grounding slot stayed busy for "
                                      f"{opts.grounding_timeout:g} s", "try again later, or use a smaller task")
            try:
                built = build_session(opts, spec, level, cancel, heuristic or HEURISTIC_NAMES[0], proof_budget or 0,
                                      observation=observation, detect_loops=detect_loops, backend=backend or "auto")
                return built, None if isinstance(built, TemporalSession) else built.goal_status()
            finally:
                slot.release()

        try:  # off the event loop; a cancelled call (the client went away) stops the grounding
            session, status = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except PDDLError as err:
            raise ToolFailure.from_pddl(err) from None
        except BaseException:
            cancel.set()
            raise
        if isinstance(session, TemporalSession):
            return await _initialise_timed(served, session, spec.sources, level, caller, label=label,
                                           rendering=rendering, max_steps=max_steps, reply_budget=reply_budget)
        entry = SessionEntry(
            session_id=store.new_id(),
            session=session,
            label=one_line(label) if label else None,
            domain=session.lifted.domain.display or session.lifted.domain.name,
            problem=session.lifted.problem.display or session.lifted.problem.name,
            sources=spec.sources,
            rendering=rendering or opts.rendering,
            max_steps=min(max_steps or opts.max_steps, opts.max_steps),
            last_used=store.clock(),
            threaded=level >= FeedbackLevel.HEURISTIC or session.grounded is None
            or len(session.grounded.actions) > THREADED_ACTIONS,
            owner=caller.owner,
            connection=caller.connection,
            tool_calls=1,
            goal_pos=frozenset(g for g in (*status.satisfied, *status.unsatisfied) if not g.startswith("(not ")),
            goal_neg=frozenset(g for g in (*status.satisfied, *status.unsatisfied) if g.startswith("(not ")),
            reply_budget=reply_budget,
        )
        view = View(entry, opts)

        def summary() -> m.SessionSummary:
            static = session.task.static_atoms & session.observe()
            return m.SessionSummary(
                session_id=entry.session_id,
                domain=entry.domain,
                problem=entry.problem,
                sources=entry.sources,
                objects=summarise_objects(session),
                actions=summarise_actions(session),
                goal=sorted(session.lifted.goal_parts(), key=natural_key),
                static_facts=view.atoms(static) if static else None,
                values=view.values(session.state),
                static_values=static_values(session.lifted) or None,
                backend=session.backend,
                backend_note=session.backend_note,
                ground_actions=None if session.grounded is None else len(session.grounded.actions),
                applicable_now=applicable_now(session),
                goal_reached=session.is_goal(),
                feedback_level=level.name.lower(),
                rendering=entry.rendering,
                max_steps=entry.max_steps,
                idle_timeout_s=opts.idle_timeout,
                label=entry.label,
                observation=session.observation.text if session.observation else None,
                detect_loops=session.detect_loops or None,
                feedback=view.current_feedback(),
                warnings=[w.headline() for w in session.lifted.report.warnings[:MAX_WARNINGS]] or None,
                next="call query_current_state and query_applicable_actions, then execute_single_action",
                reply_budget=budget_of(reply_budget, opts.reply_budget),
            )

        result = await store.run(entry, summary, thread=True)
        store.add(entry)
        return for_level(level, result)
    finally:
        store.release(caller.owner)


async def _initialise_timed(served: Served, session: TemporalSession, sources: dict[str, str], level: FeedbackLevel,
                            caller: Any, *, label: str | None, rendering: m.Rendering | None, max_steps: int | None,
                            reply_budget: int | None) -> m.SessionSummary:
    """initialise_session on a temporal task: the entry and its summary (see :mod:`.timed`)."""
    store, opts = served.store, served.opts
    lifted = session.task.lifted
    entry = SessionEntry(
        session_id=store.new_id(), session=session, label=one_line(label) if label else None,
        domain=lifted.domain.display or lifted.domain.name, problem=lifted.problem.display or lifted.problem.name,
        sources=sources, rendering=rendering or opts.rendering, max_steps=min(max_steps or opts.max_steps,
                                                                              opts.max_steps),
        last_used=store.clock(), threaded=True, owner=caller.owner, connection=caller.connection, tool_calls=1,
        reply_budget=reply_budget, level=level)

    def summary() -> m.SessionSummary:
        return m.SessionSummary(
            session_id=entry.session_id, domain=entry.domain, problem=entry.problem, sources=entry.sources,
            objects=summarise_objects(session), actions=tm.schemas(session),
            goal=sorted(lifted.goal_parts(), key=natural_key), applicable_now=len(tm.actions_page(session, 0, 1 << 30)
                                                                                  .actions),
            goal_reached=session.goal_reached(), feedback_level=level.name.lower(), rendering=entry.rendering,
            static_facts=None, static_values=None, values=tm.state(session).values,
            max_steps=entry.max_steps, idle_timeout_s=opts.idle_timeout, label=entry.label,
            warnings=[w.headline() for w in session.task.report.warnings[:MAX_WARNINGS]] or None,
            next="a temporal task: query_current_state (clock, running actions) and query_applicable_actions "
                 "(what may start or end now); execute_single_action starts '(act args)' or ends '(end ID)'; "
                 "advance_time lets time pass",
            reply_budget=budget_of(reply_budget, opts.reply_budget))

    result = await store.run(entry, summary, thread=True)
    store.add(entry)
    return for_level(level, result)


# ----------------------------------------------------------------------------- queries


@session_tool(READ_ONLY, states=True)
def query_current_state(
    call: Call,
    include_static: Annotated[bool | None, Field(
        description="also list static facts (compact rendering leaves them out after initialise_session)")] = None,
    part: Annotated[Literal["state", "static", "objects", "goal"] | None, Field(
        description="page through this part")] = None,
    group: Annotated[str | None, Field(max_length=200, description="only this predicate (or type)")] = None,
    offset: Annotated[int, Field(ge=0, description="first item of the page")] = 0,
    limit: PageSize = None,
    reply_budget: ReplyBudget = None,
) -> m.StateView:
    """The atoms that hold now, grouped by predicate (compact) or as a flat list (plain), and whether the goal
    is reached. Over the reply budget, it keeps each predicate's first atoms ('omitted' says what it left out);
    part, group, offset and limit page through the state, static facts, objects or goal. Temporal: also the
    clock and running actions."""
    if call.timed is not None:
        return tm.state(call.timed)
    s, view = call.session, call.view
    static = (view.plain or view.paper) if include_static is None else include_static
    if part is not None or group is not None or offset or limit is not None:
        return _state_page(call, part or "state", static, group, offset, limit,
                           budget_of(reply_budget, call.entry.reply_budget, call.opts.reply_budget))
    ids = view.state_ids(s.state, static)
    return m.StateView(
        step=len(s.history),
        goal_reached=s.is_goal(),
        atoms=len(ids),
        static_included=static or not s.task.static_atoms,
        state=view.atoms(ids),
        values=view.values(s.state, include_static=bool(static)),
        feedback=view.current_feedback(),
    )


@session_tool(READ_ONLY)
def query_applicable_actions(
    call: Call,
    offset: Annotated[int, Field(ge=0, description="index of the first action to return")] = 0,
    limit: PageSize = None,
    schema: Annotated[str | None, Field(
        max_length=200, description="only actions of this schema, e.g. 'stack'")] = None,
    involving: Annotated[str | None, Field(
        max_length=200, description="only actions with this object as an argument")] = None,
) -> m.ActionsPage:
    """The actions applicable in the current state, sorted, one page at a time, with the total count and a
    count per schema (total_at_least instead when too many to count). Temporal: also what may start or end."""
    page = _page_size(call.opts, call.entry, limit)
    if call.timed is not None:
        return tm.actions_page(call.timed, offset, page)
    s = call.session
    lifted = s.lifted
    keep: list[Callable[[Any], bool]] = []
    wanted = None
    if schema is not None:
        wanted = lifted.schema_index.get(schema.strip().lower())
        if wanted is None:
            known = ", ".join(sorted(sc.display for sc in lifted.schemas))
            raise ToolFailure(INVALID_ARGUMENT, f"no action schema '{clip(schema)}'", f"the schemas are: {known}")
        keep.append(lambda a: a.schema is wanted)
    if involving is not None:
        oid = lifted.object_index.get(involving.strip().lower())
        if oid is None:
            raise reference_failure(Failure(ErrorCode.UNKNOWN_OBJECT, f"unknown object '{clip(involving)}'"), lifted)
        keep.append(lambda a: oid in a.args)
    budget = budget_of(call.entry.reply_budget, call.opts.reply_budget)
    if s.applicable_count() is None:
        return _fit_actions(_lazy_page(s, offset, page, keep[1:] if wanted is not None else keep, wanted), budget)
    actions = [a for a in s.applicable_actions() if all(k(a) for k in keep)]
    chunk = actions[offset: offset + page]
    end = offset + len(chunk)
    return _fit_actions(m.ActionsPage(
        step=len(s.history),
        total=len(actions),
        offset=offset,
        limit=page,
        actions=[s.task.render_action(a) for a in chunk],
        next_offset=end if end < len(actions) else None,
        by_schema=dict(sorted(Counter(a.schema.display for a in actions).items())),
    ), budget)


def _fit_actions(page: PageT, budget: int) -> PageT:
    """``page`` (of actions or of the history) cut at the end to fit ``budget``
    (its next_offset continues it)."""
    start = page.offset or 0

    def build(k: int) -> PageT:
        more = k < len(page.actions) or page.next_offset is not None
        return page.model_copy(update={"actions": page.actions[:k], "next_offset": start + k if more else None})

    return prefix(build, len(page.actions), budget)[0]


def _state_page(call: Call, part: str, static: bool, group: str | None, offset: int, limit: int | None,
                budget: int) -> m.StateView:
    """One page of a part of the task (see query_current_state), items in
    the order the whole reply lists them, cut to fit ``budget``."""
    s, view = call.session, call.view
    if part == "objects":
        items: Any = summarise_objects(s)
    elif part == "goal":
        items = sorted(s.lifted.goal_parts(), key=natural_key)
    elif part == "static":
        items = view.atoms(s.task.static_atoms & s.observe())
    else:
        items = view.atoms(view.state_ids(s.state, static or (group is not None and _is_static(s, group))))
    pairs = flatten(items)
    if group is not None:
        want = group.strip().lower()
        pairs = [(g, x) for g, x in pairs if g.lower() in (want, f"{want} (derived)")]
    total = len(pairs)
    pairs = pairs[offset:]
    if limit is not None:
        pairs = pairs[:limit]
    grouped = isinstance(items, dict)

    def build(k: int) -> m.StateView:
        end = offset + k
        return m.StateView(step=len(s.history), goal_reached=s.is_goal(), atoms=k, state=regroup(pairs[:k], grouped),
                           part=part, total=total, offset=offset, next_offset=end if end < total else None)

    return prefix(build, len(pairs), budget)[0]  # type: ignore[return-value]


def _is_static(s: Session, predicate: str) -> bool:
    index = s.lifted.predicate_index.get(predicate.strip().lower())
    return index is not None and index not in s.lifted.fluent_predicates


LAZY_SCAN = 200_000
"""Actions a filtered page of a state too large to count looks through at most."""


def _lazy_page(s: Session, offset: int, page: int, keep: list[Callable[[Any], bool]],
               schema: Any = None) -> m.ActionsPage:
    """A page of a state whose applicable actions are too many to list at once:
    the first ``offset + page + 1`` matching ones (of ``schema``), found in
    order (see ``Session.applicable_actions(limit)``), the total reported as a
    lower bound."""
    want = offset + page + 1
    n = want
    while True:
        found = s.applicable_actions(limit=n, schema=schema)
        matching = [a for a in found if all(k(a) for k in keep)] if keep else found
        if len(matching) >= want or len(found) < n or n >= LAZY_SCAN:
            break
        n = min(n * 4, LAZY_SCAN)
    complete = len(found) < n
    chunk = matching[offset: offset + page]
    end = offset + len(chunk)
    more = len(matching) > end or not complete
    return m.ActionsPage(
        step=len(s.history),
        total=len(matching) if complete else None,
        total_at_least=None if complete else len(matching),
        offset=offset,
        limit=page,
        actions=[s.task.render_action(a) for a in chunk],
        next_offset=end if more and chunk else None,
    )


# ----------------------------------------------------------------------------- execution


@session_tool(writes(destructive=False, idempotent=False))
def execute_single_action(
    call: Call,
    action: ActionText,
    include_state: Annotated[bool | None, Field(
        description="also return the whole new state (default: only in plain rendering; compact returns "
                    "the atoms added and deleted)")] = None,
) -> m.StepOutcome:
    """Execute one action in the current state. On success the state advances (reply: added and deleted atoms,
    goal_reached); if the action is not applicable nothing changes and success is false with the unsatisfied
    preconditions. An action that names no action of the task is a tool error. (Feedback level paper: only
    success, the state and goal_reached, whatever went wrong.) Temporal: '(act args)' starts a durative action
    now ('[d]' after it: its duration), '(end ID)' ends one."""
    entry, view = call.entry, call.view
    if entry.attempts_left <= 0:
        raise ToolFailure(STEP_LIMIT, f"session used all {entry.max_steps} of its execute attempts")
    if call.timed is not None:
        return tm.execute(entry, call.timed, action)
    before = call.session.state
    r = call.session.execute(action)
    if r.failure is not None and r.failure.code in ACTION_REFERENCE_CODES and not view.paper:
        entry.failed_attempts += 1
        raise reference_failure(r.failure, call.session.lifted)
    if r.success:
        entry.steps_executed += 1
    else:
        entry.failed_attempts += 1
    try:
        return _step_outcome(entry, view, r, before, include_state)
    except BaseException:  # the reply could not be made: the step does not stay either (issue 30)
        if r.success:
            call.session.undo()
            entry.steps_executed -= 1
        raise


def _step_outcome(entry: SessionEntry, view: Any, r: Any, before: Any, include_state: bool | None) -> m.StepOutcome:
    return m.StepOutcome(
        success=r.success,
        action=r.action,
        step=r.step,
        goal_reached=r.goal_reached,
        added=list(r.added) or None,
        deleted=list(r.deleted) or None,
        fired_effects=list(r.fired) or None,
        values_changed=view.values_changed(before, r.state) if r.success else None,
        state=view.maybe_state(include_state) if r.success or view.paper else None,
        values=view.values(r.state) if view.wants_state(include_state) and (r.success or view.paper) else None,
        failure=view.failure(r.failure) if r.failure else None,
        feedback=view.feedback(r.feedback, added=r.added, deleted=r.deleted),
        attempts_left=entry.attempts_left,
    )


@session_tool(writes(destructive=True, idempotent=True))
def reset_to_initial_state(
    call: Call,
    include_state: Annotated[bool | None, Field(description="also return the initial state")] = None,
) -> m.ResetOutcome:
    """Go back to the initial state and clear the action history (counters are kept)."""
    if call.timed is not None:
        return tm.reset(call.entry, call.timed)
    s, entry = call.session, call.entry
    discarded = len(s.history)
    s.reset()
    entry.resets += 1
    return m.ResetOutcome(
        step=0,
        goal_reached=s.is_goal(),
        discarded_steps=discarded,
        state=call.view.maybe_state(include_state),
        values=call.view.values(s.state) if call.view.wants_state(include_state) else None,
        counters=entry.counters(),
    )


@session_tool(READ_ONLY)
def query_action_history(
    call: Call,
    offset: Annotated[int, Field(ge=0, description="index of the first step to return")] = 0,
    limit: PageSize = None,
) -> m.HistoryView:
    """The actions executed since the initial state (the current plan), in order, and the session's counters:
    steps executed, failed attempts, resets, undos, attempts left."""
    page = call.opts.max_page_size if limit is None else min(limit, call.opts.max_page_size)
    if call.timed is not None:  # a timed plan, one IPC line per step: 'time: (act args) [duration]'
        return tm.history(call.entry, call.timed, offset, page)
    s = call.session
    plan = s.plan()
    chunk = plan[offset: offset + page]
    end = offset + len(chunk)
    return _fit_actions(m.HistoryView(
        length=len(plan),
        offset=offset,
        actions=chunk,
        next_offset=end if end < len(plan) else None,
        goal_reached=s.is_goal(),
        counters=call.entry.counters(),
    ), budget_of(call.entry.reply_budget, call.opts.reply_budget))


@session_tool(READ_ONLY)
async def validate_complete_plan(
    call: Call,
    plan: Annotated[list[Annotated[str, Field(max_length=2000)]] | str | None, Field(
        description="the plan: a list of actions, or one text with an action per line (VAL format); "
                    "omit it to validate the session's own history (temporal: 't: (act) [d]' lines)")] = None,
    epsilon: Annotated[float | None, Field(
        gt=0, le=1000, description="temporal: VAL's -t (default 0.01)")] = None,
) -> m.ValidationView:
    """Check a complete plan from the initial state without changing the session: every step must apply in turn
    and the goal must hold at the end. The verdict names the first failing step and its unsatisfied
    preconditions, or the goal atoms left unsatisfied (feedback level paper: only whether it is valid)."""
    timed = call.timed
    if timed is not None:
        return await call.locked(lambda: tm.validate(timed, plan, epsilon, call.opts.max_plan_steps), thread=True)
    if epsilon is not None:
        raise ToolFailure(INVALID_ARGUMENT, "epsilon applies to temporal tasks only", "omit it")
    steps = _plan_steps(call.opts, plan)
    given = await call.locked(lambda: call.session.plan() if steps is None else steps)
    report = await anyio.to_thread.run_sync(  # off the lock: it changes nothing
        functools.partial(call.session.validate, given, max_seconds=call.opts.max_validation_seconds))
    unsatisfied, more = call.view.goal_list(report.unsatisfied_goals)
    f = report.failure
    return m.ValidationView(
        valid=report.valid,
        plan_source="history" if steps is None else "given",
        length=report.length,
        steps_applied=report.steps_applied,
        cost=float(report.cost) if isinstance(report.cost, Fraction) else report.cost,  # as pydantic reads it
        goal_reached=report.goal_reached,
        unsatisfied_goals=unsatisfied,
        more_unsatisfied=more,
        failure=m.StepFailureView(
            step=f.step, action=f.action, code=f.code, message=f.message, unsatisfied=list(f.unsatisfied) or None,
        ) if f else None,
        metric=None if report.metric is None else to_json(report.metric),
        metric_direction=(cast('Literal["minimize", "maximize"]', report.metric_direction)  # the parser's two words
                          if report.metric is not None else None),
        metric_error=report.metric_error,
        summary=verdict(report),
    )


# ----------------------------------------------------------------------------- beyond the paper's seven


@session_tool(READ_ONLY, level=False)
def explain_action(call: Call, action: ActionText) -> m.ExplainOutcome:
    """Say whether an action is applicable now and, if not, which preconditions fail (with hints at feedback
    level full). Changes nothing and does not count as an attempt."""
    if call.timed is not None:
        return tm.explain(call.timed, action)
    e = call.session.explain(action)
    if e.failure is not None and e.failure.code in ACTION_REFERENCE_CODES:
        raise reference_failure(e.failure, call.session.lifted)
    return m.ExplainOutcome(action=e.action, applicable=e.applicable,
                            failure=call.view.failure(e.failure) if e.failure else None)


@session_tool(writes(destructive=True, idempotent=False), level=False)
def checkpoint(
    call: Call,
    op: Annotated[Literal["save", "restore", "delete", "list"], Field(
        description="save the state and action history under the name, restore them (the reply lists the atoms "
                    "that changed), delete the checkpoint, or list the checkpoints")],
    checkpoint: Annotated[str | None, Field(min_length=1, max_length=64, description="its name")] = None,
    include_state: Annotated[bool | None, Field(description="restore: also return the whole state")] = None,
) -> m.CheckpointOutcome:
    """Named checkpoints of the session: save, restore, delete or list them."""
    if op != "list" and checkpoint is None:
        raise ToolFailure(MISSING_ARGUMENT, f"checkpoint: op '{op}' needs the checkpoint's name",
                          "e.g. checkpoint='tower-done'", details={"argument": "checkpoint"})
    if call.timed is not None:
        return tm.checkpoint(call.entry, call.timed, op, checkpoint)
    s, view = call.session, call.view
    before = s.state
    calls = {"save": s.save, "restore": s.restore, "delete": s.delete_checkpoint}
    try:
        cp = calls[op](checkpoint) if op in calls else None  # type: ignore[arg-type]
    except PDDLError as err:
        raise ToolFailure.from_pddl(err) from None
    restored = op == "restore"
    call.entry.restores += restored
    added, deleted = view.diff(before, s.state) if restored else (None, None)
    return m.CheckpointOutcome(
        name=cp.name if cp else None, step=len(s.history), goal_reached=s.is_goal() if restored else None,
        added=added, deleted=deleted, state=view.maybe_state(include_state) if restored else None,
        values_changed=view.values_changed(before, s.state) if restored else None,
        values=view.values(s.state) if restored and view.wants_state(include_state) else None,
        checkpoints=[m.CheckpointInfo(name=c.name, step=c.step) for c in s.checkpoints()])


@session_tool(writes(destructive=False, idempotent=False), level=False)
def undo_last_action(
    call: Call,
    steps: Annotated[int, Field(ge=1, le=1_000_000, description="how many actions to undo")] = 1,
    include_state: Annotated[bool | None, Field(description="also return the whole state")] = None,
) -> m.UndoOutcome:
    """Undo the last executed action(s); the reply lists them and the atoms that changed back."""
    if call.timed is not None:
        return tm.undo(call.entry, call.timed, steps)
    s, view = call.session, call.view
    before, plan = s.state, s.plan()
    n = s.undo(steps)
    call.entry.undos += n
    added, deleted = view.diff(before, s.state)
    return m.UndoOutcome(
        undone=plan[len(plan) - n:][::-1],
        step=len(s.history),
        goal_reached=s.is_goal(),
        added=added,
        deleted=deleted,
        values_changed=view.values_changed(before, s.state),
        state=view.maybe_state(include_state),
        values=view.values(s.state) if view.wants_state(include_state) else None,
    )


@session_tool(writes(destructive=False, idempotent=False))
def advance_time(
    call: Call,
    to: Annotated[float | None, Field(ge=0, description="the time to go to")] = None,
    next_event: Annotated[bool, Field(description="go to the next end or timed literal instead")] = False,
) -> m.AdvanceOutcome:
    """Temporal tasks: let time pass, to a time or the next event. Refused (success false) when a running action
    would pass its latest end or an over all condition break."""
    if call.timed is None:
        raise ToolFailure(INVALID_ARGUMENT, "advance_time is for temporal tasks (durative actions, timed literals)",
                          "this task has no clock: execute_single_action takes its steps")
    return tm.advance(call.entry, call.timed, to, next_event)


@session_tool(writes(destructive=True, idempotent=False), level=False, closes=True)
def close_session(call: Call) -> m.CloseOutcome:
    """Close a session and free its memory; the reply has its final counters."""
    entry = call.entry
    return m.CloseOutcome(
        session_id=entry.session_id,
        closed=True,
        plan_length=entry.step_count,
        goal_reached=entry.goal_reached,
        counters=entry.counters(),
    )


@server_tool(READ_ONLY)
async def list_sessions(
    served: Served,
    cursor: Annotated[str | None, Field(
        max_length=128, description="next_cursor of the previous page; omit for the first page")] = None,
    limit: Annotated[int, Field(ge=1, le=1000, description="sessions per page")] = 50,
) -> SessionPage:
    """Your live sessions (only those this client opened), a page at a time, with their task, step and
    counters."""
    store, opts = served.store, served.opts
    now = store.clock()
    owner = current_caller().owner
    redact = not opts.reveal_session_ids and owner is None
    chosen, total, following = store.page(owner, cursor, limit, by_id=not redact)
    infos = [
        m.SessionInfo(
            session_id=e.session_id[:6] + "..." if redact else e.session_id,
            label=e.label,
            domain=e.domain,
            problem=e.problem,
            step=e.step_count,
            goal_reached=e.goal_reached,
            idle_s=round(max(0.0, now - e.last_used), 1),
            counters=e.counters(),
        )
        for e in chosen
    ]
    return SessionPage(sessions=infos, live=total, max_sessions=opts.max_sessions, ids_redacted=redact,
                       next_cursor=following, per_client_limit=store.limit_of(owner))


@server_tool(READ_ONLY)
async def list_bundled_tasks(served: Served) -> m.BundledTasks:
    """The PDDL tasks that ship with the server; pass a name as initialise_session(task=...)."""
    return m.BundledTasks(tasks=bundled_tasks(), domains=bundled_domains(),
                          next=f"initialise_session(task='{DEFAULT_TASK}')")


# ----------------------------------------------------------------------------- helpers


def _page_size(opts: ServerOptions, entry: SessionEntry, limit: int | None) -> int:
    if limit is None:
        everything = entry.rendering == "plain" or entry.feedback_level == FeedbackLevel.PAPER
        return opts.max_page_size if everything else opts.page_size
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


def verdict(report: Any) -> str:
    """A validation's one-line summary: the engine's one wording
    (``ValidationReport.headline``); what does not hold is in its own fields."""
    return str(report.headline())
