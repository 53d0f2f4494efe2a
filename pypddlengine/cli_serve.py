"""``pypddl serve`` and ``pypddl demo``: the MCP server from the command line.

``serve`` runs :func:`pypddlengine.mcp_server.run_server`: stdio by default
(stdout carries nothing but the protocol, logs go to stderr), streamable HTTP
with ``--http``. ``demo`` starts the server in-process, connects the real MCP
client to it and lets a small scripted agent solve a bundled task through the
tools alone, printing each call and a short view of its result.

The agent (:func:`best_first`) is greedy best-first search on the server's
h_FF feedback, driven through ``execute_single_action``,
``undo_last_action`` and ``query_applicable_actions``: it sees nothing the
tools do not return.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import json
import os
import re
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, cast

import click

from .bundled import DEFAULT_TASK
from .mcp_server.names import RENDERINGS
from .names import FEEDBACK_LEVELS

# ----------------------------------------------------------------------------- serve


@click.command("serve")
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP interface to bind (loopback by default; any other needs --auth-token).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="HTTP port.")
@click.option("--feedback", type=click.Choice(FEEDBACK_LEVELS), default="plain", show_default=True,
              help="Default feedback level of new sessions (paper: only the paper's signals; plain adds the "
                   "reason of a failed step).")
@click.option("--rendering", type=click.Choice(RENDERINGS), default="compact", show_default=True,
              help="Default rendering: compact (grouped, paginated) or plain (the paper's flat lists).")
@click.option("--max-sessions", type=click.IntRange(1), default=32, show_default=True, help="Live sessions at once.")
@click.option("--max-steps", type=click.IntRange(1), default=10_000, show_default=True,
              help="Execute attempts per session.")
@click.option("--idle-timeout", type=click.FloatRange(min=1), default=3600.0, show_default=True,
              help="Seconds after which an idle session is closed.")
@click.option("--max-actions", type=click.IntRange(1), default=500_000, show_default=True,
              help="Largest grounding (ground actions) of one task.")
@click.option("--max-input-mb", type=click.FloatRange(min=0.001), default=2.0, show_default=True,
              help="Largest domain or problem initialise_session reads, in MB (10^6 bytes; INPUT_TOO_LARGE beyond: "
                   "the IPC 2023 rovers hard tasks need 4).")
@click.option("--reply-budget", type=click.IntRange(2000), default=25_000, show_default=True,
              help="Most characters of one reply; longer ones leave items out, say what, and how to page them.")
@click.option("--max-validation-seconds", type=click.FloatRange(min=0.1), default=8.0, show_default=True,
              help="Time one validate_complete_plan call may take (VALIDATION_TIMEOUT past it).")
@click.option("--allow-files/--no-files", default=None,
              help="Let initialise_session read file paths [default: on for stdio, off for HTTP].")
@click.option("--allow-file", "allowed_files", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="Read only this file (repeatable): any other path, bundled task or bundled name is refused "
                   "with FILE_ACCESS_DENIED. Experiments pass the run's domain and problem.")
@click.option("--max-sessions-per-client", type=click.IntRange(1), default=None,
              help="Live sessions of one client (token or MCP session) [default: 8 over HTTP, --max-sessions "
                   "over stdio].")
@click.option("--auth-token", "auth_tokens", multiple=True, envvar="PYPDDL_AUTH_TOKEN",
              help="HTTP: require 'Authorization: Bearer <token>' (401 otherwise). Repeatable: each token is its "
                   "own client, seeing only its own sessions. Env: PYPDDL_AUTH_TOKEN (tokens separated by spaces "
                   "or commas).")
@click.option("--allowed-host", "allowed_hosts", multiple=True,
              help="HTTP: a Host name clients may address besides loopback and the bound address (repeatable).")
@click.option("--allowed-origin", "allowed_origins", multiple=True,
              help="HTTP: a browser Origin to accept, e.g. https://app.example.org (repeatable); other origins "
                   "get 403.")
@click.option("--log-level", type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"]), default="WARNING",
              show_default=True, help="Server log level (logs go to stderr).")
def serve(
    use_http: bool,
    host: str,
    port: int,
    feedback: str,
    rendering: str,
    max_sessions: int,
    max_steps: int,
    idle_timeout: float,
    max_actions: int,
    max_input_mb: float,
    reply_budget: int,
    max_validation_seconds: float,
    allow_files: bool | None,
    allowed_files: tuple[str, ...],
    max_sessions_per_client: int | None,
    auth_tokens: tuple[str, ...],
    allowed_hosts: tuple[str, ...],
    allowed_origins: tuple[str, ...],
    log_level: str,
) -> None:
    """Run the MCP server: stdio by default, streamable HTTP with --http.

    \b
    Examples:
      pypddl serve                          # for an MCP client that spawns it
      pypddl serve --http --port 8000       # http://127.0.0.1:8000/mcp
      pypddl serve --feedback heuristic     # h_FF distance after each step
      pypddl serve --max-input-mb 8         # read domains and problems of up to 8 MB
      pypddl serve --allow-file bw/domain.pddl --allow-file bw/instance-7.pddl   # those two files only
      PYPDDL_AUTH_TOKEN=s3cret pypddl serve --http --host 0.0.0.0 --allowed-host planner.lan

    \b
    Exit codes: 0 stopped (end of input on stdio, SIGTERM or Ctrl-C), 2 bad
    options, 3 the address cannot be bound (port in use).
    """
    from .mcp_server import LogLevel, ServeError, run_server
    from .mcp_server.access import is_loopback, require_tokens, split_tokens

    options: dict[str, Any] = {
        "feedback": feedback,
        "rendering": rendering,
        "max_sessions": max_sessions,
        "max_steps": max_steps,
        "idle_timeout": idle_timeout,
        "max_ground_actions": max_actions,
        "max_pddl_bytes": round(max_input_mb * 1_000_000),
        "reply_budget": reply_budget,
        "max_validation_seconds": max_validation_seconds,
    }
    if allow_files is not None:
        options["allow_files"] = allow_files
    if allowed_files:
        options["allowed_files"] = tuple(allowed_files)
    if max_sessions_per_client is not None:
        options["max_sessions_per_client"] = max_sessions_per_client
    tokens = tuple(t for given in auth_tokens for t in split_tokens(given))
    if tokens and not use_http:
        raise click.UsageError("--auth-token (PYPDDL_AUTH_TOKEN) applies to --http only; stdio has one client")
    if use_http:
        options["auth_tokens"] = tokens
        try:
            require_tokens(host, tokens)
        except ValueError as err:
            raise click.UsageError(str(err)) from None
        if not is_loopback(host):
            click.echo(f"warning: binding {host}, not loopback: anyone who can reach this port can call the server "
                       "with a token; Host and Origin headers are still checked", err=True)

    def ready(url: str) -> None:
        click.echo(f"pypddl MCP server on {url} ({'bearer token required, ' if tokens else ''}SIGTERM or "
                   "Ctrl-C to stop)", err=True)

    if not use_http:
        if sys.stdin.isatty():  # started by hand; a client that starts the server (a pipe) needs no banner
            click.echo("pypddl MCP server on stdio: waiting for an MCP client on stdin (this command is meant to be "
                       "started by the client; Ctrl-C to stop)", err=True)
        signal.signal(signal.SIGTERM, lambda *_: _exit_now(0))
    code = 0
    try:
        run_server("streamable-http" if use_http else "stdio", host=host, port=port,
                   log_level=cast(LogLevel, log_level), allowed_hosts=allowed_hosts,
                   allowed_origins=allowed_origins, on_ready=ready, **options)
    except ServeError as err:
        click.echo(f"error: {err}", err=True)
        code = err.exit_code
    except KeyboardInterrupt:
        pass
    _exit_now(code)


def _exit_now(code: int) -> None:
    """Exit at once, even if a worker thread (a grounding nobody waits for any
    more) is still running: the client has gone or a signal asked us to stop."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


