"""Many sessions in one server: isolation under concurrency (in process and
over HTTP, where all clients share one server), unguessable ids, and every
limit as its own tool error."""

from __future__ import annotations

import random
import re
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_support import BW3, BW_DOMAIN, Tools, bw_problem, flatten

from pypddlengine.mcp_server import build_server
from pypddlengine.session import Session

pytestmark = pytest.mark.anyio


WALK_PROBLEM = bw_problem(7, flat=True)


async def walk(tools: Tools, sid: str, feedback: str, seed: int, steps: int) -> list[str]:
    """A random walk through one session, each answer checked against an
    engine session driven alongside; yields to the other walkers often."""
    engine = Session.from_pddl(BW_DOMAIN, WALK_PROBLEM, feedback=feedback)
    rng = random.Random(seed)
    for _ in range(steps):
        page = await tools.ok("query_applicable_actions", session_id=sid, limit=1000)
        assert page["actions"] == engine.applicable_names()
        if rng.random() < 0.15:
            await tools.ok("undo_last_action", session_id=sid)
            engine.undo()
        else:
            action = rng.choice(page["actions"])
            step = await tools.ok("execute_single_action", session_id=sid, action=action)
            expected = engine.execute(action)
            assert (step["success"], step["added"], step["deleted"]) == (True, list(expected.added),
                                                                          list(expected.deleted))
            if feedback != "plain":
                assert step["feedback"]["goals_satisfied"] == len(expected.feedback.goals.satisfied)
        state = await tools.ok("query_current_state", session_id=sid)
        assert flatten(state["state"]) == engine.state_atoms(include_static=False)
        await anyio.sleep(0)
    history = await tools.ok("query_action_history", session_id=sid)
    assert history["actions"] == engine.plan()
    return engine.plan()


async def run_two(target_a: Any, target_b: Any) -> None:
    """Two clients, one session each on the same task (same start state),
    walking concurrently: neither ever sees the other's state."""
    plans: dict[str, list[str]] = {}

    async def one(target: Any, name: str, feedback: str, seed: int) -> None:
        async with Client(target) as client:
            tools = Tools(client)
            sid = (await tools.ok("initialise_session", domain=BW_DOMAIN, problem=WALK_PROBLEM,
                                  feedback=feedback))["session_id"]
            plans[name] = await walk(tools, sid, feedback, seed, 25)

    async with anyio.create_task_group() as tg:
        tg.start_soon(one, target_a, "a", "plain", 1)
        tg.start_soon(one, target_b, "b", "heuristic", 2)  # heuristic sessions run in worker threads
    assert plans["a"] != plans["b"]


async def test_two_concurrent_sessions_in_process_never_share_state(server) -> None:  # type: ignore[no-untyped-def]
    await run_two(server, server)


async def test_two_concurrent_sessions_over_http_never_share_state(http_url: str) -> None:
    await run_two(http_url, http_url)


async def test_one_client_interleaving_two_sessions(tools: Tools) -> None:
    a = (await tools.ok("initialise_session", **BW3))["session_id"]
    b = (await tools.ok("initialise_session", **BW3))["session_id"]
    assert a != b
    await tools.ok("execute_single_action", session_id=a, action="(unstack c a)")
    sa = await tools.ok("query_current_state", session_id=a)
    sb = await tools.ok("query_current_state", session_id=b)
    assert sa["step"] == 1 and sb["step"] == 0 and sa["state"] != sb["state"]
    await tools.ok("reset_to_initial_state", session_id=b)
    assert (await tools.ok("query_current_state", session_id=a))["state"] == sa["state"]


async def test_session_ids_are_unguessable_and_listed(tools: Tools) -> None:
    ids = [(await tools.ok("initialise_session", task="blocksworld/p01", label=f"run {i}"))["session_id"]
           for i in range(12)]
    assert len(set(ids)) == 12 and all(re.fullmatch(r"[A-Za-z0-9_-]{22}", s) for s in ids)  # 128 random bits each
    listing = await tools.ok("list_sessions")
    assert listing["live"] == 12 and not listing["ids_redacted"]
    assert sorted(s["session_id"] for s in listing["sessions"]) == sorted(ids)
    assert {s["label"] for s in listing["sessions"]} == {f"run {i}" for i in range(12)}


async def test_http_style_listing_hides_ids() -> None:
    async with Client(build_server(reveal_session_ids=False)) as client:
        tools = Tools(client)
        sid = (await tools.ok("initialise_session", task="blocksworld/p01"))["session_id"]
        listing = await tools.ok("list_sessions")
        shown = listing["sessions"][0]["session_id"]
        assert listing["ids_redacted"] and shown != sid and sid.startswith(shown.removesuffix("..."))
        assert (await tools.error("query_current_state", session_id=shown)).code == "UNKNOWN_SESSION"


