"""Issue 34: what a newcomer tripped over on the command line.

play's history and plain ``unstack c a`` lines are plan input, and play
writes its plan; long goals are summarised; ``pypddl tasks`` lists the
bundled tasks; file errors are reported one way; an empty plan folder is bad
input; an invalid plan is worded the same everywhere."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from pypddlengine import load_task, validate_plan
from pypddlengine.bundled import bundled_task
from pypddlengine.cli import main
from pypddlengine.syntax import parse_plan

PLAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]


def invoke(*args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), input=stdin)


# --- item 3: play's output is plan input; play writes the plan ---------------------------------------


def test_plays_history_and_bare_steps_are_valid_plan_input(tmp_path: Path) -> None:
    script = "".join(f"{step[1:-1]}\n" for step in PLAN) + f"history\nwrite {tmp_path / 'p01.plan'}\nquit\n"
    played = invoke("play", "--task", "blocksworld/p01", stdin=script)
    assert played.exit_code == 0, played.output
    assert "wrote 6 steps to" in played.output
    history = [line for line in played.output.splitlines() if line[:2] in {f"{k}." for k in range(1, 7)}]
    assert history[0] == "1. (unstack c a)" and len(history) == 6
    bare = "\n".join(step[1:-1] for step in PLAN) + "\n"
    files = {"history.plan": "\n".join(history) + "\n", "bare.plan": bare,
             "mixed.plan": "; a comment\n1. unstack c a  ; step one\n  PUT-DOWN c\n" + "\n".join(PLAN[2:]) + "\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        assert [s.text.lower() for s in parse_plan(text).steps] == PLAN, name
    task = load_task(*bundled_task("blocksworld/p01"))
    assert validate_plan(task, bare.splitlines()).valid
    for name in ("p01.plan", *files):
        result = invoke("validate", "--task", "blocksworld/p01", str(tmp_path / name))
        assert result.exit_code == 0 and "valid plan" in result.output, (name, result.output)


def test_what_is_neither_form_is_still_a_plan_syntax_error() -> None:
    import pytest

    from pypddlengine import PDDLSyntaxError

    for text, where in (("(pick-up a)\ncost = 4\n", (2, 1)), ("0.5: pick-up a\n", (1, 6)), ("p\u00fct a b\n", (1, 1))):
        with pytest.raises(PDDLSyntaxError) as caught:
            parse_plan(text)
        assert caught.value.code == "PLAN_SYNTAX" and caught.value.span is not None
        assert (caught.value.span.line, caught.value.span.column) == where, (text, caught.value)
    # VAL's time prefixes keep their meaning: "0.5:" is a time, "1." a play line number
    assert parse_plan("0.5: (pick-up a)\n").steps[0].time == 0.5


def test_play_write_without_a_name_or_to_a_bad_place() -> None:
    out = invoke("play", "--task", "blocksworld/p01", stdin="write\nwrite /nonexistent-dir/x.plan\nquit\n").output
    assert "x write takes a file name" in out and "x cannot write '/nonexistent-dir/x.plan'" in out


def test_play_summarises_a_long_goal_line() -> None:
    from pypddlengine.play import SUMMARY_CHARS, summarised

    atoms = [f"(on b{k} b{k + 1})" for k in range(500)]
    line = summarised(atoms, "goal")
    assert len(line) < SUMMARY_CHARS + 60 and line.endswith("more ('goal' shows them all)")
    shown = line.split(" ... ")[0].split(") (")
    assert f"and {500 - len(shown)} more" in line
    assert summarised(atoms[:3], "goal") == " ".join(atoms[:3])
    domain = ("(define (domain d) (:predicates (p ?x)) "
              "(:action a :parameters (?x) :precondition (p ?x) :effect (not (p ?x))))")
    objects = " ".join(f"o{k}" for k in range(300))
    problem = (f"(define (problem q) (:domain d) (:objects {objects}) (:init (p o0)) "
               f"(:goal (and {' '.join(f'(p o{k})' for k in range(300))})))")
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "d.pddl").write_text(domain)
        (Path(folder) / "q.pddl").write_text(problem)
        out = invoke("play", str(Path(folder) / "d.pddl"), str(Path(folder) / "q.pddl"), stdin="quit\n").output
    goal_line = next(line for line in out.splitlines() if line.startswith("goal: "))
    assert len(goal_line) < SUMMARY_CHARS + 80 and "more ('goal' shows them all)" in goal_line


# --- item 1: an empty plan folder is bad input -------------------------------------------------------


def test_an_empty_plan_folder_is_bad_input(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    (tmp_path / ".hidden").write_text("(a)\n")
    (tmp_path / "domain.pddl").write_text("")
    for extra in ((), ("--json",)):
        result = invoke("validate", "--task", "blocksworld/p01", str(tmp_path), *extra)
        assert result.exit_code == 2, result.output
        assert f"error[FILE_NOT_FOUND]: no plan files in {tmp_path}" in result.output
    report = json.loads(invoke("validate", "--task", "blocksworld/p01", str(tmp_path), "--json").stdout)
    assert report[0]["error"]["code"] == "FILE_NOT_FOUND"
    # the click-free script says the same
    d, p = bundled_task("blocksworld/p01")
    script = subprocess.run([sys.executable, "-m", "pypddlengine.commands", "validate", str(d), str(p), str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert script.returncode == 2 and script.stderr.count("no plan files") == 1
    # a temporal task's timed plans are read the same way, with or without --epsilon (it was a traceback)
    for extra in ((), ("--json",), ("--epsilon", "0.001"), ("--json", "--epsilon", "0.001")):
        result = invoke("validate", "--task", "workshop/p01", str(tmp_path), *extra)
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        assert f"error[FILE_NOT_FOUND]: no plan files in {tmp_path}" in result.output
        if "--json" in extra:
            assert '"code": "FILE_NOT_FOUND"' in result.stdout
    # and an empty folder of problems is said the same way
    empty = tmp_path / "problems"
    empty.mkdir()
    for command in ("validate", "check"):
        result = invoke(command, str(d), str(empty))
        assert result.exit_code == 2 and f"error[FILE_NOT_FOUND]: no problem files in {empty}" in result.output


# --- item 4: pypddl tasks ----------------------------------------------------------------------------


def test_tasks_lists_every_bundled_task_with_its_size_and_purpose() -> None:
    import json

    from pypddlengine.bundled import bundled_tasks

    listed = invoke("tasks")
    assert listed.exit_code == 0
    lines = listed.output.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == bundled_tasks()
    first = lines[0]
    assert first.startswith("blocksworld/p01") and "3 blocks" in first and "optimal 6" in first and "default" in first
    assert any("unsolvable" in line for line in lines if line.startswith("blocksworld-sizes/u01"))
    assert lines[-1].startswith(f"{len(bundled_tasks())} tasks")
    rows = json.loads(invoke("tasks", "gripper", "--json").output)
    assert [r["task"] for r in rows] == bundled_tasks("gripper")
    assert all(r["domain"] == "gripper" and r["size"] and r["purpose"] for r in rows)
    unknown = invoke("tasks", "blockworld")
    assert unknown.exit_code == 2 and "did you mean 'blocksworld'?" in unknown.output


# --- item 6: file errors one way ---------------------------------------------------------------------


def test_a_folder_given_as_a_file_is_file_not_found_in_every_command(tmp_path: Path) -> None:
    d, p = bundled_task("blocksworld/p01")
    for args in (("check", str(tmp_path), str(p)), ("ground", str(tmp_path), str(p)), ("play", str(tmp_path), str(p)),
                 ("validate", str(tmp_path), str(p), "x.plan"), ("check", str(d), str(tmp_path / "missing.pddl"))):
        result = invoke(*args, stdin="quit\n")
        assert result.exit_code == 2, (args, result.output)
        assert result.output.count("error[FILE_NOT_FOUND]") == 1 and "Usage:" not in result.output, (args, result.output)


# --- item 8: Ctrl-C tests in a run started with SIGINT ignored ---------------------------------------


def test_ctrl_c_tests_skip_with_the_reason_when_sigint_is_ignored() -> None:
    """``nohup python -m pytest ... &`` starts the run with SIGINT ignored, which
    every child inherits: the Ctrl-C tests skip, saying so, rather than fail. The
    second run restores SIGINT's default in its child, so that this test holds
    whether or not the outer run ignores SIGINT."""
    import os
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    test = "tests/unit/test_friction.py::test_play_ctrl_c_exit_code_in_a_real_process"
    env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{root / 'baselines'}"}

    def run(ignore: bool) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", test],
                              capture_output=True, text=True, cwd=root, env=env, timeout=300,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN if ignore else signal.SIG_DFL))

    ignored = run(True)
    assert ignored.returncode == 0 and "1 skipped" in ignored.stdout, ignored.stdout[-2000:]
    assert "started with SIGINT ignored" in ignored.stdout
    normal = run(False)
    assert normal.returncode == 0 and "1 passed" in normal.stdout, normal.stdout[-2000:]


# --- item 2: check warns where an action reads a value :init never gives ---------------------------


def test_check_warns_at_the_read_of_a_value_init_never_gives(tmp_path: Path) -> None:
    from pypddlengine.checker import check
    from pypddlengine.syntax import parse_domain, parse_problem

    domain_file, problem_file = bundled_task("fuel-delivery/p01")
    text = problem_file.read_text()
    assert "(= (fuel t1) 4) " in text
    (tmp_path / "p.pddl").write_text(text.replace("(= (fuel t1) 4) ", ""))
    result = invoke("check", str(domain_file), str(tmp_path / "p.pddl"))
    assert result.exit_code == 0 and "ok (1 warning)" in result.output  # a warning: the task still loads
    line = next(k for k, t in enumerate(domain_file.read_text().splitlines(), 1) if "(>= (fuel ?t)" in t)
    assert f"fuel-delivery.pddl:{line}:" in result.output and "warning[UNDEFINED_VALUE_READ]" in result.output
    assert "(fuel t1) has no value in :init" in result.output
    assert "ok (0 warnings)" in invoke("check", "--task", "fuel-delivery/p01").output
    # a table given for some objects only (price at depots) is not reported; an action that assigns a value
    # without reading it first can give it one
    domain = ("(define (domain d) (:requirements :numeric-fluents) (:predicates (ok ?x)) (:functions (f ?x) (g))"
              " (:action a :parameters (?x) :precondition (and (ok ?x) (> (f ?x) 0)) :effect (increase (g) 1))"
              " (:action s :parameters () :effect (assign (g) 0)))")
    codes = lambda init: [w.code for w in check(parse_domain(domain), parse_problem(  # noqa: E731
        f"(define (problem q) (:domain d) (:objects o1 o2) (:init {init}) (:goal (ok o1)))")).warnings]
    assert codes("(ok o1) (= (f o1) 1)") == []
    assert codes("(ok o1)").count("UNDEFINED_VALUE_READ") == 1  # no value of f at all
