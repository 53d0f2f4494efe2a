"""MCP load test on loopback: many concurrent HTTP clients, then a soak.

    python bench/bench_mcp_load.py --clients 50 --steps 200 --soak 600
    python bench/bench_mcp_load.py --clients 3 --steps 5 --soak 3      # a quick check

One ``pypddl serve --http`` subprocess, started with one bearer token per
client (so each client is its own principal, as the server's ownership rules
intend). Load: ``--clients`` clients at once, each opening a session on its own
``--blocks``-block Blocksworld task (the package's generator, seed = client
number) and taking ``--steps`` random applicable actions; after every step it
compares the server's state with an engine session driven alongside in this
process, and at the end it checks that ``list_sessions`` shows exactly its own
session and that another client's session id is ``UNKNOWN_SESSION`` to it.
Printed: errors (tool errors, transport errors), cross-session leaks (a state
that is not the client's own, a foreign session visible or usable), p50/p99
latency of every call and of ``initialise_session``, throughput.

Stall (``--stall BLOCKS``): one client initialises a task of that many blocks
(459 blocks: 422,280 ground actions) while another calls
``query_current_state`` on a small session every 10 ms; the latency it sees.

Soak (``--soak SECONDS``): ``--soak-clients`` loops that open a session on a
small task, take one step and close it, for that long; the server's RSS at the
start, every 30 s and at the end, and the number of sessions churned.

Exit status 0 when there were no errors and no leaks, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = (ROOT / "domains" / "blocksworld.pddl").read_text()


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)

    def timed(self, name: str, seconds: float) -> None:
        self.latencies.setdefault(name, []).append(seconds)

    def all_latencies(self) -> list[float]:
        return [x for v in self.latencies.values() for x in v]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def flatten(state: dict[str, list[str]] | list[str]) -> list[str]:
    if isinstance(state, list):
        return sorted(state)
    atoms = []
    for predicate, args in state.items():
        atoms += [f"({predicate} {a})" if a else f"({predicate})" for a in args] if args else [f"({predicate})"]
    return sorted(atoms)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(tokens: list[str], max_sessions: int, per_client: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "PYPDDL_AUTH_TOKEN": ",".join(tokens)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pypddlengine.cli", "serve", "--http", "--port", str(port), "--max-sessions",
         str(max_sessions), "--max-sessions-per-client", str(per_client)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def client_for(url: str, token: str) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=120)
    return Client(streamable_http_client(url, http_client=http))


async def call(client: Any, tally: Tally, name: str, **arguments: Any) -> dict[str, Any] | None:
    """The structured result, or None after recording a tool or transport error."""
    started = time.perf_counter()
    try:
        result = await client.call_tool(name, arguments)
    except Exception as err:  # transport errors are counted, not fatal
        tally.errors.append(f"{name}: {type(err).__name__}: {str(err)[:200]}")
        return None
    tally.timed(name, time.perf_counter() - started)
    if result.is_error:
        text = result.content[0].text if result.content else ""
        tally.errors.append(f"{name}: {text[:200]}")
        return None
    return dict(result.structured_content or {})


# ----------------------------------------------------------------------------- load


async def one_client(url: str, token: str, number: int, blocks: int, steps: int, tally: Tally,
                     ids: dict[int, str], ready: anyio.Event, everyone: int) -> None:
    from pypddl_experiments.generators import blocksworld
    from pypddlengine.session import Session

    problem = blocksworld(blocks, number)
    engine = Session.from_pddl(DOMAIN, problem, feedback="plain")
    rng = random.Random(number)
    async with client_for(url, token) as client:
        summary = await call(client, tally, "initialise_session", domain=DOMAIN, problem=problem,
                             label=f"client {number}")
        if summary is None:
            return
        sid = summary["session_id"]
        ids[number] = sid
        if len(ids) == everyone:
            ready.set()
        for _ in range(steps):
            page = await call(client, tally, "query_applicable_actions", session_id=sid, limit=1000)
            if page is None:
                return
            if page["actions"] != engine.applicable_names():
                tally.leaks.append(f"client {number}: applicable actions differ from its own task's")
                return
            action = rng.choice(page["actions"])
            step = await call(client, tally, "execute_single_action", session_id=sid, action=action)
            engine.execute(action)
            state = await call(client, tally, "query_current_state", session_id=sid, include_static=True)
            if step is None or state is None:
                return
            if flatten(state["state"]) != engine.state_atoms(include_static=True):
                tally.leaks.append(f"client {number}: state after {action} is not its own")
                return
        with anyio.move_on_after(60):
            await ready.wait()  # every client has a session: now try the others'
        listing = await call(client, tally, "list_sessions", limit=1000)
        if listing is not None and [s["session_id"] for s in listing["sessions"]] != [sid]:
            tally.leaks.append(f"client {number}: list_sessions shows {len(listing['sessions'])} sessions")
        others = [v for k, v in ids.items() if k != number]
        if others:
            foreign = rng.choice(others)
            result = await client.call_tool("query_current_state", {"session_id": foreign})
            text = result.content[0].text if result.content else ""
            if not (result.is_error and "UNKNOWN_SESSION" in text):
                tally.leaks.append(f"client {number}: another client's session answered: {text[:100]}")
        await call(client, tally, "close_session", session_id=sid)


async def load(url: str, tokens: list[str], blocks: int, steps: int, tally: Tally) -> float:
    ids: dict[int, str] = {}
    ready = anyio.Event()
    started = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for number, token in enumerate(tokens, start=1):
            tg.start_soon(one_client, url, token, number, blocks, steps, tally, ids, ready, len(tokens))
    return time.perf_counter() - started


# ----------------------------------------------------------------------------- soak


async def soak(url: str, tokens: list[str], seconds: float, pid: int, tally: Tally) -> dict[str, Any]:
    from pypddl_experiments.generators import blocksworld

    problem = blocksworld(5, 1)
    churned = [0]
    samples = [(0.0, rss_mib(pid))]
    started = time.monotonic()
    end = started + seconds

    async def churn(token: str) -> None:
        async with client_for(url, token) as client:
            while time.monotonic() < end:
                summary = await call(client, tally, "initialise_session", domain=DOMAIN, problem=problem)
                if summary is None:
                    await anyio.sleep(0.05)
                    continue
                sid = summary["session_id"]
                page = await call(client, tally, "query_applicable_actions", session_id=sid)
                if page and page["actions"]:
                    await call(client, tally, "execute_single_action", session_id=sid, action=page["actions"][0])
                await call(client, tally, "close_session", session_id=sid)
                churned[0] += 1

    async def sample() -> None:
        while time.monotonic() < end:
            await anyio.sleep(min(30.0, max(0.0, end - time.monotonic())))
            samples.append((round(time.monotonic() - started, 1), rss_mib(pid)))

    async with anyio.create_task_group() as tg:
        for token in tokens:
            tg.start_soon(churn, token)
        tg.start_soon(sample)
    await anyio.sleep(1.0)
    samples.append((round(time.monotonic() - started, 1), rss_mib(pid)))
    return {"seconds": round(time.monotonic() - started, 1), "sessions": churned[0],
            "rss_mib": [(t, round(r, 1)) for t, r in samples]}


# ----------------------------------------------------------------------------- stall


async def stall(url: str, tokens: list[str], blocks: int, tally: Tally) -> dict[str, Any]:
    """One client initialises a ``blocks``-block task while another keeps
    calling query_current_state on a small session: the latency it sees."""
    from pypddl_experiments.generators import blocksworld

    async with client_for(url, tokens[0]) as big, client_for(url, tokens[1]) as small:
        opened = await call(small, tally, "initialise_session", domain=DOMAIN, problem=blocksworld(5, 1))
        if opened is None:
            return {}
        sid = opened["session_id"]
        seen: list[float] = []
        result: dict[str, Any] = {}
        done = anyio.Event()

        async def heavy() -> None:
            started = time.perf_counter()
            summary = await call(big, tally, "initialise_session", domain=DOMAIN, problem=blocksworld(blocks, 1))
            result["initialise_s"] = round(time.perf_counter() - started, 2)
            result["ground_actions"] = summary["ground_actions"] if summary else None
            done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(heavy)
            while not done.is_set():
                started = time.perf_counter()
                await call(small, tally, "query_current_state", session_id=sid)
                seen.append(time.perf_counter() - started)
                await anyio.sleep(0.01)
        result.update(blocks=blocks, calls=len(seen), p50_ms=round(1000 * percentile(seen, 0.5)),
                      max_ms=round(1000 * max(seen, default=float("nan"))))
        return result


# ----------------------------------------------------------------------------- main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients of the load phase")
    parser.add_argument("--steps", type=int, default=200, help="steps per client")
    parser.add_argument("--blocks", type=int, default=50, help="blocks of each client's task")
    parser.add_argument("--soak", type=float, default=0.0, help="seconds of session churn afterwards (0: none)")
    parser.add_argument("--soak-clients", type=int, default=4, help="concurrent loops of the soak")
    parser.add_argument("--stall", type=int, default=0, metavar="BLOCKS",
                        help="also: latency one client sees while another initialises a task of this many blocks")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args()

    tokens = [f"client-{i}-{secrets.token_urlsafe(12)}" for i in range(max(args.clients, args.soak_clients, 2))]
    proc, url = start_server(tokens, max_sessions=args.clients + args.soak_clients + 8, per_client=4)
    report: dict[str, Any] = {"load_average_before": os.getloadavg()}
    try:
        tally = Tally()
        wall = anyio.run(load, url, tokens[: args.clients], args.blocks, args.steps, tally)
        every = tally.all_latencies()
        init = tally.latencies.get("initialise_session", [])
        report["load"] = {
            "clients": args.clients, "steps": args.steps, "blocks": args.blocks, "calls": len(every),
            "errors": len(tally.errors), "leaks": len(tally.leaks), "wall_s": round(wall, 1),
            "throughput_calls_per_s": round(len(every) / wall, 1) if wall else None,
            "p50_ms": round(1000 * percentile(every, 0.5), 1), "p99_ms": round(1000 * percentile(every, 0.99), 1),
            "initialise_p50_ms": round(1000 * statistics.median(init), 1) if init else None,
            "first_errors": tally.errors[:5], "first_leaks": tally.leaks[:5],
        }
        load_report = report["load"]
        print(f"load: {args.clients} clients x {args.steps} steps on {args.blocks} blocks: "
              f"{load_report['calls']} calls in {load_report['wall_s']} s, "
              f"{load_report['throughput_calls_per_s']} calls/s; errors {load_report['errors']}, "
              f"leaks {load_report['leaks']}; p50 {load_report['p50_ms']} ms, p99 {load_report['p99_ms']} ms, "
              f"initialise_session p50 {load_report['initialise_p50_ms']} ms")
        for line in tally.errors[:5] + tally.leaks[:5]:
            print(f"  {line}")
        bad = len(tally.errors) + len(tally.leaks)
        if args.stall > 0:
            stall_tally = Tally()
            report["stall"] = found = anyio.run(stall, url, tokens, args.stall, stall_tally)
            print(f"stall: initialise_session of {found.get('ground_actions')} ground actions ({args.stall} blocks) "
                  f"took {found.get('initialise_s')} s; another client's {found.get('calls')} calls meanwhile: "
                  f"p50 {found.get('p50_ms')} ms, max {found.get('max_ms')} ms; errors {len(stall_tally.errors)}")
            bad += len(stall_tally.errors)
        if args.soak > 0:
            soak_tally = Tally()
            result = anyio.run(soak, url, tokens[: args.soak_clients], args.soak, proc.pid, soak_tally)
            result["errors"] = len(soak_tally.errors)
            result["first_errors"] = soak_tally.errors[:5]
            report["soak"] = result
            rss = result["rss_mib"]
            print(f"soak: {result['sessions']} sessions opened, stepped and closed in {result['seconds']} s "
                  f"by {args.soak_clients} clients; errors {result['errors']}; server RSS {rss[0][1]} MiB at the "
                  f"start, {rss[-1][1]} MiB at the end (samples: {', '.join(f'{t:g}s {r}' for t, r in rss)})")
            for line in soak_tally.errors[:5]:
                print(f"  {line}")
            bad += len(soak_tally.errors)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    report["load_average_after"] = os.getloadavg()
    print(f"load average before {report['load_average_before'][0]:.2f}, after {report['load_average_after'][0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
