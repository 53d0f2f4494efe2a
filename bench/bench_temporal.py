"""Temporal benchmark (issue 31, "Speed"): validating timed plans beside VAL
and unified-planning, and a TemporalSession step beside a classical Session
step on a task of the same size, in one run.

    python bench/bench_temporal.py                    # ~100, ~500, ~2000 happenings
    python bench/bench_temporal.py --sizes 500 --repeat 3
    python bench/bench_temporal.py --sizes 2000 --steps-only   # (b) alone, a few seconds a round

Tasks and plans: the bundled workshop generator (``pypddl generate
workshop``: 10 bays, 2 technicians, no dark bay, seed 1) with as many
machines as it takes for the plan below to have about the number of
happenings asked for (``--sizes``). The plan is built here, valid by
construction: the machines are dealt to the technicians in turn; each
technician walks the shortest corridor path to its next machine, repairs it,
tests it, one action after another with 0.01 between an end and the next
start; the second technician's clock starts 0.5 later, so happenings rarely
coincide. Every verdict is checked (a tool that calls the plan invalid shows
its error instead of a time).

(a) Validation, each in a fresh worker process: ``ours load`` (read, parse,
check and compile the task: ``load_temporal``) and ``ours validate``
(``validate_timed_plan`` at epsilon 0.001 on the loaded task, lazy grounding
included), the medians of ``--repeat`` runs; ``pypddl validate`` the whole
process (``pypddl validate --epsilon 0.001 -q``, interpreter start-up
included), VAL's process (``Validate -t 0.001``), both medians of
``--repeat``; unified-planning's ``up_time_triggered_validator`` once:
``UP read`` (its PDDLReader on the task and the plan) and ``UP validate``.
Each cell gives wall-clock and CPU time (a child process's CPU from
``getrusage``): on a shared machine the CPU time is the steadier figure.

(b) Steps, on the task of the largest size: the plan replayed through a
TemporalSession (``start``, ``end``, ``advance`` to the next happening, each
timed alone, medians) and ``applicable()`` (what may start or end, every 10th
happening); beside it the same task as a classical one (the durative actions
made instantaneous: start conditions and all effects at once, no metric) and
the plan's actions in start order through a classical ``Session``, grounded
and lifted: ``execute`` and ``applicable_actions()`` (every 10th step).
Each step is timed alone, wall-clock and CPU time (``time.process_time``);
``--step-rounds`` rounds (default 3) run the temporal, grounded and lifted
workers in turn, each in a fresh process: the table shows the median over the
rounds, and each round's own CPU ratios of a temporal step over a classical
``execute`` are printed as a range (load moves single rounds).
The target (issue 31): a 500-happening plan validated in process faster than
VAL's process; a temporal step within 2x of a classical step.

The load average is printed with the results, which are saved to
``bench/out/temporal-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "baselines"), str(ROOT)]

EPSILON_TEXT = "0.001"  # IPC's tolerance (VAL's -t)
EPSILON = Fraction(EPSILON_TEXT)
BAYS, TECHNICIANS, SEED = 10, 2, 1
GAP, STAGGER = Decimal("0.01"), Decimal("0.5")
DURATIONS = {"walk": 3, "repair": 6, "test": 2}

CLASSICAL_WORKSHOP = """
(define (domain workshop)
  (:requirements :typing)
  (:types technician machine bay)
  (:predicates (at ?t - technician ?b - bay) (in ?m - machine ?b - bay) (connected ?from ?to - bay)
               (free ?t - technician) (broken ?m - machine) (repaired ?m - machine) (tested ?m - machine)
               (lit ?b - bay) (dark ?b - bay) (open))
  (:action walk :parameters (?t - technician ?from ?to - bay)
    :precondition (and (at ?t ?from) (free ?t) (connected ?from ?to))
    :effect (and (not (at ?t ?from)) (at ?t ?to)))
  (:action repair :parameters (?t - technician ?m - machine ?b - bay)
    :precondition (and (at ?t ?b) (free ?t) (in ?m ?b) (broken ?m) (lit ?b) (open))
    :effect (and (not (broken ?m)) (repaired ?m)))
  (:action test :parameters (?t - technician ?m - machine ?b - bay)
    :precondition (and (at ?t ?b) (free ?t) (in ?m ?b) (repaired ?m) (open))
    :effect (tested ?m)))
