"""The paper's Fast Downward protocol: Tables I and II on the IPC-2000 Blocksworld set.

The paper (Agentic LLM Planning via Step-Wise PDDL Simulation, §III-C, §IV)
runs lama-first and seq-sat-lama-2011 with a 180 s budget on the 102
IPC-2000 Blocksworld tasks "used in their original benchmark order", cuts
that order into blocks of 10 and reports, per block, the tasks solved by
both configurations and their mean plan lengths (Table I), and the solved /
timeout / early exit counts (Table II). It reports 87/102 solved for both
configurations.

Ordering rules (:data:`ORDER_RULES`; the one used is printed with the tables,
and the LLM report uses the same rules and the same function,
:func:`order_by_rule`):

``benchmark`` (default)
    the benchmark order itself (``instance-1`` .. ``instance-102``). The
    paper's numbers require it: its Table I has 7, 7, 3 and 0 tasks solved by
    both configurations in blocks 70-80, 80-90, 90-100 and 100-102 (a
    lama-length order with unsolved tasks last would give 10, 7, 0, 0), and
    its Table III has a lama-first mean of 142.0 in block 70-80 while block
    60-70 averages 253.8 in Table I.
``lama``
    by lama-first plan length, ascending; ties by benchmark order; tasks
    lama-first did not solve last, by number of objects, then benchmark
    order (the paper's "difficulty proxy" read as an order; kept as an
    option).

Table I counts, per block, the tasks solved by *both* configurations and
gives the mean plan length of each over those tasks and the difference
(lama-first minus seq-sat-lama-2011).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .fd import CONFIGS
from .readings import Reading, apply_reading
from .tasks import TaskRef

__all__ = [
    "BLOCK_SIZE",
    "ORDER_LABELS",
    "ORDER_RULES",
    "PAPER",
    "is_paper_benchmark",
    "OrderedTask",
    "block_rows",
    "difficulty_order",
    "format_report",
    "order_by_rule",
    "outcome_rows",
]

BLOCK_SIZE = 10
K = TypeVar("K", bound=Hashable)
LAMA, SEQ = CONFIGS["lama-first"].method, CONFIGS["seq-sat-lama-2011"].method

ORDER_RULES = {
    "benchmark": (
        "tasks in their original benchmark order (natural order of the instance ids: instance-1, instance-2, ..., "
        "instance-102), as in the paper (§III-C: 'used in their original benchmark order'; its Table I's 7, 7, 3, "
        "0 tasks solved by both Fast Downward configurations in blocks 70-80 .. 100-102 need it); blocks are "
        "consecutive runs of 10 in this order (0-based positions; the last block is shorter)"
    ),
    "lama": (
        "tasks ordered by lama-first plan length (ascending), ties by benchmark order; tasks lama-first did not "
        "solve come last, by number of objects, then benchmark order (not the paper's order); blocks are "
        "consecutive runs of 10 in this order (0-based positions; the last block is shorter)"
    ),
}
ORDER_LABELS = {
    "benchmark": "instances in benchmark order",
    "lama": "instances by lama-first plan length (unsolved last)",
}
"""A short name of each rule, for axis labels and headings."""


def order_by_rule(
    keys: Sequence[K], rule: str, lama_length: Callable[[K], int | None], objects: Callable[[K], float]
) -> list[K]:
    """``keys`` (given in benchmark order) in the order of ``rule``.
    ``lama_length``: a key's lama-first plan length (``None``: unsolved);
    ``objects``: its number of objects (asked only for unsolved keys, and
    only by the ``lama`` rule)."""
    if rule not in ORDER_RULES:
        raise ValueError(f"unknown ordering rule '{rule}'; known: {', '.join(ORDER_RULES)}")
    if rule == "benchmark":
        return list(keys)
    position = {k: i for i, k in enumerate(keys)}
    lengths = {k: lama_length(k) for k in keys}
    solved = sorted((k for k in keys if lengths[k] is not None), key=lambda k: (lengths[k], position[k]))
    unsolved = sorted((k for k in keys if lengths[k] is None), key=lambda k: (objects(k), position[k]))
    return solved + unsolved


# The paper's numbers (Agentic LLM Planning via Step-Wise PDDL Simulation, §IV, Tables I-III), printed
# beside ours when the tasks are the paper's 102 IPC-2000 Blocksworld instances in benchmark order.
PAPER: dict[str, Any] = {
    "solved": {LAMA: 87, SEQ: 87},
    "timeout": {LAMA: 15, SEQ: 15},
    "tasks": 102,
    "first_failure_position": 72,
    # block, solved by both FD configurations, mean lama-first length, mean seq-sat-lama-2011 length
    "table1": [
        ("0-10", 10, 14.0, 14.0), ("10-20", 10, 39.8, 37.6), ("20-30", 10, 61.6, 36.4), ("30-40", 10, 146.4, 64.8),
        ("40-50", 10, 199.2, 106.8), ("50-60", 10, 222.4, 135.4), ("60-70", 10, 253.8, 207.2),
        ("70-80", 7, 281.4, 228.3), ("80-90", 7, 380.0, 328.0), ("90-100", 3, 484.0, 374.7), ("100-102", 0, None, None),
    ],
    # approach: solved, timeout, early exit (Table II)
    "table2": {LAMA: (87, 15, 0), SEQ: (87, 15, 0), "direct": (65, 37, 0), "agentic": (68, 28, 6)},
    # block, co-solved instances, mean length of lama-first, seq-sat-lama-2011, direct, agentic (Table III)
    "table3": [
        ("0-10", 10, 14.0, 14.0, 14.0, 15.8), ("10-20", 10, 39.8, 37.6, 27.4, 30.6),
        ("20-30", 9, 60.0, 36.2, 40.4, 44.7), ("30-40", 6, 164.3, 63.3, 59.7, 60.3),
        ("40-50", 7, 197.1, 92.6, 78.0, 78.6), ("50-60", 4, 215.5, 144.5, 99.5, 124.5),
        ("70-80", 3, 142.0, 136.7, 139.3, 139.3),
    ],
}
PAPER_INSTANCES = tuple(f"instance-{i}" for i in range(1, 103))
"""The paper's tasks in its (benchmark) order."""


