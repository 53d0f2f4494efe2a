"""Run records (``pypddl.run/1``): what the two adapters that write them share.

The Fast Downward batch runner (``pypddl_experiments.planners``) and the LLM
experiment harness (``pypddl_experiments.llm``) write the same records to the
same kind of file, one JSON object per line and one line per ``(method,
instance_id, replicate)`` run. This module holds
the parts of that which do not depend on who made the run: the schema name,
timestamps, the resume key, reading and appending the JSONL file, the sha256
of the task files and the version facts of the ``env`` block. Each adapter
builds its own records on top (:func:`pypddl_experiments.planners.records.make_record`,
:func:`pypddl_experiments.llm.runner.build_record`).

Writing is crash-safe: each record is one line, written with one
``os.write`` on an ``O_APPEND`` descriptor and then ``fsync``-ed, with SIGINT
and SIGTERM held back for those two calls. An exclusive ``flock`` keeps two
writers off the same file. A line cut off by a hard kill (power loss,
SIGKILL) is tolerated by :func:`read_records` and removed by the next writer
before it appends, so a resumed run never glues two records together.

This is adapter code (it does file I/O and runs ``git``); the engine modules
never import it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import fcntl
import hashlib
import json
import os
import platform
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pypddlengine import __version__

__all__ = [
    "RUN_SCHEMA",
    "ReadResult",
    "RecordWriter",
    "RecordsLocked",
    "environment_fields",
    "git_commit",
    "read_records",
    "record_key",
    "sha256_file",
    "utc_now",
]

RUN_SCHEMA = "pypddl.run/1"


def utc_now() -> str:
    """The current UTC time as ISO 8601 with milliseconds and a ``Z``."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def record_key(record: dict[str, Any]) -> tuple[str, str, int]:
    """The resume key: (method, instance_id, replicate)."""
    return (str(record.get("method")), str(record.get("instance_id")), int(record.get("replicate") or 0))


def sha256_file(path: str | Path) -> str:
    """The hex SHA-256 of a file's bytes (``domain_sha256``, ``problem_sha256``)."""
    with Path(path).open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


# ----------------------------------------------------------------------------- the env block


def git_commit(*, mark_dirty: bool = True) -> str | None:
    """``HEAD`` of the checkout this package runs from, or ``None`` outside
    one. With ``mark_dirty``, ``-dirty`` is appended when tracked files have
    uncommitted changes."""
    here = str(Path(__file__).resolve().parent)
    try:
        out = subprocess.run(
            ["git", "-C", here, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=False
        )
        if out.returncode != 0 or not out.stdout.strip():
            return None
        dirty = mark_dirty and bool(
            subprocess.run(
                ["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
                capture_output=True, text=True, timeout=10, check=False,
            ).stdout.strip()
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() + ("-dirty" if dirty else "")


def environment_fields(*, mark_dirty: bool = True) -> dict[str, Any]:
    """The ``env`` keys every run record has: ``git_commit``,
    ``engine_version``, ``python``, ``platform``, ``host`` (the machine that
    ran the run). Each adapter adds its ``sdk`` versions (and whatever else it
    records)."""
    return {
        "git_commit": git_commit(mark_dirty=mark_dirty),
        "host": platform.node(),
        "engine_version": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


# ----------------------------------------------------------------------------- reading the JSONL file


@dataclass
class ReadResult:
    """The records of a file; iterating a result iterates its records."""

    records: list[dict[str, Any]]
    bad_lines: int  # lines that are not a JSON object (a torn last line after a hard kill)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)


def read_records(path: str | Path, *, schema: str | None = RUN_SCHEMA) -> ReadResult:
    """All records of a JSONL file, in file order. A line that is not a JSON
    object (a torn last line) is counted in ``bad_lines`` and skipped;
    records of another ``schema`` are skipped (``schema=None`` keeps all).
    A missing file has no records."""
    p = Path(path)
    if not p.is_file():
        return ReadResult([], 0)
    records, bad = [], 0
    with p.open("rb") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:  # also a line cut inside a UTF-8 sequence
                bad += 1
                continue
            if not isinstance(rec, dict):
                bad += 1
                continue
            if schema is None or rec.get("schema") == schema:
                records.append(rec)
    return ReadResult(records, bad)


# ----------------------------------------------------------------------------- appending to it


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
    """Appends records to a JSONL file, one fsync-ed line each, holding an
    exclusive lock on the file until :meth:`close`.

    ``wait``: block until another writer lets go of the file instead of
    raising :class:`RecordsLocked`. ``default``: ``json.dumps``'s hook for
    values JSON has no type for (without one they raise ``TypeError``).
    """

    def __init__(
        self, path: str | Path, *, wait: bool = False, default: Callable[[Any], Any] | None = None
    ) -> None:
        self.path = Path(path)
        self._default = default
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BaseException as err:
            os.close(self._fd)
            self._fd = -1
            if isinstance(err, OSError) and err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
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
        """Append ``record`` as one line and sync it to disk."""
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=self._default) + "\n").encode()
        with self._lock, _signals_held():
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
