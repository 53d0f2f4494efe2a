"""The experiment report: the paper's tables and figure, from run records.

Input: any number of results folders (or ``runs.jsonl`` files) holding
``pypddl.run/1`` records, from this harness (``direct``, ``agentic``) or the
Fast Downward batch runner (``fd-lama-first``, ``fd-seq-sat-lama-2011``).
Each method of each source is one *approach*. Output (Markdown + CSV):

* Table I, difficulty structure: the difficulty blocks and Fast Downward
  plan lengths in them;
* Table II, outcomes: solved / timeout / early exit / error per approach,
  with Wilson 95 % intervals, and success per difficulty block;
* Table III, plan length: mean plan length per difficulty block on the
  co-solved set (the instances every approach solved);
* tokens per run and per solved task for the LLM approaches;
* exact McNemar tests between every pair of approaches (Holm-adjusted);
* a per-instance outcome figure in difficulty order (PNG, needs matplotlib).

The rules (difficulty order, co-solved set, token definitions) are written
into the report itself; :data:`RULES` holds their text.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .records import read_records, run_key
from .stats import holm, mcnemar_exact, median, wilson
from .tasks import natural_key

__all__ = ["Approach", "Report", "build_report", "load_approaches", "write_report"]

BLOCK_SIZE = 10
OUTCOME_ORDER = ("solved", "timeout", "early_exit", "error")
DISPLAY = {
    "fd-lama-first": "FD lama-first",
    "fd-seq-sat-lama-2011": "FD seq-sat-lama-2011",
    "direct": "Direct LLM",
    "agentic": "Agentic LLM",
}
METHOD_ORDER = ("fd-lama-first", "fd-seq-sat-lama-2011", "direct", "agentic")

RULES = {
    "difficulty": (
        "Difficulty order: instances solved by Fast Downward lama-first are sorted by its plan length (shortest "
        "first; ties in benchmark order, i.e. natural order of instance ids), followed by the instances it did not "
        "solve, by number of objects (ties, or objects unknown, in benchmark order). Position k (0-based) falls in "
        "block floor(k/10), labelled '10b–10b+10' (the last block holds the remainder, e.g. '100–102')."
    ),
    "cosolved": (
        "Co-solved set: the instances solved by every approach in the report; plan lengths are compared only "
        "there, per difficulty block, to avoid survivorship bias."
    ),
    "tokens": (
        "Tokens of a run = input + output tokens over all its model calls. Input counts every prompt token "
        "processed, cached or not (Anthropic: input + cache read + cache write; OpenAI-compatible: prompt "
        "tokens, which include cached ones). Tokens per run = mean over all runs; tokens per solved task = "
        "total tokens of all runs / number solved (the cost per success); mean if solved = mean over solved "
        "runs only."
    ),
    "stats": (
        "Intervals are Wilson score 95 % intervals. Paired comparisons are exact two-sided McNemar tests on the "
        "instances both approaches ran: b = solved only by the first, c = solved only by the second, p = "
        "2·P(Bin(b+c, 1/2) ≤ min(b, c)), capped at 1; Holm-adjusted over all pairs."
    ),
}


@dataclass
class Approach:
    label: str
    method: str
    source: str
    records: dict[str, dict[str, Any]] = field(default_factory=dict)  # instance key -> record
    replicates: dict[int, int] = field(default_factory=dict)  # replicate -> runs
    manifest: dict[str, Any] | None = None

    @property
    def is_llm(self) -> bool:
        return any((r.get("usage") or {}).get("calls") for r in self.records.values())

    def outcome(self, key: str) -> str:
        r = self.records.get(key)
        return "missing" if r is None else str(r.get("outcome"))

    def solved(self, key: str) -> bool:
        return self.outcome(key) == "solved"


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


def load_approaches(
    paths: list[Path | str], *, replicate: int = 0, labels: dict[str, str] | None = None, join: str = "auto"
) -> tuple[list[Approach], str]:
    """The approaches in ``paths`` (records of ``replicate``), keyed per
    instance by id or by problem SHA-256 (``join``: ``id``, ``sha256`` or
    ``auto``, which takes SHA-256 only when it matches more instances across
    all approaches than the ids do). Returns them and the join used."""
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
    rank = {m: i for i, m in enumerate(METHOD_ORDER)}
    approaches.sort(key=lambda a: (rank.get(a.method, len(rank)), a.method, a.source))
    return approaches, join


# ---------------------------------------------------------------------------- difficulty


def block_label(index: int, total: int) -> str:
    lo = index * BLOCK_SIZE
    hi = min(lo + BLOCK_SIZE, total)
    return f"{lo}–{hi}"


def difficulty_order(
    keys: list[str], display: dict[str, str], lama: dict[str, int | None], objects: dict[str, int] | None = None
) -> list[str]:
    """``keys`` in difficulty order (see ``RULES['difficulty']``); ``lama``
    maps a key to its lama-first plan length, ``None``/absent = unsolved;
    ``objects`` to the problem's number of objects, where known."""
    bench = sorted(keys, key=lambda k: natural_key(display.get(k, k)))
    position = {k: i for i, k in enumerate(bench)}
    objects = objects or {}
    solved = [k for k in bench if lama.get(k) is not None]
    unsolved = [k for k in bench if lama.get(k) is None]
    solved.sort(key=lambda k: (lama[k], position[k]))
    unsolved.sort(key=lambda k: (objects.get(k, math.inf), position[k]))
    return solved + unsolved


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


