"""Fast Downward (PyPI ``up-fast-downward``) run as a subprocess, the careful way.

One run = one call of :func:`run_fd`:

* the task is first loaded by our engine (a malformed task is an input
  error with ``file:line:col``, and the planner is not started);
* Fast Downward runs in its own temporary directory (``--plan-file`` and
  ``--sas-file`` are absolute paths inside it) and in a new session, hence a
  new process group that holds the driver, the translator and the search;
* the budget is **wall-clock** time, enforced here: at the deadline the whole
  process group gets SIGKILL. FD's own ``--overall-time-limit`` limits *CPU*
  seconds; it is set one second above the budget, so it is only a backstop
  (it also bounds a planner orphaned by a SIGKILL of this process);
* memory is limited with ``--overall-memory-limit`` (address space);
* every plan file (``sas_plan``, or ``sas_plan.1``, ``.2``, ... for anytime
  configurations) is kept with the time it was completed (its mtime relative
  to the launch). A file without FD's final ``; cost = N (...)`` line was cut
  off mid-write and does not count. The result is the last complete plan
  written before the deadline;
* every plan found is validated by our validator; the returned one must be
  valid, or the run is a planner error;
* the exit code maps to an :class:`~.outcomes.Outcome`.

Nothing of Fast Downward is imported: it is GPL and stays a subprocess.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import importlib.util
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pypddlengine.errors import PDDLError, UnsupportedRequirementError, counted
from pypddlengine.lifted import LiftedTask
from pypddlengine.loading import load_task
from pypddlengine.syntax import parse_plan
from pypddlengine.validate import validate_plan

from .outcomes import Outcome, classify_returncode, describe_returncode
from .val import val_validate

VALIDATOR_ENGINE, VALIDATOR_VAL = "pypddlengine", "VAL"

__all__ = [
    "CONFIGS",
    "DEFAULT_MEMORY_MB",
    "FD_RELEASES",
    "RELEASE_ENV",
    "FDResult",
    "FoundPlan",
    "PlannerConfig",
    "PlannerUnavailable",
    "fd_driver",
    "fd_provenance",
    "fd_version",
    "install_release",
    "known_aliases",
    "release_dir",
    "resolve_config",
    "run_fd",
    "selected_release",
]

DEFAULT_MEMORY_MB = 4096
POLL_S = 0.02
LOG_TAIL_LINES = 25
_COST_LINE = re.compile(r"^; cost = (\d+) \((unit|general) cost\)\s*$")
_PLAN_FILE = re.compile(r"^sas_plan(?:\.(\d+))?$")


class PlannerUnavailable(RuntimeError):
    """Fast Downward (``up-fast-downward``) is not installed."""


# Fast Downward releases that can run beside the installed wheel, each from the
# ``up-fast-downward`` wheel that ships it (its ``driver/version.py`` names the
# release; checked on install). 23.06 is the paper's: with it lama-first's plan
# lengths on the IPC-2000 Blocksworld tasks equal the paper's Table I exactly
# (issue 22); wheels 0.5.2 and 1.0.0 give other lengths.
FD_RELEASES: dict[str, str] = {"23.06": "0.4.2"}
RELEASE_ENV = "PYPDDL_FD_RELEASE"
"""Names the release to run (a key of :data:`FD_RELEASES`); empty or unset:
the installed wheel. An environment variable, so that worker processes and
Ray workers started by a command run the same planner as the command."""


def selected_release() -> str | None:
    """The release chosen with ``--fd-release`` (:data:`RELEASE_ENV`), or None."""
    return os.environ.get(RELEASE_ENV) or None


def release_dir(release: str) -> Path:
    """The private folder a release is installed in (``pip install --target``),
    under the per-user cache; nothing of the current environment changes."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pypddlengine" / "fast-downward" / release


def _release_driver(release: str) -> Path:
    return release_dir(release) / "up_fast_downward" / "downward" / "fast-downward.py"


def _check_release(release: str) -> str:
    if release not in FD_RELEASES:
        raise PlannerUnavailable(
            f"unknown Fast Downward release '{release}'; releases that can be installed beside the wheel: "
            + ", ".join(sorted(FD_RELEASES))
        )
    return FD_RELEASES[release]


