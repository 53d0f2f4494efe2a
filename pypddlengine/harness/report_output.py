"""Writing the experiment report: Markdown, CSV tables, ``difficulty.json``
and the per-instance figure, from a :class:`~.report.Report`."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from ..baselines.reference import PAPER
from .report_model import BLOCK_SIZE, COLOURS, METHOD_ORDER, RULES, Report, block_label

__all__ = ["draw_figure", "render_markdown", "write_files"]


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


def _sources(rep: Report) -> list[str]:
    lines = ["## Sources", ""]
    llm_cols = [("model", "Model"), ("provider", "Provider"), ("prompts", "Prompts"), ("temperature", "Temperature"),
                ("feedback", "Feedback"), ("tools", "Tools"), ("rendering", "Rendering"),
                ("session_init", "Session init")]
    fd_cols = [("planner", "Planner"), ("fd_release", "FD release"), ("fd_revision", "FD revision"),
               ("memory_limit_mb", "Memory limit (MiB)")]
    present = [(key, head) for key, head in [*llm_cols, *fd_cols, ("host", "Host")]
               if any(row.get(key) for row in rep.sources)]
    headers = ["Approach", "Method", "Source", "Runs", "Budget (s)", *[head for _, head in present]]
    rows = [[row["approach"], f"`{row['method']}`", f"`{row['source']}`", row["runs"],
             ", ".join(f"{b:g}" for b in row["budget_s"]) or "—", *[_fmt(row.get(key)) for key, _ in present]]
            for row in rep.sources]
    lines += [_table(headers, rows), ""]
    join = "problem file SHA-256" if rep.join == "sha256" else "instance id"
    lines += [f"Instances matched by {join}; lama-first lengths from {rep.difficulty_source}.", ""]
    for warning in rep.warnings:
        lines += [f"> **Warning:** {warning}.", ""]
    for note in rep.notes:
        lines += [f"> {note}", ""]
    return lines


def _beside(ours: Any, paper: Any) -> str:
    """Our value with the paper's in brackets."""
    return f"{_fmt(ours)} [{_fmt(paper)}]"


PAPER_NOTE = ("The paper's values (Agentic LLM Planning via Step-Wise PDDL Simulation, Tables I-III; i9-14900K, "
              "180 s) are in brackets beside ours.")


def _reading_note(rep: Report) -> list[str]:
    if rep.seq_reading == "best":
        return []
    return [f"FD seq-sat-lama-2011 runs are scored under the reading '{rep.seq_reading}' (see "
            "`pypddl experiment report --help`), not as the best plan within the budget.", ""]


def _table1(rep: Report) -> list[str]:
    lines = ["## Table I: difficulty structure", "", *_reading_note(rep)]
    has_seq = any("seq_mean_both" in r for r in rep.difficulty)
    paper = {row[0]: row for row in PAPER["table1"]} if rep.paper else {}
    if paper:
        lines += [PAPER_NOTE, ""]
    headers = ["Block", "Instances", "lama-first solved", "lama-first mean length"]
    if has_seq:
        headers += ["solved by both FD", "FD lama (both)", "FD seq (both)", "reduction"]
    rows = []
    for r in rep.difficulty:
        row = [r["block"], r["instances"], r["lama_solved"], _fmt(r["lama_mean_length"])]
        if has_seq:
            p = paper.get(r["block"].replace("–", "-"))
            if p is not None:
                diff = None if p[2] is None or p[3] is None else p[2] - p[3]
                row += [_beside(r.get("both_fd_solved"), p[1]), _beside(r.get("lama_mean_both"), p[2]),
                        _beside(r.get("seq_mean_both"), p[3]), _beside(r.get("reduction"), diff)]
            else:
                row += [r.get("both_fd_solved"), _fmt(r.get("lama_mean_both")), _fmt(r.get("seq_mean_both")),
                        _fmt(r.get("reduction"))]
        rows.append(row)
    return [*lines, _table(headers, rows), ""]


def _kinds(kinds: dict[str, int]) -> str:
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in kinds.items()) or "—"


