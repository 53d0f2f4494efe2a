"""Issue 34 item 6 on the experiment side: solve says a file error once,
``experiment replay`` with a missing trace is bad input (exit 2), and
``--tasks`` suggests a bundled name as ``--task`` does."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from fd_helpers import requires_fd, task

from pypddl_experiments.cli import experiment
from pypddl_experiments.llm.tasks import resolve_tasks
from pypddl_experiments.planners.cli import solve


@requires_fd
def test_solve_says_a_missing_or_folder_file_once_with_exit_2(tmp_path: Path) -> None:
    _, problem = task("blocksworld/p01")
    for domain in (tmp_path / "missing.pddl", tmp_path):
        result = CliRunner().invoke(solve, [str(domain), str(problem)])
        assert result.exit_code == 2, result.output
        assert result.output.count("error[FILE_NOT_FOUND]") == 1 and "Usage:" not in result.output, result.output


def test_replay_of_a_missing_trace_is_bad_input(tmp_path: Path) -> None:
    result = CliRunner().invoke(experiment, ["replay", str(tmp_path), "nope.jsonl"])
    assert result.exit_code == 2 and "error[FILE_NOT_FOUND]: nope.jsonl" in result.output


def test_tasks_suggests_a_bundled_name() -> None:
    import pytest

    with pytest.raises(ValueError, match="did you mean 'blocksworld'"):
        resolve_tasks("blockworld")
    with pytest.raises(ValueError, match="did you mean 'gripper/p02'"):
        resolve_tasks("gripper/p2")
    with pytest.raises(ValueError, match=r"for --tasks 'zzzz'$"):
        resolve_tasks("zzzz")
