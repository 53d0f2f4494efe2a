"""Run records: the shared pypddl.run/1 schema, crash-safe appends, torn
lines, and the lock against two writers. No planner needed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fd_helpers import task

from pypddl_experiments.planners.fd import CONFIGS, FDResult, FoundPlan
from pypddl_experiments.planners.outcomes import Outcome
from pypddl_experiments.planners.records import (
    SCHEMA,
    RecordsLocked,
    RecordWriter,
    environment,
    make_record,
    read_records,
    record_key,
)
from pypddl_experiments.runs.tasks import TaskRef

# the keys of notes/harness.md §6.4, in order
SCHEMA_KEYS = [
    "schema", "experiment_id", "run_id", "method", "instance_id", "domain_sha256", "problem_sha256", "replicate",
    "started_at", "wall_s", "budget_s", "outcome", "outcome_detail", "plan", "plan_length", "plan_valid",
    "validator", "crosscheck_valid", "attempts", "agent", "llm", "usage", "planner", "contaminated", "errors",
    "trace_file", "env",
]


def _task() -> TaskRef:
    d, p = task("blocksworld/p02")
    return TaskRef("blocksworld/p02", d, p)


def _solved() -> FDResult:
    steps = ("(pick-up a)", "(stack a b)")
    r = FDResult(Outcome.SOLVED, "1 plan found; exit 0 (solved)", CONFIGS["lama-first"], 180.0, 4096)
    r.wall_s, r.returncode, r.plan, r.plan_valid = 0.25, 0, steps, True
    r.plans = [FoundPlan("sas_plan", 0.2, steps, True, True, 2, True, "valid")]
    return r


def test_record_has_the_shared_schema_keys_in_order() -> None:
    rec = make_record(_solved(), _task(), replicate=0, started_at="2026-01-01T00:00:00Z", env={"x": 1})
    assert list(rec)[: len(SCHEMA_KEYS)] == SCHEMA_KEYS
    assert set(rec) - set(SCHEMA_KEYS) == {"extra"}
    assert rec["schema"] == SCHEMA and rec["method"] == "fd-lama-first"
    assert rec["outcome"] == "solved" and rec["outcome_detail"] == "validated"
    assert rec["plan"] == ["(pick-up a)", "(stack a b)"] and rec["plan_length"] == 2 and rec["plan_valid"] is True
    planner = rec["planner"]
    assert list(planner)[:4] == ["alias", "returncode", "plans_found", "last_plan_s"]
    assert planner["alias"] == "lama-first" and planner["plans_found"] == 1 and planner["last_plan_s"] == 0.2
    assert len(rec["domain_sha256"]) == 64 and rec["domain_sha256"] != rec["problem_sha256"]
    json.dumps(rec)  # serialisable


def test_unsolved_and_invalid_records() -> None:
    r = FDResult(Outcome.UNSOLVABLE, "search proved the task unsolvable", CONFIGS["lama-first"], 5.0, 4096)
    rec = make_record(r, _task(), replicate=2, started_at="t", env={})
    assert (rec["outcome"], rec["outcome_detail"]) == ("early_exit", "proved_unsolvable")
    assert rec["plan"] is None and rec["plan_valid"] is None and rec["replicate"] == 2
    assert "log_tail" in rec["planner"]
    bad = _solved()
    bad.outcome, bad.plan_valid = Outcome.PLANNER_ERROR, False
    rec = make_record(bad, _task(), replicate=0, started_at="t", env={})
    assert (rec["outcome"], rec["outcome_detail"]) == ("error", "invalid_final")


def test_environment_names_versions() -> None:
    env = environment()
    assert env["engine_version"] and env["python"] and "up-fast-downward" in env["sdk"]
    assert env["host"] and set(env["fast_downward"]) == {"wheel", "release", "git_revision"}


def test_writer_appends_whole_lines_and_reader_skips_a_torn_one(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    with RecordWriter(path) as w:
        for i in range(3):
            w.write({"schema": SCHEMA, "method": "m", "instance_id": f"t{i}", "replicate": 0})
    assert path.read_bytes().count(b"\n") == 3
    with path.open("ab") as f:  # a hard kill in the middle of a line
        f.write(b'{"schema": "pypddl.run/1", "method": "m", "inst')
    read = read_records(path)
    assert [r["instance_id"] for r in read.records] == ["t0", "t1", "t2"] and read.bad_lines == 1
    with RecordWriter(path) as w:  # the next writer cuts the torn tail before appending
        assert w.repaired > 0
        w.write({"schema": SCHEMA, "method": "m", "instance_id": "t3", "replicate": 0})
    read = read_records(path)
    assert [r["instance_id"] for r in read.records] == ["t0", "t1", "t2", "t3"] and read.bad_lines == 0
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_torn_file_without_any_newline_is_emptied(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"schema": "pypddl.r')
    with RecordWriter(path) as w:
        assert w.repaired == len(b'{"schema": "pypddl.r')
    assert path.read_bytes() == b""


def test_two_writers_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    with RecordWriter(path), pytest.raises(RecordsLocked):
        RecordWriter(path)
    RecordWriter(path).close()  # free again


def test_record_key_and_foreign_lines(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text('{"schema": "other/1"}\n[1, 2]\n' + json.dumps({"schema": SCHEMA, "method": "fd-x",
                                                                    "instance_id": "i", "replicate": 3}) + "\n")
    read = read_records(path)
    assert [record_key(r) for r in read.records] == [("fd-x", "i", 3)] and read.bad_lines == 1


def test_write_is_fast_enough_for_fsync_per_record(tmp_path: Path) -> None:
    start = time.monotonic()
    with RecordWriter(tmp_path / "r.jsonl") as w:
        for i in range(20):
            w.write({"schema": SCHEMA, "i": i})
    assert time.monotonic() - start < 5