def _table2(rep: Report) -> list[str]:
    lines = ["## Table II: success and failure modes", "", *_reading_note(rep)]
    rows = [[r["approach"], r["n"], f"{r['solved']} ({_fmt(r['solved_pct'])} %)",
             f"[{_fmt(100 * r['ci_low'])}, {_fmt(100 * r['ci_high'])}] %", r["timeout"], r["early_exit"],
             _kinds(r["early_exit_kinds"]), r["error"], r["excluded"]] for r in rep.outcomes]
    headers = ["Approach", "n", "Solved", "Wilson 95 % CI", "Timeout", "Early exit", "Early exits by kind", "Error",
               "Excluded (contaminated)"]
    if rep.paper:
        lines += [PAPER_NOTE, ""]
        for row, r in zip(rows, rep.outcomes, strict=True):
            p = PAPER["table2"].get(r["method"])
            if p is not None:
                row[2] = f"{row[2]} [{p[0]} ({_fmt(100 * p[0] / PAPER['tasks'])} %)]"
                row[4], row[5] = f"{row[4]} [{p[1]}]", f"{row[5]} [{p[2]}]"
    lines += [_table(headers, rows), ""]
    lines += ["### Success per difficulty block", ""]
    block_labels = list(dict.fromkeys(r["block"] for r in rep.block_success))
    rows = []
    for a in rep.approaches:
        cells = {r["block"]: r for r in rep.block_success if r["approach"] == a.label}
        rows.append([a.label] + [f"{cells[b]['solved']}/{cells[b]['n']}" for b in block_labels])
    lines += [_table(["Approach", *block_labels], rows), ""]
    if rep.excluded:
        lines += ["### Excluded runs (contaminated)", ""]
        rows = [[x["approach"], x["instance_id"], x["outcome"], x["detail"], x["errors"]] for x in rep.excluded]
        lines += [_table(["Approach", "Instance", "Outcome", "Detail", "Errors met"], rows), "",
                  "Run them again: `pypddl experiment run ... --rerun-contaminated` (same --out), then report again.",
                  ""]
    return lines


def _table3(rep: Report) -> list[str]:
    lines = ["## Table III: mean plan length on the co-solved set", "", *_reading_note(rep)]
    four = ", ".join(a.label for a in rep.paper_four)
    if rep.plan_length:
        group = [a.label for a in rep.paper_four]
        paper = {row[0]: row for row in PAPER["table3"]} if rep.paper else {}
        column = {m: 2 + i for i, m in enumerate(METHOD_ORDER)}  # the paper's column of each method
        rows = []
        for r in rep.plan_length:
            p = paper.get(r["block"].replace("–", "-"))
            if p is None:
                rows.append([r["block"], r["n"]] + [_fmt(r[label]) for label in group])
            else:
                rows.append([r["block"], _beside(r["n"], p[1])]
                            + [_beside(r[a.label], p[column[a.method]]) for a in rep.paper_four])
        lines += [f"Co-solved by the paper's approaches ({four}).", ""]
        if paper:
            lines += [PAPER_NOTE + " The paper's co-solved set is that of its own four runs (49 instances); "
                      "ours is that of the approaches present here, so the sets differ unless all four are "
                      "present.", ""]
        lines += [_table(["Block", "n", *group], rows), ""]
    else:
        lines += [f"No instance was solved by all of {four}.", ""]
    if rep.plan_length_all:
        group = [a.label for a in rep.approaches]
        rows = [[r["block"], r["n"]] + [_fmt(r[label]) for label in group] for r in rep.plan_length_all]
        lines += ["### On the instances every approach solved", "", _table(["Block", "n", *group], rows), ""]
    return lines


