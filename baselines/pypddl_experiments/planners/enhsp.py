"""ENHSP, the numeric planning baseline, run as a subprocess like Fast Downward.

ENHSP (Enrico Scala's Expressive Numeric Heuristic Search Planner) ships as
a jar in the PyPI wheel ``up-enhsp`` and needs a Java 17 runtime. We call the
jar on the PDDL files directly (``java -jar enhsp.jar -o DOMAIN -f PROBLEM
-sp PLAN -npm ...``): nothing of unified-planning is imported. One run is the
same careful run as :func:`~.fd.run_fd`: its own directory and process group,
a **wall-clock** budget enforced by killing the group (ENHSP has no limit of
its own here), a watchdog that kills the group if we die, the memory limit as
the JVM's maximum heap (``-Xmx``), and every plan validated (by our
validator, or by VAL where the engine cannot load the task).

ENHSP writes its plan file once, when it has finished, and says so in its
log ("Problem Solved"); "Problem unsolvable" (its relaxation proves that no
plan exists) is a proof, unless ENHSP failed to read the task first: a Java
exception or "Syntax Error" in its log is a planner error that says ENHSP
could not read the task (IPC 2002 zenotravel's ``either`` types, settlers'
late ``:constants``), never an unsolvable task.

Configurations (``-p``/``--planner``): ``enhsp`` = ``-planner sat-hmrp``
(ENHSP's recommended satisficing setting: greedy best-first search on the
numeric relaxed-plan heuristic of Scala et al. 2016/2020), ``enhsp-hadd``
= ``-s gbfs -h hadd`` (unified-planning's default), ``enhsp-opt`` =
``-planner opt-hrmax`` (optimal, A* on h^max with redundant constraints).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path

from pypddlengine.lifted import LiftedTask

from .fd import (
    DEFAULT_MEMORY_MB,
    FDResult,
    FoundPlan,
    PlannerConfig,
    PlannerUnavailable,
    _Judge,
    new_result,
    planner_ended_without_plan,
    return_last_plan,
    supervised_run,
)
from .outcomes import Outcome

__all__ = ["ENHSP_CONFIGS", "enhsp_jar", "enhsp_provenance", "java_binary", "run_enhsp"]

ENHSP_CONFIGS: dict[str, PlannerConfig] = {
    "enhsp": PlannerConfig("enhsp", planner="enhsp", search_args=("-planner", "sat-hmrp")),
    "enhsp-hadd": PlannerConfig("enhsp-hadd", planner="enhsp", search_args=("-s", "gbfs", "-h", "hadd")),
    "enhsp-opt": PlannerConfig("enhsp-opt", planner="enhsp", search_args=("-planner", "opt-hrmax")),
}
MIN_JAVA = 17
PLAN_FILE = "enhsp.plan"
LOG_FILE = "enhsp.log"

_SOLVED = "Problem Solved"
_UNSOLVABLE = ("Problem unsolvable", "Unsolvable Problem")
_READ_FAILURE = re.compile(
    r"Syntax Error|Exception|SEVERE:|no viable alternative|mismatched input|^\S+ not found$", re.I | re.M)
"""What ENHSP prints when it cannot read a task (IPC 2002 depots and rovers: "Depot not found",
"Lander not found", for types its parser mislays; zenotravel: a ClassCastException on 'either')."""
_OUT_OF_MEMORY = "java.lang.OutOfMemoryError"


def enhsp_jar() -> Path:
    """The jar inside the installed ``up-enhsp`` wheel (found without
    importing it: its ``__init__`` imports unified-planning)."""
    spec = importlib.util.find_spec("up_enhsp")
    if spec is None or not spec.submodule_search_locations:
        raise PlannerUnavailable(
            "ENHSP is not installed; install it with: pip install up-enhsp (or pip install 'pypddlengine[planners]'); "
            f"it also needs a Java {MIN_JAVA} runtime (e.g. apt-get install openjdk-{MIN_JAVA}-jre-headless)"
        )
    jar = Path(next(iter(spec.submodule_search_locations))) / "ENHSP" / "enhsp.jar"
    if not jar.is_file():
        raise PlannerUnavailable(f"up-enhsp is installed but {jar} is missing")
    return jar


@functools.cache
def _java() -> tuple[str | None, str]:
    """``(path, version text)`` of the ``java`` on PATH (or ``$JAVA_HOME/bin/java``)."""
    home = os.environ.get("JAVA_HOME")
    candidates = [str(Path(home) / "bin" / "java")] if home else []
    found = shutil.which("java")
    if found:
        candidates.append(found)
    for java in candidates:
        try:
            out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        text = (out.stderr or out.stdout).strip().splitlines()
        return java, text[0] if text else ""
    return None, ""


def java_binary() -> str:
    """A ``java`` of version 17 or newer, or :class:`PlannerUnavailable`."""
    java, version = _java()
    if java is None:
        raise PlannerUnavailable(f"ENHSP needs a Java {MIN_JAVA} runtime and no 'java' was found "
                                 f"(e.g. apt-get install openjdk-{MIN_JAVA}-jre-headless)")
    match = re.search(r'version "(\d+)(?:\.(\d+))?', version)
    major = int(match.group(1)) if match else 0
    if major == 1 and match and match.group(2):  # "1.8.0" is Java 8
        major = int(match.group(2))
    if major < MIN_JAVA:
        raise PlannerUnavailable(f"ENHSP needs Java {MIN_JAVA} or newer; {java} is: {version or 'unknown'}")
    return java


def enhsp_provenance() -> dict[str, str | None]:
    """The ``up-enhsp`` wheel's version and the Java runtime's version line."""
    try:
        wheel: str | None = importlib.metadata.version("up-enhsp")
    except importlib.metadata.PackageNotFoundError:
        wheel = None
    return {"wheel": wheel, "java": _java()[1] or None}


def build_command(config: PlannerConfig, domain: Path, problem: Path, workdir: Path, memory_mb: int) -> list[str]:
    return [java_binary(), f"-Xmx{memory_mb}m", "-jar", str(enhsp_jar()),
            "-o", str(domain), "-f", str(problem), "-sp", str(workdir / PLAN_FILE), "-npm",
            *config.search_args]


def _read_plan(run_dir: Path, log: str, start_epoch: float, time_limit: float, judge: _Judge) -> list[FoundPlan]:
    path = run_dir / PLAN_FILE
    if not path.is_file():
        return []
    text = path.read_text(errors="replace")
    steps = tuple(ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith(";"))
    complete = _SOLVED in log  # written in one go after the search; the log line comes after it
    time_s = max(path.stat().st_mtime - start_epoch, 0.0)
    valid = validated = validator = None
    message = "incomplete plan file (ENHSP did not report 'Problem Solved')"
    if complete:
        valid, message, validated, validator = judge("".join(f"{s}\n" for s in steps), path.name)
    return [FoundPlan(file=path.name, time_s=time_s, steps=steps, complete=complete,
                      before_deadline=time_s <= time_limit, cost=None, valid=valid, message=message,
                      validated_cost=validated, unit_cost=judge.unit_cost, validator=validator,
                      metric=judge.metrics.get(path.name))]


def _decide(result: FDResult, log: str) -> None:
    if return_last_plan(result):
        return
    if result.killed:
        result.outcome, result.detail = Outcome.TIMEOUT, "wall-clock budget exhausted (process group killed)"
    elif _OUT_OF_MEMORY in log:
        result.outcome, result.detail = Outcome.OUT_OF_MEMORY, "ENHSP ran out of memory (JVM heap)"
    elif _READ_FAILURE.search(log):
        line = next((ln.strip() for ln in log.splitlines() if _READ_FAILURE.search(ln)), "")
        result.outcome = Outcome.PLANNER_ERROR
        result.detail = f"ENHSP could not read or ground the task (a limit of ENHSP, not of the task): {line[:200]}"
    elif any(marker in log for marker in _UNSOLVABLE):
        result.outcome, result.detail = Outcome.UNSOLVABLE, "ENHSP proved the task unsolvable (relaxation)"
    else:
        planner_ended_without_plan(result, log, "ENHSP")


def run_enhsp(
    domain: str | os.PathLike[str],
    problem: str | os.PathLike[str],
    config: PlannerConfig | str = "enhsp",
    *,
    time_limit: float = 180.0,
    memory_mb: int = DEFAULT_MEMORY_MB,
    workdir: str | os.PathLike[str] | None = None,
    cancel: threading.Event | None = None,
    lifted: LiftedTask | None = None,
) -> FDResult:
    """Run ENHSP on one task under a wall-clock budget (see the module docstring)."""
    result = new_result(ENHSP_CONFIGS, config, time_limit, memory_mb, "ENHSP configuration")
    config = result.config
    return supervised_run(
        result, domain, problem, lifted, workdir, cancel, stale=lambda name: name in (PLAN_FILE, LOG_FILE),
        log_name=LOG_FILE, command=lambda d, p, run_dir: build_command(config, d, p, run_dir, memory_mb),
        read=lambda run_dir, log, start, judge: _read_plan(run_dir, log, start, time_limit, judge),
        decide=_decide,
    )
