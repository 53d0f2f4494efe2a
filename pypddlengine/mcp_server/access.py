"""Who is calling: the principal that owns a session, and the HTTP guard.

Every simulation session belongs to the principal that opened it; another
principal gets ``UNKNOWN_SESSION`` for it, exactly as for an id that never
existed, and ``list_sessions`` shows each caller only its own sessions.

The principal of a call is, in this order:

* the bearer token, when the server has tokens (``--auth-token``, repeatable,
  or ``PYPDDL_AUTH_TOKEN``): one principal per token;
* otherwise the MCP transport session: an HTTP ``Mcp-Session-Id``, or a
  stdio / in-process connection made with the initialize handshake;
* otherwise nobody in particular (``None``): a stateless 2026-07-28 request
  without a token, which carries nothing that tells one client from another.
  Over stdio that is still one client (the process serves one); over HTTP all
  such clients share one principal, so give each client its own token. That
  shared principal is not one client, so no per-client quota applies to it
  (only the server's ``max_sessions``: eight sessions a crashed client left
  behind do not lock every other tokenless client out), and an HTTP server
  that binds a non-loopback address must have tokens (:func:`require_tokens`),
  so tokenless clients can only be local processes.

A session owned by a transport session is released when that transport
session ends (an HTTP ``DELETE`` or the SDK's idle expiry of the
``Mcp-Session-Id``, a handshake connection closing). A token's sessions
outlive its connections (until closed or idle-expired), so a client that
connects once per call, like the Inspector's ``--cli``, keeps them.

:class:`HttpGuard` wraps the HTTP app: it answers 421 to a ``Host`` and 403 to
an ``Origin`` that is not allowed (DNS rebinding; checked for every bind
address, not only loopback) and 401 to a request without a valid token.
"""

from __future__ import annotations

import contextvars
import hashlib
import hmac
import ipaddress
import json
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field

from . import models as m

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True, slots=True)
class Caller:
    """The principal of one tool call and the transport session it came on."""

    owner: str | None = None
    connection: str | None = None


ANONYMOUS = Caller()
_caller: contextvars.ContextVar[Caller] = contextvars.ContextVar("pypddl_caller", default=ANONYMOUS)


def current_caller() -> Caller:
    return _caller.get()


def bind_caller(caller: Caller) -> contextvars.Token[Caller]:
    return _caller.set(caller)


