"""The provider adapters, driven through the real SDKs against the fake
server on 127.0.0.1: request bodies, parsed turns, usage normalisation,
error classification."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fake_server import FakeModelServer, Reply

from pypddl_experiments.llm.provider_openai import parse_chat_completion
from pypddl_experiments.llm.providers import create_provider
from pypddl_experiments.llm.types import CallParams, Msg, ProviderError, ToolCall, ToolResult, ToolSpec, Turn

pytestmark = pytest.mark.anyio

TOOLS = [ToolSpec("execute_single_action", "Execute one action.",
                  {"type": "object", "properties": {"action": {"type": "string"}}, "required": ["action"]})]
CONVERSATION = [
    Msg("system", "You plan."),
    Msg("user", "Solve it."),
    Msg("assistant", "Trying.", tool_calls=[ToolCall("call_1", "execute_single_action", {"action": "(pick-up a)"})]),
    Msg("tool", results=[ToolResult("call_1", "execute_single_action", "not applicable", is_error=True)]),
]


async def complete(server: FakeModelServer, name: str, conversation: list[Msg], tools: list[ToolSpec],
                   params: CallParams, timeout_s: float = 10.0) -> Turn:
    """One call through a real SDK client pointed at ``server``; the client
    is closed inside the event loop."""
    url = server.anthropic_base_url if name == "anthropic" else server.openai_base_url
    provider = create_provider(name, "fake-model", base_url=url)
    try:
        return await provider.complete(conversation, tools, params, timeout_s)
    finally:
        await provider.aclose()


async def test_anthropic_request_and_turn() -> None:
    reply = Reply(text="Next.", tool_calls=[{"name": "execute_single_action", "args": {"action": "(stack a b)"}}],
                  usage={"input": 100, "cache_read": 40, "cache_write": 7, "output": 12})
    with FakeModelServer([reply]) as server:
        turn = await complete(server, "anthropic", CONVERSATION, TOOLS,
                              CallParams("fake-model", temperature=0.2, max_tokens=99))
        body = server.requests[0].body
    assert server.requests[0].path == "/v1/messages"
    assert body["system"] == "You plan."
    assert body["temperature"] == 0.2 and body["max_tokens"] == 99 and "top_p" not in body
    assert body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert body["tools"] == [{"name": "execute_single_action", "description": "Execute one action.",
                              "input_schema": TOOLS[0].json_schema}]
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"][1] == {"type": "tool_use", "id": "call_1", "name": "execute_single_action",
                                                 "input": {"action": "(pick-up a)"}}
    assert body["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": "call_1",
                                               "content": "not applicable", "is_error": True}]
    assert turn.text == "Next."
    assert [(c.name, c.args) for c in turn.tool_calls] == [("execute_single_action", {"action": "(stack a b)"})]
    assert turn.stop == "tool" and turn.stop_raw == "tool_use"
    u = turn.usage
    assert (u.input_total, u.input_uncached, u.cache_read, u.cache_write, u.output_total) == (147, 100, 40, 7, 12)
    assert u.reported and u.total == 159
    assert turn.model_reported == "fake-model"


async def test_openai_request_and_turn() -> None:
    reply = Reply(text="", tool_calls=[{"name": "execute_single_action", "args": {"action": "(stack a b)"}}],
                  usage={"input": 100, "cache_read": 40, "cache_write": 7, "output": 12})
    with FakeModelServer([reply]) as server:
        turn = await complete(server, "openai", CONVERSATION, TOOLS,
                              CallParams("fake-model", temperature=None, max_tokens=99))
        body = server.requests[0].body
    assert server.requests[0].path == "/v1/chat/completions"
    assert body["messages"][0] == {"role": "system", "content": "You plan."}
    assert body["messages"][2]["tool_calls"][0]["function"] == {"name": "execute_single_action",
                                                                "arguments": '{"action": "(pick-up a)"}'}
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "ERROR: not applicable"}
    assert body["parallel_tool_calls"] is False and body["tool_choice"] == "auto"
    assert "temperature" not in body  # None: the provider's default
    assert body["max_tokens"] == 99  # a compatible server (base_url given)
    assert body["tools"][0] == {"type": "function", "function": {"name": "execute_single_action",
                                                                 "description": "Execute one action.",
                                                                 "parameters": TOOLS[0].json_schema}}
    assert turn.stop == "tool" and turn.stop_raw == "tool_calls"
    u = turn.usage
    # prompt_tokens (147) already includes the 40 cached tokens
    assert (u.input_total, u.input_uncached, u.cache_read, u.output_total) == (147, 107, 40, 12)


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_usage_is_normalised_the_same_way(name: str) -> None:
    usage = {"input": 1000, "cache_read": 300, "cache_write": 50, "output": 77}
    with FakeModelServer([Reply(text="hi", usage=usage)]) as server:
        turn = await complete(server, name, [Msg("user", "x")], [], CallParams("m"), timeout_s=10)
    assert turn.usage.input_total == 1350 and turn.usage.output_total == 77 and turn.usage.total == 1427


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_no_tools_sends_no_tool_settings(name: str) -> None:
    with FakeModelServer([Reply(text="hi")]) as server:
        await complete(server, name, [Msg("user", "x")], [], CallParams("m"), timeout_s=10)
        body = server.requests[0].body
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(body)


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_malformed_tool_arguments_are_flagged_not_raised(name: str) -> None:
    reply = Reply(tool_calls=[{"name": "execute_single_action", "raw_arguments": '{"action": "(pick-up'}])
    with FakeModelServer([reply]) as server:
        turn = await complete(server, name, [Msg("user", "x")], TOOLS, CallParams("m"), timeout_s=10)
    (call,) = turn.tool_calls
    assert call.args == {} and call.args_error is not None and "JSON" in call.args_error
    assert call.raw_arguments == '{"action": "(pick-up'


def test_openai_compatible_quirks() -> None:
    """Arguments as an object, a missing id, no usage, 'stop' after a tool call."""
    turn = parse_chat_completion({"choices": [{"message": {"content": None, "tool_calls": [
        {"type": "function", "function": {"name": "t", "arguments": {"a": 1}}}]}, "finish_reason": "stop"}]})
    (call,) = turn.tool_calls
    assert call.id == "call_0" and call.args == {"a": 1}
    assert turn.stop == "tool"
    assert not turn.usage.reported and turn.usage.input_total is None


@pytest.mark.parametrize("name", ["anthropic", "openai"])
@pytest.mark.parametrize(("stop", "expected"), [("max_tokens", "max_tokens"), ("refusal", "refusal"), ("end", "end")])
async def test_stop_reasons(name: str, stop: str, expected: str) -> None:
    with FakeModelServer([Reply(text="...", stop=stop)]) as server:
        turn = await complete(server, name, [Msg("user", "x")], [], CallParams("m"), timeout_s=10)
    assert turn.stop == expected


@pytest.mark.parametrize("name", ["anthropic", "openai"])
@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (Reply(status=429, headers={"retry-after": "7"}), "rate_limit"),
        (Reply(status=401, error_type="authentication_error"), "auth"),
        (Reply(status=400, error_message="prompt is too long: 250000 tokens > 200000 maximum"), "context_overflow"),
        (Reply(status=400, error_message="tools.0.name: bad"), "bad_request"),
        (Reply(status=529, error_type="overloaded_error"), "overloaded"),
    ],
)
async def test_errors_are_classified(name: str, reply: Reply, kind: str) -> None:
    with FakeModelServer([reply]) as server:
        with pytest.raises(ProviderError) as info:
            await complete(server, name, [Msg("user", "x")], [], CallParams("m"), timeout_s=10)
        assert len(server.requests) == 1  # the SDK itself does not retry
    assert info.value.kind == kind
    if kind == "rate_limit":
        assert info.value.retry_after == 7.0 and info.value.retryable


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_the_timeout_is_the_given_remaining_budget(name: str) -> None:
    with FakeModelServer([Reply(text="late", delay_s=5.0)]) as server:
        started = time.monotonic()
        with pytest.raises(ProviderError) as info:
            await complete(server, name, [Msg("user", "x")], [], CallParams("m"), timeout_s=0.5)
        elapsed = time.monotonic() - started
    assert info.value.kind == "timeout"
    assert elapsed < 3.0


@pytest.mark.parametrize(("name", "var"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")])
def test_real_providers_refuse_to_start_without_a_key(name: str, var: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(var, raising=False)
    with pytest.raises(ProviderError) as info:
        create_provider(name, "m")
    assert info.value.kind == "auth" and var in info.value.message
    monkeypatch.setenv("MY_KEY", "")
    with pytest.raises(ProviderError):
        create_provider(name, "m", api_key_env="MY_KEY")


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_requests_bypass_the_typed_create_methods(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bodies are posted as built: the SDKs' create() re-walks the whole
    conversation on every call (quadratic in a run, charged to its budget)."""
    import anthropic.resources.messages.messages as amsg
    import openai.resources.chat.completions.completions as ochat

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("create() was called")

    monkeypatch.setattr(amsg.AsyncMessages, "create", refuse)
    monkeypatch.setattr(ochat.AsyncCompletions, "create", refuse)
    with FakeModelServer([Reply(text="hi")]) as server:
        turn = await complete(server, name, CONVERSATION, TOOLS, CallParams("m", temperature=0.3))
        assert server.requests[0].body["temperature"] == 0.3
    assert turn.text == "hi"


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_a_missing_sdk_is_a_clean_error_with_the_install_command(
    provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the llm extra, ``experiment run`` says what to install and
    exits 2 (it printed a raw ModuleNotFoundError traceback)."""
    import importlib.util

    from click.testing import CliRunner

    from pypddl_experiments.cli import experiment

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == provider else real(name, *a))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "x")
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    r = CliRunner().invoke(experiment, ["run", "--method", "direct", "--provider", provider, "--model", "m",
                                        "--tasks", "blocksworld", "--budget", "5", "--out", str(tmp_path / "out")])
    assert r.exit_code == 2, r.output
    assert "pypddlengine[llm]" in r.output and "Traceback" not in r.output
