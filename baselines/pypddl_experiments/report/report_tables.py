"""The experiment report's tables, computed from the approaches' records
into a :class:`~.report_model.Report`: the sources' settings and warnings,
contaminated runs set aside, Tables I-III, tokens and behaviour, McNemar."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from .report_model import (
    EARLY_EXIT_KINDS,
    OUTCOME_ORDER,
    Approach,
    ContaminatedRuns,
    Report,
    distinct,
    mean_or_none,
    plan_length,
)
from .stats import holm, mcnemar_exact, median, wilson


def source_settings(a: Approach) -> dict[str, Any]:
    """What an approach was run with, from its records (and manifest)."""
    runs = a.all_runs()
    config = (a.manifest or {}).get("config", {})

    def one(*path: str) -> str | None:
        values = distinct(runs, *path)
        return " / ".join(values) if values else None

    shown = one("tools", "shown")
    from pypddlengine.mcp_server.names import PAPER_TOOLS

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


def exclude_contaminated(approaches: list[Approach], policy: str) -> list[dict[str, Any]]:
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


def check_sources(rep: Report) -> None:
    """Warnings: budgets that differ, sources that share no instance."""
    budgets = {b for row in rep.sources for b in row["budget_s"]}
    if len(budgets) > 1:
        per = "; ".join(f"{row['approach']}: {', '.join(f'{b:g}' for b in row['budget_s'])} s" for row in rep.sources)
        rep.warnings.append(f"the approaches ran with different budgets ({per}): their results are not comparable")
    ran = {a.label: set(a.records) | set(a.excluded) for a in rep.approaches}
    if len({frozenset(keys) for keys in ran.values()}) > 1:
        common = set.intersection(*ran.values())
        rep.warnings.append(
            "the approaches ran on different task sets ("
            + ", ".join(f"{label}: {len(keys)} tasks" for label, keys in ran.items())
            + f"; {len(common)} in common): their rates are not comparable; a block or task an approach did not "
            "run is marked 'not run', and the McNemar tests use the common tasks")
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



def table1(rep: Report, blocks: list[list[str]], labels: list[str]) -> None:
    lama = rep.lama
    fd_seq = next((a for a in rep.approaches if a.method == "fd-seq-sat-lama-2011"), None)
    for label, members in zip(labels, blocks, strict=True):
        solved = [k for k in members if lama.get(k) is not None]
        ran = any(k in lama for k in members)  # no lama-first source, or none of this block: not run
        row: dict[str, Any] = {"block": label, "instances": len(members), "lama_solved": len(solved) if ran else None,
                               "lama_mean_length": mean_or_none([lama[k] for k in solved])}  # type: ignore[misc]
        if fd_seq is not None:
            both = [k for k in solved if fd_seq.solved(k)]
            row["both_fd_solved"] = len(both)
            row["lama_mean_both"] = mean_or_none([lama[k] for k in both])  # type: ignore[misc]
            row["seq_mean_both"] = mean_or_none([plan_length(fd_seq.records[k]) for k in both])  # type: ignore[misc]
            row["reduction"] = (row["lama_mean_both"] - row["seq_mean_both"]) if both else None
        rep.difficulty.append(row)


def table2(rep: Report, blocks: list[list[str]], labels: list[str]) -> None:
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


def cosolved_rows(rep: Report, group: list[Approach], blocks: list[list[str]],
                   labels: list[str]) -> list[dict[str, Any]]:
    cosolved = [k for k in rep.order if all(a.solved(k) for a in group)]
    rows = []
    for label, members in [*zip(labels, blocks, strict=True), ("all", rep.order)]:
        ks = [k for k in members if k in cosolved]
        if not ks:
            continue
        row: dict[str, Any] = {"block": label, "n": len(ks)}
        for a in group:
            row[a.label] = mean_or_none([plan_length(a.records[k]) for k in ks])  # type: ignore[misc]
        rows.append(row)
    return rows


def table3(rep: Report, blocks: list[list[str]], labels: list[str]) -> None:
    rep.plan_length = cosolved_rows(rep, rep.paper_four, blocks, labels)
    if len(rep.approaches) > len(rep.paper_four):
        rep.plan_length_all = cosolved_rows(rep, rep.approaches, blocks, labels)


def run_tokens(record: dict[str, Any] | None) -> tuple[float, bool]:
    """A run's tokens and whether they are all known (else a lower bound)."""
    usage = (record or {}).get("usage") or {}
    unknown = usage.get("total") is None or bool(usage.get("unreported_calls"))
    known = usage.get("total_known")
    if known is None:
        known = usage.get("total") if usage.get("total") is not None else \
            (usage.get("input_total") or 0) + (usage.get("output_total") or 0)
    return float(known or 0), not unknown


def tokens_and_behaviour(rep: Report) -> None:
    base = None
    for a in (a for a in rep.approaches if a.is_llm):
        runs = list(a.records.values())
        counted = [run_tokens(r) for r in runs]
        totals = [t for t, _ in counted]
        solved_tot = [run_tokens(r)[0] for r in runs if r.get("outcome") == "solved"]
        n_solved = len(solved_tot)
        row: dict[str, Any] = {
            "approach": a.label, "runs": len(runs), "solved": n_solved,
            "total_tokens": sum(totals),
            "tokens_per_run": mean_or_none(totals), "median_per_run": median(totals) if totals else None,
            "tokens_per_solved": sum(totals) / n_solved if n_solved else None,
            "mean_tokens_if_solved": mean_or_none(solved_tot),
            "input_per_run": mean_or_none([float((r.get("usage") or {}).get("input_total") or 0) for r in runs]),
            "output_per_run": mean_or_none([float((r.get("usage") or {}).get("output_total") or 0) for r in runs]),
            "calls_per_run": mean_or_none([float((r.get("usage") or {}).get("calls") or 0) for r in runs]),
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
                "turns_per_run": mean_or_none([float(x.get("turns", 0)) for x in agents]),
                "tool_calls_per_run": mean_or_none([float(x.get("tool_calls", 0)) for x in agents]),
                "illegal_actions_per_run": mean_or_none([float(x.get("illegal_actions", 0)) for x in agents]),
                "resets_per_run": mean_or_none([float(x.get("resets", 0)) for x in agents]),
                "validate_calls_per_run": mean_or_none([float(x.get("validate_calls", 0)) for x in agents]),
                "early_exit_instances": [f"{r['instance_id']} ({r.get('outcome_detail')})" for r in early],
            })


def mcnemar_rows(rep: Report, families: list[list[str]]) -> None:
    labels = {a.label for a in rep.approaches}
    for family in families:
        unknown = [x for x in family if x not in labels]
        if unknown or len(family) < 2:
            raise ValueError(f"a Holm family needs two or more of the approaches ({', '.join(sorted(labels))}); "
                             f"got {', '.join(family)}")
    rep.families = [list(f) for f in families]
    pairs: list[dict[str, Any]] = []
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


