"""The reference protocol: the difficulty order, Table I and Table II from
records (no planner), and the command end to end on a few IPC tasks."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from corpus import CORPUS
from fd_helpers import requires_fd
from paper_shaped import FD_FAILED, TABLE_I, fd_records

from pypddl_experiments.planners.reference import (
    LAMA,
    SEQ,
    block_rows,
    difficulty_order,
    format_report,
    outcome_rows,
)
from pypddl_experiments.runs.tasks import TaskRef

IPC = CORPUS / "potassco-pddl-instances" / "ipc2000-blocks-strips-typed"


def _tasks(n: int) -> list[TaskRef]:
    """n fake tasks (the files are never read: every task is solved below,
    except where a test says otherwise and gives objects)."""
    return [TaskRef(f"instance-{i}", Path("/nonexistent/domain.pddl"), Path(f"/nonexistent/{i}.pddl"),
                    {"domain": "d" * 64, "problem": f"{i:064d}"}) for i in range(1, n + 1)]


def _rec(method: str, outcome: str, length: int | None = None) -> dict[str, Any]:
    return {"method": method, "outcome": outcome, "plan_length": length,
            "plan_valid": True if length is not None else None, "planner": {"outcome": outcome}}


def test_order_blocks_and_tables() -> None:
    tasks = _tasks(23)
    records = {}
    for i, t in enumerate(tasks):
        lama_len = 100 - i  # later tasks have shorter lama-first plans
        records[(LAMA, t.instance_id)] = _rec(LAMA, "solved", lama_len)
        records[(SEQ, t.instance_id)] = _rec(SEQ, "solved", lama_len - 2)
    records[(SEQ, "instance-23")] = _rec(SEQ, "timeout")
    records[(LAMA, "instance-1")] = _rec(LAMA, "timeout")  # unsolved by lama-first: last
    assert [t.task.instance_id for t in difficulty_order(tasks, records)] == [t.instance_id for t in tasks]
    order = difficulty_order(tasks, records, "lama")
    ids = [t.task.instance_id for t in order]
    assert ids[0] == "instance-23" and ids[-1] == "instance-1"
    assert ids[:-1] == [f"instance-{i}" for i in range(23, 1, -1)]
    rows = block_rows(order)
    assert [r["block"] for r in rows] == ["0–10", "10–20", "20–23"]
    assert rows[0]["both_solved"] == 9 and rows[0]["lama_solved"] == 10  # instance-23: seq-sat timed out
    assert rows[1]["lama_mean"] == pytest.approx(sum(100 - i for i in range(3, 13)) / 10)
    assert rows[1]["difference"] == pytest.approx(2.0)
    assert rows[2]["both_solved"] == 2 and rows[2]["lama_solved"] == 2
    table2 = {r["method"]: r for r in outcome_rows(order)}
    assert table2[LAMA]["solved"] == 22 and table2[LAMA]["timeout"] == 1
    assert table2[SEQ]["solved"] == 22 and table2[SEQ]["timeout"] == 1 and table2[SEQ]["missing"] == 0
    text = format_report(order, "lama", time_limit=180)
    assert "Ordering rule (lama)" in text and "Table I" in text and "Table II" in text
    assert "#22: instance-1  timeout / solved" in text
    bench = difficulty_order(tasks, records, "benchmark")
    assert [t.task.instance_id for t in bench] == [t.instance_id for t in tasks]


def test_ties_keep_benchmark_order_and_missing_records_count() -> None:
    tasks = _tasks(4)
    records = {(LAMA, t.instance_id): _rec(LAMA, "solved", 10) for t in tasks}
    order = difficulty_order(tasks, records, "lama")
    assert [t.task.instance_id for t in order] == [t.instance_id for t in tasks]
    table2 = {r["method"]: r for r in outcome_rows(order)}
    assert table2[SEQ]["missing"] == 4
    row = block_rows(order)[0]  # lama-first records only: its solved tasks count
    assert row["both_solved"] == 4 and row["lama_mean"] == 10 and row["seq_mean"] is None
    records[(SEQ, "instance-2")] = _rec(SEQ, "solved", 8)
    row = block_rows(difficulty_order(tasks, records, "lama"))[0]  # now both: only instance-2 counts
    assert row["both_solved"] == 1 and row["lama_mean"] == 10 and row["seq_mean"] == 8 and row["difference"] == 2
    assert "instance-1  solved / missing" not in format_report(difficulty_order(tasks, records, "lama"), "lama")


@requires_fd
@pytest.mark.skipif(not IPC.is_dir(), reason=f"IPC-2000 Blocksworld set not found at {IPC}")
def test_reference_command_on_a_handful_of_tasks(tmp_path: Path) -> None:
    from pypddl_experiments.planners.cli import reference

    out = tmp_path / "ref" / "runs.jsonl"
    args = [str(IPC), "-n", "4", "-t", "1", "-j", "2", "-o", str(out), "-q"]
    result = CliRunner().invoke(reference, args)
    assert result.exit_code == 0, result.output
    assert "Table I" in result.stdout and "FD seq-sat-lama-2011" in result.stdout
    assert "0–4" in result.stdout
    lines = out.read_text().splitlines()
    assert len(lines) == 8
    difficulty = json.loads((out.parent / "difficulty.json").read_text())
    assert difficulty["rule"] == "benchmark" and len(difficulty["order"]) == 4
    assert [e["instance_id"] for e in difficulty["order"]] == [f"instance-{i}" for i in range(1, 5)]
    written = (out.parent / "difficulty.json").read_text()
    again = CliRunner().invoke(reference, [str(IPC), "-o", str(out), "--report-only", "--json"])
    assert again.exit_code == 0
    tables = json.loads(again.stdout)
    assert (tables["tasks"], tables["benchmark_tasks"]) == (4, 102)
    assert tables["table2"][0]["solved"] == 4 and tables["table1"][0]["both_solved"] == 4
    lama = CliRunner().invoke(reference, [str(IPC), "-o", str(out), "--report-only", "--order", "lama"])
    assert "Ordering rule (lama)" in lama.stdout
    assert (out.parent / "difficulty.json").read_text() == written  # report-only writes nothing


def _paper_tasks() -> tuple[list[TaskRef], dict[tuple[str, str], dict[str, Any]]]:
    tasks = _tasks(102)
    return tasks, {(r["method"], r["instance_id"]): r for r in fd_records()}


def test_records_shaped_like_the_papers_give_its_table_i_in_benchmark_order() -> None:
    """87 solved by both configurations, the failures from instance-72 on:
    the paper's Table I (counts 10, 10, 10, 10, 10, 10, 10, 7, 7, 3, 0 and
    its means) comes out in benchmark order, and not in lama order."""
    tasks, records = _paper_tasks()
    rows = block_rows(difficulty_order(tasks, records))
    assert [r["both_solved"] for r in rows] == [10, 10, 10, 10, 10, 10, 10, 7, 7, 3, 0]
    assert [row[1] for row in TABLE_I] == [10, 10, 10, 10, 10, 10, 10, 7, 7, 3, 0]
    for row, (block, n, lama, seq, diff) in zip(rows, TABLE_I, strict=True):
        assert row["block"] == block and row["both_solved"] == n
        shown = [None if v is None else round(v, 1) for v in (row["lama_mean"], row["seq_mean"], row["difference"])]
        assert shown == [lama, seq, diff], block
    table2 = {r["method"]: r for r in outcome_rows(difficulty_order(tasks, records))}
    assert (table2[LAMA]["solved"], table2[LAMA]["timeout"], table2[SEQ]["solved"]) == (87, 15, 87)
    text = format_report(difficulty_order(tasks, records), "benchmark", time_limit=180)
    assert "first unsolved at position 71 (instance-72)" in text
    # the order the issue rules out: lama-first length, unsolved last (10, 7, 0, 0 in the last four blocks)
    lama_rows = block_rows(difficulty_order(tasks, records, "lama"))
    assert [r["both_solved"] for r in lama_rows][-4:] == [10, 7, 0, 0]
    assert min(FD_FAILED) == 72


def test_report_only_reports_exactly_the_tasks_with_records(tmp_path: Path) -> None:
    """A 5-task run, then --report-only on the 102-task folder: 5 tasks, no
    '97 missing', no 'first unsolved' beside 'none', no file written."""
    from pypddl_experiments.planners.cli import reference

    folder = tmp_path / "bw"
    folder.mkdir()
    (folder / "domain.pddl").write_text("(define (domain d))")
    for i in range(1, 103):
        (folder / f"instance-{i}.pddl").write_text("(define (problem p) (:domain d))")
    out = tmp_path / "ref" / "runs.jsonl"
    out.parent.mkdir()
    five = [r for r in fd_records() if int(r["instance_id"].split("-")[1]) <= 5]
    out.write_text("".join(json.dumps(r) + "\n" for r in five))
    result = CliRunner().invoke(reference, [str(folder), "--report-only", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Tasks: 5 of the benchmark's 102 tasks have records" in result.stdout
    assert "97" not in result.stdout.replace("0–5", "")
    assert "Unsolved tasks (position" in result.stdout and "  none" in result.stdout
    assert "first unsolved at position none" in result.stdout
    assert re.search(r"FD lama-first +5 \(100.0%\) +0 +0 +0 +0$", result.stdout, re.M)
    assert sorted(p.name for p in out.parent.iterdir()) == ["runs.jsonl"]  # difficulty.json not written


# ----------------------------------------------------------------------------- issue 25 item 16


def _folder_with_records(tmp_path: Path, domain: str, names: list[str]) -> tuple[Path, Path]:
    """A task folder (domain named ``domain``) and paper-shaped records for
    its tasks, renamed to ``names``."""
    folder = tmp_path / "tasks"
    folder.mkdir(parents=True)
    (folder / "domain.pddl").write_text(f"(define (domain {domain}))")
    for name in names:
        (folder / f"{name}.pddl").write_text(f"(define (problem p) (:domain {domain}))")
    out = tmp_path / "ref" / "runs.jsonl"
    out.parent.mkdir()
    rename = {f"instance-{i}": name for i, name in enumerate(names, 1)}
    records = [{**r, "instance_id": rename[r["instance_id"]]} for r in fd_records() if r["instance_id"] in rename]
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder, out


def test_reference_json_prints_rounded_means(tmp_path: Path) -> None:
    """Not 1.4000000000000004."""
    from pypddl_experiments.planners.cli import reference

    folder, out = _folder_with_records(tmp_path, "blocks", [f"instance-{i}" for i in range(1, 103)])
    result = CliRunner().invoke(reference, [str(folder), "--report-only", "--json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert not re.search(r"\d\.\d{4,}", result.stdout), re.findall(r"\d+\.\d{4,}", result.stdout)[:3]
    means = [row["lama_mean"] for row in json.loads(result.stdout)["table1"]]
    assert means[1] == 39.8


def test_the_paper_comparison_only_beside_the_papers_benchmark(tmp_path: Path) -> None:
    from pypddl_experiments.planners.cli import reference

    names = [f"p{i:02d}" for i in range(1, 13)]
    folder, out = _folder_with_records(tmp_path / "g", "gripper-strips", names)
    result = CliRunner().invoke(reference, [str(folder), "--report-only", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Paper (" not in result.stdout and "instance-1" not in result.stdout
    assert "natural order of the instance ids: p01, p02, ..., p12" in result.stdout
    assert "as in the paper" not in result.stdout
    folder, out = _folder_with_records(tmp_path / "bw", "blocks", [f"instance-{i}" for i in range(1, 103)])
    result = CliRunner().invoke(reference, [str(folder), "--report-only", "-o", str(out)])
    assert "Paper (" in result.stdout and "instance-1, instance-2, ..., instance-102), as in the paper" in result.stdout


def test_one_table_i_block_layout(tmp_path: Path) -> None:
    """The reference tables, difficulty.json and the experiment report write
    a block the same way."""
    from pypddl_experiments.planners.cli import reference
    from pypddl_experiments.report.report_model import block_label

    tasks, records = _paper_tasks()
    rows = block_rows(difficulty_order(tasks, records))
    assert [r["block"] for r in rows] == [block_label(i, 102) for i in range(11)] == [row[0] for row in TABLE_I]
    folder, out = _folder_with_records(tmp_path, "blocks", [f"instance-{i}" for i in range(1, 103)])
    text = CliRunner().invoke(reference, [str(folder), "--report-only", "-o", str(out)]).stdout
    assert "0–10 " in text and "0-10" not in text
