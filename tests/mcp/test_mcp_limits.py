"""Server limits as tool errors: fast, coded, located; a long grounding never stalls other clients."""

from __future__ import annotations

import gc
import http.client
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_support import BW3, Tools, http_server

from pypddlengine.mcp_server import build_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from quantifier_bombs import BOMBS, GOAL_BOMB, SLOW_ADL, bomb_domain, objects
from test_limits import ALL_P, SLOW_DOMAIN, deep_goal, objects_problem, unbound_domain

pytestmark = pytest.mark.anyio

UNBOUND = {"domain": unbound_domain("(= ?x1 ?x2)"), "problem": objects_problem(60, ALL_P)}
SLOW = {"domain": SLOW_DOMAIN, "backend": "grounded",
        "problem": objects_problem(300, " ".join(f"(r o{i}) (s o{i})" for i in range(300)))}
"""Tasks the grounder cannot take: asked for explicitly, ``backend="grounded"``
must refuse them (or time out); the automatic choice opens them lifted (issue 21)."""


async def _refused_fast(tools: Tools) -> None:
    """Grounded: refused at once, located at the parameters. Automatic: the
    task opens lifted; its 60**7 actions are too many to count (listing them
    all stops at the work limit, GROUNDING_LIMIT kind 'lifted'), so the
    listing's pages are found lazily (issue 33): the first page, a lower
    bound for the total, and the session still there."""
    started = time.monotonic()
    reply = await tools.error("initialise_session", backend="grounded", **UNBOUND)
    assert time.monotonic() - started < 3.0
    assert reply.code == "GROUNDING_LIMIT"
    error = reply.data["error"]
    assert error["location"]["file"] == "<domain>" and error["location"]["line"] == 3
    assert error["details"]["kind"] == "estimate"
    assert "no positive precondition binds ?x1" in error["message"]
    opened = await tools.ok("initialise_session", **UNBOUND)
    assert opened["backend"] == "lifted"
    started = time.monotonic()
    listing = await tools.ok("query_applicable_actions", session_id=opened["session_id"])
    assert listing.get("total") is None and listing["total_at_least"] > len(listing["actions"]) == 50
    assert listing["actions"][:2] == ["(a o0 o0 o0 o0 o0 o0 o0 o0)", "(a o0 o0 o0 o0 o0 o0 o0 o1)"]
    assert time.monotonic() - started < 30.0
    assert opened.get("applicable_now") is None  # too many to count: left out
    assert await tools.ok("query_current_state", session_id=opened["session_id"])  # the session is still there


async def test_unbound_parameters_are_refused_in_process(tools: Tools) -> None:
    await _refused_fast(tools)


async def test_unbound_parameters_are_refused_over_http() -> None:
    with http_server() as url:
        async with Client(url) as client:
            await _refused_fast(Tools(client))
            assert (await Tools(client).ok("initialise_session", **BW3))["session_id"]


async def test_deep_nesting_is_a_located_tool_error(tools: Tools) -> None:
    reply = await tools.error("initialise_session", domain=BW3["domain"], problem=deep_goal(100_000))
    assert reply.code == "NESTING_LIMIT"
    assert reply.data["error"]["location"]["line"] == 5
    assert reply.text.startswith("[NESTING_LIMIT] <problem>:5:")


async def _one_quick_episode(tools: Tools, latencies: list[float]) -> None:
    """Initialise a 3-block task, take a step, close it; record how long that took."""
    started = time.monotonic()
    sid = (await tools.ok("initialise_session", **BW3))["session_id"]
    await tools.ok("execute_single_action", session_id=sid, action="(unstack c a)")
    await tools.ok("close_session", session_id=sid)
    latencies.append(time.monotonic() - started)


