"""Run records, traces and the manifest of an experiment folder.

Layout of ``results/<name>/``::

    manifest.json                         configuration, prompt hashes, versions, tasks
    runs.jsonl                            one ``pypddl.run/1`` record per run, append-only
    traces/<method>/<instance>/r<k>.jsonl every model turn and tool call of one run

``runs.jsonl`` is appended one line at a time and synced to disk, so a crash
loses at most the run in progress. Reading and appending use
:mod:`pypddl_experiments.runs.records`, shared with the Fast Downward runner: a running
experiment holds the file's lock from start to end (:meth:`ResultsStore.locked`),
so a second ``pypddl experiment run`` on the same folder is refused
(:class:`RecordsLocked`) instead of writing beside it, and the first append
cuts a line torn by a hard kill.
Resuming skips every ``(method, instance_id, replicate)`` that already has a
record; when a key appears more than once (a rerun of failed runs) the last
record counts.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pypddl_experiments.runs.records import (
    RUN_SCHEMA,
    RecordsLocked,
    RecordWriter,
    environment_fields,
    read_records,
    utc_now,
)
from pypddl_experiments.runs.records import record_key as run_key

__all__ = [
    "RUN_SCHEMA",
    "ManifestMismatch",
    "RecordsLocked",
    "ResultsStore",
    "TraceWriter",
    "env_info",
    "read_records",
    "run_key",
    "utc_now",
]

MANIFEST_SCHEMA = "pypddl.manifest/1"


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return repr(value)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=_json_default, separators=(",", ":"))


class TraceWriter:
    """One run's events as JSON lines: ``{"run_id","seq","t","type",...}``
    with ``t`` in seconds since the run started (on the run's clock)."""

    def __init__(self, path: Path | None, run_id: str, clock: Any, start: float) -> None:
        self.path = path
        self.run_id = run_id
        self.clock = clock
        self.start = start
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        self._fh = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = path.open("w", encoding="utf-8")

    def event(self, type_: str, **fields: Any) -> dict[str, Any]:
        self.seq += 1
        event = {"run_id": self.run_id, "seq": self.seq, "t": round(self.clock() - self.start, 4), "type": type_}
        event.update(fields)
        event = json.loads(dumps(event))
        self.events.append(event)
        if self._fh is not None:
            self._fh.write(dumps(event) + "\n")
            self._fh.flush()
        return event

    def close(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None


class ManifestMismatch(Exception):
    """The results folder holds runs made with another configuration."""


class ResultsStore:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.runs_path = self.root / "runs.jsonl"
        self.manifest_path = self.root / "manifest.json"
        self._lock = threading.Lock()
        self._writer: RecordWriter | None = None

    @contextlib.contextmanager
    def locked(self) -> Iterator[ResultsStore]:
        """Hold ``runs.jsonl``'s lock for a whole experiment; raises
        :class:`RecordsLocked` at once when another process holds it."""
        self.root.mkdir(parents=True, exist_ok=True)
        existed = self.runs_path.exists()
        writer = RecordWriter(self.runs_path, default=_json_default)
        self._writer = writer
        try:
            yield self
        finally:
            with self._lock:
                self._writer = None
                if not existed and self.runs_path.stat().st_size == 0:
                    self.runs_path.unlink()  # an experiment that stopped before its first run leaves no file
                writer.close()

    def records(self) -> list[dict[str, Any]]:
        return read_records(self.runs_path).records

    def latest(self) -> dict[tuple[str, str, int], dict[str, Any]]:
        out: dict[tuple[str, str, int], dict[str, Any]] = {}
        for record in self.records():
            out[run_key(record)] = record
        return out

    def done_keys(self, *, rerun_outcomes: Iterable[str] = (), rerun_contaminated: bool = False) -> set:
        """Keys whose last record stands: not an outcome asked to be rerun,
        not contaminated when those are rerun, and not an error that says
        nothing about the model (``RERUN_ON_RESUME``: an unreachable
        endpoint, a lost connection, ...), which is always run again."""
        from .outcome import RERUN_ON_RESUME

        redo = set(rerun_outcomes)
        keys = set()
        for key, record in self.latest().items():
            if record.get("outcome") in redo or (rerun_contaminated and record.get("contaminated")):
                continue
            if record.get("outcome") == "error" and record.get("outcome_detail") in RERUN_ON_RESUME:
                continue
            keys.add(key)
        return keys

    def append(self, record: dict[str, Any]) -> None:
        """Append ``record`` to ``runs.jsonl`` as one synced line, through
        the lock :meth:`locked` holds, or else taking the file's lock for this
        append (waiting while another process appends)."""
        with self._lock:
            if self._writer is not None:
                self._writer.write(record)
                return
            with RecordWriter(self.runs_path, wait=True, default=_json_default) as writer:
                writer.write(record)

    def trace_path(self, method: str, instance_id: str, replicate: int) -> Path:
        return self.root / "traces" / _safe(method) / _safe(instance_id) / f"r{replicate}.jsonl"

    def relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    # ------------------------------------------------------------ manifest

    def read_manifest(self) -> dict[str, Any] | None:
        if not self.manifest_path.is_file():
            return None
        return json.loads(self.manifest_path.read_text(encoding="utf-8"))

    def open_manifest(self, manifest: dict[str, Any], *, force: bool = False) -> dict[str, Any]:
        """Write ``manifest`` for a new experiment or check that a resumed
        one was made with the same configuration (``config_sha256``)."""
        manifest = dict(manifest)
        manifest["schema"] = MANIFEST_SCHEMA
        manifest["config_sha256"] = config_hash(manifest["config"])
        old = self.read_manifest()
        if old is not None and not force and old.get("config_sha256") != manifest["config_sha256"]:
            changed = sorted(
                k for k in set(old.get("config", {})) | set(manifest["config"])
                if config_hash({k: old.get("config", {}).get(k)}) != config_hash({k: manifest["config"].get(k)})
            )
            raise ManifestMismatch(
                f"{self.root} holds runs made with another configuration (changed: {', '.join(changed)}); "
                "use a new --out folder, or --force to mix them"
            )
        if old is not None:
            manifest["created_at"] = old.get("created_at", manifest.get("created_at"))
            manifest["sessions"] = [*old.get("sessions", []), *manifest.get("sessions", [])]
        self.write_manifest(manifest)
        return manifest

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.manifest_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False, default=_json_default) + "\n")
        tmp.replace(self.manifest_path)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name) or "_"


