"""Warnings reach the user the same way from every command (issue 25 item 6):
a domain that declares a requirement the engine does not support but never
uses it (e.g. ``:durative-actions``) is accepted with an UNUSED_REQUIREMENT
warning that names the requirement, on stderr for ``check``, ``validate``,
``ground`` and ``play``, and in the reply of the MCP ``initialise_session``
(tests/mcp/test_mcp_errors.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from pypddlengine.cli import main

DOMAIN = """(define (domain du) (:requirements :strips :durative-actions :timed-initial-literals)
  (:predicates (p))
  (:action a :parameters () :precondition (and) :effect (p)))
"""
PROBLEM = "(define (problem p) (:domain du) (:init) (:goal (p)))\n"


@pytest.mark.parametrize("command", ["check", "validate", "ground", "play"])
def test_every_command_names_an_unused_unsupported_requirement(command: str, tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(PROBLEM)
    (tmp_path / "plan").write_text("(a)\n")
    args = [command, str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")] + (
        [str(tmp_path / "plan")] if command == "validate" else [])
    result = CliRunner().invoke(main, args, input="quit\n")
    assert result.exit_code == 0, result.output
    for requirement in (":durative-actions", ":timed-initial-literals"):
        assert f"warning[UNUSED_REQUIREMENT]: the requirement '{requirement}' is declared but not used" in \
            result.stderr, result.stderr
    assert "warning[" not in result.stdout
