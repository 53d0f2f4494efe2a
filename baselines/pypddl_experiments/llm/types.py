"""Provider-neutral conversation, tool and usage types.

The methods (direct, agentic) speak only these types; the provider adapters
translate them to and from each API's wire format. Everything here is plain
data with a JSON form (``to_dict``/``from_dict``) so that traces can store a
turn and :class:`~pypddl_experiments.llm.provider_offline.ReplayProvider` can
give it back unchanged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

__all__ = [
    "CallParams",
    "Msg",
    "ProviderError",
    "StopReason",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Turn",
    "Usage",
]

StopReason = Literal["end", "tool", "max_tokens", "refusal", "context_overflow", "other"]


@dataclass(slots=True)
class ToolCall:
    """One tool call of the model. ``args_error`` is set when the provider's
    arguments could not be read as a JSON object (``raw_arguments`` then keeps
    the text the model produced, so the conversation can echo it back)."""

    id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    raw_arguments: str | None = None
    args_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        return cls(
            id=data["id"],
            name=data["name"],
            args=dict(data.get("args") or {}),
            raw_arguments=data.get("raw_arguments"),
            args_error=data.get("args_error"),
        )


@dataclass(slots=True)
class ToolResult:
    call_id: str
    name: str
    text: str
    is_error: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolResult:
        return cls(data["call_id"], data["name"], data["text"], bool(data.get("is_error")))


@dataclass(slots=True)
class Msg:
    """One conversation message. ``role`` is ``system``, ``user``,
    ``assistant`` (``text`` and/or ``tool_calls``) or ``tool`` (``results``)."""

    role: Literal["system", "user", "assistant", "tool"]
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role}
        if self.text:
            out["text"] = self.text
        if self.tool_calls:
            out["tool_calls"] = [c.to_dict() for c in self.tool_calls]
        if self.results:
            out["results"] = [r.to_dict() for r in self.results]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Msg:
        return cls(
            role=data["role"],
            text=data.get("text", ""),
            tool_calls=[ToolCall.from_dict(c) for c in data.get("tool_calls", [])],
            results=[ToolResult.from_dict(r) for r in data.get("results", [])],
        )


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as shown to the model: name, description, JSON Schema of the input."""

    name: str
    description: str
    json_schema: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "json_schema": self.json_schema}


@dataclass(frozen=True, slots=True)
class CallParams:
    """Request settings. ``temperature=None`` sends none (the provider's
    default); ``parallel_tools=False`` asks for at most one tool call a turn."""

    model: str
    temperature: float | None = None
    max_tokens: int = 8192
    parallel_tools: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Usage:
    """Token usage, normalised across providers.

    ``input_total`` counts every prompt token the model processed, cached or
    not: for Anthropic ``input_tokens + cache_read_input_tokens +
    cache_creation_input_tokens`` (three disjoint counts), for OpenAI-style
    APIs ``prompt_tokens`` (which already includes ``cached_tokens``).
    ``None`` means the provider did not say; ``reported=False`` marks a call
    whose usage is unknown (aborted by the budget, or no usage sent)."""

    input_total: int | None = None
    input_uncached: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    output_total: int | None = None
    reasoning: int | None = None
    reported: bool = False

    @property
    def total(self) -> int:
        return (self.input_total or 0) + (self.output_total or 0)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Usage:
        if not data:
            return cls()
        known = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        return cls(**known)


@dataclass(slots=True)
class Turn:
    """One model reply: its text, its tool calls and why it stopped."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    stop: StopReason = "end"
    stop_raw: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    request_id: str | None = None
    model_reported: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "stop": self.stop,
            "stop_raw": self.stop_raw,
            "usage": self.usage.to_dict(),
            "latency_s": round(self.latency_s, 4),
            "request_id": self.request_id,
            "model_reported": self.model_reported,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        return cls(
            text=data.get("text", ""),
            tool_calls=[ToolCall.from_dict(c) for c in data.get("tool_calls", [])],
            stop=data.get("stop", "end"),
            stop_raw=data.get("stop_raw"),
            usage=Usage.from_dict(data.get("usage")),
            latency_s=float(data.get("latency_s") or 0.0),
            request_id=data.get("request_id"),
            model_reported=data.get("model_reported"),
        )

    def assistant_message(self) -> Msg:
        return Msg("assistant", text=self.text, tool_calls=list(self.tool_calls))


class ProviderError(Exception):
    """A failed model call, classified so the caller can decide what to do.

    ``kind``: ``rate_limit`` (HTTP 429), ``overloaded`` (5xx, 529),
    ``connection`` (a connection lost or failing on the way), ``unreachable``
    (refused or unknown host: nothing listens at the base URL, e.g. a wrong
    ``--base-url``; retrying cannot help), ``timeout`` (the per-call timeout,
    i.e. the remaining budget, ran out), ``context_overflow``, ``auth``,
    ``bad_request`` or ``api_error``. ``retryable`` kinds are retried while
    budget remains."""

    RETRYABLE = frozenset({"rate_limit", "overloaded", "connection"})

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        type_name: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.type_name = type_name or kind

    @property
    def retryable(self) -> bool:
        return self.kind in self.RETRYABLE

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "type": self.type_name,
            "status": self.status,
            "message": self.message[:500],
            "retry_after": self.retry_after,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProviderError:
        return cls(
            data["kind"],
            data.get("message", ""),
            status=data.get("status"),
            retry_after=data.get("retry_after"),
            type_name=data.get("type"),
        )
