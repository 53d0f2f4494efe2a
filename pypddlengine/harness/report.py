"""The experiment report: the paper's tables and figure, from run records.

Input: any number of results folders (or ``runs.jsonl`` files) holding
``pypddl.run/1`` records, from this harness (``direct``, ``agentic``) or the
Fast Downward batch runner (``fd-lama-first``, ``fd-seq-sat-lama-2011``).
Each method of each source is one *approach*. This module loads them, orders
the instances and builds the report (its data types in :mod:`.report_model`,
its tables in :mod:`.report_tables`). Output (Markdown + CSV, written by
:mod:`.report_output`):

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
from pathlib import Path
from typing import Any

from ..baselines.readings import Reading, apply_reading
from ..baselines.reference import ORDER_LABELS, ORDER_RULES, is_paper_benchmark, order_by_rule
from ..baselines.reference import SEQ as SEQ_METHOD
from .records import read_records, run_key
from .report_model import (
    BLOCK_SIZE,
    COLOURS,
    DISPLAY,
    METHOD_ORDER,
    RULES,
    Approach,
    ContaminatedRuns,
    Report,
    approach_rank,
    block_label,
    plan_length,
)
from .report_tables import (
    check_sources,
    exclude_contaminated,
    mcnemar_rows,
    run_tokens,
    source_settings,
    table1,
    table2,
    table3,
    tokens_and_behaviour,
)
from .tasks import natural_key

__all__ = ["COLOURS", "RULES", "Approach", "ContaminatedRuns", "Report", "build_report", "difficulty_order",
           "load_approaches", "write_report"]


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


def load_approaches(
    paths: list[Path | str], *, replicate: int = 0, labels: dict[str, str] | None = None, join: str = "auto",
    seq_reading: Reading | None = None,
) -> tuple[list[Approach], str]:
    """The approaches in ``paths`` (records of ``replicate``), keyed per
    instance by id or by problem SHA-256 (``join``: ``id``, ``sha256`` or
    ``auto``, which takes SHA-256 only when it matches more instances across
    all approaches than the ids do), in the stated row order. Returns them
    and the join used. ``seq_reading``: which plan of each
    seq-sat-lama-2011 run counts (default: the best within the budget)."""
    raw: list[tuple[str, str, list[dict[str, Any]], dict[str, Any] | None]] = []
    for p in paths:
        name, records, manifest = _source_records(Path(p))
        by_method: dict[str, list[dict[str, Any]]] = {}
        for r in records:
            by_method.setdefault(str(r.get("method")), []).append(r)
        for method, recs in by_method.items():
            if seq_reading is not None and method == SEQ_METHOD:
                recs = [apply_reading(r, seq_reading) for r in recs]
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


def difficulty_order(
    keys: list[str], display: dict[str, str], lama: dict[str, int | None], objects: dict[str, int] | None = None,
    rule: str = "benchmark",
) -> list[str]:
    """``keys`` in the order of ``rule`` (``baselines.reference.ORDER_RULES``:
    ``benchmark``, the natural order of the instance ids, or ``lama``);
    ``lama`` maps a key to its lama-first plan length (``None``/absent =
    unsolved), ``objects`` to the problem's number of objects, where known."""
    bench = sorted(keys, key=lambda k: natural_key(display.get(k) or k))
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
    excluded = exclude_contaminated(approaches, contaminated)
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
    rep.paper = rule == "benchmark" and is_paper_benchmark([display.get(k, k) for k in ordered])
    readings = {str(r.get("reading")) for a in approaches for r in a.records.values() if r.get("reading")}
    rep.seq_reading = ", ".join(sorted(readings)) or "best"
    rep.excluded = excluded
    rep.sources = [source_settings(a) for a in approaches]
    rep.paper_four = [next(a for a in approaches if a.method == m) for m in METHOD_ORDER
                      if any(a.method == m for a in approaches)]
    check_sources(rep)
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
    table1(rep, blocks, labels)
    table2(rep, blocks, labels)
    table3(rep, blocks, labels)
    tokens_and_behaviour(rep)
    mcnemar_rows(rep, families or [])
    for pos, k in enumerate(ordered):
        row: dict[str, Any] = {"position": pos, "block": labels[pos // BLOCK_SIZE],
                               "instance_id": display.get(k, k), "lama_first_length": lama.get(k)}
        for a in approaches:
            rec = a.records.get(k)
            row[f"{a.label}: outcome"] = a.outcome(k)
            row[f"{a.label}: plan_length"] = plan_length(rec) if rec and rec.get("outcome") == "solved" else None
            if a.is_llm:
                row[f"{a.label}: tokens"] = run_tokens(rec)[0] if rec else None
        rep.per_instance.append(row)
    for a in approaches:
        if len(a.replicates) > 1:
            rep.replicates.append({"approach": a.label, "replicates": a.replicates})
    if rep.replicates:
        rep.notes.append("Some approaches have several replicates; the tables use one replicate (see --replicate).")
    return rep



def write_report(rep: Report, out: Path | str) -> dict[str, Path]:
    """Write ``report.md``, the CSV tables, ``difficulty.json`` and the figure
    (see :mod:`.report_output`)."""
    from .report_output import write_files

    return write_files(rep, Path(out))