# ----------------------------------------------------------------------------- the scripted agent


class ToolCallError(Exception):
    """A tool call came back as a tool error (its text is the message)."""


Call = Callable[..., Awaitable[dict[str, Any]]]


def tool_caller(client: Any, counter: list[int] | None = None) -> Call:
    """``await call(name, **arguments)`` -> the structured result; a tool
    error raises :class:`ToolCallError`. ``counter[0]`` counts the calls."""

    from .mcp_server.wire import unwrap

    async def call(name: str, **arguments: Any) -> dict[str, Any]:
        reply = unwrap(await client.call_tool(name, arguments))
        if counter is not None:
            counter[0] += 1
        if reply.is_error:
            raise ToolCallError(reply.text or name)
        return reply.data

    return call


@dataclass(order=True)
class _Node:
    h: float
    tie: int
    path: list[str] = field(compare=False)
    hs: list[float] = field(compare=False)


async def best_first(
    call: Call,
    sid: str,
    *,
    max_expansions: int = 5000,
    g_weight: float = 0.5,
    on_expand: Callable[[int, int], None] | None = None,
) -> tuple[list[str], list[float]] | None:
    """Best-first search on ``h_FF + g_weight * steps`` with the h_FF feedback
    of a session at level ``heuristic`` or ``full`` (``g_weight=0`` is greedy
    best-first search, 1 is A*), through the tools alone.

    Each node is a plan from the initial state. The session moves to a node
    with ``undo_last_action`` (back to the common prefix) and
    ``execute_single_action`` (the rest); children are probed with execute +
    undo, and states are told apart by the state the server returns. On
    success the session is left in the goal state and the plan is returned
    with the h_FF value after each step."""
    state = await call("reset_to_initial_state", session_id=sid, include_state=True)
    if state["goal_reached"]:
        return [], []
    seen = {await _state_key(call, sid, state)}
    tie = itertools.count()
    frontier = [_Node(0.0, next(tie), [], [])]
    current: list[str] = []
    expansions = probes = 0
    while frontier and expansions < max_expansions:
        node = heapq.heappop(frontier)
        common = 0
        while common < min(len(current), len(node.path)) and current[common] == node.path[common]:
            common += 1
        if len(current) > common:
            await call("undo_last_action", session_id=sid, steps=len(current) - common)
        for action in node.path[common:]:
            await call("execute_single_action", session_id=sid, action=action)
        current = list(node.path)
        expansions += 1
        page = await call("query_applicable_actions", session_id=sid, limit=1000)
        for action in page["actions"]:
            step = await call("execute_single_action", session_id=sid, action=action, include_state=True)
            probes += 1
            h = step.get("feedback", {}).get("h_ff")
            if step["goal_reached"]:
                if on_expand is not None:
                    on_expand(expansions, probes)
                return [*node.path, action], [*node.hs, 0.0]
            key = await _state_key(call, sid, step)
            if h is not None and key not in seen:  # h_ff None: a proven dead end
                seen.add(key)
                f = h + g_weight * (len(node.path) + 1)
                heapq.heappush(frontier, _Node(f, next(tie), [*node.path, action], [*node.hs, h]))
            await call("undo_last_action", session_id=sid)
    if on_expand is not None:
        on_expand(expansions, probes)
    return None