def install_release(release: str, *, log: Any = None) -> Path:
    """Install ``release`` into its private folder if it is not there yet and
    return its driver. The wheel is installed without dependencies into a
    temporary folder beside the final one, checked (its ``driver/version.py``
    must name ``release``), then renamed, so an interrupted install leaves no
    half folder behind."""
    wheel = _check_release(release)
    driver = _release_driver(release)
    if driver.is_file():
        return driver
    target = release_dir(release)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{release}-", dir=target.parent))
    try:
        if log is not None:
            log(f"installing Fast Downward {release} (up-fast-downward=={wheel}) into {target}")
        out = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
             "--target", str(staging), f"up-fast-downward=={wheel}"],
            capture_output=True, text=True, timeout=1800, check=False,
        )
        if out.returncode != 0:
            raise PlannerUnavailable(
                f"could not install up-fast-downward=={wheel} (Fast Downward {release}): "
                + (out.stderr.strip().splitlines() or ["pip failed"])[-1]
            )
        staged_driver = staging / "up_fast_downward" / "downward" / "fast-downward.py"
        found = _read_release(staged_driver.parent)
        if found != release:
            raise PlannerUnavailable(
                f"up-fast-downward=={wheel} ships Fast Downward {found}, not {release}"
            )
        try:
            staging.rename(target)
        except OSError:
            if not driver.is_file():  # not a concurrent install that won the race
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return driver


def fd_driver() -> Path:
    """The path of ``fast-downward.py``: inside the installed wheel, or inside
    the private folder of the release named by :data:`RELEASE_ENV`."""
    release = selected_release()
    return _driver(release, None if release is None else release_dir(release))


@functools.cache
def _driver(release: str | None, folder: Path | None) -> Path:
    """Cached per release and folder (the folder follows XDG_CACHE_HOME)."""
    if release is not None:
        _check_release(release)
        driver = _release_driver(release)
        if not driver.is_file():
            raise PlannerUnavailable(
                f"Fast Downward {release} is not installed in {release_dir(release)}; "
                f"run the command with --fd-release {release} once to install it"
            )
        return driver
    # find_spec: importing up_fast_downward would import unified-planning
    # (seconds), and we only need a file path.
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or not spec.submodule_search_locations:
        raise PlannerUnavailable(
            "Fast Downward is not installed; install it with: pip install up-fast-downward "
            "(or pip install 'pypddlengine[planners]')"
        )
    driver = Path(next(iter(spec.submodule_search_locations))) / "downward" / "fast-downward.py"
    if not driver.is_file():
        raise PlannerUnavailable(f"up-fast-downward is installed but {driver} is missing")
    return driver


def fd_version() -> str:
    """The version of the ``up-fast-downward`` wheel that runs (not the planner's own)."""
    release = selected_release()
    if release is not None:
        infos = sorted(release_dir(release).glob("up_fast_downward-*.dist-info"))
        return infos[-1].name.removeprefix("up_fast_downward-").removesuffix(".dist-info") if infos \
            else "not installed"
    try:
        return importlib.metadata.version("up-fast-downward")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


_RELEASE = re.compile(r'^__version__\s*=\s*"([^"]+)"', re.M)


def fd_provenance() -> dict[str, str | None]:
    """What planner really ran: the wheel's version, Fast Downward's release
    (``driver/version.py``) and the git revision compiled into the search
    binary (``downward --internal-git-revision``, what ``fast-downward.py
    --version`` prints). ``None`` where it cannot be read."""
    try:
        driver = fd_driver()
    except PlannerUnavailable:
        return {"wheel": fd_version(), "release": None, "git_revision": None}
    return dict(_provenance(driver))


def _read_release(root: Path) -> str | None:
    try:
        found = _RELEASE.search((root / "driver" / "version.py").read_text(encoding="utf-8"))
    except OSError:
        return None
    return found.group(1) if found else None


@functools.cache
def _provenance(driver: Path) -> dict[str, str | None]:
    info: dict[str, str | None] = {"wheel": fd_version(), "release": None, "git_revision": None}
    root = driver.parent
    info["release"] = _read_release(root)
    binary = root / "builds" / "release" / "bin" / "downward"
    try:
        out = subprocess.run([str(binary), "--internal-git-revision"], capture_output=True, text=True,
                             timeout=30, check=False)
        revision = out.stdout.strip()
        info["git_revision"] = revision if out.returncode == 0 and revision else None
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def known_aliases() -> tuple[str, ...]:
    """The aliases this Fast Downward knows (``--show-aliases``)."""
    return _aliases(fd_driver())


