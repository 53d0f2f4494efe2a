"""The executor abstraction without Ray: options, the local executor, task
files that travel with their runs, the worker-side record of a planner run,
and Ray imported only when asked for."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from pypddl_experiments.runs import executors
from pypddl_experiments.runs.executors import (
    ExecutorOptions,
    LocalExecutor,
    ShippedFile,
    ShippedTask,
    make_executor,
    options_from_cli,
)


def test_options_are_checked() -> None:
    assert not ExecutorOptions().remote and ExecutorOptions("ray").remote
    with pytest.raises(ValueError, match="unknown executor"):
        ExecutorOptions("dask")
    with pytest.raises(ValueError, match="needs the ray executor"):
        ExecutorOptions("local", address="auto")
    with pytest.raises(ValueError, match="positive"):
        ExecutorOptions("ray", cpus_per_run=0)
    with pytest.raises(ValueError, match="at least 1"):
        ExecutorOptions("ray", max_attempts=0)


def test_command_line_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(executors, "ray_available", lambda: True)
    assert options_from_cli(None, None, None) == ExecutorOptions("local")
    assert options_from_cli(None, "auto", None) == ExecutorOptions("ray", address="auto")  # the address implies Ray
    assert options_from_cli("ray", None, 0.5) == ExecutorOptions("ray", cpus_per_run=0.5)
    with pytest.raises(click.UsageError, match="need --executor ray"):
        options_from_cli("local", "auto", None)
    with pytest.raises(click.UsageError, match="need --executor ray"):
        options_from_cli(None, None, 2.0)
    monkeypatch.setattr(executors, "ray_available", lambda: False)
    with pytest.raises(click.UsageError, match=r"pip install 'pypddlengine\[ray\]'"):
        options_from_cli("ray", None, None)


@pytest.mark.parametrize("args", [["batch", "--bundled"], ["experiment", "run", "--method", "direct", "--provider",
                                                            "openai", "--model", "m", "--tasks", "blocksworld/p01",
                                                            "--out", "unused"]])
def test_commands_refuse_ray_when_it_is_missing(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    from pypddlengine.cli import main

    monkeypatch.setattr(executors, "ray_available", lambda: False)
    result = CliRunner().invoke(main, [*args, "--executor", "ray"])
    assert result.exit_code == 2 and "pip install 'pypddlengine[ray]'" in result.output


def test_ray_is_imported_only_when_asked_for() -> None:
    code = (
        "import sys\n"
        "import pypddl_experiments.runs.executors, pypddl_experiments.planners.batch, pypddl_experiments.planners.cli\n"
        "import pypddl_experiments.llm.runner, pypddl_experiments.llm.cli, pypddl_experiments.llm.remote\n"
        "from pypddl_experiments.runs.executors import make_executor\n"
        "make_executor(None, slots=2, cpus_per_run=1.0, default_slots=lambda: 1).close()\n"
        "assert 'ray' not in sys.modules, 'ray was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def test_local_executor_reports_values_errors_and_cancels() -> None:
    seen: list[threading.Event] = []

    def work(x: int, *, cancel: threading.Event) -> int:
        seen.append(cancel)
        if x < 0:
            raise ValueError("negative")
        if x == 99:  # runs until cancelled, like a planner waiting out its budget
            while not cancel.wait(0.01):
                pass
            return -99
        return x * 2

    runner = make_executor(None, slots=None, cpus_per_run=1.0, default_slots=lambda: 2)
    assert isinstance(runner, LocalExecutor) and runner.slots == 2 and not runner.remote
    runner.submit("a", work, 3)
    runner.submit("b", work, -1)
    assert not runner.has_room()
    results: dict[Any, Any] = {}
    while runner.in_flight:
        for done in runner.wait(timeout=5):
            results[done.key] = done
    assert results["a"].result() == 6
    with pytest.raises(ValueError, match="negative"):
        results["b"].result()
    runner.submit("c", work, 99)
    assert runner.wait(timeout=0.05) == []
    runner.cancel()
    assert not runner.has_room()  # nothing new starts once cancelled
    (done,) = runner.wait(timeout=5)
    assert done.key == "c" and done.result() == -99
    runner.close()
    assert all(event is runner.cancel_event for event in seen)


def test_a_shipped_file_is_used_in_place_or_copied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(executors.tempfile, "gettempdir", lambda: str(tmp_path / "worker-tmp"))
    problem = tmp_path / "tasks" / "p01.pddl"
    problem.parent.mkdir()
    problem.write_text("(define (problem p01) (:domain d))\n")
    shipped = ShippedFile.read(problem)
    assert shipped.local_path() == problem  # this machine holds the same bytes there
    problem.write_text("(define (problem p01) (:domain other))\n")  # another machine's file of the same name
    copy = shipped.local_path()
    assert copy != problem and copy.name == "p01.pddl" and copy.read_bytes() == shipped.data
    assert copy.parent == tmp_path / "worker-tmp" / "pypddl-shipped" / shipped.sha256
    problem.unlink()  # a machine without the file
    assert shipped.local_path() == copy
    task = ShippedTask.read(copy, copy)
    assert task.local_paths() == (copy, copy)


def test_a_planner_record_is_made_where_the_run_ran(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The worker-side function builds the record with the env of the process
    it runs in (per run, not once per batch), from copies of the task files
    when the worker lacks them; the record keeps the driver's paths."""
    from pypddl_experiments.planners import executor as fd_exec
    from pypddl_experiments.planners.batch import Job
    from pypddl_experiments.planners.fd import CONFIGS, FDResult
    from pypddl_experiments.planners.outcomes import Outcome
    from pypddl_experiments.runs.tasks import bundled

    (task,) = bundled(["blocksworld/p01"])
    calls: list[Path] = []

    def fake_run(job: Job, *, cancel: Any, **options: Any) -> tuple[FDResult, str, None, dict[str, Any]]:
        calls.append(job.task.problem)
        result = FDResult(Outcome.TIMEOUT, "killed at the deadline", job.config, options["time_limit"], 512,
                          wall_s=options["time_limit"])
        return result, "2026-01-01T00:00:00.000Z", None, {"load_1m": 0.5}

    hosts = iter(["worker-a", "worker-b"])
    monkeypatch.setattr(fd_exec, "environment", lambda: {"host": next(hosts)})
    monkeypatch.setattr(executors.tempfile, "gettempdir", lambda: str(tmp_path))
    job = Job(task, CONFIGS["lama-first"], 1)
    files = ShippedTask.read(task.domain, task.problem)
    first = fd_exec.run_and_record(job, fake_run, None, workers=3, experiment_id="e", cancel=None, time_limit=2.0)
    moved = ShippedTask(ShippedFile(str(tmp_path / "gone" / "d.pddl"), files.domain.sha256, files.domain.data),
                        ShippedFile(str(tmp_path / "gone" / "p01.pddl"), files.problem.sha256, files.problem.data))
    second = fd_exec.run_and_record(job, fake_run, moved, workers=3, experiment_id="e", cancel=None, time_limit=2.0)
    assert first is not None and second is not None
    assert [first["env"]["host"], second["env"]["host"]] == ["worker-a", "worker-b"]  # env computed per run
    assert calls[0] == task.problem and calls[1].is_relative_to(tmp_path / "pypddl-shipped")
    assert second["extra"]["problem"] == str(task.problem) and second["problem_sha256"] == task.problem_sha256
    assert second["extra"]["workers"] == 3 and second["replicate"] == 1 and second["outcome"] == "timeout"