async def depth_first_timed(call: Call, sid: str, *, max_depth: int = 16, max_nodes: int = 2000,
                            nudge: float = 0.01) -> list[str] | None:
    """Depth-first search through the tools on a temporal task: at each node
    it tries every listed action (starts, '(end ID)', plain actions), then
    waiting to the next event (advance_time(next_event=true)), then waiting
    ``nudge`` (a step at a later happening, so that it sees what ended now);
    it goes back with undo_last_action. States (atoms, running actions,
    clock) are visited once. On success the session is at the goal and the
    steps taken are returned (waits as 'wait -> T')."""
    seen: set[str] = set()
    path: list[str] = []

    async def search(depth: int) -> bool:
        st = await call("query_current_state", session_id=sid)
        if st["goal_reached"]:
            return True
        key = json.dumps([st["state"], [(r["action"], r["start"]) for r in st["running"]], st["clock"]])
        if depth == 0 or key in seen or len(seen) >= max_nodes:
            return False
        seen.add(key)
        page = await call("query_applicable_actions", session_id=sid, limit=1000)
        for option in [*page["actions"], None, "nudge"]:
            if option is None:
                r = await call("advance_time", session_id=sid, next_event=True)
            elif option == "nudge":
                r = await call("advance_time", session_id=sid, to=round(st["clock"] + nudge, 9))
            else:
                r = await call("execute_single_action", session_id=sid, action=option)
            if not r["success"]:
                continue
            path.append(option if option not in (None, "nudge") else f"wait -> {r['clock']}")
            if await search(depth - 1):
                return True
            path.pop()
            await call("undo_last_action", session_id=sid)
        return False

    return list(path) if await search(max_depth) else None


