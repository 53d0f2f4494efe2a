"""The tasks of an experiment: which problem files, with which domain, in
which (benchmark) order, under which stable ids.

``--tasks`` accepts a folder (every ``*.pddl`` in it except the domain
file), a glob of problem files, one problem file, or a bundled task name
(``blocksworld/p01``) or bundled domain (``blocksworld``). The domain is
``--domain`` if given, else ``domain.pddl`` next to the problem. The instance
id is the problem file's name without ``.pddl`` (``instance-17``), and tasks
are in natural order of their file names (``instance-2`` before
``instance-10``), which for the IPC-2000 set is the original benchmark order.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pypddlengine.lifted import LiftedTask

from pypddl_experiments.runs.records import sha256_file
from pypddlengine.loading import is_domain_file, problem_files
from pypddlengine.task import natural_key

__all__ = ["TaskSpec", "natural_key", "resolve_tasks"]  # natural_key: the engine's, re-exported


@dataclass(frozen=True)
class TaskSpec:
    instance_id: str
    domain_path: Path
    problem_path: Path
    order: int = 0
    shown_problem: str | None = None
    """The problem text the prompt shows instead of the file's (partial observability)."""

    @cached_property
    def domain_text(self) -> str:
        return self.domain_path.read_text(encoding="utf-8", errors="replace")

    @cached_property
    def problem_text(self) -> str:
        return self.problem_path.read_text(encoding="utf-8", errors="replace")

    @cached_property
    def domain_sha256(self) -> str:
        return sha256_file(self.domain_path)

    @cached_property
    def problem_sha256(self) -> str:
        return sha256_file(self.problem_path)

    @cached_property
    def lifted(self) -> LiftedTask:
        from pypddlengine.loading import load_task

        return load_task(self.domain_path, self.problem_path)

    @property
    def action_names(self) -> list[str]:
        return [s.name for s in self.lifted.schemas]

    def describe(self) -> dict[str, Any]:
        return {
            "instance_id": self.instance_id,
            "domain": str(self.domain_path),
            "problem": str(self.problem_path),
            "domain_sha256": self.domain_sha256,
            "problem_sha256": self.problem_sha256,
        }


def _did_you_mean(spec: str, path: Path) -> str:
    """A bundled domain or task close to a ``--tasks`` that names nothing
    (as ``--task`` suggests one); nothing for an existing path or a glob."""
    if path.exists() or any(ch in spec for ch in "*?["):
        return ""
    import difflib

    from pypddlengine.bundled import bundled_domains, bundled_tasks

    close = difflib.get_close_matches(spec, [*bundled_domains(), *bundled_tasks()], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def resolve_tasks(spec: str, *, domain: str | Path | None = None, limit: int | None = None) -> list[TaskSpec]:
    """The tasks named by ``spec`` (see the module docstring)."""
    path = Path(spec).expanduser()
    problems: list[Path]
    if path.is_dir():
        problems = problem_files(path)
    elif path.is_file():
        problems = [path]
    elif any(ch in spec for ch in "*?["):
        problems = [Path(p) for p in glob.glob(str(path)) if Path(p).is_file() and not is_domain_file(p)]
    else:
        problems = []
        bundled = _bundled(spec)
        if bundled:
            tasks = bundled if limit is None else bundled[:limit]
            return [TaskSpec(t.instance_id, t.domain_path, t.problem_path, i) for i, t in enumerate(tasks)]
    if not problems:
        raise ValueError(f"no problem files found for --tasks {spec!r}" + _did_you_mean(spec, path))
    problems.sort(key=lambda p: natural_key(p.name))
    if limit is not None:
        problems = problems[:limit]
    tasks = []
    ids: set[str] = set()
    for i, problem in enumerate(problems):
        dom = Path(domain) if domain else problem.parent / "domain.pddl"
        if not dom.is_file():
            raise ValueError(f"no domain file for {problem}: expected {dom}; give one with --domain")
        instance_id = problem.stem
        if instance_id in ids:
            raise ValueError(f"two problem files share the id {instance_id!r}")
        ids.add(instance_id)
        tasks.append(TaskSpec(instance_id, dom.resolve(), problem.resolve(), i))
    return tasks


def _bundled(spec: str) -> list[TaskSpec]:
    from pypddlengine.bundled import bundled_task, bundled_tasks
    from pypddlengine.errors import PDDLError

    names = bundled_tasks(spec) if "/" not in spec else [spec]
    out = []
    for name in names:
        try:
            dom, prob = bundled_task(name)
        except PDDLError:
            return []
        out.append(TaskSpec(name.replace("/", "-"), dom, prob))
    return out
