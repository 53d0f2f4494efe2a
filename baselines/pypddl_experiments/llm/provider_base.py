"""The provider protocol and helpers shared by the SDK adapters."""

from __future__ import annotations

import json
import os
import re
import socket
import time
from typing import Any, Protocol

from .types import CallParams, Msg, ProviderError, ToolCall, ToolSpec, Turn, Usage

__all__ = ["Provider", "SDKProvider", "check_endpoint", "classify_sdk_error", "make_turn", "parse_arguments",
           "require_key"]


class Provider(Protocol):
    """Anything that turns a conversation into the model's next :class:`Turn`.

    ``timeout_s`` is the remaining budget; a provider raises
    :class:`ProviderError` (``kind="timeout"`` when it ran out)."""

    name: str
    model: str

    async def complete(
        self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams, timeout_s: float
    ) -> Turn: ...

    def describe(self) -> dict[str, Any]: ...

    async def aclose(self) -> None: ...


def require_key(env_var: str, provider: str) -> str:
    """The API key from ``env_var``; refuse to go on without one."""
    key = os.environ.get(env_var, "").strip()
    if not key:
        raise ProviderError(
            "auth",
            f"no API key for {provider}: set the environment variable {env_var} "
            "(for a local OpenAI-compatible server any non-empty value will do)",
        )
    return key


_CONTEXT = re.compile(r"context.{0,20}(length|window)|prompt is too long|maximum context|too many tokens", re.I)


def classify_sdk_error(err: BaseException, sdk: Any) -> ProviderError:
    """Map an exception of the ``anthropic`` or ``openai`` SDK (same class
    names in both) to a :class:`ProviderError`."""
    name = type(err).__name__
    message = str(err) or name
    status = getattr(err, "status_code", None)
    headers = getattr(getattr(err, "response", None), "headers", None)
    retry_after = _retry_after(headers)
    if isinstance(err, sdk.APITimeoutError):
        return ProviderError("timeout", message, type_name=name)
    if isinstance(err, sdk.APIConnectionError):
        kind = "unreachable" if _refused(err) else "connection"
        return ProviderError(kind, message if kind == "connection" else f"{message} ({_root(err)})", type_name=name)
    if isinstance(err, sdk.APIStatusError):
        if status == 429:
            kind = "rate_limit"
        elif status is not None and (status >= 500 or status == 529):
            kind = "overloaded"
        elif status in (401, 403):
            kind = "auth"
        elif status in (400, 413, 422) and _CONTEXT.search(message):
            kind = "context_overflow"
        elif status in (400, 404, 413, 422):
            kind = "bad_request"
        else:
            kind = "api_error"
        return ProviderError(kind, message, status=status, retry_after=retry_after, type_name=name)
    return ProviderError("api_error", message, type_name=name)


def _causes(err: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    cause: BaseException | None = err
    while cause is not None and cause not in chain:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    return chain


def _refused(err: BaseException) -> bool:
    """Whether the connection was never made: refused, or no such host."""
    return any(isinstance(c, ConnectionRefusedError | socket.gaierror) for c in _causes(err))


def check_endpoint(url: str, timeout_s: float = 10.0) -> str | None:
    """Why ``url`` cannot be reached (refused, no such host, no answer in
    ``timeout_s``), or ``None`` when it answers at all: any HTTP status,
    401 and 404 included, shows that something listens there. Proxies from
    the environment are used, as the SDKs use them."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout_s):
            return None
    except urllib.error.HTTPError:
        return None
    except urllib.error.URLError as err:
        reason = err.reason
        return f"{type(reason).__name__}: {reason}" if isinstance(reason, BaseException) else str(reason)
    except TimeoutError:
        return f"no answer within {timeout_s:g} s"
    except (OSError, ValueError) as err:  # a connection reset, a URL that is not one
        return f"{type(err).__name__}: {err}"


def _root(err: BaseException) -> str:
    last = _causes(err)[-1]
    return f"{type(last).__name__}: {last}"


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    for key, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(key)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            continue
    return None


def parse_arguments(raw: Any, call_id: str | None, name: str, index: int) -> ToolCall:
    """A :class:`ToolCall` from provider arguments that may be a JSON string,
    an object, empty, or malformed (then ``args_error`` says why)."""
    cid = call_id or f"call_{index}"
    if raw is None or raw == "":
        return ToolCall(cid, name, {}, raw_arguments=None if raw is None else "")
    if isinstance(raw, dict):
        return ToolCall(cid, name, dict(raw))
    text = str(raw)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        return ToolCall(cid, name, {}, raw_arguments=text, args_error=f"arguments are not valid JSON: {err}")
    if not isinstance(value, dict):
        return ToolCall(cid, name, {}, raw_arguments=text, args_error="arguments must be a JSON object")
    return ToolCall(cid, name, value, raw_arguments=text)


def make_turn(
    text: str, calls: list[ToolCall], raw_stop: str | None, stops: dict[str, str], usage: Usage, model: str | None
) -> Turn:
    """A :class:`Turn` with the provider's stop reason mapped through
    ``stops``; a reply with tool calls counts as stopping for them whatever
    it says (some compatible servers say ``stop``)."""
    stop = stops.get(raw_stop or "", "other")
    if calls and stop in ("end", "other"):
        stop = "tool"
    return Turn(text=text, tool_calls=calls, stop=stop, stop_raw=raw_stop, usage=usage,  # type: ignore[arg-type]
                model_reported=model)


class SDKProvider:
    """What the two SDK adapters share: the client (SDK retries off: the
    harness retries itself, logs every retry and never passes the budget),
    the call with the remaining budget as its timeout, error mapping, and
    parsing the reply from its JSON form (robust to what compatible servers
    send).

    The request body is built here in the API's wire format and posted with
    the SDK client's ``post`` (its documented way to send a request as is):
    the SDKs' typed ``create`` methods re-walk every message of the
    conversation on every call, which grows with the square of an agentic
    run's length and would be charged to the model's budget, and their
    signatures drop keywords the API still takes (anthropic>=1 removed
    ``temperature``). Transport, authentication, timeouts and error types are
    the SDK's own."""

    name = "sdk"
    PATH = ""

    def __init__(self, model: str, base_url: str | None, sdk: Any, client: Any, response_type: Any) -> None:
        self.model = model
        self.base_url = base_url
        self._sdk = sdk
        self._client = client
        self._response_type = response_type

    def describe(self) -> dict[str, Any]:
        return {"provider": self.name, "model": self.model, "base_url": self.base_url, "sdk": self._sdk.__version__}

    def request_body(self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams) -> dict[str, Any]:
        raise NotImplementedError

    def parse(self, data: dict[str, Any]) -> Turn:
        raise NotImplementedError

    async def complete(
        self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams, timeout_s: float
    ) -> Turn:
        body = self.request_body(conversation, tools, params)
        started = time.monotonic()
        try:
            reply = await self._client.post(self.PATH, cast_to=self._response_type, body=body,
                                            options={"timeout": max(timeout_s, 0.001)})
        except self._sdk.APIError as err:
            raise classify_sdk_error(err, self._sdk) from err
        turn = self.parse(reply.model_dump(warnings=False))
        turn.latency_s = time.monotonic() - started
        turn.request_id = getattr(reply, "_request_id", None)
        return turn

    async def aclose(self) -> None:
        await self._client.close()