def _key(state: dict[str, list[str]] | list[str]) -> str:
    return json.dumps(state, sort_keys=True)


async def _state_key(call: Call, sid: str, reply: dict[str, Any]) -> str:
    """The key of the state a reply shows; when the reply's size budget cut it
    ('omitted'), the whole state paged back through query_current_state."""
    if "state" not in (reply.get("omitted") or {}):
        return _key(reply["state"])
    pages: list[Any] = []
    offset: int | None = 0
    while offset is not None:
        page = await call("query_current_state", session_id=sid, part="state", offset=offset)
        pages.append(page["state"])
        offset = page.get("next_offset")
    return _key(pages)  # type: ignore[arg-type]


async def find_inapplicable(call: Call, sid: str, summary: dict[str, Any], tries: int = 40) -> str | None:
    """A well-formed action that does not apply now (found with explain_action,
    which changes nothing), to show how a rejection reads."""
    objects: dict[str, list[str]] = summary["objects"]
    for schema in summary["actions"]:
        types = re.findall(r"\?\S+ - (\S+)", schema["parameters"])
        if any(t not in objects for t in types):
            continue
        pools = [list(objects[t]) for t in types]
        for shift in range(max(1, min(len(p) for p in pools) if pools else 1)):
            args: list[str] = []
            for pool in pools:
                free = [o for o in pool if o not in args] or pool
                args.append(free[shift % len(free)])
            action = f"({' '.join([schema['name'], *args])})"
            tries -= 1
            if tries < 0:
                return None
            if not (await call("explain_action", session_id=sid, action=action))["applicable"]:
                return action
    return None


# ----------------------------------------------------------------------------- demo


def _atoms(state: dict[str, list[str]] | list[str], width: int = 100) -> str:
    if isinstance(state, list):
        text = " ".join(state)
    else:
        text = " | ".join(f"{p}: {', '.join(a for a in args if a)}" if any(args) else p for p, args in state.items())
    return text if len(text) <= width else text[: width - 3] + "..."


def _progress(step: dict[str, Any]) -> str:
    fb = step.get("feedback") or {}
    parts = []
    if "goals_total" in fb:
        parts.append(f"goals {fb['goals_satisfied']}/{fb['goals_total']}")
    if "h_ff" in fb:
        parts.append(f"h_ff {fb['h_ff']}")
    return ", ".join(parts)


async def run_demo(task: str, feedback: str, out: Callable[[str], None]) -> bool:
    """Solve ``task`` through the MCP tools, printing each call; True when
    validate_complete_plan says the plan is valid. A tool error on the way
    (say, an unknown task) raises :class:`ToolCallError`."""
    from mcp import Client

    from .mcp_server import build_server

    calls = [0]
    started = time.perf_counter()
    failed: ToolCallError | None = None
    valid = False
    async with Client(build_server()) as client:
        try:
            valid = await _demo(tool_caller(client, calls), task, feedback, out)
        except ToolCallError as err:  # leave the client cleanly, then report
            failed = err
    if failed is not None:
        raise failed
    out(f"\n{'VALID' if valid else 'INVALID'} plan, {calls[0]} tool calls in {time.perf_counter() - started:.1f} s")
    return valid


