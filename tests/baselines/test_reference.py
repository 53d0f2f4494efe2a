"""The reference protocol: the difficulty order, Table I and Table II from
records (no planner), and the command end to end on a few IPC tasks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fd_helpers import requires_fd
from pypddlengine.baselines.reference import (
    LAMA,
    SEQ,
    block_rows,
    difficulty_order,
    format_report,
    outcome_rows,
)
from pypddlengine.baselines.tasks import TaskRef

HERE = Path(__file__).resolve()
IPC = HERE.parents[3] / "shared" / "benchmarks" / "potassco-pddl-instances" / "ipc2000-blocks-strips-typed"


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
    order = difficulty_order(tasks, records, "lama")
    ids = [t.task.instance_id for t in order]
    assert ids[0] == "instance-23" and ids[-1] == "instance-1"
    assert ids[:-1] == [f"instance-{i}" for i in range(23, 1, -1)]
    rows = block_rows(order)
    assert [r["block"] for r in rows] == ["0-10", "10-20", "20-23"]
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
    from pypddlengine.baselines.cli import reference

    out = tmp_path / "ref" / "runs.jsonl"
    args = [str(IPC), "-n", "4", "-t", "1", "-j", "2", "-o", str(out), "-q"]
    result = CliRunner().invoke(reference, args)
    assert result.exit_code == 0, result.output
    assert "Table I" in result.stdout and "FD seq-sat-lama-2011" in result.stdout
    assert "0-4" in result.stdout
    lines = out.read_text().splitlines()
    assert len(lines) == 8
    difficulty = json.loads((out.parent / "difficulty.json").read_text())
    assert difficulty["rule"] == "lama" and len(difficulty["order"]) == 4
    lengths = [e["lama_first_length"] for e in difficulty["order"]]
    assert lengths == sorted(lengths)
    again = CliRunner().invoke(reference, [*args, "--report-only", "--json"])
    assert again.exit_code == 0
    tables = json.loads(again.stdout)
    assert tables["table2"][0]["solved"] == 4 and tables["table1"][0]["both_solved"] == 4
