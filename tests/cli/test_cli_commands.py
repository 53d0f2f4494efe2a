"""The ``pypddl`` command line: exit codes, output shapes, both entry points."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from malformed_cases import BASE_DOMAIN, BASE_PROBLEM

from pypddlengine.bundled import bundled_task
from pypddlengine.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD_PLAN = "(pick a)\n(put a b)\n"
BAD_PLAN = "(pick a)\n(pick b)\n"
SHORT_PLAN = "(pick a)\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, text in [("domain.pddl", BASE_DOMAIN), ("problem.pddl", BASE_PROBLEM), ("good.plan", GOOD_PLAN),
                       ("bad.plan", BAD_PLAN), ("short.plan", SHORT_PLAN),
                       ("broken.pddl", BASE_DOMAIN.replace("(:predicates", "(:predicats")),
                       ("garbled.plan", "(pick a\n")]:
        (tmp_path / name).write_text(text)
        out[name.split(".")[0]] = tmp_path / name
    return out


def run(*args: str | Path, input: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


# ------------------------------------------------------------------ validate


def test_validate_valid_plan(files: dict[str, Path]) -> None:
    r = run("validate", files["domain"], files["problem"], files["good"])
    assert r.exit_code == 0, r.output
    assert "valid plan (2 steps)" in r.output


def test_validate_invalid_plans_name_the_step_or_goal(files: dict[str, Path]) -> None:
    r = run("validate", files["domain"], files["problem"], files["good"], files["bad"], files["short"])
    assert r.exit_code == 1
    assert "invalid plan: step 2 (pick b) fails: " in r.output and "unsatisfied precondition: (handempty)" in r.output
    assert "invalid plan: the only step applies but the goal is not reached" in r.output
    assert "unsatisfied goal: (on a b)" in r.output


def test_validate_json_and_stdin(files: dict[str, Path]) -> None:
    r = run("validate", "--json", files["domain"], files["problem"], "-", input=BAD_PLAN)
    assert r.exit_code == 1
    data = json.loads(r.output)
    assert data["valid"] is False and data["failure"]["step"] == 2 and data["plan"] == "-"
    r = run("validate", "--json", files["domain"], files["problem"], files["good"], files["short"])
    assert [d["valid"] for d in json.loads(r.output)] == [True, False]


def test_validate_bad_input_exit_2_with_position(files: dict[str, Path]) -> None:
    r = run("validate", files["broken"], files["problem"], files["good"])
    assert r.exit_code == 2
    assert re.search(r"broken\.pddl:4:4: error\[UNKNOWN_SECTION\]", r.output)
    assert "Traceback" not in r.output
    r = run("validate", files["domain"], files["problem"], files["garbled"], files["good"])
    assert r.exit_code == 2
    assert "garbled.plan:1:1: error[UNBALANCED_PARENTHESES]" in r.output
    r = run("validate", files["domain"], files["problem"], files["domain"].parent / "missing.plan")
    assert r.exit_code == 2 and "FILE_NOT_FOUND" in r.output


def test_validate_quiet(files: dict[str, Path]) -> None:
    r = run("validate", "-q", files["domain"], files["problem"], files["bad"])
    assert r.exit_code == 1 and r.output == ""


# ------------------------------------------------------------------ check, ground, play


def test_check(files: dict[str, Path]) -> None:
    r = run("check", files["domain"], files["problem"])
    assert r.exit_code == 0 and ": ok" in r.output
    broken = files["domain"].parent / "two-errors.pddl"
    broken.write_text(BASE_DOMAIN.replace("(clear ?x) (handempty))", "(free ?x) (handempty))").replace(
        ":parameters (?x - block ?y - block)", ":parameters (?x - blok ?y - block)"))
    r = run("check", broken)
    assert r.exit_code == 1
    assert "UNDEFINED_PREDICATE" in r.output and "UNDEFINED_TYPE" in r.output and "2 errors, 0 warnings" in r.output
    data = json.loads(run("check", "--json", broken).output)
    assert data["ok"] is False and sorted(e["code"] for e in data["errors"]) == ["UNDEFINED_PREDICATE", "UNDEFINED_TYPE"]
    assert run("check", files["broken"]).exit_code == 1  # parses; the checker reports the unknown section
    unparsable = files["domain"].parent / "unparsable.pddl"
    unparsable.write_text(BASE_DOMAIN[:-3])
    r = run("check", unparsable)
    assert r.exit_code == 2 and "UNBALANCED_PARENTHESES" in r.output


def test_ground(files: dict[str, Path]) -> None:
    data = json.loads(run("ground", "--json", files["domain"], files["problem"]).output)
    assert data["objects"] == 2 and data["ground_actions"] == 6 and data["unreachable_goal_atoms"] == []
    r = run("ground", files["domain"], files["problem"])
    assert r.exit_code == 0 and "ground actions" in r.output


def test_play_scripted(files: dict[str, Path]) -> None:
    r = run("play", files["domain"], files["problem"], input="actions\n(pick a)\nput a b\nvalidate\nquit\n")
    assert r.exit_code == 0, r.output
    assert "(pick a)" in r.output and "goal reached" in r.output and "valid plan: 2 steps" in r.output


def test_play_needs_a_task_and_refuses_two() -> None:
    """No argument is a usage error naming the way to give a task (it used to
    open a default task silently); files and --task together are refused."""
    r = run("play", input="state\nquit\n")
    assert r.exit_code == 2 and "--task" in r.output
    d, p = bundled_task("blocksworld/p01")
    r = run("play", str(d), str(p), "--task", "blocksworld/p02", input="quit\n")
    assert r.exit_code == 2 and "not both" in r.output
    r = run("play", "--task", "blocksworld/p01", input="state\nquit\n")
    assert r.exit_code == 0 and "(handempty)" in r.output


def test_help_and_version() -> None:
    r = run("--help")
    assert r.exit_code == 0
    for name in ("validate", "check", "ground", "play", "serve", "solve", "generate", "experiment"):
        assert name in r.output
    for name in ("validate", "check", "ground", "play", "serve", "demo", "solve", "generate", "batch", "reference",
                 "experiment"):
        sub = run(name, "--help")
        assert sub.exit_code == 0 and "Example" in sub.output, name
    for sub_name in ("run", "report", "replay"):
        sub = run("experiment", sub_name, "--help")
        assert sub.exit_code == 0 and "Example" in sub.output, sub_name
    assert re.match(r"pypddl, version \d+\.\d+", run("--version").output)


# ------------------------------------------------------------------ real processes


@pytest.mark.parametrize("entry", [["pypddl"], [sys.executable, str(ROOT / "cli.py")]], ids=["pypddl", "cli.py"])
def test_entry_points_in_subprocesses(entry: list[str], files: dict[str, Path], tmp_path: Path) -> None:
    exe = entry
    if entry == ["pypddl"]:
        exe = [str(Path(sys.executable).parent / "pypddl")]
    env = dict(os.environ, PYTHONPATH="")
    ok = subprocess.run([*exe, "validate", files["domain"], files["problem"], files["good"]],
                        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert ok.returncode == 0 and "valid plan" in ok.stdout and ok.stderr == ""
    bad = subprocess.run([*exe, "validate", files["broken"], files["problem"], files["good"]],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert bad.returncode == 2 and bad.stdout == ""
    assert re.match(r".*broken\.pddl:4:4: error\[UNKNOWN_SECTION\]: unknown section ':predicats'", bad.stderr)
    assert "^" in bad.stderr and "Traceback" not in bad.stderr
    invalid = subprocess.run([*exe, "validate", files["domain"], files["problem"], files["bad"]],
                             capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert invalid.returncode == 1 and "invalid plan: step 2" in invalid.stdout


def test_validate_does_not_import_heavy_modules(files: dict[str, Path]) -> None:
    code = (
        "import sys, runpy; sys.argv=['pypddl','validate',*sys.argv[1:]]\n"
        "try:\n    runpy.run_module('pypddlengine.cli', run_name='__main__')\n"
        "except SystemExit: pass\n"
        "heavy = [m for m in ('mcp', 'unified_planning', 'anthropic', 'openai', 'pydantic', 'pypddlengine.grounding')"
        " if m in sys.modules]\nprint(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(files["domain"]), str(files["problem"]), str(files["good"])],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
@pytest.mark.parametrize("args, stdin", [
    (["check", "/dev/zero", "/dev/zero"], None),
    (["validate", "{domain}", "{problem}", "/dev/zero"], None),
    (["play", "--task", "blocksworld/p01"], "/dev/zero"),
])
def test_endless_input_is_input_too_large_not_a_memory_error(args: list[str], stdin: str | None) -> None:
    """/dev/zero says its size is 0: every read is bounded all the same
    (the child's address space is capped, so a regression fails, not swaps)."""
    import resource

    domain, problem = bundled_task("blocksworld/p01")
    argv = [a.format(domain=domain, problem=problem) for a in args]

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    with open(stdin or os.devnull, "rb") as source:
        run = subprocess.run([sys.executable, "-m", "pypddlengine.cli", *argv], stdin=source, capture_output=True,
                             text=True, timeout=120, preexec_fn=cap)
    assert run.returncode == 2, run.stderr[-500:]
    assert "error[INPUT_TOO_LARGE]" in run.stderr and "Traceback" not in run.stderr


def test_play_heuristic_commands() -> None:
    """--heuristic names the distance after each step; 'heuristics' lists every
    value and the landmarks; 'deadend' proves or refutes a dead end."""
    lines = "(unstack c a)\nheuristics\ndeadend\ndeadend x\n(stack c a)\nquit\n"
    r = run("play", "--task", "blocksworld/p01", "--heuristic", "lm_count", "--proof-budget", "100", input=lines)
    assert r.exit_code == 0, r.output
    assert "distance (lm_count):" in r.output and "landmarks reached: (clear a)" in r.output
    assert "goal_count = 2, h_max = 3, h_add = 7, h_ff = 5" in r.output
    assert "a plan exists from here" in r.output and "a shortest plan from here has 5 steps" in r.output
    assert "x deadend takes a number of states" in r.output
    assert "landmarks needed again: (clear a)" in r.output


def test_play_says_an_unsolvable_task_is_unsolvable() -> None:
    r = run("play", "--task", "blocksworld-table/u02", "--proof-budget", "1000", input="quit\n")
    assert r.exit_code == 0, r.output
    assert "note: the task is proved unsolvable" in r.output
    r = run("play", "--task", "blocksworld-table/u02", input="quit\n")  # no search: the relaxation cannot tell
    assert "proved unsolvable" not in r.output