def is_paper_benchmark(instance_ids: Sequence[str]) -> bool:
    """Whether these are the paper's 102 tasks in its order (only then are its
    numbers printed beside ours)."""
    return tuple(instance_ids) == PAPER_INSTANCES


@dataclass(frozen=True)
class OrderedTask:
    position: int  # 0-based, in the difficulty order
    task: TaskRef
    objects: int
    lama: dict[str, Any] | None  # the lama-first record, if any
    seq: dict[str, Any] | None

    @staticmethod
    def solved(record: dict[str, Any] | None) -> bool:
        return record is not None and record.get("outcome") == "solved" and record.get("plan_valid") is True

    def length(self, which: str) -> int | None:
        record = self.lama if which == LAMA else self.seq
        return record.get("plan_length") if self.solved(record) and record is not None else None


def count_objects(task: TaskRef) -> int:
    """Objects declared by the problem (the tie-breaker of unsolved tasks;
    the LLM harness's report counts the same way)."""
    from pypddlengine.loading import load_problem

    try:
        return len(load_problem(task.problem).objects)
    except Exception:  # an unreadable task simply sorts last
        return 10**9


def difficulty_order(
    tasks: Sequence[TaskRef], records: dict[tuple[str, str], dict[str, Any]], rule: str = "benchmark",
    seq_reading: Reading | None = None,
) -> list[OrderedTask]:
    """Order ``tasks`` (given in benchmark order) by ``rule``; ``records``
    maps (method, instance_id) to the record of replicate 0; ``seq_reading``:
    which plan of each seq-sat-lama-2011 run counts (see
    :mod:`.readings`; default: the best within the budget)."""
    if seq_reading is not None:
        records = {k: (apply_reading(r, seq_reading) if k[0] == SEQ else r) for k, r in records.items()}
    by_id = {t.instance_id: t for t in tasks}
    lama_of = {t.instance_id: records.get((LAMA, t.instance_id)) for t in tasks}
    objects: dict[str, int] = {}

    def length(instance: str) -> int | None:
        record = lama_of[instance]
        return record["plan_length"] if OrderedTask.solved(record) and record is not None else None

    def count(instance: str) -> int:
        objects[instance] = count_objects(by_id[instance])
        return objects[instance]

    ordered = order_by_rule([t.instance_id for t in tasks], rule, length, count)
    return [
        OrderedTask(pos, by_id[i], objects.get(i, -1), lama_of[i], records.get((SEQ, i)))
        for pos, i in enumerate(ordered)
    ]


def _mean(values: list[int]) -> float | None:
    return sum(values) / len(values) if values else None