async def test_full_tokenless_pool_evicts_the_least_recently_used_session() -> None:
    """Issue 30: a full pool of tokenless sessions never locks a tokenless client
    out: the least recently used idle one gives way and says so on its next call."""
    async with Client(build_server(max_sessions=2)) as client:
        tools = Tools(client)
        first = (await tools.ok("initialise_session", task="blocksworld/p01"))["session_id"]
        second = (await tools.ok("initialise_session", task="blocksworld/p01"))["session_id"]
        await tools.ok("query_current_state", session_id=first)  # second is now the least recently used
        third = (await tools.ok("initialise_session", task="blocksworld/p01"))["session_id"]
        evicted = await tools.error("query_current_state", session_id=second)
        assert evicted.code == "SESSION_EVICTED" and "least recently used" in evicted.text
        await tools.ok("query_current_state", session_id=first)
        assert (await tools.ok("list_sessions"))["live"] == 2
        await tools.ok("close_session", session_id=third)
        await tools.ok("initialise_session", task="blocksworld/p01")
        assert (await tools.ok("list_sessions"))["live"] == 2


async def test_concurrent_initialise_never_exceeds_the_cap() -> None:
    async with Client(build_server(max_sessions=3)) as client:
        tools = Tools(client)
        codes: list[str] = []

        async def init() -> None:
            reply = await tools.call("initialise_session", task="blocksworld/p04")
            codes.append(reply.code if reply.is_error else "OK")

        async with anyio.create_task_group() as tg:
            for _ in range(7):
                tg.start_soon(init)
        assert sorted(codes) == ["OK"] * 3 + ["SESSION_LIMIT"] * 4
        assert (await tools.ok("list_sessions"))["live"] == 3


async def test_step_limit_counts_attempts_and_keeps_the_session_readable() -> None:
    async with Client(build_server(max_steps=5)) as client:
        tools = Tools(client)
        summary = await tools.ok("initialise_session", **BW3, max_steps=3)
        sid = summary["session_id"]
        assert summary["max_steps"] == 3
        assert (await tools.ok("execute_single_action", session_id=sid, action="(unstack c a)"))["attempts_left"] == 2
        assert not (await tools.ok("execute_single_action", session_id=sid, action="(stack a b)"))["success"]
        assert (await tools.ok("execute_single_action", session_id=sid, action="(put-down c)"))["attempts_left"] == 0
        reply = await tools.error("execute_single_action", session_id=sid, action="(pick-up a)")
        assert reply.code == "STEP_LIMIT"
        history = await tools.ok("query_action_history", session_id=sid)
        assert history["actions"] == ["(unstack c a)", "(put-down c)"]
        assert history["counters"]["steps_executed"] == 2 and history["counters"]["failed_attempts"] == 1
        assert not (await tools.ok("validate_complete_plan", session_id=sid))["valid"]
        # a session cannot raise its limit above the server's
        assert (await tools.ok("initialise_session", **BW3, max_steps=99))["max_steps"] == 5


async def test_idle_sessions_expire() -> None:
    now = [1000.0]
    async with Client(build_server(idle_timeout=60, clock=lambda: now[0])) as client:
        tools = Tools(client)
        a = (await tools.ok("initialise_session", task="blocksworld/p01"))["session_id"]
        b = (await tools.ok("initialise_session", task="blocksworld/p01"))["session_id"]
        now[0] += 50
        await tools.ok("query_current_state", session_id=b)  # any call keeps a session alive
        now[0] += 20
        reply = await tools.error("query_current_state", session_id=a)
        assert reply.code == "SESSION_EXPIRED" and "60" in reply.text
        assert [s["idle_s"] for s in (await tools.ok("list_sessions"))["sessions"]] == [20.0]
        now[0] += 61
        assert (await tools.ok("list_sessions"))["live"] == 0
        assert (await tools.error("execute_single_action", session_id=b, action="(pick-up b)")).code == "SESSION_EXPIRED"


async def test_idle_sessions_are_freed_by_calls_on_other_sessions() -> None:
    now = [0.0]
    server = build_server(idle_timeout=60, clock=lambda: now[0])
    async with Client(server) as client:
        tools = Tools(client)
        idle = (await tools.ok("initialise_session", **BW3))["session_id"]
        busy = (await tools.ok("initialise_session", **BW3))["session_id"]
        for _ in range(10):
            now[0] += 15
            await tools.ok("query_current_state", session_id=busy)
        assert len(server.store) == 1  # freed without any list_sessions or initialise_session
        assert (await tools.error("query_current_state", session_id=idle)).code == "SESSION_EXPIRED"


