"""What a new user tripped over (issue 13): each test failed on the code
before the fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from sigint_support import needs_sigint

from pypddlengine import PDDLError, Session, open_session, validate_plan
from pypddlengine.bundled import bundled_task
from pypddlengine.cli import main
from pypddlengine.errors import ErrorCode, counted
from pypddlengine.loading import load_task
from pypddlengine.play import INTERRUPTED, completions, handle, run_repl


@pytest.fixture
def p01() -> tuple[Path, Path]:
    return bundled_task("blocksworld/p01")


# ----------------------------------------------------------------------------- API: text or paths


def test_session_takes_domain_and_problem_paths_or_text(p01: tuple[Path, Path]) -> None:
    d, p = p01
    expected = open_session(d, p).applicable_names()
    assert Session(d, p).applicable_names() == expected
    assert Session(str(d), str(p), feedback="progress").applicable_names() == expected
    assert open_session(d.read_text(), p.read_text()).applicable_names() == expected
    assert Session(d.read_text(), p.read_bytes()).applicable_names() == expected
    with pytest.raises(TypeError):
        Session(d)  # type: ignore[call-arg]


def test_text_that_is_not_pddl_is_a_short_clear_error(p01: tuple[Path, Path]) -> None:
    """Not 'File name too long' with the whole text echoed."""
    text = "this is prose, not PDDL\n" * 500
    with pytest.raises(PDDLError) as err:
        open_session(text, p01[1])
    assert err.value.code == ErrorCode.FILE_NOT_FOUND
    assert "not a file name" in err.value.message and len(err.value.message) < 200
    assert "too long" not in str(err.value)


def test_pddl_text_errors_name_the_kind_of_input(p01: tuple[Path, Path]) -> None:
    with pytest.raises(PDDLError) as err:
        open_session("(define (domain broken) (:predicates (p)", p01[1])
    assert err.value.location.startswith("<domain>:")


# ----------------------------------------------------------------------------- one code for an unknown task


def test_unknown_bundled_task_is_one_code_in_cli_api_and_mcp() -> None:
    with pytest.raises(PDDLError) as err:
        bundled_task("blocksworld/p99")
    assert err.value.code == ErrorCode.UNKNOWN_TASK == "UNKNOWN_TASK"
    r = CliRunner().invoke(main, ["play", "--task", "blocksworld/p99"])
    assert r.exit_code == 2 and "UNKNOWN_TASK" in r.output
    from pypddlengine.mcp_server.errors import UNKNOWN_TASK

    assert UNKNOWN_TASK == ErrorCode.UNKNOWN_TASK


# ----------------------------------------------------------------------------- messages


def test_counted_uses_the_right_number() -> None:
    assert [counted(n, "step") for n in (0, 1, 2)] == ["0 steps", "1 step", "2 steps"]


def test_messages_agree_in_number(p01: tuple[Path, Path]) -> None:
    task = load_task(*p01)
    one = validate_plan(task, ["(pick-up b)"]).summary()
    assert "all 1 step" not in one and "the only step applies" in one
    assert validate_plan(task, ["(pick-up b)", "(stack b c)"]).summary().startswith("invalid plan: all 2 steps")
    arity = validate_plan(task, ["(stack a)"]).failure
    assert arity is not None and "takes 2 arguments" in arity.message and "but 1 was given" in arity.message
    arity = validate_plan(task, ["(pick-up a b)"]).failure
    assert arity is not None and "takes 1 argument " in arity.message and "but 2 were given" in arity.message


def test_cli_validate_says_its_only_step(p01: tuple[Path, Path], tmp_path: Path) -> None:
    plan = tmp_path / "one.plan"
    plan.write_text("(pick-up b)\n")
    r = CliRunner().invoke(main, ["validate", str(p01[0]), str(p01[1]), str(plan)])
    assert r.exit_code == 1 and "the only step applies" in r.output and "all 1 steps" not in r.output


def test_a_failing_step_is_shown_in_the_tasks_spelling(tmp_path: Path) -> None:
    """The plan says (stack b a), the problem declares A and B: the step is
    shown as (stack B A), like the atom (clear A) beside it."""
    d, p = bundled_task("blocksworld/p01")
    upper = p.read_text().replace(" a ", " A ").replace(" b ", " B ").replace(" c ", " C ")
    upper = upper.replace("(on c a)", "(on C A)").replace("(ontable a)", "(ontable A)")
    problem = tmp_path / "upper.pddl"
    problem.write_text(upper)
    task = load_task(d, problem)
    failure = validate_plan(task, ["(pick-up b)", "(stack b a)"]).failure
    assert failure is not None and failure.unsatisfied == ("(clear A)",)
    assert failure.action == "(stack B A)"


# ----------------------------------------------------------------------------- play


def test_play_tab_completes_both_forms(p01: tuple[Path, Path]) -> None:
    session = Session(*p01)
    assert completions(session, "uns") == ["unstack c a"]
    assert completions(session, "(uns") == ["(unstack c a)"]
    assert completions(session, "UNS") == ["unstack c a"]
    assert "state" in completions(session, "st")
    assert completions(session, "why pi") == ["why pick-up b"]
    assert completions(session, "why (pi") == ["why (pick-up b)"]


def test_play_undo_refuses_a_non_number(p01: tuple[Path, Path]) -> None:
    session = Session(*p01)
    handle(session, "unstack c a")
    out, _ = handle(session, "undo x")
    assert out[0].startswith("x undo takes a number") and len(session.history) == 1
    out, _ = handle(session, "undo 5")
    assert out == ["undid 1 step: only 1 step had been executed"] and not session.history


def test_play_names_a_suggestion_once(p01: tuple[Path, Path]) -> None:
    out, _ = handle(Session(*p01), "pik-up b")
    assert sum(line.count("pick-up") for line in out if "did you mean" in line) == 1


def test_play_ctrl_c_is_status_130(p01: tuple[Path, Path]) -> None:
    def interrupted() -> object:
        yield "state"
        raise KeyboardInterrupt

    assert run_repl(Session(*p01), lambda _: None, None, lines=interrupted()) == INTERRUPTED == 130
    assert run_repl(Session(*p01), lambda _: None, None, lines=["state"]) == 0


@needs_sigint
def test_play_ctrl_c_exit_code_in_a_real_process(p01: tuple[Path, Path]) -> None:
    """SIGINT to a running ``pypddl play``: exit status 130, not 0."""
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "pypddlengine.cli", "play", "--task", "blocksworld/p01"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        proc.stdout.readline()  # the banner: the REPL is reading
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    finally:
        proc.kill()


# ----------------------------------------------------------------------------- messages point at the right place


def _error(fn, *args):  # type: ignore[no-untyped-def]
    with pytest.raises(PDDLError) as info:
        fn(*args)
    return info.value


def test_undefined_type_caret_is_under_the_type_not_the_variable(tmp_path: Path) -> None:
    from pypddlengine.checker import check
    from pypddlengine.syntax import parse_domain

    text = ("(define (domain d) (:requirements :typing)\n (:types block)\n"
            " (:predicates (on ?x - blok ?y - (either block tabel))))\n")
    report = check(parse_domain(text, filename="d.pddl"))
    spans = {e.message.split("'")[1]: (e.span.line, e.span.column, e.span.end_column) for e in report.errors
             if e.code == ErrorCode.UNDEFINED_TYPE}
    line = text.splitlines()[2]
    assert spans["blok"] == (3, line.index("blok") + 1, line.index("blok") + 5)
    assert spans["tabel"] == (3, line.index("tabel") + 1, line.index("tabel") + 6)
    problem = "(define (problem p) (:domain d) (:objects a - blck) (:init) (:goal (and)))"
    from pypddlengine.syntax import parse_problem
    report = check(parse_domain(text.replace("blok", "block").replace("tabel", "block")),
                   parse_problem(problem))
    (err,) = [e for e in report.errors if e.code == ErrorCode.UNDEFINED_TYPE]
    assert err.span.column == problem.index("blck") + 1


def test_plan_syntax_error_points_at_the_unclosed_paren() -> None:
    from pypddlengine.syntax import parse_plan

    err = _error(parse_plan, "(pick-up b)\n(stack b a\n(pick-up c)\n")
    assert err.code == ErrorCode.UNBALANCED_PARENTHESES
    assert (err.span.line, err.span.column) == (2, 1)
    assert "3:1" in err.message  # where the parser noticed it
    err = _error(parse_plan, "(pick-up b) (stack b a (pick-up c))\n")
    assert (err.span.line, err.span.column) == (1, 13)


def test_declared_unused_requirement_is_warned_with_its_place(p01: tuple[Path, Path], tmp_path: Path) -> None:
    d, p = p01
    text = d.read_text()
    assert "(:requirements :strips :typing)" in text
    dom = tmp_path / "dur.pddl"
    dom.write_text(text.replace("(:requirements :strips :typing)", "(:requirements :strips :typing :durative-actions)"))
    task = load_task(dom, p)
    (w,) = [w for w in task.report.warnings if w.code == "UNUSED_REQUIREMENT"]
    assert ":durative-actions" in w.message and w.span is not None
    assert dom.read_text().splitlines()[w.span.line - 1][w.span.column - 1:].startswith(":durative-actions")
    plan = tmp_path / "p.plan"
    plan.write_text("(pick-up b)\n")
    result = CliRunner().invoke(main, ["validate", str(dom), str(p), str(plan)])
    assert "warning[UNUSED_REQUIREMENT]" in result.stderr
    quiet = CliRunner().invoke(main, ["validate", "--quiet", str(dom), str(p), str(plan)])
    assert "UNUSED_REQUIREMENT" not in quiet.stderr


def test_mcp_validation_verdict_agrees_in_number() -> None:
    """The MCP verdict is the engine's one wording (issue 34: it used to be a third one)."""
    from pypddlengine import load_task, validate_plan
    from pypddlengine.bundled import bundled_task
    from pypddlengine.mcp_server.tools import verdict as _verdict

    task = load_task(*bundled_task("blocksworld/p01"))
    one = validate_plan(task, ["(pick-up b)"])
    assert _verdict(one) == one.headline() == "invalid plan: the only step applies but the goal is not reached"
    assert "(s)" not in _verdict(validate_plan(task, ["(pick-up b)", "(put-down b)"]))
    assert _verdict(validate_plan(task, [])) == "invalid plan: the plan has no step but the goal is not reached"
