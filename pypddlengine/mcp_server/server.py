"""The MCP server: registering the tools (:mod:`.tools`) and the bundled PDDL
as resources, one error format for every failure, and running it over stdio
(HTTP: :mod:`.http`)."""


import inspect
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from .. import __version__
from ..bundled import bundled_domains, bundled_root, bundled_task, bundled_tasks
from ..errors import PDDLError
from . import models as m
from .access import bind_caller, identify, require_tokens, unbind_caller
from .errors import INTERNAL_ERROR, INVALID_ARGUMENT, MISSING_ARGUMENT, UNKNOWN_TOOL, ToolFailure, clip, one_line
from .http import ServeError, serve_http
from .names import TOOLS
from .store import ServerOptions, SessionStore
from .tools import REGISTRY, Served

__all__ = ["INSTRUCTIONS", "EngineServer", "LogLevel", "ServeError", "build_server", "run_server"]

log = logging.getLogger("pypddlengine.mcp")

# ----------------------------------------------------------------------------- the server


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

    def register(self, fn: Callable[..., Any], annotations: Any) -> None:
        """Add a tool: ``fn``'s docstring is its description, its signature
        its input schema (what :func:`build_server` does for :mod:`.tools`)."""
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
Errors start with [CODE] and say what to do next. """ + m.STATE_FORMAT

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


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

    served = Served(store, opts)
    by_name = {tool.name: tool for tool in REGISTRY}
    for name in TOOLS:  # the one list of tool names, in its order
        server.register(by_name[name].bind(served), by_name[name].annotations)

    if opts.allowed_files is None:  # a server limited to a task's files serves no other file as a resource
        _add_bundled_resources(server)
    return server


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
    serve_http(server, host, port, log_level, allowed_hosts, allowed_origins, on_ready)
