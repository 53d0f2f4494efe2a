"""Temporal planners (PDDL 2.1 durative actions, PDDL 2.2 timed initial
literals), run like Fast Downward and ENHSP: the same supervised run
(:func:`~.fd.supervised_run`: own folder and process group, a wall-clock
budget enforced by killing the group, a watchdog), every plan written as a
clean IPC timed plan (``0.0003: (act a b) [5.0000]``, one step a line) and
validated before it is returned.

- ``lpg``: LPG-td, the ``lpg`` binary inside the PyPI wheel ``up-lpg``, run on
  the PDDL files (``lpg -o DOMAIN -f PROBLEM -n 1 -seed 1 -out plan``); it
  writes ``plan_1.SOL`` (upper case, a ``;`` header, a stray ``)`` on some
  lines), normalised here. The memory limit is the address-space limit
  (``prlimit --as``) where ``prlimit`` exists.
- ``tamer``: TAMER, through unified-planning's ``OneshotPlanner(name="tamer")``
  (PyPI ``up-tamer``), in a Python process of its own
  (:mod:`.tamer_worker`) so that the guard can kill it.

Which one ``auto`` picks for a temporal task (:data:`TEMPORAL_DEFAULT`) was
measured on the shared IPC temporal corpus (docs/time-planners.md).

Validation: the engine cannot load temporal tasks yet (issue 31), so plans
are judged by VAL at the IPC's temporal tolerance (``Validate -t 0.001``;
LPG separates happenings by less than VAL's default 0.01, as the IPC
allowed). :func:`judge_timed_plan` is the one place where the engine's own
temporal validator plugs in once it exists.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import threading
from pathlib import Path

from pypddlengine.lifted import LiftedTask

from .fd import (
    DEFAULT_MEMORY_MB,
    VALIDATOR_ENGINE,
    VALIDATOR_VAL,
    FDResult,
    FoundPlan,
    PlannerConfig,
    PlannerUnavailable,
    new_result,
    planner_ended_without_plan,
    return_last_plan,
    supervised_run,
)
from .outcomes import Outcome
from .val import val_run

__all__ = ["JUDGE_EPSILON", "TEMPORAL_CONFIGS", "TEMPORAL_DEFAULT", "is_temporal_task", "judge_timed_plan",
           "lpg_binary", "run_temporal", "temporal_provenance", "timed_plan_lines"]

TEMPORAL_CONFIGS: dict[str, PlannerConfig] = {
    "lpg": PlannerConfig("lpg", planner="lpg", search_args=("-n", "1", "-seed", "1")),
    "tamer": PlannerConfig("tamer", planner="tamer"),
}
TEMPORAL_DEFAULT = "lpg"
"""``auto``'s planner for temporal tasks: LPG solved more of the measured
sample of the shared temporal corpus within 60 s than TAMER (docs/time-planners.md)."""

JUDGE_EPSILON = 0.001
"""VAL's tolerance (``-t``) for judging planners' timed plans: the IPC temporal tracks' 0.001."""

LPG_LOG, LPG_OUT = "lpg.log", "plan"
TAMER_LOG, TAMER_PLAN = "tamer.log", "tamer.plan"

# --------------------------------------------------------------------------- tasks and plans

_COMMENT = re.compile(r";[^\n]*")
_DURATIVE = re.compile(r"\(\s*:durative-action\b", re.I)
_TIL = re.compile(r"\(\s*at\s+[0-9.]+\s*\(", re.I)


def is_temporal_task(domain: str | os.PathLike[str], problem: str | os.PathLike[str]) -> bool:
    """Whether the task is temporal, read from the text (the engine refuses
    temporal tasks until it supports them): a ``:durative-action`` in the
    domain or a timed initial literal ``(at NUMBER (...))`` in the problem.
    False when a file cannot be read (the planner run reports it)."""
    try:
        d = _COMMENT.sub("", Path(domain).read_text(errors="replace"))
        p = _COMMENT.sub("", Path(problem).read_text(errors="replace"))
    except OSError:
        return False
    return bool(_DURATIVE.search(d) or _TIL.search(p))


_TIMED_STEP = re.compile(
    r"^\s*(?P<t>\d+(?:\.\d*)?|\.\d+)\s*:\s*\((?P<act>[^()]*)\)\s*(?:\[\s*(?P<d>\d+(?:\.\d*)?|\.\d+)\s*\])?")


