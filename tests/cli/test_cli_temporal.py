"""``pypddl validate`` on temporal tasks (issue 31): timed plans, verdicts as
VAL's, --json, --epsilon, folders, exit codes, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pypddlengine.cli import main
from pypddlengine.commands import parse_fast

DOMAIN = """(define (domain kitchen) (:requirements :durative-actions :timed-initial-literals)
 (:predicates (dough) (oven-free) (baked) (shop-open) (bought))
 (:durative-action bake :parameters () :duration (= ?duration 30)
   :condition (and (at start (dough)) (at start (oven-free)))
   :effect (and (at start (not (oven-free))) (at end (oven-free)) (at end (baked))))
 (:durative-action shop :parameters () :duration (= ?duration 10)
   :condition (over all (shop-open)) :effect (at end (bought))))"""
PROBLEM = """(define (problem dinner) (:domain kitchen)
 (:init (dough) (oven-free) (at 20 (shop-open)) (at 45 (not (shop-open))))
 (:goal (and (baked) (bought))) (:metric minimize (total-time)))"""
GOOD = "0.000: (bake) [30.000]\n20.000: (shop) [10.000]\n"
LATE = "0.000: (bake) [30.000]\n40.000: (shop) [10.000]\n"
CLOSE = "0.000: (bake) [30.000]\n20.000: (shop) [10.000]\n30.0005: (bake) [30.000]\n"  # a start 0.0005 after bake's end


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    out = {}
    for name, text in {"d.pddl": DOMAIN, "p.pddl": PROBLEM, "good.plan": GOOD, "late.plan": LATE,
                       "close.plan": CLOSE, "bad.plan": "0: (bake) [30]\nthis is not a step\n"}.items():
        (tmp_path / name).write_text(text)
        out[name] = str(tmp_path / name)
    return out


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["validate", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_verdicts_exit_codes_and_the_failing_happening(files: dict[str, str]) -> None:
    code, out = run(files["d.pddl"], files["p.pddl"], files["good.plan"])
    assert code == 0 and "Plan valid: 2 steps, 4 happenings, makespan 30, metric (minimize) 30" in out
    code, out = run(files["d.pddl"], files["p.pddl"], files["good.plan"], files["late.plan"])
    assert code == 1 and "Plan failed at time 45: (shop) (over all) (step 2)" in out and "(shop-open)" in out


def test_json_carries_the_report(files: dict[str, str]) -> None:
    code, out = run("--json", files["d.pddl"], files["p.pddl"], files["late.plan"])
    report = json.loads(out)
    assert code == 1 and report["valid"] is False and report["failure"]["time"] == 45
    assert report["failure"]["code"] == "INVARIANT_VIOLATED" and report["failure"]["unsatisfied"] == ["(shop-open)"]


def test_epsilon_is_vals_tolerance(files: dict[str, str]) -> None:
    # at 0.01 the start 0.0005 after bake's end is in the same happening (within a tenth of epsilon): the oven
    # is not free yet; at 0.001 the two happenings are distinct
    code, out = run(files["d.pddl"], files["p.pddl"], files["close.plan"])
    assert code == 1 and "(oven-free)" in out
    code, out = run("--epsilon", "0.001", files["d.pddl"], files["p.pddl"], files["close.plan"])
    assert code == 0, out
    code, out = run("--epsilon", "abc", files["d.pddl"], files["p.pddl"], files["close.plan"])
    assert code == 2 and "--epsilon" in out
    assert parse_fast(["validate", "--epsilon", "0.001", files["d.pddl"], files["p.pddl"], files["close.plan"]])[1][
        "epsilon"] == "0.001"


def test_bad_plans_and_files_are_typed_errors(files: dict[str, str], tmp_path: Path) -> None:
    code, out = run(files["d.pddl"], files["p.pddl"], files["bad.plan"])
    assert code == 2 and "bad.plan:2:1: error[SYNTAX_ERROR]: not a timed plan step" in out
    code, out = run(files["d.pddl"], str(tmp_path / "missing.pddl"), files["good.plan"])
    assert code == 2 and "Traceback" not in out
    # a very long bad line is quoted in part, and the carets stay under the part of the line shown
    long = tmp_path / "long.plan"
    long.write_text(f"0: (bake) [{'9' * 5000}\n")
    code, out = run(files["d.pddl"], files["p.pddl"], str(long))
    assert code == 2 and "...' (5,011 characters)\n" in out, out
    assert len(out.splitlines()[0]) < 200 + len(str(long)) and max(len(line) for line in out.splitlines()[1:]) < 200


def test_a_folder_of_temporal_problems(files: dict[str, str], tmp_path: Path) -> None:
    problems = tmp_path / "problems"
    problems.mkdir()
    (problems / "good.pddl").write_text(PROBLEM)
    (problems / "late.pddl").write_text(PROBLEM)
    code, out = run(files["d.pddl"], str(problems), str(tmp_path))
    assert code == 1 and "1 valid, 1 invalid" in out
