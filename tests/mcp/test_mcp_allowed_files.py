"""``ServerOptions.allowed_files`` / ``pypddl serve --allow-file``: the
server reads the run's own domain and problem and nothing else, in process
and over stdio, and no reply ever shows what a refused file holds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcp import Client
from mcp_support import BW3, BW3_PLAN, Tools, ipc_task, stdio_params

from pypddlengine.mcp_server import ServerOptions, build_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def task(tmp_path: Path) -> dict[str, Path]:
    """A domain, its problem, a second problem and a plan file in one folder."""
    folder = tmp_path / "bw"
    folder.mkdir()
    files = {"domain": folder / "domain.pddl", "problem": folder / "p1.pddl", "other": folder / "p2.pddl",
             "plan": folder / "p1.plan"}
    files["domain"].write_text(BW3["domain"])
    files["problem"].write_text(BW3["problem"])
    files["other"].write_text(BW3["problem"].replace("bw3", "other-task"))
    files["plan"].write_text("\n".join(BW3_PLAN) + "\n; cost = 6 (unit cost)\n")
    return files


def _leaks(text: str, secret: Path) -> list[str]:
    """Lines of ``secret`` (other than brackets) that appear in ``text``."""
    lines = [ln.strip() for ln in secret.read_text().splitlines() if len(ln.strip()) > 3]
    return [ln for ln in lines if ln in text]


async def test_without_an_allow_list_a_plan_file_leaks_through_the_syntax_error(task: dict[str, Path]) -> None:
    """The channel the allow-list closes: the error snippet shows the file."""
    async with Client(build_server()) as client:
        error = await Tools(client).error("initialise_session", domain=str(task["domain"]),
                                          problem=str(task["plan"]))
    assert _leaks(error.text, task["plan"])


async def test_only_the_allowed_files_are_read(task: dict[str, Path], tmp_path: Path) -> None:
    server = build_server(allowed_files=(str(task["domain"]), str(task["problem"])))
    link = tmp_path / "innocent.pddl"
    link.symlink_to(task["plan"])
    async with Client(server) as client:
        tools = Tools(client)
        ok = await tools.ok("initialise_session", domain=str(task["domain"]), problem=str(task["problem"]))
        assert ok["sources"] == {"domain": "file:domain.pddl", "problem": "file:p1.pddl"}  # names, never paths
        ok = await tools.ok("initialise_session", domain="domain.pddl", problem="p1.pddl")  # bare names
        assert ok["problem"] == "bw3"
        ok = await tools.ok("initialise_session", domain="domain.pddl", problem=BW3["problem"])  # text is fine
        assert ok["problem"] == "bw3"
        refused = [
            {"domain": str(task["domain"]), "problem": str(task["plan"])},
            {"domain": str(task["domain"]), "problem": str(task["other"])},
            {"domain": str(task["domain"]), "problem": "p1.plan"},
            {"domain": str(task["domain"]), "problem": str(link)},
            {"domain": str(task["domain"]), "problem": str(task["problem"].parent / ".." / "bw" / "p1.plan")},
            {"domain": "blocksworld", "problem": "p01"},
            {"task": "blocksworld/p01"},
            {"domain": str(task["domain"]), "problem": "/etc/passwd"},
        ]
        for args in refused:
            error = await tools.error("initialise_session", **args)
            assert error.code == "FILE_ACCESS_DENIED", args
            assert "domain.pddl, p1.pddl" in error.text
            assert not _leaks(error.text + str(error.data), task["plan"]), args
            assert str(task["domain"].parent) not in error.text  # no path is shown either


async def test_no_bundled_resources_either(task: dict[str, Path]) -> None:
    async with Client(build_server()) as client:
        assert (await client.list_resources()).resources
    async with Client(build_server(allowed_files=(str(task["domain"]), str(task["problem"])))) as client:
        assert (await client.list_resources()).resources == []


async def test_relative_paths_resolve_from_the_server_directory(task: dict[str, Path],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(task["domain"].parent)
    assert ServerOptions(allowed_files=("p1.pddl",)).allowed_files == (str(task["problem"].resolve()),)
    async with Client(build_server(allowed_files=("domain.pddl", "p1.pddl"))) as client:
        tools = Tools(client)
        await tools.ok("initialise_session", domain="./domain.pddl", problem=os.path.join("..", "bw", "p1.pddl"))
        assert (await tools.error("initialise_session", domain="domain.pddl", problem="./p2.pddl")).code == \
            "FILE_ACCESS_DENIED"


async def test_stdio_server_with_allow_file(task: dict[str, Path]) -> None:
    params = stdio_params("--allow-file", str(task["domain"]), "--allow-file", str(task["problem"]))
    async with Client(params) as client:
        tools = Tools(client)
        await tools.ok("initialise_session", domain="domain.pddl", problem="p1.pddl")
        error = await tools.error("initialise_session", domain="domain.pddl", problem=str(task["plan"]))
        assert error.code == "FILE_ACCESS_DENIED" and not _leaks(error.text, task["plan"])


async def test_the_lama_plan_of_instance_45_stays_hidden(corpus: Path) -> None:
    """The issue's example: the lama-first plan given as the problem."""
    domain, problem, plan = ipc_task(corpus, 45)
    async with Client(build_server()) as client:
        leaked = await Tools(client).error("initialise_session", domain=str(domain), problem=str(plan))
    assert _leaks(leaked.text, plan)
    async with Client(build_server(allowed_files=(str(domain), str(problem)))) as client:
        error = await Tools(client).error("initialise_session", domain=str(domain), problem=str(plan))
    assert error.code == "FILE_ACCESS_DENIED" and not _leaks(error.text + str(error.data), plan)
