"""Chat Completions through the official ``openai`` SDK: OpenAI itself or any
compatible server given by ``base_url`` (vLLM, Ollama, llama.cpp, LM Studio)."""

from __future__ import annotations

import json
from typing import Any

from .provider_base import SDKProvider, make_turn, parse_arguments, require_key
from .types import CallParams, Msg, ToolSpec, Turn, Usage

__all__ = ["OpenAIChatProvider", "parse_chat_completion", "to_openai_messages", "to_openai_tools"]

_STOP = {"stop": "end", "tool_calls": "tool", "function_call": "tool", "length": "max_tokens",
         "content_filter": "refusal"}

ERROR_PREFIX = "ERROR: "
"""Chat Completions has no error flag on tool results, so failed tool calls
are marked in the text."""


def to_openai_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.json_schema}}
        for t in tools
    ]


def to_openai_messages(conversation: list[Msg]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in conversation:
        if m.role in ("system", "user"):
            out.append({"role": m.role, "content": m.text})
        elif m.role == "assistant":
            msg: dict[str, Any] = {"role": "assistant", "content": m.text or None}
            if m.tool_calls:
                msg["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {
                            "name": c.name,
                            # echo what the model wrote, malformed or not
                            "arguments": c.raw_arguments if c.raw_arguments is not None else json.dumps(c.args),
                        },
                    }
                    for c in m.tool_calls
                ]
            out.append(msg)
        else:
            for r in m.results:
                text = ERROR_PREFIX + r.text if r.is_error and not r.text.startswith(ERROR_PREFIX) else r.text
                out.append({"role": "tool", "tool_call_id": r.call_id, "content": text})
    return out


def _usage(raw: dict[str, Any] | None) -> Usage:
    if not raw or (raw.get("prompt_tokens") is None and raw.get("completion_tokens") is None):
        return Usage()
    prompt = raw.get("prompt_tokens")
    cached = (raw.get("prompt_tokens_details") or {}).get("cached_tokens")
    written = (raw.get("prompt_tokens_details") or {}).get("cache_write_tokens")
    return Usage(
        input_total=prompt,
        input_uncached=None if prompt is None else prompt - (cached or 0),
        cache_read=cached,
        cache_write=written,
        output_total=raw.get("completion_tokens"),
        reasoning=(raw.get("completion_tokens_details") or {}).get("reasoning_tokens"),
        reported=True,
    )


def parse_chat_completion(data: dict[str, Any]) -> Turn:
    choices = data.get("choices") or [{}]
    choice = choices[0] or {}
    message = choice.get("message") or {}
    calls = []
    for i, tc in enumerate(message.get("tool_calls") or []):
        fn = tc.get("function") or {}
        calls.append(parse_arguments(fn.get("arguments"), tc.get("id"), fn.get("name") or "", i))
    return make_turn(message.get("content") or "", calls, choice.get("finish_reason"), _STOP,
                     _usage(data.get("usage")), data.get("model"))


class OpenAIChatProvider(SDKProvider):
    """Chat Completions adapter."""

    name = "openai"
    PATH = "/chat/completions"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        max_tokens_field: str | None = None,
    ) -> None:
        import openai  # lazy: an optional dependency
        from openai.types.chat import ChatCompletion

        # OpenAI's own reasoning models want max_completion_tokens; most
        # compatible servers know only max_tokens
        self.max_tokens_field = max_tokens_field or ("max_tokens" if base_url else "max_completion_tokens")
        client = openai.AsyncOpenAI(api_key=require_key(api_key_env, "openai"), base_url=base_url, max_retries=0)
        super().__init__(model, base_url, openai, client, ChatCompletion)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "max_tokens_field": self.max_tokens_field}

    def request_body(self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": params.model,
            "messages": to_openai_messages(conversation),
            self.max_tokens_field: params.max_tokens,
        }
        if params.temperature is not None:
            body["temperature"] = params.temperature
        if tools:
            body["tools"] = to_openai_tools(tools)
            body["tool_choice"] = "auto"
            body["parallel_tool_calls"] = params.parallel_tools
        body.update(params.extra)
        return body

    def parse(self, data: dict[str, Any]) -> Turn:
        return parse_chat_completion(data)
