"""The solve and generate commands: plan on stdout, one summary line on
stderr, exit codes 0/1/2, seeded files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from fd_helpers import requires_fd, task
from pypddlengine.baselines.cli import generate

from pypddlengine import load_task, parse_plan, validate_plan
from pypddlengine.generators import blocksworld, unsolvable


def pypddl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pypddlengine.cli", *args], capture_output=True, text=True,
                          timeout=120)


@requires_fd
def test_solve_prints_a_valid_plan_and_one_summary_line(tmp_path: Path) -> None:
    domain, problem = task("blocksworld/p03")
    r = pypddl("solve", str(domain), str(problem), "--planner", "lama-first", "--time-limit", "20")
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip().endswith("(unit cost)")
    report = validate_plan(load_task(domain, problem), parse_plan(r.stdout))
    assert report.valid
    assert len(r.stderr.strip().splitlines()) == 1 and "fd-lama-first: solved" in r.stderr
    out = tmp_path / "p03.plan"
    r = pypddl("solve", "--task", "blocksworld/p03", "-p", "seq-sat-lama-2011", "-t", "3", "-o", str(out))
    assert r.returncode == 0 and r.stdout == ""
    assert validate_plan(load_task(domain, problem), parse_plan(out.read_text())).valid


@requires_fd
def test_solve_exit_codes(tmp_path: Path) -> None:
    r = pypddl("solve", "--task", "blocksworld-sizes/u01", "-t", "10")
    assert r.returncode == 1 and r.stdout == "" and "unsolvable" in r.stderr
    r = pypddl("solve", "--task", "blocksworld/p11", "-t", "1")
    assert r.returncode == 1 and "timeout" in r.stderr
    bad = tmp_path / "bad.pddl"
    bad.write_text("(define (problem p) (:domain blocksworld) (:objects a - block) (:init (ontable a)")
    r = pypddl("solve", str(task("blocksworld/p01")[0]), str(bad), "-t", "5")
    assert r.returncode == 2 and "bad.pddl:" in r.stderr
    assert pypddl("solve", "--task", "blocksworld/p01", "-p", "not-an-alias").returncode == 2
    assert pypddl("solve", "--task", "no/such-task").returncode == 2
    assert pypddl("solve", str(bad)).returncode == 2  # one file only


def test_solve_help_documents_exit_codes_and_examples() -> None:
    r = pypddl("solve", "--help")
    assert r.returncode == 0 and "Exit codes" in r.stdout and "pypddl solve" in r.stdout
    for command in ("batch", "reference", "generate"):
        text = pypddl(command, "--help").stdout
        assert "Exit codes" in text and f"pypddl {command}" in text


def test_generate_matches_the_library_and_writes_series(tmp_path: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(generate, ["blocksworld", "--blocks", "7", "--seed", "5"])
    assert r.exit_code == 0 and r.stdout == blocksworld(7, 5)
    r = runner.invoke(generate, ["blocksworld", "-b", "7", "-s", "5", "--count", "3", "--out-dir", str(tmp_path / "s")])
    assert r.exit_code == 0
    names = sorted(p.name for p in (tmp_path / "s").iterdir())
    assert names == ["domain.pddl", "p01.pddl", "p02.pddl", "p03.pddl"]
    assert (tmp_path / "s" / "p02.pddl").read_text() == blocksworld(7, 6, name="p02")
    load_task(tmp_path / "s" / "domain.pddl", tmp_path / "s" / "p03.pddl")


def test_generate_unsolvable_proves_or_refuses(tmp_path: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(generate, ["unsolvable", "--kind", "cycle", "--blocks", "4", "--seed", "2"])
    assert r.exit_code == 0 and r.stdout.startswith("; proved unsolvable by exhaustive-search")
    assert r.stdout.split("\n", 1)[1] == unsolvable("cycle", 4, 2)
    r = runner.invoke(generate, ["unsolvable", "--kind", "cycle", "--blocks", "5", "--max-states", "20"])
    assert r.exit_code == 1 and "no proof" in r.output
    r = runner.invoke(generate, ["unsolvable", "--kind", "cycle", "--blocks", "5", "--no-proof"])
    assert r.exit_code == 0 and r.stdout == unsolvable("cycle", 5, 1)
    r = runner.invoke(generate, ["blocksworld-table", "--blocks", "4", "--positions", "2"])
    assert r.exit_code == 2
    r = runner.invoke(generate, ["blocksworld", "--blocks", "4", "--count", "2"])
    assert r.exit_code == 2  # --count needs --out-dir
