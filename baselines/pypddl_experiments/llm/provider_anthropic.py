"""The Anthropic Messages API through the official ``anthropic`` SDK."""

from __future__ import annotations

from typing import Any

from .provider_base import SDKProvider, make_turn, parse_arguments, require_key
from .types import CallParams, Msg, ToolSpec, Turn, Usage

__all__ = ["AnthropicProvider", "parse_anthropic_message", "to_anthropic_messages", "to_anthropic_tools"]

_STOP = {
    "end_turn": "end",
    "stop_sequence": "end",
    "tool_use": "tool",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
    "model_context_window_exceeded": "context_overflow",
}


def to_anthropic_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "input_schema": t.json_schema} for t in tools]


def to_anthropic_messages(conversation: list[Msg]) -> tuple[str | None, list[dict[str, Any]]]:
    """The ``system`` string and the ``messages`` list for a conversation.
    Tool results travel in a user message; consecutive same-role messages
    are merged, as the API wants roles to alternate."""
    system = [m.text for m in conversation if m.role == "system" and m.text]
    messages: list[dict[str, Any]] = []
    for m in conversation:
        if m.role == "system":
            continue
        blocks: list[dict[str, Any]] = []
        if m.role == "tool":
            role = "user"
            for r in m.results:
                blocks.append(
                    {"type": "tool_result", "tool_use_id": r.call_id, "content": r.text, "is_error": r.is_error}
                )
        else:
            role = m.role
            if m.text:
                blocks.append({"type": "text", "text": m.text})
            for c in m.tool_calls:
                blocks.append({"type": "tool_use", "id": c.id, "name": c.name, "input": c.args})
            if not blocks:
                blocks.append({"type": "text", "text": "(no content)"})
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
    return ("\n\n".join(system) if system else None), messages


def _usage(raw: dict[str, Any] | None) -> Usage:
    if not raw:
        return Usage()
    uncached = raw.get("input_tokens")
    read = raw.get("cache_read_input_tokens")
    write = raw.get("cache_creation_input_tokens")
    parts = [v for v in (uncached, read, write) if v is not None]
    return Usage(
        input_total=sum(parts) if parts else None,
        input_uncached=uncached,
        cache_read=read,
        cache_write=write,
        output_total=raw.get("output_tokens"),
        reasoning=None,
        reported=uncached is not None or raw.get("output_tokens") is not None,
    )


def parse_anthropic_message(data: dict[str, Any]) -> Turn:
    texts: list[str] = []
    calls = []
    for i, block in enumerate(data.get("content") or []):
        kind = block.get("type")
        if kind == "text":
            texts.append(block.get("text") or "")
        elif kind == "tool_use":
            calls.append(parse_arguments(block.get("input"), block.get("id"), block.get("name", ""), i))
    return make_turn("\n".join(t for t in texts if t), calls, data.get("stop_reason"), _STOP,
                     _usage(data.get("usage")), data.get("model"))


class AnthropicProvider(SDKProvider):
    """Messages API adapter."""

    name = "anthropic"
    PATH = "/v1/messages"

    def __init__(self, model: str, *, base_url: str | None = None, api_key_env: str = "ANTHROPIC_API_KEY") -> None:
        import anthropic  # lazy: an optional dependency
        from anthropic.types import Message

        client = anthropic.AsyncAnthropic(api_key=require_key(api_key_env, "anthropic"), base_url=base_url,
                                          max_retries=0)
        super().__init__(model, base_url, anthropic, client, Message)

    def request_body(self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams) -> dict[str, Any]:
        system, messages = to_anthropic_messages(conversation)
        body: dict[str, Any] = {"model": params.model, "max_tokens": params.max_tokens, "messages": messages}
        if system:
            body["system"] = system
        if params.temperature is not None:
            body["temperature"] = params.temperature  # only when set, never with top_p
        if tools:
            body["tools"] = to_anthropic_tools(tools)
            body["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": not params.parallel_tools}
        body.update(params.extra)
        return body

    def parse(self, data: dict[str, Any]) -> Turn:
        return parse_anthropic_message(data)
