"""The engine as Model Context Protocol tools (official ``mcp`` SDK 2.x).

:func:`build_server` returns a fresh :class:`mcp.server.mcpserver.MCPServer`
that owns a :class:`SessionStore`: many simulation sessions, each behind an
unguessable ``session_id`` (the protocol does not identify clients, and an
HTTP server shares one lifespan between all of them). :func:`run_server`
serves it over stdio (the default) or streamable HTTP.

The tools (:mod:`.tools`, one module-level function each, named in
:data:`.names.TOOLS`): the paper's seven keep its names
(``initialise_session``, ``query_current_state``,
``query_applicable_actions``, ``execute_single_action``,
``reset_to_initial_state``, ``query_action_history``,
``validate_complete_plan``); the others are ``explain_action``,
``checkpoint``, ``undo_last_action``, ``close_session``, ``list_sessions``
and ``list_bundled_tasks``. Bundled PDDL files are also resources
(``pddl://domains/<name>``, ``pddl://problems/<domain>/<name>``). The HTTP
transport is :mod:`.http`.

Owners. Each session belongs to the principal that opened it (a bearer
token over HTTP, else the MCP transport session); to anyone else it does not
exist. Over HTTP, :class:`.access.HttpGuard` checks Host, Origin and the
token of every request (see :mod:`.access`).

Errors. A call that cannot be carried out (bad or missing argument, unknown
session, a limit, PDDL that does not parse, an action that names no action
of the task) returns a tool error (``is_error``) whose text starts with one
line ``[CODE] message; hint: next step`` (PDDL errors add their caret
snippet below it), followed by a second text block with the same error as
JSON (``{"error": {"code", "message", "hint", ...}}``); an error result
carries no structured content, since every tool's output schema describes its
successful answer (see :mod:`.wire`, whose :func:`read_error` reads either
form). No traceback ever reaches the client and no error
ends the session. An action that is well-formed but *not applicable* in the
current state is not an error of the call but an answer of the simulator, so
``execute_single_action`` returns ``success: false`` with the reason (code
``INAPPLICABLE_ACTION``, the failing preconditions and, at feedback level
``full``, hints); this is the paper's success flag and keeps the structured
reason available to harnesses. At feedback level ``paper`` the seven paper
tools return exactly the signals the paper names and nothing more (see
:mod:`.render`): a step is ``success``, ``state`` and ``goal_reached`` only.

Files. ``ServerOptions.allowed_files`` (``pypddl serve --allow-file``) limits
what ``initialise_session`` reads to those files; anything else is
``FILE_ACCESS_DENIED`` before it is opened (see :mod:`.inputs`).

Concurrency. Tools are ``async``: cheap calls run on the event loop, under a
per-session lock; parsing and grounding (initialise), plan validation and
every call on a session with heuristic feedback (h_FF costs up to a few
hundred ms on large tasks) run in worker threads under that same lock, so one
slow call never stalls the other clients of an HTTP server.
"""

from .errors import ERROR_CODES, ToolFailure
from .names import PAPER_TOOLS
from .server import EngineServer, LogLevel, ServeError, build_server, run_server
from .store import ServerOptions, SessionStore

__all__ = [
    "ERROR_CODES",
    "PAPER_TOOLS",
    "EngineServer",
    "LogLevel",
    "ServeError",
    "ServerOptions",
    "SessionStore",
    "ToolFailure",
    "build_server",
    "run_server",
]
