"""Helpers shared by the MCP tests: a checked tool caller, the engine oracle,
state flattening, and the corpus paths (read in place, never copied)."""

from __future__ import annotations

import itertools
import os
import re
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters

from pypddlengine.loading import open_session
from pypddlengine.mcp_server.wire import read_error, unwrap
from pypddlengine.session import Session

BW_IPC = Path("potassco-pddl-instances/ipc2000-blocks-strips-typed")

# A fixed task for tests that name actions (the bundled tasks may be regenerated).
BW_DOMAIN = """; four-operator typed Blocksworld (test copy)
(define (domain bw)
  (:requirements :strips :typing)
  (:types block)
  (:predicates (on ?x - block ?y - block) (ontable ?x - block) (clear ?x - block) (holding ?x - block) (handempty))
  (:action pick-up :parameters (?b - block)
    :precondition (and (clear ?b) (ontable ?b) (handempty))
    :effect (and (holding ?b) (not (clear ?b)) (not (ontable ?b)) (not (handempty))))
  (:action put-down :parameters (?b - block)
    :precondition (holding ?b)
    :effect (and (ontable ?b) (clear ?b) (handempty) (not (holding ?b))))
  (:action stack :parameters (?b - block ?t - block)
    :precondition (and (holding ?b) (clear ?t))
    :effect (and (on ?b ?t) (clear ?b) (handempty) (not (holding ?b)) (not (clear ?t))))
  (:action unstack :parameters (?b - block ?u - block)
    :precondition (and (on ?b ?u) (clear ?b) (handempty))
    :effect (and (holding ?b) (clear ?u) (not (on ?b ?u)) (not (clear ?b)) (not (handempty)))))
"""
BW3_PROBLEM = """; c sits on a, b on the table; build a on b on c
(define (problem bw3) (:domain bw)
  (:objects a b c - block)
  (:init (on c a) (ontable a) (ontable b) (clear c) (clear b) (handempty))
  (:goal (and (on a b) (on b c))))
"""
BW3 = {"domain": BW_DOMAIN, "problem": BW3_PROBLEM}
BW3_PLAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]


def bw_problem(blocks: int, *, flat: bool = False) -> str:
    """``blocks`` blocks in one tower b1 on b2 on ... (b1 clear), or all on
    the table (``flat``); the goal is the reversed tower. Deterministic."""
    names = [f"b{i}" for i in range(1, blocks + 1)]
    if flat:
        init = [f"(ontable {x})" for x in names] + [f"(clear {x})" for x in names] + ["(handempty)"]
    else:
        init = [f"(on {x} {y})" for x, y in itertools.pairwise(names)] + [f"(ontable {names[-1]})", "(clear b1)",
                                                                      "(handempty)"]
    goal = [f"(on {y} {x})" for x, y in itertools.pairwise(names)]
    return (f"(define (problem bw{blocks}) (:domain bw)\n (:objects {' '.join(names)} - block)\n"
            f" (:init {' '.join(init)})\n (:goal (and {' '.join(goal)})))\n")
PAPER_TOOLS = (
    "initialise_session",
    "query_current_state",
    "query_applicable_actions",
    "execute_single_action",
    "reset_to_initial_state",
    "query_action_history",
    "validate_complete_plan",
)
ERROR_LINE = re.compile(r"^\[(?P<code>[A-Z][A-Z_]*)\] (?P<message>.+); hint: (?P<hint>\S.*)$")
TRACEBACK_MARKERS = ("Traceback", 'File "', "site-packages", "Error executing tool")


class ToolErrorSeen(AssertionError):
    pass


@dataclass
class Reply:
    is_error: bool
    text: str
    data: dict[str, Any]

    @property
    def code(self) -> str:
        return self.data["error"]["code"]


