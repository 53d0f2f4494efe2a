"""What an MCP host sees: the tool listing (names, descriptions, schemas,
annotations), resources, token frugality, and the two CLI commands."""

from __future__ import annotations

import json
import subprocess
import threading

import pytest
from click.testing import CliRunner
from mcp import Client
from mcp_support import BW_DOMAIN, PAPER_TOOLS, Tools, bw_problem, serve_command

from pypddlengine.bundled import bundled_root, bundled_task, bundled_tasks
from pypddlengine.cli import main
from pypddlengine.mcp_server import run_server
from pypddlengine.mcp_server.names import TOOLS

pytestmark = pytest.mark.anyio

READ_ONLY = {"query_current_state", "query_applicable_actions", "query_action_history", "validate_complete_plan",
             "explain_action", "list_sessions", "list_bundled_tasks"}


async def test_tool_listing(server) -> None:  # type: ignore[no-untyped-def]
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == set(TOOLS) and set(PAPER_TOOLS) < set(TOOLS)  # the one list
    for name, tool in tools.items():
        assert tool.description and len(tool.description) > 40, name
        assert "\n " not in tool.description, f"{name}: docstring indentation leaked into the description"
        assert tool.output_schema and tool.output_schema.get("properties"), name
        for param, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), f"{name}.{param} has no description"
        assert tool.annotations is not None and tool.annotations.read_only_hint is (name in READ_ONLY), name
        assert tool.annotations.open_world_hint is False
    assert tools["execute_single_action"].input_schema["required"] == ["session_id", "action"]
    assert set(tools["initialise_session"].input_schema["properties"]) >= {"task", "domain", "problem", "feedback",
                                                                          "rendering"}
    # what a model is shown (name, description, input schema) stays small
    visible = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools.values()]
    # 12,000 before the backend option (issue 21) and the state format; 12,800 before the state's pages and the
    # reply budget (issue 33: five parameters of query_current_state, one of initialise_session); 14,000 before
    # time (issue 31: the advance_time tool, validate's epsilon, a sentence on temporal tasks in three tools)
    assert len(json.dumps(visible)) < 15_200


async def test_instructions_and_bundled_resources(server) -> None:  # type: ignore[no-untyped-def]
    async with Client(server) as client:
        assert "initialise_session" in (client.instructions or "")
        assert client.server_info is not None and client.server_info.name == "pypddlengine"
        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert "pddl://domains/blocksworld" in uris
        assert {f"pddl://problems/{t}" for t in bundled_tasks()} <= uris
        domain = await client.read_resource("pddl://domains/blocksworld")
        assert domain.contents[0].text == (bundled_root("domains") / "blocksworld.pddl").read_text()
        task = bundled_tasks()[0]
        problem = await client.read_resource(f"pddl://problems/{task}")
        assert problem.contents[0].text == bundled_task(task)[1].read_text()
        listed = await Tools(client).ok("list_bundled_tasks")
        assert listed["tasks"] == bundled_tasks() and "blocksworld" in listed["domains"]


async def test_the_compact_state_format_is_explained_to_the_model(tools: Tools, server) -> None:  # type: ignore[no-untyped-def]
    """Issue 25 item 15: ``"handempty": [""]`` and ``"on": ["d b"]`` are said
    in words in the server's instructions and in the descriptions of the tools
    that return states, and the words match what the tools return."""
    async with Client(server) as client:
        instructions = client.instructions or ""
        described = {t.name: t.description or "" for t in (await client.list_tools()).tools}
    for text in (instructions, described["query_current_state"], described["initialise_session"]):
        assert '"handempty": [""]' in text and "is (on d b) and (handempty)" in text and "separated by spaces" in text
    opened = await tools.ok("initialise_session", domain=BW_DOMAIN, problem=bw_problem(3))
    state = (await tools.ok("query_current_state", session_id=opened["session_id"]))["state"]
    assert state["handempty"] == [""] and all(" " in args for args in state["on"])


async def test_bundled_names_work_where_small_models_put_them(tools: Tools) -> None:
    """Small models pass a bare name as domain content: a bundled name is accepted."""
    task = bundled_tasks()[0]
    domain, problem = task.split("/")
    summary = await tools.ok("initialise_session", domain=domain, problem=problem)
    assert summary["sources"] == {"domain": f"bundled:{domain}", "problem": f"bundled:{task}"}
    summary = await tools.ok("initialise_session", task=task)
    assert summary["sources"]["problem"] == f"bundled:{task}"


async def test_compact_rendering_is_smaller_than_plain(tools: Tools) -> None:
    problem = bw_problem(40)
    sizes = {}
    for rendering in ("compact", "plain"):
        sid = (await tools.ok("initialise_session", domain=BW_DOMAIN, problem=problem,
                              rendering=rendering))["session_id"]
        state = await tools.call("query_current_state", session_id=sid)
        step = await tools.call("execute_single_action", session_id=sid, action="(unstack b1 b2)")
        sizes[rendering] = (len(state.text), len(step.text))
    assert sizes["compact"][0] < 0.75 * sizes["plain"][0]  # grouped by predicate
    assert sizes["compact"][1] < 0.25 * sizes["plain"][1]  # a diff instead of the whole state


def test_demo_command_solves_a_bundled_task() -> None:
    result = CliRunner().invoke(main, ["demo"])
    assert result.exit_code == 0, result.output
    out = result.output
    for expected in ["> initialise_session(", "> query_current_state(", "> query_applicable_actions(",
                     "success=false [INAPPLICABLE_ACTION]", "tool error: [UNKNOWN_ACTION]",
                     "> validate_complete_plan(", "valid plan", "VALID plan"]:
        assert expected in out, expected


def test_demo_reports_a_bad_task_on_stderr() -> None:
    result = CliRunner().invoke(main, ["demo", "--task", "nope/p1"])
    assert result.exit_code == 2 and "[UNKNOWN_TASK]" in result.output and "Traceback" not in result.output


def test_serve_help_and_bad_transport() -> None:
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0 and "--http" in result.output and "--max-sessions" in result.output
    with pytest.raises(ValueError, match="unknown transport"):
        run_server("websocket")


def test_stdio_server_writes_nothing_but_protocol_to_stdout() -> None:
    """Raw JSON-RPC over the subprocess's pipes: every stdout line is a
    JSON-RPC message, also when a tool fails (logs go to stderr)."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "query_current_state", "arguments": {"session_id": "nope"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "initialise_session", "arguments": {"task": bundled_tasks()[0]}}},
    ]
    proc = subprocess.Popen(serve_command("--log-level", "INFO"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(60, proc.kill)
    watchdog.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        proc.stdin.flush()
        replies: dict[int, dict] = {}
        while len(replies) < 3:  # every line must be a JSON-RPC message
            line = proc.stdout.readline()
            assert line, "the server closed stdout early"
            message = json.loads(line)
            assert message["jsonrpc"] == "2.0"
            replies[message["id"]] = message
        proc.stdin.close()
        assert proc.stdout.read().strip() == ""
        proc.wait(timeout=30)
        stderr = proc.stderr.read()
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert replies[2]["result"]["isError"]
    assert replies[2]["result"]["content"][0]["text"].startswith("[UNKNOWN_SESSION]")
    assert replies[3]["result"]["structuredContent"]["session_id"]
    assert "UNKNOWN_SESSION" in stderr  # the log line went to stderr
