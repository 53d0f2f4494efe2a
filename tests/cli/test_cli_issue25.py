"""What a new user trips over on the command line (issue 25 items 14 and 16):
each test failed on the code before its fix."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from pypddlengine.bundled import bundled_task
from pypddlengine.cli import main

P01_PLAN = "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n"


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


# ----------------------------------------------------------------------------- item 14: a mismatch is one error


def test_a_domain_problem_mismatch_stops_at_the_root_cause() -> None:
    """Not DOMAIN_MISMATCH followed by dozens of undefined predicates and types."""
    domain, _ = bundled_task("blocksworld/p01")
    _, gripper = bundled_task("gripper/p03")
    code, out = invoke("check", str(domain), str(gripper), "--json")
    assert code == 1
    errors = json.loads(out)["errors"]
    assert [e["code"] for e in errors] == ["DOMAIN_MISMATCH"], [e["code"] for e in errors]
    code, out = invoke("validate", str(domain), str(gripper), "-")
    assert code == 2 and "DOMAIN_MISMATCH" in out and out.count("error[") == 1