@functools.cache
def _aliases(driver: Path) -> tuple[str, ...]:
    out = subprocess.run(
        [sys.executable, str(driver), "--show-aliases"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    return tuple(line.strip() for line in out.stdout.splitlines() if line.strip())


# ----------------------------------------------------------------------------- configurations


TIMED_PLANNERS = ("lpg", "tamer")


@dataclass(frozen=True)
class PlannerConfig:
    """A planner configuration: for Fast Downward an ``--alias`` or search
    options; for ENHSP (``planner="enhsp"``, :mod:`.enhsp`) its options.

    ``name`` names the method in records: Fast Downward's are ``fd-<name>``
    (the alias itself, or ``search-<8 hex digits of the options' sha256>``),
    ENHSP's are their names (``enhsp``, ``enhsp-hadd``, ``enhsp-opt``)."""

    name: str
    alias: str | None = None
    search_args: tuple[str, ...] = ()
    planner: str = "fd"

    @property
    def method(self) -> str:
        return f"fd-{self.name}" if self.planner == "fd" else self.name

    @property
    def timed(self) -> bool:
        """A temporal planner's configuration (:mod:`.temporal`): its plans are timed."""
        return self.planner in TIMED_PLANNERS

    @property
    def search(self) -> str | None:
        return shlex.join(self.search_args) if self.search_args else None


CONFIGS: dict[str, PlannerConfig] = {
    "lama-first": PlannerConfig("lama-first", alias="lama-first"),
    "seq-sat-lama-2011": PlannerConfig("seq-sat-lama-2011", alias="seq-sat-lama-2011"),
}

_ALIAS_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


def resolve_config(spec: str, *, check_alias: bool = True) -> PlannerConfig:
    """A configuration from its command-line spelling.

    * ``lama-first``, ``seq-sat-lama-2011`` or any other alias name
      (``seq-opt-lmcut``), optionally written ``--alias NAME``;
    * search options, written as Fast Downward takes them after the input
      files: ``--search "astar(lmcut())"`` or
      ``--evaluator "h=ff()" --search "lazy_greedy([h], preferred=[h])"``;
      a bare ``astar(lmcut())`` means ``--search astar(lmcut())``.
    """
    text = spec.strip()
    if not text:
        raise ValueError("empty planner configuration")
    if text in CONFIGS:
        return CONFIGS[text]
    words = shlex.split(text)
    if words[0] == "--alias":
        if len(words) != 2:
            raise ValueError(f"'--alias' takes one name, got: {spec}")
        text = words[1]
        if text in CONFIGS:
            return CONFIGS[text]
    elif words[0].startswith("--") or "(" in text:
        args = tuple(words) if words[0].startswith("--") else ("--search", text)
        if "--search" not in args:
            raise ValueError(f"search options must include --search: {spec}")
        digest = hashlib.sha256(shlex.join(args).encode()).hexdigest()[:8]
        return PlannerConfig(f"search-{digest}", search_args=args)
    if not _ALIAS_NAME.match(text):
        raise ValueError(f"not an alias name or search options: {spec}")
    if check_alias:
        aliases = known_aliases()
        if aliases and text not in aliases:
            import difflib

            close = difflib.get_close_matches(text, [*CONFIGS, *aliases], n=1, cutoff=0.6)
            guess = f" (did you mean '{close[0]}'?)" if close else ""
            raise ValueError(f"unknown Fast Downward alias '{text}'{guess}; known aliases: {', '.join(aliases)}")
    return PlannerConfig(text, alias=text)


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class FoundPlan:
    """One plan file. ``time_s``: seconds from launch until the file was
    completed; ``complete``: it ends with FD's cost line; ``valid``: our
    validator's verdict (``None`` for an incomplete file); ``cost``: the
    cost on FD's line; ``validated_cost``: the cost our validator computed
    (action costs of the task; the step count in unit-cost tasks)."""

    file: str
    time_s: float
    steps: tuple[str, ...]
    complete: bool
    before_deadline: bool
    cost: int | None = None
    valid: bool | None = None
    message: str = ""
    validated_cost: int | float | None = None
    unit_cost: bool = True
    validator: str | None = None  # VALIDATOR_ENGINE, VALIDATOR_VAL, or None (not validated)
    metric: str | None = None  # the task's :metric on this plan, e.g. "8 (minimize)", when it has one

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "time_s": round(self.time_s, 3),
            "length": len(self.steps),
            "cost": self.cost,
            "validated_cost": self.validated_cost,
            "complete": self.complete,
            "before_deadline": self.before_deadline,
            "valid": self.valid,
        }


@dataclass
class FDResult:
    """The result of one run. ``plan`` is the returned plan (``None`` unless
    a valid plan was found before the deadline, or an invalid one was
    returned by the planner: then ``plan_valid`` is ``False``)."""

    outcome: Outcome
    detail: str
    config: PlannerConfig
    time_limit: float
    memory_mb: int
    wall_s: float = 0.0
    returncode: int | None = None
    killed: bool = False
    plans: list[FoundPlan] = field(default_factory=list)
    plan: tuple[str, ...] | None = None
    plan_valid: bool | None = None
    validation: str = ""
    log_tail: str = ""
    workdir: str | None = None
    command: list[str] = field(default_factory=list)
    group_cleaned: bool | None = None  # no process of the planner's group was left
    pgid: int | None = None  # the planner's process group (its driver's pid)
    engine_gap: str | None = None  # the feature the engine does not support (then VAL judges the plans)
    validator: str | None = None  # who judged the returned plan

    @property
    def solved(self) -> bool:
        return self.outcome is Outcome.SOLVED

    @property
    def plan_length(self) -> int | None:
        return None if self.plan is None else len(self.plan)

    def _chosen(self) -> FoundPlan | None:
        """The plan file the returned plan came from."""
        chosen = [p for p in self.plans if p.steps == self.plan and p.complete and p.before_deadline]
        return chosen[-1] if chosen and self.plan is not None else None

    @property
    def last_plan_s(self) -> float | None:
        chosen = self._chosen()
        return None if chosen is None else round(chosen.time_s, 3)

    @property
    def plan_cost(self) -> int | float | None:
        """The returned plan's cost: our validator's, else Fast Downward's."""
        chosen = self._chosen()
        if chosen is None:
            return None
        return chosen.validated_cost if chosen.validated_cost is not None else chosen.cost

    def plan_text(self) -> str:
        """The returned plan in IPC format: one action a line, then the cost
        line as Fast Downward writes it (``general cost`` for action-cost
        tasks, with the plan's real cost)."""
        if self.plan is None:
            return ""
        if self.config.timed:  # a timed plan: its steps, then the value its validator computed
            value = self.plan_cost
            return "".join(f"{s}\n" for s in self.plan) + (f"; value = {_number(value)}\n" if value is not None else "")
        chosen = self._chosen()
        cost = self.plan_cost if self.plan_cost is not None else len(self.plan)
        unit = chosen is None or chosen.unit_cost
        lines = "".join(f"{s}\n" for s in self.plan)
        if chosen is not None and chosen.metric is not None:  # a task with a :metric (numeric tasks): its value
            general = "" if unit else f"; cost = {_number(cost)} (general cost)\n"
            return lines + general + f"; metric = {chosen.metric}\n"
        return lines + f"; cost = {_number(cost)} ({'unit' if unit else 'general'} cost)\n"

    def summary(self) -> str:
        """One line for people: outcome, plan length, times, configuration."""
        parts = [f"{self.config.method}: {self.outcome.value}"]
        if self.plan is not None:
            verdict = {True: "", False: " (INVALID)", None: " (NOT VALIDATED)"}[self.plan_valid]
            parts.append(f"plan length {len(self.plan)}{verdict}")
            if self.validator == VALIDATOR_VAL:
                parts.append(f"checked by VAL: {self.engine_gap}")
            chosen = self._chosen()
            if chosen is not None and not chosen.unit_cost and self.plan_cost is not None:
                parts.append(f"{'value' if self.config.timed else 'cost'} {_number(self.plan_cost)}")
            if chosen is not None and chosen.metric is not None:
                parts.append(f"metric {chosen.metric}")
        if self.last_plan_s is not None:
            parts.append(f"plan at {self.last_plan_s:.2f}s")
        parts.append(f"wall {self.wall_s:.2f}s of {self.time_limit:g}s")
        parts.append(self.detail)
        return "; ".join(parts)


def _number(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


# ----------------------------------------------------------------------------- process control


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def group_processes(pgid: int) -> list[tuple[int, str]]:
    """``(pid, state)`` of the live processes in process group ``pgid``
    (zombies excluded: they have exited and only wait to be reaped, which an
    orphan's new parent does in its own time). Reads ``/proc``; where there is
    no ``/proc``, reports the group as one process of unknown state while
    ``killpg(pgid, 0)`` still succeeds."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return []
        return [(pgid, "?")]
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found.append((int(entry.name), fields[0]))
    return found


def _group_gone(pgid: int, wait_s: float = 15.0) -> bool:
    """Whether no live process of the group remains (waits a little for the
    kernel to tear killed processes down)."""
    end = time.monotonic() + wait_s
    while group_processes(pgid):
        if time.monotonic() >= end:
            return False
        time.sleep(0.01)
    return True


def _exited(pid: int) -> bool:
    """Whether the child has exited, without reaping it (so its pid, which is
    the group id, cannot be reused while we still signal the group)."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return info is not None and info.si_pid == pid


_WATCHDOG = 'read -r _ ; kill -KILL -"$0" 2>/dev/null'
"""Reads its stdin, a pipe whose only writer is this process, until end of
file, then kills the planner's process group. End of file comes when we close
the pipe, or when the kernel does because we died (even of ``kill -9``),
so the planner never outlives us."""


def _start_watchdog(pgid: int) -> subprocess.Popen[bytes] | None:
    with contextlib.suppress(OSError):  # no sh: only the kill -9 guarantee is lost
        return subprocess.Popen(["/bin/sh", "-c", _WATCHDOG, str(pgid)], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    return None


class _Run:
    """One launched planner: waits for it under the deadline and cleans up."""

    def __init__(self, cmd: list[str], workdir: Path, log_path: Path) -> None:
        self.log = open(log_path, "wb")  # noqa: SIM115  (closed in close())
        self.start_epoch = time.time()
        self.start = time.monotonic()
        self.proc = subprocess.Popen(
            cmd, cwd=workdir, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.pgid = self.proc.pid  # setsid makes the child a group leader
        self.watchdog = _start_watchdog(self.pgid)
        self.end: float | None = None
        self.cleaned = False

    def wait(self, time_limit: float, cancel: threading.Event | None) -> tuple[bool, bool]:
        """Wait until exit, deadline or cancel; returns ``(killed at the
        deadline, interrupted)``. Leaves no process of the group behind."""
        deadline = self.start + time_limit
        killed = interrupted = False
        try:
            while not _exited(self.proc.pid):
                now = time.monotonic()
                if now >= deadline:
                    killed = True
                    break
                if cancel is not None and cancel.is_set():
                    interrupted = True
                    break
                time.sleep(min(POLL_S, max(deadline - now, 0.0)))
            self.end = time.monotonic()
        finally:  # also on KeyboardInterrupt: never leave the planner running
            self.close()
        return killed, interrupted

    def close(self) -> None:
        _kill_group(self.pgid)
        if self.watchdog is not None:  # before reaping the leader: its pgid cannot be reused yet
            with contextlib.suppress(OSError):
                self.watchdog.stdin.close()  # type: ignore[union-attr]
            self.watchdog.wait()
        self.proc.wait()
        self.cleaned = _group_gone(self.pgid)
        if self.end is None:
            self.end = time.monotonic()
        self.log.close()


# ----------------------------------------------------------------------------- temporary run folders

_TEMP_PREFIX = "pypddl-fd-"
_OWNER_FILE = "owner.pid"


def _temp_run_dir() -> Path:
    """A fresh temporary run folder that names its owner (this process), so
    that a later run can remove it if we die before we do."""
    run_dir = Path(tempfile.mkdtemp(prefix=_TEMP_PREFIX))
    (run_dir / _OWNER_FILE).write_text(f"{os.getpid()} {_start_time(os.getpid())}")
    return run_dir


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot (``/proc``), '?' where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "?"
    return stat[stat.rindex(")") + 2:].split()[19]


def _owner_alive(text: str) -> bool:
    pid_text, _, started = text.partition(" ")
    try:
        pid = int(pid_text)
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return started in ("", "?") or _start_time(pid) in ("?", started)  # a reused pid started later


def sweep_stale_run_dirs(root: str | os.PathLike[str] | None = None) -> list[Path]:
    """Remove the temporary run folders (``pypddl-fd-*`` in ``root``, the
    temporary directory by default) whose owning process has died, say a
    ``batch`` killed with ``kill -9``; returns them. Folders of live runs, and
    folders without an owner file, are left alone."""
    removed = []
    for folder in Path(root or tempfile.gettempdir()).glob(_TEMP_PREFIX + "*"):
        try:
            owner = (folder / _OWNER_FILE).read_text()
        except OSError:
            continue
        if not _owner_alive(owner):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


# ----------------------------------------------------------------------------- plans


class _Judge:
    """Who checks a plan file: our validator, or VAL where the engine does not
    support the task (``gap`` says which feature)."""

    def __init__(self, lifted: LiftedTask | None, domain: Path, problem: Path, gap: str | None) -> None:
        self.lifted, self.domain, self.problem, self.gap = lifted, domain, problem, gap
        self.metrics: dict[str, str] = {}  # plan file name -> the :metric's value on it, e.g. "8 (minimize)"
        if lifted is not None:
            self.unit_cost = not lifted.uses_action_costs
        else:  # a textual guess is enough to label the cost line
            self.unit_cost = "total-cost" not in domain.read_text(errors="replace").lower()

    def __call__(self, text: str, name: str) -> tuple[bool | None, str, int | float | None, str | None]:
        """(valid, message, validated cost, validator name)."""
        if self.lifted is not None:
            try:
                report = validate_plan(self.lifted, parse_plan(text, filename=name))
            except PDDLError as err:
                return False, f"unreadable plan: {err.message}", None, VALIDATOR_ENGINE
            if report.valid and report.metric is not None and self.lifted.numeric_task:  # else the metric is the cost
                from pypddlengine.exact import to_text

                self.metrics[name] = f"{to_text(report.metric)} ({report.metric_direction})"
            return report.valid, report.summary(), report.cost if report.valid else None, VALIDATOR_ENGINE
        verdict = val_validate(self.domain, self.problem, text)
        why = f"the engine cannot check this task ({self.gap})"
        if verdict is None:
            return None, f"not validated: {why} and VAL gave no verdict", None, None
        return verdict, f"VAL: {'valid' if verdict else 'invalid'} plan; {why}", None, VALIDATOR_VAL


def _read_plans(workdir: Path, start_epoch: float, time_limit: float, judge: _Judge) -> list[FoundPlan]:
    files = []
    for path in workdir.iterdir():
        m = _PLAN_FILE.match(path.name)
        if m:
            files.append((int(m.group(1) or 0), path))
    plans = []
    for _, path in sorted(files):
        text = path.read_text(errors="replace")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        cost_match = _COST_LINE.match(lines[-1]) if lines else None
        steps = tuple(ln for ln in lines if not ln.startswith(";"))
        time_s = max(path.stat().st_mtime - start_epoch, 0.0)
        valid: bool | None = None
        validated_cost: int | float | None = None
        validator: str | None = None
        message = "incomplete plan file (no cost line)"
        if cost_match:
            valid, message, validated_cost, validator = judge(text, path.name)
        plans.append(
            FoundPlan(
                file=path.name,
                time_s=time_s,
                steps=steps,
                complete=cost_match is not None,
                before_deadline=time_s <= time_limit,
                cost=int(cost_match.group(1)) if cost_match else None,
                valid=valid,
                message=message,
                validated_cost=validated_cost,
                unit_cost=judge.unit_cost,
                validator=validator,
                metric=judge.metrics.get(path.name),
            )
        )
    return plans


def _log_end(path: Path, size: int = 200_000) -> str:
    """The last ``size`` bytes of a planner's log (where its verdict is)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(path.stat().st_size - size, 0))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def _tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        data = path.read_bytes()[-20000:].decode(errors="replace")
    except OSError:
        return ""
    return "\n".join(data.splitlines()[-lines:])


# ----------------------------------------------------------------------------- the runner


def build_command(
    config: PlannerConfig, domain: Path, problem: Path, workdir: Path, time_limit: float, memory_mb: int
) -> list[str]:
    cpu_limit = max(1, math.ceil(time_limit)) + 1  # a backstop only: our wall clock decides
    cmd = [
        sys.executable, str(fd_driver()),
        "--overall-time-limit", f"{cpu_limit}s",
        "--overall-memory-limit", f"{memory_mb}M",
        "--plan-file", str(workdir / "sas_plan"),
        "--sas-file", str(workdir / "output.sas"),
    ]
    if config.alias:
        cmd += ["--alias", config.alias]
    cmd += [str(domain), str(problem)]
    cmd += list(config.search_args)
    return cmd


def run_fd(
    domain: str | os.PathLike[str],
    problem: str | os.PathLike[str],
    config: PlannerConfig | str = "lama-first",
    *,
    time_limit: float = 180.0,
    memory_mb: int = DEFAULT_MEMORY_MB,
    workdir: str | os.PathLike[str] | None = None,
    cancel: threading.Event | None = None,
    lifted: LiftedTask | None = None,
) -> FDResult:
    """Run Fast Downward on one task under a wall-clock budget (see the
    module docstring). ``workdir``: keep the run's files there (log, plans)
    instead of in a temporary directory that is removed. ``cancel``: set it
    from another thread to stop the run (outcome ``interrupted``)."""
    if isinstance(config, str):
        config = resolve_config(config)
    if time_limit <= 0:
        raise ValueError("the time limit must be positive")
    if memory_mb <= 0:
        raise ValueError("the memory limit must be positive")
    result = FDResult(Outcome.INPUT_ERROR, "", config, float(time_limit), int(memory_mb))

    def stale(name: str) -> bool:  # a kept directory reused by a re-run
        return bool(_PLAN_FILE.match(name)) or name in ("output.sas", "fd.log")

    return supervised_run(
        result, domain, problem, lifted, workdir, cancel, stale=stale, log_name="fd.log",
        command=lambda d, p, run_dir: build_command(config, d, p, run_dir, time_limit, memory_mb),
        read=lambda run_dir, log, start, judge: _read_plans(run_dir, start, time_limit, judge),
        decide=lambda res, log: _decide(res),
    )


def supervised_run(
    result: FDResult,
    domain: str | os.PathLike[str],
    problem: str | os.PathLike[str],
    lifted: LiftedTask | None,
    workdir: str | os.PathLike[str] | None,
    cancel: threading.Event | None,
    *,
    stale: Callable[[str], bool],
    log_name: str,
    command: Callable[[Path, Path, Path], list[str]],
    read: Callable[[Path, str, float, _Judge], list[FoundPlan]],
    decide: Callable[[FDResult, str], None],
) -> FDResult:
    """One planner run, the careful way, for any planner (see the module
    docstring): load the task with the engine (an input error stops here; a
    feature the engine does not support leaves the judging to VAL), make the
    run folder (removing ``stale`` files of a kept one), run ``command(domain,
    problem, run_dir)`` with its output in ``log_name`` under the wall-clock
    budget, then ``read`` the plans and ``decide`` the outcome from them and
    the log."""
    domain_path, problem_path = Path(domain).resolve(), Path(problem).resolve()
    if lifted is None:
        try:
            lifted = load_task(domain_path, problem_path)
        except UnsupportedRequirementError as err:
            # the planner may well accept what the engine does not: hand it the
            # task and let VAL judge its plans (see _Judge)
            result.engine_gap = err.message
        except PDDLError as err:
            result.detail = str(err).splitlines()[0] if str(err) else err.message
            result.log_tail = str(err)
            return result
    result.command = command(domain_path, problem_path, Path("<run>"))  # a missing planner fails here
    keep = workdir is not None
    if not keep:
        sweep_stale_run_dirs()
    # resolved: the planner runs inside it, so a relative path would be read from there
    run_dir = Path(workdir).resolve() if keep else _temp_run_dir()  # type: ignore[arg-type]
    run_dir.mkdir(parents=True, exist_ok=True)
    for old in run_dir.iterdir():
        if stale(old.name):
            old.unlink()
    result.command = command(domain_path, problem_path, run_dir)
    log_path = run_dir / log_name
    try:
        run = _Run(result.command, run_dir, log_path)
        killed, interrupted = run.wait(result.time_limit, cancel)
        result.wall_s = round((run.end or time.monotonic()) - run.start, 3)
        result.returncode = run.proc.returncode
        result.killed = killed
        result.group_cleaned = run.cleaned
        result.pgid = run.pgid
        log = _log_end(log_path)
        judge = _Judge(lifted, domain_path, problem_path, result.engine_gap)
        result.plans = read(run_dir, log, run.start_epoch, judge)
        result.log_tail = _tail(log_path)
        if interrupted:
            result.outcome, result.detail = Outcome.INTERRUPTED, "stopped by the user"
            return result
        decide(result, log)
        return result
    finally:
        if keep:
            result.workdir = str(run_dir)
        else:
            shutil.rmtree(run_dir, ignore_errors=True)


def new_result(configs: dict[str, PlannerConfig], config: PlannerConfig | str, time_limit: float,
               memory_mb: int, what: str) -> FDResult:
    """The empty result of a run of ``config`` (a name looked up in
    ``configs``, where ``what`` names them in the error) after checking the
    limits: for the planners that write one plan (ENHSP, LPG, TAMER)."""
    if isinstance(config, str):
        if config not in configs:
            raise ValueError(f"unknown {what} '{config}'; known: {', '.join(configs)}")
        config = configs[config]
    if time_limit <= 0 or memory_mb <= 0:
        raise ValueError("the time and memory limits must be positive")
    return FDResult(Outcome.INPUT_ERROR, "", config, float(time_limit), int(memory_mb))


def return_last_plan(result: FDResult) -> bool:
    """Return the last complete plan written before the deadline, with its
    verdict and outcome (an invalid plan is the planner's error); ``False``
    when there is none. For the planners that write one plan."""
    usable = [p for p in result.plans if p.complete and p.before_deadline]
    if not usable:
        return False
    chosen = usable[-1]
    result.plan, result.plan_valid, result.validation = chosen.steps, chosen.valid, chosen.message
    result.validator = chosen.validator
    if chosen.valid is False:
        result.outcome, result.detail = Outcome.PLANNER_ERROR, f"the planner's plan is invalid: {chosen.message}"
    else:
        result.outcome = Outcome.SOLVED
        result.detail = "plan found" if chosen.valid else f"plan found, not validated: {chosen.message}"
    return True


def planner_ended_without_plan(result: FDResult, log: str, who: str) -> None:
    """The outcome of a run that ended by itself (or by a signal) with no
    plan and nothing in its log that says why: the planner's error, with
    the last line it printed."""
    result.outcome = Outcome.PLANNER_ERROR
    if result.returncode is not None and result.returncode < 0:
        result.detail = f"killed by signal {-result.returncode}"
        return
    last = next((ln.strip() for ln in reversed(log.splitlines()) if ln.strip()), "")
    result.detail = f"no plan; exit code {result.returncode}" + (f"; {who} said: {last[:200]}" if last else "")


def _decide(result: FDResult) -> None:
    """Set outcome, detail and the returned plan from plans and exit code."""
    usable = [p for p in result.plans if p.complete and p.before_deadline]
    late = [p for p in result.plans if p.complete and not p.before_deadline]
    code = describe_returncode(result.returncode)
    if usable:
        chosen = usable[-1]
        result.plan, result.plan_valid, result.validation = chosen.steps, chosen.valid, chosen.message
        result.validator = chosen.validator
        if chosen.valid is None:  # nobody could check it (engine gap, no VAL verdict): say so, don't guess
            result.outcome = Outcome.SOLVED
            result.detail = f"{counted(len(usable), 'plan')} found, not validated: {chosen.message}"
        elif chosen.valid:
            result.outcome = Outcome.SOLVED
            how = "stopped at the deadline" if result.killed else code
            n = len(usable)
            result.detail = f"{n} plan{'s' if n > 1 else ''} found; {how}"
        else:
            result.outcome = Outcome.PLANNER_ERROR
            result.detail = f"the planner's plan is invalid: {chosen.message}"
        return
    result.outcome, result.detail = classify_returncode(result.returncode, killed_at_deadline=result.killed)
    if late:
        result.detail += f" ({len(late)} plan(s) completed after the deadline, ignored)"
    elif any(not p.complete for p in result.plans):
        result.detail += " (an incomplete plan file was ignored)"

