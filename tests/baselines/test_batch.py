"""Batch runs: records for every (configuration, task), resume, and a batch
killed midway (Ctrl-C, SIGTERM, SIGKILL) that ends, after a re-run, with
every record present exactly once and no planner left running."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from fd_helpers import needs_fd, needs_val, processes_mentioning, task, wait_until_gone
from sigint_support import needs_sigint

from pypddl_experiments.generators import blocksworld
from pypddl_experiments.planners import CONFIGS, read_records, run_batch
from pypddl_experiments.planners.batch import IncompatibleRecords
from pypddl_experiments.planners.records import RecordsLocked, RecordWriter, record_key
from pypddl_experiments.runs.tasks import bundled
from pypddlengine import load_task, validate_plan

pytestmark = needs_fd

BOTH = [CONFIGS["lama-first"], CONFIGS["seq-sat-lama-2011"]]


def _check_all_valid(records: list[dict]) -> None:
    for r in records:
        if r["outcome"] == "solved":
            lifted = load_task(r["extra"]["domain"], r["extra"]["problem"])
            assert validate_plan(lifted, r["plan"]).valid and r["plan_valid"] is True


def test_batch_records_every_run_once_and_resumes(tmp_path: Path) -> None:
    tasks = bundled(["blocksworld/p02", "gripper/p01", "blocksworld-sizes/u01"])
    out = tmp_path / "runs.jsonl"
    stream = io.StringIO()
    summary = run_batch(tasks, BOTH, out, time_limit=3, workers=2, stream=stream, experiment_id="t1")
    assert summary.written == 6 and summary.skipped == 0 and not summary.interrupted
    records = read_records(out).records
    assert sorted(record_key(r) for r in records) == sorted(
        (c.method, t.instance_id, 0) for c in BOTH for t in tasks
    )
    assert Counter(r["outcome"] for r in records) == {"solved": 4, "early_exit": 2}
    assert all(r["experiment_id"] == "t1" and r["extra"]["workers"] == 2 for r in records)
    assert all("load_1m" in r["extra"] for r in records)
    _check_all_valid(records)
    assert stream.getvalue().count("\n") == 6  # one progress line per run when not on a terminal
    again = run_batch(tasks, BOTH, out, time_limit=3, workers=2, progress=False)
    assert again.written == 0 and again.skipped == 6
    assert len(read_records(out).records) == 6
    more = run_batch(tasks, BOTH, out, time_limit=3, workers=1, replicates=2, progress=False)
    assert more.written == 6 and more.skipped == 6
    keys = [record_key(r) for r in read_records(out).records]
    assert len(keys) == len(set(keys)) == 12


@needs_val
def test_batch_crosscheck_with_val(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    run_batch(bundled(["gripper/p02", "blocksworld-sizes/u02"]), BOTH[:1], out, time_limit=5, crosscheck=True,
              progress=False)
    by_id = {r["instance_id"]: r for r in read_records(out).records}
    assert by_id["gripper/p02"]["crosscheck_valid"] is True
    assert by_id["blocksworld-sizes/u02"]["crosscheck_valid"] is None  # no plan to check


def test_resuming_with_another_budget_is_refused(tmp_path: Path) -> None:
    tasks = bundled(["blocksworld/p02"])
    out = tmp_path / "runs.jsonl"
    run_batch(tasks, BOTH[:1], out, time_limit=3, progress=False)
    with pytest.raises(IncompatibleRecords):
        run_batch(tasks, BOTH[:1], out, time_limit=4, progress=False)
    with pytest.raises(IncompatibleRecords):
        run_batch(tasks, BOTH[:1], out, time_limit=3, memory_mb=2048, progress=False)


def _task_dir(root: Path, count: int) -> Path:
    """Blocksworld tasks on which seq-sat-lama-2011 keeps improving until the
    deadline (15 blocks), so each of its runs takes the whole budget."""
    folder = root / "tasks"
    folder.mkdir()
    (folder / "domain.pddl").write_text(task("blocksworld/p01")[0].read_text())
    for i in range(1, count + 1):
        (folder / f"bw-{i}.pddl").write_text(blocksworld(15, 100 + i, name=f"bw-{i}"))
    return folder


def _batch_cmd(folder: Path, out: Path, budget: float) -> list[str]:
    return [sys.executable, "-m", "pypddlengine.cli", "batch", str(folder), "-p", "lama-first",
            "-p", "seq-sat-lama-2011", "-t", str(budget), "-j", "1", "-o", str(out), "-q"]


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.parametrize("sig", [
    pytest.param(signal.SIGINT, id="SIGINT", marks=needs_sigint),
    pytest.param(signal.SIGKILL, id="SIGKILL"),
    pytest.param(signal.SIGTERM, id="SIGTERM", marks=pytest.mark.slow),
])
def test_batch_killed_midway_then_rerun_has_every_record_exactly_once(tmp_path: Path, sig: int) -> None:
    count, budget = 3, 1.5
    folder = _task_dir(tmp_path, count)
    out = tmp_path / "runs.jsonl"
    proc = subprocess.Popen(_batch_cmd(folder, out, budget), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while _lines(out) < count + 1:  # every lama-first run and the first seq-sat run are recorded
            assert proc.poll() is None, proc.stderr.read().decode()  # type: ignore[union-attr]
            assert time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.3)  # well inside the next seq-sat run (it takes the whole 1.5 s)
        if sig != signal.SIGKILL:
            with pytest.raises(RecordsLocked):
                RecordWriter(out)
        proc.send_signal(sig)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    written = read_records(out).records
    assert count + 1 <= len(written) < 2 * count
    if sig == signal.SIGKILL:
        assert code == -signal.SIGKILL
        # the planner's watchdog kills its group as soon as the batch is gone
        assert wait_until_gone(str(folder), timeout=3) == []
    else:
        assert code == 130
        assert wait_until_gone(str(folder), timeout=2) == []  # the batch killed its planners itself
        assert read_records(out).bad_lines == 0
    rerun = subprocess.run(_batch_cmd(folder, out, budget), capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{len(written)} already recorded" in rerun.stderr
    final = read_records(out)
    assert final.bad_lines == 0
    keys = [record_key(r) for r in final.records]
    assert sorted(keys) == sorted(
        (method, f"bw-{i}", 0) for method in ("fd-lama-first", "fd-seq-sat-lama-2011") for i in range(1, count + 1)
    )
    assert all(r["outcome"] == "solved" for r in final.records)
    _check_all_valid(final.records)
    assert all(line.endswith("}") for line in out.read_text().splitlines())


def test_cli_batch_bad_inputs(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pypddlengine.cli", "batch", *args],
                              capture_output=True, text=True, timeout=60)

    assert run(str(tmp_path)).returncode == 2  # no tasks in an empty folder
    r = run("--bundled", "-k", "gripper/p01", "-p", "no-such-alias", "-o", str(tmp_path / "x.jsonl"))
    assert r.returncode == 2 and "unknown Fast Downward alias" in r.stderr
    r = run("--bundled", "-k", "nothing-matches", "-o", str(tmp_path / "x.jsonl"))
    assert r.returncode == 2
    out = tmp_path / "runs.jsonl"
    assert run("--bundled", "-k", "gripper/p01", "-t", "5", "-o", str(out), "-q").returncode == 0
    r = run("--bundled", "-k", "gripper/p01", "-t", "6", "-o", str(out), "-q")
    assert r.returncode == 2 and "5 s budget" in r.stderr
    assert os.path.getsize(out) > 0


def test_kill_9_of_batch_takes_its_planner_along_and_the_next_run_removes_its_temp_folder(tmp_path: Path) -> None:
    """A long run (100 blocks, 60 s budget) and ``kill -9`` of the batch
    while the planner is under way: the planner's watchdog kills its process
    group at once (not after Fast Downward's own CPU limit), and the
    temporary run folder the batch left is removed by the next run."""
    from pypddl_experiments.planners.fd import sweep_stale_run_dirs

    folder = tmp_path / "tasks"
    folder.mkdir()
    domain, problem = task("blocksworld/p11")
    (folder / "domain.pddl").write_text(domain.read_text())
    (folder / "p11.pddl").write_text(problem.read_text())
    temp = tmp_path / "tmp"
    temp.mkdir()
    out = tmp_path / "runs.jsonl"
    cmd = [sys.executable, "-m", "pypddlengine.cli", "batch", str(folder), "-p", "lama-first", "-t", "60",
           "-j", "1", "-o", str(out), "-q"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "TMPDIR": str(temp)})
    try:
        deadline = time.monotonic() + 60
        while not processes_mentioning(str(folder)[:-1] + "s/p11"):  # the planner has started on p11
            assert proc.poll() is None, proc.stderr.read().decode()  # type: ignore[union-attr]
            assert time.monotonic() < deadline
            time.sleep(0.1)
        time.sleep(0.5)
        left = list(temp.glob("pypddl-fd-*"))
        assert len(left) == 1 and (left[0] / "owner.pid").read_text().split()[0] == str(proc.pid)
        proc.kill()
        assert proc.wait(timeout=10) == -signal.SIGKILL
        assert wait_until_gone(str(folder / "p11"), timeout=3) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert sweep_stale_run_dirs(temp) == left and not left[0].exists()
    live = temp / "pypddl-fd-live"
    live.mkdir()
    (live / "owner.pid").write_text(f"{os.getpid()} ")
    assert sweep_stale_run_dirs(temp) == [] and live.exists()  # a live owner's folder stays