"""
"""The workshop domain (domains/workshop.pddl) with its durative actions made
instantaneous: the classical task of the same size for the step comparison."""


# ----------------------------------------------------------------------------- tasks and plans


def workshop_problem(machines: int) -> str:
    from pypddl_experiments.generators.workshop import workshop

    return workshop(BAYS, TECHNICIANS, machines, seed=SEED)


def pair_plan(problem_text: str) -> list[tuple[Decimal, str, int]]:
    """The valid plan of the module docstring: ``(start, action, duration)`` in start order."""
    text = problem_text.lower()
    links: dict[str, list[str]] = {}
    for a, b in re.findall(r"\(connected (\S+) (\S+)\)", text):
        links.setdefault(a, []).append(b)
    at = dict(re.findall(r"\(at (t\d+) (\S+)\)", text))
    where = dict(re.findall(r"\(in (m\d+) (\S+)\)", text))
    machines = sorted(where, key=lambda m: int(m[1:]))
    technicians = sorted(at, key=lambda t: int(t[1:]))

    def path(a: str, b: str) -> list[str]:
        came: dict[str, str | None] = {a: None}
        todo = deque([a])
        while todo:
            x = todo.popleft()
            for y in links.get(x, []):
                if y not in came:
                    came[y] = x
                    todo.append(y)
        out = [b]
        while came[out[-1]] is not None:
            out.append(came[out[-1]])  # type: ignore[arg-type]
        return out[::-1]

    steps: list[tuple[Decimal, str, int]] = []
    for i, tech in enumerate(technicians):
        clock, here = STAGGER * i, at[tech]

        def do(action: str, duration: int) -> None:
            nonlocal clock
            steps.append((clock, action, duration))
            clock += duration + GAP

        for m in machines[i::len(technicians)]:
            route = path(here, where[m])
            for a, b in zip(route, route[1:], strict=False):
                do(f"(walk {tech} {a} {b})", DURATIONS["walk"])
            here = where[m]
            do(f"(repair {tech} {m} {here})", DURATIONS["repair"])
            do(f"(test {tech} {m} {here})", DURATIONS["test"])
    return sorted(steps)


def happenings(plan: list[tuple[Decimal, str, int]]) -> int:
    return len({t for s, _, d in plan for t in (s, s + d)})


def plan_text(plan: list[tuple[Decimal, str, int]]) -> str:
    return "".join(f"{s:.3f}: {a} [{d}]\n" for s, a, d in plan)


def sized_task(target: int) -> tuple[str, list[tuple[Decimal, str, int]]]:
    """The problem with the fewest machines whose plan has at least ``target`` happenings."""
    machines = max(1, target // 10)
    while True:
        problem = workshop_problem(machines)
        plan = pair_plan(problem)
        if happenings(plan) >= target:
            return problem, plan
        machines += max(1, (target - happenings(plan)) // 12)


# ----------------------------------------------------------------------------- workers (one per process)


def _median(fn, repeat: int) -> tuple[dict, object]:  # type: ignore[no-untyped-def]
    """Median wall-clock and CPU seconds of ``repeat`` calls, and the last result."""
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return {"seconds": statistics.median(walls), "cpu_seconds": statistics.median(cpus)}, out


def ours_load(domain: str, problem: str, plan: str, repeat: int) -> dict:
    from pypddlengine.temporal import load_temporal

    load_temporal(domain, problem)  # imports and first-time caches out of the figure
    times, _ = _median(lambda: load_temporal(domain, problem), repeat)
    return times


def ours_validate(domain: str, problem: str, plan: str, repeat: int) -> dict:
    from pypddlengine.temporal import load_temporal, validate_timed_plan

    task = load_temporal(domain, problem)
    text = Path(plan).read_text()
    times, report = _median(lambda: validate_timed_plan(task, text, EPSILON), repeat)
    if not report.valid:  # type: ignore[attr-defined]
        return {"error": f"invalid: {report.failure}"[:60]}  # type: ignore[attr-defined]
    return times | {"happenings": report.happenings, "steps": report.steps}  # type: ignore[attr-defined]


def _process(cmd: list[str], repeat: int, ok: "re.Pattern[str] | int") -> dict:
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), _children_cpu()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        walls.append(time.perf_counter() - start)
        cpus.append(_children_cpu() - cpu)
        good = done.returncode == ok if isinstance(ok, int) else ok.search(done.stdout) is not None
        if not good:
            return {"error": (done.stdout + done.stderr).strip().splitlines()[-1][:60] if done.stdout + done.stderr
                    else f"exit {done.returncode}"}
    return {"seconds": statistics.median(walls), "cpu_seconds": statistics.median(cpus)}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_validate(domain: str, problem: str, plan: str, repeat: int) -> dict:
    pypddl = Path(sys.executable).with_name("pypddl")
    cmd = [str(pypddl), "validate", "--epsilon", EPSILON_TEXT, "-q", domain, problem, plan] if pypddl.is_file() \
        else [sys.executable, "-m", "pypddlengine.cli", "validate", "--epsilon", EPSILON_TEXT, "-q", domain, problem,
              plan]
    return _process(cmd, repeat, 0)


def val_validate(domain: str, problem: str, plan: str, repeat: int) -> dict:
    from pypddl_experiments.planners.val import val_binary

    binary = val_binary()
    if binary is None:
        return {"error": "VAL not installed"}
    return _process([str(binary), "-t", EPSILON_TEXT, domain, problem, plan], repeat, re.compile(r"Plan valid"))


def up_validate(domain: str, problem: str, plan: str, repeat: int) -> dict:
    from unified_planning.engines import ValidationResultStatus
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator, get_environment

    get_environment().credits_stream = None
    start, cpu = time.perf_counter(), time.process_time()
    reader = PDDLReader()
    task = reader.parse_problem(domain, problem)
    up_plan = reader.parse_plan_string(task, Path(plan).read_text())
    middle, cpu_middle = time.perf_counter(), time.process_time()
    with PlanValidator(name="up_time_triggered_validator") as validator:
        result = validator.validate(task, up_plan)
    end, cpu_end = time.perf_counter(), time.process_time()
    if result.status != ValidationResultStatus.VALID:
        return {"error": f"UP: {result.status.name}"}
    return {"seconds": end - middle, "cpu_seconds": cpu_end - cpu_middle, "read_seconds": middle - start,
            "cpu_read_seconds": cpu_middle - cpu}


def _events(plan: list[tuple[Decimal, str, int]]) -> list[tuple[Decimal, int, str, int]]:
    """``(time, 0 end / 1 start, action, step)`` in the order a session takes them."""
    out = []
    for n, (s, a, d) in enumerate(plan):
        out += [(s, 1, a, n), (s + d, 0, a, n)]
    return sorted(out)


class _Timer:
    """Wall-clock and CPU seconds of each call, by kind; medians of both (``kind``, ``cpu_kind``)."""

    def __init__(self) -> None:
        self.times: dict[str, list[tuple[float, float]]] = {}

    def __call__(self, kind: str, fn, *args):  # type: ignore[no-untyped-def]
        begin, cpu = time.perf_counter(), time.process_time()
        out = fn(*args)
        self.times.setdefault(kind, []).append((time.perf_counter() - begin, time.process_time() - cpu))
        return out

    def medians(self) -> dict[str, float]:
        out = {}
        for kind, pairs in self.times.items():
            out[kind] = statistics.median(w for w, _ in pairs)
            out[f"cpu_{kind}"] = statistics.median(c for _, c in pairs)
        return out


def temporal_steps(domain: str, problem: str, plan: str, repeat: int) -> dict:
    from pypddlengine.temporal import load_temporal
    from pypddlengine.temporal_session import TemporalSession

    steps = [(Decimal(s), a, int(d)) for s, a, d in re.findall(r"([\d.]+): (\(.*?\)) \[(\d+)\]",
                                                                 Path(plan).read_text())]
    session = TemporalSession(load_temporal(domain, problem), EPSILON)
    timer = _Timer()
    ids: dict[int, int] = {}
    seen = 0
    for t, kind, action, n in _events(steps):
        if t > session.clock:
            seen += 1
            if seen % 10 == 1:
                timer("applicable", session.applicable)
            timer("advance", session.advance, str(t))
        if kind:
            ids[n] = timer("start", session.start, action, steps[n][2]).id
        else:
            timer("end", session.end, ids[n])
    if not session.goal_reached():
        return {"error": "goal not reached"}
    return timer.medians() | {"happenings": seen}


def _classical(backend: str, problem: str, plan: str) -> dict:
    from pypddlengine import Session

    text = re.sub(r"\(:metric minimize \(total-time\)\)", "", Path(problem).read_text())
    actions = re.findall(r"[\d.]+: (\(.*?\))", Path(plan).read_text())
    session = Session.from_pddl(CLASSICAL_WORKSHOP, text, backend=backend)
    timer = _Timer()
    for n, action in enumerate(actions):
        if n % 10 == 0:
            timer("applicable", session.applicable_actions)
        if not timer("execute", session.execute, action).success:
            return {"error": f"refused {action}"}
    if not session.is_goal():
        return {"error": "goal not reached"}
    return timer.medians() | {"steps": len(actions)}


def grounded_steps(domain: str, problem: str, plan: str, repeat: int) -> dict:
    return _classical("grounded", problem, plan)


def lifted_steps(domain: str, problem: str, plan: str, repeat: int) -> dict:
    return _classical("lifted", problem, plan)


WORKERS = {f.__name__: f for f in (ours_load, ours_validate, cli_validate, val_validate, up_validate,
                                   temporal_steps, grounded_steps, lifted_steps)}


def measure(name: str, files: tuple[Path, Path, Path], repeat: int, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--worker", name, *map(str, files), str(repeat)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    if done.returncode:
        lines = done.stderr.strip().splitlines() or ["failed"]
        return {"error": lines[-1][:60]}
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def ms(result: dict, key: str = "seconds") -> str:
    """Wall-clock / CPU milliseconds."""
    if "error" in result:
        return result["error"]
    return f"{result[key] * 1000:.1f} / {result[f'cpu_{key}'] * 1000:.1f} ms"


def us(result: dict, key: str) -> str:
    """Wall-clock / CPU microseconds."""
    if "error" in result:
        return result["error"]
    return f"{result[key] * 1e6:.0f} / {result[f'cpu_{key}'] * 1e6:.0f} us"


def _across(results: list[dict]) -> dict:
    """The median of each figure over rounds (the first error, if a round failed)."""
    failed = [r for r in results if "error" in r]
    if failed:
        return failed[0]
    return {k: statistics.median(r[k] for r in results) for k in results[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", nargs="*", type=int, default=[100, 500, 2000], help="happenings of the plans")
    ap.add_argument("--repeat", type=int, default=5, help="runs per median (default 5)")
    ap.add_argument("--timeout", type=float, default=300, help="per-measurement wall-clock limit (default 300 s)")
    ap.add_argument("--steps-only", action="store_true",
                    help="only the step comparison (b), on the largest size: no validation table (UP's is slow)")
    ap.add_argument("--step-rounds", type=int, default=3,
                    help="rounds of the step workers (temporal, grounded, lifted in turn; default 3)")
    ap.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        name, domain, problem, plan, repeat = args.worker
        print(json.dumps(WORKERS[name](domain, problem, plan, int(repeat))))
        return
    load = os.getloadavg()
    print(f"# Temporal benchmark ({time.strftime('%Y-%m-%d %H:%M')}, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}, {os.cpu_count()} cores)\n")
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench-temporal-") as tmp:
        files = {}
        for size in args.sizes:
            problem_text, plan = sized_task(size)
            folder = Path(tmp) / str(size)
            folder.mkdir()
            (folder / "problem.pddl").write_text(problem_text)
            (folder / "plan.txt").write_text(plan_text(plan))
            machines = problem_text.count("(broken ")
            files[size] = (ROOT / "domains" / "workshop.pddl", folder / "problem.pddl", folder / "plan.txt")
            results[f"validate-{size}"] = {"machines": machines, "steps": len(plan), "happenings": happenings(plan)}
        if not args.steps_only:
            print("## Validating a timed plan (epsilon 0.001)\n")
            print("Each cell: wall-clock / CPU time (the process's own, or the child process's).\n")
            print("| plan | machines | steps | happenings | ours load | ours validate | pypddl validate (process) | "
                  "VAL (process) | UP read | UP validate |")
            print("|---|---|---|---|---|---|---|---|---|---|")
        for size in args.sizes if not args.steps_only else ():
            r = results[f"validate-{size}"]
            for name in ("ours_load", "ours_validate", "cli_validate", "val_validate", "up_validate"):
                r[name] = measure(name, files[size], args.repeat if name != "up_validate" else 1, args.timeout)
            up = r["up_validate"]
            print(f"| ~{size} | {r['machines']} | {r['steps']} | {r['happenings']} | {ms(r['ours_load'])} | "
                  f"{ms(r['ours_validate'])} | {ms(r['cli_validate'])} | {ms(r['val_validate'])} | "
                  f"{ms(up, 'read_seconds')} | {ms(up)} |", flush=True)
        size = max(args.sizes)
        rounds = [{name: measure(name, files[size], 1, args.timeout)
                   for name in ("temporal_steps", "grounded_steps", "lifted_steps")} for _ in range(args.step_rounds)]
        results["steps"] = rounds
    t, g, lf = (_across([r[name] for r in rounds]) for name in ("temporal_steps", "grounded_steps", "lifted_steps"))
    print(f"\n## One step on the ~{size}-happening task (wall-clock / CPU time: medians over the plan, then the "
          f"median of {len(rounds)} rounds)\n")
    print("| session | start | end | advance | execute | applicable |")
    print("|---|---|---|---|---|---|")
    print(f"| TemporalSession | {us(t, 'start')} | {us(t, 'end')} | {us(t, 'advance')} | - | "
          f"{us(t, 'applicable')} |")
    for label, r in (("Session, grounded (classical copy)", g), ("Session, lifted (classical copy)", lf)):
        print(f"| {label} | - | - | - | {us(r, 'execute')} | {us(r, 'applicable')} |")
    for label, name in (("grounded", "grounded_steps"), ("lifted", "lifted_steps")):
        ratios = [f"{k} {min(r['temporal_steps'][f'cpu_{k}'] / r[name]['cpu_execute'] for r in rounds):.2f}-"
                  f"{max(r['temporal_steps'][f'cpu_{k}'] / r[name]['cpu_execute'] for r in rounds):.2f}x"
                  for k in ("start", "end", "advance")
                  if all("error" not in r["temporal_steps"] and "error" not in r[name] for r in rounds)]
        print(f"\nCPU time over a {label} classical execute, each round's own (range over the rounds): "
              + ", ".join(ratios or ["-"]))
    load_end = os.getloadavg()
    print(f"\nload average at the end: {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}")
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"temporal-{time.strftime('%Y%m%d-%H%M')}.json"
    path.write_text(json.dumps({"load_start": load, "load_end": load_end, "results": results}, indent=1))
    print(f"saved {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
