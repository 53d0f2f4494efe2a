"""An offline exam experiment end to end (issue 32): make a question set, ask two
offline stand-ins for models through the harness, resume, report."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pypddlengine.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_offline_exam_experiment_end_to_end(tmp_path: Path) -> None:
    questions, records = tmp_path / "q.json", tmp_path / "records.jsonl"
    runner = CliRunner()
    made = runner.invoke(main, ["exam", "make", str(ROOT / "domains" / "blocksworld.pddl"),
                                str(ROOT / "problems" / "blocksworld" / "p01.pddl"), "--seed", "2", "--per-task", "1",
                                "--out", str(questions)])
    assert made.exit_code == 0, made.output
    n = len(json.loads(questions.read_text()))
    for provider in ("oracle", "naive", "naive"):  # the second naive run resumes: nothing left to ask
        result = runner.invoke(main, ["exam-llm", "run", str(questions), "--provider", provider, "--out", str(records)])
        assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in records.read_text().splitlines()]
    assert len(lines) == 2 * n
    assert all(r["correct"] for r in lines if r["model"] == "oracle")
    assert any(r["correct"] is False for r in lines if r["model"] == "naive")
    report = runner.invoke(main, ["exam-llm", "report", str(records), "--json"])
    data = json.loads(report.stdout)
    overall = {r["model"]: r for r in data["accuracy"] if r["task"] == "all"}
    assert overall["oracle"]["accuracy"] == 1.0 and overall["naive"]["accuracy"] < 1.0
    lo, hi = overall["naive"]["ci95"]
    assert lo <= overall["naive"]["accuracy"] <= hi
    (pair,) = data["comparisons"]
    assert pair["paired"] == n and pair["p"] < 0.05
