"""The experiment report: the paper's tables and figure, from run records.

Input: any number of results folders (or ``runs.jsonl`` files) holding
``pypddl.run/1`` records, from this harness (``direct``, ``agentic``) or the
Fast Downward batch runner (``fd-lama-first``, ``fd-seq-sat-lama-2011``).
Each method of each source is one *approach*. Output (Markdown + CSV, written
by :mod:`.report_output`):

* the sources and their settings (method, model or planner and its
  revision, feedback level, tools, rendering, budget, memory limit), with
  warnings when budgets differ or two sources share no task;
* Table I, difficulty structure: the difficulty blocks and Fast Downward
  plan lengths in them;
* Table II, outcomes: solved / timeout / early exit per approach with Wilson
  95 % intervals, the early exits broken down by kind beside them, and
  success per difficulty block;
* Table III, plan length: mean plan length per block on the co-solved set of
  the paper's four approaches (one of each method), and, when more
  approaches are reported, on the co-solved set of all of them;
* tokens per run and per solved task for the LLM approaches;
* exact McNemar tests between every pair of approaches, Holm-adjusted within
  the families the user declares;
* a per-instance outcome figure in difficulty order (PNG, needs matplotlib).

Difficulty order: the benchmark order by default (the paper's), or by
lama-first plan length (``order="lama"``), or as a ``difficulty.json``
gives it; the rule used is printed. Contaminated runs (a rate limit or
overload took part of their budget) are left out of every count and
comparison and listed, or the report refuses (``contaminated="refuse"``).
The rules are written into the report itself; :data:`RULES` holds their text.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..baselines.reference import ORDER_LABELS, ORDER_RULES, order_by_rule
from .records import read_records, run_key
from .stats import holm, mcnemar_exact, median, wilson
from .tasks import natural_key

__all__ = ["COLOURS", "Approach", "ContaminatedRuns", "Report", "build_report", "difficulty_order",
           "load_approaches", "write_report"]

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
        levels = _distinct(self.all_runs(), "tools", "feedback")
        return levels[0] if len(levels) == 1 else None


def _distinct(records: list[dict[str, Any]], *path: str) -> list[str]:
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


def _source_records(path: Path) -> tuple[str, list[dict[str, Any]], dict[str, Any] | None]:
    if path.is_dir():
        runs = path / "runs.jsonl"
        manifest_path = path / "manifest.json"
        name = path.name
    else:
        runs = path
        manifest_path = path.parent / "manifest.json"
        name = path.stem if path.stem != "runs" else path.parent.name
    if not runs.is_file():
        raise FileNotFoundError(f"no run records at {runs}")
    manifest = None
    if manifest_path.is_file():
        try:
            manifest = json.loads(manifest_path.read_text())
        except json.JSONDecodeError:
            manifest = None
    return name, list(read_records(runs)), manifest


def approach_rank(a: Approach) -> tuple[Any, ...]:
    """The stated row order (``RULES['rows']``)."""
    method_rank = METHOD_ORDER.index(a.method) if a.method in METHOD_ORDER else len(METHOD_ORDER)
    level = a.feedback
    level_rank = LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)
    return (method_rank, a.method, level_rank, natural_key(a.source))


def load_approaches(
    paths: list[Path | str], *, replicate: int = 0, labels: dict[str, str] | None = None, join: str = "auto"
) -> tuple[list[Approach], str]:
    """The approaches in ``paths`` (records of ``replicate``), keyed per
    instance by id or by problem SHA-256 (``join``: ``id``, ``sha256`` or
    ``auto``, which takes SHA-256 only when it matches more instances across
    all approaches than the ids do), in the stated row order. Returns them
    and the join used."""
    raw: list[tuple[str, str, list[dict[str, Any]], dict[str, Any] | None]] = []
    for p in paths:
        name, records, manifest = _source_records(Path(p))
        by_method: dict[str, list[dict[str, Any]]] = {}
        for r in records:
            by_method.setdefault(str(r.get("method")), []).append(r)
        for method, recs in by_method.items():
            raw.append((name, method, recs, manifest))
    if not raw:
        raise ValueError("no run records in the given sources")
    counts = Counter(method for _, method, _, _ in raw)

    def keyed(recs: list[dict[str, Any]], how: str) -> dict[str, dict[str, Any]]:
        latest: dict[tuple[str, str, int], dict[str, Any]] = {}
        for r in recs:
            latest[run_key(r)] = r
        out = {}
        for (_, _, rep), r in latest.items():
            if rep != replicate:
                continue
            out[str(r.get("problem_sha256") if how == "sha256" else r["instance_id"])] = r
        return out

    if join == "auto":
        have_sha = all(r.get("problem_sha256") for _, _, recs, _ in raw for r in recs)
        join = "id"
        if have_sha:
            common_id = set.intersection(*(set(keyed(recs, "id")) for _, _, recs, _ in raw))
            common_sha = set.intersection(*(set(keyed(recs, "sha256")) for _, _, recs, _ in raw))
            if len(common_sha) > len(common_id):
                join = "sha256"
    approaches = []
    for name, method, recs, manifest in raw:
        label = DISPLAY.get(method, method)
        if counts[method] > 1:
            label = f"{label} ({name})"
        label = (labels or {}).get(f"{name}:{method}", (labels or {}).get(method, label))
        reps = Counter(run_key(r)[2] for r in {run_key(r): r for r in recs}.values())
        approaches.append(Approach(label, method, name, keyed(recs, join), dict(sorted(reps.items())), manifest))
    approaches.sort(key=approach_rank)
    return approaches, join


# ---------------------------------------------------------------------------- difficulty


def block_label(index: int, total: int) -> str:
    lo = index * BLOCK_SIZE
    hi = min(lo + BLOCK_SIZE, total)
    return f"{lo}–{hi}"


def difficulty_order(
    keys: list[str], display: dict[str, str], lama: dict[str, int | None], objects: dict[str, int] | None = None,
    rule: str = "benchmark",
) -> list[str]:
    """``keys`` in the order of ``rule`` (``baselines.reference.ORDER_RULES``:
    ``benchmark``, the natural order of the instance ids, or ``lama``);
    ``lama`` maps a key to its lama-first plan length (``None``/absent =
    unsolved), ``objects`` to the problem's number of objects, where known."""
    bench = sorted(keys, key=lambda k: natural_key(display.get(k, k)))
    known = objects or {}
    return order_by_rule(bench, rule, lambda k: lama.get(k), lambda k: known.get(k, math.inf))