async def _demo(call: Call, task: str, feedback: str, out: Callable[[str], None]) -> bool:
    async def narrate(name: str, shown: str, **arguments: Any) -> dict[str, Any]:
        out(f"\n> {name}({shown})")
        return await call(name, **arguments)

    summary = await narrate("initialise_session", f"task={task!r}, feedback={feedback!r}", task=task, feedback=feedback)
    sid = summary["session_id"]
    objects = sum(len(v) for v in summary["objects"].values())
    if "ground_actions" not in summary:  # a temporal task: the agent waits, starts and ends
        return await _demo_timed(call, narrate, sid, summary, out)
    out(f"  session_id {sid}: {summary['domain']} {summary['problem']}, {objects} objects, "
        f"{len(summary['actions'])} action schemas, {summary['ground_actions']} ground actions")
    out(f"  goal: {' '.join(summary['goal'])}   ({_progress(summary)})")
    state = await narrate("query_current_state", "session_id", session_id=sid)
    out(f"  {_atoms(state['state'])}")
    page = await narrate("query_applicable_actions", "session_id", session_id=sid)
    out(f"  {page['total']} applicable: {' '.join(page['actions'][:8])}{' ...' if page['total'] > 8 else ''}")
    bad = await find_inapplicable(call, sid, summary)
    if bad is not None:
        step = await narrate("execute_single_action", repr(bad), session_id=sid, action=bad)
        failure = step["failure"]
        out(f"  success=false [{failure['code']}] unsatisfied: {' '.join(failure.get('unsatisfied', []))}")
    typo = f"({summary['actions'][0]['name'][:-1]})"
    try:
        await narrate("execute_single_action", repr(typo), session_id=sid, action=typo)
    except ToolCallError as err:
        out(f"  tool error: {str(err).splitlines()[0]}")

    out("\n  agent: best-first search on h_ff + steps/2, through the tools only: it probes each")
    out("  applicable action with execute_single_action + undo_last_action, then expands the most")
    out("  promising state (moving there with undo_last_action + execute_single_action)")

    def on_expand(expansions: int, probes: int) -> None:
        out(f"  expanded {expansions} states, probed {probes} actions")

    found = await best_first(call, sid, on_expand=on_expand)
    if found is None:
        out("  no plan found")
    else:
        for i, (action, h) in enumerate(zip(*found, strict=True), start=1):
            out(f"  step {i:>3}  {action:<28} h_ff {h:g}")
    verdict = await narrate("validate_complete_plan", "session_id  # no plan: the session's history", session_id=sid)
    out(f"  {verdict['summary']}")
    history = await narrate("query_action_history", "session_id", session_id=sid)
    c = history["counters"]
    out(f"  plan of {history['length']} steps; executed {c['steps_executed']}, failed {c['failed_attempts']}, "
        f"undos {c['undos']}, resets {c['resets']}")
    await call("close_session", session_id=sid)
    return bool(verdict["valid"])


async def _demo_timed(call: Call, narrate: Callable[..., Awaitable[dict[str, Any]]], sid: str,
                      summary: dict[str, Any], out: Callable[[str], None]) -> bool:
    """The demo on a temporal task: depth-first search over starts, ends and waits (:func:`depth_first_timed`)."""
    out(f"  session_id {sid}: {summary['domain']} {summary['problem']} (temporal), goal: {' '.join(summary['goal'])}")
    state = await narrate("query_current_state", "session_id", session_id=sid)
    out(f"  clock {state['clock']}: {_atoms(state['state'])}")
    page = await narrate("query_applicable_actions", "session_id", session_id=sid)
    out("  may start: " + " ".join(f"{x['action']} [{x.get('least', 0)}..{x.get('most', 'any')}]"
                                   for x in page["starts"]))
    out("\n  agent: depth-first search through the tools: it tries each listed start or end, then waits to the")
    out("  next event (advance_time), then a little; undo_last_action takes a failed branch back")
    found = await depth_first_timed(call, sid)
    if found is None:
        out("  no plan found within the search's bounds")
    for i, step in enumerate(found or [], start=1):
        out(f"  step {i:>3}  {step}")
    verdict = await narrate("validate_complete_plan", "session_id  # the history: a timed plan", session_id=sid)
    out(f"  {verdict['summary']}")
    history = await narrate("query_action_history", "session_id", session_id=sid)
    for line in history["actions"]:
        out(f"  {line}")
    await call("close_session", session_id=sid)
    return bool(verdict["valid"])


@click.command("demo")
@click.option("--task", default="blocksworld/p03", show_default=True, help="A bundled task (pypddl demo --task ...).")
@click.option("--feedback", type=click.Choice(["heuristic", "full"]), default="heuristic", show_default=True,
              help="Feedback level of the session (the agent needs h_ff).")
def demo(task: str, feedback: str) -> None:
    """Watch a scripted agent solve a bundled task through the MCP tools.

    The server runs in-process and the agent talks to it through the real
    MCP client, exactly as an LLM host would.

    \b
    Example:
      pypddl demo --task blocksworld/p05
      pypddl demo --task workshop/p02          # a temporal task: start, wait, end
    """
    import anyio

    try:
        valid = anyio.run(run_demo, task or DEFAULT_TASK, feedback, click.echo)
    except ToolCallError as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(2)
    sys.exit(0 if valid else 1)
