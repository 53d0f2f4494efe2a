"""Fast Downward batches on a local Ray instance: the same records as the
local executor; a worker killed mid-run and a driver killed mid-batch end,
after a resume, with every record exactly once."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fd_helpers import needs_fd
from ray_support import by_key, comparable, kill_group_of, needs_ray, processes_with, wait_for
from sigint_support import needs_sigint

from pypddl_experiments.planners import CONFIGS, read_records, run_batch
from pypddl_experiments.planners.records import record_key
from pypddl_experiments.runs.executors import ExecutorOptions
from pypddl_experiments.runs.tasks import bundled, discover
from pypddlengine.bundled import bundled_task

pytestmark = [*needs_fd, needs_ray]

RAY = ExecutorOptions("ray")
LAMA, SEQ = CONFIGS["lama-first"], CONFIGS["seq-sat-lama-2011"]


def test_ray_batch_gives_the_records_of_the_local_executor(tmp_path: Path, ray_instance: Any) -> None:
    tasks = bundled(["blocksworld/p02", "gripper/p01", "blocksworld-sizes/u01", "logistics/p01"])
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    a = run_batch(tasks, [LAMA], local, time_limit=20, workers=2, progress=False, experiment_id="same")
    stream = io.StringIO()
    b = run_batch(tasks, [LAMA], remote, time_limit=20, workers=2, stream=stream, experiment_id="same", executor=RAY)
    assert (a.written, b.written, b.executor, b.workers, b.lost) == (4, 4, "ray", 2, 0)
    assert "2 worker(s) on ray" in b.line() and stream.getvalue().count("\n") == 4
    ours, theirs = by_key(read_records(local).records), by_key(read_records(remote).records)
    assert ours.keys() == theirs.keys() == {(LAMA.method, t.instance_id, 0) for t in tasks}
    assert Counter(r["outcome"] for r in theirs.values()) == {"solved": 3, "early_exit": 1}
    for key, record in ours.items():
        assert comparable(theirs[key]) == comparable(record), key
        assert theirs[key]["env"]["host"] and theirs[key]["run_id"] != record["run_id"]
    again = run_batch(tasks, [LAMA], remote, time_limit=20, workers=2, progress=False, executor=RAY)
    assert (again.written, again.skipped) == (0, 4)  # resuming on Ray skips what is recorded


def _long_tasks(root: Path, count: int) -> list:
    """``count`` copies of a task seq-sat-lama-2011 keeps improving until the
    deadline, in a folder of this test (so its planners are recognisable)."""
    domain, problem = bundled_task("blocksworld/p07")
    folder = root / "tasks"
    folder.mkdir()
    shutil.copy(domain, folder / "domain.pddl")
    for i in range(count):
        shutil.copy(problem, folder / f"p{i:02d}.pddl")
    return discover(folder)


def _kill_worker_of(problem: Path, killed: list[int]) -> None:
    """Wait for the planner of ``problem``, then SIGKILL its parent (the Ray
    worker running the task) and the planner's own group (orphaned)."""
    def planners() -> list:
        return [p for p in processes_with(str(problem)) if "fast-downward.py" in " ".join(p.cmdline())]

    planner = wait_for(planners, 60, f"a planner on {problem.name}")[0]
    worker = planner.parent()
    assert worker is not None and "ray::" in " ".join(worker.cmdline())
    time.sleep(0.5)
    os.kill(worker.pid, signal.SIGKILL)
    killed.append(worker.pid)
    kill_group_of(planner.pid)


@pytest.mark.slow
@pytest.mark.parametrize("attempts", [3, 1])
def test_a_worker_killed_mid_run(tmp_path: Path, attempts: int, ray_instance: Any) -> None:
    """With retries the lost run is submitted again and recorded once; with
    none it is reported lost, unrecorded, and the resume records it once."""
    tasks = _long_tasks(tmp_path, 3)
    out = tmp_path / "runs.jsonl"
    killed: list[int] = []
    killer = threading.Thread(target=_kill_worker_of, args=(tasks[0].problem, killed))
    killer.start()
    options = ExecutorOptions("ray", max_attempts=attempts)
    summary = run_batch(tasks, [SEQ], out, time_limit=4, workers=2, progress=False, executor=options)
    killer.join()
    assert len(killed) == 1
    keys = [record_key(r) for r in read_records(out).records]
    assert len(keys) == len(set(keys))
    if attempts > 1:
        assert (summary.written, summary.resubmitted, summary.lost) == (3, 1, 0)
    else:
        assert (summary.written, summary.resubmitted, summary.lost) == (2, 0, 1)
        assert (SEQ.method, tasks[0].instance_id, 0) not in keys and "INCOMPLETE" in summary.line()
        resumed = run_batch(tasks, [SEQ], out, time_limit=4, workers=2, progress=False, executor=options)
        assert (resumed.written, resumed.skipped, resumed.lost) == (1, 2, 0)
        keys = [record_key(r) for r in read_records(out).records]
    assert sorted(keys) == sorted((SEQ.method, t.instance_id, 0) for t in tasks)
    assert all(r["outcome"] == "solved" for r in read_records(out).records)


