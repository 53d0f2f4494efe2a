"""One way from files or text to a session (issue 23): every entry point
(``Session(domain, problem)``, ``Session.from_pddl``, ``open_session``, the
CLI's ``pypddl play``, the MCP server's ``initialise_session``, the gym and
unified-planning adapters) runs :func:`pypddlengine.session.open_backend`,
and every wrapper takes the same session options."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client

import pypddlengine
from pypddlengine import Session, loading, session
from pypddlengine.bundled import bundled_task
from pypddlengine.cli import main
from pypddlengine.mcp_server import ServerOptions, build_server

DOMAIN, PROBLEM = bundled_task("blocksworld/p01")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The calls of the one pipeline (which still runs)."""
    seen: list[dict[str, Any]] = []
    real = session.open_backend

    def spy(domain: Any, problem: Any, **options: Any) -> Any:
        seen.append({"domain": domain, "problem": problem, **options})
        return real(domain, problem, **options)

    monkeypatch.setattr(session, "open_backend", spy)
    return seen


def test_the_library_entry_points_run_the_pipeline(calls: list[dict[str, Any]]) -> None:
    text = DOMAIN.read_text(), PROBLEM.read_text()
    opened = [
        Session(DOMAIN, PROBLEM),
        Session.from_pddl(*text, domain_name="d.pddl"),
        session.open_session(DOMAIN, PROBLEM),
        loading.open_session(DOMAIN, PROBLEM),
        pypddlengine.open_session(*text, backend="lifted"),
    ]
    assert len(calls) == len(opened)
    assert [s.applicable_names() for s in opened[1:]] == [opened[0].applicable_names()] * 4
    assert calls[1]["text"] and calls[1]["domain_name"] == "d.pddl" and not calls[0].get("text")
    assert calls[4]["backend"] == "lifted" and opened[4].backend == "lifted"


def test_pypddl_play_runs_the_pipeline(calls: list[dict[str, Any]]) -> None:
    result = CliRunner().invoke(main, ["play", str(DOMAIN), str(PROBLEM), "--backend", "lifted"], input="quit\n")
    assert result.exit_code == 0, result.output
    assert [(str(c["domain"]), str(c["problem"]), c["backend"]) for c in calls] == [(str(DOMAIN), str(PROBLEM), "lifted")]


@pytest.mark.anyio
async def test_initialise_session_runs_the_pipeline_with_the_servers_limits(calls: list[dict[str, Any]]) -> None:
    limit = 200_000
    async with Client(build_server(ServerOptions(max_pddl_bytes=limit))) as client:
        result = await client.call_tool("initialise_session", {"task": "blocksworld/p01", "backend": "grounded"})
    assert not result.is_error, result.content[0].text
    assert len(calls) == 1
    call = calls[0]
    assert call["text"] and call["max_bytes"] == limit and call["backend"] == "grounded"
    assert (call["domain_name"], call["problem_name"]) == ("blocksworld.pddl", "blocksworld/p01.pddl")
    assert call["domain"] == DOMAIN.read_text() and call["options"].cancel is not None


def test_the_ecosystem_adapters_run_the_pipeline(calls: list[dict[str, Any]]) -> None:
    try:
        from pypddlengine.gym import PDDLEnv
    except ImportError as err:
        pytest.skip(f"the gym extra is not installed: {err}")
    PDDLEnv(task="blocksworld/p01")
    assert [(str(c["domain"]), str(c["problem"])) for c in calls] == [(str(DOMAIN), str(PROBLEM))]


def _options(function: Any) -> set[str]:
    """The keyword options a function names (``**`` counts as passing every option through)."""
    params = inspect.signature(function).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return {"**"}
    return {p.name for p in params if p.kind is p.KEYWORD_ONLY}


def test_every_wrapper_takes_every_session_option() -> None:
    """The options of Session and of the pipeline reach it from every wrapper (from_pddl once had no
    ``landmarks``), and they work: landmarks=False turns landmarks off through each."""
    wanted = _options(Session.__init__) | _options(session.open_backend)
    for wrapper in (session.open_session, Session.from_pddl, loading.open_session):
        named = _options(wrapper)
        assert "**" in named or wanted <= named, (wrapper, wanted - named)
    text = DOMAIN.read_text(), PROBLEM.read_text()
    for opened in (Session(DOMAIN, PROBLEM, feedback="heuristic", landmarks=False),
                   Session.from_pddl(*text, feedback="heuristic", landmarks=False),
                   loading.open_session(DOMAIN, PROBLEM, feedback="heuristic", landmarks=False)):
        assert opened.landmarks() is None and opened.feedback_level.name == "HEURISTIC"
    assert Session.from_pddl(*text, feedback="heuristic").landmarks() is not None
    with pytest.raises(ValueError, match="unknown heuristic"):
        session.open_session(DOMAIN, PROBLEM, heuristic="h_magic")
    with pytest.raises(ValueError, match="unknown backend"):
        Session.from_pddl(*text, backend="partial")
