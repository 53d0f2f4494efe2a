"""ADL and axiom benchmark (issue 11): initialise and step time on the
largest task of each ADL or derived-predicate domain of the corpus, beside
Fast Downward's translator (normalise + relaxed exploration, as in
bench_engine.py) and unified-planning's SequentialSimulator.

    python bench/bench_adl.py                 # every ADL domain (minutes; UP is slow)
    python bench/bench_adl.py --domains trucks assembly --timeout 60

"Largest" is the task with the most bytes. Each measurement runs in a fresh
worker process with a wall-clock limit. ours_step is the median over a
seeded 30-step random walk of one step as an agent takes it (applicable
actions, then execute); up_step the same with UP's simulator (5 steps). The
load average is printed with the results, which are saved to
``bench/out/adl-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import up_timing  # the bench folder is the script's own

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PYPDDL_CORPUS", ROOT.parent / "shared" / "benchmarks"))
ADL_FEATURES = {"conditional-effects", "derived-predicates", "disjunctive-preconditions", "universal-preconditions",
                "existential-preconditions", "universal-effects"}


def largest_tasks(only: list[str] | None) -> dict[str, tuple[Path, Path]]:
    index = json.loads((CORPUS / "index.json").read_text())
    out = {}
    for entry in index:
        if not ADL_FEATURES & set(entry["features_detected"]) or (only and entry["domain"] not in only):
            continue
        problem = max((CORPUS / p for p in entry["problems"]), key=lambda p: p.stat().st_size)
        out[entry["domain"]] = (CORPUS / entry["domain_file"], problem)
    return out


# ----------------------------------------------------------------------------- workers (one per process)


def ours_init(domain: str, problem: str) -> dict:
    from pypddlengine import Session

    Session.from_pddl("(define (domain w) (:predicates (p)))", "(define (problem w) (:domain w) (:init) (:goal (p)))")
    start = time.perf_counter()
    s = Session.from_pddl(Path(domain).read_text(), Path(problem).read_text())
    return {"seconds": time.perf_counter() - start, "actions": s.task.stats.actions,
            "axioms": sum(len(x) for x in s.task.general.strata) if s.task.general else 0}


def ours_step(domain: str, problem: str) -> dict:
    from pypddlengine import Session

    s = Session.from_pddl(Path(domain).read_text(), Path(problem).read_text())
    rng = random.Random(11)
    times, executes = [], []
    for _ in range(30):
        start = time.perf_counter()
        actions = s.applicable_actions()
        if not actions:
            break
        action = rng.choice(actions)
        middle = time.perf_counter()
        assert s.execute(action).success
        end = time.perf_counter()
        times.append(end - start)
        executes.append(end - middle)
    return {"seconds": statistics.median(times), "execute_seconds": statistics.median(executes), "steps": len(times)}


def fd_translate(domain: str, problem: str) -> dict:
    from fast_downward.translate import instantiate, normalize, options, pddl_parser

    options.set_options([domain, problem, "--sas-file", os.devnull])
    start = time.perf_counter()
    task = pddl_parser.open(domain, problem)
    normalize.normalize(task)
    _, _, actions, _, axioms, _ = instantiate.explore(task)
    return {"seconds": time.perf_counter() - start, "actions": len(actions), "axioms": len(axioms)}


def _up(domain: str, problem: str):  # type: ignore[no-untyped-def]
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import SequentialSimulator, get_environment

    env = get_environment()
    env.credits_stream = None
    env.error_used_name = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SequentialSimulator(PDDLReader().parse_problem(domain, problem))


def up_init(domain: str, problem: str) -> dict:
    return up_timing.up_init(lambda: _up(domain, problem))


def up_step(domain: str, problem: str) -> dict:
    return up_timing.up_step(lambda: _up(domain, problem))


WORKERS = {f.__name__: f for f in (ours_init, ours_step, fd_translate, up_init, up_step)}


def measure(name: str, domain: Path, problem: Path, timeout: float, script: str = __file__) -> dict:
    """Run worker ``name`` of ``script`` (``--worker name domain problem``) in a fresh process."""
    cmd = [sys.executable, script, "--worker", name, str(domain), str(problem)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    if done.returncode:
        lines = done.stderr.strip().splitlines() or ["failed"]
        return {"error": lines[-1].split(": ")[0].rsplit(".", 1)[-1][:40]}  # the exception's class
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def cell(result: dict, unit: str = "s") -> str:
    if "error" in result:
        return result["error"]
    value = result["seconds"]
    return f"{value * 1000:.2f} ms" if unit == "ms" else f"{value:.2f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--domains", nargs="*", help="only these corpus domains")
    ap.add_argument("--timeout", type=float, default=120, help="per-measurement wall-clock limit (default 120 s)")
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        name, domain, problem = args.worker
        print(json.dumps(WORKERS[name](domain, problem)))
        return
    load = os.getloadavg()
    print(f"# ADL/axiom benchmark ({time.strftime('%Y-%m-%d %H:%M')}, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}, {os.cpu_count()} cores)\n")
    print("| domain | task | ground actions (ours / FD) | ours init | FD translate | UP init | ours step | UP step |")
    print("|---|---|---|---|---|---|---|---|")
    results = {}
    for label, (domain, problem) in largest_tasks(args.domains).items():
        r = {name: measure(name, domain, problem, args.timeout) for name in WORKERS}
        results[label] = {"task": str(problem.relative_to(CORPUS)), **r}
        counts = f"{r['ours_init'].get('actions', '-')} / {r['fd_translate'].get('actions', '-')}"
        print(f"| {label} | {problem.name} | {counts} | {cell(r['ours_init'])} | {cell(r['fd_translate'])} | "
              f"{cell(r['up_init'])} | {cell(r['ours_step'], 'ms')} | {cell(r['up_step'], 'ms')} |", flush=True)
    load_end = os.getloadavg()
    print(f"\nload average at the end: {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}")
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"adl-{time.strftime('%Y%m%d-%H%M')}.json"
    path.write_text(json.dumps({"load_start": load, "load_end": load_end, "results": results}, indent=1))
    print(f"saved {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
