"""The temporal planner baseline (issue 31): LPG and TAMER under the same
wall-clock guard as Fast Downward, clean IPC timed plans judged by VAL, and
the wiring into ``pypddl solve`` (auto picks the temporal default for a
temporal task) and ``pypddl batch`` (temporal tasks run it when no planner
is named)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner
from fd_helpers import live_group_members, needs_val
from temporal_oracles import TEMPORAL_CORPUS, parse_timed_plan, val_timed_verdict

from pypddl_experiments.planners import Outcome
from pypddl_experiments.planners.batch import plan_jobs
from pypddl_experiments.planners.cli import solve
from pypddl_experiments.planners.fd import CONFIGS, PlannerUnavailable
from pypddl_experiments.planners.planners import crosscheck_epsilon, planner_for, resolve_planner
from pypddl_experiments.planners.temporal import (
    JUDGE_EPSILON,
    TEMPORAL_CONFIGS,
    TEMPORAL_DEFAULT,
    is_temporal_task,
    lpg_binary,
    run_temporal,
    timed_plan_lines,
)
from pypddl_experiments.runs.tasks import TaskRef
from pypddlengine.bundled import bundled_task


def _lpg_missing() -> str | None:
    try:
        lpg_binary()
    except PlannerUnavailable as err:
        return str(err)
    return None


needs_lpg = pytest.mark.skipif(_lpg_missing() is not None, reason=_lpg_missing() or "")
needs_tamer = pytest.mark.skipif(importlib.util.find_spec("up_tamer") is None, reason="up-tamer is not installed")
SATELLITE = TEMPORAL_CORPUS / "ipc2002-satellite-time-simple-automatic"
needs_corpus = pytest.mark.skipif(not SATELLITE.is_dir(), reason="the temporal corpus is not there")
WORKSHOP = bundled_task("workshop/p01")
TIL_ONLY = """(define (problem q) (:domain d) (:init (at 10 (open)) ; (:durative-action in a comment
 ) (:goal (open)))"""


def test_temporal_tasks_are_told_from_the_text(tmp_path: Path) -> None:
    assert is_temporal_task(*WORKSHOP)
    assert not is_temporal_task(*bundled_task("blocksworld/p01"))
    assert not is_temporal_task(*bundled_task("fuel-delivery/p01"))
    domain = tmp_path / "d.pddl"
    domain.write_text("(define (domain d) ; (:durative-action only in a comment\n (:predicates (open)))")
    problem = tmp_path / "q.pddl"
    problem.write_text(TIL_ONLY)
    assert is_temporal_task(domain, problem)  # a timed initial literal
    problem.write_text(TIL_ONLY.replace("(at 10 (open))", "(open)"))
    assert not is_temporal_task(domain, problem)
    assert not is_temporal_task(tmp_path / "missing.pddl", problem)


def test_planner_plans_become_clean_ipc_lines() -> None:
    lpg = "; Version LPG-td-1.4\n\n0.0003:   (SWITCH_ON  INSTRUMENT0 SATELLITE0) [2.0000])\n"
    tamer = "0: (turn_to satellite0 a b)[5]\n5.01: (calibrate s i g)[5]\n"
    assert timed_plan_lines(lpg) == ("0.0003: (switch_on instrument0 satellite0) [2.0000]",)
    assert timed_plan_lines(tamer) == ("0: (turn_to satellite0 a b) [5]", "5.01: (calibrate s i g) [5]")


def test_auto_picks_the_temporal_default() -> None:
    assert planner_for("auto", *WORKSHOP) is TEMPORAL_CONFIGS[TEMPORAL_DEFAULT]
    assert planner_for("auto", *bundled_task("gripper/p01")).method == "fd-lama-first"
    assert resolve_planner("tamer") is TEMPORAL_CONFIGS["tamer"] and resolve_planner("lpg").timed
    assert crosscheck_epsilon(TEMPORAL_CONFIGS["lpg"]) == JUDGE_EPSILON
    assert crosscheck_epsilon(CONFIGS["lama-first"]) is None


def test_batch_runs_temporal_tasks_with_the_temporal_configs() -> None:
    tasks = [TaskRef("workshop/p01", *WORKSHOP), TaskRef("gripper/p01", *bundled_task("gripper/p01"))]
    lama, lpg = CONFIGS["lama-first"], TEMPORAL_CONFIGS["lpg"]
    jobs, _ = plan_jobs(tasks, [lama], 1, set(), [lpg])
    assert {(j.config.method, j.task.instance_id) for j in jobs} == {("fd-lama-first", "gripper/p01"),
                                                                    ("lpg", "workshop/p01")}
    jobs, _ = plan_jobs(tasks, [lama], 1, set())  # planners named: every task runs them
    assert {j.task.instance_id for j in jobs} == {"workshop/p01", "gripper/p01"}


@needs_val
@needs_lpg
@needs_corpus
def test_lpg_solves_and_val_agrees(tmp_path: Path) -> None:
    domain, problem = SATELLITE / "domain.pddl", SATELLITE / "instance-1.pddl"
    result = run_temporal(domain, problem, "lpg", time_limit=60, workdir=tmp_path / "run")
    assert result.outcome is Outcome.SOLVED and result.plan_valid is True and result.validator == "pypddlengine"
    text = result.plan_text()
    assert all(line == line.lower() and not line.endswith(")") for line in text.splitlines())
    verdict = val_timed_verdict(domain, problem, text, epsilon=JUDGE_EPSILON)  # the oracle, run separately
    assert verdict.valid and result.plan_cost == pytest.approx(verdict.value)
    assert text.splitlines()[-1] == f"; value = {verdict.value_text}"
    assert result.group_cleaned and (tmp_path / "run" / "lpg.log").is_file()


@needs_lpg
def test_lpg_on_a_duration_inequality_is_its_limit(tmp_path: Path) -> None:
    """LPG-td reads no duration inequality: an error of LPG, never 'unsolvable'."""
    result = run_temporal(*bundled_task("workshop/p02"), "lpg", time_limit=30)
    assert result.outcome is Outcome.PLANNER_ERROR and result.plan is None
    assert "Duration inequalities are not supported" in result.log_tail


@needs_lpg
@pytest.mark.skipif(not (TEMPORAL_CORPUS / "ipc2011-match-cellar-temporal-satisficing").is_dir(),
                    reason="the temporal corpus is not there")
def test_lpg_giving_up_is_incomplete_not_unsolvable() -> None:
    """match-cellar needs concurrency LPG-td cannot plan: it stops at its
    search limit (about 4 s here), which proves nothing."""
    folder = TEMPORAL_CORPUS / "ipc2011-match-cellar-temporal-satisficing"
    result = run_temporal(folder / "domain.pddl", folder / "instance-1.pddl", "lpg", time_limit=60)
    assert result.outcome is Outcome.INCOMPLETE and result.plan is None


@needs_tamer
@needs_corpus
def test_tamer_is_killed_at_the_deadline() -> None:
    result = run_temporal(SATELLITE / "domain.pddl", SATELLITE / "instance-1.pddl", "tamer", time_limit=0.5)
    assert result.outcome is Outcome.TIMEOUT and result.killed
    assert result.group_cleaned and not live_group_members(result.pgid or -1)


@needs_tamer
@pytest.mark.skipif(not (TEMPORAL_CORPUS / "ipc2002-zenotravel-time-simple-automatic").is_dir(),
                    reason="the temporal corpus is not there")
def test_tamer_reader_refusal_is_its_limit() -> None:
    """unified-planning's PDDL reader fails on zenotravel (IPC 2002): the
    planner's error, quoting the reader, never 'unsolvable'."""
    folder = TEMPORAL_CORPUS / "ipc2002-zenotravel-time-simple-automatic"
    result = run_temporal(folder / "domain.pddl", folder / "instance-1.pddl", "tamer", time_limit=60)
    assert result.outcome is Outcome.PLANNER_ERROR and result.plan is None
    assert "read error" in result.detail and "a limit of TAMER" in result.detail


@pytest.mark.slow
@needs_val
@needs_tamer
@needs_corpus
def test_tamer_plan_is_judged_as_val_judges_it() -> None:
    """TAMER solves satellite p1, but its plan starts an action at the same
    time as another that deletes its condition, which VAL calls a mutex
    violation: the baseline reports VAL's verdict, whatever it is."""
    domain, problem = SATELLITE / "domain.pddl", SATELLITE / "instance-1.pddl"
    result = run_temporal(domain, problem, "tamer", time_limit=120)
    assert result.plan is not None and parse_timed_plan(result.plan_text())
    verdict = val_timed_verdict(domain, problem, "".join(f"{s}\n" for s in result.plan), epsilon=JUDGE_EPSILON)
    assert result.plan_valid is verdict.valid
    assert result.outcome is (Outcome.SOLVED if verdict.valid else Outcome.PLANNER_ERROR)


@needs_val
@needs_lpg
def test_solve_picks_lpg_for_a_bundled_temporal_task() -> None:
    run = CliRunner().invoke(solve, ["--task", "workshop/p01", "-t", "30", "--crosscheck"])
    assert run.exit_code == 0, run.output
    steps = [line for line in run.stdout.splitlines() if not line.startswith(";")]
    assert [s.split(": ", 1)[1].split(")")[0] for s in steps] == ["(repair t1 m1 b1", "(test t1 m1 b1"]
    assert "lpg: solved" in run.stderr and "VAL: valid" in run.stderr