def test_a_stopped_planner_run_has_no_record() -> None:
    from pypddl_experiments.planners import executor as fd_exec
    from pypddl_experiments.planners.batch import Job
    from pypddl_experiments.planners.fd import CONFIGS, FDResult
    from pypddl_experiments.planners.outcomes import Outcome
    from pypddl_experiments.runs.tasks import bundled

    (task,) = bundled(["blocksworld/p01"])

    def stopped(job: Job, *, cancel: Any, **options: Any) -> tuple[FDResult, str, None, dict[str, Any]]:
        return FDResult(Outcome.INTERRUPTED, "stopped", job.config, 1.0, 512), "", None, {}

    job = Job(task, CONFIGS["lama-first"])
    assert fd_exec.run_and_record(job, stopped, None, workers=1, experiment_id=None, cancel=None) is None


def test_wait_reports_runs_as_they_finish() -> None:
    runner = LocalExecutor(3)

    def nap(seconds: float, *, cancel: threading.Event) -> float:
        time.sleep(seconds)
        return seconds

    for s in (0.3, 0.0, 0.1):
        runner.submit(s, nap, s)
    order = []
    while runner.in_flight:
        order += [d.key for d in runner.wait(timeout=5)]
    runner.close()
    assert order == [0.0, 0.1, 0.3]
