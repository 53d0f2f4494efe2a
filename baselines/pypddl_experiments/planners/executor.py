"""Fast Downward runs on an executor (:mod:`pypddl_experiments.runs.executors`): what a
batch submits for one job, and what then happens on the worker.

On the worker, :func:`run_and_record` runs the job under its wall-clock
budget and builds the run's ``pypddl.run/1`` record right there, with that
worker's ``env`` (its host, its Fast Downward, its git commit): the driver
only writes the record. With the Ray executor the task files travel with the
job (:class:`ShippedTask`), so a worker without the driver's files runs a
copy of the same bytes; the record still names the driver's paths.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from pypddl_experiments.runs.executors import Executor, ShippedTask
from pypddl_experiments.runs.tasks import TaskRef

from .outcomes import Outcome
from .records import environment, make_record

__all__ = ["PLANNER_CPUS", "JobSubmitter", "run_and_record"]

PLANNER_CPUS = 1.0
"""CPUs a planner run reserves on Ray: Fast Downward is single-threaded, and
two runs on one core would both see their wall-clock budgets shrink."""


def run_and_record(
    job: Any,
    run: Callable[..., tuple[Any, str, bool | None, dict[str, Any]]],
    files: ShippedTask | None,
    *,
    workers: int,
    experiment_id: str | None,
    cancel: threading.Event | None,
    **run_options: Any,
) -> dict[str, Any] | None:
    """Run ``job`` with the batch's per-job function ``run`` (on the worker)
    and return its record; ``None`` when the run was stopped (nothing to
    record)."""
    local = job if files is None else replace(job, task=TaskRef(job.task.instance_id, *files.local_paths()))
    result, started_at, cross, extra = run(local, cancel=cancel, **run_options)
    if result.outcome is Outcome.INTERRUPTED:
        return None
    extra["workers"] = workers
    return make_record(
        result, job.task, replicate=job.replicate, started_at=started_at, env=environment(),
        experiment_id=experiment_id, crosscheck=cross, extra=extra,
    )


class JobSubmitter:
    """Submits batch jobs to an executor, each as one :func:`run_and_record`.

    ``run`` and ``run_options``: the batch's per-job function and its
    options (budget, memory, kept files, VAL cross-check)."""

    def __init__(
        self, executor: Executor, run: Callable[..., Any], *, experiment_id: str | None,
        keep_dir: str | Path | None, **run_options: Any,
    ) -> None:
        self.executor = executor
        self.run = run
        self.experiment_id = experiment_id
        # resolved here: a Ray worker's working directory is not the driver's
        self.run_options = {**run_options, "keep_dir": Path(keep_dir).resolve() if keep_dir else None}
        self._shipped: dict[str, Any] = {}

    def _files(self, task: TaskRef) -> Any:
        if not self.executor.remote:
            return None
        if task.instance_id not in self._shipped:
            self._shipped[task.instance_id] = self.executor.share(ShippedTask.read(task.domain, task.problem))
        return self._shipped[task.instance_id]

    def __call__(self, job: Any) -> None:
        _ = job.task.domain_sha256, job.task.problem_sha256  # hashed here, where the files are
        self.executor.submit(
            job, run_and_record, job, self.run, self._files(job.task), workers=self.executor.slots,
            experiment_id=self.experiment_id, **self.run_options,
        )

