"""Fast Downward releases beside the installed wheel (issue 22): the private
install, the choice reaching provenance and records, and resuming refused
across releases; and the plan readings of anytime runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pypddl_experiments.planners import fd
from pypddl_experiments.planners.batch import IncompatibleRecords, _check_compatible
from pypddl_experiments.planners.readings import apply_reading, parse_reading


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(fd.RELEASE_ENV, raising=False)
    return tmp_path / "cache"


def _fake_pip(release_named: str, calls: list[list[str]]) -> Any:
    """A stand-in for ``pip install --target DIR``: lays out a wheel whose
    driver/version.py names ``release_named``."""
    def run(cmd: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        if "--target" not in cmd:  # the search binary asked for its revision: there is none here
            return subprocess.CompletedProcess(cmd, 1, "", "")
        calls.append(cmd)
        target = Path(cmd[cmd.index("--target") + 1])
        driver = target / "up_fast_downward" / "downward"
        (driver / "driver").mkdir(parents=True)
        (driver / "fast-downward.py").write_text("# driver\n")
        (driver / "driver" / "version.py").write_text(f'__version__ = "{release_named}"\n')
        (target / "up_fast_downward-0.4.2.dist-info").mkdir()
        return subprocess.CompletedProcess(cmd, 0, "", "")
    return run


def test_install_release_checks_the_release_and_keeps_the_environment(cache: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    monkeypatch.setattr(fd.subprocess, "run", _fake_pip("23.06", calls))
    driver = fd.install_release("23.06")
    assert driver == cache / "pypddlengine" / "fast-downward" / "23.06" / "up_fast_downward" / "downward" \
        / "fast-downward.py"
    assert driver.is_file()
    cmd = calls[0]
    assert cmd[:4] == [sys.executable, "-m", "pip", "install"]
    assert "--no-deps" in cmd and "up-fast-downward==0.4.2" in cmd  # never touches this environment's packages
    assert fd.install_release("23.06") == driver and len(calls) == 1  # installed once
    # nothing left behind but the release folder
    assert [p.name for p in (cache / "pypddlengine" / "fast-downward").iterdir()] == ["23.06"]
    monkeypatch.setenv(fd.RELEASE_ENV, "23.06")
    assert fd.fd_driver() == driver
    assert fd.fd_version() == "0.4.2"
    assert fd.fd_provenance()["release"] == "23.06"


def test_a_wheel_shipping_another_release_is_refused(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fd.subprocess, "run", _fake_pip("26.6", []))
    with pytest.raises(fd.PlannerUnavailable, match="ships Fast Downward 26.6, not 23.06"):
        fd.install_release("23.06")
    assert not (cache / "pypddlengine" / "fast-downward" / "23.06").exists()
    assert list((cache / "pypddlengine" / "fast-downward").iterdir()) == []  # the staging folder is gone


def test_unknown_or_missing_release(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(fd.PlannerUnavailable, match="unknown Fast Downward release '9.9'"):
        fd.install_release("9.9")
    monkeypatch.setenv(fd.RELEASE_ENV, "23.06")
    with pytest.raises(fd.PlannerUnavailable, match="run the command with --fd-release 23.06 once"):
        fd.fd_driver()


def test_resuming_into_records_of_another_release_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    records = [{"budget_s": 180.0, "planner": {"memory_limit_mb": 4096, "fd_release": "23.06"}}]
    monkeypatch.setattr("pypddl_experiments.planners.batch.fd_provenance", lambda: {"release": "26.6"})
    with pytest.raises(IncompatibleRecords, match="Fast Downward 23.06, not 26.6"):
        _check_compatible(records, 180.0, 4096, tmp_path / "runs.jsonl")
    monkeypatch.setattr("pypddl_experiments.planners.batch.fd_provenance", lambda: {"release": "23.06"})
    _check_compatible(records, 180.0, 4096, tmp_path / "runs.jsonl")


def test_cli_rejects_an_unknown_release() -> None:
    from pypddl_experiments.planners.cli import solve

    result = CliRunner().invoke(solve, ["--fd-release", "1.0", "--task", "blocksworld/p01"])
    assert result.exit_code == 2 and "1.0" in result.output


@pytest.mark.slow
@pytest.mark.planner
def test_fd_23_06_solves_and_records_its_release(tmp_path: Path) -> None:
    """The real install (pip downloads the 49 MB wheel once per cache)."""
    out = subprocess.run([sys.executable, "-m", "pypddlengine.cli", "solve", "--fd-release", "23.06",
                          "--task", "blocksworld/p03", "--json"], capture_output=True, text=True, timeout=900,
                         env={**os.environ}, check=False)
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert record["planner"]["fd_release"] == "23.06" and record["planner"]["fd_version"] == "0.4.2"
    assert record["outcome"] == "solved" and record["plan_valid"] is True


# ----------------------------------------------------------------------------- readings


def _anytime(*plans: tuple[float, int, bool]) -> dict[str, Any]:
    found = [{"file": f"sas_plan.{i + 1}", "time_s": t, "length": n, "complete": True, "before_deadline": True,
              "valid": ok} for i, (t, n, ok) in enumerate(plans)]
    last = [p for p in found if p["valid"]]
    return {"schema": "pypddl.run/1", "method": "fd-seq-sat-lama-2011", "outcome": "solved" if last else "timeout",
            "plan_length": last[-1]["length"] if last else None, "plan": ["(a)"] * (last[-1]["length"] if last else 0),
            "plan_valid": True if last else None, "planner": {"plans": found, "outcome": "solved"}}


def test_readings_pick_the_plan_they_name() -> None:
    record = _anytime((1.0, 50, True), (5.0, 44, False), (10.0, 40, True), (100.0, 30, True))
    assert apply_reading(record, parse_reading("best")) is record
    first = apply_reading(record, parse_reading("first"))
    assert (first["plan_length"], first["outcome"], first["plan"], first["reading"]) == (50, "solved", None, "first")
    assert apply_reading(record, parse_reading("at:5"))["plan_length"] == 50  # the invalid plan at 5 s is skipped
    assert apply_reading(record, parse_reading("at:10"))["plan_length"] == 40
    assert apply_reading(record, parse_reading("at:180"))["plan_length"] == 30
    assert apply_reading(record, parse_reading("at:180"))["plan"] is not None  # the returned plan itself
    early = apply_reading(record, parse_reading("at:0.5"))
    assert (early["outcome"], early["plan_length"]) == ("timeout", None)
    assert record["plan_length"] == 30 and record["outcome"] == "solved"  # the record itself is not changed
    none = apply_reading(_anytime(), parse_reading("first"))
    assert none["outcome"] == "timeout"


def test_first_if_exited_reads_by_how_the_run_ended() -> None:
    """The first plan of a run that ended by itself, the best of one killed at
    the budget; a run without a valid plan stays a timeout either way."""
    plans = ((1.0, 50, True), (10.0, 40, True), (100.0, 30, True))
    exited, killed = _anytime(*plans), _anytime(*plans)
    exited["planner"]["killed_at_deadline"] = False
    killed["planner"]["killed_at_deadline"] = True
    reading = parse_reading("First-If-Exited")
    assert reading.name == "first-if-exited"
    assert apply_reading(exited, reading)["plan_length"] == 50
    assert apply_reading(exited, reading)["plan"] is None  # not the returned plan's actions
    assert apply_reading(killed, reading)["plan_length"] == 30
    assert apply_reading(killed, reading)["plan"] is not None
    assert apply_reading(_anytime(), reading)["outcome"] == "timeout"


@pytest.mark.parametrize("text", ["", "last", "at:", "at:-3", "at:nan", "at:x"])
def test_bad_readings_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_reading(text)


def test_reference_report_under_a_reading_and_beside_the_paper(tmp_path: Path) -> None:
    """--seq-reading first scores the first plans; the paper's columns appear
    for the paper's 102 tasks only."""
    from pypddl_experiments.planners.cli import reference

    def folder(name: str, n: int) -> Path:
        root = tmp_path / name
        root.mkdir()
        (root / "domain.pddl").write_text("(define (domain d))")
        for i in range(1, n + 1):
            (root / f"instance-{i}.pddl").write_text("(define (problem p) (:domain d))")
        return root

    def records(n: int) -> str:
        lines = []
        for i in range(1, n + 1):
            lama = {"schema": "pypddl.run/1", "method": "fd-lama-first", "instance_id": f"instance-{i}", "replicate": 0, "budget_s": 180.0,
                    "outcome": "solved", "plan_length": 20, "plan_valid": True,
                    "planner": {"outcome": "solved", "plans": [], "memory_limit_mb": 10240}}
            seq = {**_anytime((1.0, 20, True), (50.0, 10, True)), "instance_id": f"instance-{i}", "replicate": 0,
                   "budget_s": 180.0}
            lines += [json.dumps(lama), json.dumps(seq)]
        return "\n".join(lines) + "\n"

    paper = folder("paper", 102)
    out = tmp_path / "runs.jsonl"
    out.write_text(records(102))
    best = CliRunner().invoke(reference, [str(paper), "--report-only", "-o", str(out)])
    first = CliRunner().invoke(reference, [str(paper), "--report-only", "-o", str(out), "--seq-reading", "first"])
    assert best.exit_code == 0 and first.exit_code == 0, best.output + first.output
    assert "0–10       10    [10]      20.0   [14.0]      10.0   [14.0]" in best.stdout
    assert "0–10       10    [10]      20.0   [14.0]      20.0   [14.0]" in first.stdout
    assert "read as 'first'" in first.stdout and "[paper]" in best.stdout
    cut = CliRunner().invoke(reference, [str(paper), "--report-only", "-o", str(out), "--seq-reading", "at:0.5"])
    assert "FD seq-sat-lama-2011      0 (  0.0%)      102" in cut.stdout
    other = folder("other", 12)
    out12 = tmp_path / "runs12.jsonl"
    out12.write_text(records(12))
    small = CliRunner().invoke(reference, [str(other), "--report-only", "-o", str(out12)])
    assert small.exit_code == 0 and "[paper]" not in small.stdout and "Paper (" not in small.stdout
    bad = CliRunner().invoke(reference, [str(other), "--report-only", "-o", str(out12), "--seq-reading", "last"])
    assert bad.exit_code == 2 and "unknown plan reading" in bad.output
