"""Loading tasks and plans from files or text (reading itself is in
:mod:`pypddlengine.sources`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Literal, overload

from .lifted import load_task
from .model import Domain, Plan, Problem
from .sources import PathLike, PDDLSource, is_pddl_text, read_file, read_source
from .syntax import MAX_INPUT_BYTES, parse_domain, parse_plan, parse_problem
from .validate import ValidationReport, validate_plan

if TYPE_CHECKING:  # the session and grounder load only when a session is opened
    from pathlib import Path  # (and pathlib only for folders: `pypddl validate` of one plan needs none)

    from .session import Session
    from .temporal_session import TemporalSession

__all__ = [
    "PDDLSource",
    "is_domain_file",
    "is_pddl_text",
    "load_domain",
    "load_plan",
    "load_problem",
    "load_task",
    "open_session",
    "problem_files",
    "read_file",
    "read_source",
    "validate_files",
]

def is_domain_file(path: PathLike) -> bool:
    """Whether a file in a folder of tasks is a domain (its name starts with
    ``domain``, as in the IPC layouts), not a problem."""
    return os.path.splitext(os.path.basename(path))[0].lower().startswith("domain")


def problem_files(folder: PathLike) -> list[Path]:
    """The problem files of a folder: every ``*.pddl`` that is not a domain
    file, in natural order of their names (``p2`` before ``p10``)."""
    from pathlib import Path

    from .task import natural_key

    return sorted((p for p in Path(folder).glob("*.pddl") if not is_domain_file(p)), key=lambda p: natural_key(p.name))


def load_domain(path: PathLike, *, max_bytes: int = MAX_INPUT_BYTES) -> Domain:
    return parse_domain(read_file(path, max_bytes=max_bytes), filename=str(path), max_bytes=max_bytes)


def load_problem(path: PathLike, *, max_bytes: int = MAX_INPUT_BYTES) -> Problem:
    return parse_problem(read_file(path, max_bytes=max_bytes), filename=str(path), max_bytes=max_bytes)


def load_plan(path: PathLike) -> Plan:
    return parse_plan(read_file(path), filename=str(path))


@overload
def open_session(domain: PDDLSource, problem: PDDLSource, *, temporal: Literal[False], **options: Any) -> Session: ...


@overload
def open_session(domain: PDDLSource, problem: PDDLSource, *, temporal: bool = True,
                 **options: Any) -> Session | TemporalSession: ...


def open_session(domain: PDDLSource, problem: PDDLSource, *, temporal: bool = True,
                 **options: Any) -> Session | TemporalSession:
    """A :class:`Session` on a domain and problem, each a file path or PDDL
    text (see :data:`PDDLSource`): :func:`pypddlengine.session.open_session`,
    the one way from files or text to a session, with the same ``options``
    (``backend``: ``"auto"``, ``"grounded"``, ``"lifted"``, see
    :func:`pypddlengine.session.build_backend`; ``options``: the grounding
    limits; ``max_bytes``; ``feedback``, ``heuristic``, ``proof_budget``,
    ``landmarks``, ``detect_loops``, ``observation`` as in :class:`Session`).
    The session and the grounder are imported only here.

    A temporal task (durative actions, timed initial literals) opens a
    :class:`~pypddlengine.temporal_session.TemporalSession` instead
    (:func:`~pypddlengine.temporal_session.open_temporal_session`; ``epsilon``
    is VAL's ``-t`` there, and options only a classical session takes are
    refused), see docs/time.md; with ``temporal=False`` it is refused
    (``UNSUPPORTED_REQUIREMENT``, as the gym adapter does) and the result is
    always a :class:`Session`."""
    from . import session
    from .errors import UnsupportedRequirementError
    from .temporal_session import needs_time, open_temporal_session

    epsilon = options.pop("epsilon", None)
    if not temporal:
        return session.open_session(domain, problem, **options)
    try:
        return session.open_session(domain, problem, **options)
    except UnsupportedRequirementError as err:
        if not needs_time(err):
            raise

    return open_temporal_session(domain, problem, **options, **({} if epsilon is None else {"epsilon": epsilon}))


def validate_files(domain: PathLike, problem: PathLike, plan: PathLike) -> ValidationReport:
    """Validate a plan file against a domain and problem file."""
    return validate_plan(load_task(domain, problem), load_plan(plan))