@pytest.mark.slow
def test_a_driver_killed_mid_batch_then_resumed(tmp_path: Path) -> None:
    """``pypddl batch --executor ray`` killed with SIGKILL while runs are in
    flight: its private Ray instance goes with it, and the same command
    finishes the batch with every record exactly once."""
    tasks = _long_tasks(tmp_path, 6)
    out = tmp_path / "runs.jsonl"
    cmd = [sys.executable, "-m", "pypddlengine.cli", "batch", str(tmp_path / "tasks"), "-p", "seq-sat-lama-2011",
           "-t", "3", "-j", "2", "--executor", "ray", "-q", "-o", str(out)]
    import psutil

    driver = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(read_records(out).records) >= 2, 120, "two records")
        family = psutil.Process(driver.pid).children(recursive=True)
        assert any("raylet" in " ".join(p.cmdline()) for p in family)
        in_flight = [p for p in processes_with(str(tmp_path / "tasks")) if "fast-downward" in " ".join(p.cmdline())]
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    written = len(read_records(out).records)
    assert 2 <= written < 6

    def alive(name: str) -> list[psutil.Process]:
        found = []
        for p in family:
            with contextlib.suppress(psutil.Error):
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE and name in " ".join(p.cmdline()):
                    found.append(p)
        return found

    try:  # the instance shares the driver's fate: its core processes and workers end with it
        wait_for(lambda: not (alive("gcs_server") or alive("raylet") or alive("ray::_call")), 30,
                 "the killed driver's Ray instance and workers to end")
    finally:  # Ray's agents notice a minute or two later; planners end by their CPU limit (budget + 1 s)
        for p in alive(""):
            with contextlib.suppress(psutil.Error):
                p.kill()
        for planner in in_flight:
            kill_group_of(planner.pid)
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{6 - written} run(s) recorded now, {written} already recorded, 6 in all" in resumed.stderr
    keys = [record_key(r) for r in read_records(out).records]
    assert sorted(keys) == sorted((SEQ.method, t.instance_id, 0) for t in tasks)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [pytest.param(signal.SIGINT, marks=needs_sigint), signal.SIGTERM])
def test_a_ray_batch_stopped_like_ctrl_c(tmp_path: Path, sig: int) -> None:
    """The signal goes to the command's whole process group, as a terminal's
    Ctrl-C does (Ray's processes included): exit 130, every planner and Ray
    process gone, the runs in flight unrecorded, and the same command
    finishes the batch with every record exactly once."""
    tasks = _long_tasks(tmp_path, 4)
    out = tmp_path / "runs.jsonl"
    cmd = [sys.executable, "-m", "pypddlengine.cli", "batch", str(tmp_path / "tasks"), "-p", "seq-sat-lama-2011",
           "-t", "4", "-j", "2", "--executor", "ray", "-q", "-o", str(out)]
    driver = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        wait_for(lambda: read_records(out).records, 120, "a first record")
        os.killpg(driver.pid, sig)
        _, err = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 130, err
    assert "INTERRUPTED" in err
    assert not processes_with(str(tmp_path / "tasks"))  # no planner left

    def group_empty() -> bool:
        try:
            os.killpg(driver.pid, 0)
        except ProcessLookupError:
            return True
        return False

    try:
        wait_for(group_empty, 30, "the command's Ray processes to end")
    finally:  # the group this test made for the command
        with contextlib.suppress(ProcessLookupError):
            os.killpg(driver.pid, signal.SIGKILL)
    written = len(read_records(out).records)
    assert 1 <= written < 4
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert resumed.returncode == 0, resumed.stderr
    keys = [record_key(r) for r in read_records(out).records]
    assert sorted(keys) == sorted((SEQ.method, t.instance_id, 0) for t in tasks)


@pytest.mark.slow
def test_a_cluster_restart_mid_batch_then_resumed(tmp_path: Path) -> None:
    """A batch on a cluster (``ray start --head``, ``--ray-address``) whose
    cluster is killed mid-batch: Ray ends the driver, the records written
    are whole, and the same command on the restarted cluster finishes the
    batch with every record exactly once."""
    import secrets
    import socket
    import tempfile

    import psutil

    temp = Path(tempfile.mkdtemp(prefix="rt-", dir="/tmp"))  # short: Ray's socket paths have a length limit
    with socket.socket() as s:
        s.bind(("", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
           "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    head: list[psutil.Process] = []

    def start_head() -> None:
        subprocess.run([str(Path(sys.executable).parent / "ray"), "start", "--head", "--port", str(port),
                        "--num-cpus", "2", "--include-dashboard", "false", "--temp-dir", str(temp),
                        "--disable-usage-stats"], env=env, capture_output=True, check=True, timeout=180)
        roots = processes_with(str(temp))
        head.extend(roots + [c for p in roots for c in p.children(recursive=True)])

    def stop_head() -> None:  # the processes of the cluster this test started, by pid
        for p in head:
            with contextlib.suppress(psutil.Error):
                p.kill()
        head.clear()

    tasks = _long_tasks(tmp_path, 8)
    out = tmp_path / "runs.jsonl"
    cmd = [sys.executable, "-m", "pypddlengine.cli", "batch", str(tmp_path / "tasks"), "-p", "seq-sat-lama-2011",
           "-t", "3", "-j", "2", "--ray-address", f"127.0.0.1:{port}", "-q", "-o", str(out)]
    try:
        start_head()
        driver = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(lambda: len(read_records(out).records) >= 2, 120, "two records")
            in_flight = [p for p in processes_with(str(tmp_path / "tasks")) if "fast-downward" in " ".join(p.cmdline())]
            stop_head()
            assert driver.wait(timeout=240) != 0  # Ray ends a driver whose cluster is gone
        finally:
            if driver.poll() is None:
                driver.kill()
                driver.wait()
        for planner in in_flight:
            kill_group_of(planner.pid)
        written = len(read_records(out).records)
        assert 2 <= written < 8
        start_head()
        resumed = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)
        assert resumed.returncode == 0, resumed.stderr
        assert f"{8 - written} run(s) recorded now, {written} already recorded, 8 in all" in resumed.stderr
        keys = [record_key(r) for r in read_records(out).records]
        assert sorted(keys) == sorted((SEQ.method, t.instance_id, 0) for t in tasks)
    finally:
        stop_head()
        shutil.rmtree(temp, ignore_errors=True)