@pytest.mark.parametrize(
    ("overrides", "arguments", "code"),
    [
        ({"max_ground_actions": 23}, {**BW3, "backend": "grounded"}, "GROUNDING_LIMIT"),  # BW3 grounds to 24 actions
        ({"max_ground_atoms": 5}, {**BW3, "backend": "grounded"}, "GROUNDING_LIMIT"),
        ({"max_pddl_bytes": 300}, BW3, "INPUT_TOO_LARGE"),
        ({"max_pddl_bytes": 300}, "files", "INPUT_TOO_LARGE"),
    ],
)
async def test_task_size_limits(overrides: dict[str, Any], arguments: Any, code: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    if arguments == "files":
        (tmp_path / "d.pddl").write_text(BW3["domain"])
        (tmp_path / "p.pddl").write_text(BW3["problem"])
        arguments = {"domain": str(tmp_path / "d.pddl"), "problem": str(tmp_path / "p.pddl")}
    async with Client(build_server(**overrides)) as client:
        tools = Tools(client)
        assert (await tools.error("initialise_session", **arguments)).code == code
        assert (await tools.ok("list_sessions"))["live"] == 0  # the reserved slot was released


async def test_automatic_backend_goes_lifted_when_grounding_hits_the_limits() -> None:
    """backend auto (the default): a task that stops grounding at the server's
    size limits opens lifted instead, and says why (issue 21)."""
    async with Client(build_server(max_ground_actions=23)) as client:
        tools = Tools(client)
        init = await tools.ok("initialise_session", **BW3)
        assert init["backend"] == "lifted" and "grounding stopped" in init["backend_note"]
        assert init.get("ground_actions") is None
        # a lifted listing's work limit is the grounding limit (23 here): the count may be refused, but the first
        # page is found lazily either way (issue 33)
        page = await tools.ok("query_applicable_actions", session_id=init["session_id"])
        assert page["actions"] and (init.get("applicable_now") is None or init["applicable_now"] > 0)
        assert page.get("total") is not None or page["total_at_least"] >= len(page["actions"])


async def test_memory_budget_over_all_sessions() -> None:
    async with Client(build_server(max_total_actions=40)) as client:
        tools = Tools(client)
        assert (await tools.ok("initialise_session", **BW3))["ground_actions"] == 24
        assert (await tools.error("initialise_session", **BW3)).code == "SERVER_CAPACITY"
        assert (await tools.ok("list_sessions"))["live"] == 1
        small = await tools.ok("initialise_session", domain=BW_DOMAIN, problem=bw_problem(2))
        assert small["ground_actions"] <= 16


async def test_page_sizes_are_clamped() -> None:
    async with Client(build_server(page_size=1, max_page_size=2)) as client:
        tools = Tools(client)
        sid = (await tools.ok("initialise_session", **BW3))["session_id"]
        await tools.ok("execute_single_action", session_id=sid, action="(unstack c a)")  # 3 actions apply now
        page = await tools.ok("query_applicable_actions", session_id=sid)
        assert page["limit"] == 1 and len(page["actions"]) == 1 and page["total"] == 3 and page["next_offset"] == 1
        page = await tools.ok("query_applicable_actions", session_id=sid, limit=10_000)
        assert page["limit"] == 2 and len(page["actions"]) == 2 and page["next_offset"] == 2


def test_servers_do_not_share_sessions() -> None:
    async def main() -> None:
        one, two = build_server(), build_server()
        async with Client(one) as a, Client(two) as b:
            sid = (await Tools(a).ok("initialise_session", task="blocksworld/p01"))["session_id"]
            assert (await Tools(b).error("query_current_state", session_id=sid)).code == "UNKNOWN_SESSION"
        async with Client(one) as again:  # a new connection to the same server keeps its sessions
            await Tools(again).ok("query_current_state", session_id=sid)

    anyio.run(main)


def test_eviction_spares_token_holders_and_sessions_in_use() -> None:
    """Only tokenless idle sessions give way; a token holder's never do, and a
    session whose call is running is not idle."""
    from types import SimpleNamespace

    from pypddlengine.mcp_server.errors import ToolFailure
    from pypddlengine.mcp_server.store import ServerOptions, SessionEntry, SessionStore

    now = [0.0]
    store = SessionStore(ServerOptions(max_sessions=3), clock=lambda: now[0])

    def open_as(owner: str | None) -> str:
        store.reserve(owner)
        now[0] += 1
        entry = SessionEntry(store.new_id(), SimpleNamespace(grounded=None), None, "d", "p", {}, "compact",  # type: ignore[arg-type]
                             100, now[0], False, owner=owner)
        store.add(entry)
        store.release(owner)
        return entry.session_id

    tokened = [open_as("token:a"), open_as("token:b")]
    busy = open_as(None)
    with store.get(busy).lock:  # a call is running on it: not idle
        with pytest.raises(ToolFailure) as refused:
            open_as("mcp:x")
    assert refused.value.code == "SESSION_LIMIT"
    open_as("mcp:x")  # now the tokenless session gives way
    with pytest.raises(ToolFailure) as gone:
        store.get(busy)
    assert gone.value.code == "SESSION_EVICTED"
    assert {e.owner for e in store.entries()} == {"token:a", "token:b", "mcp:x"}
    open_as("token:c")  # the handshake client's idle session gives way to a token holder too
    assert {e.owner for e in store.entries()} == {"token:a", "token:b", "token:c"}
    with pytest.raises(ToolFailure) as full:  # token holders' sessions never give way
        open_as(None)
    assert full.value.code == "SESSION_LIMIT" and len(store) == 3 and all(store.get(t, o) for t, o in
                                                                           zip(tokened, ["token:a", "token:b"]))
