"""Finding the tasks of a benchmark directory (or the bundled ones).

A directory is read like this:

* with ``domains/`` and ``problems/`` sub-folders, it is laid out like the
  bundled tasks: ``domains/<d>.pddl`` and ``problems/<d>/<name>.pddl``, task
  ids ``<d>/<name>``;
* otherwise every folder below it (itself included) that holds ``.pddl``
  files is a set of tasks: each file is classified as a domain or a problem
  by its ``(define (domain ...`` / ``(define (problem ...`` head. With one
  domain in the folder, every problem uses it; with several, a problem uses
  the domain file named after it (``p01-domain.pddl``, ``domain_p01.pddl``,
  ``p01_domain.pddl`` or ``domain-p01.pddl``).

Task ids are the problem file stems (``instance-7``) when all tasks sit in
one folder, else ``<folder>/<stem>`` relative to the directory. Tasks are in
natural order (``instance-2`` before ``instance-10``): the benchmark order of
numbered collections such as the IPC-2000 Blocksworld set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pypddl_experiments.runs.records import sha256_file
from pypddlengine.task import natural_key

__all__ = ["TaskRef", "bundled", "discover", "natural_key", "select"]

_HEAD = re.compile(rb"\(\s*define\s*\(\s*(domain|problem)\b", re.IGNORECASE)


@dataclass(frozen=True)
class TaskRef:
    """One task: its id and its two files (absolute paths)."""

    instance_id: str
    domain: Path
    problem: Path
    _hashes: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def _hash(self, which: str) -> str:
        if which not in self._hashes:
            self._hashes[which] = sha256_file(self.domain if which == "domain" else self.problem)
        return self._hashes[which]

    @property
    def domain_sha256(self) -> str:
        return self._hash("domain")

    @property
    def problem_sha256(self) -> str:
        return self._hash("problem")


def _kind(path: Path) -> str | None:
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    # drop ';' comments before looking for the head
    text = re.sub(rb";[^\n]*", b"", head)
    m = _HEAD.search(text)
    return m.group(1).decode().lower() if m else None


def _domain_for(problem: Path, domains: list[Path]) -> Path | None:
    if len(domains) == 1:
        return domains[0]
    stem = problem.stem
    names = {f"{stem}-domain.pddl", f"domain_{stem}.pddl", f"{stem}_domain.pddl", f"domain-{stem}.pddl"}
    for d in domains:
        if d.name in names:
            return d
    return None


def _bundled_layout(root: Path) -> list[TaskRef]:
    tasks = []
    for domain in sorted((root / "domains").glob("*.pddl"), key=lambda p: natural_key(p.stem)):
        folder = root / "problems" / domain.stem
        for problem in sorted(folder.glob("*.pddl"), key=lambda p: natural_key(p.stem)):
            tasks.append(TaskRef(f"{domain.stem}/{problem.stem}", domain.resolve(), problem.resolve()))
    return tasks


def discover(root: str | Path) -> list[TaskRef]:
    """The tasks under ``root`` (see the module docstring). Raises
    ``ValueError`` when a problem has no domain or nothing is found."""
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"not a directory: {root}")
    if (root / "domains").is_dir() and (root / "problems").is_dir():
        tasks = _bundled_layout(root)
        if not tasks:
            raise ValueError(f"no tasks in {root}/problems/<domain>/*.pddl")
        return tasks
    found: list[tuple[Path, Path]] = []
    unmatched: list[Path] = []
    folders = sorted({p.parent for p in root.rglob("*.pddl")}, key=lambda p: natural_key(str(p.relative_to(root))))
    for folder in folders:
        files = sorted(folder.glob("*.pddl"), key=lambda p: natural_key(p.stem))
        kinds = {p: _kind(p) for p in files}
        domains = [p for p in files if kinds[p] == "domain"]
        for problem in (p for p in files if kinds[p] == "problem"):
            domain = _domain_for(problem, domains)
            if domain is None:
                unmatched.append(problem)
            else:
                found.append((domain, problem))
    if unmatched:
        shown = ", ".join(str(p.relative_to(root)) for p in unmatched[:5])
        raise ValueError(f"no domain file found for {len(unmatched)} problem(s): {shown}")
    if not found:
        raise ValueError(f"no PDDL problems found under {root}")
    one_folder = len({p.parent for _, p in found}) == 1
    tasks = []
    for domain, problem in found:
        ident = problem.stem if one_folder else str(problem.parent.relative_to(root) / problem.stem)
        tasks.append(TaskRef(ident, domain.resolve(), problem.resolve()))
    return tasks


def bundled(names: list[str] | None = None) -> list[TaskRef]:
    """The bundled tasks (all, or those named ``<domain>/<name>``)."""
    from pypddlengine.bundled import bundled_task, bundled_tasks

    chosen = names if names else bundled_tasks()
    out = []
    for name in chosen:
        d, p = bundled_task(name)
        out.append(TaskRef(name, d.resolve(), p.resolve()))
    return out


def select(tasks: list[TaskRef], pattern: str | None = None, limit: int | None = None) -> list[TaskRef]:
    """Tasks whose id matches the regular expression ``pattern`` (searched,
    not anchored), then the first ``limit`` of them."""
    if pattern:
        rx = re.compile(pattern)
        tasks = [t for t in tasks if rx.search(t.instance_id)]
    if limit is not None:
        tasks = tasks[: max(limit, 0)]
    return tasks
