"""Batch runs: tasks x configurations x replicates, in parallel, resumable.

* Jobs run in the order configuration, task, replicate, at most ``workers``
  at a time (default: one per available core, since each Fast Downward run
  is single-threaded and CPU contention distorts wall-clock budgets).
* Each finished run appends one ``pypddl.run/1`` record (see
  :mod:`.records`); only the main thread writes.
* Resumable: jobs whose key (method, instance_id, replicate) already has a
  record in the output file are skipped, so re-running the same command after
  an interruption finishes the batch with every record present exactly once.
* Ctrl-C (SIGINT) or SIGTERM stops the batch cleanly: running planners are
  killed (their whole process groups), their runs are *not* recorded, and
  every record already written is complete. After a hard kill (SIGKILL) the
  file is still consistent, up to a torn last line that the next run removes;
  planners orphaned then die by Fast Downward's own CPU-time limit (budget
  + 1 s of CPU time).

Workers are threads: each one waits on a planner subprocess, so the GIL is
not a bottleneck (validation of the plans is the only Python work). With
``executor=ExecutorOptions("ray")`` each run is a Ray task instead
(:mod:`pypddl_experiments.runs.executors`); either way a run's record is built where
the run ran (:mod:`.executor`) and written here, by the one writer.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from pypddl_experiments.runs.executors import ExecutorOptions, RunLost, make_executor
from pypddl_experiments.runs.tasks import TaskRef

from .enhsp import enhsp_jar, java_binary
from .executor import PLANNER_CPUS, JobSubmitter
from .fd import DEFAULT_MEMORY_MB, FDResult, PlannerConfig, PlannerUnavailable, fd_driver, fd_provenance
from .planners import crosscheck_epsilon, run_planner
from .records import RecordWriter, read_records, record_key, utc_now
from .temporal import is_temporal_task, lpg_binary
from .val import val_validate

__all__ = ["BatchSummary", "IncompatibleRecords", "Job", "Progress", "default_workers", "plan_jobs", "run_batch"]


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Job:
    task: TaskRef
    config: PlannerConfig
    replicate: int = 0

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.config.method, self.task.instance_id, self.replicate)

    def label(self) -> str:
        rep = f" r{self.replicate}" if self.replicate else ""
        return f"{self.config.method} {self.task.instance_id}{rep}"


def plan_jobs(
    tasks: Sequence[TaskRef], configs: Sequence[PlannerConfig], replicates: int, done: set[tuple[str, str, int]],
    temporal_configs: Sequence[PlannerConfig] | None = None,
) -> tuple[list[Job], int]:
    """The jobs still to run, and how many were skipped as already recorded.
    ``temporal_configs``: the configurations temporal tasks run instead of
    ``configs`` (``None``: every task runs ``configs``)."""
    todo, skipped = [], 0
    if temporal_configs is not None:
        temporal = {t.instance_id for t in tasks if is_temporal_task(t.domain, t.problem)}
    for config in [*configs, *(temporal_configs or ())]:
        for task in tasks:
            if temporal_configs is not None and (task.instance_id in temporal) != (config in temporal_configs):
                continue
            for rep in range(replicates):
                job = Job(task, config, rep)
                if job.key in done:
                    skipped += 1
                else:
                    todo.append(job)
    return todo, skipped


@dataclass
class BatchSummary:
    out: Path
    total: int = 0
    skipped: int = 0
    written: int = 0
    interrupted: bool = False
    outcomes: Counter[str] = field(default_factory=Counter)
    wall_s: float = 0.0
    workers: int = 1
    repaired_bytes: int = 0
    load_before: tuple[float, float, float] | None = None
    load_after: tuple[float, float, float] | None = None
    executor: str = "local"
    lost: int = 0  # runs whose worker died on every attempt (Ray): not recorded
    resubmitted: int = 0  # runs submitted again after their worker died (Ray)

    def line(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items())) or "none"
        state = "INTERRUPTED (re-run the same command to resume)" if self.interrupted else "done"
        if self.lost and not self.interrupted:
            state = f"INCOMPLETE ({self.lost} run(s) lost with their workers; re-run the same command to retry)"
        load = ""
        if self.load_before and self.load_after:
            load = f"; load avg {self.load_before[0]:.2f} -> {self.load_after[0]:.2f}"
        where = f" on {self.executor}" if self.executor != "local" else ""
        again = f", {self.resubmitted} submitted again after a worker died" if self.resubmitted else ""
        return (
            f"batch {state}: {self.written} run(s) recorded now, {self.skipped} already recorded, "
            f"{self.total} in all; outcomes of new runs: {counts}; {self.workers} worker(s){where}{again}; "
            f"wall {self.wall_s:.1f}s{load}; records: {self.out}"
        )


def _fmt_time(seconds: float) -> str:
    seconds = int(seconds)
    h, rem = divmod(seconds, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """A progress bar on a terminal (redrawn in place), or one line per
    finished run otherwise (logs, CI)."""

    def __init__(self, total: int, done_before: int, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total = total
        self.done_before = done_before
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.done = 0
        self.counts: Counter[str] = Counter()
        self.start = time.monotonic()
        self.running: list[str] = []

    def _bar(self) -> str:
        finished = self.done_before + self.done
        width = 28
        filled = int(width * finished / self.total) if self.total else width
        elapsed = time.monotonic() - self.start
        eta = ""
        if self.done and self.total > finished:
            eta = f" eta {_fmt_time(elapsed / self.done * (self.total - finished))}"
        counts = " ".join(f"{k}:{v}" for k, v in sorted(self.counts.items()))
        return f"[{'#' * filled}{'.' * (width - filled)}] {finished}/{self.total} {counts} {_fmt_time(elapsed)}{eta}"

    def update(self, job: Job, record: dict[str, Any]) -> None:
        self.done += 1
        self.counts[record["outcome"]] += 1
        if not self.enabled:
            return
        length = f" length {record['plan_length']}" if record.get("plan_length") is not None else ""
        line = (
            f"[{self.done_before + self.done}/{self.total}] {job.label()}: {record['planner']['outcome']}{length} "
            f"({record['wall_s']:.2f}s)"
        )
        if self.tty:
            self.stream.write("\r\x1b[2K" + line + "\n" + self._bar())
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def tick(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[2K" + self._bar())
            self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt while the batch runs (main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _run_job(
    job: Job, *, time_limit: float, memory_mb: int, keep_dir: Path | None, crosscheck: bool, cancel: threading.Event
) -> tuple[FDResult, str, bool | None, dict[str, Any]]:
    started_at = utc_now()
    extra: dict[str, Any] = {"load_1m": round(os.getloadavg()[0], 2)}
    workdir = None
    if keep_dir is not None:
        safe = job.task.instance_id.replace("/", "__")
        workdir = keep_dir / job.config.method / f"{safe}-r{job.replicate}"
    result = run_planner(
        job.task.domain, job.task.problem, job.config,
        time_limit=time_limit, memory_mb=memory_mb, workdir=workdir, cancel=cancel,
    )
    extra["load_1m_end"] = round(os.getloadavg()[0], 2)
    cross = None
    if crosscheck and result.plan is not None:
        cross = val_validate(job.task.domain, job.task.problem, result.plan_text(),
                             epsilon=crosscheck_epsilon(job.config))
    return result, started_at, cross, extra


class IncompatibleRecords(ValueError):
    """The output file holds records made with other limits."""


def _check_compatible(records: list[dict[str, Any]], time_limit: float, memory_mb: int, out: Path) -> None:
    """Refuse to resume into a file whose records used another budget,
    memory limit or Fast Downward release: skipping their keys would silently
    mix two experiments."""
    running_release = None
    if any((r.get("planner") or {}).get("fd_release") for r in records):
        try:
            running_release = fd_provenance()["release"]
        except PlannerUnavailable:
            running_release = None
    for r in records:
        budget = r.get("budget_s")
        memory = (r.get("planner") or {}).get("memory_limit_mb")
        if budget is not None and abs(float(budget) - float(time_limit)) > 1e-9:
            raise IncompatibleRecords(
                f"{out} holds runs with a {budget:g} s budget, not {time_limit:g} s; "
                "use another output file (or the same limits) to resume"
            )
        if memory is not None and int(memory) != int(memory_mb):
            raise IncompatibleRecords(
                f"{out} holds runs with a {memory} MB memory limit, not {memory_mb} MB; "
                "use another output file (or the same limits) to resume"
            )
        release = (r.get("planner") or {}).get("fd_release")
        if release is not None and running_release is not None and release != running_release:
            raise IncompatibleRecords(
                f"{out} holds runs of Fast Downward {release}, not {running_release}; "
                "use another output file (or --fd-release "
                f"{release}) to resume"
            )


def run_batch(
    tasks: Sequence[TaskRef],
    configs: Sequence[PlannerConfig],
    out: str | Path,
    *,
    time_limit: float = 180.0,
    memory_mb: int = DEFAULT_MEMORY_MB,
    workers: int | None = None,
    replicates: int = 1,
    experiment_id: str | None = None,
    keep_dir: str | Path | None = None,
    crosscheck: bool = False,
    progress: bool = True,
    stream: TextIO | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    executor: ExecutorOptions | None = None,
    temporal_configs: Sequence[PlannerConfig] | None = None,
) -> BatchSummary:
    """Run every (configuration, task, replicate) not yet recorded in
    ``out`` and append one record each. Returns a summary; on Ctrl-C the
    summary says ``interrupted`` (no exception). ``executor``: where the runs
    execute (:mod:`pypddl_experiments.runs.executors`; default: threads of this process).
    ``temporal_configs``: run these instead of ``configs`` on temporal tasks
    (what ``pypddl batch`` does when no planner is named)."""
    if executor is None or not executor.remote:
        # fail before starting anything when a planner is missing (Ray: on the workers)
        if any(c.planner == "fd" for c in configs):
            fd_driver()
        if any(c.planner == "enhsp" for c in configs):
            enhsp_jar(), java_binary()
        # LPG: when a named planner is LPG, or a temporal task is selected for the temporal planners
        if any(c.planner == "lpg" for c in configs) or (
                any(c.planner == "lpg" for c in temporal_configs or ())
                and any(is_temporal_task(t.domain, t.problem) for t in tasks)):
            lpg_binary()
    out = Path(out)
    summary = BatchSummary(out=out)
    started = time.monotonic()
    summary.load_before = os.getloadavg()
    with RecordWriter(out) as writer:
        summary.repaired_bytes = writer.repaired
        existing = read_records(out).records
        _check_compatible(existing, time_limit, memory_mb, out)
        done = {record_key(r) for r in existing}
        todo, summary.skipped = plan_jobs(tasks, configs, replicates, done, temporal_configs)
        summary.total = len(todo) + summary.skipped
        bar = Progress(summary.total, summary.skipped, stream=stream, enabled=progress)
        pending = iter(todo)
        runner = make_executor(executor, slots=workers, cpus_per_run=PLANNER_CPUS, default_slots=default_workers)
        summary.workers, summary.executor = runner.slots, runner.name
        submit = JobSubmitter(runner, _run_job, experiment_id=experiment_id, keep_dir=keep_dir,
                              time_limit=time_limit, memory_mb=memory_mb, crosscheck=crosscheck)

        def fill() -> None:
            while runner.has_room():
                job = next(pending, None)
                if job is None:
                    return
                submit(job)

        try:
            with _sigterm_as_interrupt():
                fill()
                while runner.in_flight:
                    for finished in runner.wait(timeout=1.0):
                        job: Job = finished.key  # type: ignore[assignment]
                        if isinstance(finished.error, RunLost):  # its worker died on every attempt
                            summary.lost += 1
                            continue
                        record = finished.result()  # the record, made on the worker; None: stopped
                        if record is None:
                            continue
                        writer.write(record)
                        summary.written += 1
                        summary.outcomes[record["planner"]["outcome"]] += 1
                        bar.update(job, record)
                        if on_record is not None:
                            on_record(record)
                    fill()
                    bar.tick()
        except KeyboardInterrupt:
            summary.interrupted = True
        finally:
            runner.cancel()  # running planners are killed by their workers
            runner.close()
            summary.resubmitted = runner.resubmitted
            bar.close()
    summary.wall_s = time.monotonic() - started
    summary.load_after = os.getloadavg()
    return summary