def check_error_format(result: Any) -> str:
    """Assert the one error format and return the code: ``isError`` with no
    structured content (every tool's output schema describes its success), a
    first text block ``[CODE] message; hint: ...`` and a second holding the
    same error as JSON (:func:`read_error`), no traceback anywhere."""
    assert result.is_error
    assert result.structured_content is None, f"an error result carries structured content: {result}"
    text = result.content[0].text
    first = text.splitlines()[0]
    match = ERROR_LINE.match(first)
    assert match, f"error line not in the '[CODE] message; hint: ...' format: {first!r}"
    error = read_error(result)
    assert error is not None and len(result.content) == 2, result
    assert error["code"] == match["code"]
    assert error["hint"] == match["hint"]
    assert error["message"] == match["message"]
    for block in result.content:
        for marker in TRACEBACK_MARKERS:
            assert marker not in block.text, f"{marker!r} leaked into a tool error: {block.text!r}"
    return match["code"]


class Tools:
    """``await tools.ok(name, **args)`` -> structured result (asserting success),
    ``await tools.error(name, **args)`` -> Reply (asserting a well-formed tool error)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls = 0

    async def call(self, name: str, **arguments: Any) -> Reply:
        result = await self.client.call_tool(name, arguments)
        self.calls += 1
        if result.is_error:
            check_error_format(result)
        reply = unwrap(result)
        return Reply(reply.is_error, reply.text, reply.data)

    async def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        reply = await self.call(name, **arguments)
        if reply.is_error:
            raise ToolErrorSeen(f"{name}({arguments}) failed: {reply.text}")
        return reply.data

    async def error(self, name: str, **arguments: Any) -> Reply:
        reply = await self.call(name, **arguments)
        assert reply.is_error, f"{name}({arguments}) should have failed but returned {reply.text[:300]}"
        return reply


def flatten(state: dict[str, list[str]] | list[str]) -> list[str]:
    """A grouped (compact) state back to sorted PDDL atoms."""
    if isinstance(state, list):
        return sorted(state)
    return sorted(f"({p} {args})" if args else f"({p})" for p, group in state.items() for args in group)


def oracle(domain: Path, problem: Path, feedback: str = "plain") -> Session:
    return open_session(domain, problem, feedback=feedback)


def ipc_task(corpus: Path, n: int) -> tuple[Path, Path, Path]:
    """Domain, problem and lama-first plan of IPC-2000 Blocksworld instance n."""
    folder = corpus / BW_IPC
    return folder / "domain.pddl", folder / f"instance-{n}.pddl", folder / "plans-lama-first" / f"instance-{n}.plan"


def plan_steps(plan_file: Path) -> list[str]:
    return [line.strip() for line in plan_file.read_text().splitlines() if line.strip().startswith("(")]


def serve_command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "pypddlengine.cli", "serve", *extra]


def stdio_params(*extra: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=serve_command(*extra)[1:])


def token_client(url: str, token: str | None = None, **headers: str) -> Any:
    """An MCP client transport to ``url`` sending ``Authorization: Bearer <token>``
    (and ``headers``); pass it to ``mcp.Client``."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    sent = {k.replace("_", "-"): v for k, v in headers.items()}
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers=sent, timeout=60))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_http(*extra: str, stderr: int = subprocess.PIPE) -> tuple[subprocess.Popen[bytes], str]:
    """``pypddl serve --http`` on a free loopback port, waited for until it
    accepts connections: the process (the caller stops it) and the MCP URL."""
    port = free_port()
    proc = subprocess.Popen(serve_command("--http", "--port", str(port), *extra),
                            stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)


@contextmanager
def http_server(*extra: str, timeout: float = 30.0, host: str = "127.0.0.1",
                env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """``pypddl serve --http`` on a free port of ``host`` (loopback by default;
    ``env`` adds environment variables); yields the MCP URL."""
    port = free_port()
    bind = ("--host", host) if host != "127.0.0.1" else ()
    proc = subprocess.Popen(serve_command("--http", "--port", str(port), *bind, *extra),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, **env} if env else None)
    reach = "127.0.0.1" if host in ("0.0.0.0", "127.0.0.1") else host
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            try:
                with socket.create_connection((reach, port), timeout=0.2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield f"http://{reach}:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
