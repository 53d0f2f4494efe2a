"""Heuristic benchmark: goal count, h_max, h_add, h_FF and LM-count per state,
the one-off set-up (relaxed task, landmarks), beside pyperplan's h_FF on the
same states.

    python bench/bench_heuristics.py                 # 50/100/200/400 blocks
    python bench/bench_heuristics.py --sizes 50 100  # a quick run
    python bench/bench_heuristics.py --clock cpu     # CPU time of this process, not wall clock

Tasks: generated Blocksworld (seed 1). States: the initial state and the
states of a seeded random walk (``--states``), the same for every heuristic
and for pyperplan. Each heuristic's time is the median over those states of
one evaluation from scratch; LM-count's is the median of one landmark status
update along the walk. The landmark set-up reuses the relaxed task (as a
session does; its own set-up is the "relaxed task set-up" column). Everything
runs in this one process, one size after the other; the machine's load
average is printed beside the numbers. ``--clock cpu`` measures this
process's CPU time, which a loaded machine inflates far less than wall clock.

h_max, h_add and h_FF run the exploration in C when the optional extension
was built at install (``pypddlengine.heuristics.ACCELERATED``); the
"h_FF pure-Python" column is the same evaluation with the Python loop.

Targets (issue 12): h_FF < 5 ms per step at 100 blocks and < 20 ms at 400;
landmarks < 50 ms at initialisation at 100 blocks.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

clock = time.perf_counter


def median_ms(fn, items) -> float:  # type: ignore[no-untyped-def]
    times = []
    for item in items:
        start = clock()
        fn(item)
        times.append(clock() - start)
    return statistics.median(times) * 1e3


def measure(blocks: int, n_states: int, pyperplan: bool) -> dict[str, float | int | str]:
    from pypddl_experiments.generators.blocksworld import blocksworld
    from pypddl_experiments.generators.proofs import ground_text
    from pypddlengine.bundled import bundled_task
    from pypddlengine.heuristics import relaxed_task
    from pypddlengine.landmarks import find_landmarks

    domain_path = bundled_task("blocksworld/p01")[0]
    problem = blocksworld(blocks, 1)
    task = ground_text(domain_path.read_text(), problem)
    start = clock()
    rt = relaxed_task(task)
    row: dict[str, float | int | str] = {"blocks": blocks, "operators": len(rt.operators),
                                         "setup_ms": (clock() - start) * 1e3}
    rng = random.Random(blocks)
    states = [task.init]
    while len(states) < n_states:
        states.append(rng.choice(task.applicable(states[-1])).apply(states[-1]))
    row["goal_count_ms"] = median_ms(rt.goal_count, states)
    row["h_max_ms"] = median_ms(lambda s: rt.evaluate(s, "max", plan=False), states)
    row["h_add_ms"] = median_ms(lambda s: rt.evaluate(s, "add", plan=False), states)
    row["h_ff_ms"] = median_ms(lambda s: rt.evaluate(s, "add"), states)
    if rt.accelerated:  # the same h_FF with the Python loop the C exploration mirrors
        rt.accelerated = False
        row["h_ff_py_ms"] = median_ms(lambda s: rt.evaluate(s, "add"), states)
        rt.accelerated = True
    row["h_ff_mean"] = statistics.mean(rt.value("h_ff", s) for s in states)
    start = clock()
    lm = find_landmarks(task)
    row["landmarks_setup_ms"] = (clock() - start) * 1e3
    row["landmarks"] = len(lm.atoms)
    progress = [lm.start(task.init)]
    row["lm_count_ms"] = median_ms(lambda s: progress.append(lm.step(progress[-1].accepted, s)), states[1:])
    if pyperplan:
        row.update(measure_pyperplan(task, domain_path, problem, states))
    return row


def measure_pyperplan(task, domain_path, problem: str, states) -> dict[str, float]:  # type: ignore[no-untyped-def]
    import tempfile

    from pyperplan import grounding
    from pyperplan.heuristics.relaxation import hFFHeuristic
    from pyperplan.pddl.parser import Parser
    from pyperplan.search.searchspace import make_root_node

    with tempfile.NamedTemporaryFile("w", suffix=".pddl", delete=False) as f:
        f.write(problem)
    try:
        p = Parser(str(domain_path), f.name)
        start = clock()
        pp_task = grounding.ground(p.parse_problem(p.parse_domain()))
        h = hFFHeuristic(pp_task)
        setup = clock() - start
    finally:
        os.unlink(f.name)
    render = task.lifted.render_key
    nodes = [make_root_node(frozenset(f"({' '.join(render(task.atoms[i])[1:-1].lower().split())})" for i in s))
             for s in states]
    return {"pyperplan_setup_ms": setup * 1e3, "pyperplan_h_ff_ms": median_ms(h, nodes),
            "pyperplan_h_ff_mean": statistics.mean(h(n) for n in nodes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100, 200, 400])
    parser.add_argument("--states", type=int, default=15, help="states per size (the initial state and a walk)")
    parser.add_argument("--no-pyperplan", action="store_true", help="leave pyperplan out")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall clock or this process's CPU time")
    args = parser.parse_args()
    global clock
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    rows = []
    for blocks in args.sizes:
        rows.append(measure(blocks, args.states, not args.no_pyperplan))
        print(f"measured {blocks} blocks, load average {os.getloadavg()[0]:.2f}", flush=True)
    cols = [("blocks", "blocks"), ("operators", "operators"), ("setup_ms", "relaxed task set-up ms"),
            ("goal_count_ms", "goal count ms"), ("h_max_ms", "h_max ms"), ("h_add_ms", "h_add ms"),
            ("h_ff_ms", "h_FF ms"), ("h_ff_py_ms", "h_FF pure-Python ms"), ("pyperplan_h_ff_ms", "pyperplan h_FF ms"), ("lm_count_ms", "LM-count step ms"),
            ("landmarks_setup_ms", "landmarks set-up ms"), ("landmarks", "landmarks"),
            ("h_ff_mean", "mean h_FF"), ("pyperplan_h_ff_mean", "pyperplan mean h_FF"),
            ("pyperplan_setup_ms", "pyperplan ground+set-up ms")]
    print()
    print("| " + " | ".join(title for _, title in cols) + " |")
    print("|" + "---:|" * len(cols))
    for row in rows:
        cells = [row.get(key, "-") for key, _ in cols]
        print("| " + " | ".join(f"{c:.3g}" if isinstance(c, float) else str(c) for c in cells) + " |")
    load = os.getloadavg()
    from pypddlengine.heuristics import ACCELERATED

    print(f"\nexploration in {'C (pypddlengine/_relaxed.c)' if ACCELERATED else 'pure Python'}; "
          "the pure-Python column runs the same exploration as Python code")
    print(f"{args.clock} clock; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