def count_objects(approaches: list[Approach]) -> dict[str, int]:
    """Objects per instance key, from the problem files named in the sources'
    manifests (harness) or records (``extra.problem``, Fast Downward runner)."""
    from ..loading import load_problem

    paths: dict[str, str] = {}
    for a in approaches:
        by_id = {t["instance_id"]: t.get("problem") for t in (a.manifest or {}).get("tasks", [])}
        for k, r in a.records.items():
            path = (r.get("extra") or {}).get("problem") or by_id.get(str(r.get("instance_id")))
            if path:
                paths.setdefault(k, path)
    out = {}
    for k, path in paths.items():
        try:
            out[k] = len(load_problem(path).objects)
        except Exception:  # a moved or unreadable file: benchmark order instead
            continue
    return out


def lama_lengths_from_difficulty(path: Path, join: str) -> tuple[dict[str, int | None], list[str], str]:
    """lama-first lengths, the order and its rule from a ``difficulty.json``
    written by ``pypddl reference`` (entries ``instance_id``,
    ``problem_sha256``, ``lama_first_length``, in order)."""
    data = json.loads(Path(path).read_text())
    lama: dict[str, int | None] = {}
    order = []
    for entry in data["order"]:
        key = str(entry.get("problem_sha256") if join == "sha256" else entry["instance_id"])
        lama[key] = entry.get("lama_first_length")
        order.append(key)
    return lama, order, str(data.get("rule") or "given")


def lama_lengths_from_plans(folder: Path, display: dict[str, str]) -> dict[str, int | None]:
    """lama-first lengths from ``<instance_id>.plan`` files (VAL format)."""
    out: dict[str, int | None] = {}
    for key, name in display.items():
        plan = folder / f"{name}.plan"
        if plan.is_file():
            lines = [ln.strip() for ln in plan.read_text().splitlines()]
            out[key] = sum(1 for ln in lines if ln.startswith("("))
        else:
            out[key] = None
    return out


