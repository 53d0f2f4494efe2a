"""Executor benchmark: the bundled ladder with lama-first (``pypddl batch
--bundled -p lama-first``) on the local executor and on 1 and 2 local Ray
workers.

    python bench/bench_ray.py [--budget 60] [--repeats 1] [--select REGEX]

Each setting runs the whole batch into a fresh records file, in this
process, through ``run_batch`` (what the command runs). For Ray, starting
the private local instance (``ray.init``) and stopping it are timed apart
from the batch: they are paid once per command, whatever its size.

Columns: ``batch s`` the batch's wall time (Ray: without start and stop);
``planner s`` the sum of the runs' own wall times (measured by each worker
around its planner); ``idle/run`` the worker time not spent inside a planner,
per run: ``(batch s x workers - planner s) / runs`` (dispatch, plan
validation, the record, the worker's start; with two workers also the wait
for the last, longest run); ``vs local/run`` the extra batch time per run
over the local executor with as many workers; ``start+stop s`` Ray's fixed
cost per command. Last, the wall time of a whole ``pypddl batch`` command
with nothing left to run, local and on Ray. Run it on a quiet machine; the load average before and
after is printed, because a shared machine shifts every number.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run_setting(kind: str, workers: int, budget: float, select: str | None, folder: Path) -> dict[str, float]:
    from pypddl_experiments.planners import CONFIGS, run_batch
    from pypddl_experiments.runs.executors import ExecutorOptions, connect_ray
    from pypddl_experiments.runs.tasks import bundled
    from pypddl_experiments.runs.tasks import select as pick

    tasks = pick(bundled(), select, None)
    out = folder / f"{kind}-{workers}-{time.monotonic_ns()}.jsonl"
    start_s = stop_s = 0.0
    options = ExecutorOptions(kind)
    if kind == "ray":
        t = time.perf_counter()
        connect_ray(None, local_cpus=workers)
        start_s = time.perf_counter() - t
    t = time.perf_counter()
    summary = run_batch(tasks, [CONFIGS["lama-first"]], out, time_limit=budget, workers=workers, progress=False,
                        executor=options)
    batch_s = time.perf_counter() - t
    if kind == "ray":
        import ray

        t = time.perf_counter()
        ray.shutdown()
        stop_s = time.perf_counter() - t
    records = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    assert summary.written == len(records) == len(tasks), summary.line()
    planner_s = sum(r["wall_s"] for r in records)
    return {"runs": len(records), "batch_s": batch_s, "planner_s": planner_s, "start_stop_s": start_s + stop_s,
            "solved": sum(r["outcome"] == "solved" for r in records)}


def command_wall(kind: str, out: Path, budget: float, select: str | None) -> float:
    """Wall time of a whole ``pypddl batch`` that has nothing left to run
    (interpreter, imports, the executor's start and stop)."""
    cmd = [sys.executable, "-m", "pypddlengine.cli", "batch", "--bundled", "-p", "lama-first", "-t", f"{budget:g}",
           "-q", "-o", str(out), "--executor", kind]
    if select:
        cmd += ["--select", select]
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per run (lama-first needs ~30 s on p11)")
    ap.add_argument("--repeats", type=int, default=1, help="batches per setting (median reported)")
    ap.add_argument("--select", help="only the bundled tasks matching this regular expression")
    args = ap.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    settings = [("local", 1), ("ray", 1), ("local", 2), ("ray", 2)]
    load_before = os.getloadavg()
    rows: dict[tuple[str, int], dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as tmp:
        for kind, workers in settings:
            runs = [run_setting(kind, workers, args.budget, args.select, Path(tmp)) for _ in range(args.repeats)]
            rows[(kind, workers)] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            print(f"  {kind} x{workers}: {rows[(kind, workers)]}", file=sys.stderr, flush=True)
        done = next(Path(tmp).glob("local-1-*.jsonl"))
        noop = {kind: statistics.median(command_wall(kind, done, args.budget, args.select) for _ in range(3))
                for kind in ("local", "ray")}
    load_after = os.getloadavg()
    print(f"\nbundled ladder, lama-first, {args.budget:g} s budget, {args.repeats} repeat(s), "
          f"{os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after\n")
    print("| executor | workers | runs | solved | batch s | planner s | idle/run s | vs local/run s | start+stop s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (kind, workers), row in rows.items():
        base = rows[("local", workers)]
        idle = (row["batch_s"] * workers - row["planner_s"]) / row["runs"]
        extra = (row["batch_s"] - base["batch_s"]) / row["runs"]
        print(f"| {kind} | {workers} | {row['runs']:.0f} | {row['solved']:.0f} | {row['batch_s']:.1f} | "
              f"{row['planner_s']:.1f} | {idle:.3f} | {extra:+.3f} | "
              f"{row['start_stop_s']:.1f} |")
    print(f"\nA whole `pypddl batch` with nothing left to run (median of 3): local {noop['local']:.1f} s, "
          f"ray {noop['ray']:.1f} s.")


if __name__ == "__main__":
    main()
