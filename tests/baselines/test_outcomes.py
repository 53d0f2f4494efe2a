"""Exit codes to outcomes, configuration names, and how the returned plan is
chosen among the plan files (no planner needed)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from fd_helpers import task

from pypddl_experiments.generators import breadth_first
from pypddl_experiments.planners.fd import CONFIGS, FDResult, _decide, _Judge, _read_plans, resolve_config
from pypddl_experiments.planners.outcomes import Outcome, classify_returncode, record_outcome
from pypddlengine import load_task


@pytest.mark.parametrize(("code", "expected"), [
    (1, Outcome.OUT_OF_MEMORY), (2, Outcome.TIMEOUT), (3, Outcome.OUT_OF_MEMORY),
    (10, Outcome.UNSOLVABLE), (11, Outcome.UNSOLVABLE), (12, Outcome.INCOMPLETE), (13, Outcome.INCOMPLETE),
    (20, Outcome.OUT_OF_MEMORY), (21, Outcome.TIMEOUT), (22, Outcome.OUT_OF_MEMORY), (23, Outcome.TIMEOUT),
    (24, Outcome.OUT_OF_MEMORY), (30, Outcome.PLANNER_ERROR), (31, Outcome.INPUT_ERROR),
    (32, Outcome.PLANNER_ERROR), (33, Outcome.INPUT_ERROR), (34, Outcome.INPUT_ERROR),
    (35, Outcome.PLANNER_ERROR), (36, Outcome.INPUT_ERROR), (37, Outcome.INPUT_ERROR),
    (0, Outcome.PLANNER_ERROR),  # "solved" but no plan file: something is wrong
    (-11, Outcome.PLANNER_ERROR), (99, Outcome.PLANNER_ERROR), (None, Outcome.PLANNER_ERROR),
])
def test_exit_codes_without_a_plan(code: int | None, expected: Outcome) -> None:
    assert classify_returncode(code, killed_at_deadline=False)[0] is expected


def test_our_kill_at_the_deadline_is_a_timeout_whatever_the_code() -> None:
    for code in (-9, 0, 23, None):
        assert classify_returncode(code, killed_at_deadline=True)[0] is Outcome.TIMEOUT
    assert "signal 9" in classify_returncode(-9, killed_at_deadline=False)[1]


def test_record_outcomes_follow_the_shared_schema() -> None:
    allowed = {"solved", "timeout", "early_exit", "error"}
    for outcome in Outcome:
        value, detail = record_outcome(outcome)
        assert value in allowed and detail
    assert record_outcome(Outcome.UNSOLVABLE) == ("early_exit", "proved_unsolvable")
    assert record_outcome(Outcome.TIMEOUT) == ("timeout", "budget_exhausted")


def test_configuration_spellings() -> None:
    assert resolve_config("lama-first") is CONFIGS["lama-first"]
    assert resolve_config("--alias seq-sat-lama-2011") is CONFIGS["seq-sat-lama-2011"]
    assert CONFIGS["seq-sat-lama-2011"].method == "fd-seq-sat-lama-2011"
    bare = resolve_config("astar(lmcut())")
    full = resolve_config('--search "astar(lmcut())"')
    assert bare == full and bare.search_args == ("--search", "astar(lmcut())")
    assert bare.method.startswith("fd-search-") and len(bare.name) == len("search-") + 8
    two = resolve_config("--evaluator h=ff() --search lazy_greedy([h],preferred=[h])")
    assert two.search_args[0] == "--evaluator" and two.name != bare.name
    assert resolve_config("seq-opt-lmcut", check_alias=False).alias == "seq-opt-lmcut"
    for bad in ("", "--alias", "--alias a b", "--evaluator h=ff()", "not an alias!"):
        with pytest.raises(ValueError):
            resolve_config(bad, check_alias=False)


def _optimal_plan() -> list[str]:
    from pypddlengine import ground

    result = breadth_first(ground(load_task(*task("blocksworld/p04"))))
    assert result.plan is not None
    return result.plan


OPTIMAL = _optimal_plan()  # 8 steps
PLAN = "".join(f"{s}\n" for s in OPTIMAL)


def _write(folder: Path, name: str, text: str, at: float) -> None:
    path = folder / name
    path.write_text(text)
    os.utime(path, (at, at))


def _result(tmp_path: Path, files: list[tuple[str, str, float]], *, killed: bool, code: int) -> FDResult:
    domain, problem = task("blocksworld/p04")
    judge = _Judge(load_task(domain, problem), domain, problem, None)
    start = time.time() - 100
    for name, text, offset in files:
        _write(tmp_path, name, text, start + offset)
    result = FDResult(Outcome.PLANNER_ERROR, "", CONFIGS["seq-sat-lama-2011"], 10.0, 1024)
    result.plans = _read_plans(tmp_path, start, 10.0, judge)
    result.killed, result.returncode = killed, code
    _decide(result)
    return result


def test_the_last_complete_plan_before_the_deadline_is_returned(tmp_path: Path) -> None:
    longer = "(unstack e d)\n(stack e d)\n(unstack e d)\n(stack e d)\n" + PLAN  # a detour, still valid
    result = _result(tmp_path, [
        ("sas_plan.1", longer + "; cost = 12 (unit cost)\n", 1.0),
        ("sas_plan.2", PLAN + "; cost = 8 (unit cost)\n", 4.0),
        ("sas_plan.3", PLAN[:30], 9.5),  # cut off by the kill: no cost line
    ], killed=True, code=-9)
    assert result.outcome is Outcome.SOLVED
    assert result.plan_length == 8 and result.plan_valid
    assert [p.complete for p in result.plans] == [True, True, False]
    assert result.last_plan_s == 4.0


def test_a_plan_completed_after_the_deadline_is_ignored(tmp_path: Path) -> None:
    result = _result(tmp_path, [("sas_plan.1", PLAN + "; cost = 8 (unit cost)\n", 10.2)], killed=True, code=-9)
    assert result.outcome is Outcome.TIMEOUT and result.plan is None
    assert "after the deadline" in result.detail


def test_an_invalid_plan_is_a_planner_error_not_a_solution(tmp_path: Path) -> None:
    result = _result(tmp_path, [("sas_plan", "(pick-up c)\n(stack c a)\n; cost = 2 (unit cost)\n", 1.0)],
                     killed=False, code=0)
    assert result.outcome is Outcome.PLANNER_ERROR
    assert result.plan_valid is False and "invalid" in result.detail
