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

from ..errors import PDDLError
from ..grounding import ground
from ..loading import load_domain, load_problem
from ..model import Atom
from ..printer import format_domain, format_problem
from ..relabel import Relabelling, relabel
from ..session import Session
from ..syntax import parse_action_ref
from ..validate import validate_plan
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
        new_domain, new_problems, mapping = relabel(load_domain(domain_path),
                                                    [load_problem(t.problem_path) for t in group], seed)
        where = folder / f"seed-{seed}" / f"domain-{n}"
        where.mkdir(parents=True, exist_ok=True)
        (where / "domain.pddl").write_text(format_domain(new_domain))
        files: dict[str, str] = {}
        for t, problem in zip(group, new_problems, strict=True):
            name = problem.name
            while f"{name}.pddl" in files.values():  # problems that share a name still get a file each
                name += "-x"
            files[t.instance_id] = f"{name}.pddl"
            (where / files[t.instance_id]).write_text(format_problem(problem))
            copy = TaskSpec(t.instance_id, where / "domain.pddl", where / files[t.instance_id], t.order)
            out[t.instance_id] = (copy, mapping)
        mapping_data = {**mapping.to_json(), "files": {"domain": str(domain_path), "problems": files}}
        (where / "mapping.json").write_text(json.dumps(mapping_data, indent=1) + "\n")
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
    (other facts, such as numeric ones, are kept); raises ``PDDLError`` for bad rules."""
    session = Session(ground(task.lifted), observation=rules)
    seen = {a.lower() for a in session.state_atoms()}
    problem = load_problem(task.problem_path)
    init = tuple(f for f in problem.init if not isinstance(f, Atom) or str(f).lower() in seen)
    return format_problem(dataclasses.replace(problem, init=init))