def config_hash(config: dict[str, Any]) -> str:
    """The hash a resumed experiment must match. The endpoint's URL is left
    out: correcting a wrong ``--base-url`` and resuming is the way to redo
    the runs it failed (each record and session keeps the URL it used)."""
    config = dict(config)
    if isinstance(config.get("llm"), dict):
        config["llm"] = {k: v for k, v in config["llm"].items() if k != "base_url"}
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=_json_default).encode()).hexdigest()


_ENV_CACHE: dict[str, Any] | None = None


def env_info() -> dict[str, Any]:
    """Versions of Python, the engine and the SDKs, and the git commit."""
    global _ENV_CACHE
    if _ENV_CACHE is not None:
        return _ENV_CACHE
    from importlib import metadata

    sdk: dict[str, str | None] = {}
    for dist in ("anthropic", "openai", "mcp", "httpx2", "matplotlib", "scipy"):
        try:
            sdk[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            sdk[dist] = None
    # the harness has always recorded the bare commit, without the Fast
    # Downward runner's "-dirty" mark
    _ENV_CACHE = {**environment_fields(mark_dirty=False), "sdk": sdk}
    return _ENV_CACHE


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {"cpu_count": os.cpu_count(), "executable": sys.executable}
    try:
        info["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        info["loadavg"] = None
    return info
