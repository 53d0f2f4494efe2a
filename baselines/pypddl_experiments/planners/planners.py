"""Which planner runs a configuration: Fast Downward (classical) or ENHSP
(numeric). ``resolve_planner`` reads a ``--planner`` spelling, ``auto``
picks by task (ENHSP for a task with numeric fluents, lama-first otherwise),
and ``run_planner`` runs either under the same wall-clock guard."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .enhsp import ENHSP_CONFIGS, run_enhsp
from .fd import CONFIGS, FDResult, PlannerConfig, resolve_config, run_fd

__all__ = ["AUTO", "is_numeric_task", "planner_for", "resolve_planner", "run_planner"]

AUTO = "auto"


def resolve_planner(spec: str, *, check_alias: bool = True) -> PlannerConfig:
    """A configuration from its command-line spelling: an ENHSP configuration
    name, or anything :func:`~.fd.resolve_config` reads."""
    text = spec.strip()
    if text in ENHSP_CONFIGS:
        return ENHSP_CONFIGS[text]
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
    """``spec``'s configuration; for ``auto``, ENHSP on numeric tasks and
    lama-first on the others."""
    if spec.strip() == AUTO:
        return ENHSP_CONFIGS["enhsp"] if is_numeric_task(domain, problem) else CONFIGS["lama-first"]
    return resolve_planner(spec)


def run_planner(domain: str | os.PathLike[str], problem: str | os.PathLike[str], config: PlannerConfig,
                **options: Any) -> FDResult:
    """Run the planner of ``config`` (see :func:`~.fd.run_fd`, :func:`~.enhsp.run_enhsp`)."""
    if config.planner == "enhsp":
        return run_enhsp(domain, problem, config, **options)
    return run_fd(domain, problem, config, **options)
