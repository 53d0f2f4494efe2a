"""The agentic approach's view of the engine: a real MCP client session.

:class:`Toolbox` connects an :class:`mcp.Client` to the engine's MCP server,
either in process (``build_server()``, the default: fast, no subprocess) or
as a ``pypddl serve`` subprocess over stdio, lists its tools and turns the
listing into provider-neutral :class:`~pypddl_experiments.llm.types.ToolSpec`
objects. Nothing about the tools is written by hand here: names,
descriptions and input schemas come from ``tools/list``. Two experiment
settings act on the listing:

* the tool set: which of the listed tools the model is shown (default: the
  paper's seven);
* pinned arguments: experiment settings such as the feedback level are sent
  with every call of a tool and removed from the schema the model sees, so
  the model cannot change them (they are listed in the manifest).

Each run's server reads only that run's domain and problem
(``ServerOptions.allowed_files``, ``pypddl serve --allow-file`` over stdio):
the model cannot open another task's files, such as the reference plans.

Tool results are reduced to text for the model (the text content, or the
structured content as JSON when there is no text; for a tool error its first
text block), keeping ``is_error`` and the structured content (for an error,
``{"error": ...}`` from its JSON block) for the harness. Transport failures and timeouts
become error results, so the model sees them and the run goes on.
"""

from __future__ import annotations

import copy
import json
import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from pypddlengine.mcp_server.names import PAPER_TOOLS
from pypddlengine.mcp_server.wire import unwrap

from .types import ToolSpec

__all__ = ["PAPER_TOOLS", "ToolOutcome", "Toolbox", "ToolboxSettings", "error_code", "tool_specs_from_listing"]



@dataclass(frozen=True)
class ToolboxSettings:
    """``tools``: names to show the model (``None``: every listed tool).
    ``pinned``: ``{tool: {argument: value}}`` sent on every call and hidden
    from the model. ``transport``: ``inprocess`` or ``stdio``; ``command``:
    the stdio server command (default ``pypddl serve``)."""

    tools: tuple[str, ...] | None = PAPER_TOOLS
    pinned: dict[str, dict[str, Any]] = field(default_factory=dict)
    transport: str = "inprocess"
    command: tuple[str, ...] | None = None
    server_options: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {
            "tools": list(self.tools) if self.tools is not None else None,
            "pinned": self.pinned,
            "transport": self.transport,
            "command": list(self.command or default_command()) if self.transport == "stdio" else None,
            "server_options": self.server_options,
            "file_access": "the run's domain and problem only",
        }


def default_command() -> tuple[str, ...]:
    return (sys.executable, "-m", "pypddlengine.cli", "serve")


def parse_command(text: str | None) -> tuple[str, ...] | None:
    return tuple(shlex.split(text)) if text else None


@dataclass
class ToolOutcome:
    text: str
    is_error: bool
    structured: dict[str, Any] | None
    latency_s: float
    arguments: dict[str, Any]


def _dump_tool(tool: Any) -> dict[str, Any]:
    """A listed tool as a plain dict with v2 (snake_case) or v1 names."""
    data = tool if isinstance(tool, dict) else tool.model_dump(mode="json", by_alias=False, exclude_none=True)
    schema = data.get("input_schema") or data.get("inputSchema") or {"type": "object", "properties": {}}
    return {"name": data["name"], "description": data.get("description") or "", "input_schema": schema}


def tool_specs_from_listing(
    listing: Sequence[Any], *, tools: Sequence[str] | None = None, pinned: dict[str, dict[str, Any]] | None = None
) -> list[ToolSpec]:
    """Provider-neutral specs for the listed tools, in the order of ``tools``
    (or of the listing). Pinned arguments leave the schema's ``properties``
    and ``required``. A name in ``tools`` that the server does not list is an
    error: the experiment would silently run with fewer tools."""
    by_name = {d["name"]: d for d in (_dump_tool(t) for t in listing)}
    names = list(tools) if tools is not None else list(by_name)
    missing = [n for n in names if n not in by_name]
    if missing:
        raise LookupError(
            f"the MCP server does not list the tool(s) {', '.join(missing)}; it lists {', '.join(by_name)}"
        )
    specs = []
    for name in names:
        d = by_name[name]
        schema = copy.deepcopy(d["input_schema"])
        schema.setdefault("type", "object")
        for arg in (pinned or {}).get(name, {}):
            schema.get("properties", {}).pop(arg, None)
            if "required" in schema:
                schema["required"] = [r for r in schema["required"] if r != arg]
        specs.append(ToolSpec(name, d["description"], schema))
    return specs


