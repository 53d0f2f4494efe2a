"""The streamable HTTP transport: one listening socket, the request guard
(:class:`.access.HttpGuard`: Host, Origin, bearer tokens) in front of the MCP
SDK's app, and a shutdown that never hangs on a running grounding."""

from __future__ import annotations

import errno
import os
import socket
import threading
from collections.abc import Callable
from typing import Any

from .access import GuardSettings, HttpGuard, allowed_host_names
from .store import SessionStore

__all__ = ["SHUTDOWN_GRACE_S", "ServeError", "serve_http"]

SHUTDOWN_GRACE_S = 4.0
"""After a SIGTERM the HTTP server process is gone within this many seconds, whatever its threads are doing."""


class ServeError(Exception):
    """The server could not start (its address is taken or not ours to bind); ``exit_code`` is 3."""

    exit_code = 3


def serve_http(server: Any, host: str, port: int, log_level: str, allowed_hosts: tuple[str, ...],
               allowed_origins: tuple[str, ...], on_ready: Callable[[str], None] | None) -> None:
    """Serve ``server`` (an :class:`~.server.EngineServer`) at ``http://host:port/mcp``
    until SIGTERM or SIGINT; :class:`ServeError` when the port cannot be bound."""
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
