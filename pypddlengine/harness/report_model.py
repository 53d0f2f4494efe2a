"""The experiment report's data: approaches (one method of one source), the
report's tables as plain rows, the rules printed with them, and the names
and orders shared by :mod:`.report`, :mod:`.report_tables` and
:mod:`.report_output`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..baselines.reference import ORDER_LABELS, ORDER_RULES
from .tasks import natural_key

__all__ = ["BLOCK_SIZE", "COLOURS", "RULES", "Approach", "ContaminatedRuns", "Report", "block_label", "plan_length"]

BLOCK_SIZE = 10
OUTCOME_ORDER = ("solved", "timeout", "early_exit", "error")
DISPLAY = {
    "fd-lama-first": "FD lama-first",
    "fd-seq-sat-lama-2011": "FD seq-sat-lama-2011",
    "direct": "Direct LLM",
    "agentic": "Agentic LLM",
}
METHOD_ORDER = ("fd-lama-first", "fd-seq-sat-lama-2011", "direct", "agentic")
"""The paper's four approaches, in its row order."""
LEVEL_ORDER = ("paper", "plain", "progress", "heuristic", "full")
EARLY_EXIT_KINDS = ("declared_unsolvable", "goal_not_validated", "max_tokens", "invalid_final", "stopped")
COLOURS = {"solved": "#2e7d32", "timeout": "#f9a825", "early_exit": "#c62828", "error": "#6a1b9a",
           "contaminated": "#9e9e9e", "missing": "#ffffff"}

RULES = {
    "rows": (
        "Row order: the paper's four approaches first in its order (FD lama-first, FD seq-sat-lama-2011, direct, "
        "agentic), then other methods by name; approaches of one method by feedback level (paper, plain, "
        "progress, heuristic, full), then by source name. The first approach of each of the four methods in this "
        "order is that method's 'paper approach' (Table III's co-solved set)."
    ),
    "cosolved": (
        "Co-solved set (Table III): the instances solved by each of the paper's four approaches present in the "
        "report; plan lengths are compared only there, per difficulty block, to avoid survivorship bias. Other "
        "approaches are not allowed to shrink that set: with more approaches a second table uses the instances "
        "all of them solved."
    ),
    "early_exit": (
        "Early exit: the run ended before its budget without a valid plan. Agentic kinds: declared_unsolvable "
        "(the model said the task cannot be solved: the paper's early exit), goal_not_validated (the executed "
        "actions reach the goal but no validation confirmed it), max_tokens (the reply was cut at the output "
        "limit), invalid_final (its last validation did not confirm a plan), stopped (it stopped without saying "
        "why). Fast Downward: proved_unsolvable, no_plan_found."
    ),
    "contaminated": (
        "Contaminated runs (a rate limit or overload took part of their budget) are left out of every count, "
        "interval, comparison and mean, and listed; run them again with 'pypddl experiment run ... "
        "--rerun-contaminated'."
    ),
    "tokens": (
        "Tokens of a run = input + output tokens over all its model calls. Input counts every prompt token "
        "processed, cached or not (Anthropic: input + cache read + cache write; OpenAI-compatible: prompt "
        "tokens, which include cached ones). A call cut at the deadline has unknown usage: such a run counts with "
        "its known tokens and the figures are then lower bounds (marked ≥). Tokens per run = mean over all runs; "
        "tokens per solved task = total tokens of all runs / number solved (the cost per success); mean if "
        "solved = mean over solved runs only."
    ),
    "stats": (
        "Intervals are Wilson score 95 % intervals. Paired comparisons are exact two-sided McNemar tests on the "
        "instances both approaches ran: b = solved only by the first, c = solved only by the second, p = "
        "2·P(Bin(b+c, 1/2) ≤ min(b, c)), capped at 1. p (Holm) is Holm's step-down adjustment within each "
        "declared family of approaches (all pairs among them), shown for those pairs only."
    ),
}


class ContaminatedRuns(ValueError):
    """The sources hold contaminated runs and the report was asked to refuse them."""


@dataclass
class Approach:
    label: str
    method: str
    source: str
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # instance key -> record
    replicates: dict[int, int] = field(default_factory=dict)  # replicate -> runs
    manifest: dict[str, Any] | None = None
    excluded: dict[str, dict[str, Any]] = field(default_factory=dict)  # contaminated runs left out

    @property
    def is_llm(self) -> bool:
        runs = [*self.records.values(), *self.excluded.values()]
        return self.method in ("direct", "agentic") or any((r.get("usage") or {}).get("calls") for r in runs)

    def outcome(self, key: str) -> str:
        """The outcome counted for ``key``: ``contaminated`` when the run was
        left out, ``missing`` when there is none."""
        r = self.records.get(key)
        if r is None:
            return "contaminated" if key in self.excluded else "missing"
        return str(r.get("outcome"))

    def solved(self, key: str) -> bool:
        return self.outcome(key) == "solved"

    def all_runs(self) -> list[dict[str, Any]]:
        return [*self.records.values(), *self.excluded.values()]

    @property
    def feedback(self) -> str | None:
        levels = distinct(self.all_runs(), "tools", "feedback")
        return levels[0] if len(levels) == 1 else None


def distinct(records: list[dict[str, Any]], *path: str) -> list[str]:
    """The distinct values (as text, sorted) of a nested record field."""
    values = set()
    for r in records:
        value: Any = r
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None and value != []:
            values.add(",".join(map(str, value)) if isinstance(value, list) else str(value))
    return sorted(values, key=natural_key)


def plan_length(record: dict[str, Any]) -> int | None:
    if record.get("plan_length") is not None:
        return int(record["plan_length"])
    if record.get("plan") is not None:
        return len(record["plan"])
    return None



def block_label(index: int, total: int) -> str:
    lo = index * BLOCK_SIZE
    hi = min(lo + BLOCK_SIZE, total)
    return f"{lo}–{hi}"


@dataclass
class Report:
    approaches: list[Approach]
    join: str
    order: list[str]
    display: dict[str, str]
    difficulty_source: str
    lama: dict[str, int | None]
    order_rule: str = "benchmark"
    order_text: str = ORDER_RULES["benchmark"]
    order_label: str = ORDER_LABELS["benchmark"]
    paper_four: list[Approach] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    block_success: list[dict[str, Any]] = field(default_factory=list)
    plan_length: list[dict[str, Any]] = field(default_factory=list)
    plan_length_all: list[dict[str, Any]] = field(default_factory=list)
    difficulty: list[dict[str, Any]] = field(default_factory=list)
    tokens: list[dict[str, Any]] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    agent: list[dict[str, Any]] = field(default_factory=list)
    mcnemar: list[dict[str, Any]] = field(default_factory=list)
    families: list[list[str]] = field(default_factory=list)
    per_instance: list[dict[str, Any]] = field(default_factory=list)
    excluded: list[dict[str, Any]] = field(default_factory=list)
    replicates: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seq_reading: str = "best"
    """Which plan of each seq-sat-lama-2011 run is scored (``baselines.readings``)."""
    paper: bool = False
    """The tasks are the paper's 102 in its order: its values are printed beside ours."""

    def block_of(self, key: str) -> int:
        return self.order.index(key) // BLOCK_SIZE


def mean_or_none(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def approach_rank(a: Approach) -> tuple[Any, ...]:
    """The stated row order (``RULES['rows']``)."""
    method_rank = METHOD_ORDER.index(a.method) if a.method in METHOD_ORDER else len(METHOD_ORDER)
    level = a.feedback
    level_rank = LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)
    return (method_rank, a.method, level_rank, natural_key(a.source))
