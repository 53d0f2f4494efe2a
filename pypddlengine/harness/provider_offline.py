"""In-process providers without a network: scripted turns, and replay of a
recorded trace."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .clock import FakeClock
from .types import CallParams, Msg, ProviderError, ToolSpec, Turn

__all__ = ["ReplayProvider", "ScriptedProvider", "load_trace"]

Script = Callable[[list[Msg], list[ToolSpec], CallParams], Turn]


class _Offline:
    name = "offline"
    model = "offline"

    def describe(self) -> dict[str, Any]:
        return {"provider": self.name, "model": self.model}

    async def aclose(self) -> None:
        pass


class ScriptedProvider(_Offline):
    """Plays ``script``: a list of :class:`Turn` (or :class:`ProviderError`
    to raise) used in order, or a function of the conversation returning the
    next turn. ``latency_s`` advances ``clock`` (a :class:`FakeClock`) per call."""

    name = "scripted"

    def __init__(
        self,
        script: list[Turn | ProviderError] | Script,
        *,
        model: str = "scripted",
        clock: FakeClock | None = None,
        latency_s: float = 0.0,
    ) -> None:
        self.model = model
        self._script = script
        self._clock = clock
        self._latency = latency_s
        self.requests: list[tuple[list[Msg], list[ToolSpec], CallParams, float]] = []

    async def complete(
        self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams, timeout_s: float
    ) -> Turn:
        self.requests.append((list(conversation), list(tools), params, timeout_s))
        if self._clock is not None and self._latency:
            if self._latency >= timeout_s:
                self._clock.advance(timeout_s)
                raise ProviderError("timeout", "scripted reply slower than the remaining budget")
            self._clock.advance(self._latency)
        if callable(self._script):
            step: Turn | ProviderError = self._script(conversation, tools, params)
        else:
            index = len(self.requests) - 1
            if index >= len(self._script):
                raise ProviderError("api_error", f"the script has only {len(self._script)} turn(s)")
            step = self._script[index]
        if isinstance(step, ProviderError):
            raise step
        return step


def load_trace(path: Path | str) -> list[dict[str, Any]]:
    with Path(path).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


class ReplayProvider(_Offline):
    """Gives back the turns (and errors) of a recorded trace, in order.

    With a :class:`FakeClock` it also sets the time each call ended, so the
    replayed run meets its deadline where the recorded one did. When the
    recorded turns run out, the recorded run was cut off by its budget, and
    so is the replay."""

    name = "replay"

    def __init__(self, events: list[dict[str, Any]], *, clock: FakeClock | None = None, start: float = 0.0,
                 budget_s: float | None = None) -> None:
        self._calls = [e for e in events if e.get("type") == "llm_call"]
        self._clock = clock
        self._start = start
        self._budget = budget_s
        self._next = 0
        self.model = next((e["turn"].get("model_reported") for e in self._calls if e.get("turn")), None) or "replay"

    async def complete(
        self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams, timeout_s: float
    ) -> Turn:
        if self._next >= len(self._calls):
            if self._clock is not None and self._budget is not None:
                self._clock.now = self._start + self._budget
            raise ProviderError("timeout", "replay: the recorded run ended here (budget exhausted)")
        event = self._calls[self._next]
        self._next += 1
        if self._clock is not None:
            self._clock.now = max(self._clock.now, self._start + float(event.get("t", 0.0)))
        if event.get("error"):
            raise ProviderError.from_dict(event["error"])
        return Turn.from_dict(event["turn"])