_CODE = re.compile(r"^(?:ERROR: )?\[([A-Z][A-Z0-9_]*)\]")


def error_code(outcome: ToolOutcome) -> str | None:
    """The stable code of a tool error (``FILE_ACCESS_DENIED``, ...), ``None``
    for a success or an error without one. The one place the harness reads
    codes: from ``{"error": {"code"}}`` (read by :func:`pypddlengine.mcp_server.wire.unwrap` from the
    error's JSON block), else from the ``[CODE] message`` first line of the text."""
    if not outcome.is_error:
        return None
    error = (outcome.structured or {}).get("error")
    if isinstance(error, dict) and isinstance(error.get("code"), str):
        return str(error["code"])
    match = _CODE.match(outcome.text)
    return match.group(1) if match else None


class Toolbox:
    """An open MCP client on the engine's server (``async with``).
    ``allowed_files``: the only files the server may read (``None``: the
    server's own default; ``()``: none)."""

    def __init__(self, settings: ToolboxSettings | None = None, *,
                 allowed_files: Sequence[str | Path] | None = None) -> None:
        self.settings = settings or ToolboxSettings()
        self.allowed_files = None if allowed_files is None else tuple(str(p) for p in allowed_files)
        self.tools: list[ToolSpec] = []
        self.listing: list[dict[str, Any]] = []
        self._client: Any = None
        self._names: set[str] = set()

    async def __aenter__(self) -> Toolbox:
        from mcp import Client

        s = self.settings
        if s.transport == "inprocess":
            from pypddlengine.mcp_server import build_server

            options = dict(s.server_options)
            if self.allowed_files is not None:
                options["allowed_files"] = self.allowed_files
            target: Any = build_server(**options)
        elif s.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters

            command = list(s.command or default_command())
            if self.allowed_files is not None:
                for path in self.allowed_files:
                    command += ["--allow-file", path]
                if not self.allowed_files:
                    command.append("--no-files")
            target = StdioServerParameters(command=command[0], args=command[1:])
        else:
            raise ValueError(f"unknown MCP transport {s.transport!r}; use 'inprocess' or 'stdio'")
        self._client = Client(target)
        await self._client.__aenter__()
        try:
            listed: list[Any] = []
            cursor = None
            while True:
                page = await self._client.list_tools(cursor=cursor)
                listed.extend(page.tools)
                cursor = getattr(page, "next_cursor", None)
                if not cursor:
                    break
            self.listing = [_dump_tool(t) for t in listed]
            self.tools = tool_specs_from_listing(self.listing, tools=s.tools, pinned=s.pinned)
            self._names = {t.name for t in self.tools}
        except BaseException:
            await self.__aexit__(None, None, None)  # close cleanly, then raise the error itself
            raise
        return self

    async def __aexit__(self, *exc: Any) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.__aexit__(*exc)

    def offers(self, name: str) -> bool:
        return name in self._names

    async def call(self, name: str, arguments: dict[str, Any], timeout_s: float) -> ToolOutcome:
        """Call a tool with the pinned arguments added; never raises for
        tool-level trouble (it becomes an error result)."""
        args = dict(arguments)
        args.update(self.settings.pinned.get(name, {}))
        started = time.monotonic()
        result = None
        try:
            with anyio.move_on_after(max(timeout_s, 0.001)):
                result = await self._client.call_tool(name, args, read_timeout_seconds=max(timeout_s, 0.001))
        except Exception as err:  # MCPError, transport failures, invalid results: the model sees them
            text = f"Error executing tool {name}: {type(err).__name__}: {err}"
            return ToolOutcome(text, True, None, time.monotonic() - started, args)
        latency = time.monotonic() - started
        if result is None:
            return ToolOutcome(f"Error executing tool {name}: no reply within {timeout_s:.1f} s", True, None, latency,
                               args)
        reply = unwrap(result)  # an error: the model sees its first block, the harness keeps {"error": {...}}
        return ToolOutcome(reply.text, reply.is_error, reply.structured, latency, args)

    def describe(self) -> dict[str, Any]:
        import hashlib

        shown = [t.to_dict() for t in self.tools]
        return {
            **self.settings.describe(),
            "listed": [t["name"] for t in self.listing],
            "shown": [t.name for t in self.tools],
            "shown_sha256": hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest(),
        }