def timed_plan_lines(text: str) -> tuple[str, ...]:
    """A planner's timed plan as clean IPC lines ``TIME: (name args) [DURATION]``:
    lower case, single spaces, numbers as the planner wrote them; comments,
    headers and stray parentheses dropped."""
    lines = []
    for raw in text.splitlines():
        m = _TIMED_STEP.match(raw.split(";", 1)[0])
        if m:
            act = " ".join(m.group("act").split()).lower()
            lines.append(f"{m.group('t')}: ({act})" + (f" [{m.group('d')}]" if m.group("d") else ""))
    return tuple(lines)


def judge_timed_plan(domain: Path, problem: Path, plan_text: str) -> tuple[bool | None, str, float | None, str | None]:
    """``(valid, message, value, validator)`` for a planner's timed plan: the
    engine's temporal validator at :data:`JUDGE_EPSILON` (VAL's semantics;
    ``value`` the metric, or the makespan without one). A task the engine
    cannot load (a feature it refuses) goes to VAL instead, which the message
    says; ``--crosscheck`` runs VAL beside the engine as for classical plans."""
    from pypddlengine.errors import PDDLError
    from pypddlengine.temporal import load_temporal, validate_timed_plan

    try:
        report = validate_timed_plan(load_temporal(str(domain), str(problem)), plan_text, epsilon=JUDGE_EPSILON)
    except PDDLError as err:
        verdict = val_run(domain, problem, plan_text, epsilon=JUDGE_EPSILON)
        if verdict.verdict is None:
            return None, f"not validated: the engine cannot check it ({err.code}) and VAL gave no verdict " \
                         f"({verdict.problem})", None, None
        word = "valid" if verdict.verdict else "invalid"
        return verdict.verdict, f"VAL (-t {JUDGE_EPSILON:g}, the engine cannot load it: {err.code}): {word} plan", \
            verdict.value, VALIDATOR_VAL
    value = report.metric if report.metric is not None else report.makespan
    if report.valid:
        return True, f"valid plan (-t {JUDGE_EPSILON:g})", float(value), VALIDATOR_ENGINE
    why = report.failure.message if report.failure else "the goal does not hold at the end"
    return False, f"invalid plan (-t {JUDGE_EPSILON:g}): {why}", None, VALIDATOR_ENGINE


def _found(path: Path, steps: tuple[str, ...], start_epoch: float, time_limit: float, complete: bool,
           domain: Path, problem: Path) -> FoundPlan:
    time_s = max(path.stat().st_mtime - start_epoch, 0.0)
    valid = value = validator = None
    message = "incomplete plan file"
    if complete:
        valid, message, value, validator = judge_timed_plan(domain, problem, "".join(f"{s}\n" for s in steps))
    return FoundPlan(file=path.name, time_s=time_s, steps=steps, complete=complete,
                     before_deadline=time_s <= time_limit, cost=None, valid=valid, message=message,
                     validated_cost=value, unit_cost=False, validator=validator)


# --------------------------------------------------------------------------- LPG


def lpg_binary() -> Path:
    """The ``lpg`` binary inside the installed ``up-lpg`` wheel (found without
    importing the package: its ``__init__`` imports unified-planning)."""
    import importlib.util

    spec = importlib.util.find_spec("up_lpg")
    if spec is None or not spec.submodule_search_locations:
        raise PlannerUnavailable("LPG is not installed; install it with: pip install up-lpg")
    path = Path(next(iter(spec.submodule_search_locations))) / "lpg"
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise PlannerUnavailable(f"up-lpg is installed but {path} is missing or not executable")
    return path


def _lpg_command(config: PlannerConfig, domain: Path, problem: Path, memory_mb: int) -> list[str]:
    cmd = [str(lpg_binary()), "-o", str(domain), "-f", str(problem), *config.search_args, "-out", LPG_OUT]
    prlimit = shutil.which("prlimit")
    return [prlimit, f"--as={memory_mb * 1024 * 1024}", "--", *cmd] if prlimit else cmd


def _read_lpg(run_dir: Path, log: str, start_epoch: float, time_limit: float, domain: Path,
              problem: Path) -> list[FoundPlan]:
    plans = []
    for path in sorted(run_dir.glob(f"{LPG_OUT}_*.SOL")):
        text = path.read_text(errors="replace")
        steps = timed_plan_lines(text)
        # LPG writes the file at once after its search; the plan-file line of its log comes after it
        complete = bool(steps) and "Plan file:" in log
        plans.append(_found(path, steps, start_epoch, time_limit, complete, domain, problem))
    return plans


_LPG_UNSOLVABLE = ("Goals of the planning problem can not be reached", "The problem is unsolvable",
                   "problem proven unsolvable")
