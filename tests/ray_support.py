"""Shared bits of the Ray executor tests: the skip marker, one local Ray
instance for the test process, comparing records across executors, and
finding the processes of a run."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import signal
import time
from collections.abc import Callable
from typing import Any

import pytest

RAY_MISSING = importlib.util.find_spec("ray") is None
needs_ray = pytest.mark.skipif(RAY_MISSING, reason="Ray is not installed (pip install 'pypddlengine[ray]')")

TEST_CPUS = 2

VARYING = frozenset({
    # ids and times, which differ between any two runs
    "run_id", "started_at", "wall_s", "t", "time_s", "last_plan_s", "latency_s", "request_id",
    # the machine's state and name
    "host", "load_1m", "load_1m_end",
})
"""Keys left out when records of two executors are compared: run ids, times
(and the load averages measured with them) and the host."""


_SECONDS = re.compile(r"\d+(?:\.\d+)?s\b")


def comparable(value: Any) -> Any:
    """``value`` without the keys of :data:`VARYING`, at any depth, and with
    the times in a planner's log (``[t=0.0023s, ...]``, ``Planner time: 0.09s``) masked."""
    if isinstance(value, dict):
        return {k: _SECONDS.sub("<s>", v) if k == "log_tail" else comparable(v)
                for k, v in value.items() if k not in VARYING}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


def by_key(records: list[dict[str, Any]]) -> dict[tuple[str, str, int], dict[str, Any]]:
    return {(r["method"], r["instance_id"], int(r["replicate"])): r for r in records}


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, step: float = 0.05) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = predicate()
        if found:
            return found
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def processes_with(text: str) -> list[Any]:
    """Live processes whose command line contains ``text`` (psutil)."""
    import psutil

    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if proc.info["status"] != psutil.STATUS_ZOMBIE and text in " ".join(proc.info["cmdline"] or ()):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def kill_group_of(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (a planner this test started:
    Fast Downward runs in its own group), if it is still there."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
