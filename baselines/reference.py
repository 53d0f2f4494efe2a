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
import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .fd import CONFIGS
from .tasks import TaskRef

__all__ = [
    "BLOCK_SIZE",
    "ORDER_LABELS",
    "ORDER_RULES",
    "PAPER",
    "OrderedTask",
    "block_label",
    "block_rows",
    "describe_order",
    "difficulty_order",
    "format_report",
    "order_by_rule",
    "outcome_rows",
    "rounded",
]

BLOCK_SIZE = 10
K = TypeVar("K", bound=Hashable)
LAMA, SEQ = CONFIGS["lama-first"].method, CONFIGS["seq-sat-lama-2011"].method

_BLOCKS = "blocks are consecutive runs of 10 in this order (0-based positions; the last block is shorter)"
_AS_IN_THE_PAPER = (", as in the paper (§III-C: 'used in their original benchmark order'; its Table I's 7, 7, 3, 0 "
                    "tasks solved by both Fast Downward configurations in blocks 70–80 .. 100–102 need it)")
ORDER_RULES = {
    "benchmark": f"tasks in their original benchmark order (natural order of the instance ids){_AS_IN_THE_PAPER}; "
                 + _BLOCKS,
    "lama": (
        "tasks ordered by lama-first plan length (ascending), ties by benchmark order; tasks lama-first did not "
        "solve come last, by number of objects, then benchmark order (not the paper's order); blocks are "
        "consecutive runs of 10 in this order (0-based positions; the last block is shorter)"
    ),
}
_PAPER_ID = re.compile(r"instance-\d+")


def paper_ids(ids: Sequence[str]) -> bool:
    """Whether instance ids are named as the paper's IPC-2000 tasks (``instance-N``)."""
    return bool(ids) and all(_PAPER_ID.fullmatch(i) for i in ids)


def describe_order(rule: str, ids: Sequence[str]) -> str:
    """The text of ordering ``rule`` (:data:`ORDER_RULES`) for tasks whose
    benchmark order is ``ids``: the benchmark rule names the first and last
    ids, and cites the paper only for its own task names."""
    if rule != "benchmark" or not ids:
        return ORDER_RULES[rule]
    shown = ", ".join(ids) if len(ids) <= 3 else f"{ids[0]}, {ids[1]}, ..., {ids[-1]}"
    paper = _AS_IN_THE_PAPER if paper_ids(ids) else ""
    return f"tasks in their original benchmark order (natural order of the instance ids: {shown}){paper}; {_BLOCKS}"


def block_label(index: int, total: int) -> str:
    """Block ``index`` of ``total`` tasks, as every table writes it: ``0–10``
    .. ``100–102`` (positions, the last block shorter)."""
    lo = index * BLOCK_SIZE
    return f"{lo}–{min(lo + BLOCK_SIZE, total)}"


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


# The paper's numbers, for the comparison printed under the tables.
PAPER: dict[str, Any] = {
    "solved": {LAMA: 87, SEQ: 87},
    "timeout": {LAMA: 15, SEQ: 15},
    "tasks": 102,
    "first_failure_position": 72,
    "table1": [
        ("0–10", 10, 14.0, 14.0), ("10–20", 10, 39.8, 37.6), ("20–30", 10, 61.6, 36.4), ("30–40", 10, 146.4, 64.8),
        ("40–50", 10, 199.2, 106.8), ("50–60", 10, 222.4, 135.4), ("60–70", 10, 253.8, 207.2),
        ("70–80", 7, 281.4, 228.3), ("80–90", 7, 380.0, 328.0), ("90–100", 3, 484.0, 374.7), ("100–102", 0, None, None),
    ],
}


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
    tasks: Sequence[TaskRef], records: dict[tuple[str, str], dict[str, Any]], rule: str = "benchmark"
) -> list[OrderedTask]:
    """Order ``tasks`` (given in benchmark order) by ``rule``; ``records``
    maps (method, instance_id) to the record of replicate 0."""
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


