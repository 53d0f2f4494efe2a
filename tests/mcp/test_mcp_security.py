"""Security of the HTTP server and ownership of sessions: one test per rule.

Host and Origin are checked on every bind address (DNS rebinding), a server
with tokens answers 401 without one, and a client never sees, reads or closes
another client's sessions: it gets UNKNOWN_SESSION, word for word what an id
that never existed gets. Ownership and the per-client quota are also checked
in process, where handshake (legacy) connections are the clients."""

from __future__ import annotations

import re
import socket
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp_support import BW3, Tools, http_server, token_client

from pypddlengine.mcp_server import build_server
from pypddlengine.mcp_server.access import GuardSettings, HttpGuard, allowed_host_names, token_principal

pytestmark = pytest.mark.anyio

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
JSON = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def post(url: str, **headers: str) -> int:
    return httpx2.post(url, json=INIT, headers={**JSON, **headers}, timeout=30).status_code


def port_of(url: str) -> str:
    return url.split(":")[2].split("/")[0]


def loopback_alias_available() -> bool:
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.2", 0))
        return True
    except OSError:
        return False


# ----------------------------------------------------------------------------- Host and Origin


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0", "127.0.0.2"])
def test_foreign_origin_is_403_and_foreign_host_421_on_every_bind_address(host: str) -> None:
    if host == "127.0.0.2" and not loopback_alias_available():
        pytest.skip("127.0.0.2 cannot be bound on this machine")
    loopback = host != "0.0.0.0"  # a non-loopback bind needs a token (issue 25 item 8)
    auth = {} if loopback else {"authorization": "Bearer t0ken"}
    with http_server(host=host, env=None if loopback else {"PYPDDL_AUTH_TOKEN": "t0ken"}) as url:
        port = port_of(url)
        assert post(url, origin="http://evil.example", **auth) == 403
        assert post(url, origin="null", **auth) == 403
        assert post(url, host=f"evil.example:{port}", **auth) == 421
        assert post(url, **auth) == 200  # no Origin: not a browser
        assert post(url, origin=f"http://localhost:{port}", **auth) == 200


