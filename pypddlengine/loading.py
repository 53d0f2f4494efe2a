"""Reading PDDL files: the only place the engine touches the file system."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ErrorCode, InputTooLargeError, PDDLError
from .lifted import LiftedTask, compile_task
from .model import Domain, Plan, Problem
from .syntax import MAX_INPUT_BYTES, parse_domain, parse_plan, parse_problem
from .validate import ValidationReport, validate_plan

if TYPE_CHECKING:  # the session and grounder load only when a session is opened
    from .grounding import GroundingOptions
    from .session import FeedbackLevel, Session

__all__ = ["load_domain", "load_plan", "load_problem", "load_task", "open_session", "read_file", "validate_files"]

PathLike = str | os.PathLike[str]


def read_file(path: PathLike, *, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of ``path``; a missing, unreadable or oversized file is a
    :class:`PDDLError` (code ``FILE_NOT_FOUND`` or ``INPUT_TOO_LARGE``)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > max_bytes:
            raise InputTooLargeError(
                f"{p} is {size:,} bytes, more than the limit of {max_bytes:,}",
                details={"size": size, "limit": max_bytes},
            )
        return p.read_bytes()
    except PDDLError:
        raise
    except IsADirectoryError:
        raise PDDLError(f"{p} is a directory, not a file", code=ErrorCode.FILE_NOT_FOUND) from None
    except FileNotFoundError:
        raise PDDLError(f"no such file: {p}", code=ErrorCode.FILE_NOT_FOUND) from None
    except OSError as err:
        raise PDDLError(f"cannot read {p}: {err.strerror or err}", code=ErrorCode.FILE_NOT_FOUND) from None


def load_domain(path: PathLike, *, max_bytes: int = MAX_INPUT_BYTES) -> Domain:
    return parse_domain(read_file(path, max_bytes=max_bytes), filename=str(path), max_bytes=max_bytes)


def load_problem(path: PathLike, *, max_bytes: int = MAX_INPUT_BYTES) -> Problem:
    return parse_problem(read_file(path, max_bytes=max_bytes), filename=str(path), max_bytes=max_bytes)


def load_plan(path: PathLike) -> Plan:
    return parse_plan(read_file(path), filename=str(path))


def load_task(domain: PathLike, problem: PathLike, *, max_bytes: int = MAX_INPUT_BYTES) -> LiftedTask:
    """Parse and check a domain and problem file into a :class:`LiftedTask`."""
    return compile_task(load_domain(domain, max_bytes=max_bytes), load_problem(problem, max_bytes=max_bytes))


def open_session(
    domain: PathLike,
    problem: PathLike,
    *,
    feedback: FeedbackLevel | str | int = "plain",
    options: GroundingOptions | None = None,
    max_bytes: int = MAX_INPUT_BYTES,
) -> Session:
    """A :class:`Session` on a domain and problem file."""
    from .grounding import DEFAULT_OPTIONS, ground
    from .session import Session

    lifted = load_task(domain, problem, max_bytes=max_bytes)
    return Session(ground(lifted, options or DEFAULT_OPTIONS), feedback=feedback)


def validate_files(domain: PathLike, problem: PathLike, plan: PathLike) -> ValidationReport:
    """Validate a plan file against a domain and problem file."""
    return validate_plan(load_task(domain, problem), load_plan(plan))
