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


# ----------------------------------------------------------------------------- item 14: --task and folders


def test_validate_check_and_ground_take_a_bundled_task(tmp_path: Path) -> None:
    plan = tmp_path / "p01.plan"
    plan.write_text(P01_PLAN)
    code, out = invoke("validate", "--task", "blocksworld/p01", str(plan))
    assert code == 0 and "valid plan (6 steps)" in out, out
    code, out = invoke("check", "--task", "blocksworld/p01")
    assert code == 0 and "ok" in out, out
    code, out = invoke("ground", "--task", "blocksworld/p01", "--json")
    assert code == 0 and json.loads(out)["ground_actions"] > 0, out
    code, out = invoke("check", "--task", "blocksworld/p99")
    assert code == 2 and "UNKNOWN_TASK" in out and "did you mean" in out
    code, out = invoke("validate", "--task", "blocksworld/p01", "domain.pddl", "problem.pddl", str(plan))
    assert code == 2  # with --task, every argument is a plan: these are not


def test_task_and_files_together_is_a_usage_error() -> None:
    domain, problem = bundled_task("blocksworld/p01")
    code, out = invoke("check", str(domain), str(problem), "--task", "blocksworld/p01")
    assert code == 2 and "not both" in out
    code, out = invoke("ground", "--task", "blocksworld/p01", str(domain))
    assert code == 2 and "not both" in out


def _folder(tmp_path: Path) -> tuple[Path, Path]:
    """blocksworld p01-p03 with domain.pddl in one folder; plans for p01
    (valid) and p02 (an invalid one), none for p03."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    domain, _ = bundled_task("blocksworld/p01")
    shutil.copy(domain, folder / "domain.pddl")
    for name in ("p01", "p02", "p03"):
        shutil.copy(bundled_task(f"blocksworld/{name}")[1], folder / f"{name}.pddl")
    (folder / "p01.plan").write_text(P01_PLAN)
    (folder / "p02.plan").write_text("(pick-up a)\n")
    return folder / "domain.pddl", folder


def test_validate_a_folder_of_problems_and_plans(tmp_path: Path) -> None:
    domain, folder = _folder(tmp_path)
    code, out = invoke("validate", str(domain), str(folder))
    assert code == 1, out
    assert "p01.plan: valid plan (6 steps)" in out and "p02.plan: invalid plan: " in out
    assert "p03.pddl: no plan" in out and "1 valid, 1 invalid, 1 problem without a plan" in out
    plans = tmp_path / "plans"
    plans.mkdir()
    (plans / "p01.plan").write_text(P01_PLAN)
    (plans / "p01.plan.2").write_text(P01_PLAN)
    code, out = invoke("validate", str(domain), str(folder), str(plans), "--json")
    assert code == 0, out
    results = json.loads(out)
    assert [(Path(r["problem"]).name, Path(r["plan"]).name, r["valid"]) for r in results] == [
        ("p01.pddl", "p01.plan", True), ("p01.pddl", "p01.plan.2", True)]
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out = invoke("validate", str(domain), str(folder), str(empty))
    assert code == 2 and "no plans" in out


def test_check_a_folder_of_problems(tmp_path: Path) -> None:
    domain, folder = _folder(tmp_path)
    code, out = invoke("check", str(domain), str(folder))
    assert code == 0 and "3 problems: 3 ok" in out, out
    (folder / "p04.pddl").write_text(bundled_task("gripper/p01")[1].read_text())
    code, out = invoke("check", str(domain), str(folder), "--json")
    assert code == 1, out
    report = json.loads(out)
    assert [Path(p["problem"]).name for p in report["problems"]] == ["p01.pddl", "p02.pddl", "p03.pddl", "p04.pddl"]
    assert [p["ok"] for p in report["problems"]] == [True, True, True, False]
    assert report["problems"][3]["errors"][0]["code"] == "DOMAIN_MISMATCH"


# ----------------------------------------------------------------------------- item 16: the small ones


def test_a_server_started_by_a_client_prints_no_banner() -> None:
    """Every stdio run of an experiment started a server that printed its
    'waiting for an MCP client' banner; a client (a pipe, not a terminal)
    needs none."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "pypddlengine.cli", "serve"], input="", capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "waiting for an MCP client" not in proc.stderr and proc.stdout == ""


def test_a_server_started_in_a_terminal_says_it_waits() -> None:
    import os
    import pty
    import subprocess
    import sys

    primary, secondary = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "pypddlengine.cli", "serve"], stdin=secondary,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(secondary)
        try:
            assert proc.stderr is not None
            line = proc.stderr.readline()
        finally:
            proc.kill()
            proc.wait()
        assert b"waiting for an MCP client" in line
    finally:
        os.close(primary)


def test_a_misspelt_planner_gets_a_suggestion() -> None:
    pytest.importorskip("up_fast_downward", reason="Fast Downward is not installed (pip install up-fast-downward)")
    code, out = invoke("solve", "--task", "blocksworld/p01", "-p", "lama-frist", "-t", "10")
    assert code == 2 and "did you mean 'lama-first'?" in out, out


def test_the_grounding_limit_hint_names_the_option(tmp_path: Path) -> None:
    domain, problem = bundled_task("blocksworld/p05")
    code, out = invoke("ground", str(domain), str(problem), "--max-actions", "10")
    assert code == 2 and "GROUNDING_LIMIT" in out and "--max-actions N raises the limit (10 now)" in out, out
    code, out = invoke("ground", str(domain), str(problem), "--max-actions", "100000")
    assert code == 0, out
