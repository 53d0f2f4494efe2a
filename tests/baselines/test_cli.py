"""The solve and generate commands: plan on stdout, one summary line on
stderr, exit codes 0/1/2, seeded files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from fd_helpers import requires_fd, task

from pypddl_experiments.generators import blocksworld, unsolvable
from pypddl_experiments.planners.cli import generate
from pypddlengine import load_task, parse_plan, validate_plan


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


COST_DOMAIN = """(define (domain hops) (:requirements :typing :action-costs)
  (:types place)
  (:predicates (at ?p - place) (road ?a ?b - place))
  (:functions (total-cost) - number (len ?a ?b - place) - number)
  (:action go :parameters (?a ?b - place)
    :precondition (and (at ?a) (road ?a ?b))
    :effect (and (not (at ?a)) (at ?b) (increase (total-cost) (len ?a ?b)))))"""
COST_PROBLEM = """(define (problem hops3) (:domain hops)
  (:objects p0 p1 p2 - place)
  (:init (at p0) (road p0 p1) (road p1 p2) (= (len p0 p1) 7) (= (len p1 p2) 4) (= (total-cost) 0))
  (:goal (at p2)) (:metric minimize (total-cost)))"""


@requires_fd
def test_solve_writes_the_real_cost_of_an_action_cost_plan(tmp_path: Path) -> None:
    """Two steps costing 11: the cost line and the summary say 11 (general
    cost), as our validator computes it, not the plan length."""
    (tmp_path / "d.pddl").write_text(COST_DOMAIN)
    (tmp_path / "p.pddl").write_text(COST_PROBLEM)
    r = pypddl("solve", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), "-t", "30")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "; cost = 11 (general cost)"
    report = validate_plan(load_task(tmp_path / "d.pddl", tmp_path / "p.pddl"), parse_plan(r.stdout))
    assert report.valid and report.cost == 11 and report.length == 2
    assert "cost 11" in r.stderr


@requires_fd
def test_solve_keep_dir_may_be_relative(tmp_path: Path) -> None:
    domain, problem = task("blocksworld/p02")
    r = subprocess.run([sys.executable, "-m", "pypddlengine.cli", "solve", str(domain), str(problem), "-t", "20",
                        "--keep-dir", "kept"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "kept" / "sas_plan").is_file() and (tmp_path / "kept" / "fd.log").is_file()


def test_solve_refuses_files_and_task_together() -> None:
    domain, problem = task("blocksworld/p02")
    r = pypddl("solve", str(domain), str(problem), "--task", "blocksworld/p03")
    assert r.returncode == 2 and "not both" in r.stderr


@requires_fd
def test_solve_summary_names_the_plan_count_once() -> None:
    """seq-sat-lama-2011 improves its plan on blocksworld/p06 within a second
    or so; the summary says how many plans once."""
    r = pypddl("solve", "--task", "blocksworld/p06", "-p", "seq-sat-lama-2011", "-t", "4")
    assert r.returncode == 0, r.stderr
    summary = r.stderr.strip().splitlines()[-1]
    assert "plans found" in summary, summary  # more than one plan, or the test proves nothing
    assert summary.count("plan") - summary.count("plan length") - summary.count("plan at") == 1, summary