def lama_lengths_from_difficulty(path: Path, approaches: list[Approach], join: str) -> tuple[dict[str, int | None],
                                                                                              list[str]]:
    """lama-first lengths and the order from a ``difficulty.json`` written by
    ``pypddl reference`` (entries ``instance_id``, ``problem_sha256``,
    ``lama_first_length``, in order)."""
    data = json.loads(Path(path).read_text())
    lama: dict[str, int | None] = {}
    order = []
    for entry in data["order"]:
        key = str(entry.get("problem_sha256") if join == "sha256" else entry["instance_id"])
        lama[key] = entry.get("lama_first_length")
        order.append(key)
    return lama, order


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
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    block_success: list[dict[str, Any]] = field(default_factory=list)
    plan_length: list[dict[str, Any]] = field(default_factory=list)
    difficulty: list[dict[str, Any]] = field(default_factory=list)
    tokens: list[dict[str, Any]] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    agent: list[dict[str, Any]] = field(default_factory=list)
    mcnemar: list[dict[str, Any]] = field(default_factory=list)
    per_instance: list[dict[str, Any]] = field(default_factory=list)
    replicates: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def block_of(self, key: str) -> int:
        return self.order.index(key) // BLOCK_SIZE


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def build_report(
    approaches: list[Approach], *, join: str = "id", lama_plans: Path | None = None,
    difficulty_file: Path | None = None,
) -> Report:
    keys = sorted({k for a in approaches for k in a.records}, key=natural_key)
    display: dict[str, str] = {}
    for a in approaches:
        for k, r in a.records.items():
            display.setdefault(k, str(r.get("instance_id", k)))
    lama_approach = next((a for a in approaches if a.method == "fd-lama-first"), None)
    given_order: list[str] | None = None
    if difficulty_file is not None:
        lama, given_order = lama_lengths_from_difficulty(Path(difficulty_file), approaches, join)
        source = f"the order in {difficulty_file}"
    elif lama_approach is not None:
        lama = {k: plan_length(r) if r.get("outcome") == "solved" else None for k, r in lama_approach.records.items()}
        source = f"Fast Downward lama-first records ({lama_approach.source})"
    elif lama_plans is not None:
        lama = lama_lengths_from_plans(Path(lama_plans), display)
        source = f"lama-first plan files in {lama_plans}"
    else:
        lama = {}
        source = "none (no lama-first records or plans): objects, then benchmark order"
    if given_order is not None:
        listed = set(given_order)
        order = [k for k in given_order if k in set(keys)] + [k for k in keys if k not in listed]
    else:
        unsolved = [k for k in keys if lama.get(k) is None]
        order = difficulty_order(keys, display, lama, count_objects(approaches) if unsolved else None)
    rep = Report(approaches, join, order, display, source, lama)
    n_blocks = math.ceil(len(order) / BLOCK_SIZE)
    blocks = [order[b * BLOCK_SIZE:(b + 1) * BLOCK_SIZE] for b in range(n_blocks)]
    labels = [block_label(b, len(order)) for b in range(n_blocks)]
    if any(len(a.records) != len(keys) for a in approaches):
        rep.notes.append(
            "Not every approach has a record for every instance: "
            + ", ".join(f"{a.label}: {len(a.records)}/{len(keys)}" for a in approaches)
            + ". Rates use each approach's own runs; missing runs count as unsolved in co-solved sets."
        )

    # Table I: difficulty structure
    fd_seq = next((a for a in approaches if a.method == "fd-seq-sat-lama-2011"), None)
    for label, members in zip(labels, blocks, strict=True):
        solved = [k for k in members if lama.get(k) is not None]
        row: dict[str, Any] = {"block": label, "instances": len(members), "lama_solved": len(solved),
                               "lama_mean_length": _mean([lama[k] for k in solved])}  # type: ignore[misc]
        if fd_seq is not None:
            both = [k for k in solved if fd_seq.solved(k)]
            row["both_fd_solved"] = len(both)
            row["lama_mean_both"] = _mean([lama[k] for k in both])  # type: ignore[misc]
            row["seq_mean_both"] = _mean([plan_length(fd_seq.records[k]) for k in both])  # type: ignore[misc]
            if row["lama_mean_both"] is not None:
                row["reduction"] = row["lama_mean_both"] - row["seq_mean_both"]
        rep.difficulty.append(row)

    # Table II: outcomes
    for a in approaches:
        counts = Counter(str(r.get("outcome")) for r in a.records.values())
        n = len(a.records)
        lo, hi = wilson(counts["solved"], n)
        rep.outcomes.append({
            "approach": a.label, "method": a.method, "n": n, "solved": counts["solved"],
            "solved_pct": 100 * counts["solved"] / n if n else math.nan,
            "ci_low": lo, "ci_high": hi, "timeout": counts["timeout"], "early_exit": counts["early_exit"],
            "error": counts["error"],
            "other": sum(v for k, v in counts.items() if k not in OUTCOME_ORDER),
        })
        for label, members in zip(labels, blocks, strict=True):
            ran = [k for k in members if k in a.records]
            k_solved = sum(1 for k in ran if a.solved(k))
            lo, hi = wilson(k_solved, len(ran))
            rep.block_success.append({"approach": a.label, "block": label, "n": len(ran), "solved": k_solved,
                                      "rate": k_solved / len(ran) if ran else math.nan, "ci_low": lo, "ci_high": hi})

    # Table III: plan length on the co-solved set
    cosolved = [k for k in order if all(a.solved(k) for a in approaches)]
    for label, members in [*zip(labels, blocks, strict=True), ("all", order)]:
        ks = [k for k in members if k in cosolved]
        if not ks:
            continue
        row = {"block": label, "n": len(ks)}
        for a in approaches:
            row[a.label] = _mean([plan_length(a.records[k]) for k in ks])  # type: ignore[misc]
        rep.plan_length.append(row)

    # tokens
    llm = [a for a in approaches if a.is_llm]
    base = None
    for a in llm:
        runs = list(a.records.values())
        totals = [float((r.get("usage") or {}).get("total") or 0) for r in runs]
        solved_tot = [float((r.get("usage") or {}).get("total") or 0) for r in runs if r.get("outcome") == "solved"]
        n_solved = len(solved_tot)
        row = {
            "approach": a.label, "runs": len(runs), "solved": n_solved,
            "total_tokens": sum(totals),
            "tokens_per_run": _mean(totals), "median_per_run": median(totals),
            "tokens_per_solved": sum(totals) / n_solved if n_solved else None,
            "mean_tokens_if_solved": _mean(solved_tot),
            "input_per_run": _mean([float((r.get("usage") or {}).get("input_total") or 0) for r in runs]),
            "output_per_run": _mean([float((r.get("usage") or {}).get("output_total") or 0) for r in runs]),
            "calls_per_run": _mean([float((r.get("usage") or {}).get("calls") or 0) for r in runs]),
            "unreported_calls": sum(int((r.get("usage") or {}).get("unreported_calls") or 0) for r in runs),
            "contaminated_runs": sum(1 for r in runs if r.get("contaminated")),
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
            early = [a.records[k] for k in order if a.outcome(k) == "early_exit"]
            rep.agent.append({
                "approach": a.label,
                "turns_per_run": _mean([float(x.get("turns", 0)) for x in agents]),
                "tool_calls_per_run": _mean([float(x.get("tool_calls", 0)) for x in agents]),
                "illegal_actions_per_run": _mean([float(x.get("illegal_actions", 0)) for x in agents]),
                "resets_per_run": _mean([float(x.get("resets", 0)) for x in agents]),
                "validate_calls_per_run": _mean([float(x.get("validate_calls", 0)) for x in agents]),
                "early_exit_instances": [str(r["instance_id"]) for r in early],
            })

    # McNemar
    pairs = []
    for i, a in enumerate(approaches):
        for b in approaches[i + 1:]:
            common = [k for k in order if k in a.records and k in b.records]
            only_a = sum(1 for k in common if a.solved(k) and not b.solved(k))
            only_b = sum(1 for k in common if b.solved(k) and not a.solved(k))
            both = sum(1 for k in common if a.solved(k) and b.solved(k))
            pairs.append({"a": a.label, "b": b.label, "n": len(common), "both": both, "only_a": only_a,
                          "only_b": only_b, "neither": len(common) - both - only_a - only_b,
                          "p": mcnemar_exact(only_a, only_b)})
    for row, adj in zip(pairs, holm([p["p"] for p in pairs]), strict=True):
        row["p_holm"] = adj
    rep.mcnemar = pairs

    # per instance
    for pos, k in enumerate(order):
        row = {"position": pos, "block": labels[pos // BLOCK_SIZE], "instance_id": display.get(k, k),
               "lama_first_length": lama.get(k)}
        for a in approaches:
            r = a.records.get(k)
            row[f"{a.label}: outcome"] = a.outcome(k)
            row[f"{a.label}: plan_length"] = plan_length(r) if r and r.get("outcome") == "solved" else None
            if a.is_llm:
                row[f"{a.label}: tokens"] = (r.get("usage") or {}).get("total") if r else None
        rep.per_instance.append(row)

    for a in approaches:
        if len(a.replicates) > 1:
            rep.replicates.append({"approach": a.label, "replicates": a.replicates})
    if rep.replicates:
        rep.notes.append("Some approaches have several replicates; the tables use one replicate (see --replicate).")
    return rep


# ---------------------------------------------------------------------------- output


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    return str(value)


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out.extend("| " + " | ".join(str(c) for c in row) + " |" for row in rows)
    return "\n".join(out)


def _csv(path: Path, rows: list[dict[str, Any]]) -> None:
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _csv_value(v) for k, v in row.items()})
    path.write_text(buf.getvalue(), encoding="utf-8")


