"""Finding tasks in benchmark directories: layouts, natural order, ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from pypddl_experiments.runs.tasks import bundled, discover, select
from pypddlengine.bundled import bundled_tasks

DOMAIN = "; a domain\n(define (domain d) (:requirements :strips) (:predicates (p)) (:action a :parameters () " \
         ":precondition (p) :effect (not (p))))\n"


def problem(name: str) -> str:
    return f"(define (problem {name}) (:domain d) (:init (p)) (:goal (not (p))))\n"


def test_one_folder_natural_order_and_stem_ids(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    for i in (10, 2, 1):
        (tmp_path / f"instance-{i}.pddl").write_text(problem(f"i{i}"))
    (tmp_path / "notes.plan").write_text("(a)\n")
    tasks = discover(tmp_path)
    assert [t.instance_id for t in tasks] == ["instance-1", "instance-2", "instance-10"]
    assert all(t.domain == (tmp_path / "domain.pddl").resolve() for t in tasks)
    assert len(tasks[0].problem_sha256) == 64


def test_per_problem_domains_and_sub_folders(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "domain.pddl").write_text(DOMAIN)
    (a / "p01.pddl").write_text(problem("p01"))
    for stem in ("p01", "p02"):
        (b / f"{stem}-domain.pddl").write_text(DOMAIN)
        (b / f"{stem}.pddl").write_text(problem(stem))
    tasks = discover(tmp_path)
    assert [t.instance_id for t in tasks] == ["a/p01", "b/p01", "b/p02"]
    assert tasks[2].domain.name == "p02-domain.pddl"


def test_unmatched_problem_and_empty_folder_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no PDDL problems"):
        discover(tmp_path)
    (tmp_path / "x-domain.pddl").write_text(DOMAIN)
    (tmp_path / "y-domain.pddl").write_text(DOMAIN)
    (tmp_path / "p1.pddl").write_text(problem("p1"))
    with pytest.raises(ValueError, match="no domain file"):
        discover(tmp_path)
    with pytest.raises(ValueError, match="not a directory"):
        discover(tmp_path / "missing")


def test_bundled_layout_and_selection(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    tasks = discover(root) if (root / "domains").is_dir() else bundled()
    assert sorted(t.instance_id for t in tasks) == sorted(bundled_tasks())
    assert [t.instance_id for t in bundled(["gripper/p01"])] == ["gripper/p01"]
    solvable = select(tasks, "/p")
    assert solvable and all("/p" in t.instance_id for t in solvable)
    assert [t.instance_id for t in select(tasks, "^gripper/", 2)] == ["gripper/p01", "gripper/p02"]