# ---------------------------------------------------------------------------- the report


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

    def block_of(self, key: str) -> int:
        return self.order.index(key) // BLOCK_SIZE


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def source_settings(a: Approach) -> dict[str, Any]:
    """What an approach was run with, from its records (and manifest)."""
    runs = a.all_runs()
    config = (a.manifest or {}).get("config", {})

    def one(*path: str) -> str | None:
        values = _distinct(runs, *path)
        return " / ".join(values) if values else None

    shown = one("tools", "shown")
    from ..mcp_server.names import PAPER_TOOLS

    if shown == ",".join(PAPER_TOOLS):
        shown = "paper (the seven)"
    budgets = sorted({float(r["budget_s"]) for r in runs if r.get("budget_s") is not None})
    return {
        "approach": a.label, "method": a.method, "source": a.source, "runs": len(runs),
        "budget_s": budgets, "model": one("llm", "model") or (config.get("llm") or {}).get("model"),
        "provider": one("llm", "provider"), "prompts": one("llm", "prompt_version"),
        "temperature": one("llm", "temperature"),
        "feedback": one("tools", "feedback"), "tools": shown, "rendering": one("tools", "rendering"),
        "session_init": one("tools", "session_init"),
        "planner": one("planner", "alias"), "fd_release": one("planner", "fd_release"),
        "fd_revision": one("planner", "fd_revision"), "memory_limit_mb": one("planner", "memory_limit_mb"),
        "host": one("env", "host"),
    }


def _exclude_contaminated(approaches: list[Approach], policy: str) -> list[dict[str, Any]]:
    listed = []
    for a in approaches:
        for k, r in list(a.records.items()):
            if r.get("contaminated"):
                a.excluded[k] = a.records.pop(k)
                kinds = sorted({str(e.get("kind")) for e in r.get("errors") or []})
                listed.append({"approach": a.label, "instance_id": r.get("instance_id", k),
                               "outcome": r.get("outcome"), "detail": r.get("outcome_detail"),
                               "errors": ", ".join(kinds) or "—", "source": a.source})
    if listed and policy == "refuse":
        names = ", ".join(f"{x['approach']}: {x['instance_id']}" for x in listed[:10])
        raise ContaminatedRuns(
            f"{len(listed)} contaminated run(s) (rate-limited or overloaded: {names}"
            f"{' ...' if len(listed) > 10 else ''}); run them again with 'pypddl experiment run ... "
            "--rerun-contaminated', or report without --contaminated refuse to leave them out")
    return listed


def _check_sources(rep: Report) -> None:
    """Warnings: budgets that differ, sources that share no instance."""
    budgets = {b for row in rep.sources for b in row["budget_s"]}
    if len(budgets) > 1:
        per = "; ".join(f"{row['approach']}: {', '.join(f'{b:g}' for b in row['budget_s'])} s" for row in rep.sources)
        rep.warnings.append(f"the approaches ran with different budgets ({per}): their results are not comparable")
    by_source: dict[str, set[str]] = {}
    for a in rep.approaches:
        by_source.setdefault(a.source, set()).update(a.records, a.excluded)
    names = list(by_source)
    for i, x in enumerate(names):
        for y in names[i + 1:]:
            if by_source[x] and by_source[y] and not by_source[x] & by_source[y]:
                rep.warnings.append(
                    f"sources '{x}' and '{y}' share no instance (joined by "
                    f"{'problem SHA-256' if rep.join == 'sha256' else 'instance id'}): nothing of one can be "
                    "compared with the other; check the task sets or try --join")


