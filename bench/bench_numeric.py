"""Numeric benchmark (issue 20): session step time and plan validation time
on numeric tasks, beside unified-planning's SequentialSimulator and VAL, in
one run.

    python bench/bench_numeric.py                      # one task per numeric corpus domain, and fuel-delivery
    python bench/bench_numeric.py --problem pfile5 instance-5 --timeout 300

For each domain of the numeric corpus (``../shared/numeric-benchmarks`` or
``PYPDDL_NUMERIC_CORPUS``) the task named by ``--problem`` (the first name
that exists, default ``pfile5``/``instance-5``) and the bundled
``fuel-delivery/p03`` and ``p05``: every measurement runs in a fresh worker
process with a wall-clock limit. ``ours init``: read, check and ground;
``ours step``: the median over a seeded 30-step random walk of one step as an
agent takes it (applicable actions, then execute); ``UP step`` the same with
UP's simulator (5 steps, after its first query, which grounds; ``UP init``
is parse plus that first query); ``validate``: the walk as a plan, whole
(``ours``: the validator in process, no grounding; ``VAL``: its process,
parse included). UP cannot read some tasks, and its simulator refuses
numeric terms without an initial value: its copy gets 0 there (as in
tests/integration/test_numeric_up_agreement.py). The load average is printed
with the results, which are saved to ``bench/out/numeric-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import up_timing
from bench_adl import cell, measure

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PYPDDL_NUMERIC_CORPUS",
                             Path(os.environ.get("PYPDDL_CORPUS", ROOT.parent / "shared" / "benchmarks")).parent
                             / "numeric-benchmarks"))


def tasks(names: list[str]) -> dict[str, tuple[Path, Path]]:
    out: dict[str, tuple[Path, Path]] = {}
    for domain in sorted(CORPUS.glob("*/*/domain.pddl")):
        problem = next((domain.parent / f"{n}.pddl" for n in names if (domain.parent / f"{n}.pddl").is_file()), None)
        if problem is not None:
            out[f"{domain.parent.parent.name}/{domain.parent.name}"] = (domain, problem)
    for p in ("p03", "p05"):
        out[f"bundled/fuel-delivery-{p}"] = (ROOT / "domains" / "fuel-delivery.pddl",
                                             ROOT / "problems" / "fuel-delivery" / f"{p}.pddl")
    return out


# ----------------------------------------------------------------------------- workers (one per process)


def _walk(domain: str, problem: str, steps: int = 30) -> tuple[object, list[float]]:
    from pypddlengine import Session

    s = Session(domain, problem, backend="grounded")
    rng = random.Random(11)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        actions = s.applicable_actions()
        rng.shuffle(actions)
        if not any(s.execute(a).success for a in actions[:20]):
            break
        times.append(time.perf_counter() - start)
    return s, times


def ours_init(domain: str, problem: str) -> dict:
    from pypddlengine import Session

    start = time.perf_counter()
    s = Session(domain, problem, backend="grounded")
    return {"seconds": time.perf_counter() - start, "actions": len(s.grounded.actions),  # type: ignore[union-attr]
            "fluents": len(s.lifted.fluent_terms)}


def ours_step(domain: str, problem: str) -> dict:
    _, times = _walk(domain, problem)
    return {"seconds": statistics.median(times), "steps": len(times)}


def ours_validate(domain: str, problem: str) -> dict:
    from pypddlengine import load_task, validate_plan

    session, _ = _walk(domain, problem)
    plan = session.plan()  # type: ignore[attr-defined]
    task = load_task(domain, problem)
    start = time.perf_counter()
    report = validate_plan(task, plan)
    return {"seconds": time.perf_counter() - start, "steps": len(plan), "applied": report.steps_applied}


def val_validate(domain: str, problem: str) -> dict:
    from pypddl_experiments.planners.val import val_run

    session, _ = _walk(domain, problem)
    text = "".join(f"{a}\n" for a in session.plan())  # type: ignore[attr-defined]
    start = time.perf_counter()
    result = val_run(domain, problem, text)
    seconds = time.perf_counter() - start
    if result.verdict is None:
        return {"error": (result.problem or "no verdict")[:40]}
    return {"seconds": seconds, "steps": text.count("\n")}


def _up(domain: str, problem: str):  # type: ignore[no-untyped-def]
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import SequentialSimulator, get_environment

    env = get_environment()
    env.credits_stream = None
    env.error_used_name = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        task = PDDLReader().parse_problem(domain, problem)
        zero = env.expression_manager.Int(0)
        for fluent in task.fluents:
            if fluent.type.is_real_type() or fluent.type.is_int_type():
                task.fluents_defaults.setdefault(fluent, zero)
        return SequentialSimulator(task)


def up_init(domain: str, problem: str) -> dict:
    return up_timing.up_init(lambda: _up(domain, problem))


def up_step(domain: str, problem: str) -> dict:
    return up_timing.up_step(lambda: _up(domain, problem))


WORKERS = {f.__name__: f for f in (ours_init, ours_step, up_init, up_step, ours_validate, val_validate)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--problem", nargs="*", default=["pfile5", "instance-5"], help="problem file names to try")
    ap.add_argument("--timeout", type=float, default=180, help="per-measurement wall-clock limit (default 180 s)")
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        name, domain, problem = args.worker
        print(json.dumps(WORKERS[name](domain, problem)))
        return
    load = os.getloadavg()
    print(f"# Numeric benchmark ({time.strftime('%Y-%m-%d %H:%M')}, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}, {os.cpu_count()} cores)\n")
    print("| task | ground actions | fluents | ours init | UP init | ours step | UP step | plan steps | "
          "ours validate | VAL validate |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    results = {}
    for label, (domain, problem) in tasks(args.problem).items():
        r = {name: measure(name, domain, problem, args.timeout, __file__) for name in WORKERS}
        results[label] = {"task": str(problem), **r}
        init = r["ours_init"]
        print(f"| {label}/{problem.stem} | {init.get('actions', '-')} | {init.get('fluents', '-')} | "
              f"{cell(init)} | {cell(r['up_init'])} | {cell(r['ours_step'], 'ms')} | {cell(r['up_step'], 'ms')} | "
              f"{r['ours_validate'].get('steps', '-')} | {cell(r['ours_validate'], 'ms')} | "
              f"{cell(r['val_validate'], 'ms')} |", flush=True)
    load_end = os.getloadavg()
    print(f"\nload average at the end: {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}")
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"numeric-{time.strftime('%Y%m%d-%H%M')}.json"
    path.write_text(json.dumps({"load_start": load, "load_end": load_end, "results": results}, indent=1))
    print(f"saved {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
