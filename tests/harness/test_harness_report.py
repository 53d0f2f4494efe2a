"""The report on synthetic records: difficulty order and blocks, joins,
replicates, labels, the paper-sized statistics, and reporting without
matplotlib."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from harness_scripts import csv_rows as rows
from harness_scripts import write_records as write

from pypddlengine.harness.cli import experiment
from pypddlengine.harness.report import build_report, difficulty_order, load_approaches, write_report


def record(method: str, instance: str, outcome: str, length: int | None = None, *, replicate: int = 0,
           tokens: int | None = None, sha: str | None = None) -> dict[str, Any]:
    usage = None if tokens is None else {"calls": 1, "input_total": tokens - 10, "output_total": 10, "total": tokens}
    return {"schema": "pypddl.run/1", "method": method, "instance_id": instance, "replicate": replicate,
            "outcome": outcome, "plan_length": length if outcome == "solved" else None, "usage": usage,
            "problem_sha256": sha or f"sha-{instance}", "budget_s": 180.0}


def test_difficulty_order_ties_and_unsolved() -> None:
    keys = [f"instance-{i}" for i in (10, 1, 2, 3, 4, 5)]
    display = {k: k for k in keys}
    lama = {"instance-1": 10, "instance-2": 5, "instance-3": 5, "instance-10": 5, "instance-4": None}
    assert difficulty_order(keys, display, lama) == [f"instance-{i}" for i in (1, 2, 3, 4, 5, 10)]  # benchmark
    assert difficulty_order(keys, display, lama, rule="lama") == [
        "instance-2", "instance-3", "instance-10", "instance-1", "instance-4", "instance-5"]
    objects = {"instance-4": 30, "instance-5": 10}
    assert difficulty_order(keys, display, lama, objects, rule="lama")[-2:] == ["instance-5", "instance-4"]


def paper_sized(tmp_path: Path) -> list[Path]:
    """102 tasks; lama-first solves the first 87 (length = 2 * number), seq
    the same ones; direct solves 65, agentic 68, with 3 solved only by the
    agent: the paper's Table II counts."""
    names = [f"instance-{i}" for i in range(1, 103)]
    fd, direct, agentic = [], [], []
    for i, name in enumerate(names, 1):
        lama_ok = i <= 87
        fd.append(record("fd-lama-first", name, "solved" if lama_ok else "timeout", 2 * i))
        fd.append(record("fd-seq-sat-lama-2011", name, "solved" if lama_ok else "timeout", 2 * i - 1))
        d_ok = i <= 65
        a_ok = i <= 65 or i in (100, 101, 102)
        direct.append(record("direct", name, "solved" if d_ok else "timeout", i, tokens=1000))
        a_out = "solved" if a_ok else ("early_exit" if i in range(90, 96) else "timeout")
        agentic.append(record("agentic", name, a_out, i + 1, tokens=5000))
    return [write(tmp_path / "fd", fd), write(tmp_path / "direct", direct), write(tmp_path / "agentic", agentic)]


def test_paper_sized_report(tmp_path: Path) -> None:
    sources = paper_sized(tmp_path)
    approaches, join = load_approaches(sources)
    rep = build_report(approaches, join=join)
    files = write_report(rep, tmp_path / "report")
    table2 = {r["approach"]: r for r in rows(files["table2_outcomes"])}
    assert (table2["Direct LLM"]["solved"], table2["Agentic LLM"]["solved"]) == ("65", "68")
    assert (table2["Agentic LLM"]["early_exit"], table2["Agentic LLM"]["timeout"]) == ("6", "28")
    md = files["report"].read_text()
    assert "| Direct LLM | 102 | 65 (63.7 %) [65 (63.7 %)] | [54.1, 72.4] % |" in md
    assert "| Agentic LLM | 102 | 68 (66.7 %) [68 (66.7 %)] | [57.1, 75.1] % |" in md
    pair = next(r for r in rows(files["mcnemar"]) if (r["a"], r["b"]) == ("Direct LLM", "Agentic LLM"))
    assert (pair["only_a"], pair["only_b"], float(pair["p"])) == ("0", "3", 0.25)
    # blocks of ten, the last one short
    blocks = [r["block"] for r in rows(files["table1_difficulty"])]
    assert blocks[0] == "0–10" and blocks[-1] == "100–102" and len(blocks) == 11
    per_instance = rows(files["per_instance"])
    assert [r["instance_id"] for r in per_instance[:3]] == ["instance-1", "instance-2", "instance-3"]
    assert [r["instance_id"] for r in per_instance[-15:]] == [f"instance-{i}" for i in range(88, 103)]
    # Table III: co-solved = the 65 solved by all four, means per block
    t3 = {r["block"]: r for r in rows(files["table3_plan_length"])}
    assert t3["all"]["n"] == "65" and float(t3["0–10"]["FD lama-first"]) == pytest.approx(11.0)
    assert float(t3["0–10"]["Agentic LLM"]) == pytest.approx(6.5) and "70–80" not in t3
    tokens = {r["approach"]: r for r in rows(files["tokens"])}
    assert float(tokens["Agentic LLM"]["ratio_per_run"]) == pytest.approx(5.0)
    assert float(tokens["Agentic LLM"]["tokens_per_solved"]) == pytest.approx(5000 * 102 / 68)