def block_rows(order: list[OrderedTask]) -> list[dict[str, Any]]:
    """Table I: per block, the tasks solved by both configurations, their
    mean plan lengths and the difference. When only one configuration has
    records (e.g. a lama-first-only run), the tasks that one solved."""
    have_lama = any(t.lama is not None for t in order)
    have_seq = any(t.seq is not None for t in order)

    def counted(t: OrderedTask) -> bool:
        lama_ok, seq_ok = t.length(LAMA) is not None, t.length(SEQ) is not None
        return (lama_ok or not have_lama) and (seq_ok or not have_seq) and (have_lama or have_seq)

    rows = []
    for start in range(0, len(order), BLOCK_SIZE):
        block = order[start : start + BLOCK_SIZE]
        both = [t for t in block if counted(t)]
        lama = _mean([t.length(LAMA) for t in both]) if have_lama else None  # type: ignore[misc]
        seq = _mean([t.length(SEQ) for t in both]) if have_seq else None  # type: ignore[misc]
        rows.append({
            "block": f"{start}-{start + len(block)}",
            "tasks": len(block),
            "both_solved": len(both),
            "lama_solved": sum(1 for t in block if t.length(LAMA) is not None),
            "seq_solved": sum(1 for t in block if t.length(SEQ) is not None),
            "lama_mean": lama,
            "seq_mean": seq,
            "difference": None if lama is None or seq is None else lama - seq,
        })
    return rows


def outcome_rows(order: list[OrderedTask]) -> list[dict[str, Any]]:
    """Table II (Fast Downward rows): solved, timeout, early exit, error, missing."""
    rows = []
    n = len(order)
    for method in (LAMA, SEQ):
        counts = {"solved": 0, "timeout": 0, "early_exit": 0, "error": 0, "missing": 0}
        for t in order:
            record = t.lama if method == LAMA else t.seq
            if record is None:
                counts["missing"] += 1
            elif OrderedTask.solved(record):
                counts["solved"] += 1
            elif record.get("outcome") in counts:
                counts[record["outcome"]] += 1
            else:
                counts["error"] += 1
        rows.append({"method": method, "tasks": n, **counts})
    return rows