def _csv_value(v: Any) -> Any:
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(round(v, 6))
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return "" if v is None else v


def render_markdown(rep: Report, figure: str | None, figure_note: str | None) -> str:
    A = rep.approaches
    lines = ["# Experiment report", ""]
    lines.append("## Sources")
    lines.append("")
    for a in A:
        m = (a.manifest or {}).get("config", {})
        llm = m.get("llm", {})
        extra = ""
        if llm:
            version = m.get("prompts", {}).get("version")
            extra = f"; model {llm.get('model')} via {llm.get('provider')}, prompts {version}"
        budget = m.get("budget_s") or next((r.get("budget_s") for r in a.records.values()), None)
        lines.append(f"* **{a.label}**: method `{a.method}` from `{a.source}`, {len(a.records)} runs, "
                     f"budget {_fmt(budget, 0)} s{extra}")
    lines += ["", f"Instances matched by {'problem file SHA-256' if rep.join == 'sha256' else 'instance id'}; "
              f"difficulty from {rep.difficulty_source}.", ""]
    for note in rep.notes:
        lines += [f"> {note}", ""]
    lines += ["## Definitions", ""] + [f"* {text}" for text in RULES.values()] + [""]

    lines += ["## Table I: difficulty structure", ""]
    has_seq = any("seq_mean_both" in r for r in rep.difficulty)
    headers = ["Block", "Instances", "lama-first solved", "lama-first mean length"]
    if has_seq:
        headers += ["solved by both FD", "FD lama (both)", "FD seq (both)", "reduction"]
    rows = []
    for r in rep.difficulty:
        row = [r["block"], r["instances"], r["lama_solved"], _fmt(r["lama_mean_length"])]
        if has_seq:
            row += [r.get("both_fd_solved"), _fmt(r.get("lama_mean_both")), _fmt(r.get("seq_mean_both")),
                    _fmt(r.get("reduction"))]
        rows.append(row)
    lines += [_table(headers, rows), ""]

    lines += ["## Table II: success and failure modes", ""]
    rows = [[r["approach"], r["n"], f"{r['solved']} ({_fmt(r['solved_pct'])} %)",
             f"[{_fmt(100 * r['ci_low'])}, {_fmt(100 * r['ci_high'])}] %", r["timeout"], r["early_exit"], r["error"]]
            for r in rep.outcomes]
    lines += [_table(["Approach", "n", "Solved", "Wilson 95 % CI", "Timeout", "Early exit", "Error"], rows), ""]
    lines += ["### Success per difficulty block", ""]
    block_labels = list(dict.fromkeys(r["block"] for r in rep.block_success))
    rows = []
    for a in A:
        cells = {r["block"]: r for r in rep.block_success if r["approach"] == a.label}
        rows.append([a.label] + [f"{cells[b]['solved']}/{cells[b]['n']}" for b in block_labels])
    lines += [_table(["Approach", *block_labels], rows), ""]

    lines += ["## Table III: mean plan length on the co-solved set", ""]
    if rep.plan_length:
        rows = [[r["block"], r["n"]] + [_fmt(r[a.label]) for a in A] for r in rep.plan_length]
        lines += [_table(["Block", "n", *[a.label for a in A]], rows), ""]
    else:
        lines += ["No instance was solved by every approach.", ""]

    if rep.tokens:
        lines += ["## Tokens", ""]
        rows = [[r["approach"], r["runs"], r["solved"], _fmt(r["tokens_per_run"], 0), _fmt(r["median_per_run"], 0),
                 _fmt(r["tokens_per_solved"], 0), _fmt(r["mean_tokens_if_solved"], 0), _fmt(r["input_per_run"], 0),
                 _fmt(r["output_per_run"], 0), _fmt(r["ratio_per_run"], 2), _fmt(r["ratio_per_solved"], 2),
                 r["unreported_calls"], r["contaminated_runs"]] for r in rep.tokens]
        base = rep.tokens[0]["approach"]
        lines += [_table(["Approach", "Runs", "Solved", "Tokens / run", "Median / run", "Tokens / solved",
                          "Mean if solved", "Input / run", "Output / run", f"× {base} / run",
                          f"× {base} / solved", "Unreported calls", "Contaminated runs"], rows), ""]
    if rep.attempts:
        lines += ["### Direct approach: attempts", ""]
        rows = [[r["approach"], _fmt(r["median_attempts_solved"]), r["n_solved"],
                 _fmt(r["median_attempts_unsolved"]), r["n_unsolved"]] for r in rep.attempts]
        lines += [_table(["Approach", "Median attempts (solved)", "n", "Median attempts (unsolved)", "n"], rows), ""]
    if rep.agent:
        lines += ["### Agentic approach: behaviour", ""]
        rows = [[r["approach"], _fmt(r["turns_per_run"]), _fmt(r["tool_calls_per_run"]),
                 _fmt(r["illegal_actions_per_run"]), _fmt(r["resets_per_run"]), _fmt(r["validate_calls_per_run"]),
                 ", ".join(r["early_exit_instances"]) or "—"] for r in rep.agent]
        lines += [_table(["Approach", "Turns / run", "Tool calls / run", "Inapplicable actions / run",
                          "Resets / run", "validate calls / run", "Early exits"], rows), ""]

    lines += ["## Paired comparisons (exact McNemar)", ""]
    if rep.mcnemar:
        rows = [[r["a"], r["b"], r["n"], r["both"], r["only_a"], r["only_b"], r["neither"], f"{r['p']:.4g}",
                 f"{r['p_holm']:.4g}"] for r in rep.mcnemar]
        lines += [_table(["A", "B", "n", "both", "only A (b)", "only B (c)", "neither", "p", "p (Holm)"], rows), ""]
    else:
        lines += ["Only one approach: nothing to compare.", ""]

    lines += ["## Per-instance outcomes", ""]
    if figure:
        lines += [f"![per-instance outcomes in difficulty order]({figure})", ""]
    if figure_note:
        lines += [f"> {figure_note}", ""]
    lines += ["Full table: `per_instance.csv`.", ""]
    return "\n".join(lines)