def test_sha256_join_when_ids_differ(tmp_path: Path) -> None:
    a = write(tmp_path / "a", [record("direct", f"instance-{i}", "solved", 3, sha=f"h{i}") for i in range(1, 4)])
    b = write(tmp_path / "b", [record("agentic", f"probBLOCKS-{i}", "timeout", sha=f"h{i}") for i in range(1, 4)])
    approaches, join = load_approaches([a, b])
    assert join == "sha256"
    rep = build_report(approaches, join=join)
    assert [m["n"] for m in rep.mcnemar] == [3]
    approaches, join = load_approaches([a, b], join="id")
    assert join == "id" and build_report(approaches, join=join).mcnemar[0]["n"] == 0


def test_latest_record_and_replicate_selection(tmp_path: Path) -> None:
    src = write(tmp_path / "x", [
        record("direct", "instance-1", "error"), record("direct", "instance-1", "solved", 4),
        record("direct", "instance-1", "timeout", replicate=1),
    ])
    (a,), _ = load_approaches([src])
    assert a.records["instance-1"]["outcome"] == "solved" and a.replicates == {0: 1, 1: 1}
    (a,), _ = load_approaches([src], replicate=1)
    assert a.records["instance-1"]["outcome"] == "timeout"
    rep = build_report([a])
    assert any("replicate" in note for note in rep.notes)


def test_labels_for_the_same_method_from_two_sources(tmp_path: Path) -> None:
    haiku = write(tmp_path / "haiku", [record("direct", "instance-1", "solved", 3)])
    qwen = write(tmp_path / "qwen", [record("direct", "instance-1", "timeout")])
    approaches, _ = load_approaches([haiku, qwen])
    assert [a.label for a in approaches] == ["Direct LLM (haiku)", "Direct LLM (qwen)"]
    approaches, _ = load_approaches([haiku, qwen], labels={"qwen:direct": "Qwen direct"})
    assert [a.label for a in approaches] == ["Direct LLM (haiku)", "Qwen direct"]


def test_difficulty_from_a_reference_file(tmp_path: Path) -> None:
    src = write(tmp_path / "d", [record("direct", f"instance-{i}", "solved", i) for i in (1, 2, 3)])
    order = {"order": [{"position": 0, "instance_id": "instance-3", "lama_first_length": 4},
                       {"position": 1, "instance_id": "instance-1", "lama_first_length": 9},
                       {"position": 2, "instance_id": "instance-2", "lama_first_length": None}]}
    (tmp_path / "difficulty.json").write_text(json.dumps(order))
    approaches, join = load_approaches([src])
    rep = build_report(approaches, join=join, difficulty_file=tmp_path / "difficulty.json")
    assert rep.order == ["instance-3", "instance-1", "instance-2"]


def test_without_matplotlib_the_report_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    src = write(tmp_path / "d", [record("direct", "instance-1", "solved", 3, tokens=10)])
    result = CliRunner().invoke(experiment, ["report", str(src), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "matplotlib is not installed" in result.output
    assert not (tmp_path / "out" / "fig_outcomes.png").exists()
    assert "matplotlib is not installed" in (tmp_path / "out" / "report.md").read_text()


def test_report_cli_errors(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(experiment, ["report", str(tmp_path / "empty"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "no run records" in result.output


def test_unknown_tokens_make_lower_bounds(tmp_path: Path) -> None:
    """A run whose last call was cut at the deadline has unknown tokens: the
    report counts what is known and marks the figures as lower bounds."""
    cut = record("agentic", "instance-2", "timeout", tokens=500)
    cut["usage"] = {**cut["usage"], "total": None, "total_known": 500, "unreported_calls": 1}
    src = write(tmp_path / "a", [record("agentic", "instance-1", "solved", 3, tokens=1000), cut])
    approaches, join = load_approaches([src])
    rep = build_report(approaches, join=join)
    (row,) = rep.tokens
    assert row["tokens_per_run"] == 750 and row["lower_bound"] and row["runs_with_unknown_tokens"] == 1
    md = write_report(rep, tmp_path / "out")["report"].read_text()
    assert "| Agentic LLM | 2 | 1 | ≥ 750 |" in md