def rounded(row: dict[str, Any], digits: int = 3) -> dict[str, Any]:
    """``row`` with its floats rounded to ``digits`` (JSON output: a mean is
    39.8, never 39.800000000000004)."""
    return {k: round(v, digits) if isinstance(v, float) else v for k, v in row.items()}


def _benchmark_ids(order: list[OrderedTask]) -> list[str]:
    from pypddlengine.task import natural_key

    return sorted((t.task.instance_id for t in order), key=natural_key)


def _papers_benchmark(order: list[OrderedTask]) -> bool:
    """Whether these are (some of) the paper's tasks: ids ``instance-N`` and
    the IPC-2000 domain, named ``blocks``."""
    from pypddlengine.errors import PDDLError
    from pypddlengine.loading import load_domain

    if not order or not paper_ids([t.task.instance_id for t in order]):
        return False
    try:
        return load_domain(order[0].task.domain).name == "blocks"
    except PDDLError:
        return False


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
            "block": block_label(start // BLOCK_SIZE, len(order)),
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
                  benchmark_tasks: int | None = None) -> str:
    """Tables I and II as text, with the ordering rule, the failed tasks and
    the paper's numbers for comparison. ``benchmark_tasks``: how many tasks
    the benchmark has, when ``order`` holds only those with records."""
    lines = [f"Ordering rule ({rule}): {describe_order(rule, _benchmark_ids(order))}.", ""]
    if benchmark_tasks is not None:
        lines += [f"Tasks: {len(order)} of the benchmark's {benchmark_tasks} tasks have records; the tables cover "
                  "those.", ""]
    budget = f", {time_limit:g} s budget" if time_limit else ""
    only = [name for name, which in (("lama-first", LAMA), ("seq-sat-lama-2011", SEQ))
            if not any((t.lama if which == LAMA else t.seq) is not None for t in order)]
    counted = f"tasks solved by {'the configuration with records' if only else 'both'}"
    lines.append(f"Table I. Mean plan length per block of {BLOCK_SIZE} tasks ({counted}{budget})")
    if only:
        lines.append(f"  (no records of {', '.join(only)} yet)")
    lines.append(f"{'Block':<9} {'n':>3} {'FD lama':>9} {'FD seq':>9} {'Diff':>8}")
    for row in block_rows(order):
        lines.append(
            f"{row['block']:<9} {row['both_solved']:>3} {_num(row['lama_mean']):>9} {_num(row['seq_mean']):>9} "
            f"{_num(row['difference']):>8}"
        )
    lines += ["", "Table II. Outcomes (Fast Downward rows)"]
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
    lines += ["", "Unsolved tasks (position in this order: instance, lama-first / seq-sat-lama-2011 outcome):"]
    failed = [t for t in order if any(r is not None and not OrderedTask.solved(r) for r in (t.lama, t.seq))]
    for t in failed:
        lo = t.lama["planner"]["outcome"] if t.lama else "missing"
        so = t.seq["planner"]["outcome"] if t.seq else "missing"
        lines.append(f"  #{t.position}: {t.task.instance_id}  {lo} / {so}")
    if not failed:
        lines.append("  none")
    lines.append("")
    if _papers_benchmark(order):
        paper_counts = ", ".join(str(row[1]) for row in PAPER["table1"])
        lines += ["Paper (i9-14900K, 180 s, benchmark order): both configurations 87/102 (85.3%), 15 timeouts, 0 "
                  "early", f"  exits; failures 'from instance 72 onwards'; Table I solved by both per block: "
                  f"{paper_counts}."]
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


def difficulty_json(order: list[OrderedTask], rule: str) -> str:
    """The order as JSON (``difficulty.json``), for the LLM harness's reports."""
    data = {
        "rule": rule,
        "description": describe_order(rule, _benchmark_ids(order)),
        "block_size": BLOCK_SIZE,
        "order": [
            {
                "position": t.position,
                "block": block_label(t.position // BLOCK_SIZE, len(order)),
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
