"""Exam speed (issue 32): answering ACPBench's generative development questions, and making questions.

    python bench/bench_exam.py [--dev DIR] [--state-limit N]

Prints, per task, the CPU seconds spent answering its 40 generative questions
(nexta's optimal searches and every other search included, each within the
state limit), and the questions `make_questions` writes per minute on a
blocksworld task of ~100 atoms (9 blocks): the four one-step tasks together,
then reach, areach, land and nexta one by one, and land, areach and nexta again on 40 states
(``--dev none`` skips the answering part). CPU time (``time.process_time``)
is reported beside wall time because the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from pypddlengine.exam_make import make_questions
from pypddlengine.exam_questions import answer_question, read_questions, task_of

ROOT = Path(__file__).resolve().parent.parent


def answer_dev(dev: Path, state_limit: int | None) -> None:
    total_cpu = total_wall = 0.0
    count = 0
    for path in sorted(dev.glob("*/dev.gen.json")):
        docs = read_questions(path)
        cpu, wall = time.process_time(), time.perf_counter()
        for doc in docs:
            answer_question(doc, state_limit=state_limit)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        total_cpu += cpu
        total_wall += wall
        count += len(docs)
        print(f"{task_of(docs[0]):7} {len(docs)} questions  cpu {cpu:6.2f} s  wall {wall:6.2f} s")
    print(f"all     {count} questions  cpu {total_cpu:6.2f} s  wall {total_wall:6.2f} s")


def blocks_problem(n: int) -> str:
    names = [f"b{i}" for i in range(n)]
    init = ["(handempty)"] + [f"(ontable {b})" for b in names[: n // 2]]
    init += [f"(on {names[i]} {names[i - 1]})" for i in range(n // 2 + 1, n)] + [f"(ontable {names[n // 2]})"]
    tops = {names[n // 2 - 1], names[n - 1]} if n > 1 else set(names)
    init += [f"(clear {b})" for b in names[: n // 2 - 1]] + [f"(clear {b})" for b in sorted(tops)]
    goal = [f"(on {names[i]} {names[i + 1]})" for i in range(n - 1)]
    return (f"(define (problem bench-{n}) (:domain blocksworld) (:objects {' '.join(names)} - block)"
            f" (:init {' '.join(sorted(set(init)))}) (:goal (and {' '.join(goal)})))")


def make_rate(blocks: int, tasks: list[str], per_task: int = 5) -> None:
    domain = (ROOT / "domains" / "blocksworld.pddl").read_text()
    problem = blocks_problem(blocks)
    cpu, wall = time.process_time(), time.perf_counter()
    docs = make_questions(domain, problem, seed=1, per_task=per_task, tasks=tasks, formats=("gen", "bool", "mcq"))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    states = len({doc["PDDL_problem"] for doc in docs})  # walks from one state meet the same states again
    print(f"make {blocks} blocks, tasks {','.join(tasks)}: {len(docs)} questions about {states} distinct states,"
          f" cpu {cpu:.2f} s, wall {wall:.2f} s -> {60 * len(docs) / cpu:.0f} per CPU minute")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dev", type=Path, default=ROOT.parent / "shared" / "acpbench-dev")
    parser.add_argument("--state-limit", type=int, default=None)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    if args.dev.is_dir():
        answer_dev(args.dev, args.state_limit)
    make_rate(9, ["app", "prog", "val", "just"])
    for task in ("reach", "areach", "land", "nexta"):
        make_rate(9, [task])
    for task in ("land", "areach", "nexta"):  # 5 states take about 0.1-0.3 s: too short a time to read
        make_rate(9, [task], per_task=40)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
