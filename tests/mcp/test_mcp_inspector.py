"""End to end with the real MCP Inspector (npm ``@modelcontextprotocol/inspector``) and its TypeScript SDK.

The TypeScript client validates structured content against each tool's
``outputSchema``; these tests see what a user of the Inspector (or of any host
on that SDK) sees: the tool listing, an initialisation, an unknown action whose
``[UNKNOWN_ACTION]`` text and suggestion are visible (no ``-32602 Structured
content does not match``), an inapplicable action and a validation.

Each Inspector ``--cli`` call is one client connection (over stdio, a fresh
server too), and a session belongs to the connection that opened it, so the
``--cli`` calls here are those that need no session (listing, initialising,
bundled tasks, errors). The session sequence runs through the same
TypeScript SDK the Inspector ships (``@modelcontextprotocol/sdk`` from its
``node_modules``, whose ``Client.callTool`` makes the schema check) in one
connection, over stdio and over HTTP.

Needs ``npx`` (Node.js and npm, see docs/mcp.md; ``.ci/run`` installs them) and the npm registry, or
the package in npm's cache; skips saying why otherwise. ``PYPDDL_INSPECTOR``
names another package spec (e.g. a pinned version). ``npx -y`` fetches the
package once; the calls then run its ``mcp-inspector`` entry point from npx's
cache directly, which is what ``npx ... --cli`` runs, without npx's resolution
step for each call (seconds each on a busy machine).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from mcp_support import BW3, BW3_PLAN, http_server, serve_command

INSPECTOR = os.environ.get("PYPDDL_INSPECTOR", "@modelcontextprotocol/inspector@latest")  # as docs/mcp.md says
SCHEMA_MISMATCH = ("-32602", "does not match the tool's output schema", "Structured content does not match")


@cache
def _inspector() -> tuple[str | None, str]:
    """(the path of the package's ``mcp-inspector`` entry point, or ``None``; why not)."""
    if shutil.which("npx") is None:
        return None, "npx not found: install Node.js and npm (apt-get install nodejs npm) for the Inspector test"
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


def cli(inspector: str, target: list[str], method: str, tool: str | None = None, *, tool_error: bool = False,
        **arguments: str) -> dict[str, Any]:
    """One Inspector ``--cli`` call; its JSON output (asserting no schema-mismatch error). ``tool_error``: the
    tool is expected to answer ``isError``, which the Inspector's CLI (2.x) also reports with a non-zero exit."""
    command = [inspector, "--cli", *target, "--method", method]
    if tool:
        command += ["--tool-name", tool]
    for key, value in arguments.items():
        command += ["--tool-arg", f"{key}={value}"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=180)
    out = proc.stdout + proc.stderr
    for marker in SCHEMA_MISMATCH:
        assert marker not in out, f"the Inspector rejected the result: {out[-600:]}"
    if tool_error and proc.returncode != 0:
        assert '"tool_is_error"' in proc.stderr, out[-600:]
    else:
        assert proc.returncode == 0, out[-600:]
    return json.loads(proc.stdout[proc.stdout.index("{"):proc.stdout.rindex("}") + 1])


def texts(result: dict[str, Any]) -> list[str]:
    return [block["text"] for block in result["content"] if block.get("type") == "text"]


def test_inspector_cli_over_http_and_stdio(inspector: str) -> None:
    with http_server() as url:
        target = [url, "--transport", "http"]
        listed = cli(inspector, target, "tools/list")
        names = {t["name"] for t in listed["tools"]}
        assert {"initialise_session", "execute_single_action", "validate_complete_plan"} <= names
        assert all(t.get("outputSchema") for t in listed["tools"])
        opened = cli(inspector, target, "tools/call", "initialise_session", domain=BW3["domain"],
                     problem=BW3["problem"])
        assert not opened.get("isError") and opened["structuredContent"]["session_id"]
        gone = cli(inspector, target, "tools/call", "query_current_state", tool_error=True, session_id="0" * 24)
        assert gone["isError"] is True and "structuredContent" not in gone
        assert texts(gone)[0].startswith("[UNKNOWN_SESSION] ")
        assert json.loads(texts(gone)[1])["error"]["code"] == "UNKNOWN_SESSION"

    target = [sys.executable, *serve_command()[1:]]
    tasks = cli(inspector, target, "tools/call", "list_bundled_tasks")
    assert "blocksworld/p01" in tasks["structuredContent"]["tasks"]
    opened = cli(inspector, target, "tools/call", "initialise_session", task="blocksworld/p01")
    assert opened["structuredContent"]["session_id"]
    missing = cli(inspector, target, "tools/call", "initialise_session", tool_error=True, task="no-such/p1")
    assert missing["isError"] is True and texts(missing)[0].startswith("[UNKNOWN_TASK] ")


TS_CLIENT = r"""
// One MCP connection through the TypeScript SDK the Inspector ships (validates structured content).
const [clientModule, httpModule, stdioModule, mode, target, ...rest] = process.argv.slice(2);
const { Client } = await import(clientModule);
let transport;
if (mode === "http") {
  const { StreamableHTTPClientTransport } = await import(httpModule);
  transport = new StreamableHTTPClientTransport(new URL(target));
} else {
  const { StdioClientTransport } = await import(stdioModule);
  transport = new StdioClientTransport({ command: target, args: rest });
}
let input = "";
for await (const chunk of process.stdin) input += chunk;
const client = new Client({ name: "pypddl-ts-test", version: "1.0.0" });
await client.connect(transport);
const out = { tools: (await client.listTools()).tools.map((t) => t.name), results: [] };
let sid = null;
for (const [name, args] of JSON.parse(input)) {
  const filled = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, v === "$SID" ? sid : v]));
  try {
    const result = await client.callTool({ name, arguments: filled });
    if (name === "initialise_session" && result.structuredContent) sid = result.structuredContent.session_id;
    out.results.push({ name, result });
  } catch (err) {
    out.results.push({ name, thrown: String(err && err.message ? err.message : err) });
  }
}
await client.close();
console.log(JSON.stringify(out));
"""

CALLS = [
    ["initialise_session", BW3],
    ["execute_single_action", {"session_id": "$SID", "action": "(stak c b)"}],
    ["execute_single_action", {"session_id": "$SID", "action": "(stack a b)"}],
    ["execute_single_action", {"session_id": "$SID", "action": "(unstack c a)"}],
    ["validate_complete_plan", {"session_id": "$SID", "plan": BW3_PLAN}],
    ["validate_complete_plan", {"session_id": "$SID", "plan": BW3_PLAN[:1]}],
    ["query_applicable_actions", {"session_id": "$SID", "schema": "fly"}],
    ["query_action_history", {"session_id": "$SID"}],
    ["close_session", {"session_id": "$SID"}],
]


def sdk_modules(scope: Path) -> tuple[str, str, str]:
    """The modules of the TypeScript SDK the Inspector ships that hold ``Client``,
    ``StreamableHTTPClientTransport`` and ``StdioClientTransport``: the 2.x
    Inspector ships ``@modelcontextprotocol/client`` (SDK 2), the 0.x one
    ``@modelcontextprotocol/sdk`` (SDK 1)."""
    v2 = scope / "client" / "dist"
    if (v2 / "index.mjs").is_file():
        return str(v2 / "index.mjs"), str(v2 / "index.mjs"), str(v2 / "stdio.mjs")
    v1 = scope / "sdk" / "dist" / "esm" / "client"
    assert (v1 / "index.js").is_file(), f"no TypeScript SDK under {scope}"
    return str(v1 / "index.js"), str(v1 / "streamableHttp.js"), str(v1 / "stdio.js")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_typescript_client_runs_a_session(inspector: str, transport: str, tmp_path: Path) -> None:
    modules = sdk_modules(Path(inspector).parents[1] / "@modelcontextprotocol")  # node_modules/.bin/mcp-inspector
    script = tmp_path / "client.mjs"
    script.write_text(TS_CLIENT)

    def run(*target: str) -> dict[str, Any]:
        proc = subprocess.run(["node", str(script), *modules, transport, *target], input=json.dumps(CALLS),
                              capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, proc.stderr[-800:]
        return json.loads(proc.stdout)

    if transport == "http":
        with http_server() as url:
            out = run(url)
    else:
        out = run(sys.executable, *serve_command()[1:])
    assert "validate_complete_plan" in out["tools"]
    thrown = [r for r in out["results"] if "thrown" in r]
    assert not thrown, thrown  # e.g. -32602 Structured content does not match the tool's output schema
    opened, unknown, inapplicable, step, valid, invalid, bad_schema, history, closed = (
        r["result"] for r in out["results"])
    assert opened["structuredContent"]["session_id"]
    assert unknown["isError"] is True and "structuredContent" not in unknown
    assert unknown["content"][0]["text"].startswith("[UNKNOWN_ACTION] ")
    assert "did you mean 'stack'?" in unknown["content"][0]["text"]
    assert json.loads(unknown["content"][1]["text"])["error"]["suggestions"][0] == "stack"
    assert inapplicable["structuredContent"]["success"] is False
    assert inapplicable["structuredContent"]["failure"]["code"] == "INAPPLICABLE_ACTION"
    assert step["structuredContent"]["success"] is True
    assert valid["structuredContent"]["valid"] is True and invalid["structuredContent"]["valid"] is False
    assert bad_schema["isError"] is True and bad_schema["content"][0]["text"].startswith("[INVALID_ARGUMENT] ")
    assert history["structuredContent"]["actions"] == ["(unstack c a)"]
    assert closed["structuredContent"]["closed"] is True


# A temporal session (issue 31) through the same TypeScript SDK: every tool time adds or changes (the clock,
# running actions, advance_time, '(end ID)', timed histories and plans) is checked against its outputSchema.
TIMED_CALLS = [
    ["initialise_session", {"task": "workshop/p02"}],
    ["query_applicable_actions", {"session_id": "$SID"}],
    ["execute_single_action", {"session_id": "$SID", "action": "(hold-lamp t2 b1) [7]"}],
    ["execute_single_action", {"session_id": "$SID", "action": "(repair t1 m1 b1)"}],  # refused: not lit yet
    ["advance_time", {"session_id": "$SID", "to": 0.01}],
    ["execute_single_action", {"session_id": "$SID", "action": "(repair t1 m1 b1)"}],
    ["explain_action", {"session_id": "$SID", "action": "(test t1 m1 b1)"}],
    ["checkpoint", {"session_id": "$SID", "op": "save", "checkpoint": "repairing"}],
    ["query_current_state", {"session_id": "$SID"}],
    ["validate_complete_plan", {"session_id": "$SID"}],  # two actions still running
    ["advance_time", {"session_id": "$SID", "next_event": True}],
    ["query_applicable_actions", {"session_id": "$SID"}],
    ["execute_single_action", {"session_id": "$SID", "action": "(end 2)"}],
    ["advance_time", {"session_id": "$SID", "to": 6.02}],
    ["execute_single_action", {"session_id": "$SID", "action": "(test t1 m1 b1)"}],
    ["undo_last_action", {"session_id": "$SID"}],
    ["execute_single_action", {"session_id": "$SID", "action": "(test t1 m1 b1)"}],
    ["advance_time", {"session_id": "$SID", "to": 9}],  # refused: the lamp must end at 7
    ["advance_time", {"session_id": "$SID", "next_event": True}],
    ["execute_single_action", {"session_id": "$SID", "action": "(end 1)"}],
    ["advance_time", {"session_id": "$SID", "next_event": True}],
    ["execute_single_action", {"session_id": "$SID", "action": "(end 3)"}],
    ["query_action_history", {"session_id": "$SID"}],
    ["validate_complete_plan", {"session_id": "$SID"}],
    ["validate_complete_plan", {"session_id": "$SID", "plan": "0: (repair t1 m1 b1) [6]\n"}],
    ["validate_complete_plan", {"session_id": "$SID", "plan": "0: (repair t1 m1 b1 [6]\n"}],
    ["advance_time", {"session_id": "$SID", "to": -1}],
    ["undo_last_action", {"session_id": "$SID"}],  # the test's end
    ["checkpoint", {"session_id": "$SID", "op": "restore", "checkpoint": "repairing"}],
    ["close_session", {"session_id": "$SID"}],
]


def test_typescript_client_steps_through_time(inspector: str, tmp_path: Path) -> None:
    modules = sdk_modules(Path(inspector).parents[1] / "@modelcontextprotocol")
    script = tmp_path / "client.mjs"
    script.write_text(TS_CLIENT)
    proc = subprocess.run(["node", str(script), *modules, "stdio", sys.executable, *serve_command()[1:]],
                          input=json.dumps(TIMED_CALLS), capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-800:]
    out = json.loads(proc.stdout)
    thrown = [r for r in out["results"] if "thrown" in r]
    assert not thrown, thrown  # e.g. -32602 Structured content does not match the tool's output schema
    got = [r["result"] for r in out["results"]]
    ok = [r.get("structuredContent") for r in got]
    assert "advance_time" in out["tools"] and ok[1]["clock"] == 0 and ok[1]["starts"]
    assert ok[2]["success"] and ok[2]["running"][0]["id"] == 1
    assert ok[3]["success"] is False and ok[3]["failure"]["unsatisfied"] == ["(lit b1)"]
    assert ok[4]["success"] and ok[4]["clock"] == 0.01 and ok[5]["success"]
    assert ok[6]["applicable"] is False and ok[7]["name"] == "repairing"
    assert [r["action"] for r in ok[8]["running"]] == ["(hold-lamp t2 b1)", "(repair t1 m1 b1)"]
    assert ok[9]["valid"] is False and ok[9]["failure"]["code"] == "ACTIONS_RUNNING"
    assert ok[10]["clock"] == 6.01 and ok[11]["actions"] == ["(end 2)"] and ok[12]["success"]
    assert ok[14]["success"] and ok[15]["undone"] == ["6.02: (test t1 m1 b1) (started, still running)"]
    assert ok[16]["success"] and ok[17]["success"] is False and ok[17]["clock"] == 6.02
    assert ok[19]["success"] and ok[21]["success"] and ok[21]["goal_reached"] is True
    assert ok[22]["actions"] == ["0: (hold-lamp t2 b1) [7]", "0.01: (repair t1 m1 b1) [6]",
                                 "6.02: (test t1 m1 b1) [2]"]
    assert ok[23]["valid"] is True and ok[23]["makespan"] == 8.02
    assert ok[24]["valid"] is False and ok[24]["failure"]["time"] == 0
    for bad, code in ((got[25], "SYNTAX_ERROR"), (got[26], "INVALID_ARGUMENT")):
        assert bad["isError"] is True and "structuredContent" not in bad
        assert bad["content"][0]["text"].startswith(f"[{code}] ")
    assert ok[27]["undone"] == ["the end of 6.02: (test t1 m1 b1) [2]"] and ok[27]["goal_reached"] is False
    assert ok[28]["step"] == 2 and ok[29]["closed"] is True
