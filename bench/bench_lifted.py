"""Lifted backend benchmark: our lifted session beside pymimir's lifted
successor generator (and our grounded session where grounding is small),
measured in one run, each tool and task in a fresh worker process.

    python bench/bench_lifted.py              # the ten IPC 2023 learning-track domains (a few minutes)
    python bench/bench_lifted.py --generated  # also the generated tasks below, and our grounded session
    python bench/bench_lifted.py --quick      # bw-200 and the largest IPC 2023 hard task
    python bench/bench_lifted.py --only ferry,satellite --repeat 9   # some tasks, more cold workers

Tasks: one task per domain of the IPC 2023 learning track: Blocksworld's
testing/hard p30 (488 blocks; its domain with ``:typing`` added to its
requirements, which pymimir's parser needs for the problems' ``- object``) and
the largest testing/medium task (p30) of each of the nine other domains
(childsnack, ferry, floortile, miconic, rovers, satellite, sokoban, spanner,
transport; their hard tasks are larger tasks of the same generators). With
``--generated``: the Blocksworld hard tasks p01 and p15, a generated 200-block
Blocksworld, and a generated Transport task (the IPC 2008 domain of the
corpus, 300 locations, 24 trucks, 150 packages, capacity 4: millions of
ground actions).

Measured per tool: *initialise* (text to the initial state's applicable
actions listed: parse, set up, first successor generation), *step* (median
over a 60-step seeded random walk of: list the applicable actions, apply one
of them), and the worker's peak RSS. Initialise is measured in ``--repeat``
cold workers per tool and task (default 5, the same number for every tool,
run alternately so that both see the same load): the tables print the median
(and the minimum, and the median CPU time of the same region); the first
worker of each tool also walks, and its step median and peak RSS are shown.
On the tasks that open in tens of milliseconds a single cold run moves by 2x
with the machine's load, so one run per tool said little there. Each tool
walks with its own choices (same seed, its own action order), so the states
differ but the per-step work is of the same kind.

Our package runs from its bytecode, as ``pip install`` leaves it (pymimir's
Python files are installed the same way): before measuring, the script
compiles the package's modules into their ``__pycache__`` folders with
:mod:`compileall` (a no-op when they are current), which Python reads even
under ``PYTHONDONTWRITEBYTECODE=1``. ``--source`` skips that and removes
nothing; then whatever module has no bytecode is compiled from source in each
worker (``pypddlengine.joins``, imported on the first listing, costs about
8 ms that way).

Targets (issue 33): initialise and step at or below pymimir's on every
domain; every hard task opens in seconds within 2 GiB.

pymimir (PyPI ``pymimir``) is a speed anchor only, never a dependency: the
script skips it when it is not installed. Results print as Markdown with the
load average; raw JSON goes to ``bench/out/lifted-<date>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = Path(os.environ.get("PYPDDL_CORPUS", HERE.parent.parent / "shared" / "benchmarks")).resolve()
HARD = CORPUS / "ipc2023-learning" / "blocksworld-testing-hard"
MEDIUM = CORPUS.parent / "ipc2023-learning-medium"
MEDIUM_DOMAINS = ("childsnack", "ferry", "floortile", "miconic", "rovers", "satellite", "sokoban", "spanner",
                  "transport")
TRANSPORT_DOMAIN = CORPUS / "downward-benchmarks" / "transport-sat08-strips" / "domain.pddl"
STEPS = 60


def transport_problem(locations: int, trucks: int, packages: int, capacity: int, seed: int) -> str:
    """A Transport task on a random connected road network (each location
    linked to its predecessor and to two random others, both directions)."""
    rng = random.Random(seed)
    locs = [f"l{i}" for i in range(1, locations + 1)]
    roads: set[tuple[str, str]] = set()
    for i in range(1, locations):
        for other in (locs[i - 1], rng.choice(locs[:i]), rng.choice(locs)):
            if other != locs[i]:
                roads.update({(locs[i], other), (other, locs[i])})
    caps = [f"c{i}" for i in range(capacity + 1)]
    objects = [f"{' '.join(locs)} - location", f"{' '.join(f't{i}' for i in range(1, trucks + 1))} - vehicle",
               f"{' '.join(f'p{i}' for i in range(1, packages + 1))} - package", f"{' '.join(caps)} - capacity-number"]
    init = [f"(road {a} {b})" for a, b in sorted(roads)]
    init += [f"(= (road-length {a} {b}) {rng.randint(5, 50)})" for a, b in sorted(roads)]
    init += [f"(capacity-predecessor {caps[i]} {caps[i + 1]})" for i in range(capacity)]
    init += [f"(at t{i} {rng.choice(locs)})" for i in range(1, trucks + 1)]
    init += [f"(capacity t{i} {caps[-1]})" for i in range(1, trucks + 1)]
    init += [f"(at p{i} {rng.choice(locs)})" for i in range(1, packages + 1)]
    goal = [f"(at p{i} {rng.choice(locs)})" for i in range(1, packages + 1)]
    return (f"(define (problem transport-{locations}-{trucks}-{packages}) (:domain transport)\n"
            f" (:objects {' '.join(objects)})\n (:init (= (total-cost) 0) {' '.join(init)})\n"
            f" (:goal (and {' '.join(goal)}))\n (:metric minimize (total-cost)))\n")


def write_tasks(folder: Path, quick: bool, generated: bool) -> dict[str, tuple[Path, Path]]:
    from pypddl_experiments.generators import blocksworld
    from pypddlengine.bundled import bundled_root

    tasks: dict[str, tuple[Path, Path]] = {}
    if quick or generated:
        bw = folder / "bw-200.pddl"
        bw.write_text(blocksworld(200, seed=200))
        tasks["bw-200"] = (bundled_root("domains") / "blocksworld.pddl", bw)
    if (HARD / "domain.pddl").is_file():  # pymimir's parser wants :typing for the problems' "- object"
        hard_domain = folder / "blocksworld-hard-domain.pddl"
        hard_domain.write_text((HARD / "domain.pddl").read_text().replace("(:requirements :strips)",
                                                                          "(:requirements :strips :typing)"))
        for name in ("p01", "p15", "p30") if generated else ("p30",):
            tasks[f"blocksworld hard {name}"] = (hard_domain, HARD / f"{name}.pddl")
    if not quick:
        for domain in MEDIUM_DOMAINS:
            if (MEDIUM / domain / "p30.pddl").is_file():
                tasks[f"{domain} medium p30"] = (MEDIUM / domain / "domain.pddl", MEDIUM / domain / "p30.pddl")
    if generated and TRANSPORT_DOMAIN.is_file():
        tr = folder / "transport-300.pddl"
        tr.write_text(transport_problem(300, 24, 150, 4, seed=2023))
        tasks["transport-300"] = (TRANSPORT_DOMAIN, tr)
    return tasks


# ----------------------------------------------------------------------------- workers (one per process)


def _walk(initial: object, successors, choose) -> tuple[float, float, int]:  # type: ignore[no-untyped-def]
    """(first listing s, median step s, steps done): ``successors(state)`` lists
    the applicable actions, ``choose(state, actions, rng)`` applies one."""
    rng = random.Random(21)
    start = time.perf_counter()
    actions = successors(initial)
    first = time.perf_counter() - start
    state, times = initial, []
    for _ in range(STEPS):
        if not actions:
            break
        start = time.perf_counter()
        state = choose(state, actions, rng)
        actions = successors(state)
        times.append(time.perf_counter() - start)
    return first, statistics.median(times) if times else float("nan"), len(times)


def w_ours(domain: str, problem: str, backend: str, walk: bool = True) -> dict:
    from pypddlengine import Session

    cpu, start = time.process_time(), time.perf_counter()
    session = Session(domain, problem, backend=backend)
    built = time.perf_counter() - start
    session.applicable_actions()
    init, init_cpu = time.perf_counter() - start, time.process_time() - cpu
    if not walk:
        return {"init_s": init, "init_cpu_s": init_cpu, "setup_s": built, "backend": session.backend}

    def choose(_state, actions, rng):  # type: ignore[no-untyped-def]
        result = session.execute(rng.choice(actions))
        assert result.success
        return session.state

    first, step, steps = _walk(session.state, lambda _s: session.applicable_actions(), choose)  # sorted, as listed
    return {"init_s": init, "init_cpu_s": init_cpu, "setup_s": built, "step_s": step, "steps": steps,
            "backend": session.backend}


def w_mimir(domain: str, problem: str, backend: str, walk: bool = True) -> dict:
    import pymimir

    cpu, start = time.process_time(), time.perf_counter()
    d = pymimir.Domain(domain)
    p = pymimir.Problem(d, problem, "lifted")
    state = p.get_initial_state()
    built = time.perf_counter() - start
    state.generate_applicable_actions()
    init, init_cpu = time.perf_counter() - start, time.process_time() - cpu
    if not walk:
        return {"init_s": init, "init_cpu_s": init_cpu, "setup_s": built, "backend": "lifted"}

    def choose(state, actions, rng):  # type: ignore[no-untyped-def]
        return rng.choice(actions).apply(state)

    first, step, steps = _walk(state, lambda s: s.generate_applicable_actions(), choose)
    return {"init_s": init, "init_cpu_s": init_cpu, "setup_s": built, "step_s": step, "steps": steps,
            "backend": "lifted"}


WORKERS = {"ours-lifted": (w_ours, "lifted"), "ours-grounded": (w_ours, "grounded"), "pymimir": (w_mimir, "lifted")}


def run_worker(tool: str, domain: Path, problem: Path, timeout: float, walk: bool = True) -> dict:
    cmd = [sys.executable, __file__, "--worker", tool, str(domain), str(problem), "walk" if walk else "init"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout ({timeout:g} s)"}
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1][:160]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def summarise(runs: list[dict]) -> dict:
    """One tool's result on one task: the first worker's walk, with the
    median, minimum and median CPU time of every worker's initialise."""
    if "error" in runs[0]:
        return runs[0]
    ok = [r for r in runs if "error" not in r]
    return {**runs[0], "init_s": statistics.median(r["init_s"] for r in ok),
            "init_min_s": min(r["init_s"] for r in ok),
            "init_cpu_s": statistics.median(r["init_cpu_s"] for r in ok),
            "init_runs_s": [r["init_s"] for r in ok], "failed_runs": len(runs) - len(ok)}


