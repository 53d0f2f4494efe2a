"""TAMER in a process of its own: ``python tamer_worker.py DOMAIN PROBLEM PLAN
MEMORY_MB``. Run by :func:`~.temporal.run_tamer` under the wall-clock guard
(TAMER runs inside unified-planning's Python process and has no time limit of
its own here, so only a separate process group can be stopped).

It reads the task with unified-planning's PDDL reader, solves it with
``OneshotPlanner(name="tamer")`` and writes the plan unified-planning's PDDL
writer prints for it (``TIME: (action args)[DURATION]``) to PLAN, in one go,
after the search. What it prints (one line each) tells the runner what
happened: ``status: NAME`` (unified-planning's plan-generation status),
``read error: ...`` (unified-planning could not read the task) or
``planner error: ...`` (TAMER raised, e.g. on a construct it does not
support). It imports nothing of pypddlengine.
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

READ_ERROR, PLANNER_ERROR = 3, 4


def main(argv: list[str]) -> int:
    domain, problem, plan, memory_mb = argv[1], argv[2], Path(argv[3]), int(argv[4])
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from unified_planning.io import PDDLReader, PDDLWriter
    from unified_planning.shortcuts import OneshotPlanner, get_environment

    get_environment().credits_stream = None
    try:
        task = PDDLReader().parse_problem(domain, problem)
    except Exception as exc:  # noqa: BLE001 - the reader raises many kinds on what it cannot read
        print(f"read error: {type(exc).__name__}: {exc}".splitlines()[0][:300], flush=True)
        return READ_ERROR
    try:
        with OneshotPlanner(name="tamer") as planner:
            result = planner.solve(task)
    except MemoryError:
        print("planner error: MemoryError (out of memory)", flush=True)
        return PLANNER_ERROR
    except Exception as exc:  # noqa: BLE001 - TAMER's refusals come as several exception types
        print(f"planner error: {type(exc).__name__}: {exc}".splitlines()[0][:300], flush=True)
        return PLANNER_ERROR
    print(f"status: {result.status.name}", flush=True)
    if result.plan is not None:
        part = plan.with_suffix(".part")
        part.write_text(PDDLWriter(task).get_plan(result.plan))
        part.replace(plan)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