async def test_a_long_grounding_times_out_and_never_stalls_another_client() -> None:
    """Client A initialises a task that grounds for ever (every candidate
    rejected); meanwhile client B's 3-block initialisations answer quickly, and
    A gets GROUNDING_TIMEOUT when the server's limit passes."""
    server = build_server(grounding_timeout=3.0)
    latencies: list[float] = []
    outcome: dict[str, Any] = {}

    async def slow() -> None:
        async with Client(server) as client:
            started = time.monotonic()
            outcome["reply"] = await Tools(client).error("initialise_session", **SLOW)
            outcome["seconds"] = time.monotonic() - started

    async def quick() -> None:
        await anyio.sleep(0.5)
        async with Client(server) as client:
            tools = Tools(client)
            while "reply" not in outcome:
                await _one_quick_episode(tools, latencies)

    async with anyio.create_task_group() as group:
        group.start_soon(slow)
        group.start_soon(quick)
    assert outcome["reply"].code == "GROUNDING_TIMEOUT" and 3.0 <= outcome["seconds"] < 8.0
    assert len(latencies) >= 3
    assert max(latencies) < 2.0, latencies  # one initialise + step + close each, on a loaded 2-core machine
    assert gc.isenabled()


async def test_a_cancelled_initialise_stops_its_grounding() -> None:
    """A client that gives up (its call is cancelled) stops the grounding: the
    garbage collector, paused while grounding, is back on long before the
    server's 60 s limit, and the grounding slots are free again."""
    server = build_server(grounding_timeout=60.0, max_concurrent_initialise=1)
    async with Client(server) as client:
        with anyio.move_on_after(1.0):
            await client.call_tool("initialise_session", SLOW)
        started = time.monotonic()
        while not gc.isenabled() and time.monotonic() - started < 10:
            await anyio.sleep(0.05)
        assert gc.isenabled(), "the grounding went on after its call was cancelled"
        assert time.monotonic() - started < 3.0
        assert (await Tools(client).ok("initialise_session", **BW3))["session_id"]  # the one slot is free


def test_a_10_mb_request_over_http_is_a_clear_413() -> None:
    """The HTTP transport refuses a body above 4 MiB before any tool runs:
    HTTP 413 'Request body too large', on the declared length, before the body
    is read (a 3 MB domain still reaches the tool: INPUT_TOO_LARGE, below)."""
    with http_server() as url:
        parts = urllib.parse.urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        conn.putrequest("POST", parts.path)
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Accept", "application/json, text/event-stream")
        conn.putheader("Content-Length", str(10_000_000))
        conn.endheaders()
        reply = conn.getresponse()
        assert reply.status == 413
        assert "too large" in reply.read().decode().lower()
        conn.close()


async def test_a_3_mb_domain_over_http_is_input_too_large() -> None:
    big = BW3["domain"] + ";" + "x" * 3_000_000 + "\n"
    with http_server() as url:
        async with Client(url) as client:
            reply = await Tools(client).error("initialise_session", domain=big, problem=BW3["problem"])
    assert reply.code == "INPUT_TOO_LARGE"


CLIENT = """
import sys, anyio
from mcp import Client
async def main(url, domain, problem):
    async with Client(url) as client:
        print("calling", flush=True)
        await client.call_tool("initialise_session", {"domain": domain, "problem": problem, "backend": "grounded"})
anyio.run(main, *sys.argv[1:])
"""


