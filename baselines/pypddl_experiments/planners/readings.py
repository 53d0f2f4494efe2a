"""Which plan of an anytime Fast Downward run a report scores.

seq-sat-lama-2011 is an anytime configuration: it writes ``sas_plan.1``,
``sas_plan.2``, ... each shorter than the last, until its budget ends. A run
record keeps every plan file with the time it was completed
(``planner.plans``: ``time_s``, ``length``, ``complete``, ``before_deadline``,
``valid``), so one run can be scored several ways. A *reading* names the way:

``best`` (default)
    the last valid plan completed within the budget: what the planner returns
    and what the record's ``plan_length`` holds.
``first``
    the first valid plan it completed (its first search iteration's plan).
``first-if-exited``
    the first valid plan when the planner ended by itself before the budget
    (it proved its last plan optimal, or ran out of search), the best one
    when it was stopped at the budget. Not a planner behaviour: a way a
    harness can read the run (one that takes the planner's first answer when
    it returns, and the last plan file when it has to kill it). It is the
    reading under which our 23.06 records reproduce the paper's Table I on
    blocks 0-10 (see ``docs/reference/README.md``); a hypothesis about
    the paper's harness, not a claim.
``at:SECONDS``
    the last valid plan completed within SECONDS of the start: the same run
    read with a shorter budget (a task without a plan by then counts as a
    timeout). Plan times are wall-clock seconds on the machine that ran the
    record, so ``at:T`` answers "what would a T-second budget have returned
    here".

:func:`apply_reading` turns a record into the record that reading implies
(plan length and outcome), so every table is computed from records in one
way, whatever the reading. Records of a one-plan configuration (lama-first)
read the same under ``best`` and ``first``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["READINGS", "Reading", "apply_reading", "parse_reading"]

READINGS = {
    "best": "the last valid plan completed within the budget (what the planner returns)",
    "first": "the first valid plan completed (the first search iteration's plan)",
    "first-if-exited": "the first valid plan when the planner ended by itself before the budget, the best one "
                       "when it was stopped at the budget",
    "at:SECONDS": "the last valid plan completed within SECONDS of the start (the same run, read with a shorter "
                  "budget; no plan by then counts as a timeout)",
}


@dataclass(frozen=True)
class Reading:
    """A parsed reading: ``kind`` is ``best``, ``first``, ``first-if-exited`` or ``at``;
    ``seconds`` is set for ``at``."""

    kind: str
    seconds: float | None = None

    @property
    def name(self) -> str:
        return f"at:{self.seconds:g}" if self.kind == "at" else self.kind

    @property
    def description(self) -> str:
        if self.kind == "at":
            return f"the last valid plan completed within {self.seconds:g} s of the start"
        return READINGS[self.kind]


def parse_reading(text: str) -> Reading:
    """``best``, ``first``, ``first-if-exited`` or ``at:SECONDS`` (a positive number)."""
    value = text.strip().lower()
    if value in ("best", "first", "first-if-exited"):
        return Reading(value)
    if value.startswith("at:"):
        try:
            seconds = float(value[3:])
        except ValueError:
            seconds = math.nan
        if not math.isfinite(seconds) or seconds <= 0:
            raise ValueError(f"'{text}': at:SECONDS needs a positive number of seconds, e.g. at:60")
        return Reading("at", seconds)
    raise ValueError(f"unknown plan reading '{text}'; use best, first, first-if-exited or at:SECONDS")


def _valid_plans(record: dict[str, Any]) -> list[dict[str, Any]]:
    plans = (record.get("planner") or {}).get("plans") or []
    return [p for p in plans if p.get("complete") and p.get("before_deadline") and p.get("valid") is True]


def apply_reading(record: dict[str, Any], reading: Reading) -> dict[str, Any]:
    """``record`` as ``reading`` scores it: a copy whose ``plan_length`` and
    ``outcome`` are those of the plan the reading picks (``plan`` is kept
    only when it is that plan, i.e. under ``best``), with ``reading`` naming
    the reading. ``best`` returns the record itself."""
    if reading.kind == "best":
        return record
    out = dict(record)
    out["reading"] = reading.name
    plans = _valid_plans(record)
    if reading.kind == "first":
        chosen = plans[0] if plans else None
    elif reading.kind == "first-if-exited":
        killed = bool((record.get("planner") or {}).get("killed_at_deadline"))
        chosen = (plans[-1] if killed else plans[0]) if plans else None
    else:
        within = [p for p in plans if float(p.get("time_s", math.inf)) <= float(reading.seconds or 0)]
        chosen = within[-1] if within else None
    if chosen is None:
        out["plan"] = None
        out["plan_length"] = None
        out["plan_valid"] = None
        if record.get("outcome") == "solved" or reading.kind == "at":
            out["outcome"] = "timeout"
            out["outcome_detail"] = f"no valid plan under reading {reading.name}"
        return out
    out["plan_length"] = int(chosen["length"])
    out["plan_valid"] = True
    out["outcome"] = "solved"
    if chosen is not plans[-1]:
        out["plan"] = None  # the record keeps only the returned plan's actions
    return out
