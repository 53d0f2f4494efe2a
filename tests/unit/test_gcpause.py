"""paused_gc: the collector comes back on whatever happens, and session churn leaves memory flat."""

from __future__ import annotations

import gc
import threading

import pytest

from pypddlengine.gcpause import paused_gc


def test_an_exception_switches_the_collector_back_on() -> None:
    assert gc.isenabled()
    with pytest.raises(ZeroDivisionError), paused_gc():
        assert not gc.isenabled()
        _ = 1 / 0
    assert gc.isenabled()


def test_a_disabled_collector_stays_disabled() -> None:
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_blocks_in_threads() -> None:
    """The collector stays off until the last of two overlapping blocks ends
    (the first to end used to switch it on under the other), then is on."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with paused_gc():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with paused_gc():
            second_in.set()
            first_out.wait(5)
            seen.append(gc.isenabled())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [False]
    assert gc.isenabled()


_CHURN = """
import gc, json
import anyio
from mcp import Client
from pypddlengine.mcp_server import build_server

counts = []

async def main():
    async with Client(build_server()) as client:
        for i in range(340):
            opened = await client.call_tool("initialise_session", {"task": "blocksworld/p01"})
            sid = opened.structured_content["session_id"]
            await client.call_tool("execute_single_action", {"session_id": sid, "action": "(pick-up a)"})
            await client.call_tool("close_session", {"session_id": sid})
            if i >= 40 and i % 50 == 0:
                counts.append(len(gc.get_objects()))

anyio.run(main)
print(json.dumps({"counts": counts, "enabled": gc.isenabled()}))
"""


def test_session_churn_keeps_the_heap_flat() -> None:
    """300 sessions opened, stepped and closed through the MCP server, in a
    fresh interpreter (the bound is about this churn, not the heap other tests
    left behind): the number of tracked objects stays within a bound (it grew
    by ~800 per session while garbage was parked in the oldest generation)."""
    import json
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _CHURN], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    counts = result["counts"]
    assert result["enabled"]
    growth = max(counts) - counts[0]
    assert growth < 150_000, counts  # the sawtooth of FULL_COLLECTION_SHARE / 100,000 objects, not a slope
    assert counts[-1] - counts[0] < 120_000, counts