def test_a_grounding_stops_when_its_http_client_goes_away() -> None:
    """A client killed in the middle of a long initialise over HTTP: the
    server's grounding stops (its CPU use falls to idle), long before the
    server's 30 s grounding limit."""
    import subprocess

    psutil = pytest.importorskip("psutil", reason="psutil (the test extra) is not installed")
    with http_server() as url:
        server = next(p for p in psutil.Process().children() if "serve" in " ".join(p.cmdline()))
        client = subprocess.Popen([sys.executable, "-c", CLIENT, url, SLOW["domain"], SLOW["problem"]],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert client.stdout is not None and client.stdout.readline().strip() == "calling"
            time.sleep(1.5)
            busy = server.cpu_percent(interval=1.0)
        finally:
            client.kill()
            client.wait()
        time.sleep(1.0)
        idle = max(server.cpu_percent(interval=1.0) for _ in range(2))
    assert busy > 10.0, f"the grounding was not running ({busy}% CPU)"
    assert idle < 5.0, f"the grounding went on after its client went away ({idle}% CPU)"


# ----------------------------------------------------------------------------- ADL quantifier bombs (issue 25 item 7)

BOMB_CALLS = [{"domain": bomb_domain(body), "problem": objects()} for body in BOMBS.values()]
BOMB_CALLS.append({"domain": GOAL_BOMB[0], "problem": GOAL_BOMB[1]})


async def _bombs_and_a_quick_client(connect: Any, rounds: int = 2) -> tuple[list[tuple[str, float]], list[float]]:
    """Every bomb ``rounds`` times, all at once, each from its own client;
    meanwhile another client initialises, steps and closes 3-block tasks."""
    refusals: list[tuple[str, float]] = []
    latencies: list[float] = []
    done = anyio.Event()

    async def bomb(call: dict[str, str]) -> None:
        async with connect() as client:
            started = time.monotonic()
            reply = await Tools(client).error("initialise_session", **call)
            refusals.append((reply.code, time.monotonic() - started))

    async def bombs() -> None:
        async with anyio.create_task_group() as group:
            for _ in range(rounds):
                for call in BOMB_CALLS:
                    group.start_soon(bomb, call)
        done.set()

    async def quick() -> None:
        async with connect() as client:
            tools = Tools(client)
            while not done.is_set() or len(latencies) < 3:
                await _one_quick_episode(tools, latencies)

    async with anyio.create_task_group() as group:
        group.start_soon(bombs)
        group.start_soon(quick)
    return refusals, latencies


async def test_quantifier_bombs_are_refused_in_seconds_while_another_client_is_served() -> None:
    """Fourteen bombs at once against the default two grounding slots: each is
    GROUNDING_LIMIT within seconds (it used to ground for minutes, holding the
    slots: every other client got SERVER_CAPACITY), and the other client's
    calls keep answering."""
    server = build_server()
    refusals, latencies = await _bombs_and_a_quick_client(lambda: Client(server))
    assert [code for code, _ in refusals] == ["GROUNDING_LIMIT"] * len(BOMB_CALLS) * 2
    assert max(seconds for _, seconds in refusals) < 5.0, refusals
    assert max(latencies) < 3.0, latencies
    assert gc.isenabled()


async def test_quantifier_bombs_over_http_leave_the_server_serving() -> None:
    with http_server() as url:
        refusals, latencies = await _bombs_and_a_quick_client(lambda: Client(url), rounds=1)
    assert {code for code, _ in refusals} == {"GROUNDING_LIMIT"} and len(refusals) == len(BOMB_CALLS)
    assert max(seconds for _, seconds in refusals) < 8.0, refusals
    assert max(latencies) < 4.0, latencies


async def test_a_slow_adl_grounding_times_out_and_a_cancelled_one_frees_its_slot() -> None:
    """A task under every estimate whose forall preconditions take about 7.8e8
    bindings in all: GROUNDING_TIMEOUT at the server's limit; and a call that
    gives up stops its grounding at once, so the one slot serves the next call."""
    slow = {"domain": SLOW_ADL[0], "problem": SLOW_ADL[1], "backend": "grounded"}
    async with Client(build_server(grounding_timeout=2.0)) as client:
        started = time.monotonic()
        reply = await Tools(client).error("initialise_session", **slow)
        assert reply.code == "GROUNDING_TIMEOUT" and time.monotonic() - started < 6.0
        # automatically, a grounding that times out opens the task lifted instead, and listing the
        # actions (each a forall over 216,000 bindings) stops at the lifted work limit, not for ever
        tools = Tools(client)
        opened = await tools.ok("initialise_session", domain=SLOW_ADL[0], problem=SLOW_ADL[1])
        assert opened["backend"] == "lifted" and "grounding stopped" in opened["backend_note"]
        started = time.monotonic()
        listing = await tools.error("query_applicable_actions", session_id=opened["session_id"])
        assert listing.code == "GROUNDING_LIMIT" and time.monotonic() - started < 60.0
    async with Client(build_server(grounding_timeout=120.0, max_concurrent_initialise=1)) as client:
        with anyio.move_on_after(1.0):
            await client.call_tool("initialise_session", slow)
        started = time.monotonic()
        assert (await Tools(client).ok("initialise_session", **BW3))["session_id"]  # the one slot is free
        assert time.monotonic() - started < 3.0
        assert gc.isenabled()