def unbind_caller(token: contextvars.Token[Caller]) -> None:
    _caller.reset(token)


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` only admits clients on this machine."""
    if host.strip().lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


def require_tokens(host: str, tokens: Sequence[str]) -> None:
    """Refuse (``ValueError``) an HTTP server on a non-loopback ``host``
    without bearer tokens: its tokenless clients could not be told apart, so
    any machine that reaches the port could use, list and exhaust the
    sessions of every other."""
    if not tokens and not is_loopback(host):
        raise ValueError(
            f"serving HTTP on {host}, not loopback, needs bearer tokens (--auth-token or PYPDDL_AUTH_TOKEN, one "
            "per client): without them every client that reaches the port would share one owner's sessions")


def split_tokens(text: str | None) -> tuple[str, ...]:
    """Tokens from ``PYPDDL_AUTH_TOKEN``: one, or several separated by commas or whitespace."""
    return tuple(t for t in (text or "").replace(",", " ").split() if t)


def token_principal(tokens: Sequence[str], authorization: str | None) -> str | None:
    """``"token:<digest>"`` when ``authorization`` is ``Bearer <one of tokens>``,
    else ``None``. Every token is compared, each in constant time."""
    if not tokens or not authorization:
        return None
    scheme, _, given = authorization.partition(" ")
    if scheme.lower() != "bearer" or not given:
        return None
    given_bytes = given.strip().encode()
    match: str | None = None
    for token in tokens:
        if hmac.compare_digest(token.encode(), given_bytes):
            match = token
    if match is None:
        return None
    return "token:" + hashlib.sha256(match.encode()).hexdigest()[:32]


def identify(context: Any, tokens: Sequence[str], on_close: Callable[[str], object]) -> Caller:
    """The :class:`Caller` of a tool call from the SDK's request context.

    A handshake connection (one that lives across requests) is named once,
    and ``on_close(name)`` is pushed onto its exit stack, so the sessions
    opened on it are released when it ends."""
    try:
        request_context = context.request_context
    except (AttributeError, ValueError):  # no request (a direct call in tests)
        return ANONYMOUS
    headers = getattr(request_context.request, "headers", None)
    owner = token_principal(tokens, headers.get("authorization") if headers is not None else None)
    connection = getattr(request_context.session, "_connection", None)
    name: str | None = None
    if owner is None and connection is not None and _lives_across_requests(connection):
        state = connection.state
        name = state.get("pypddl.connection")
        if name is None:
            sid = connection.session_id
            name = f"mcp:{sid}" if sid else f"conn:{secrets.token_hex(16)}"
            state["pypddl.connection"] = name
            connection.exit_stack.callback(on_close, name)
    if owner is not None:  # a token holder's sessions outlive its connections
        return Caller(owner=owner)
    return Caller(owner=name, connection=name)


def _lives_across_requests(connection: Any) -> bool:
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return bool(connection.session_id) or connection.protocol_version not in MODERN_PROTOCOL_VERSIONS


class SessionPage(m.SessionList):
    """One page of the caller's own sessions."""

    next_cursor: str | None = Field(
        default=None, description="pass as list_sessions(cursor=...) for the next page; absent on the last page")
    per_client_limit: int = Field(description="live sessions one client may hold")


# ----------------------------------------------------------------------------- HTTP


def _host_name(value: str) -> str:
    """``host[:port]`` or ``[v6]:port`` -> the host name, lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    if value.count(":") == 1:
        return value.partition(":")[0]
    return value


def allowed_host_names(bind: str, extra: Iterable[str]) -> frozenset[str]:
    """Host names a request may address: loopback, the bound address itself
    (unless it is a wildcard) and the ``--allowed-host`` names."""
    names = {*LOOPBACK_NAMES}
    if bind not in ("0.0.0.0", "::", ""):
        names.add(_host_name(bind) if not bind.count(":") > 1 else bind.lower())
    names.update(_host_name(h) for h in extra)
    return frozenset(names)


@dataclass(frozen=True, slots=True)
class GuardSettings:
    hosts: frozenset[str]
    origins: frozenset[str]
    """Allowed ``scheme://host[:port]`` origins (exact), besides origins whose host is an allowed host name."""
    tokens: tuple[str, ...] = ()


class HttpGuard:
    """ASGI middleware in front of the MCP app: Host, Origin, bearer token."""

    def __init__(self, app: Any, settings: GuardSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refusal = self.check(headers)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        body = json.dumps({"error": message}).encode()
        extra = [(b"www-authenticate", b'Bearer realm="pypddl"')] if status == 401 else []
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()), *extra]})
        await send({"type": "http.response.body", "body": body})

    def check(self, headers: dict[str, str]) -> tuple[int, str] | None:
        """``None`` to let a request through, else ``(status, reason)``."""
        s = self.settings
        host = headers.get("host")
        if not host or _host_name(host) not in s.hosts:
            return 421, "Host header not allowed (start the server with --allowed-host to add one)"
        origin = headers.get("origin")
        if origin is not None and not self._origin_ok(origin):
            return 403, "Origin not allowed (start the server with --allowed-origin to add one)"
        if s.tokens and token_principal(s.tokens, headers.get("authorization")) is None:
            return 401, "missing or wrong bearer token (Authorization: Bearer <token>)"
        return None

    def _origin_ok(self, origin: str) -> bool:
        origin = origin.strip().lower().rstrip("/")
        if origin in self.settings.origins:
            return True
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        return parts.hostname in self.settings.hosts