_LPG_GAVE_UP = "search limit exceeded"  # LPG's local search stopped at its own step limit, no plan, no proof
_LPG_MEMORY = ("ran out of memory", "Cannot allocate memory", "std::bad_alloc")

# --------------------------------------------------------------------------- TAMER


def _tamer_command(domain: Path, problem: Path, run_dir: Path, memory_mb: int) -> list[str]:
    import importlib.util

    if importlib.util.find_spec("up_tamer") is None or importlib.util.find_spec("unified_planning") is None:
        raise PlannerUnavailable("TAMER is not installed; install it with: pip install up-tamer unified-planning")
    worker = Path(__file__).with_name("tamer_worker.py")
    return [sys.executable, str(worker), str(domain), str(problem), str(run_dir / TAMER_PLAN), str(memory_mb)]


def _read_tamer(run_dir: Path, log: str, start_epoch: float, time_limit: float, domain: Path,
                problem: Path) -> list[FoundPlan]:
    path = run_dir / TAMER_PLAN
    if not path.is_file():
        return []
    steps = timed_plan_lines(path.read_text(errors="replace"))
    return [_found(path, steps, start_epoch, time_limit, "status: SOLVED" in log, domain, problem)]


def temporal_provenance(planner: str) -> dict[str, str | None]:
    """The version of the wheel that ships ``planner`` (``up-lpg``, ``up-tamer``)."""
    import importlib.metadata

    try:
        wheel: str | None = importlib.metadata.version(f"up-{planner}")
    except importlib.metadata.PackageNotFoundError:
        wheel = None
    return {"wheel": wheel}


# --------------------------------------------------------------------------- outcomes


def _decide(result: FDResult, log: str) -> None:
    """Outcome and returned plan of an LPG or TAMER run, from its plan and log."""
    who = {"lpg": "LPG", "tamer": "TAMER"}[result.config.planner]
    if return_last_plan(result):
        return
    said = next((ln.strip() for ln in log.splitlines() if ln.startswith(("read error:", "planner error:"))), "")
    if result.killed:
        result.outcome, result.detail = Outcome.TIMEOUT, "wall-clock budget exhausted (process group killed)"
    elif any(m in log for m in _LPG_MEMORY) or "MemoryError" in said:
        result.outcome, result.detail = Outcome.OUT_OF_MEMORY, f"{who} ran out of memory"
    elif said:
        result.outcome = Outcome.PLANNER_ERROR
        result.detail = f"{who} could not read or plan for the task (a limit of {who}, not of the task): {said}"
    elif any(m in log for m in _LPG_UNSOLVABLE) or "status: UNSOLVABLE_PROVEN" in log:
        result.outcome, result.detail = Outcome.UNSOLVABLE, f"{who} proved the task unsolvable"
    elif "status: UNSOLVABLE_INCOMPLETELY" in log or _LPG_GAVE_UP in log:
        result.outcome, result.detail = Outcome.INCOMPLETE, f"{who}'s search ended without a plan (incomplete)"
    else:
        planner_ended_without_plan(result, log, who)


def run_temporal(
    domain: str | os.PathLike[str],
    problem: str | os.PathLike[str],
    config: PlannerConfig | str = TEMPORAL_DEFAULT,
    *,
    time_limit: float = 180.0,
    memory_mb: int = DEFAULT_MEMORY_MB,
    workdir: str | os.PathLike[str] | None = None,
    cancel: threading.Event | None = None,
    lifted: LiftedTask | None = None,
) -> FDResult:
    """Run LPG or TAMER on one task under a wall-clock budget (see the module docstring)."""
    result = new_result(TEMPORAL_CONFIGS, config, time_limit, memory_mb, "temporal planner")
    config = result.config
    d, p = Path(domain).resolve(), Path(problem).resolve()
    if config.planner == "lpg":
        return supervised_run(
            result, domain, problem, lifted, workdir, cancel,
            stale=lambda name: name == LPG_LOG or name.endswith(".SOL"), log_name=LPG_LOG,
            command=lambda dd, pp, run_dir: _lpg_command(config, dd, pp, memory_mb),
            read=lambda run_dir, log, start, judge: _read_lpg(run_dir, log, start, time_limit, d, p),
            decide=_decide)
    return supervised_run(
        result, domain, problem, lifted, workdir, cancel,
        stale=lambda name: name in (TAMER_LOG, TAMER_PLAN), log_name=TAMER_LOG,
        command=lambda dd, pp, run_dir: _tamer_command(dd, pp, run_dir, memory_mb),
        read=lambda run_dir, log, start, judge: _read_tamer(run_dir, log, start, time_limit, d, p),
        decide=_decide)
