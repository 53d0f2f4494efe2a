"""End to end with the real MCP Inspector CLI (npm ``@modelcontextprotocol/inspector``, TypeScript SDK).

The TypeScript client validates structured content against each tool's
``outputSchema``; this test sees what a user of the Inspector (or of any host on
that SDK) sees: the tool listing, an initialisation, an unknown action whose
``[UNKNOWN_ACTION]`` text and suggestion are visible (no ``-32602 Structured
content does not match``), an inapplicable action and a validation.

Each ``--cli`` call is one client process. Over HTTP the server keeps its
sessions between calls, so one server answers the whole sequence; over stdio
every call starts a fresh server, so only calls that need no session are made
there. Needs ``npx`` (Node.js 20+; ``.ci/run`` installs it) and the npm
registry, or the package in npm's cache; skips saying why otherwise.
``PYPDDL_INSPECTOR`` names another package spec (e.g. a pinned version).
``npx -y`` fetches the package once; the calls then run its ``mcp-inspector``
entry point from npx's cache directly, which is what ``npx ... --cli`` runs,
without npx's resolution step for each call (seconds each on a busy machine).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import cache
from typing import Any

import pytest
from mcp_support import BW3, BW3_PLAN, http_server, serve_command

INSPECTOR = os.environ.get("PYPDDL_INSPECTOR", "@modelcontextprotocol/inspector")
SCHEMA_MISMATCH = ("-32602", "does not match the tool's output schema", "Structured content does not match")


@cache
def _inspector() -> tuple[str | None, str]:
    """(the path of the package's ``mcp-inspector`` entry point, or ``None``; why not)."""
    if shutil.which("npx") is None:
        return None, "npx not found: install Node.js 20+ and npm (apt-get install nodejs npm) for the Inspector test"
    try:
        proc = subprocess.run(["npx", "-y", "-p", INSPECTOR, "which", "mcp-inspector"], capture_output=True,
                              text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None, f"npx could not fetch {INSPECTOR} within 300 s"
    path = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    if proc.returncode != 0 or not os.path.isfile(path):
        return None, f"npx could not fetch {INSPECTOR}: {(proc.stderr or proc.stdout).strip()[-300:]}"
    return path, ""


@pytest.fixture(scope="module")
def inspector() -> str:
    path, reason = _inspector()
    if path is None:
        pytest.skip(reason)
    return path


def cli(inspector: str, target: list[str], method: str, tool: str | None = None, **arguments: str) -> dict[str, Any]:
    """One Inspector ``--cli`` call; its JSON output (asserting no schema-mismatch error)."""
    command = [inspector, "--cli", *target, "--method", method]
    if tool:
        command += ["--tool-name", tool]
    for key, value in arguments.items():
        command += ["--tool-arg", f"{key}={value}"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=180)
    out = proc.stdout + proc.stderr
    for marker in SCHEMA_MISMATCH:
        assert marker not in out, f"the Inspector rejected the result: {out[-600:]}"
    assert proc.returncode == 0, out[-600:]
    return json.loads(proc.stdout[proc.stdout.index("{"):])


def texts(result: dict[str, Any]) -> list[str]:
    return [block["text"] for block in result["content"] if block.get("type") == "text"]


def test_inspector_over_http_lists_initialises_acts_and_validates(inspector: str) -> None:
    with http_server() as url:
        target = [url, "--transport", "http"]
        listed = cli(inspector, target, "tools/list")
        names = {t["name"] for t in listed["tools"]}
        assert {"initialise_session", "execute_single_action", "validate_complete_plan"} <= names
        assert all(t.get("outputSchema") for t in listed["tools"])

        opened = cli(inspector, target, "tools/call", "initialise_session", domain=BW3["domain"], problem=BW3["problem"])
        assert not opened.get("isError")
        sid = opened["structuredContent"]["session_id"]

        unknown = cli(inspector, target, "tools/call", "execute_single_action", session_id=sid, action="(stak c b)")
        assert unknown["isError"] is True and "structuredContent" not in unknown
        first, blob = texts(unknown)
        assert first.startswith("[UNKNOWN_ACTION] ") and "did you mean 'stack'?" in first
        assert json.loads(blob)["error"]["suggestions"][0] == "stack"

        inapplicable = cli(inspector, target, "tools/call", "execute_single_action", session_id=sid, action="(stack a b)")
        assert not inapplicable.get("isError")
        outcome = inapplicable["structuredContent"]
        assert outcome["success"] is False and outcome["failure"]["code"] == "INAPPLICABLE_ACTION"

        valid = cli(inspector, target, "tools/call", "validate_complete_plan", session_id=sid, plan="\n".join(BW3_PLAN))
        assert valid["structuredContent"]["valid"] is True
        invalid = cli(inspector, target, "tools/call", "validate_complete_plan", session_id=sid, plan=BW3_PLAN[0])
        assert invalid["structuredContent"]["valid"] is False

        gone = cli(inspector, target, "tools/call", "query_current_state", session_id="0" * 24)
        assert gone["isError"] is True and texts(gone)[0].startswith("[UNKNOWN_SESSION] ")


def test_inspector_over_stdio_needs_no_session(inspector: str) -> None:
    """Over stdio each call is a fresh server: calls that need no session work,
    and an error is readable text."""
    target = [sys.executable, *serve_command()[1:]]
    tasks = cli(inspector, target, "tools/call", "list_bundled_tasks")
    assert "blocksworld/p01" in tasks["structuredContent"]["tasks"]
    opened = cli(inspector, target, "tools/call", "initialise_session", task="blocksworld/p01")
    assert opened["structuredContent"]["session_id"]
    missing = cli(inspector, target, "tools/call", "initialise_session", task="no-such/p1")
    assert missing["isError"] is True and texts(missing)[0].startswith("[UNKNOWN_TASK] ")
