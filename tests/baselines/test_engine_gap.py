"""`solve`/`batch` hand Fast Downward every task it accepts, even one the
engine cannot load (issue 11): VAL then judges the plans, and a plan nobody
could check is reported as not validated, never as valid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fd_helpers import needs_fd, needs_val, task

from pypddl_experiments.planners import Outcome, fd, run_fd
from pypddlengine.cli import main
from pypddlengine.errors import UnsupportedRequirementError

pytestmark = needs_fd

CORPUS_ADL = Path(__file__).resolve().parents[3] / "shared/benchmarks/downward-benchmarks/miconic-simpleadl"


@pytest.fixture
def engine_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine refuses the task, as it refuses a feature it does not support."""

    def refuse(*_args: object, **_kw: object) -> None:
        raise UnsupportedRequirementError("unsupported PDDL feature: conditional effects ('when')")

    monkeypatch.setattr(fd, "load_task", refuse)


@needs_val
def test_a_task_the_engine_refuses_is_solved_and_judged_by_val(engine_gap: None) -> None:
    domain, problem = task("blocksworld/p02")
    result = run_fd(domain, problem, "lama-first", time_limit=30)
    assert result.outcome is Outcome.SOLVED, result.summary()
    assert result.plan_valid is True and result.validator == "VAL"
    assert "conditional effects" in (result.engine_gap or "")
    assert "checked by VAL" in result.summary()


def test_val_disagreeing_makes_the_run_a_planner_error(engine_gap: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fd, "val_validate", lambda *a, **k: False)
    domain, problem = task("blocksworld/p02")
    result = run_fd(domain, problem, "lama-first", time_limit=30)
    assert result.outcome is Outcome.PLANNER_ERROR and result.plan_valid is False


def test_no_verdict_is_not_validated_never_valid(engine_gap: None, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    monkeypatch.setattr(fd, "val_validate", lambda *a, **k: None)
    domain, problem = task("blocksworld/p02")
    result = run_fd(domain, problem, "lama-first", time_limit=30)
    assert result.outcome is Outcome.SOLVED and result.plan_valid is None
    assert "NOT VALIDATED" in result.summary()
    out = CliRunner().invoke(main, ["solve", str(domain), str(problem), "-t", "30", "--json"])
    record = json.loads(out.stdout)
    assert record["plan_valid"] is None and record["validator"]["name"] is None
    assert "conditional effects" in record["validator"]["engine_gap"]


@needs_val
@pytest.mark.skipif(not CORPUS_ADL.is_dir(), reason="the shared benchmark corpus is absent (../shared/benchmarks)")
def test_an_adl_corpus_task_is_solved_from_the_cli() -> None:
    out = CliRunner().invoke(main, ["solve", str(CORPUS_ADL / "domain.pddl"), str(CORPUS_ADL / "s1-0.pddl"),
                                    "-t", "60", "--json"])
    assert out.exit_code == 0, out.output
    record = json.loads(out.stdout)
    assert record["outcome"] == "solved" and record["plan_valid"] is True
    assert record["validator"]["name"] in {"pypddlengine", "VAL"}  # VAL until the engine loads ADL
