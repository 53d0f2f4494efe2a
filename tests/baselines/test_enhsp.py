"""ENHSP, the numeric planner baseline, end to end (short budgets): solved
with plans VAL accepts, a proof of unsolvability, a task ENHSP cannot read
reported as ENHSP's limit (never as unsolvable), the wall-clock kill with no
process left, and the wiring into ``pypddl solve`` (auto picks ENHSP for a
numeric task) and ``pypddl batch`` (``-p enhsp``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fd_helpers import live_group_members, needs_val

from pypddl_experiments.generators import fuel_delivery
from pypddl_experiments.planners import Outcome
from pypddl_experiments.planners.cli import batch, solve
from pypddl_experiments.planners.enhsp import ENHSP_CONFIGS, enhsp_jar, java_binary, run_enhsp
from pypddl_experiments.planners.fd import PlannerUnavailable
from pypddl_experiments.planners.planners import is_numeric_task, planner_for
from pypddl_experiments.planners.val import val_run
from pypddlengine.bundled import bundled_root, bundled_task


def _available() -> str | None:
    try:
        enhsp_jar(), java_binary()
    except PlannerUnavailable as err:
        return str(err)
    return None


pytestmark = [pytest.mark.planner, pytest.mark.skipif(_available() is not None, reason=_available() or "")]

DOMAIN = bundled_root("domains") / "fuel-delivery.pddl"
UNSOLVABLE_DOMAIN = """(define (domain cnt) (:requirements :numeric-fluents) (:predicates (done)) (:functions (x))
 (:action act :parameters () :precondition (and (>= (x) 0)) :effect (and (done) (increase (x) 1))))"""
UNSOLVABLE_PROBLEM = "(define (problem p) (:domain cnt) (:init (= (x) 0)) (:goal (and (done) (< (x) 0))))"
# legal PDDL ('either' in a predicate declaration) that ENHSP's parser rejects
EITHER_DOMAIN = """(define (domain e) (:requirements :typing :numeric-fluents) (:types a b)
 (:predicates (p ?x - (either a b))) (:functions (n))
 (:action go :parameters (?x - a) :precondition (and (>= (n) 0)) :effect (and (p ?x) (increase (n) 1))))"""
EITHER_PROBLEM = "(define (problem q) (:domain e) (:objects o - a) (:init (= (n) 0)) (:goal (p o)))"


@pytest.fixture
def small(tmp_path: Path) -> Path:
    problem = tmp_path / "p.pddl"
    problem.write_text(fuel_delivery(4, 1, 2, seed=3, name="p"))
    return problem


def _write(tmp_path: Path, domain: str, problem: str) -> tuple[Path, Path]:
    (tmp_path / "d.pddl").write_text(domain)
    (tmp_path / "q.pddl").write_text(problem)
    return tmp_path / "d.pddl", tmp_path / "q.pddl"


@needs_val
@pytest.mark.parametrize("config", ["enhsp", "enhsp-hadd"])
def test_a_numeric_task_is_solved_and_val_accepts_the_plan(small: Path, config: str) -> None:
    result = run_enhsp(DOMAIN, small, config, time_limit=60)
    assert result.outcome is Outcome.SOLVED, result.summary()
    assert result.plan and result.plan_valid is not False
    assert result.group_cleaned is True and not live_group_members(result.pgid)  # type: ignore[arg-type]
    verdict = val_run(DOMAIN, small, result.plan_text())
    assert verdict.verdict is True and verdict.value is not None
    broken = "".join(f"{s}\n" for s in result.plan[1:])
    assert val_run(DOMAIN, small, broken).verdict is False


def test_unsolvable_is_a_proof_and_unreadable_is_enhsps_limit(tmp_path: Path) -> None:
    domain, problem = _write(tmp_path, UNSOLVABLE_DOMAIN, UNSOLVABLE_PROBLEM)
    result = run_enhsp(domain, problem, "enhsp", time_limit=60)
    assert result.outcome is Outcome.UNSOLVABLE and result.plan is None, result.summary()
    domain, problem = _write(tmp_path, EITHER_DOMAIN, EITHER_PROBLEM)
    result = run_enhsp(domain, problem, "enhsp", time_limit=60)
    assert result.outcome is Outcome.PLANNER_ERROR, result.summary()
    assert "ENHSP could not read" in result.detail and "limit of ENHSP" in result.detail


def test_the_wall_clock_budget_kills_the_whole_group(tmp_path: Path) -> None:
    problem = tmp_path / "big.pddl"
    problem.write_text(fuel_delivery(40, 4, 30, seed=1, name="big"))
    result = run_enhsp(DOMAIN, problem, "enhsp-opt", time_limit=3)
    assert result.outcome is Outcome.TIMEOUT and result.killed, result.summary()
    assert result.wall_s < 3 + 2.0
    assert result.group_cleaned is True and not live_group_members(result.pgid)  # type: ignore[arg-type]


def test_auto_picks_enhsp_for_numeric_tasks_only(small: Path) -> None:
    assert is_numeric_task(DOMAIN, small)
    assert planner_for("auto", DOMAIN, small) is ENHSP_CONFIGS["enhsp"]
    assert planner_for("auto", *bundled_task("gripper/p01")).method == "fd-lama-first"


def test_solve_and_batch_run_enhsp(small: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(solve, [str(DOMAIN), str(small), "-t", "60", "--json"])
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    assert record["method"] == "enhsp" and record["outcome"] == "solved"
    assert record["planner"]["name"] == "enhsp" and record["planner"]["enhsp"]["wheel"]
    assert "fd_version" not in record["planner"]
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "domain.pddl").write_text(DOMAIN.read_text())
    (folder / "p1.pddl").write_text(small.read_text())
    out = tmp_path / "runs.jsonl"
    done = runner.invoke(batch, [str(folder), "-p", "enhsp-hadd", "-t", "60", "-o", str(out), "-q"])
    assert done.exit_code == 0, done.output
    (line,) = out.read_text().splitlines()
    assert json.loads(line)["method"] == "enhsp-hadd" and json.loads(line)["outcome"] == "solved"
    refused = runner.invoke(batch, [str(folder), "-p", "auto", "-o", str(tmp_path / "x.jsonl")])
    assert refused.exit_code == 2 and "auto" in refused.output


@needs_val
def test_solve_on_a_numeric_task_prints_the_metric_as_val_computes_it() -> None:
    """Issue 34 item 7: it printed '; cost = N (unit cost)' (the step count)."""
    domain, problem = bundled_task("fuel-delivery/p01")
    result = CliRunner().invoke(solve, [str(domain), str(problem), "-t", "60"])
    assert result.exit_code == 0, result.output
    metric_lines = [line for line in result.stdout.splitlines() if line.startswith("; metric = ")]
    assert len(metric_lines) == 1 and "unit cost" not in result.stdout, result.stdout
    value = float(metric_lines[0].split("= ")[1].split()[0])
    plan = "".join(line + "\n" for line in result.stdout.splitlines() if line.startswith("("))
    assert val_run(domain, problem, plan).value == pytest.approx(value)
    assert f"metric {metric_lines[0].split('= ')[1]}" in result.stderr
