"""Run records (``pypddl.run/1``) and the append-only JSONL file that holds them.

The record schema is shared with the LLM harness (``notes/harness.md``
§6.4): the same keys in the same meaning, ``null`` where a key does not apply
to a planner (``agent``, ``llm``, ``usage``, ``attempts``). Planner facts go
under ``planner`` (the schema's ``alias``, ``returncode``, ``plans_found``,
``last_plan_s`` first, then ours), run facts that are not in the schema under
``extra``.

Writing is crash-safe: each record is one line, written with one
``os.write`` on an ``O_APPEND`` descriptor and then ``fsync``-ed, with SIGINT
and SIGTERM held back for those two calls. An exclusive ``flock`` keeps two
batch runs from writing the same file. A line cut off by a hard kill (power
loss, SIGKILL) is tolerated by :func:`read_records` and removed by the next
writer before it appends, so a resumed run never glues two records together.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import fcntl
import json
import os
import platform
import signal
import subprocess
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypddlengine

from .fd import FDResult, fd_version
from .outcomes import record_outcome
from .tasks import TaskRef

__all__ = [
    "SCHEMA",
    "RecordWriter",
    "RecordsLocked",
    "environment",
    "make_record",
    "read_records",
    "record_key",
    "utc_now",
]

SCHEMA = "pypddl.run/1"


def utc_now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def record_key(record: dict[str, Any]) -> tuple[str, str, int]:
    """The resume key: (method, instance_id, replicate)."""
    return (str(record.get("method")), str(record.get("instance_id")), int(record.get("replicate") or 0))


def _git_commit() -> str | None:
    root = Path(pypddlengine.__file__).resolve().parent.parent
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False
        )
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def environment() -> dict[str, Any]:
    """The ``env`` block, computed once per batch."""
    return {
        "git_commit": _git_commit(),
        "engine_version": pypddlengine.__version__,
        "python": platform.python_version(),
        "sdk": {"up-fast-downward": fd_version()},
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
    }


def make_record(
    result: FDResult,
    task: TaskRef,
    *,
    replicate: int,
    started_at: str,
    env: dict[str, Any],
    experiment_id: str | None = None,
    crosscheck: bool | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``pypddl.run/1`` record of one Fast Downward run."""
    outcome, detail = record_outcome(result.outcome)
    if result.plan is not None and result.plan_valid is False:
        outcome, detail = "error", "invalid_final"
    config = result.config
    planner: dict[str, Any] = {
        "alias": config.alias,
        "returncode": result.returncode,
        "plans_found": sum(1 for p in result.plans if p.complete),
        "last_plan_s": result.last_plan_s,
        "config": config.name,
        "search": config.search,
        "outcome": result.outcome.value,
        "detail": result.detail,
        "killed_at_deadline": result.killed,
        "group_cleaned": result.group_cleaned,
        "memory_limit_mb": result.memory_mb,
        "plans": [p.to_dict() for p in result.plans],
        "fd_version": fd_version(),
    }
    if result.outcome.value not in ("solved", "timeout"):
        planner["log_tail"] = result.log_tail
    if result.workdir:
        planner["workdir"] = result.workdir
    return {
        "schema": SCHEMA,
        "experiment_id": experiment_id,
        "run_id": str(uuid.uuid4()),
        "method": config.method,
        "instance_id": task.instance_id,
        "domain_sha256": task.domain_sha256,
        "problem_sha256": task.problem_sha256,
        "replicate": replicate,
        "started_at": started_at,
        "wall_s": result.wall_s,
        "budget_s": result.time_limit,
        "outcome": outcome,
        "outcome_detail": detail,
        "plan": list(result.plan) if result.plan is not None else None,
        "plan_length": result.plan_length,
        "plan_valid": result.plan_valid,
        "validator": {"name": "pypddlengine", "version": pypddlengine.__version__, "message": result.validation},
        "crosscheck_valid": crosscheck,
        "attempts": None,
        "agent": None,
        "llm": None,
        "usage": None,
        "planner": planner,
        "contaminated": False,
        "errors": [],
        "trace_file": None,
        "env": env,
        "extra": {"domain": str(task.domain), "problem": str(task.problem), **(extra or {})},
    }


# ----------------------------------------------------------------------------- the JSONL file


@dataclass
class ReadResult:
    records: list[dict[str, Any]]
    bad_lines: int  # lines that are not a JSON object (a torn last line after a hard kill)


def read_records(path: str | Path, *, schema: str | None = SCHEMA) -> ReadResult:
    """All records of a JSONL file, tolerating torn or foreign lines."""
    p = Path(path)
    if not p.exists():
        return ReadResult([], 0)
    records, bad = [], 0
    with p.open("rb") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if not isinstance(rec, dict):
                bad += 1
                continue
            if schema is None or rec.get("schema") == schema:
                records.append(rec)
    return ReadResult(records, bad)


class RecordsLocked(RuntimeError):
    """Another process is writing the same records file."""


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back (main thread only) while a record is written."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class RecordWriter:
    """Appends records to a JSONL file, one fsync-ed line each."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            os.close(self._fd)
            if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise RecordsLocked(f"{self.path} is being written by another run") from None
            raise
        self.repaired = self._drop_torn_tail()

    def _drop_torn_tail(self) -> int:
        """Cut a last line that has no newline (a record torn by a hard
        kill); returns the number of bytes removed."""
        size = os.fstat(self._fd).st_size
        if size == 0:
            return 0
        if os.pread(self._fd, 1, size - 1) == b"\n":
            return 0
        chunk = 1 << 16
        end = size
        while end > 0:
            start = max(0, end - chunk)
            data = os.pread(self._fd, end - start, start)
            i = data.rfind(b"\n")
            if i >= 0:
                keep = start + i + 1
                break
            end = start
        else:
            keep = 0
        os.ftruncate(self._fd, keep)
        os.fsync(self._fd)
        return size - keep

    def write(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        with _signals_held():
            view = memoryview(data)
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