def _num(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def format_report(order: list[OrderedTask], rule: str, *, time_limit: float | None = None,
                  benchmark_tasks: int | None = None, seq_reading: Reading | None = None) -> str:
    """Tables I and II as text, with the ordering rule and the failed tasks;
    when the tasks are the paper's 102 in benchmark order, the paper's values
    beside ours. ``benchmark_tasks``: how many tasks the benchmark has, when
    ``order`` holds only those with records; ``seq_reading``: the reading the
    seq-sat-lama-2011 records were scored with (printed)."""
    lines = [f"Ordering rule ({rule}): {ORDER_RULES[rule]}.", ""]
    if benchmark_tasks is not None:
        lines += [f"Tasks: {len(order)} of the benchmark's {benchmark_tasks} tasks have records; the tables cover "
                  "those.", ""]
    paper = rule == "benchmark" and is_paper_benchmark([t.task.instance_id for t in order])
    if seq_reading is not None and seq_reading.kind != "best":
        lines += [f"seq-sat-lama-2011 read as '{seq_reading.name}': {seq_reading.description}.", ""]
    budget = f", {time_limit:g} s budget" if time_limit else ""
    only = [name for name, which in (("lama-first", LAMA), ("seq-sat-lama-2011", SEQ))
            if not any((t.lama if which == LAMA else t.seq) is not None for t in order)]
    counted = f"tasks solved by {'the configuration with records' if only else 'both'}"
    lines.append(f"Table I. Mean plan length per block of {BLOCK_SIZE} tasks ({counted}{budget})"
                 + ("; the paper's values in brackets" if paper else ""))
    if only:
        lines.append(f"  (no records of {', '.join(only)} yet)")
    header = f"{'Block':<9} {'n':>3} {'FD lama':>9} {'FD seq':>9} {'Diff':>8}"
    if paper:
        header = (f"{'Block':<9} {'n':>3} {'[paper]':>7} {'FD lama':>9} {'[paper]':>8} {'FD seq':>9} "
                  f"{'[paper]':>8} {'Diff':>8} {'[paper]':>8}")
    lines.append(header)
    for i, row in enumerate(block_rows(order)):
        if paper:
            _, n, pl, ps = PAPER["table1"][i]
            pdiff = None if pl is None or ps is None else pl - ps
            lines.append(
                f"{row['block']:<9} {row['both_solved']:>3} {'[' + str(n) + ']':>7} {_num(row['lama_mean']):>9} "
                f"{'[' + _num(pl) + ']':>8} {_num(row['seq_mean']):>9} {'[' + _num(ps) + ']':>8} "
                f"{_num(row['difference']):>8} {'[' + _num(pdiff) + ']':>8}"
            )
        else:
            lines.append(
                f"{row['block']:<9} {row['both_solved']:>3} {_num(row['lama_mean']):>9} {_num(row['seq_mean']):>9} "
                f"{_num(row['difference']):>8}"
            )
    lines += ["", "Table II. Outcomes (Fast Downward rows)" + ("; the paper's values in brackets" if paper else "")]
    lines.append(f"{'Approach':<22} {'Solved':>13} {'Timeout':>8} {'Early exit':>11} {'Error':>6} {'Missing':>8}")
    rows = outcome_rows(order)
    for row in rows:
        pct = 100 * row["solved"] / row["tasks"] if row["tasks"] else 0.0
        name = row["method"].removeprefix("fd-").replace("lama-first", "FD lama-first")
        name = name if name.startswith("FD") else f"FD {name}"
        lines.append(
            f"{name:<22} {row['solved']:>4} ({pct:5.1f}%) {row['timeout']:>8} {row['early_exit']:>11} "
            f"{row['error']:>6} {row['missing']:>8}"
        )
        if paper:
            ps, pt, pe = PAPER["table2"][row["method"]]
            lines.append(f"{'  [paper]':<22} {ps:>4} ({100 * ps / PAPER['tasks']:5.1f}%) {pt:>8} {pe:>11}")
    lines += ["", "Unsolved tasks (position in this order: instance, lama-first / seq-sat-lama-2011 outcome):"]
    failed = [t for t in order if any(r is not None and not OrderedTask.solved(r) for r in (t.lama, t.seq))]
    for t in failed:
        lines.append(f"  #{t.position}: {t.task.instance_id}  {_outcome(t.lama)} / {_outcome(t.seq)}")
    if not failed:
        lines.append("  none")
    lines.append("")
    if paper:
        lines += ["Paper (i9-14900K, 180 s, benchmark order): both configurations 87/102 (85.3%), 15 timeouts, "
                  "0 early exits; failures 'from instance 72 onwards'."]
    for row in rows:
        if row["missing"] == row["tasks"]:
            continue
        which = [t.lama if row["method"] == LAMA else t.seq for t in order]
        first = next((t for t, r in zip(order, which, strict=True) if r is not None and not OrderedTask.solved(r)),
                     None)
        where = "none" if first is None else f"{first.position} ({first.task.instance_id})"
        lines.append(f"This run, {row['method']}: {row['solved']}/{row['tasks'] - row['missing']} solved; first "
                     f"unsolved at position {where}")
    return "\n".join(lines) + "\n"


def _outcome(record: dict[str, Any] | None) -> str:
    if record is None:
        return "missing"
    return str((record.get("planner") or {}).get("outcome") if "reading" not in record else record.get("outcome"))


def difficulty_json(order: list[OrderedTask], rule: str) -> str:
    """The order as JSON (``difficulty.json``), for the LLM harness's reports."""
    data = {
        "rule": rule,
        "description": ORDER_RULES[rule],
        "block_size": BLOCK_SIZE,
        "order": [
            {
                "position": t.position,
                "block": f"{t.position // BLOCK_SIZE * BLOCK_SIZE}-"
                         f"{min(t.position // BLOCK_SIZE * BLOCK_SIZE + BLOCK_SIZE, len(order))}",
                "instance_id": t.task.instance_id,
                "problem_sha256": t.task.problem_sha256,
                "lama_first_length": t.length(LAMA),
                "seq_sat_lama_2011_length": t.length(SEQ),
            }
            for t in order
        ],
    }
    return json.dumps(data, indent=1) + "\n"


def latest_records(records: list[dict[str, Any]], replicate: int = 0) -> dict[tuple[str, str], dict[str, Any]]:
    """(method, instance_id) -> the last record of ``replicate``."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        if int(r.get("replicate") or 0) == replicate:
            out[(str(r.get("method")), str(r.get("instance_id")))] = r
    return out


def write_difficulty(path: Path, order: list[OrderedTask], rule: str) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(difficulty_json(order, rule))
    tmp.replace(path)
