"""Wall-clock budgets with an injectable clock.

A run's budget covers everything after the run starts: model latency, SDK
retries, waits after rate limits, tool calls and validation. Each model call
gets the remaining budget as its timeout. Tests pass a :class:`FakeClock` so a
180 s budget can run out instantly.
"""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["BudgetExhausted", "Clock", "Deadline", "FakeClock"]

Clock = Callable[[], float]


class BudgetExhausted(Exception):
    """The run's wall-clock budget ran out. ``detail`` is the record's
    ``outcome_detail``: ``budget_exhausted``, or ``rate_limited`` when the
    wait a rate limit (or overload) asked for would have passed the deadline
    (the run is then flagged contaminated: it did not get its budget)."""

    def __init__(self, message: str, *, detail: str = "budget_exhausted") -> None:
        super().__init__(message)
        self.detail = detail


class Deadline:
    """``budget_s`` seconds from construction, measured on ``clock``."""

    def __init__(self, budget_s: float, clock: Clock = time.monotonic) -> None:
        if budget_s <= 0:
            raise ValueError(f"the budget must be positive, not {budget_s}")
        self.budget_s = float(budget_s)
        self.clock = clock
        self.start = clock()

    def elapsed(self) -> float:
        return self.clock() - self.start

    def remaining(self) -> float:
        return max(0.0, self.budget_s - self.elapsed())

    def expired(self) -> bool:
        return self.remaining() <= 0.0

    def check(self) -> float:
        """The remaining seconds; :class:`BudgetExhausted` when none are left."""
        left = self.remaining()
        if left <= 0.0:
            raise BudgetExhausted(f"budget of {self.budget_s:g} s exhausted")
        return left


class FakeClock:
    """A manual clock for tests: time moves only when :meth:`advance` is called."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += float(seconds)
