"""Fast Downward runs end to end (short budgets): outcomes, validity of every
plan (our validator and VAL), anytime plans, the wall-clock kill, and that no
process of the planner's group survives."""

from __future__ import annotations

import _thread
import threading
import time
from pathlib import Path

import pytest
from fd_helpers import live_group_members, needs_fd, needs_val, processes_mentioning, task, val_says_valid
from sigint_support import needs_sigint

from pypddl_experiments.planners import Outcome, run_fd
from pypddlengine import load_task, validate_plan

pytestmark = needs_fd

SMALL = ["blocksworld/p02", "blocksworld/p03", "blocksworld-table/p01", "gripper/p01", "logistics/p01"]


def _check_plan(domain: Path, problem: Path, steps: tuple[str, ...]) -> None:
    report = validate_plan(load_task(domain, problem), list(steps))
    assert report.valid, report.summary()


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.parametrize("config", ["lama-first", "seq-sat-lama-2011"])
def test_small_tasks_are_solved_with_valid_plans(name: str, config: str) -> None:
    domain, problem = task(name)
    result = run_fd(domain, problem, config, time_limit=20 if config == "lama-first" else 4)
    assert result.outcome is Outcome.SOLVED, result.summary()
    assert result.plan is not None and result.plan_valid is True
    _check_plan(domain, problem, result.plan)
    for found in result.plans:  # every plan the planner wrote, not only the returned one
        assert found.complete and found.valid, found
    assert result.group_cleaned is True
    assert result.pgid is not None and not live_group_members(result.pgid)
    if config == "lama-first":
        assert [p.file for p in result.plans] == ["sas_plan"]
        assert result.returncode == 0 and not result.killed


@needs_val
def test_val_agrees_on_the_returned_plans() -> None:
    for name in SMALL[:3]:
        domain, problem = task(name)
        result = run_fd(domain, problem, "lama-first", time_limit=20)
        assert val_says_valid(domain, problem, result.plan_text()) is True
        broken = "\n".join(result.plan[:-1]) + "\n"  # type: ignore[index]
        assert val_says_valid(domain, problem, broken) is False


def test_anytime_search_keeps_every_plan_and_returns_the_last_before_the_deadline() -> None:
    """seq-sat-lama-2011 on 15 blocks does not prove its plan optimal, so it
    searches until our wall clock kills it: several improving plans."""
    domain, problem = task("blocksworld/p07")
    budget = 3.0
    start = time.monotonic()
    result = run_fd(domain, problem, "seq-sat-lama-2011", time_limit=budget)
    elapsed = time.monotonic() - start
    assert result.outcome is Outcome.SOLVED, result.summary()
    assert result.killed and result.returncode is not None and result.returncode < 0
    assert budget <= result.wall_s < budget + 0.5
    assert elapsed < budget + 5
    names = [p.file for p in result.plans]
    assert len(names) >= 2 and names == [f"sas_plan.{i}" for i in range(1, len(names) + 1)]
    lengths = [len(p.steps) for p in result.plans if p.complete]
    assert lengths == sorted(lengths, reverse=True)  # each plan better than the one before
    times = [p.time_s for p in result.plans]
    assert times == sorted(times) and all(t <= budget for t in times)
    last = [p for p in result.plans if p.complete and p.before_deadline][-1]
    assert result.plan == last.steps and result.last_plan_s == round(last.time_s, 3)
    _check_plan(domain, problem, result.plan)
    assert not live_group_members(result.pgid)  # type: ignore[arg-type]


@pytest.mark.parametrize("config", ["lama-first", "seq-sat-lama-2011"])
def test_budget_too_small_is_a_timeout_and_kills_the_whole_group(config: str) -> None:
    domain, problem = task("blocksworld/p11")  # 100 blocks: lama-first needs ~20 s
    start = time.monotonic()
    result = run_fd(domain, problem, config, time_limit=1.0)
    assert time.monotonic() - start < 6
    assert result.outcome is Outcome.TIMEOUT, result.summary()
    assert result.killed and result.plan is None and result.plan_valid is None
    assert 1.0 <= result.wall_s < 1.5
    assert result.group_cleaned is True
    assert not live_group_members(result.pgid)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["blocksworld-sizes/u01", "blocksworld-table/u02", "blocksworld-table/u04"])
def test_unsolvable_tasks_are_proved_unsolvable(name: str) -> None:
    result = run_fd(*task(name), "lama-first", time_limit=20)
    assert result.outcome is Outcome.UNSOLVABLE, result.summary()
    assert result.returncode in (10, 11) and result.plan is None


def test_out_of_memory() -> None:
    result = run_fd(*task("blocksworld/p11"), "lama-first", time_limit=20, memory_mb=64)
    assert result.outcome is Outcome.OUT_OF_MEMORY, result.summary()
    assert result.returncode in (20, 22, 24)


def test_malformed_input_is_an_input_error_and_the_planner_is_not_started(tmp_path: Path) -> None:
    domain, _ = task("blocksworld/p02")
    bad = tmp_path / "bad.pddl"
    bad.write_text("(define (problem x) (:domain blocksworld) (:objects a - block) (:init (ontable a) (:goal")
    result = run_fd(domain, bad, "lama-first", time_limit=5)
    assert result.outcome is Outcome.INPUT_ERROR
    assert result.returncode is None and result.command == []
    assert "bad.pddl" in result.detail


def test_search_options_and_optimal_planning() -> None:
    domain, problem = task("blocksworld/p03")
    result = run_fd(domain, problem, "--search astar(lmcut())", time_limit=20)
    assert result.outcome is Outcome.SOLVED and result.plan_length == 10  # the BFS optimum
    assert result.config.name.startswith("search-") and result.config.search == "--search 'astar(lmcut())'"


def test_kept_run_directory_has_the_log_and_plans(tmp_path: Path) -> None:
    result = run_fd(*task("blocksworld/p02"), "lama-first", time_limit=20, workdir=tmp_path / "run")
    assert result.workdir == str(tmp_path / "run")
    assert (tmp_path / "run" / "fd.log").stat().st_size > 0
    assert (tmp_path / "run" / "sas_plan").is_file()


def test_cancel_from_another_thread_stops_the_run() -> None:
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    result = run_fd(*task("blocksworld/p11"), "lama-first", time_limit=30, cancel=cancel)
    assert result.outcome is Outcome.INTERRUPTED
    assert result.wall_s < 3
    assert not live_group_members(result.pgid)  # type: ignore[arg-type]


@needs_sigint
def test_ctrl_c_in_the_main_thread_leaves_no_planner_running(tmp_path: Path) -> None:
    workdir = tmp_path / "interrupted"
    threading.Timer(0.8, _thread.interrupt_main).start()
    with pytest.raises(KeyboardInterrupt):
        run_fd(*task("blocksworld/p11"), "lama-first", time_limit=30, workdir=workdir)
    assert processes_mentioning(str(workdir)) == []


def test_provenance_is_the_planner_that_runs_not_the_wheel() -> None:
    """The release and git revision recorded are what the driver's own
    ``--version`` prints (not the up-fast-downward wheel's version)."""
    import subprocess
    import sys

    from pypddl_experiments.planners.fd import fd_driver, fd_provenance

    out = subprocess.run([sys.executable, str(fd_driver()), "--version"], capture_output=True, text=True,
                         timeout=60, check=False).stdout
    info = fd_provenance()
    assert info["release"] and f"Fast Downward {info['release']}" in out
    assert info["git_revision"] and f"]: {info['git_revision']}" in out
    assert info["wheel"] != info["release"]
