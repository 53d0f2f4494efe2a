"""Which planner runs a configuration: Fast Downward (classical), ENHSP
(numeric) or a temporal planner (LPG, TAMER: :mod:`.temporal`).
``resolve_planner`` reads a ``--planner`` spelling, ``auto`` picks by task
(the measured temporal default for a temporal task, ENHSP for a task with
numeric fluents, lama-first otherwise), and ``run_planner`` runs any of them
under the same wall-clock guard."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .enhsp import ENHSP_CONFIGS, run_enhsp
from .fd import CONFIGS, FDResult, PlannerConfig, resolve_config, run_fd
from .temporal import JUDGE_EPSILON, TEMPORAL_CONFIGS, TEMPORAL_DEFAULT, is_temporal_task, run_temporal

__all__ = ["AUTO", "crosscheck_epsilon", "is_numeric_task", "planner_for", "resolve_planner", "run_planner"]

AUTO = "auto"


def resolve_planner(spec: str, *, check_alias: bool = True) -> PlannerConfig:
    """A configuration from its command-line spelling: an ENHSP configuration
    name, or anything :func:`~.fd.resolve_config` reads."""
    text = spec.strip()
    if text in ENHSP_CONFIGS:
        return ENHSP_CONFIGS[text]
    if text in TEMPORAL_CONFIGS:
        return TEMPORAL_CONFIGS[text]
    return resolve_config(text, check_alias=check_alias)


def is_numeric_task(domain: str | os.PathLike[str], problem: str | os.PathLike[str]) -> bool:
    """Whether the task uses numeric fluents beyond action costs (False when
    it cannot be read: the planner run then reports the input error)."""
    from pypddlengine.checker import check
    from pypddlengine.errors import PDDLError
    from pypddlengine.syntax import parse_domain, parse_problem

    try:
        d = parse_domain(Path(domain).read_bytes(), filename=str(domain))
        p = parse_problem(Path(problem).read_bytes(), filename=str(problem))
    except (OSError, PDDLError):
        return False
    return "numeric-fluents" in check(d, p).features


def planner_for(spec: str, domain: str | os.PathLike[str], problem: str | os.PathLike[str]) -> PlannerConfig:
    """``spec``'s configuration; for ``auto``, the temporal default on
    temporal tasks, ENHSP on numeric tasks and lama-first on the others."""
    if spec.strip() == AUTO:
        if is_temporal_task(domain, problem):
            return TEMPORAL_CONFIGS[TEMPORAL_DEFAULT]
        return ENHSP_CONFIGS["enhsp"] if is_numeric_task(domain, problem) else CONFIGS["lama-first"]
    return resolve_planner(spec)


def crosscheck_epsilon(config: PlannerConfig) -> float | None:
    """VAL's tolerance for ``--crosscheck`` of ``config``'s plans: the IPC's
    0.001 for timed plans (:data:`~.temporal.JUDGE_EPSILON`), VAL's default otherwise."""
    return JUDGE_EPSILON if config.timed else None


def run_planner(domain: str | os.PathLike[str], problem: str | os.PathLike[str], config: PlannerConfig,
                **options: Any) -> FDResult:
    """Run the planner of ``config`` (see :func:`~.fd.run_fd`, :func:`~.enhsp.run_enhsp`,
    :func:`~.temporal.run_temporal`)."""
    if config.timed:
        return run_temporal(domain, problem, config, **options)
    if config.planner == "enhsp":
        return run_enhsp(domain, problem, config, **options)
    return run_fd(domain, problem, config, **options)
