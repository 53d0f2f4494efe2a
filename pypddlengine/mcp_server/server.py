"""The MCP server: the tools, their argument checking, and running it (stdio or HTTP)."""


import inspect
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from .. import __version__
from ..bundled import DEFAULT_TASK, bundled_domains, bundled_root, bundled_task, bundled_tasks
from ..errors import ErrorCode, GroundingLimitError, PDDLError, counted
from ..exact import to_json
from ..session import Failure, FeedbackLevel, Session
from ..syntax import parse_plan
from ..task import natural_key
from . import models as m
from .access import (
    GuardSettings,
    HttpGuard,
    SessionPage,
    allowed_host_names,
    bind_caller,
    current_caller,
    identify,
    require_tokens,
    unbind_caller,
)
from .errors import (
    ACTION_REFERENCE_CODES,
    INTERNAL_ERROR,
    INVALID_ARGUMENT,
    MISSING_ARGUMENT,
    PLAN_TOO_LONG,
    SERVER_CAPACITY,
    STEP_LIMIT,
    UNKNOWN_TOOL,
    ToolFailure,
    clip,
    one_line,
)
from .inputs import build_session, resolve_task_input, summarise_actions, summarise_objects
from .render import View, for_level, number_or_none, reference_failure, static_values
from .store import ServerOptions, SessionEntry, SessionStore

log = logging.getLogger("pypddlengine.mcp")

THREADED_ACTIONS = 5_000
"""A session of more ground actions runs every call in a worker thread (its
applicable-action queries grow with the task), like a heuristic one."""

# ----------------------------------------------------------------------------- the server


def _reply(model: BaseModel) -> CallToolResult:
    """A result whose structured content is ``model`` (``None`` fields left out)
    and whose text is the same, as compact JSON."""
    data = model.model_dump(mode="json", exclude_none=True)
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


