"""A fake model server on 127.0.0.1 for offline tests and demos.

It speaks the two wire formats the providers use, ``POST /v1/messages``
(Anthropic Messages) and ``POST /v1/chat/completions`` (OpenAI Chat
Completions), so the real SDK clients can be pointed at it with
``base_url``, whatever HTTP library they use underneath. Each request is
answered by a script: a list of :class:`Reply` (played in order) or a
function of the :class:`FakeRequest` returning one. A reply can be a text,
tool calls (including malformed arguments), an HTTP error such as a 429
rate limit with ``retry-after``, or any of those after a delay (to outlast a
run's budget). Every request body is kept for assertions.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeModelServer", "FakeRequest", "Reply"]


@dataclass
class Reply:
    """One scripted answer, in neutral terms.

    ``tool_calls``: ``{"name", "args"}`` or ``{"name", "raw_arguments"}``
    (sent verbatim: use it for malformed JSON). ``usage``: ``input`` (not
    cached), ``cache_read``, ``cache_write``, ``output``; rendered for each API
    the way that API counts (Anthropic: three disjoint input counts; OpenAI:
    ``prompt_tokens`` includes cached tokens). ``status`` other than 200 sends
    an API error body of ``error_type``; ``delay_s`` waits before answering."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    stop: str | None = None
    usage: dict[str, int] | None = field(default_factory=lambda: {"input": 100, "output": 20})
    status: int = 200
    error_type: str | None = None
    error_message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    model: str = "fake-model"