COLOURS = {"solved": "#2e7d32", "timeout": "#f9a825", "early_exit": "#c62828", "error": "#6a1b9a",
           "missing": "#ffffff"}


def draw_figure(rep: Report, path: Path) -> str | None:
    """The per-instance outcome raster (like the paper's Fig. 2); returns a
    note instead of drawing when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import ListedColormap
        from matplotlib.patches import Patch
    except ImportError:
        return ("figure skipped: matplotlib is not installed (pip install 'pypddlengine[report]' "
                "or pip install matplotlib)")
    states = list(COLOURS)
    grid = [[states.index(a.outcome(k)) if a.outcome(k) in COLOURS else states.index("error") for k in rep.order]
            for a in rep.approaches]
    width = max(6.0, 0.09 * len(rep.order) + 2.5)
    fig, ax = plt.subplots(figsize=(width, 0.5 * len(rep.approaches) + 1.6))
    ax.imshow(grid, aspect="auto", cmap=ListedColormap([COLOURS[s] for s in states]), vmin=0,
              vmax=len(states) - 1, interpolation="nearest")
    n = len(rep.order)
    for i in range(1, n):
        ax.axvline(i - 0.5, color="white", linewidth=0.3)
    for b in range(BLOCK_SIZE, n, BLOCK_SIZE):
        ax.axvline(b - 0.5, color="black", linewidth=0.8)
    for r in range(1, len(rep.approaches)):
        ax.axhline(r - 0.5, color="white", linewidth=1.0)
    centres = [min(b + BLOCK_SIZE, n) / 2 + b / 2 - 0.5 for b in range(0, n, BLOCK_SIZE)]
    ax.set_xticks(centres)
    ax.set_xticklabels([block_label(i, n) for i in range(len(centres))], fontsize=7)
    ax.set_yticks(range(len(rep.approaches)))
    ax.set_yticklabels([a.label for a in rep.approaches], fontsize=8)
    ax.set_xlabel("instances in difficulty order (lama-first plan length, unsolved last), blocks of 10", fontsize=8)
    ax.legend(handles=[Patch(facecolor=COLOURS[s], edgecolor="grey", label=s.replace("_", " ")) for s in states],
              loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=len(states), fontsize=7, frameon=False)
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return None


def write_report(rep: Report, out: Path | str) -> dict[str, Path]:
    """Write ``report.md``, the CSV tables, ``difficulty.json`` and the figure."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "table1_difficulty": out / "table1_difficulty.csv",
        "table2_outcomes": out / "table2_outcomes.csv",
        "table2_blocks": out / "table2_blocks.csv",
        "table3_plan_length": out / "table3_plan_length.csv",
        "tokens": out / "tokens.csv",
        "mcnemar": out / "mcnemar.csv",
        "per_instance": out / "per_instance.csv",
    }
    _csv(files["table1_difficulty"], rep.difficulty)
    _csv(files["table2_outcomes"], rep.outcomes)
    _csv(files["table2_blocks"], rep.block_success)
    _csv(files["table3_plan_length"], rep.plan_length)
    _csv(files["tokens"], rep.tokens)
    _csv(files["mcnemar"], rep.mcnemar)
    _csv(files["per_instance"], rep.per_instance)
    difficulty = out / "difficulty.json"
    difficulty.write_text(json.dumps({
        "rule": RULES["difficulty"], "source": rep.difficulty_source, "block_size": BLOCK_SIZE,
        "order": [{"position": i, "instance_id": rep.display.get(k, k), "key": k,
                   "lama_first_length": rep.lama.get(k)} for i, k in enumerate(rep.order)],
    }, indent=2) + "\n")
    files["difficulty"] = difficulty
    figure = out / "fig_outcomes.png"
    note = draw_figure(rep, figure)
    if note is None:
        files["figure"] = figure
    md = out / "report.md"
    md.write_text(render_markdown(rep, figure.name if note is None else None, note), encoding="utf-8")
    files["report"] = md
    return files
