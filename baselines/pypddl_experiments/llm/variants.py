"""Experiment variants: relabelled tasks (the memorisation test) and partial observability.

* ``relabel_seed``: every task runs on a relabelled copy (:mod:`pypddlengine.relabel`;
  the tasks that share a domain file share one mapping). The copies are written
  under the results folder (``relabelled/seed-N/``). The model sees only the
  copy; its plan is mapped back to the original names and validated on the
  original task, so records and reports score the original task.
* ``observation``: the agentic session hides atoms by these rules (pinned on
  ``initialise_session``), and the problem shown in the prompt lists only the
  initial facts the rules let the agent see.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from pypddlengine.errors import PDDLError
from pypddlengine.grounding import ground
from pypddlengine.loading import load_domain, load_problem
from pypddlengine.model import Atom
from pypddlengine.printer import format_problem
from pypddlengine.relabel import MAPPING_FILE, Relabelling, relabelled_files
from pypddlengine.session import Session
from pypddlengine.syntax import parse_action_ref
from pypddlengine.validate import validate_plan

from .outcome import MethodResult
from .tasks import TaskSpec

__all__ = ["Relabelled", "map_back", "observed_problem_text", "relabel_tasks"]

Relabelled = dict[str, tuple[TaskSpec, Relabelling]]
"""Original instance id -> the copy's task and the mapping."""


def relabel_tasks(tasks: list[TaskSpec], seed: int, folder: Path) -> Relabelled:
    """Write relabelled copies of ``tasks`` into ``folder/seed-N/`` (one
    subfolder per domain file) and return them by instance id.
    Deterministic: the same tasks and seed write the same files."""
    groups: dict[Path, list[TaskSpec]] = {}
    for t in tasks:
        groups.setdefault(t.domain_path.resolve(), []).append(t)
    out: Relabelled = {}
    for n, (domain_path, group) in enumerate(sorted(groups.items()), 1):
        sources = [(t.problem_path.name, load_problem(t.problem_path)) for t in group]
        files, mapping = relabelled_files((domain_path.name, load_domain(domain_path)), sources, seed)
        where = folder / f"seed-{seed}" / f"domain-{n}"
        where.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (where / name).write_text(text)
        copies = json.loads(files[MAPPING_FILE])["files"]["problems"]
        for t in group:
            out[t.instance_id] = (TaskSpec(t.instance_id, where / "domain.pddl", where / copies[t.problem_path.name],
                                           t.order), mapping)
    return out


def map_back(result: MethodResult, original: TaskSpec, copy: TaskSpec,
             mapping: Relabelling) -> tuple[MethodResult, dict[str, Any]]:
    """The run's result with its plan in the original names, and what the
    record keeps about the copy (``plan_valid_on_original``: our validator's
    verdict on the mapped plan and the original task; ``None`` when there is
    no plan or it names something the copy does not have)."""
    info: dict[str, Any] = {"seed": mapping.seed, "domain": str(copy.domain_path), "problem": str(copy.problem_path),
                            "plan_copy": result.plan, "plan_valid_on_original": None}
    if result.plan is None:
        return result, info
    try:
        plan = mapping.map_plan([parse_action_ref(step) for step in result.plan], reverse=True)
    except PDDLError:
        return result, info
    info["plan_valid_on_original"] = validate_plan(original.lifted, plan).valid
    return dataclasses.replace(result, plan=plan), info


def observed_problem_text(task: TaskSpec, rules: str) -> str:
    """The problem with only the initial facts that ``rules`` let the agent see
    (other facts, such as numeric ones, are kept), after a PDDL comment saying
    so; raises ``PDDLError`` for bad rules."""
    session = Session(ground(task.lifted), observation=rules)
    seen = {a.lower() for a in session.state_atoms()}
    problem = load_problem(task.problem_path)
    init = tuple(f for f in problem.init if not isinstance(f, Atom) or str(f).lower() in seen)
    note = (f"; partial observability ({session.observation.text if session.observation else 'none'}): the "
            "initial facts below and every state the simulator returns show only what can be seen; actions "
            "apply, and the goal is checked, on the full state\n")
    return note + format_problem(dataclasses.replace(problem, init=init))
