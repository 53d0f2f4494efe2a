"""ModelCaller: budgets, retries and their waits, usage totals, request
digests; on a fake clock with a scripted provider."""

from __future__ import annotations

from typing import Any

import pytest

from pypddl_experiments.llm.clock import BudgetExhausted, Deadline, FakeClock
from pypddl_experiments.llm.llm import FatalModelError, ModelCaller
from pypddl_experiments.llm.provider_offline import ScriptedProvider
from pypddl_experiments.llm.records import TraceWriter
from pypddl_experiments.llm.types import CallParams, Msg, ProviderError, ToolCall, Turn, Usage

pytestmark = pytest.mark.anyio


def caller_for(script: Any, *, budget: float = 100.0, latency: float = 0.0, **kw: Any) -> tuple[ModelCaller, FakeClock]:
    clock = FakeClock()

    async def sleep(seconds: float) -> None:
        clock.advance(seconds)

    deadline = Deadline(budget, clock)
    provider = ScriptedProvider(script, clock=clock, latency_s=latency)
    trace = TraceWriter(None, "run", clock, deadline.start)
    return ModelCaller(provider, CallParams("m"), deadline, trace, sleep=sleep, **kw), clock


def used(i: int, o: int) -> Usage:
    return Usage(input_total=i, input_uncached=i, output_total=o, reported=True)


async def test_overload_and_connection_errors_back_off_exponentially() -> None:
    caller, clock = caller_for([ProviderError("overloaded", "529"), ProviderError("connection", "reset"),
                                Turn(text="ok", usage=used(10, 2))])
    turn = await caller([Msg("user", "x")], [])
    assert turn.text == "ok"
    assert clock.now - 1000.0 == pytest.approx(2.0 + 4.0)  # waits of 2 s and 4 s
    assert caller.retries == 2 and caller.contaminated  # overload contaminates; timing is not comparable
    assert (caller.usage.calls, caller.usage.failed_calls, caller.usage.unreported_calls) == (3, 1, 1)
    # the connection lost mid-call may have used tokens: the total is unknown, the known part 12
    assert caller.usage.total is None and caller.usage.total_known == 12
    assert caller.usage.to_dict()["total"] is None and caller.usage.to_dict()["total_known"] == 12
    assert [e["kind"] for e in caller.errors] == ["overloaded", "connection"]


async def test_an_unreachable_endpoint_is_an_error_at_once() -> None:
    """Connection refused (a wrong --base-url): no retry, no wait, an error."""
    caller, clock = caller_for([ProviderError("unreachable", "refused"), Turn(text="never")])
    with pytest.raises(FatalModelError) as info:
        await caller([Msg("user", "x")], [])
    assert info.value.error.kind == "unreachable" and caller.retries == 0 and clock.now == 1000.0
    assert caller.usage.failed_calls == 1 and caller.usage.unreported_calls == 0 and caller.usage.total == 0


async def test_a_connection_failing_until_the_deadline_is_an_error_not_a_timeout() -> None:
    caller, clock = caller_for(lambda c, t, p: (_ for _ in ()).throw(ProviderError("connection", "reset")),
                               budget=20.0)
    with pytest.raises(FatalModelError) as info:
        await caller([Msg("user", "x")], [])
    assert info.value.error.kind == "connection"
    assert clock.now - 1000.0 == pytest.approx(2.0 + 4.0 + 8.0)  # the next wait (16 s) would pass the deadline


async def test_a_rate_limit_wait_past_the_deadline_is_a_rate_limited_timeout() -> None:
    caller, clock = caller_for([ProviderError("rate_limit", "429", retry_after=60.0)], budget=30.0)
    with pytest.raises(BudgetExhausted) as info:
        await caller([Msg("user", "x")], [])
    assert info.value.detail == "rate_limited" and caller.contaminated and clock.now == 1000.0


async def test_retries_are_bounded() -> None:
    caller, _ = caller_for(lambda c, t, p: (_ for _ in ()).throw(ProviderError("rate_limit", "429", retry_after=0.1)),
                           max_retries=3)
    with pytest.raises(FatalModelError) as info:
        await caller([Msg("user", "x")], [])
    assert info.value.error.kind == "rate_limit" and caller.retries == 3 and caller.usage.calls == 4


async def test_a_wait_past_the_deadline_ends_the_budget_instead() -> None:
    caller, clock = caller_for([ProviderError("rate_limit", "429", retry_after=60.0)], budget=30.0)
    with pytest.raises(BudgetExhausted):
        await caller([Msg("user", "x")], [])
    assert clock.now == 1000.0  # it did not sleep


async def test_no_call_is_made_once_the_budget_is_spent() -> None:
    caller, clock = caller_for(lambda c, t, p: Turn(text="a", usage=used(5, 1)), budget=10.0, latency=4.0)
    await caller([Msg("user", "x")], [])
    await caller([Msg("user", "x")], [])
    with pytest.raises(BudgetExhausted):  # 2 s left, the reply takes 4: cut off at the deadline
        await caller([Msg("user", "x")], [])
    assert clock.now == 1010.0 and caller.usage.unreported_calls == 1
    with pytest.raises(BudgetExhausted):
        await caller([Msg("user", "x")], [])
    assert caller.usage.calls == 3


async def test_the_timeout_given_is_the_remaining_budget() -> None:
    caller, _ = caller_for([Turn(text="a"), Turn(text="b")], budget=50.0, latency=20.0)
    await caller([Msg("user", "x")], [])
    await caller([Msg("user", "x")], [])
    timeouts = [r[3] for r in caller.provider.requests]  # type: ignore[attr-defined]
    assert timeouts == [50.0, 30.0]


async def test_request_digests_identify_the_whole_request() -> None:
    """Grown turn by turn or sent at once, the same conversation has the same
    digest; the trace stores only what is new."""
    reply = Turn(tool_calls=[ToolCall("c1", "t", {"a": 1})])
    grow, _ = caller_for([reply, reply])
    conversation = [Msg("system", "s"), Msg("user", "u")]
    await grow(conversation, [])
    conversation += [reply.assistant_message(), Msg("user", "more")]
    await grow(conversation, [])
    once, _ = caller_for([reply])
    await once(list(conversation), [])
    first, second = (e["request"] for e in grow.trace.events)
    (whole,) = (e["request"] for e in once.trace.events)
    assert second["sha256"] == whole["sha256"] != first["sha256"]
    assert [m["role"] for m in second["new_messages"]] == ["assistant", "user"]
    assert second["n_messages"] == 4 and len(whole["new_messages"]) == 4
    fresh, _ = caller_for([reply, reply])
    await fresh([Msg("user", "u")], [], fresh=True)
    await fresh([Msg("user", "u")], [], fresh=True)
    a, b = (e["request"] for e in fresh.trace.events)
    assert a == b and len(b["new_messages"]) == 1