def build_report(
    approaches: list[Approach], *, join: str = "id", lama_plans: Path | None = None,
    difficulty_file: Path | None = None, order: str = "benchmark", families: list[list[str]] | None = None,
    contaminated: str = "exclude",
) -> Report:
    """The report's tables (see the module docstring). ``order``:
    ``benchmark`` or ``lama`` (ignored when ``difficulty_file`` gives one);
    ``families``: lists of approach labels whose pairs are Holm-adjusted
    together; ``contaminated``: ``exclude`` (default) or ``refuse``."""
    if order not in ORDER_RULES:
        raise ValueError(f"unknown order '{order}'; use one of {', '.join(ORDER_RULES)}")
    excluded = _exclude_contaminated(approaches, contaminated)
    keys = sorted({k for a in approaches for k in (*a.records, *a.excluded)}, key=natural_key)
    display: dict[str, str] = {}
    for a in approaches:
        for k, r in (*a.records.items(), *a.excluded.items()):
            display.setdefault(k, str(r.get("instance_id", k)))
    lama_approach = next((a for a in approaches if a.method == "fd-lama-first"), None)
    given_order: list[str] | None = None
    if difficulty_file is not None:
        lama, given_order, rule = lama_lengths_from_difficulty(Path(difficulty_file), join)
        source = f"the order in {difficulty_file} (rule: {rule})"
        order_text = f"as listed in {difficulty_file}" + (f" ({ORDER_RULES[rule]})" if rule in ORDER_RULES else "")
        label = ORDER_LABELS.get(rule, f"instances in the order of {Path(difficulty_file).name}")
    else:
        rule, order_text, label = order, ORDER_RULES[order], ORDER_LABELS[order]
        if lama_approach is not None:
            lama = {k: plan_length(r) if r.get("outcome") == "solved" else None
                    for k, r in (*lama_approach.records.items(), *lama_approach.excluded.items())}
            source = f"Fast Downward lama-first records ({lama_approach.source})"
        elif lama_plans is not None:
            lama = lama_lengths_from_plans(Path(lama_plans), display)
            source = f"lama-first plan files in {lama_plans}"
        else:
            lama = {}
            source = "no lama-first records or plans"
    if given_order is not None:
        listed = set(given_order)
        ordered = [k for k in given_order if k in set(keys)] + [k for k in keys if k not in listed]
    else:
        needs_objects = order == "lama" and any(lama.get(k) is None for k in keys)
        ordered = difficulty_order(keys, display, lama, count_objects(approaches) if needs_objects else None, order)
    rep = Report(approaches, join, ordered, display, source, lama, rule, order_text, label)
    rep.excluded = excluded
    rep.sources = [source_settings(a) for a in approaches]
    rep.paper_four = [next(a for a in approaches if a.method == m) for m in METHOD_ORDER
                      if any(a.method == m for a in approaches)]
    _check_sources(rep)
    n_blocks = math.ceil(len(ordered) / BLOCK_SIZE)
    blocks = [ordered[b * BLOCK_SIZE:(b + 1) * BLOCK_SIZE] for b in range(n_blocks)]
    labels = [block_label(b, len(ordered)) for b in range(n_blocks)]
    if any(len(a.records) != len(keys) for a in approaches):
        rep.notes.append(
            "Not every approach has a (counted) record for every instance: "
            + ", ".join(f"{a.label}: {len(a.records)}/{len(keys)}" for a in approaches)
            + ". Rates use each approach's own runs; missing runs count as unsolved in co-solved sets."
        )
    if excluded:
        rep.notes.append(f"{len(excluded)} contaminated run(s) left out (listed under 'Excluded runs').")
    _table1(rep, blocks, labels)
    _table2(rep, blocks, labels)
    _table3(rep, blocks, labels)
    _tokens_and_behaviour(rep)
    _mcnemar(rep, families or [])
    for pos, k in enumerate(ordered):
        row = {"position": pos, "block": labels[pos // BLOCK_SIZE], "instance_id": display.get(k, k),
               "lama_first_length": lama.get(k)}
        for a in approaches:
            r = a.records.get(k)
            row[f"{a.label}: outcome"] = a.outcome(k)
            row[f"{a.label}: plan_length"] = plan_length(r) if r and r.get("outcome") == "solved" else None
            if a.is_llm:
                row[f"{a.label}: tokens"] = _tokens(r)[0] if r else None
        rep.per_instance.append(row)
    for a in approaches:
        if len(a.replicates) > 1:
            rep.replicates.append({"approach": a.label, "replicates": a.replicates})
    if rep.replicates:
        rep.notes.append("Some approaches have several replicates; the tables use one replicate (see --replicate).")
    return rep


def _table1(rep: Report, blocks: list[list[str]], labels: list[str]) -> None:
    lama = rep.lama
    fd_seq = next((a for a in rep.approaches if a.method == "fd-seq-sat-lama-2011"), None)
    for label, members in zip(labels, blocks, strict=True):
        solved = [k for k in members if lama.get(k) is not None]
        row: dict[str, Any] = {"block": label, "instances": len(members), "lama_solved": len(solved),
                               "lama_mean_length": _mean([lama[k] for k in solved])}  # type: ignore[misc]
        if fd_seq is not None:
            both = [k for k in solved if fd_seq.solved(k)]
            row["both_fd_solved"] = len(both)
            row["lama_mean_both"] = _mean([lama[k] for k in both])  # type: ignore[misc]
            row["seq_mean_both"] = _mean([plan_length(fd_seq.records[k]) for k in both])  # type: ignore[misc]
            row["reduction"] = (row["lama_mean_both"] - row["seq_mean_both"]) if both else None
        rep.difficulty.append(row)


def _table2(rep: Report, blocks: list[list[str]], labels: list[str]) -> None:
    for a in rep.approaches:
        counts = Counter(str(r.get("outcome")) for r in a.records.values())
        kinds = Counter(str(r.get("outcome_detail")) for r in a.records.values() if r.get("outcome") == "early_exit")
        n = len(a.records)
        lo, hi = wilson(counts["solved"], n)
        rep.outcomes.append({
            "approach": a.label, "method": a.method, "n": n, "solved": counts["solved"],
            "solved_pct": 100 * counts["solved"] / n if n else math.nan,
            "ci_low": lo, "ci_high": hi, "timeout": counts["timeout"], "early_exit": counts["early_exit"],
            "early_exit_kinds": dict(sorted(kinds.items(), key=lambda kv: _kind_rank(kv[0]))),
            "error": counts["error"], "excluded": len(a.excluded),
            "other": sum(v for k, v in counts.items() if k not in OUTCOME_ORDER),
        })
        for label, members in zip(labels, blocks, strict=True):
            ran = [k for k in members if k in a.records]
            k_solved = sum(1 for k in ran if a.solved(k))
            lo, hi = wilson(k_solved, len(ran))
            rep.block_success.append({"approach": a.label, "block": label, "n": len(ran), "solved": k_solved,
                                      "rate": k_solved / len(ran) if ran else math.nan, "ci_low": lo, "ci_high": hi})


def _kind_rank(kind: str) -> tuple[int, str]:
    return (EARLY_EXIT_KINDS.index(kind) if kind in EARLY_EXIT_KINDS else len(EARLY_EXIT_KINDS), kind)


def _cosolved_rows(rep: Report, group: list[Approach], blocks: list[list[str]],
                   labels: list[str]) -> list[dict[str, Any]]:
    cosolved = [k for k in rep.order if all(a.solved(k) for a in group)]
    rows = []
    for label, members in [*zip(labels, blocks, strict=True), ("all", rep.order)]:
        ks = [k for k in members if k in cosolved]
        if not ks:
            continue
        row: dict[str, Any] = {"block": label, "n": len(ks)}
        for a in group:
            row[a.label] = _mean([plan_length(a.records[k]) for k in ks])  # type: ignore[misc]
        rows.append(row)
    return rows


def _table3(rep: Report, blocks: list[list[str]], labels: list[str]) -> None:
    rep.plan_length = _cosolved_rows(rep, rep.paper_four, blocks, labels)
    if len(rep.approaches) > len(rep.paper_four):
        rep.plan_length_all = _cosolved_rows(rep, rep.approaches, blocks, labels)


def _tokens(record: dict[str, Any] | None) -> tuple[float, bool]:
    """A run's tokens and whether they are all known (else a lower bound)."""
    usage = (record or {}).get("usage") or {}
    unknown = usage.get("total") is None or bool(usage.get("unreported_calls"))
    known = usage.get("total_known")
    if known is None:
        known = usage.get("total") if usage.get("total") is not None else \
            (usage.get("input_total") or 0) + (usage.get("output_total") or 0)
    return float(known or 0), not unknown


def _tokens_and_behaviour(rep: Report) -> None:
    base = None
    for a in (a for a in rep.approaches if a.is_llm):
        runs = list(a.records.values())
        counted = [_tokens(r) for r in runs]
        totals = [t for t, _ in counted]
        solved_tot = [_tokens(r)[0] for r in runs if r.get("outcome") == "solved"]
        n_solved = len(solved_tot)
        row = {
            "approach": a.label, "runs": len(runs), "solved": n_solved,
            "total_tokens": sum(totals),
            "tokens_per_run": _mean(totals), "median_per_run": median(totals) if totals else None,
            "tokens_per_solved": sum(totals) / n_solved if n_solved else None,
            "mean_tokens_if_solved": _mean(solved_tot),
            "input_per_run": _mean([float((r.get("usage") or {}).get("input_total") or 0) for r in runs]),
            "output_per_run": _mean([float((r.get("usage") or {}).get("output_total") or 0) for r in runs]),
            "calls_per_run": _mean([float((r.get("usage") or {}).get("calls") or 0) for r in runs]),
            "unreported_calls": sum(int((r.get("usage") or {}).get("unreported_calls") or 0) for r in runs),
            "runs_with_unknown_tokens": sum(1 for _, complete in counted if not complete),
            "lower_bound": any(not complete for _, complete in counted),
            "contaminated_runs": len(a.excluded),
        }
        if base is None:
            base = row
        row["ratio_per_run"] = (row["tokens_per_run"] / base["tokens_per_run"]) if base["tokens_per_run"] else None
        row["ratio_per_solved"] = (
            row["tokens_per_solved"] / base["tokens_per_solved"]
            if row["tokens_per_solved"] and base["tokens_per_solved"] else None
        )
        row["ratio_base"] = base["approach"]
        rep.tokens.append(row)
        attempts_solved = [int(r["attempts"]) for r in runs if r.get("attempts") is not None
                           and r.get("outcome") == "solved"]
        attempts_failed = [int(r["attempts"]) for r in runs if r.get("attempts") is not None
                           and r.get("outcome") != "solved"]
        if attempts_solved or attempts_failed:
            rep.attempts.append({"approach": a.label, "median_attempts_solved": median(attempts_solved),
                                 "median_attempts_unsolved": median(attempts_failed),
                                 "n_solved": len(attempts_solved), "n_unsolved": len(attempts_failed)})
        agents = [r["agent"] for r in runs if r.get("agent")]
        if agents:
            early = [a.records[k] for k in rep.order if a.outcome(k) == "early_exit"]
            rep.agent.append({
                "approach": a.label,
                "turns_per_run": _mean([float(x.get("turns", 0)) for x in agents]),
                "tool_calls_per_run": _mean([float(x.get("tool_calls", 0)) for x in agents]),
                "illegal_actions_per_run": _mean([float(x.get("illegal_actions", 0)) for x in agents]),
                "resets_per_run": _mean([float(x.get("resets", 0)) for x in agents]),
                "validate_calls_per_run": _mean([float(x.get("validate_calls", 0)) for x in agents]),
                "early_exit_instances": [f"{r['instance_id']} ({r.get('outcome_detail')})" for r in early],
            })


def _mcnemar(rep: Report, families: list[list[str]]) -> None:
    labels = {a.label for a in rep.approaches}
    for family in families:
        unknown = [x for x in family if x not in labels]
        if unknown or len(family) < 2:
            raise ValueError(f"a Holm family needs two or more of the approaches ({', '.join(sorted(labels))}); "
                             f"got {', '.join(family)}")
    rep.families = [list(f) for f in families]
    pairs = []
    for i, a in enumerate(rep.approaches):
        for b in rep.approaches[i + 1:]:
            common = [k for k in rep.order if k in a.records and k in b.records]
            only_a = sum(1 for k in common if a.solved(k) and not b.solved(k))
            only_b = sum(1 for k in common if b.solved(k) and not a.solved(k))
            both = sum(1 for k in common if a.solved(k) and b.solved(k))
            pairs.append({"a": a.label, "b": b.label, "n": len(common), "both": both, "only_a": only_a,
                          "only_b": only_b, "neither": len(common) - both - only_a - only_b,
                          "p": mcnemar_exact(only_a, only_b), "p_holm": None, "family": None})
    for f, family in enumerate(rep.families, 1):
        members = [row for row in pairs if row["a"] in family and row["b"] in family]
        for row, adjusted in zip(members, holm([row["p"] for row in members]), strict=True):
            row["p_holm"], row["family"] = adjusted, f
    rep.mcnemar = pairs


def write_report(rep: Report, out: Path | str) -> dict[str, Path]:
    """Write ``report.md``, the CSV tables, ``difficulty.json`` and the figure
    (see :mod:`.report_output`)."""
    from .report_output import write_files

    return write_files(rep, Path(out))
