"""Rate limits shared by the runs of an experiment (the gate every Ray
worker consults): one run's 429 holds back the others; the held-back runs
say so; a gate that fails never fails a run. On a fake clock, without Ray
(the Ray actor's logic is a plain class; ``test_harness_ray`` runs it on Ray)."""

from __future__ import annotations

from typing import Any

import pytest

from pypddl_experiments.llm.clock import BudgetExhausted, Deadline, FakeClock
from pypddl_experiments.llm.llm import ModelCaller
from pypddl_experiments.llm.provider_offline import ScriptedProvider
from pypddl_experiments.llm.records import TraceWriter
from pypddl_experiments.llm.remote import ActorGate, RateGateActor
from pypddl_experiments.llm.types import CallParams, Msg, ProviderError, Turn, Usage

pytestmark = pytest.mark.anyio


class ClockGate:
    """The gate's rule on a fake clock: hold back until the latest report ends."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.until = 0.0
        self.reports: list[float] = []

    async def wait_s(self) -> float:
        return max(0.0, self.until - self.clock.now)

    async def report(self, seconds: float) -> None:
        self.reports.append(seconds)
        self.until = max(self.until, self.clock.now + seconds)


def caller(script: Any, clock: FakeClock, gate: Any, budget: float = 100.0) -> ModelCaller:
    async def sleep(seconds: float) -> None:
        clock.advance(seconds)

    deadline = Deadline(budget, clock)
    trace = TraceWriter(None, "run", clock, deadline.start)
    return ModelCaller(ScriptedProvider(script, clock=clock), CallParams("m"), deadline, trace, sleep=sleep,
                       gate=gate)


def ok() -> Turn:
    return Turn(text="ok", usage=Usage(input_total=1, input_uncached=1, output_total=1, reported=True))


async def test_one_runs_rate_limit_holds_back_another_run() -> None:
    clock = FakeClock()
    gate = ClockGate(clock)
    limited = caller([ProviderError("rate_limit", "429", retry_after=4.0), ok()], clock, gate)
    other = caller([ok()], clock, gate)
    await limited([Msg("user", "x")], [])  # reported its 4 s and waited them out itself
    assert gate.reports == [4.0] and clock.now == 1004.0
    assert not any(e["kind"] == "rate_limit_shared" for e in limited.errors)  # its own wait is not "shared"
    gate.until = clock.now + 3.0  # another worker's 429, 3 s to go
    await other([Msg("user", "x")], [])
    assert clock.now == 1007.0  # held back 3 s before calling
    assert other.contaminated and other.retries == 0
    (held,) = other.errors
    assert held["kind"] == "rate_limit_shared" and "3.0 s" in held["message"]
    assert [e["type"] for e in other.trace.events] == ["rate_gate", "llm_call"]


async def test_overload_is_shared_too_and_other_errors_are_not() -> None:
    clock = FakeClock()
    gate = ClockGate(clock)
    run = caller([ProviderError("overloaded", "529"), ProviderError("connection", "reset"), ok()], clock, gate)
    await run([Msg("user", "x")], [])
    assert gate.reports == [2.0]  # the overload's back-off; the lost connection is this run's own business


async def test_a_hold_back_past_the_deadline_ends_the_budget() -> None:
    clock = FakeClock()
    gate = ClockGate(clock)
    gate.until = clock.now + 50.0
    run = caller([ok()], clock, gate, budget=30.0)
    with pytest.raises(BudgetExhausted):
        await run([Msg("user", "x")], [])
    assert clock.now == 1000.0 and run.contaminated and run.usage.calls == 0


def test_the_actor_holds_back_until_the_latest_report_ends() -> None:
    actor = RateGateActor()
    assert actor.wait_s() == 0.0
    actor.report(5.0)
    actor.report(1.0)  # a shorter report does not shorten the wait
    assert 4.5 < actor.wait_s() <= 5.0 and actor.stats()["reports"] == 2
    actor.report(-3.0)
    assert actor.wait_s() > 4.5


async def test_a_gate_that_fails_never_fails_a_run() -> None:
    class Broken:
        def remote(self, *args: Any) -> Any:
            raise ConnectionError("actor died")

    class Handle:
        wait_s = Broken()
        report = Broken()

    gate = ActorGate(Handle())
    assert await gate.wait_s() == 0.0
    await gate.report(3.0)  # no exception