@dataclass
class FakeRequest:
    api: str  # "anthropic" or "openai"
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    index: int  # 0-based, over all requests to this server

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    def tool_names(self) -> list[str]:
        out = []
        for t in self.body.get("tools") or []:
            out.append(t["function"]["name"] if "function" in t else t["name"])
        return out

    def system_text(self) -> str:
        if self.api == "anthropic":
            s = self.body.get("system") or ""
            return s if isinstance(s, str) else " ".join(b.get("text", "") for b in s)
        return "\n".join(m.get("content") or "" for m in self.messages if m.get("role") == "system")

    def user_text(self) -> str:
        """The text of the first user message (the task prompt)."""
        for m in self.messages:
            if m.get("role") == "user":
                content = m.get("content")
                if isinstance(content, str):
                    return content
                return "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
        return ""

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool result sent back so far: ``{"id", "text", "is_error"}``."""
        out = []
        for m in self.messages:
            if self.api == "openai" and m.get("role") == "tool":
                text = m.get("content") or ""
                out.append({"id": m.get("tool_call_id"), "text": text, "is_error": text.startswith("ERROR: ")})
            elif self.api == "anthropic" and m.get("role") == "user" and isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") == "tool_result":
                        content = b.get("content")
                        if isinstance(content, list):
                            content = "\n".join(x.get("text", "") for x in content)
                        out.append({"id": b.get("tool_use_id"), "text": content or "",
                                    "is_error": bool(b.get("is_error"))})
        return out

    def assistant_turns(self) -> int:
        return sum(1 for m in self.messages if m.get("role") == "assistant")


Script = list[Reply] | Callable[[FakeRequest], Reply]

_ANTHROPIC_STOP = {"end": "end_turn", "tool": "tool_use", "max_tokens": "max_tokens", "refusal": "refusal",
                   "context_overflow": "model_context_window_exceeded"}
_OPENAI_STOP = {"end": "stop", "tool": "tool_calls", "max_tokens": "length", "refusal": "content_filter",
                "context_overflow": "length"}
_ANTHROPIC_ERRORS = {429: "rate_limit_error", 400: "invalid_request_error", 401: "authentication_error",
                     500: "api_error", 529: "overloaded_error"}


def render_anthropic(reply: Reply, ids: itertools.count) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        args: Any = call["raw_arguments"] if "raw_arguments" in call else call.get("args", {})
        content.append({"type": "tool_use", "id": f"toolu_{next(ids):04d}", "name": call["name"], "input": args})
    stop = reply.stop or ("tool" if reply.tool_calls else "end")
    body: dict[str, Any] = {
        "id": f"msg_{next(ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": reply.model,
        "content": content,
        "stop_reason": _ANTHROPIC_STOP.get(stop, stop),
        "stop_sequence": None,
    }
    if reply.usage is not None:
        u = reply.usage
        body["usage"] = {
            "input_tokens": u.get("input", 0),
            "output_tokens": u.get("output", 0),
            "cache_read_input_tokens": u.get("cache_read", 0),
            "cache_creation_input_tokens": u.get("cache_write", 0),
        }
    else:
        body["usage"] = {"input_tokens": None, "output_tokens": None}
    return body


def render_openai(reply: Reply, ids: itertools.count) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{next(ids):04d}",
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": call["raw_arguments"] if "raw_arguments" in call else json.dumps(call.get("args", {})),
                },
            }
            for call in reply.tool_calls
        ]
    stop = reply.stop or ("tool" if reply.tool_calls else "end")
    body: dict[str, Any] = {
        "id": f"chatcmpl-{next(ids):06d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model,
        "choices": [{"index": 0, "message": message, "finish_reason": _OPENAI_STOP.get(stop, stop)}],
    }
    if reply.usage is not None:
        u = reply.usage
        prompt = u.get("input", 0) + u.get("cache_read", 0) + u.get("cache_write", 0)
        body["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": u.get("output", 0),
            "total_tokens": prompt + u.get("output", 0),
            "prompt_tokens_details": {"cached_tokens": u.get("cache_read", 0)},
        }
    return body


def render_error(api: str, reply: Reply) -> dict[str, Any]:
    if api == "anthropic":
        kind = reply.error_type or _ANTHROPIC_ERRORS.get(reply.status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": reply.error_message}}
    kind = reply.error_type or ("rate_limit_exceeded" if reply.status == 429 else "invalid_request_error")
    return {"error": {"message": reply.error_message, "type": kind, "code": kind}}


class FakeModelServer:
    """``with FakeModelServer(script) as server:`` then use
    ``server.anthropic_base_url`` / ``server.openai_base_url``."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[FakeRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self) -> FakeModelServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                server._handle(self)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        httpd = self._httpd
        self._thread = threading.Thread(target=lambda: httpd.serve_forever(poll_interval=0.02),
                                        name="fake-model-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._httpd is not None, "the server is not running"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    # ------------------------------------------------------------ requests

    def _next_reply(self, request: FakeRequest) -> Reply:
        if callable(self.script):
            return self.script(request)
        if request.index < len(self.script):
            return self.script[request.index]
        return Reply(status=500, error_message=f"the fake server's script has only {len(self.script)} replies")

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.split("?", 1)[0]
        if path.endswith("/v1/messages"):
            api = "anthropic"
        elif path.endswith("/chat/completions"):
            api = "openai"
        else:
            self._send(handler, 404, {"error": {"message": f"no route {path}"}}, {})
            return
        length = int(handler.headers.get("content-length") or 0)
        body = json.loads(handler.rfile.read(length) or b"{}")
        with self._lock:
            request = FakeRequest(api, path, body, {k.lower(): v for k, v in handler.headers.items()},
                                  len(self.requests))
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            try:
                reply = self._next_reply(request)
            except Exception as err:  # a broken script answers 500 with the reason
                reply = Reply(status=500, error_message=f"script failed: {type(err).__name__}: {err}")
            if reply.delay_s:
                self._stopping.wait(reply.delay_s)
            if reply.status != 200:
                self._send(handler, reply.status, render_error(api, reply), reply.headers)
            else:
                render = render_anthropic if api == "anthropic" else render_openai
                self._send(handler, 200, render(reply, self._ids), reply.headers)
        finally:
            with self._lock:
                self.in_flight -= 1

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
        data = json.dumps(payload).encode()
        try:
            handler.send_response(status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data)))
            handler.send_header("request-id", f"req_fake_{status}")
            for key, value in headers.items():
                handler.send_header(key, value)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout); nothing to do
