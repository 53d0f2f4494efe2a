"""What a planner run came to, and how Fast Downward's exit codes map onto it.

Fast Downward's driver documents its exit codes in ``driver/returncodes.py``
(facts used here, no code taken): 0 solved; 1/2/3 a plan was found, then the
search ran out of memory / time / both; 10/11 the translator / the search
proved the task unsolvable; 12 the search ended without a plan and without a
proof (incomplete search); 13 unsolvable within the given cost bound; 20/21
the translator ran out of memory / time; 22/23/24 the search ran out of
memory / time / both; 30-37 errors (31, 33, 36 input errors; 34, 37
unsupported features; 30, 32, 35 critical errors). Our wall-clock guard
kills the process group, which shows up as a negative return code (-9).

The planner-level :class:`Outcome` is finer than the run record's
``outcome`` field (``solved|timeout|early_exit|error``, the schema shared
with the LLM harness); :func:`record_outcome` maps one onto the other.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Outcome", "classify_returncode", "describe_returncode", "record_outcome"]


class Outcome(StrEnum):
    SOLVED = "solved"
    TIMEOUT = "timeout"
    OUT_OF_MEMORY = "out_of_memory"
    UNSOLVABLE = "unsolvable"  # the planner proved that no plan exists
    INCOMPLETE = "incomplete"  # the search gave up without a plan and without a proof
    INPUT_ERROR = "input_error"
    PLANNER_ERROR = "planner_error"
    INTERRUPTED = "interrupted"  # stopped by us (Ctrl-C); never written as a record


# exit code -> (outcome when no valid plan was returned, short description)
_CODES: dict[int, tuple[Outcome, str]] = {
    0: (Outcome.PLANNER_ERROR, "exit 0 (solved)"),
    1: (Outcome.OUT_OF_MEMORY, "plan found, then out of memory"),
    2: (Outcome.TIMEOUT, "plan found, then out of time"),
    3: (Outcome.OUT_OF_MEMORY, "plan found, then out of memory and time"),
    10: (Outcome.UNSOLVABLE, "translator proved the task unsolvable"),
    11: (Outcome.UNSOLVABLE, "search proved the task unsolvable"),
    12: (Outcome.INCOMPLETE, "search ended without a plan (incomplete search)"),
    13: (Outcome.INCOMPLETE, "no plan within the cost bound"),
    20: (Outcome.OUT_OF_MEMORY, "translator out of memory"),
    21: (Outcome.TIMEOUT, "translator out of CPU time"),
    22: (Outcome.OUT_OF_MEMORY, "search out of memory"),
    23: (Outcome.TIMEOUT, "search out of CPU time"),
    24: (Outcome.OUT_OF_MEMORY, "search out of memory and time"),
    30: (Outcome.PLANNER_ERROR, "translator critical error"),
    31: (Outcome.INPUT_ERROR, "translator input error (PDDL)"),
    32: (Outcome.PLANNER_ERROR, "search critical error"),
    33: (Outcome.INPUT_ERROR, "search input error"),
    34: (Outcome.INPUT_ERROR, "search configuration does not support this task"),
    35: (Outcome.PLANNER_ERROR, "driver critical error"),
    36: (Outcome.INPUT_ERROR, "driver input error (bad options or files)"),
    37: (Outcome.INPUT_ERROR, "driver: unsupported"),
}


def classify_returncode(returncode: int | None, *, killed_at_deadline: bool) -> tuple[Outcome, str]:
    """The outcome of a run that returned *no valid plan*, from its exit code.

    A run we killed at the wall-clock deadline is a timeout whatever its code;
    a negative code we did not cause (a signal, e.g. the kernel's OOM killer)
    is a planner error that names the signal."""
    if killed_at_deadline:
        return Outcome.TIMEOUT, "wall-clock budget exhausted (process group killed)"
    if returncode is None:
        return Outcome.PLANNER_ERROR, "no exit code"
    if returncode < 0:
        return Outcome.PLANNER_ERROR, f"killed by signal {-returncode}"
    if returncode in _CODES:
        outcome, text = _CODES[returncode]
        if returncode == 0:
            return outcome, "exit 0 (solved) but no complete plan file"
        if returncode in (1, 2, 3):
            return outcome, text + ", but no complete plan file"
        return outcome, text
    return Outcome.PLANNER_ERROR, f"unknown exit code {returncode}"


def describe_returncode(returncode: int | None) -> str:
    if returncode is None:
        return "not started"
    if returncode < 0:
        return f"killed by signal {-returncode}"
    return _CODES.get(returncode, (Outcome.PLANNER_ERROR, f"exit code {returncode}"))[1]


def record_outcome(outcome: Outcome) -> tuple[str, str]:
    """``(outcome, outcome_detail)`` for a ``pypddl.run/1`` record.

    A proof of unsolvability and an incomplete search both end the run before
    the budget with no plan: the paper's *early exit*. Memory, input and
    planner failures are errors; the planner-level outcome is kept in
    ``planner.outcome``."""
    return {
        Outcome.SOLVED: ("solved", "validated"),
        Outcome.TIMEOUT: ("timeout", "budget_exhausted"),
        Outcome.UNSOLVABLE: ("early_exit", "proved_unsolvable"),
        Outcome.INCOMPLETE: ("early_exit", "no_plan_found"),
        Outcome.OUT_OF_MEMORY: ("error", "out_of_memory"),
        Outcome.INPUT_ERROR: ("error", "input_error"),
        Outcome.PLANNER_ERROR: ("error", "planner_error"),
        Outcome.INTERRUPTED: ("error", "interrupted"),
    }[outcome]
