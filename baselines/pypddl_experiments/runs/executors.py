"""Where runs execute: threads of this process (``local``) or Ray tasks (``ray``).

The Fast Downward batch (``pypddl batch``, ``pypddl reference``) and the LLM
experiment runner (``pypddl experiment run``) hand each run to an
:class:`Executor` and take its finished result back. Whatever executes the
runs, one rule holds: **workers return results, only the driver (the process
that runs the command) writes records**, through the one locked
:class:`~pypddl_experiments.runs.records.RecordWriter`, and it writes a run's record
only after the run has finished. So a driver crash, a worker death or a
cluster restart loses at most the runs in flight, never a record, and never
leaves one half-written; the next run of the same command skips every
recorded run and ends with every record exactly once.

* :class:`LocalExecutor` (the default; no dependency): a thread pool in this
  process, each thread waiting on its run (a planner subprocess). A submitted
  function gets the pool's ``cancel`` event and stops when it is set.
* :class:`RayExecutor` (``--executor ray``, the ``ray`` extra): one Ray task
  per run, on a private local Ray instance started for the command or on a
  cluster (``--ray-address``). Ray is imported only here, and only when a
  Ray executor is made. Each task reserves ``cpus_per_run`` CPUs (1 for a
  planner run, a fraction for an I/O-bound LLM run); the executor keeps at
  most ``slots`` runs in flight, so an interrupted command loses little. A
  submitted function gets ``cancel=None``: cancelling a Ray task raises
  :class:`KeyboardInterrupt` inside it, which the runs already honour (a
  planner's process group is killed on the way out). A run whose worker or
  node dies (:class:`~ray.exceptions.WorkerCrashedError`, a node lost, Ray's
  out-of-memory killer) is submitted again, up to ``max_attempts`` runs in
  all; after that it is reported as :class:`RunLost` and not recorded (the
  next run of the command tries it again). Ray's own task retries are off,
  so the driver knows of every attempt.

Task files travel with the runs (:class:`ShippedFile`): a worker uses the
original path when it holds the same bytes there (one machine, or a shared
file system) and otherwise a copy under its temporary directory, so a cluster
needs no shared storage. The ``env`` block of a record (``host`` included) is
computed by the worker that ran it.

This is adapter code: the engine modules never import it.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import hashlib
import importlib.util
import logging
import math
import os
import tempfile
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .records import sha256_file

__all__ = [
    "EXECUTORS",
    "Done",
    "Executor",
    "ExecutorOptions",
    "ExecutorUnavailable",
    "LocalExecutor",
    "RayExecutor",
    "RunLost",
    "ShippedFile",
    "ShippedTask",
    "executor_options",
    "make_executor",
    "options_from_cli",
    "ray_available",
]

EXECUTORS = ("local", "ray")

RAY_MISSING = "the ray executor needs Ray: pip install 'pypddlengine[ray]'"


class ExecutorUnavailable(RuntimeError):
    """The executor asked for cannot be used here (Ray not installed, no cluster at the address)."""


class RunLost(RuntimeError):
    """A run whose worker (or node) died on every attempt; it has no record."""


def ray_available() -> bool:
    return importlib.util.find_spec("ray") is not None


@dataclass(frozen=True)
class ExecutorOptions:
    """How runs execute. ``address``: a Ray cluster (``host:port``, ``auto``,
    ``ray://host:10001``); ``None`` starts a private local instance.
    ``cpus_per_run``: CPUs each Ray task reserves (``None``: the adapter's
    default). ``max_attempts``: runs of one job in all when workers die."""

    kind: str = "local"
    address: str | None = None
    cpus_per_run: float | None = None
    max_attempts: int = 3

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ValueError(f"unknown executor {self.kind!r}; use one of {', '.join(EXECUTORS)}")
        if self.address and self.kind != "ray":
            raise ValueError("a Ray address needs the ray executor")
        if self.cpus_per_run is not None and self.cpus_per_run <= 0:
            raise ValueError("cpus per run must be positive")
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")

    @property
    def remote(self) -> bool:
        return self.kind == "ray"


# ----------------------------------------------------------------------------- results


@dataclass
class Done:
    """One finished run: its ``value``, or the ``error`` it raised (or
    :class:`RunLost`), or ``cancelled``."""

    key: Hashable
    value: Any = None
    error: BaseException | None = None
    cancelled: bool = False
    attempts: int = 1

    @property
    def lost(self) -> bool:
        return isinstance(self.error, RunLost)

    def result(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


class Executor(ABC):
    """Runs submitted functions somewhere and reports them as they finish."""

    name = "executor"
    remote = False  # runs execute in other processes, maybe on other machines

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError("an executor needs at least one slot")
        self.slots = slots
        self.resubmitted = 0  # runs submitted again after their worker died

    @property
    @abstractmethod
    def in_flight(self) -> int:
        """Runs submitted and not yet reported by :meth:`wait`."""

    def has_room(self) -> bool:
        return self.in_flight < self.slots

    @abstractmethod
    def submit(self, key: Hashable, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        """Run ``fn(*args, cancel=..., **kwargs)``; ``key`` names it in :class:`Done`."""

    @abstractmethod
    def wait(self, timeout: float) -> list[Done]:
        """The runs that finished, waiting up to ``timeout`` seconds for one."""

    @abstractmethod
    def cancel(self) -> None:
        """Stop every run in flight (their :class:`Done` say ``cancelled``
        or carry what the run returned when stopped)."""

    @abstractmethod
    def close(self) -> None:
        """Wait for cancelled runs to clean up, then release the executor."""

    def share(self, value: Any) -> Any:
        """``value`` as an argument for many runs (Ray stores it once)."""
        return value

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()
        self.close()


class LocalExecutor(Executor):
    """Threads of this process (what the commands have always done)."""

    name = "local"

    def __init__(self, slots: int) -> None:
        super().__init__(slots)
        self.cancel_event = threading.Event()
        self._pool = cf.ThreadPoolExecutor(max_workers=slots, thread_name_prefix="run")
        self._running: dict[cf.Future[Any], Hashable] = {}

    @property
    def in_flight(self) -> int:
        return len(self._running)

    def has_room(self) -> bool:
        return super().has_room() and not self.cancel_event.is_set()

    def submit(self, key: Hashable, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        self._running[self._pool.submit(fn, *args, cancel=self.cancel_event, **kwargs)] = key

    def wait(self, timeout: float) -> list[Done]:
        finished, _ = cf.wait(self._running, timeout=timeout, return_when=cf.FIRST_COMPLETED)
        out = []
        for fut in finished:
            key = self._running.pop(fut)
            if fut.cancelled():
                out.append(Done(key, cancelled=True))
            elif fut.exception() is not None:
                out.append(Done(key, error=fut.exception()))
            else:
                out.append(Done(key, fut.result()))
        return out

    def cancel(self) -> None:
        self.cancel_event.set()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._running.clear()


# ----------------------------------------------------------------------------- Ray


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The body of every Ray task: one run, on the worker (Ray has replaced
    arguments that were :meth:`Executor.share`-d by their values)."""
    return fn(*args, cancel=None, **kwargs)


def connect_ray(address: str | None, *, local_cpus: int | None = None) -> bool:
    """Connect to the cluster at ``address``, or start a private local Ray
    instance (``local_cpus`` CPUs; default all). Returns whether this call
    started Ray in this process (then :meth:`RayExecutor.close` stops it);
    an already initialised Ray is used as it is."""
    if not ray_available():
        raise ExecutorUnavailable(RAY_MISSING)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # never phone home from a user's experiment
    import ray

    if ray.is_initialized():
        return False
    try:
        if address:
            ray.init(address=address, logging_level=logging.WARNING)
        else:
            ray.init(address="local", num_cpus=local_cpus, include_dashboard=False, logging_level=logging.WARNING)
    except (ConnectionError, ValueError, RuntimeError) as err:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise ExecutorUnavailable(f"cannot use {where}: {err}") from err
    return True


def cluster_cpus() -> float:
    """CPUs of the connected Ray cluster."""
    import ray

    return float(ray.cluster_resources().get("CPU", 1.0))


def _label(key: Hashable) -> str:
    """A run's name in messages: its ``label()`` when it has one."""
    label = getattr(key, "label", None)
    if callable(label):
        return str(label())
    if isinstance(key, tuple):
        return " ".join(str(getattr(part, "instance_id", part)) for part in key)
    return str(key)


@dataclass
class _Pending:
    key: Hashable
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    attempts: int = 1


class RayExecutor(Executor):
    """One Ray task per run (see the module docstring)."""

    name = "ray"
    remote = True

    def __init__(
        self,
        options: ExecutorOptions,
        *,
        cpus_per_run: float,
        slots: int | None = None,
        local_cpus: int | None = None,
        runtime_env: dict[str, Any] | None = None,
        cancel_grace_s: float = 30.0,
    ) -> None:
        self._owns = connect_ray(options.address, local_cpus=local_cpus)
        import ray

        self._ray = ray
        cpus = options.cpus_per_run or cpus_per_run
        if slots is None:
            slots = max(1, int(cluster_cpus() // cpus))
        super().__init__(slots)
        self.cpus_per_run = cpus
        self.max_attempts = options.max_attempts
        self.cancel_grace_s = cancel_grace_s
        task_options: dict[str, Any] = {"num_cpus": cpus, "max_retries": 0, "retry_exceptions": False}
        if runtime_env:
            task_options["runtime_env"] = runtime_env
        self._remote = ray.remote(_call).options(**task_options)
        self._refs: dict[Any, _Pending] = {}
        self._cancelling = False

    @property
    def in_flight(self) -> int:
        return len(self._refs)

    def has_room(self) -> bool:
        return super().has_room() and not self._cancelling

    def share(self, value: Any) -> Any:
        return self._ray.put(value)

    def _launch(self, pending: _Pending) -> None:
        self._refs[self._remote.remote(pending.fn, *pending.args, **pending.kwargs)] = pending

    def submit(self, key: Hashable, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None:
        self._launch(_Pending(key, fn, args, kwargs))

    def wait(self, timeout: float) -> list[Done]:
        if not self._refs:
            return []
        refs = list(self._refs)
        ready, _ = self._ray.wait(refs, num_returns=1, timeout=timeout)
        if ready:  # and whatever else is ready by now
            ready, _ = self._ray.wait(refs, num_returns=len(refs), timeout=0)
        out = []
        for ref in ready:
            done = self._collect(ref, self._refs.pop(ref))
            if done is not None:
                out.append(done)
        return out

    def _collect(self, ref: Any, pending: _Pending) -> Done | None:
        exc = self._ray.exceptions
        try:
            return Done(pending.key, self._ray.get(ref), attempts=pending.attempts)
        except exc.TaskCancelledError:
            return Done(pending.key, cancelled=True, attempts=pending.attempts)
        except exc.RayTaskError as err:  # the run itself raised: the driver sees the same exception
            cause = err.as_instanceof_cause()
            if isinstance(cause, KeyboardInterrupt) or self._cancelling:
                return Done(pending.key, cancelled=True, attempts=pending.attempts)
            return Done(pending.key, error=cause, attempts=pending.attempts)
        except exc.RayError as err:  # the worker, its node or the object was lost
            if self._cancelling:
                return Done(pending.key, cancelled=True, attempts=pending.attempts)
            if pending.attempts < self.max_attempts:
                logging.getLogger("pypddl_experiments.runs.executors").warning(
                    "run %s lost its worker (%s); submitting it again", _label(pending.key), type(err).__name__)
                self.resubmitted += 1
                pending.attempts += 1
                self._launch(pending)
                return None
            lost = RunLost(f"run {_label(pending.key)} lost its worker {pending.attempts} times "
                           f"(last: {type(err).__name__}); not recorded")
            return Done(pending.key, error=lost, attempts=pending.attempts)

    def cancel(self) -> None:
        self._cancelling = True
        for ref in list(self._refs):
            with contextlib.suppress(Exception):
                self._ray.cancel(ref, force=False)  # KeyboardInterrupt in the run: it cleans up

    def close(self) -> None:
        if self._refs:  # give cancelled runs time to kill their planners before Ray stops
            with contextlib.suppress(Exception):
                self._ray.wait(list(self._refs), num_returns=len(self._refs), timeout=self.cancel_grace_s)
            self._refs.clear()
        if self._owns:
            self._ray.shutdown()
            self._owns = False


def make_executor(
    options: ExecutorOptions | None,
    *,
    slots: int | None,
    cpus_per_run: float,
    default_slots: Callable[[], int],
    runtime_env: dict[str, Any] | None = None,
) -> Executor:
    """The executor ``options`` ask for. ``slots``: runs in flight at most
    (``None``: ``default_slots()`` locally, the cluster's CPUs over
    ``cpus_per_run`` on Ray). A private local Ray instance gets ``slots``
    CPUs when given, so ``-j 2`` means two local Ray workers."""
    options = options or ExecutorOptions()
    if not options.remote:
        return LocalExecutor(slots or default_slots())
    local_cpus = None
    if not options.address and slots is not None:
        local_cpus = max(1, math.ceil(slots * (options.cpus_per_run or cpus_per_run)))
    return RayExecutor(options, cpus_per_run=cpus_per_run, slots=slots, local_cpus=local_cpus,
                       runtime_env=runtime_env)


# ----------------------------------------------------------------------------- task files


def shipped_cache() -> Path:
    """Where a worker keeps copies of task files it does not hold itself."""
    return Path(tempfile.gettempdir()) / "pypddl-shipped"


@dataclass(frozen=True)
class ShippedFile:
    """A task file that travels with its runs: the driver's path, its SHA-256 and its bytes."""

    path: str
    sha256: str
    data: bytes = field(repr=False)

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> ShippedFile:
        p = Path(path)
        data = p.read_bytes()
        return cls(str(p), hashlib.sha256(data).hexdigest(), data)

    def local_path(self) -> Path:
        """The driver's path when this machine holds the same bytes there,
        else a copy (same file name) under :func:`shipped_cache`."""
        original = Path(self.path)
        with contextlib.suppress(OSError):
            if original.is_file() and sha256_file(original) == self.sha256:
                return original
        copy = shipped_cache() / self.sha256 / original.name
        if not copy.is_file():
            copy.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=copy.parent, prefix=".part-")
            with os.fdopen(fd, "wb") as f:
                f.write(self.data)
            os.replace(tmp, copy)  # two workers writing the same copy: the same bytes win
        return copy


@dataclass(frozen=True)
class ShippedTask:
    """A task's domain and problem files, for a worker that may not hold them."""

    domain: ShippedFile
    problem: ShippedFile

    @classmethod
    def read(cls, domain: str | os.PathLike[str], problem: str | os.PathLike[str]) -> ShippedTask:
        return cls(ShippedFile.read(domain), ShippedFile.read(problem))

    def local_paths(self) -> tuple[Path, Path]:
        """Paths of the two files on this worker (see :meth:`ShippedFile.local_path`)."""
        return self.domain.local_path(), self.problem.local_path()


# ----------------------------------------------------------------------------- command-line options


def executor_options(llm: bool) -> Callable[[Any], Any]:
    """A decorator adding the ``--executor``, ``--ray-address`` and
    ``--ray-cpus`` click options to a command (``llm``: the runs are LLM runs,
    for the help's default)."""
    import click

    default_cpus = "0.25 per LLM run" if llm else "1 per planner run"
    options = [
        click.option("--executor", type=click.Choice(EXECUTORS), default=None,
                     help="Where runs execute: 'local' (this process; the default) or 'ray' (one Ray task per "
                          "run; records are still written only here). Needs: pip install 'pypddlengine[ray]'."),
        click.option("--ray-address", metavar="ADDRESS",
                     help="Ray cluster to run on (host:port, 'auto', or ray://host:10001); implies --executor ray. "
                          "Without it, --executor ray starts a private local Ray instance for this command."),
        click.option("--ray-cpus", type=click.FloatRange(min=0, min_open=True), metavar="CPUS",
                     help=f"CPUs each run reserves on Ray [default: {default_cpus}]."),
    ]

    def add(command: Any) -> Any:
        for option in reversed(options):
            command = option(command)
        return command

    return add


def options_from_cli(executor: str | None, ray_address: str | None, ray_cpus: float | None) -> ExecutorOptions:
    """Check the executor options of a command; ``click.UsageError`` when they disagree."""
    import click

    kind = executor or ("ray" if ray_address else "local")
    if kind == "local" and (ray_address or ray_cpus):
        raise click.UsageError("--ray-address and --ray-cpus need --executor ray")
    if kind == "ray" and not ray_available():
        raise click.UsageError(RAY_MISSING)
    return ExecutorOptions(kind, address=ray_address or None, cpus_per_run=ray_cpus)
