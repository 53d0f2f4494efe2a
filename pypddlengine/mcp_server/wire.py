"""How a tool error travels to the client, and how a client reads it back.

The MCP specification (tools, "Structured Content" and "Output Schema") says
that when a tool declares an ``outputSchema`` the server MUST return structured
results that conform to it, and that clients SHOULD validate structured
content against it; tool execution errors are reported in the result with
``isError: true``. Every tool of this server declares an output schema that
describes its *successful* answer, so an error result carries **no**
``structuredContent`` (the TypeScript SDK validates structured content
whenever it is present, and an ``{"error": ...}`` object would turn the
readable error into ``-32602 Structured content does not match``). Instead an
error result holds two text blocks:

1. ``[CODE] message; hint: ...`` (the hint says "did you mean ...?" where there
   is a suggestion; a PDDL error adds its caret snippet on the next lines);
2. the same error as JSON: ``{"error": {"code", "message", "hint", "tool",
   "suggestions"?, "location"?: {"file", "line", "column"}, "details"?}}``.

:func:`read_error` turns either form back into a dict (the JSON block when
present, else the first line), and :func:`unwrap` a whole tool result into
its text and data: the one client-side reading, used by ``pypddl demo``, the
experiment harness and the tests.
"""


import json
import re
from dataclasses import dataclass
from typing import Any

from mcp_types import CallToolResult, TextContent

__all__ = ["ERROR_LINE", "ToolReply", "error_result", "read_error", "text_blocks", "unwrap"]

ERROR_LINE = re.compile(r"^(?:ERROR: )?\[(?P<code>[A-Z][A-Z0-9_]*)\] (?P<message>.+?)(?:; hint: (?P<hint>.*))?$")
"""The first line of an error's text."""


def error_result(text: str, error: dict[str, Any]) -> CallToolResult:
    """A tool error result: ``text`` then ``{"error": error}`` as JSON, no structured content."""
    blob = json.dumps({"error": error}, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text), TextContent(type="text", text=blob)],
                          is_error=True)


def _field(result: Any, *names: str) -> Any:
    for name in names:
        if isinstance(result, dict):
            if name in result:
                return result[name]
        elif hasattr(result, name):
            return getattr(result, name)
    return None


def text_blocks(result: Any) -> list[str]:
    """The text of each text block of a tool result (an SDK ``CallToolResult``
    or its JSON form as a dict)."""
    out = []
    for block in _field(result, "content") or []:
        text = _field(block, "text")
        if isinstance(text, str):
            out.append(text)
    return out


def _error_json(text: str) -> dict[str, Any] | None:
    if not text.startswith('{"error"'):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, dict) and isinstance(error.get("code"), str) else None


def read_error(result: Any) -> dict[str, Any] | None:
    """The error of a tool result as a dict with at least ``code``, ``message``
    and ``hint`` (``None`` when the result is not an error). Reads the JSON
    block; without one, parses the ``[CODE] message; hint: ...`` first line
    (code ``None`` when that line is not in the format)."""
    if not (_field(result, "is_error", "isError") or False):
        return None
    blocks = text_blocks(result)
    for text in blocks[1:]:
        error = _error_json(text)
        if error is not None:
            return error
    first = blocks[0].splitlines()[0] if blocks and blocks[0] else ""
    match = ERROR_LINE.match(first)
    if match is None:
        return {"code": None, "message": first, "hint": ""}
    return {"code": match["code"], "message": match["message"], "hint": match["hint"] or ""}


@dataclass(frozen=True, slots=True)
class ToolReply:
    """A tool result as a client reads it (see :func:`unwrap`)."""

    is_error: bool
    text: str
    """An error's first text block (``[CODE] message; hint: ...``); on success the text of every content
    block (a block that is not text as JSON), or the structured content as JSON when there is no text."""
    structured: dict[str, Any] | None
    """The structured content on success (``None`` when the result has none); ``{"error": {...}}`` (see
    :func:`read_error`) for an error."""

    @property
    def data(self) -> dict[str, Any]:
        """:attr:`structured`, ``{}`` when there is none."""
        return dict(self.structured or {})


def unwrap(result: Any) -> ToolReply:
    """Read a tool result (an SDK ``CallToolResult`` or its JSON form as a
    dict): whether it is an error, the text a model sees and the data a
    program keeps."""
    error = read_error(result)
    if error is not None:
        blocks = text_blocks(result)
        return ToolReply(True, blocks[0] if blocks else f"[{error['code']}] {error['message']}", {"error": error})
    parts = []
    for block in _field(result, "content") or []:
        text = _field(block, "text")
        if isinstance(text, str):
            parts.append(text)
        else:
            parts.append(json.dumps(block if isinstance(block, dict) else block.model_dump(
                mode="json", exclude_none=True)))
    structured = _field(result, "structured_content", "structuredContent")
    text = "\n".join(parts)
    if not text and structured is not None:
        text = json.dumps(structured, ensure_ascii=False)
    return ToolReply(False, text, structured)
