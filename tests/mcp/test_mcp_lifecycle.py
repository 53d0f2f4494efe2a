"""The server's life: one SIGTERM ends an HTTP server within 5 s (an open
client stream and a grounding in flight notwithstanding), end of input ends
a stdio server, a busy port exits 3, stdio says on stderr that it waits for
a client, and an MCP session that ends takes its engine sessions with it."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_support import BW3, Tools, http_server, serve_command, start_http, token_client

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]

# Many ground actions and little else: grounding it takes a while (or a limit refuses it), either way the
# server must still stop at once.
HEAVY_DOMAIN = """(define (domain heavy) (:requirements :strips :negative-preconditions)
  (:predicates (p ?x) (q ?x))
  (:action a :parameters (?x1 ?x2 ?x3 ?x4 ?x5 ?x6) :precondition (not (p ?x1)) :effect (q ?x2)))"""
HEAVY_PROBLEM = "(define (problem h) (:domain heavy) (:objects {}) (:init) (:goal (q o1)))".format(
    " ".join(f"o{i}" for i in range(40)))


def rpc(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def handshake(proc: subprocess.Popen[bytes]) -> None:
    rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert proc.stdout is not None
    assert b'"result"' in proc.stdout.readline()
    rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})


def test_stdio_server_exits_on_end_of_input_mid_grounding() -> None:
    proc = subprocess.Popen(serve_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        handshake(proc)
        rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "initialise_session", "arguments": {"domain": HEAVY_DOMAIN, "problem": HEAVY_PROBLEM}}})
        time.sleep(1.0)  # the grounding is under way (or already refused)
        assert proc.stdin is not None
        proc.stdin.close()
        started = time.monotonic()
        code = proc.wait(timeout=10)
        assert time.monotonic() - started < 5 and code == 0
        assert proc.stderr is not None
        assert b"waiting for an MCP client" not in proc.stderr.read()  # said only in a terminal
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_one_sigterm_stops_a_stdio_server_with_exit_0() -> None:
    proc = subprocess.Popen(serve_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        handshake(proc)  # up and serving, its input still open
        proc.send_signal(signal.SIGTERM)
        started = time.monotonic()
        assert proc.wait(timeout=10) == 0 and time.monotonic() - started < 5
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream:
                stream.close()


async def sigterm_with_a_client_attached(url: str, proc: subprocess.Popen[bytes]) -> float:
    """Open a handshake session (its SSE stream stays open), start a heavy
    initialise, send one SIGTERM; seconds until the process is gone. The
    client's own errors once the server has gone are beside the point."""
    elapsed = float("inf")
    with contextlib.suppress(Exception):
        async with Client(url, mode="legacy") as client:
            await Tools(client).ok("initialise_session", **BW3)
            async with anyio.create_task_group() as tg:
                async def heavy() -> None:
                    with contextlib.suppress(Exception), anyio.move_on_after(8):
                        await client.call_tool("initialise_session", {"domain": HEAVY_DOMAIN,
                                                                      "problem": HEAVY_PROBLEM})
                tg.start_soon(heavy)
                await anyio.sleep(1.0)
                proc.send_signal(signal.SIGTERM)  # once
                started = time.monotonic()
                while proc.poll() is None and time.monotonic() - started < 10:
                    await anyio.sleep(0.05)
                elapsed = time.monotonic() - started
                tg.cancel_scope.cancel()
    return elapsed


async def test_one_sigterm_stops_the_http_server_within_5_s() -> None:
    proc, url = start_http()
    try:
        stopped_in = await sigterm_with_a_client_attached(url, proc)
        assert proc.returncode == 0, proc.returncode
        assert stopped_in < 5, stopped_in
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stderr:
            proc.stderr.close()


def test_busy_port_exits_3_with_a_message() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        run = subprocess.run(serve_command("--http", "--port", str(port)), capture_output=True, timeout=60)
    assert run.returncode == 3
    assert b"in use" in run.stderr


def test_auth_token_is_refused_for_stdio() -> None:
    run = subprocess.run(serve_command("--auth-token", "x"), capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert run.returncode == 2 and b"--http only" in run.stderr


async def test_ending_an_http_mcp_session_releases_its_engine_sessions() -> None:
    """Without tokens a session belongs to its Mcp-Session-Id; the client's
    DELETE at the end frees both places of a two-session server."""
    with http_server("--max-sessions", "2") as url:
        async with Client(url, mode="legacy") as first:
            tools = Tools(first)
            await tools.ok("initialise_session", **BW3)
            await tools.ok("initialise_session", **BW3)
        async with Client(url, mode="legacy") as second:
            tools = Tools(second)
            await tools.ok("initialise_session", **BW3)
            await tools.ok("initialise_session", **BW3)
            assert (await tools.error("initialise_session", **BW3)).code == "SESSION_LIMIT"


async def test_a_tokens_sessions_outlive_its_mcp_sessions() -> None:
    with http_server("--auth-token", "tok") as url:
        async with Client(token_client(url, "tok"), mode="legacy") as legacy:  # Mcp-Session-Id, DELETE on exit
            sid = (await Tools(legacy).ok("initialise_session", **BW3))["session_id"]
        async with Client(token_client(url, "tok"), mode="legacy") as later:
            tools = Tools(later)
            await tools.ok("query_current_state", session_id=sid)
            assert (await tools.ok("list_sessions"))["live"] == 1


async def test_one_client_cannot_fill_an_http_server() -> None:
    with http_server("--max-sessions", "32") as url:
        async with Client(url, mode="legacy") as greedy:
            tools = Tools(greedy)
            replies = [await tools.call("initialise_session", **BW3) for _ in range(31)]
            codes = [r.code if r.is_error else "OK" for r in replies]
        assert codes.count("OK") == 8 and set(codes[8:]) == {"SESSION_LIMIT"}
        async with Client(url, mode="legacy") as other:
            await Tools(other).ok("initialise_session", **BW3)


async def test_a_big_initialise_does_not_stall_another_clients_calls() -> None:
    """Parsing, grounding and the summary of a big task run in worker threads:
    meanwhile another client's calls on a small session keep being answered
    (each well within the time the big one takes), and the big session,
    which runs its calls in a worker thread too, answers afterwards."""
    from pypddl_experiments.generators import blocksworld
    from pypddlengine.mcp_server import build_server
    from pypddlengine.mcp_server.tools import THREADED_ACTIONS

    domain = (ROOT / "domains" / "blocksworld.pddl").read_text()
    server = build_server()
    async with Client(server) as big, Client(server) as small:
        sid = (await Tools(small).ok("initialise_session", **BW3))["session_id"]
        latencies: list[float] = []
        took: dict[str, float] = {}

        async def heavy() -> None:
            started = time.perf_counter()
            summary = await Tools(big).ok("initialise_session", domain=domain, problem=blocksworld(150, 1))
            took["s"] = time.perf_counter() - started
            took["sid"] = summary["session_id"]
            assert summary["ground_actions"] > THREADED_ACTIONS

        async with anyio.create_task_group() as tg:
            tg.start_soon(heavy)
            while "s" not in took:
                started = time.perf_counter()
                await Tools(small).ok("query_current_state", session_id=sid)
                latencies.append(time.perf_counter() - started)
                await anyio.sleep(0.005)
        assert len(latencies) >= 3, (took, latencies)
        assert max(latencies) < max(0.25, took["s"] / 3), (took["s"], max(latencies))
        page = await Tools(big).ok("query_applicable_actions", session_id=took["sid"], limit=1000)
        assert page["total"] > 0