class EngineServer(MCPServer):
    """An :class:`MCPServer` whose tool errors all follow one format:
    ``[CODE] message; hint: ...`` plus the error as JSON in a second text
    block, and no structured content (see :mod:`.wire`).

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
        store: SessionStore = self.store  # type: ignore[attr-defined]
        bound = bind_caller(identify(context, store.options.auth_tokens, store.release_connection))
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
        finally:
            unbind_caller(bound)


def _translate(server: "EngineServer", name: str, arguments: dict[str, Any], exc: ToolError) -> ToolFailure:
    cause = exc.__cause__
    if isinstance(exc, ToolFailure):
        return exc
    if isinstance(cause, ToolFailure):
        return cause
    if isinstance(cause, PDDLError):  # e.g. a lifted session's state with too many actions to list
        return ToolFailure.from_pddl(cause)
    unexpected_cause = cause is not None and not isinstance(cause, ValidationError | ToolError)
    if isinstance(exc, UnexpectedToolError) or unexpected_cause:
        return ToolFailure(INTERNAL_ERROR, f"{name} failed unexpectedly")
    if isinstance(cause, ValidationError):
        return _argument_failure(server, name, arguments, cause)
    if str(exc).startswith("Unknown tool"):
        names = ", ".join(sorted(server.tool_parameters))
        return ToolFailure(UNKNOWN_TOOL, f"no tool '{clip(name)}'", f"the tools are: {names}")
    return ToolFailure(INVALID_ARGUMENT, one_line(str(exc)))


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
            hint = f"unknown argument(s) {', '.join(repr(clip(u, 24)) for u in unknown[:3])}; the parameters are " + \
                ", ".join(sorted(known))
        return ToolFailure(MISSING_ARGUMENT, f"{name}: missing argument '{where}'", hint,
                           details={"argument": where, "parameters": sorted(known)})
    message = one_line(first.get("msg", "invalid value"))
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    return ToolFailure(INVALID_ARGUMENT, f"{name}: argument '{where}': {message}{more}",
                       details={"argument": where, "parameters": sorted(known)})


INSTRUCTIONS = """\
Step-wise PDDL simulation. Start with initialise_session (PDDL text, file paths, or a bundled task such as \
'blocksworld/p01'; see list_bundled_tasks); it returns a session_id that every other tool needs. Then loop: \
query_current_state, query_applicable_actions, execute_single_action (one action, e.g. '(unstack c a)'). \
reset_to_initial_state or undo_last_action go back, checkpoint saves and restores named points; \
validate_complete_plan checks a plan (the session's history by default); close_session frees the session. \
Errors start with [CODE] and say what to do next."""

SessionId = Annotated[
    str, Field(min_length=1, max_length=128, description="the session_id returned by initialise_session")
]
ActionText = Annotated[
    str, Field(max_length=2000, description="one ground action, e.g. '(stack a b)' (also 'stack a b', 'stack(a, b)')")
]
FeedbackName = Literal["paper", "plain", "progress", "heuristic", "full"]
HeuristicName = Literal["h_ff", "h_add", "h_max", "goal_count", "lm_count"]
MAX_PROOF_BUDGET = 100_000
MAX_WARNINGS = 20
"""Checker warnings an initialise_session reply lists at most."""
SLOT_POLL_S = 0.25
"""How often a call waiting for a grounding slot looks whether it was cancelled."""
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
        return store.get(session_id, current_caller().owner)

    # ------------------------------------------------------------------ initialise

    @_tool(server, _writes(destructive=False, idempotent=False))
    async def initialise_session(
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
    ) -> Annotated[CallToolResult, m.SessionSummary]:
        """Start a simulation session on a PDDL task and return its session_id.

        Give a bundled task name (see list_bundled_tasks), or domain and problem as PDDL text or file paths.
        The reply summarises objects by type, the action schemas, the goal and the static facts."""
        spec = resolve_task_input(opts, task, domain, problem)
        level = FeedbackLevel.parse(feedback or opts.feedback)
        caller = current_caller()
        store.reserve(caller.owner)
        cancel = threading.Event()
        try:

            def work() -> tuple[Session, Any]:
                slot = store.ground_slot()
                give_up = time.monotonic() + opts.grounding_timeout
                while not slot.acquire(timeout=SLOT_POLL_S):  # a call that gives up stops waiting too
                    if cancel.is_set():
                        raise ToolFailure(SERVER_CAPACITY, "the call was cancelled while it waited for a slot")
                    if time.monotonic() >= give_up:
                        raise ToolFailure(SERVER_CAPACITY, f"every grounding slot stayed busy for "
                                          f"{opts.grounding_timeout:g} s", "try again later, or use a smaller task")
                try:
                    built = build_session(opts, spec, level, cancel, heuristic or "h_ff", proof_budget or 0,
                                          observation=observation, detect_loops=detect_loops,
                                          backend=backend or "auto")
                    return built, built.goal_status()
                finally:
                    slot.release()

            try:  # off the event loop; a cancelled call (the client went away) stops the grounding
                session, status = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
            except PDDLError as err:
                raise ToolFailure.from_pddl(err) from None
            except BaseException:
                cancel.set()
                raise
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
            )
            view = View(entry, opts)

            def applicable_now() -> int | None:
                """How many actions apply in the initial state; None when a lifted session
                cannot list them (its work limit: the error comes with query_applicable_actions)."""
                try:
                    return len(session.applicable_actions())
                except GroundingLimitError as err:
                    if err.details.get("kind") != "lifted":
                        raise
                    return None

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
                    applicable_now=applicable_now(),
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
                )

            result = await store.run(entry, summary, thread=True)
            store.add(entry)
            return _reply(for_level(level, result))
        finally:
            store.release(caller.owner)

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
            static = (view.plain or view.paper) if include_static is None else include_static
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

        return _reply(for_level(entry.session.feedback_level, await store.run(entry, work)))

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
                    raise ToolFailure(INVALID_ARGUMENT, f"no action schema '{clip(schema)}'",
                                      f"the schemas are: {names}")
                actions = [a for a in actions if a.schema is wanted]
            if involving is not None:
                oid = lifted.object_index.get(involving.strip().lower())
                if oid is None:
                    raise reference_failure(Failure(ErrorCode.UNKNOWN_OBJECT, f"unknown object '{clip(involving)}'"),
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

        return _reply(for_level(entry.session.feedback_level, await store.run(entry, work)))

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
        preconditions. An action that names no action of the task is a tool error. (Feedback level paper: only
        success, the state and goal_reached, whatever went wrong.)"""
        entry = entry_of(session_id)
        view = View(entry, opts)

        def work() -> m.StepOutcome:
            if entry.attempts_left <= 0:
                raise ToolFailure(STEP_LIMIT, f"session used all {entry.max_steps} of its execute attempts")
            before = entry.session.state
            r = entry.session.execute(action)
            if r.failure is not None and r.failure.code in ACTION_REFERENCE_CODES and not view.paper:
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
                fired_effects=list(r.fired) or None,
                values_changed=view.values_changed(before, r.state) if r.success else None,
                state=view.maybe_state(include_state) if r.success or view.paper else None,
                values=view.values(r.state) if view.maybe_state(include_state) is not None and (
                    r.success or view.paper) else None,
                failure=view.failure(r.failure) if r.failure else None,
                feedback=view.feedback(r.feedback, added=r.added, deleted=r.deleted),
                attempts_left=entry.attempts_left,
            )

        return _reply(for_level(entry.session.feedback_level, await store.run(entry, work)))

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
                values=view.values(s.state) if view.maybe_state(include_state) is not None else None,
                counters=entry.counters(),
            )

        return _reply(for_level(entry.session.feedback_level, await store.run(entry, work)))

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
                values_changed=view.values_changed(before, s.state),
                state=view.maybe_state(include_state),
                values=view.values(s.state) if view.maybe_state(include_state) is not None else None,
            )

        return _reply(await store.run(entry, work))

    @_tool(server, _writes(destructive=True, idempotent=False))
    async def checkpoint(
        session_id: SessionId,
        op: Annotated[Literal["save", "restore", "delete", "list"], Field(
            description="save the state and action history under the name, restore them (the reply lists the atoms "
                        "that changed), delete the checkpoint, or list the checkpoints")],
        checkpoint: Annotated[str | None, Field(min_length=1, max_length=64, description="its name")] = None,
        include_state: Annotated[bool | None, Field(description="restore: also return the whole state")] = None,
    ) -> Annotated[CallToolResult, m.CheckpointOutcome]:
        """Named checkpoints of the session: save, restore, delete or list them."""
        entry = entry_of(session_id)
        view = View(entry, opts)
        if op != "list" and checkpoint is None:
            raise ToolFailure(MISSING_ARGUMENT, f"checkpoint: op '{op}' needs the checkpoint's name",
                              "e.g. checkpoint='tower-done'", details={"argument": "checkpoint"})

        def work() -> m.CheckpointOutcome:
            s = entry.session
            before = s.state
            calls = {"save": s.save, "restore": s.restore, "delete": s.delete_checkpoint}
            try:
                cp = calls[op](checkpoint) if op in calls else None  # type: ignore[arg-type]
            except PDDLError as err:
                raise ToolFailure.from_pddl(err) from None
            restored = op == "restore"
            entry.restores += restored
            added, deleted = view.diff(before, s.state) if restored else (None, None)
            return m.CheckpointOutcome(
                name=cp.name if cp else None, step=len(s.history), goal_reached=s.is_goal() if restored else None,
                added=added, deleted=deleted, state=view.maybe_state(include_state) if restored else None,
                values_changed=view.values_changed(before, s.state) if restored else None,
                values=view.values(s.state) if restored and view.maybe_state(include_state) is not None else None,
                checkpoints=[m.CheckpointInfo(name=c.name, step=c.step) for c in s.checkpoints()])

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

        return _reply(for_level(entry.session.feedback_level, await store.run(entry, work)))

    @_tool(server, READ_ONLY)
    async def validate_complete_plan(
        session_id: SessionId,
        plan: Annotated[list[Annotated[str, Field(max_length=2000)]] | str | None, Field(
            description="the plan: a list of actions, or one text with an action per line (VAL format); "
                        "omit it to validate the session's own history")] = None,
    ) -> Annotated[CallToolResult, m.ValidationView]:
        """Check a complete plan from the initial state without changing the session: every step must apply in turn
        and the goal must hold at the end. The verdict names the first failing step and its unsatisfied
        preconditions, or the goal atoms left unsatisfied (feedback level paper: only whether it is valid)."""
        entry = entry_of(session_id)
        view = View(entry, opts)
        steps = _plan_steps(opts, plan)

        def snapshot() -> list[Any]:
            return entry.session.plan() if steps is None else steps

        given = await store.run(entry, snapshot)
        report = await anyio.to_thread.run_sync(entry.session.validate, given)
        unsatisfied, more = view.goal_list(report.unsatisfied_goals)
        f = report.failure
        return _reply(for_level(
            entry.session.feedback_level,
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
                metric=None if report.metric is None else to_json(report.metric),
                metric_direction=report.metric_direction if report.metric is not None else None,
                metric_error=report.metric_error,
                summary=_verdict(report),
            )
        ))

    # ------------------------------------------------------------------ session management

    @_tool(server, _writes(destructive=True, idempotent=False))
    async def close_session(session_id: SessionId) -> Annotated[CallToolResult, m.CloseOutcome]:
        """Close a session and free its memory; the reply has its final counters."""
        entry = store.close(session_id, current_caller().owner)

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
    async def list_sessions(
        cursor: Annotated[str | None, Field(
            max_length=128, description="next_cursor of the previous page; omit for the first page")] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="sessions per page")] = 50,
    ) -> Annotated[CallToolResult, SessionPage]:
        """Your live sessions (only those this client opened), a page at a time, with their task, step and
        counters."""
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
                step=len(e.session.history),
                goal_reached=e.session.is_goal(),
                idle_s=round(max(0.0, now - e.last_used), 1),
                counters=e.counters(),
            )
            for e in chosen
        ]
        return _reply(SessionPage(
            sessions=infos, live=total, max_sessions=opts.max_sessions, ids_redacted=redact,
            next_cursor=following,
            per_client_limit=store.limit_of(current_caller().owner),
        ))

    @_tool(server, READ_ONLY)
    async def list_bundled_tasks() -> Annotated[CallToolResult, m.BundledTasks]:
        """The PDDL tasks that ship with the server; pass a name as initialise_session(task=...)."""
        return _reply(m.BundledTasks(tasks=bundled_tasks(), domains=bundled_domains(),
                                     next=f"initialise_session(task='{DEFAULT_TASK}')"))

    if opts.allowed_files is None:  # a server limited to a task's files serves no other file as a resource
        _add_bundled_resources(server)
    return server


def _page_size(opts: ServerOptions, entry: SessionEntry, limit: int | None) -> int:
    if limit is None:
        everything = entry.rendering == "plain" or entry.session.feedback_level == FeedbackLevel.PAPER
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


def _verdict(report: Any) -> str:
    if report.valid:
        return f"valid plan: {counted(report.length, 'step')}, cost {number_or_none(report.cost)}"
    f = report.failure
    if f is not None:
        return f"invalid plan: step {f.step} {f.action} fails ({f.code})"
    n = len(report.unsatisfied_goals)
    steps = "the only step applies" if report.length == 1 else f"all {report.length} steps apply"
    return (f"invalid plan: {steps} but {counted(n, 'goal atom')} {'does' if n == 1 else 'do'} not hold"
            " at the end")


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


SHUTDOWN_GRACE_S = 4.0
"""After a SIGTERM the HTTP server process is gone within this many seconds, whatever its threads are doing."""


class ServeError(Exception):
    """The server could not start (its address is taken or not ours to bind); ``exit_code`` is 3."""

    exit_code = 3


def run_server(
    transport: str = "stdio", host: str = "127.0.0.1", port: int = 8000, *, log_level: LogLevel = "WARNING",
    allowed_hosts: tuple[str, ...] = (), allowed_origins: tuple[str, ...] = (),
    on_ready: Callable[[str], None] | None = None, **options: Any,
) -> None:
    """Serve until the client goes (stdio: end of input) or a SIGTERM/SIGINT:
    ``stdio`` (default) or ``streamable-http`` (alias ``http``) on ``host:port``
    at path ``/mcp``. ``options`` are :class:`ServerOptions` fields; over HTTP
    ``allow_files`` and ``reveal_session_ids`` default to off and
    ``max_sessions_per_client`` to 8, since any client may connect; a
    non-loopback ``host`` needs ``auth_tokens`` (``ValueError`` otherwise,
    see :func:`.access.require_tokens`).

    Over HTTP every request passes :class:`.access.HttpGuard` (Host and Origin
    against ``allowed_hosts``/``allowed_origins`` plus loopback and the bound
    address; the bearer tokens of ``auth_tokens``). A port that cannot be bound
    raises :class:`ServeError`. ``on_ready`` gets the URL once it listens."""
    if transport == "http":
        transport = "streamable-http"
    if transport not in ("stdio", "streamable-http"):
        raise ValueError(f"unknown transport '{transport}'; use 'stdio' or 'streamable-http'")
    if transport == "streamable-http":
        require_tokens(host, options.get("auth_tokens", ()))
        options.setdefault("allow_files", False)
        options.setdefault("reveal_session_ids", False)
        options.setdefault("max_sessions_per_client", 8)
    server = build_server(log_level=log_level, **options)
    if transport == "stdio":
        server.run("stdio")
        return
    _serve_http(server, host, port, log_level, allowed_hosts, allowed_origins, on_ready)


def _serve_http(server: EngineServer, host: str, port: int, log_level: str, allowed_hosts: tuple[str, ...],
                allowed_origins: tuple[str, ...], on_ready: Callable[[str], None] | None) -> None:
    import errno
    import os
    import socket
    import threading

    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    store: SessionStore = server.store  # type: ignore[attr-defined]
    app = server.streamable_http_app(
        streamable_http_path="/mcp", host=host,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),  # HttpGuard checks
    )
    settings = GuardSettings(
        hosts=allowed_host_names(host, allowed_hosts),
        origins=frozenset(o.strip().lower().rstrip("/") for o in allowed_origins),
        tokens=store.options.auth_tokens,
    )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as err:
        sock.close()
        busy = err.errno == errno.EADDRINUSE
        raise ServeError(f"cannot listen on {host}:{port}: " + ("the port is in use" if busy else str(err))) from None
    sock.set_inheritable(True)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            """One SIGTERM or SIGINT stops the server: open streams get 2 s, and
            if a worker thread (a grounding) still holds the process 4 s later it
            exits anyway. The signal is not raised again afterwards (exit 0)."""
            self.force_exit = self.should_exit  # a second signal: stop waiting at once
            self.should_exit = True
            if not self.force_exit:
                watchdog = threading.Timer(SHUTDOWN_GRACE_S, os._exit, (0,))
                watchdog.daemon = True
                watchdog.start()

    config = uvicorn.Config(HttpGuard(app, settings), log_level=log_level.lower(), timeout_graceful_shutdown=2,
                            lifespan="on", access_log=False)
    uv = Server(config)
    if on_ready is not None:
        bound = sock.getsockname()
        on_ready(f"http://{host if ':' not in host else f'[{host}]'}:{bound[1]}/mcp")
    uv.run(sockets=[sock])
