"""Fast Downward run records (``pypddl.run/1``).

The record schema is shared with the LLM harness (its keys are those of
:func:`pypddl_experiments.llm.runner.build_record`): the same keys in the
same meaning, ``null`` where a key does not apply to a planner (``agent``,
``llm``, ``usage``, ``attempts``). Planner facts go under ``planner`` (the
schema's ``alias``, ``returncode``, ``plans_found``, ``last_plan_s`` first,
then ours), run facts that are not in the schema under ``extra``.

The file side (the crash-safe, locked :class:`RecordWriter`, the tolerant
:func:`read_records`, the resume key) lives in :mod:`pypddl_experiments.runs.records`,
shared with the harness, and is re-exported here.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import pypddlengine
from pypddl_experiments.runs.records import (
    RUN_SCHEMA,
    ReadResult,
    RecordsLocked,
    RecordWriter,
    environment_fields,
    read_records,
    record_key,
    utc_now,
)
from pypddl_experiments.runs.tasks import TaskRef

from .enhsp import enhsp_provenance
from .fd import VALIDATOR_ENGINE, FDResult, fd_provenance, fd_version
from .outcomes import record_outcome
from .temporal import temporal_provenance

__all__ = [
    "SCHEMA",
    "ReadResult",
    "RecordWriter",
    "RecordsLocked",
    "environment",
    "make_record",
    "read_records",
    "record_key",
    "utc_now",
]

SCHEMA = RUN_SCHEMA  # the name this module has always used


def environment() -> dict[str, Any]:
    """The ``env`` block of a run, computed by the process that ran it (a
    Ray worker's host, Fast Downward and commit, not the driver's)."""
    return {**environment_fields(), "sdk": {"up-fast-downward": fd_version(), "up-enhsp": enhsp_provenance()["wheel"]},
            "fast_downward": fd_provenance(),
            "cpu_count": os.cpu_count()}


def make_record(
    result: FDResult,
    task: TaskRef,
    *,
    replicate: int,
    started_at: str,
    env: dict[str, Any],
    experiment_id: str | None = None,
    crosscheck: bool | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``pypddl.run/1`` record of one Fast Downward run."""
    outcome, detail = record_outcome(result.outcome)
    if result.plan is not None and result.plan_valid is False:
        outcome, detail = "error", "invalid_final"
    config = result.config
    planner: dict[str, Any] = {
        "alias": config.alias,
        "returncode": result.returncode,
        "plans_found": sum(1 for p in result.plans if p.complete),
        "last_plan_s": result.last_plan_s,
        "config": config.name,
        "search": config.search,
        "outcome": result.outcome.value,
        "detail": result.detail,
        "killed_at_deadline": result.killed,
        "group_cleaned": result.group_cleaned,
        "memory_limit_mb": result.memory_mb,
        "plans": [p.to_dict() for p in result.plans],
    }
    if config.planner == "enhsp":
        planner["name"] = "enhsp"
        planner["enhsp"] = enhsp_provenance()
    elif config.timed:
        planner["name"] = config.planner
        planner[config.planner] = temporal_provenance(config.planner)
    else:
        planner.update(fd_version=fd_version(), fd_release=fd_provenance()["release"],
                       fd_revision=fd_provenance()["git_revision"])
    if result.outcome.value not in ("solved", "timeout"):
        planner["log_tail"] = result.log_tail
    if result.workdir:
        planner["workdir"] = result.workdir
    return {
        "schema": SCHEMA,
        "experiment_id": experiment_id,
        "run_id": str(uuid.uuid4()),
        "method": config.method,
        "instance_id": task.instance_id,
        "domain_sha256": task.domain_sha256,
        "problem_sha256": task.problem_sha256,
        "replicate": replicate,
        "started_at": started_at,
        "wall_s": result.wall_s,
        "budget_s": result.time_limit,
        "outcome": outcome,
        "outcome_detail": detail,
        "plan": list(result.plan) if result.plan is not None else None,
        "plan_length": result.plan_length,
        "plan_valid": result.plan_valid,
        "validator": _validator(result),
        "crosscheck_valid": crosscheck,
        "attempts": None,
        "agent": None,
        "llm": None,
        "usage": None,
        "planner": planner,
        "contaminated": False,
        "errors": [],
        "trace_file": None,
        "env": env,
        "extra": {"domain": str(task.domain), "problem": str(task.problem), **(extra or {})},
    }


def _validator(result: FDResult) -> dict[str, Any]:
    """Who judged the returned plan: the engine (with its version), VAL where
    the engine does not support the task (``engine_gap`` says why), or nobody
    (``name`` None)."""
    if result.plan is not None:  # noqa: SIM108 (two cases read better apart)
        name = result.validator
    else:
        name = None if result.engine_gap else VALIDATOR_ENGINE
    out: dict[str, Any] = {"name": name, "version": pypddlengine.__version__ if name == VALIDATOR_ENGINE else None,
                           "message": result.validation}
    if result.engine_gap:
        out["engine_gap"] = result.engine_gap
    return out