def test_a_non_loopback_bind_needs_a_token() -> None:
    """Issue 25 item 8: tokenless clients cannot be told apart, so only local
    processes may be tokenless clients (the CLI exits 2; run_server raises)."""
    from click.testing import CliRunner

    from pypddlengine.cli import main
    from pypddlengine.mcp_server import run_server
    from pypddlengine.mcp_server.access import is_loopback

    result = CliRunner().invoke(main, ["serve", "--http", "--host", "0.0.0.0", "--port", "0"], env={})
    assert result.exit_code == 2 and "needs bearer tokens (--auth-token or PYPDDL_AUTH_TOKEN" in result.output
    with pytest.raises(ValueError, match="not loopback, needs bearer tokens"):
        run_server("http", host="192.0.2.1", port=0)
    assert [is_loopback(h) for h in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LocalHost")] == [True] * 6
    assert [is_loopback(h) for h in ("0.0.0.0", "::", "", "10.0.0.1", "planner.lan")] == [False] * 5


async def test_tokenless_clients_are_not_locked_out_by_sessions_left_behind() -> None:
    """Stateless clients without a token share one owner over (loopback) HTTP;
    that owner is not one client, so the per-client quota (8 over HTTP) does
    not apply to it: nine sessions a crashed client left behind used to lock
    every other tokenless client out for the idle timeout (an hour)."""
    with http_server("--max-sessions", "12") as url:
        async with Client(url) as crashed:
            left = [(await Tools(crashed).ok("initialise_session", **BW3))["session_id"] for _ in range(9)]
        async with Client(url) as other:
            tools = Tools(other)
            await tools.ok("initialise_session", **BW3)
            page = await tools.ok("list_sessions")
            assert page["per_client_limit"] == 12 and page["live"] == 10 and page["ids_redacted"]
            for _ in range(2):
                await tools.ok("initialise_session", **BW3)
            await tools.ok("initialise_session", **BW3)  # the 13th: the least recently used one gives way (issue 30)
            assert (await tools.ok("list_sessions"))["live"] == 12
            evicted = await tools.error("query_current_state", session_id=left[0])
            assert evicted.code == "SESSION_EVICTED" and "at most 12 sessions" in evicted.text
            await tools.ok("query_current_state", session_id=left[1])


def test_allowed_origin_and_host_options_admit_exactly_those() -> None:
    with http_server("--allowed-origin", "https://app.example.org", "--allowed-host", "planner.lan") as url:
        port = port_of(url)
        assert post(url, origin="https://app.example.org") == 200
        assert post(url, origin="https://app.example.org.evil.example") == 403
        assert post(url, host=f"planner.lan:{port}") == 200
        assert post(url, host=f"planner.lan.evil.example:{port}") == 421


def test_guard_unit_rules() -> None:
    settings = GuardSettings(hosts=allowed_host_names("0.0.0.0", ["Planner.LAN"]), origins=frozenset(),
                             tokens=("alpha", "beta"))
    guard = HttpGuard(None, settings)
    ok = {"host": "planner.lan:8000", "authorization": "Bearer beta"}
    assert guard.check(ok) is None
    assert guard.check({**ok, "host": "[::1]:8000"}) is None
    assert guard.check({**ok, "host": "10.0.0.1:8000"}) == (421, guard.check({**ok, "host": "x"})[1])  # type: ignore[index]
    assert guard.check({**ok, "origin": "http://planner.lan:3000"}) is None
    assert guard.check({**ok, "origin": "file://"})[0] == 403  # type: ignore[index]
    assert guard.check({**ok, "authorization": "Bearer gamma"})[0] == 401  # type: ignore[index]
    assert guard.check({**ok, "authorization": "Basic beta"})[0] == 401  # type: ignore[index]
    assert guard.check({"host": "planner.lan"})[0] == 401  # type: ignore[index]
    assert token_principal(("alpha", "beta"), "Bearer alpha") != token_principal(("alpha", "beta"), "bearer beta")
    assert token_principal(("alpha",), "Bearer alph") is None


# ----------------------------------------------------------------------------- tokens


@pytest.fixture(scope="module")
def token_url() -> Any:
    with http_server(env={"PYPDDL_AUTH_TOKEN": "token-a, token-b"}) as url:
        yield url


def test_missing_or_wrong_token_is_401(token_url: str) -> None:
    assert post(token_url) == 401
    assert post(token_url, authorization="Bearer token-c") == 401
    assert post(token_url, authorization="token-a") == 401
    assert post(token_url, authorization="Bearer token-a") == 200


async def test_another_clients_sessions_are_invisible_and_cannot_be_closed(token_url: str) -> None:
    async with Client(token_client(token_url, "token-a")) as a, Client(token_client(token_url, "token-b")) as b:
        ta, tb = Tools(a), Tools(b)
        sid = (await ta.ok("initialise_session", **BW3, label="secret label"))["session_id"]
        assert re.fullmatch(r"[A-Za-z0-9_-]{22,}", sid)  # >= 128 random bits
        mine = await ta.ok("list_sessions")
        assert [s["session_id"] for s in mine["sessions"]] == [sid] and mine["sessions"][0]["label"] == "secret label"
        theirs = await tb.ok("list_sessions")
        assert theirs["sessions"] == [] and theirs["live"] == 0
        never = "A" * len(sid)
        for tool, extra in [("query_current_state", {}), ("execute_single_action", {"action": "(unstack c a)"}),
                            ("query_action_history", {}), ("close_session", {})]:
            stolen = await tb.error(tool, session_id=sid, **extra)
            unknown = await tb.error(tool, session_id=never, **extra)
            assert stolen.code == unknown.code == "UNKNOWN_SESSION"
            assert stolen.text.replace(sid, "ID") == unknown.text.replace(never, "ID")
        state = await ta.ok("query_current_state", session_id=sid)  # still alive, untouched
        assert state["step"] == 0


async def test_token_sessions_survive_reconnecting(token_url: str) -> None:
    async with Client(token_client(token_url, "token-a")) as a:
        sid = (await Tools(a).ok("initialise_session", **BW3))["session_id"]
    async with Client(token_client(token_url, "token-a")) as a:  # a stateless client: same token, same owner
        await Tools(a).ok("query_current_state", session_id=sid)
        await Tools(a).ok("close_session", session_id=sid)


# ----------------------------------------------------------------------------- in process


async def test_handshake_connections_are_separate_owners_and_released_on_close() -> None:
    server = build_server()
    async with Client(server, mode="legacy") as a:
        ta = Tools(a)
        sid = (await ta.ok("initialise_session", **BW3))["session_id"]
        async with Client(server, mode="legacy") as b:
            tb = Tools(b)
            assert (await tb.error("query_current_state", session_id=sid)).code == "UNKNOWN_SESSION"
            assert (await tb.ok("list_sessions"))["sessions"] == []
            await tb.ok("initialise_session", **BW3)
            assert len(server.store) == 2
        assert len(server.store) == 1  # b's connection ended: its session is gone
        await ta.ok("query_current_state", session_id=sid)
    assert len(server.store) == 0


async def test_per_client_quota_leaves_room_for_others() -> None:
    server = build_server(max_sessions=10, max_sessions_per_client=3)
    async with Client(server, mode="legacy") as a, Client(server, mode="legacy") as b:
        ta, tb = Tools(a), Tools(b)
        for _ in range(3):
            await ta.ok("initialise_session", **BW3)
        refused = await ta.error("initialise_session", **BW3)
        assert refused.code == "SESSION_LIMIT" and "this client" in refused.text
        await tb.ok("initialise_session", **BW3)  # the other client is not locked out
        assert (await tb.ok("list_sessions"))["per_client_limit"] == 3


async def test_list_sessions_pages_through_own_sessions_only() -> None:
    server = build_server()
    async with Client(server, mode="legacy") as a, Client(server, mode="legacy") as b:
        ta, tb = Tools(a), Tools(b)
        ids = {(await ta.ok("initialise_session", **BW3, label=f"s{i}"))["session_id"] for i in range(7)}
        await tb.ok("initialise_session", **BW3)
        seen: list[str] = []
        cursor = None
        pages = 0
        while True:
            page = await ta.ok("list_sessions", limit=3, **({"cursor": cursor} if cursor else {}))
            pages += 1
            assert page["live"] == 7 and len(page["sessions"]) <= 3
            seen += [s["session_id"] for s in page["sessions"]]
            cursor = page.get("next_cursor")
            if cursor is None:
                break
        assert pages == 3 and seen == sorted(ids)


async def test_redacted_listing_pages_without_revealing_ids() -> None:
    async with Client(build_server(reveal_session_ids=False)) as client:
        tools = Tools(client)
        ids = sorted([(await tools.ok("initialise_session", **BW3))["session_id"] for _ in range(5)])
        first = await tools.ok("list_sessions", limit=2)
        assert first["ids_redacted"] and first["next_cursor"] not in ids
        shown = [s["session_id"] for s in first["sessions"]]
        rest = await tools.ok("list_sessions", limit=10, cursor=first["next_cursor"])
        shown += [s["session_id"] for s in rest["sessions"]]
        assert [s.removesuffix("...") for s in shown] == [i[:6] for i in ids] and "next_cursor" not in rest
