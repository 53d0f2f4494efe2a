"""The server's input size limit (issue 33): a domain or problem over 2 MB
is INPUT_TOO_LARGE by default, the error's hint names ``pypddl serve
--max-input-mb``, and a server started with a larger limit opens it (the IPC
2023 rovers hard tasks are 3.8 MB). The big task is generated, never stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp_support import BW_DOMAIN, Tools, stdio_params

from pypddlengine.mcp_server import build_server

pytestmark = pytest.mark.anyio


def big_problem(blocks: int = 3600) -> str:
    """A Blocksworld problem of about 2.2 MB (long object names, all blocks on the table)."""
    names = [f"block-{i:05d}-" + "x" * 180 for i in range(blocks)]
    init = " ".join(f"(ontable {b}) (clear {b})" for b in names)
    return (f"(define (problem big) (:domain bw) (:objects {' '.join(names)} - block)\n"
            f" (:init {init} (handempty))\n (:goal (and (on {names[0]} {names[1]}))))\n")


async def test_a_big_task_needs_the_option(tmp_path: Path) -> None:
    problem = tmp_path / "big.pddl"
    problem.write_text(big_problem())
    assert problem.stat().st_size > 2_000_000
    domain = tmp_path / "domain.pddl"
    domain.write_text(BW_DOMAIN)
    async with Client(build_server()) as client:
        for given in (str(problem), problem.read_text()):  # a path and the text itself
            refused = await Tools(client).error("initialise_session", domain=str(domain), problem=given)
            assert refused.code == "INPUT_TOO_LARGE" and "--max-input-mb" in refused.data["error"]["hint"]
    async with Client(stdio_params("--max-input-mb", "4")) as client:
        tools = Tools(client)
        opened = await tools.ok("initialise_session", domain=str(domain), problem=str(problem))
        assert opened["backend"] == "lifted"
        page = await tools.ok("query_applicable_actions", session_id=opened["session_id"], limit=3)
        assert page["actions"][0].startswith("(pick-up block-00000-")
