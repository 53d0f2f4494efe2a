"""Calling the model within a run's budget.

:class:`ModelCaller` is the only way the methods reach a provider. Per call it

* passes the remaining budget as the request timeout, and also stops waiting
  (in real time) shortly after it, whatever the SDK does;
* retries rate limits (HTTP 429), overload (5xx) and dropped connections
  while budget remains, honouring ``retry-after`` and never sleeping past the
  deadline; every failure is logged in the run's ``errors`` and trace, and a
  run that met a rate limit or overload is flagged ``contaminated`` (its
  timing is not comparable, so it can be rerun with ``--rerun-contaminated``);
  a rate-limit wait that would pass the deadline ends the run as a timeout
  with detail ``rate_limited``;
* treats an endpoint that cannot be reached at all (connection refused, no
  such host: a wrong ``--base-url``) as an error at once, and a connection
  that keeps failing until the budget is gone as an error too, never as a
  timeout: the model never had its budget (both are run again on resume);
* adds the call's normalised token usage to the run's totals. A call whose
  usage is unknown (cut at the deadline while the model was generating, or
  no usage sent) counts in ``unreported_calls`` and makes the run's
  ``total`` unknown (``None``), never a silent zero: ``total_known`` sums what
  was reported;
* writes an ``llm_call`` trace event with the request's digest, the messages
  new since the previous call, and the turn (or the error);
* with a shared :class:`RateGate` (runs on Ray: one gate for every worker),
  asks it before each call and tells it after a rate limit or overload, so
  one run's 429 holds back every run of the experiment; a run held back is
  flagged ``contaminated`` too (its timing is not comparable either).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from .clock import BudgetExhausted, Deadline
from .provider_base import Provider
from .records import TraceWriter
from .types import CallParams, Msg, ProviderError, ToolSpec, Turn, Usage

__all__ = ["FatalModelError", "ModelCaller", "RateGate", "UsageTotals"]

GRACE_S = 2.0
"""Real seconds allowed past the budget before a call is abandoned even if
the SDK has not timed out (a server that trickles bytes)."""


GATE_MIN_WAIT_S = 0.1
"""Shorter waits asked by the shared gate are ignored (a run's own wait after
its own rate limit leaves that much behind, from clock granularity)."""


class RateGate(Protocol):
    """Rate limits shared by the runs of an experiment: how long to hold
    back before a call, and a rate limit or overload just met."""

    async def wait_s(self) -> float: ...

    async def report(self, seconds: float) -> None: ...


class FatalModelError(Exception):
    """A model call failed in a way retrying will not fix (bad request,
    authentication, context overflow, retries used up)."""

    def __init__(self, error: ProviderError) -> None:
        super().__init__(error.message)
        self.error = error


@dataclass
class UsageTotals:
    calls: int = 0
    input_total: int = 0
    input_uncached: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output_total: int = 0
    reasoning: int | None = None
    unreported_calls: int = 0
    failed_calls: int = 0

    def add_failure(self, aborted: bool) -> None:
        """A call that returned no reply: ``aborted`` ones (the budget ran out
        while the model was generating) may have used tokens nobody reported."""
        self.calls += 1
        if aborted:
            self.unreported_calls += 1
        else:
            self.failed_calls += 1

    def add(self, usage: Usage) -> None:
        self.calls += 1
        if not usage.reported:
            self.unreported_calls += 1
            return
        self.input_total += usage.input_total or 0
        self.input_uncached += usage.input_uncached if usage.input_uncached is not None else usage.input_total or 0
        self.cache_read += usage.cache_read or 0
        self.cache_write += usage.cache_write or 0
        self.output_total += usage.output_total or 0
        if usage.reasoning is not None:
            self.reasoning = (self.reasoning or 0) + usage.reasoning

    @property
    def total_known(self) -> int:
        return self.input_total + self.output_total

    @property
    def total(self) -> int | None:
        """Input plus output tokens of the run; ``None`` when some call's
        usage is unknown (then :attr:`total_known` is a lower bound)."""
        return None if self.unreported_calls else self.total_known

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "input_total": self.input_total,
            "input_uncached": self.input_uncached,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "output_total": self.output_total,
            "reasoning": self.reasoning,
            "total": self.total,
            "total_known": self.total_known,
            "unreported_calls": self.unreported_calls,
            "failed_calls": self.failed_calls,
        }


Sleep = Callable[[float], Awaitable[None]]


@dataclass
class ModelCaller:
    provider: Provider
    params: CallParams
    deadline: Deadline
    trace: TraceWriter
    sleep: Sleep = anyio.sleep
    max_retries: int = 8
    gate: RateGate | None = None
    usage: UsageTotals = field(default_factory=UsageTotals)
    errors: list[dict[str, Any]] = field(default_factory=list)
    retries: int = 0
    contaminated: bool = False
    _sent: int = 0
    _hasher: Any = None

    async def __call__(self, conversation: list[Msg], tools: list[ToolSpec], *, fresh: bool = False) -> Turn:
        """The model's next turn. ``fresh``: the conversation starts anew
        (the direct approach's attempts), so all of it is new in the trace."""
        request = self._request_digest(conversation, tools, fresh)
        failures = 0
        while True:
            remaining = self.deadline.check()
            if self.gate is not None:
                remaining = await self._hold_back()
            try:
                turn = await self._complete(conversation, tools, remaining)
            except ProviderError as err:
                self.usage.add_failure(aborted=err.kind in ("timeout", "connection"))
                self._log(err, request)
                request = {"sha256": request["sha256"], "retry": True}
                if err.kind == "connection" and self.deadline.expired():
                    raise FatalModelError(err) from err  # the network, not the model, used the budget
                if err.kind == "timeout" or self.deadline.expired():
                    raise BudgetExhausted(err.message) from err
                if not err.retryable or failures >= self.max_retries:
                    raise FatalModelError(err) from err
                failures += 1
                self.retries += 1
                wait = err.retry_after if err.retry_after is not None else min(2.0**failures, 30.0)
                if self.gate is not None and err.kind in ("rate_limit", "overloaded"):
                    await self.gate.report(wait)
                if wait >= self.deadline.remaining():
                    if err.kind == "connection":
                        raise FatalModelError(err) from err
                    raise BudgetExhausted(f"retry after {wait:g} s would pass the deadline",
                                          detail="rate_limited") from err
                self.trace.event("retry", attempt=failures, wait_s=wait, kind=err.kind)
                await self.sleep(wait)
                continue
            self.usage.add(turn.usage)
            self.trace.event("llm_call", request=request, turn=turn.to_dict())
            return turn

    async def _complete(self, conversation: list[Msg], tools: list[ToolSpec], remaining: float) -> Turn:
        result: Turn | None = None
        with anyio.move_on_after(remaining + GRACE_S):
            result = await self.provider.complete(conversation, tools, self.params, remaining)
        if result is None:
            raise ProviderError("timeout", f"no reply within the remaining budget of {remaining:.1f} s")
        return result

    async def _hold_back(self) -> float:
        """Wait as long as the shared gate asks (another run met a rate
        limit); returns the budget left."""
        assert self.gate is not None
        wait = await self.gate.wait_s()
        if wait >= GATE_MIN_WAIT_S:
            self.contaminated = True
            self.errors.append({"t": round(self.deadline.elapsed(), 3), "type": "SharedRateLimit",
                                "kind": "rate_limit_shared", "status": None,
                                "message": f"held back {wait:.1f} s: another run met a rate limit"})
            if wait >= self.deadline.remaining():
                raise BudgetExhausted(f"a shared rate-limit wait of {wait:g} s would pass the deadline")
            self.trace.event("rate_gate", wait_s=round(wait, 3))
            await self.sleep(wait)
        return self.deadline.check()

    def _log(self, err: ProviderError, request: dict[str, Any]) -> None:
        if err.kind in ("rate_limit", "overloaded"):
            self.contaminated = True
        t = round(self.deadline.elapsed(), 3)
        self.errors.append({"t": t, "type": err.type_name, "kind": err.kind, "status": err.status,
                            "message": err.message[:300]})
        # a call cut at the deadline (or by a lost connection) may have used tokens nobody reported
        unknown = err.kind in ("timeout", "connection")
        self.trace.event("llm_call", request=request, error=err.to_dict(), usage=None, usage_unknown=unknown)

    def _request_digest(self, conversation: list[Msg], tools: list[ToolSpec], fresh: bool) -> dict[str, Any]:
        """The request's SHA-256 and the messages new since the last call.
        The hash is extended message by message (a conversation only grows
        between calls), so its cost stays linear in the run's length."""
        if fresh or self._hasher is None or len(conversation) < self._sent:
            head = {"tools": [t.to_dict() for t in tools], "params": self.params.to_dict()}
            self._hasher = hashlib.sha256(json.dumps(head, sort_keys=True, ensure_ascii=False).encode())
            self._sent = 0
        new = [m.to_dict() for m in conversation[self._sent :]]
        for message in new:
            self._hasher.update(json.dumps(message, sort_keys=True, ensure_ascii=False).encode())
        self._sent = len(conversation)
        return {"sha256": self._hasher.hexdigest(), "n_messages": len(conversation), "new_messages": new}
