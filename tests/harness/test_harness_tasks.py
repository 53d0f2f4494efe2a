"""Which tasks --tasks names, in which order, under which ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypddl_experiments.llm.tasks import resolve_tasks


def test_a_folder_in_benchmark_order(blocks: Path) -> None:
    tasks = resolve_tasks(str(blocks))
    assert len(tasks) == 102
    assert [t.instance_id for t in tasks[:3]] == ["instance-1", "instance-2", "instance-3"]
    assert tasks[9].instance_id == "instance-10" and tasks[-1].instance_id == "instance-102"
    assert all(t.domain_path == (blocks / "domain.pddl").resolve() for t in tasks)
    assert [t.order for t in tasks] == list(range(102))
    assert len(tasks[0].problem_sha256) == 64 and tasks[0].action_names == ["pick-up", "put-down", "stack", "unstack"]


def test_globs_files_and_limits(blocks: Path) -> None:
    assert [t.instance_id for t in resolve_tasks(str(blocks / "instance-1?.pddl"))][:2] == ["instance-10",
                                                                                          "instance-11"]
    assert [t.instance_id for t in resolve_tasks(str(blocks / "instance-7.pddl"))] == ["instance-7"]
    assert len(resolve_tasks(str(blocks), limit=10)) == 10


def test_bundled_names() -> None:
    tasks = resolve_tasks("blocksworld")
    assert tasks[0].instance_id == "blocksworld-p01" and tasks[0].problem_path.is_file()
    assert [t.instance_id for t in resolve_tasks("blocksworld/p02")] == ["blocksworld-p02"]


def test_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no problem files"):
        resolve_tasks(str(tmp_path / "nothing-*.pddl"))
    (tmp_path / "p1.pddl").write_text("(define (problem p) (:domain d))")
    with pytest.raises(ValueError, match="--domain"):
        resolve_tasks(str(tmp_path))
