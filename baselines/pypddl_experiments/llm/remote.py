"""LLM experiment runs as Ray tasks (``pypddl experiment run --executor ray``).

The driver (the process running the command) plans the runs as it does for
local runs and hands each (task, replicate) to one Ray task
(:mod:`pypddl_experiments.runs.executors`). The worker opens its own provider client
(and, for the agentic approach, its own MCP server), runs the method under
the run's wall-clock budget on its own clock, writes the trace to a
temporary file and returns the record (with the worker's ``env``, so
``env.host`` names the machine that ran it) and the trace. The driver writes
the trace into the results folder and then appends the record: one writer,
the same files as a local experiment, and a resumed experiment skips every
recorded run, so a driver crash, a worker death or a cluster restart ends,
after a re-run, with every record exactly once. A run whose worker dies is
submitted again (up to the executor's ``max_attempts``), else counted as
lost and left for the next run of the command.

* **Sizing.** An LLM run waits on the network, so it reserves a fraction of
  a CPU (:data:`LLM_CPUS`, ``--ray-cpus``) where a planner run reserves a
  whole one; ``--concurrency`` caps the LLM runs in flight (the provider's
  rate limits bound an LLM experiment, not the cluster's cores).
* **Rate limits.** One small actor (:class:`RateGateActor`, no CPU) serves
  every run: before each model call a run asks it how long to hold back,
  and after a 429 or an overload it reports the wait it was told
  (``retry-after``, else the back-off). One worker's rate limit then holds
  back every worker instead of each finding it out with its own 429. A run
  held back is ``contaminated`` and says why in ``errors``
  (:class:`~pypddl_experiments.llm.llm.ModelCaller`). A gate that cannot be
  reached never fails a run; it just stops holding runs back.
* **The API key.** Workers read the key from the variable the provider reads
  (``--api-key-env``, default ``ANTHROPIC_API_KEY`` / ``OPENAI_API_KEY``).
  When the driver has it, it is forwarded to the tasks in their Ray runtime
  environment (so the nodes need not have it), where anyone who can inspect
  the cluster's jobs can read it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio

from pypddl_experiments.runs.executors import ExecutorOptions, ShippedTask, make_executor

from .providers import DEFAULT_KEY_ENV, create_provider
from .records import ResultsStore
from .runner import ExperimentSummary, RunContext, execute_run
from .tasks import TaskSpec

__all__ = ["LLM_CPUS", "ActorGate", "ProviderSpec", "RateGateActor", "RemoteRuns"]

LLM_CPUS = 0.25
"""CPUs an LLM run reserves on Ray by default: it mostly waits on the model."""


@dataclass(frozen=True)
class ProviderSpec:
    """How a worker makes the provider (clients cannot travel between processes)."""

    provider: str
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    """Passed on to :func:`~.providers.create_provider` (the offline provider's plans)."""

    @property
    def key_env(self) -> str:
        return self.api_key_env or DEFAULT_KEY_ENV.get(self.provider, "")

    def create(self) -> Any:
        return create_provider(self.provider, self.model, base_url=self.base_url, api_key_env=self.api_key_env,
                               **self.options)


# ----------------------------------------------------------------------------- the shared rate gate


class RateGateActor:
    """The experiment's rate-limit state, in one Ray actor (times on the
    actor's own clock, so workers' clocks need not agree)."""

    def __init__(self) -> None:
        self._until = 0.0
        self.reports = 0

    def wait_s(self) -> float:
        return max(0.0, self._until - time.monotonic())

    def report(self, seconds: float) -> None:
        self.reports += 1
        self._until = max(self._until, time.monotonic() + max(0.0, float(seconds)))

    def stats(self) -> dict[str, Any]:
        return {"reports": self.reports, "wait_s": self.wait_s()}


def new_gate() -> Any:
    """A :class:`RateGateActor` on the connected Ray cluster (no CPU)."""
    import ray

    return ray.remote(num_cpus=0)(RateGateActor).remote()


class ActorGate:
    """A worker's view of the shared gate (a :class:`~pypddl_experiments.llm.llm.RateGate`)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor

    async def wait_s(self) -> float:
        try:
            return float(await self.actor.wait_s.remote())
        except Exception:  # a lost gate never fails a run
            return 0.0

    async def report(self, seconds: float) -> None:
        with contextlib.suppress(Exception):
            await self.actor.report.remote(seconds)


# ----------------------------------------------------------------------------- on the worker


def run_on_worker(
    ctx: RunContext, provider: ProviderSpec, spec: TaskSpec, files: ShippedTask, replicate: int, trace_name: str,
    gate: Any, *, cancel: Any = None,
) -> tuple[dict[str, Any], str]:
    """One run on a Ray worker: its record and its trace (JSON lines)."""
    logging.getLogger("pypddlengine.mcp").setLevel(logging.WARNING)
    task = TaskSpec(spec.instance_id, *files.local_paths(), spec.order)

    async def main() -> tuple[dict[str, Any], str]:
        client = provider.create()
        try:
            live = replace(ctx, provider=client, gate=ActorGate(gate) if gate is not None else None)
            with tempfile.TemporaryDirectory(prefix="pypddl-trace-") as tmp:
                path = Path(tmp) / "trace.jsonl"
                record = await execute_run(live, task, replicate, path, trace_name=trace_name)
                return record, path.read_text(encoding="utf-8") if path.is_file() else ""
        finally:
            await client.aclose()

    return anyio.run(main)


# ----------------------------------------------------------------------------- on the driver


def write_trace(path: Path, text: str) -> None:
    """The trace a worker returned, in the results folder (synced, whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with tmp.open("w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


@dataclass(frozen=True)
class RemoteRuns:
    """Run an experiment's runs on Ray: ``options`` (address, CPUs per run)
    and how the workers make the provider."""

    options: ExecutorOptions
    provider: ProviderSpec

    def runtime_env(self) -> dict[str, Any] | None:
        key = os.environ.get(self.provider.key_env) if self.provider.key_env else None
        return {"env_vars": {self.provider.key_env: key}} if key else None

    async def run(
        self, ctx: RunContext, todo: list[tuple[TaskSpec, int]], store: ResultsStore, summary: ExperimentSummary,
        on_record: Callable[[dict[str, Any]], None] | None,
    ) -> None:
        """Run ``todo`` on Ray; write each trace and record as its run returns."""
        if ctx.clock is not time.monotonic:
            raise ValueError("runs on Ray measure their budgets on the worker's own clock; "
                             "a custom clock cannot go with them")
        config = ctx.config

        def start() -> Any:
            return make_executor(self.options, slots=config.concurrency, cpus_per_run=LLM_CPUS,
                                 default_slots=lambda: config.concurrency, runtime_env=self.runtime_env())

        executor = start()  # in the main thread, where Ray wants to start
        try:
            gate = new_gate()
            wire = executor.share(replace(ctx, provider=None, sleep=anyio.sleep, gate=None))  # type: ignore[arg-type]
            shipped: dict[str, Any] = {}
            pending = iter(todo)

            def fill() -> None:
                while executor.has_room():
                    item = next(pending, None)
                    if item is None:
                        return
                    task, replicate = item
                    if task.instance_id not in shipped:
                        files = ShippedTask.read(task.domain_path, task.problem_path)
                        shipped[task.instance_id] = executor.share(files)
                    name = store.relative(store.trace_path(config.method, task.instance_id, replicate))
                    spec = TaskSpec(task.instance_id, task.domain_path, task.problem_path, task.order)
                    executor.submit(item, run_on_worker, wire, self.provider, spec, shipped[task.instance_id],
                                    replicate, name, gate)

            fill()
            while executor.in_flight:
                for done in await anyio.to_thread.run_sync(executor.wait, 0.5):
                    if done.cancelled:
                        continue
                    if done.lost:
                        summary.lost += 1
                        continue
                    task, replicate = done.key  # type: ignore[misc]
                    record, trace = done.result()
                    write_trace(store.trace_path(config.method, task.instance_id, replicate), trace)
                    store.append(record)
                    summary.records.append(record)
                    if on_record is not None:
                        on_record(record)
                fill()
        finally:
            executor.cancel()
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(executor.close)