def _tokens(rep: Report) -> list[str]:
    lines: list[str] = []
    if rep.tokens:
        lines += ["## Tokens", ""]

        def tok(r: dict[str, Any], key: str) -> str:
            return ("≥ " if r["lower_bound"] and r[key] is not None else "") + _fmt(r[key], 0)

        rows = [[r["approach"], r["runs"], r["solved"], tok(r, "tokens_per_run"), tok(r, "median_per_run"),
                 tok(r, "tokens_per_solved"), _fmt(r["mean_tokens_if_solved"], 0), _fmt(r["input_per_run"], 0),
                 _fmt(r["output_per_run"], 0), _fmt(r["ratio_per_run"], 2), _fmt(r["ratio_per_solved"], 2),
                 r["runs_with_unknown_tokens"]] for r in rep.tokens]
        base = rep.tokens[0]["approach"]
        lines += [_table(["Approach", "Runs", "Solved", "Tokens / run", "Median / run", "Tokens / solved",
                          "Mean if solved", "Input / run", "Output / run", f"× {base} / run",
                          f"× {base} / solved", "Runs with unknown tokens"], rows), ""]
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
    return lines


def _mcnemar(rep: Report) -> list[str]:
    lines = ["## Paired comparisons (exact McNemar)", ""]
    if not rep.mcnemar:
        return [*lines, "Only one approach: nothing to compare.", ""]
    if rep.families:
        for i, family in enumerate(rep.families, 1):
            lines.append(f"* Holm family {i}: {', '.join(family)}")
        lines.append("")
    else:
        lines += ["No Holm family declared (--family): the p-values are not adjusted.", ""]
    rows = [[r["a"], r["b"], r["n"], r["both"], r["only_a"], r["only_b"], r["neither"], f"{r['p']:.4g}",
             "—" if r["p_holm"] is None else f"{r['p_holm']:.4g} (family {r['family']})"] for r in rep.mcnemar]
    return [*lines, _table(["A", "B", "n", "both", "only A (b)", "only B (c)", "neither", "p", "p (Holm)"], rows), ""]


def render_markdown(rep: Report, figure: str | None, figure_note: str | None) -> str:
    lines = ["# Experiment report", "", *_sources(rep)]
    lines += ["## Definitions", "", f"* Difficulty order: {rep.order_text}. Position k (0-based) falls in block "
              f"floor(k/{BLOCK_SIZE}), labelled '10b–10b+10' (the last block holds the remainder, e.g. '100–102')."]
    lines += [f"* {text}" for text in RULES.values()] + [""]
    lines += [*_table1(rep), *_table2(rep), *_table3(rep), *_tokens(rep), *_mcnemar(rep)]
    lines += ["## Per-instance outcomes", ""]
    if figure:
        lines += [f"![per-instance outcomes, {rep.order_label}]({figure})", ""]
    if figure_note:
        lines += [f"> {figure_note}", ""]
    lines += ["Full table: `per_instance.csv`.", ""]
    return "\n".join(lines)


def draw_figure(rep: Report, path: Path) -> str | None:
    """The per-instance outcome raster (like the paper's Fig. 2), its x axis
    labelled with the order's rule; returns a note instead of drawing when
    matplotlib is not installed."""
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
    ax.set_xlabel(f"{rep.order_label}, blocks of {BLOCK_SIZE}", fontsize=8)
    ax.legend(handles=[Patch(facecolor=COLOURS[s], edgecolor="grey", label=s.replace("_", " ")) for s in states],
              loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=len(states), fontsize=7, frameon=False)
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return None


def write_files(rep: Report, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    tables = {
        "sources": rep.sources, "table1_difficulty": rep.difficulty, "table2_outcomes": rep.outcomes,
        "table2_blocks": rep.block_success, "table3_plan_length": rep.plan_length, "tokens": rep.tokens,
        "mcnemar": rep.mcnemar, "per_instance": rep.per_instance, "excluded": rep.excluded,
    }
    if rep.plan_length_all:
        tables["table3_plan_length_all"] = rep.plan_length_all
    files: dict[str, Path] = {}
    for name, rows in tables.items():
        files[name] = out / f"{name}.csv"
        _csv(files[name], rows)
    difficulty = out / "difficulty.json"
    difficulty.write_text(json.dumps({
        "rule": rep.order_rule, "description": rep.order_text, "source": rep.difficulty_source,
        "block_size": BLOCK_SIZE,
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
