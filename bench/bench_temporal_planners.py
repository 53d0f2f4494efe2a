"""Which temporal planner solves more of the shared IPC temporal corpus: LPG
or TAMER (issue 31), each run by ``pypddl_experiments.planners.temporal``
under a wall-clock budget, every plan judged by VAL at the IPC tolerance
(``-t 0.001``; the verdict at VAL's default 0.01 is recorded beside it).

    python bench/bench_temporal_planners.py --per-domain 3 --time-limit 60 --jobs 2 \
        --out results/temporal/planners.jsonl

One JSON line per (planner, task) in --out, appended as runs finish (a
re-run skips what is recorded); then a Markdown table per domain on stdout
(``--table-only`` prints it from the records without running anything).
Needs the temporal corpus (PYPDDL_TEMPORAL_CORPUS, or ../shared/temporal-benchmarks).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE.parent / "baselines"), str(HERE.parent)]

from temporal_oracles import temporal_tasks  # noqa: E402

from pypddl_experiments.planners.temporal import TEMPORAL_CONFIGS, run_temporal  # noqa: E402
from pypddl_experiments.planners.val import val_run  # noqa: E402

PLANNERS = ("lpg", "tamer")


def run_one(planner: str, folder: str, domain: Path, problem: Path, time_limit: float) -> dict:
    load = os.getloadavg()[0]
    result = run_temporal(domain, problem, TEMPORAL_CONFIGS[planner], time_limit=time_limit)
    at_default = None
    if result.plan is not None:
        at_default = val_run(domain, problem, "".join(f"{s}\n" for s in result.plan)).verdict
    return {"planner": planner, "domain": folder, "problem": problem.name, "outcome": result.outcome.value,
            "detail": result.detail[:300], "wall_s": result.wall_s, "plan_s": result.last_plan_s,
            "valid_0.001": result.plan_valid, "valid_0.01": at_default, "value": result.plan_cost,
            "steps": result.plan_length, "load_1m": round(load, 2), "load_1m_end": round(os.getloadavg()[0], 2)}


def table(records: list[dict]) -> str:
    by_domain: dict[str, dict[str, list[dict]]] = {}
    for r in records:
        by_domain.setdefault(r["domain"], {p: [] for p in PLANNERS})[r["planner"]].append(r)

    def cell(rs: list[dict]) -> str:
        solved = [r for r in rs if r["outcome"] == "solved"]
        times = "/".join(f"{r['plan_s']:.1f}" if r["plan_s"] is not None else "-"
                         for r in sorted(solved, key=lambda r: r["problem"]))
        return f"{len(solved)}/{len(rs)}" + (f" ({times} s)" if solved else "")

    def why(rs: list[dict]) -> str:
        kinds = sorted({r["outcome"] for r in rs if r["outcome"] != "solved"})
        return ", ".join(kinds)

    lines = ["| domain | LPG solved (plan times) | LPG unsolved | TAMER solved (plan times) | TAMER unsolved |",
             "|---|---|---|---|---|"]
    totals = {p: 0 for p in PLANNERS}
    for domain in sorted(by_domain):
        runs = by_domain[domain]
        for p in PLANNERS:
            totals[p] += sum(r["outcome"] == "solved" for r in runs[p])
        lines.append(f"| {domain} | {cell(runs['lpg'])} | {why(runs['lpg'])} | {cell(runs['tamer'])} | "
                     f"{why(runs['tamer'])} |")
    n = {p: sum(len(by_domain[d][p]) for d in by_domain) for p in PLANNERS}
    lines.append(f"| **all** | **{totals['lpg']}/{n['lpg']}** | | **{totals['tamer']}/{n['tamer']}** | |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-domain", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="results/temporal/planners.jsonl")
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    records = [json.loads(ln) for ln in out.read_text().splitlines() if ln.strip()] if out.is_file() else []
    if not args.table_only:
        tasks = temporal_tasks(args.per_domain)
        if not tasks:
            print("the temporal corpus is not there (set PYPDDL_TEMPORAL_CORPUS)", file=sys.stderr)
            return 2
        done = {(r["planner"], r["domain"], r["problem"]) for r in records}
        todo = [(p, f, d, pr) for f, d, pr in tasks for p in PLANNERS if (p, f, pr.name) not in done]
        out.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        print(f"{len(todo)} runs; load average {os.getloadavg()}", file=sys.stderr)
        with ThreadPoolExecutor(args.jobs) as pool, out.open("a") as sink:
            futures = [pool.submit(run_one, p, f, d, pr, args.time_limit) for p, f, d, pr in todo]
            for future in as_completed(futures):
                record = future.result()
                records.append(record)
                sink.write(json.dumps(record) + "\n")
                sink.flush()
                print(f"{record['planner']:5} {record['domain']}/{record['problem']}: {record['outcome']} "
                      f"{record['wall_s']:.1f}s", file=sys.stderr)
        print(f"wall {time.monotonic() - started:.0f}s; load average {os.getloadavg()}", file=sys.stderr)
    print(table(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
