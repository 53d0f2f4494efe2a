"""The shared run-record module (pypddl_experiments.runs.records): the tolerant reader,
the locked, crash-safe writer, the resume key, and that both adapters use
these very functions.

(Named test_shared_records.py: tests/baselines/test_records.py already takes
the module name ``test_records`` in pytest's default import mode.)"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import pypddl_experiments.runs.records as shared
from pypddl_experiments.runs.records import (
    RUN_SCHEMA,
    RecordsLocked,
    RecordWriter,
    environment_fields,
    read_records,
    record_key,
    sha256_file,
)

ROOT = Path(__file__).resolve().parents[2]


def rec(instance: str, replicate: int = 0, method: str = "m") -> dict:
    return {"schema": RUN_SCHEMA, "method": method, "instance_id": instance, "replicate": replicate}


# ----------------------------------------------------------------------------- reading


def test_reader_skips_a_torn_last_line_and_foreign_records(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    lines = [json.dumps(rec("a")), json.dumps({"schema": "other/1"}), "[1, 2]", "", json.dumps(rec("b"))]
    torn = json.dumps(rec("café")).encode()[:-10]  # cut mid-record
    path.write_bytes(("\n".join(lines) + "\n").encode() + torn)
    read = read_records(path)
    assert [r["instance_id"] for r in read] == ["a", "b"] and len(read) == 2
    assert read.bad_lines == 2  # the list and the torn line
    assert len(read_records(path, schema=None).records) == 3  # the foreign schema too
    assert read_records(tmp_path / "missing.jsonl").records == []
    assert read_records(tmp_path).records == []  # a folder is no records file


def test_reader_tolerates_a_line_cut_inside_a_utf8_character(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    whole = (json.dumps(rec("a"), ensure_ascii=False) + "\n").encode()
    cut = json.dumps(rec("ü" * 5), ensure_ascii=False).encode()
    cut = cut[: cut.index("ü".encode()) + 1]  # half of a two-byte character
    path.write_bytes(whole + cut)
    read = read_records(path)
    assert [r["instance_id"] for r in read] == ["a"] and read.bad_lines == 1


# ----------------------------------------------------------------------------- writing


def test_writer_cuts_a_torn_tail_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    with RecordWriter(path) as w:
        assert w.repaired == 0
        w.write(rec("a"))
    tail = b'{"schema":"pypddl.run/1","method":"m","instance_id":"b","repl'
    with path.open("ab") as f:  # a hard kill in the middle of the second record
        f.write(tail)
    with RecordWriter(path) as w:
        assert w.repaired == len(tail)
        w.write(rec("c"))
    assert path.read_bytes().count(b"\n") == 2
    read = read_records(path)
    assert [r["instance_id"] for r in read] == ["a", "c"] and read.bad_lines == 0


def test_writer_lines_are_compact_json_with_an_optional_default(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    with RecordWriter(path, default=str) as w:
        w.write({"schema": RUN_SCHEMA, "where": Path("/x"), "name": "é"})
    assert path.read_text(encoding="utf-8") == '{"schema":"pypddl.run/1","where":"/x","name":"é"}\n'
    with RecordWriter(path) as w, pytest.raises(TypeError):
        w.write({"where": Path("/x")})  # no default: nothing JSON cannot say is written
    assert path.read_bytes().count(b"\n") == 1


def test_keys_are_recorded_exactly_once_across_a_crash_and_a_resume(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    wanted = [("m", f"t{i}", r) for i in range(4) for r in range(2)]
    with RecordWriter(path) as w:
        for method, instance, r in wanted[:3]:
            w.write(rec(instance, r, method))
    with path.open("ab") as f:  # the fourth run was being written when the machine died
        f.write(json.dumps(rec("t1", 1)).encode()[:20])
    for _ in range(2):  # resume twice: the second resume finds nothing to do
        with RecordWriter(path) as w:
            done = {record_key(r) for r in read_records(path)}
            for method, instance, r in wanted:
                if (method, instance, r) not in done:
                    w.write(rec(instance, r, method))
    keys = [record_key(r) for r in read_records(path)]
    assert sorted(keys) == sorted(wanted) and len(keys) == len(set(keys))


def test_record_key_defaults() -> None:
    assert record_key({"method": "fd-x", "instance_id": "i", "replicate": 3}) == ("fd-x", "i", 3)
    assert record_key({"method": "m", "instance_id": "i", "replicate": None}) == ("m", "i", 0)
    assert record_key({}) == ("None", "None", 0)


# ----------------------------------------------------------------------------- the lock


def test_a_second_writer_is_refused_while_the_first_holds_the_file(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    with RecordWriter(path):
        with pytest.raises(RecordsLocked):
            RecordWriter(path)
        other = subprocess.run(  # another process, as a second batch would be
            [sys.executable, "-c",
             "import sys; from pypddl_experiments.runs.records import RecordWriter, RecordsLocked\n"
             "try:\n    RecordWriter(sys.argv[1])\nexcept RecordsLocked:\n    sys.exit(3)\n",
             str(path)],
            capture_output=True, text=True, timeout=60, check=False,
        )
        assert other.returncode == 3, other.stderr
    RecordWriter(path).close()  # free again


def test_a_waiting_writer_appends_once_the_file_is_free(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    first = RecordWriter(path)
    first.write(rec("a"))

    def second() -> None:
        with RecordWriter(path, wait=True) as w:
            w.write(rec("b"))

    t = threading.Thread(target=second)
    t.start()
    time.sleep(0.3)
    assert [r["instance_id"] for r in read_records(path)] == ["a"]  # still waiting
    first.close()
    t.join(10)
    assert not t.is_alive()
    assert [r["instance_id"] for r in read_records(path)] == ["a", "b"]


# ----------------------------------------------------------------------------- signals


def test_sigint_is_held_back_until_the_line_is_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        pytest.skip("signal masks need the main thread of a POSIX process")
    path = tmp_path / "runs.jsonl"
    events: list[str] = []
    real_fsync = shared.os.fsync

    def fsync(fd: int) -> None:  # Ctrl-C arrives between write() and fsync()
        signal.raise_signal(signal.SIGINT)
        events.append("pending" if signal.SIGINT in signal.sigpending() else "not held")
        real_fsync(fd)
        events.append("synced")

    old = signal.signal(signal.SIGINT, lambda *_: events.append("interrupted"))
    try:
        with RecordWriter(path) as w:
            monkeypatch.setattr(shared.os, "fsync", fsync)
            w.write(rec("a"))
            monkeypatch.undo()
            for _ in range(1000):  # the handler runs at the next bytecode boundary
                if "interrupted" in events:
                    break
                time.sleep(0.001)
    finally:
        signal.signal(signal.SIGINT, old)
    assert events == ["pending", "synced", "interrupted"]
    assert [r["instance_id"] for r in read_records(path)] == ["a"]


# ----------------------------------------------------------------------------- the rest


def test_sha256_file(tmp_path: Path) -> None:
    path = tmp_path / "d.pddl"
    path.write_bytes(b"(define (domain d))\n")
    assert sha256_file(path) == hashlib.sha256(b"(define (domain d))\n").hexdigest() == sha256_file(str(path))


def test_environment_fields() -> None:
    env = environment_fields(mark_dirty=False)
    assert list(env) == ["git_commit", "host", "engine_version", "python", "platform"]
    assert env["git_commit"] is None or not env["git_commit"].endswith("-dirty")


def test_both_adapters_use_the_shared_functions() -> None:
    from pypddl_experiments.llm import records as harness
    from pypddl_experiments.planners import records as fd

    assert fd.SCHEMA == harness.RUN_SCHEMA == RUN_SCHEMA
    assert fd.read_records is harness.read_records is read_records
    assert fd.record_key is harness.run_key is record_key
    assert fd.utc_now is harness.utc_now is shared.utc_now
    assert fd.RecordWriter is RecordWriter and fd.RecordsLocked is RecordsLocked


def test_results_store_appends_through_the_locked_writer(tmp_path: Path) -> None:
    from pypddl_experiments.llm.records import ResultsStore

    store = ResultsStore(tmp_path / "exp")
    store.append(rec("a") | {"trace_file": Path("traces/a.jsonl"), "tags": ("x",)})
    runs = store.runs_path
    with runs.open("ab") as f:
        f.write(b'{"schema":"pypddl.run/1","meth')  # a harness killed while appending
    holder = RecordWriter(runs)  # e.g. another process appending right now
    t = threading.Thread(target=store.append, args=(rec("b"),))
    t.start()
    time.sleep(0.3)
    assert [r["instance_id"] for r in store.records()] == ["a"]  # it waits for the lock
    holder.close()
    t.join(10)
    assert not t.is_alive()
    assert runs.read_text().splitlines()[0] == (
        '{"schema":"pypddl.run/1","method":"m","instance_id":"a","replicate":0,'
        '"trace_file":"traces/a.jsonl","tags":["x"]}'
    )
    read = read_records(runs)
    assert [r["instance_id"] for r in read] == ["a", "b"] and read.bad_lines == 0  # the torn line is gone
    assert set(store.latest()) == {("m", "a", 0), ("m", "b", 0)}


# ----------------------------------------------------------------------------- layering


def test_shared_module_stays_an_adapter_helper() -> None:
    from test_layering import MODULES, imports

    engine_users = [
        f"{p.relative_to(ROOT)}:{line}"
        for name, p in MODULES.items() if name.split(".")[0] == "pypddlengine"
        for module, line in imports(p)
        if module.startswith("pypddl_experiments.runs.records")
    ]
    assert not engine_users, engine_users
    forbidden = {"click", "mcp", "pydantic", "anthropic", "openai", "httpx", "httpx2"}
    used = {module.split(".")[0] for module, _ in imports(Path(shared.__file__).resolve())}
    assert not used & forbidden