def compile_bytecode() -> str:
    """Compile our package's modules to bytecode in place (as ``pip install``
    does; a no-op when current) and say what was done."""
    import compileall

    import pypddlengine

    package = Path(pypddlengine.__file__).parent
    try:
        done = compileall.compile_dir(str(package), quiet=2)
    except OSError as err:
        return f"not compiled ({err})"
    return "compiled, as installed" if done else "partly compiled (some modules failed)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="bw-200 and the 488-block IPC 2023 hard task only")
    parser.add_argument("--generated", action="store_true",
                        help="also the generated tasks and Blocksworld hard p01, p15, and our grounded session")
    parser.add_argument("--timeout", type=float, default=300, help="per-measurement limit in seconds (default 300)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="cold workers per tool and task for initialise (default 5; the first also walks)")
    parser.add_argument("--only", help="comma-separated words: measure only the tasks whose name holds one")
    parser.add_argument("--source", action="store_true",
                        help="do not compile our package's bytecode first (see the docstring)")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        tool, domain, problem, mode = args.worker
        fn, backend = WORKERS[tool]
        result = fn(domain, problem, backend, mode == "walk")
        result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(result))
        return
    try:
        import pymimir  # noqa: F401

        tools = list(WORKERS) if args.generated else ["ours-lifted", "pymimir"]
    except ImportError:
        tools = ["ours-lifted", "ours-grounded"] if args.generated else ["ours-lifted"]
        print("pymimir is not installed (pip install pymimir): measuring ours only", file=sys.stderr)
    bytecode = "from source where not compiled (--source)" if args.source else compile_bytecode()
    load = os.getloadavg()
    stamp = time.strftime("%Y-%m-%d %H:%M")
    results: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tasks = write_tasks(Path(tmp), args.quick, args.generated)
        if args.only:
            words = args.only.split(",")
            tasks = {name: task for name, task in tasks.items() if any(w in name for w in words)}
        for name, (domain, problem) in tasks.items():
            runs: dict[str, list[dict]] = {}
            for i in range(max(1, args.repeat)):
                for tool in tools:  # alternately, so that each tool's workers see the same load
                    if tool == "ours-grounded" and name in ("blocksworld hard p30", "transport-300"):
                        runs[tool] = [{"error": "skipped (too large to ground in time)"}]
                        continue
                    if runs.get(tool) and "error" in runs[tool][0]:
                        continue
                    runs.setdefault(tool, []).append(run_worker(tool, domain, problem, args.timeout, walk=i == 0))
            results[name] = {tool: summarise(rs) for tool, rs in runs.items()}
            print(f"measured {name}", file=sys.stderr, flush=True)
    end_load = os.getloadavg()
    print(f"# Lifted backend benchmark ({stamp}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the start, "
          f"{end_load[0]:.2f} at the end, {os.cpu_count()} cores, Python {sys.version.split()[0]}; initialise: "
          f"median of {max(1, args.repeat)} cold workers per tool; our package's bytecode: {bytecode})\n")
    print("| task | tool | backend | initialise median (min, CPU median) | step (median) | steps | peak RSS |")
    print("|---|---|---|---:|---:|---:|---:|")
    for name, by_tool in results.items():
        for tool, r in by_tool.items():
            if "error" in r:
                print(f"| {name} | {tool} | - | {r['error']} | | | |")
                continue
            print(f"| {name} | {tool} | {r['backend']} | {r['init_s']:.3f} s ({r['init_min_s']:.3f}, "
                  f"{r['init_cpu_s']:.3f}) | {r['step_s'] * 1e3:.3f} ms | {r['steps']} | {r['peak_rss_mb']:.0f} MB |")
    print("\n| task | initialise ours/pymimir (target <= 1) | step ours/pymimir (target <= 1) |")
    print("|---|---:|---:|")
    for name, by_tool in results.items():
        ours, mimir = by_tool.get("ours-lifted", {}), by_tool.get("pymimir", {})
        if "init_s" in ours and "init_s" in mimir:
            print(f"| {name} | {ours['init_s'] / mimir['init_s']:.2f}x | {ours['step_s'] / mimir['step_s']:.2f}x |")
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    path = out / f"lifted-{time.strftime('%Y%m%d-%H%M')}.json"
    path.write_text(json.dumps({"stamp": stamp, "load": load, "end_load": end_load, "repeat": args.repeat,
                                "bytecode": bytecode, "results": results}, indent=1))
    print(f"\nraw results: bench/out/{path.name}")


if __name__ == "__main__":
    main()
