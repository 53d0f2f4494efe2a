"""Engine limits: each refuses its input fast, with its own code and a location, never a crash.

- ground-action estimate, before grounding: parameters that no positive
  precondition binds (bound only negatively, by an equality, or not at all);
- grounding time limit and cancellation (cooperative, inside the loops);
- parenthesis nesting depth (100,000 nested ``(and ...)``/``(not ...)``), also
  from the CLI (exit 2, no traceback).
"""

from __future__ import annotations

import gc
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pypddlengine import compile_task, ground, open_session, parse_domain, parse_problem
from pypddlengine.errors import ErrorCode, GroundingLimitError, InputTooLargeError
from pypddlengine.grounding import DEFAULT_OPTIONS, GroundingOptions
from pypddlengine.syntax.parser import MAX_NESTING

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mcp"))
from mcp_support import BW3_PROBLEM, BW_DOMAIN


def unbound_domain(precondition: str) -> str:
    """The issue's task: one action, 8 parameters, one precondition that binds none positively."""
    return ("(define (domain d) (:requirements :strips :negative-preconditions :equality)\n"
            " (:predicates (p ?x) (q))\n"
            " (:action a :parameters (?x1 ?x2 ?x3 ?x4 ?x5 ?x6 ?x7 ?x8)\n"
            f"  :precondition {precondition} :effect (q)))\n")


def objects_problem(n: int, init: str = "") -> str:
    objs = " ".join(f"o{i}" for i in range(n))
    return f"(define (problem x) (:domain d) (:objects {objs}) (:init {init}) (:goal (q)))"


ALL_P = " ".join(f"(p o{i})" for i in range(60))


@pytest.mark.parametrize("precondition", ["(not (p ?x1))", "(= ?x1 ?x2)", "(and)"])
def test_unbound_parameters_are_refused_before_grounding(precondition: str) -> None:
    domain = unbound_domain(precondition)
    assert len(domain) < 300
    started = time.monotonic()
    with pytest.raises(GroundingLimitError) as caught:
        open_session(domain, objects_problem(60, ALL_P), backend="grounded")
    assert time.monotonic() - started < 2.0
    err = caught.value
    assert err.code == ErrorCode.GROUNDING_LIMIT and err.details["kind"] == "estimate"
    assert err.details["combinations"] == 60 ** 8
    assert err.location == f"<domain>:3:{domain.splitlines()[2].index('?x1') + 1}"  # the first unbound parameter
    assert "?x1 ?x2 ?x3 ?x4 ?x5 ?x6 ?x7 ?x8" in err.message
    assert gc.isenabled()


@pytest.mark.parametrize(("precondition", "listed"), [("(not (p ?x1))", True), ("(= ?x1 ?x2)", False),
                                                     ("(and)", False)])
def test_such_a_task_opens_lifted_and_a_state_with_too_many_actions_is_refused(precondition: str,
                                                                               listed: bool) -> None:
    """Automatically such a task goes lifted (issue 21): it opens at once, an
    action named directly executes, and listing the applicable actions of a
    state that has 60**6 or more of them stops at the work limit with
    GROUNDING_LIMIT (kind 'lifted') instead of running for ever."""
    session = open_session(unbound_domain(precondition), objects_problem(60, ALL_P),
                           options=GroundingOptions(max_actions=200_000))
    assert session.backend == "lifted"
    if listed:
        assert session.applicable_actions() == []  # every (p ?x1) holds
    else:
        started = time.monotonic()
        with pytest.raises(GroundingLimitError) as caught:
            session.applicable_actions()
        assert caught.value.code == ErrorCode.GROUNDING_LIMIT and caught.value.details["kind"] == "lifted"
        assert time.monotonic() - started < 30
        assert session.execute("(a o1 o1 o2 o3 o4 o5 o6 o7)").success


def test_the_estimate_counts_only_unbound_parameters() -> None:
    """Two unbound parameters of four, over 60 objects: 3,600 combinations, under
    a limit of 4,000 and over one of 3,000; the bound parameters do not count."""
    domain = ("(define (domain d) (:requirements :strips :negative-preconditions)\n"
              " (:predicates (p ?x) (r ?x ?y) (q))\n"
              " (:action a :parameters (?a ?b ?c ?d) :precondition (and (r ?a ?b) (not (p ?c))) :effect (q)))")
    lifted = compile_task(parse_domain(domain), parse_problem(objects_problem(60, "(r o1 o2)")))
    task = ground(lifted, GroundingOptions(max_actions=4000))
    assert len(task.actions) == 3600
    with pytest.raises(GroundingLimitError) as caught:
        ground(lifted, GroundingOptions(max_actions=3000))
    assert caught.value.details["parameters"] == ["?c", "?d"]
    assert caught.value.location == f"<domain>:3:{domain.splitlines()[2].index('?c') + 1}"


def test_the_estimate_refuses_no_bundled_task() -> None:
    from pypddlengine.bundled import bundled_task, bundled_tasks

    from temporal_pending import pending

    for name in bundled_tasks():
        if pending(name):  # a temporal task: the classical session refuses it (tests/generators/test_workshop.py)
            continue
        d, p = bundled_task(name)
        assert open_session(d, p).task.actions, name


SLOW_DOMAIN = """(define (domain d) (:requirements :strips :negative-preconditions)
 (:predicates (r ?x) (s ?x) (q))
 (:action a :parameters (?a ?b ?c) :precondition (and (r ?a) (r ?b) (r ?c) (not (s ?a))) :effect (q)))"""
"""Every parameter bound positively (the estimate passes), but n**3 candidates,
all rejected by a static negative precondition: no action, no action limit."""


def slow_task(n: int = 300):  # type: ignore[no-untyped-def]
    init = " ".join(f"(r o{i}) (s o{i})" for i in range(n))
    return compile_task(parse_domain(SLOW_DOMAIN), parse_problem(objects_problem(n, init)))


def test_grounding_stops_at_its_time_limit() -> None:
    lifted = slow_task()
    assert len(ground(slow_task(30)).actions) == 0  # the same shape, small: grounds, no action
    started = time.monotonic()
    with pytest.raises(GroundingLimitError) as caught:
        ground(lifted, GroundingOptions(max_seconds=0.3))
    elapsed = time.monotonic() - started
    assert caught.value.code == ErrorCode.GROUNDING_TIMEOUT and caught.value.details["kind"] == "time"
    assert 0.3 <= elapsed < 2.0, elapsed
    assert gc.isenabled()
    assert DEFAULT_OPTIONS.max_seconds is None  # the library and the CLI have no time limit by default


def test_grounding_stops_when_cancelled() -> None:
    lifted = slow_task()
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(GroundingLimitError) as caught:
        ground(lifted, GroundingOptions(cancel=cancel))
    assert caught.value.code == ErrorCode.GROUNDING_TIMEOUT and caught.value.details["kind"] == "cancelled"
    assert time.monotonic() - started < 2.0
    assert gc.isenabled()


def nested(kind: str, depth: int, inner: str) -> str:
    return f"({kind} " * depth + inner + ")" * depth


def deep_precondition(kind: str, depth: int) -> str:
    inner = "(handempty)" if kind == "and" or depth % 2 == 0 else "(not (handempty))"
    return BW_DOMAIN.replace(":precondition (and (clear ?b) (ontable ?b) (handempty))",
                             f":precondition (and (clear ?b) (ontable ?b) {nested(kind, depth, inner)})", 1)


def deep_goal(depth: int) -> str:
    return BW3_PROBLEM.replace("(:goal (and (on a b) (on b c)))", f"(:goal {nested('and', depth, '(on a b)')})")


@pytest.mark.parametrize("kind", ["and", "not"])
def test_100000_nested_in_a_precondition_is_a_located_limit(kind: str) -> None:
    started = time.monotonic()
    with pytest.raises(InputTooLargeError) as caught:
        open_session(deep_precondition(kind, 100_000), BW3_PROBLEM)
    assert time.monotonic() - started < 2.0
    err = caught.value
    line = next(i for i, t in enumerate(deep_precondition(kind, 3).splitlines(), 1) if f"({kind} ({kind}" in t)
    assert err.code == ErrorCode.NESTING_LIMIT and err.span is not None and err.span.line == line
    assert err.details["limit"] == MAX_NESTING and "<domain>" in err.location


def test_100000_nested_in_a_goal_is_a_located_limit() -> None:
    with pytest.raises(InputTooLargeError) as caught:
        open_session(BW_DOMAIN, deep_goal(100_000))
    assert caught.value.code == ErrorCode.NESTING_LIMIT and caught.value.location.startswith("<problem>:5:")


def test_nesting_just_under_the_limit_works() -> None:
    session = open_session(deep_precondition("and", MAX_NESTING - 10), deep_goal(MAX_NESTING - 10))
    assert session.applicable_names() == ["(pick-up b)", "(unstack c a)"]


def test_cli_reports_deep_nesting_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(BW_DOMAIN)
    (tmp_path / "p.pddl").write_text(deep_goal(100_000))
    for command in ("check", "ground"):
        proc = subprocess.run([sys.executable, "-m", "pypddlengine.cli", command, str(tmp_path / "d.pddl"),
                               str(tmp_path / "p.pddl")], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        out = proc.stdout + proc.stderr
        assert "p.pddl:5:" in out and "error[NESTING_LIMIT]" in out and "Traceback" not in out


# ----------------------------------------------------------------------------- ADL quantifier bombs (issue 25 item 7)

from quantifier_bombs import BOMBS, GOAL_BOMB, SLOW_ADL, bomb_domain, objects  # noqa: E402


@pytest.mark.parametrize("name", list(BOMBS))
def test_quantifier_bombs_are_refused_before_grounding(name: str) -> None:
    domain = bomb_domain(BOMBS[name])
    assert len(BOMBS[name]) < 200
    started = time.monotonic()
    with pytest.raises(GroundingLimitError) as caught:
        open_session(domain, objects())
    assert time.monotonic() - started < 2.0
    err = caught.value
    assert err.code == ErrorCode.GROUNDING_LIMIT and err.details["kind"] == "estimate"
    assert err.details["combinations"] >= 60 ** 6
    assert err.details["parameters"] == ["?a", "?b", "?c", "?d", "?e", "?f"]
    assert err.location.startswith("<domain>:3:") and "60 x 60 x 60 x 60 x 60 x 60" in err.message
    assert gc.isenabled()


def test_a_goal_bomb_is_refused_at_the_goal() -> None:
    with pytest.raises(GroundingLimitError) as caught:
        open_session(*GOAL_BOMB)
    assert caught.value.location.startswith("<problem>:1:") and "the goal's quantifiers" in caught.value.message


def test_the_quantifier_estimate_allows_what_the_limit_allows() -> None:
    """A forall over three variables of 60 objects: 216,000 bindings for the
    one instance, refused under a limit of 200,000 and grounded under 300,000."""
    domain = bomb_domain("(:action a :parameters () :precondition (forall (?a ?b ?c) (not (q ?a))) :effect (g))")
    lifted = compile_task(parse_domain(domain), parse_problem(objects()))
    assert len(ground(lifted, GroundingOptions(max_actions=300_000)).actions) == 1
    with pytest.raises(GroundingLimitError) as caught:
        ground(lifted, GroundingOptions(max_actions=200_000))
    assert caught.value.details["combinations"] == 216_000


def slow_adl():  # type: ignore[no-untyped-def]
    return compile_task(parse_domain(SLOW_ADL[0]), parse_problem(SLOW_ADL[1]))


def test_an_adl_grounding_stops_at_its_time_limit_and_when_cancelled() -> None:
    lifted = slow_adl()
    started = time.monotonic()
    with pytest.raises(GroundingLimitError) as caught:
        ground(lifted, GroundingOptions(max_seconds=0.5))
    assert caught.value.code == ErrorCode.GROUNDING_TIMEOUT and caught.value.details["kind"] == "time"
    assert time.monotonic() - started < 2.5
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(GroundingLimitError) as caught:
        ground(lifted, GroundingOptions(cancel=cancel))
    assert caught.value.details["kind"] == "cancelled" and time.monotonic() - started < 2.5
    assert gc.isenabled()


def test_conditional_effects_count_towards_the_action_limit() -> None:
    """3,600 instances of a forall effect over 60 objects: 216,000 conditional effects."""
    domain = ("(define (domain b) (:requirements :adl) (:predicates (e ?x ?y) (q ?x) (g))\n"
              " (:action a :parameters (?x ?y) :precondition (e ?x ?y)\n"
              "  :effect (forall (?z) (when (q ?z) (not (q ?z))))))\n")
    lifted = compile_task(parse_domain(domain), parse_problem(objects(
        init=" ".join(f"(e o{i} o{j}) (q o{j})" for i in range(60) for j in range(60)))))
    assert sum(len(a.effects) for a in ground(lifted, GroundingOptions(max_actions=250_000)).actions) == 216_000
    with pytest.raises(GroundingLimitError) as caught:
        ground(lifted, GroundingOptions(max_actions=100_000))
    assert caught.value.details["kind"] == "effects"


def test_the_relaxed_analysis_checks_its_limits() -> None:
    """The relaxed operators a session's first feedback needs are built with a
    check (the MCP server's time limit and cancellation at session start)."""
    from pypddlengine.grounding import stop_check

    for domain, problem in [(bomb_domain("(:action a :parameters (?x) :precondition (q ?x) "
                                         ":effect (forall (?y) (when (q ?y) (g))))"),
                             objects(init=" ".join(f"(q o{i})" for i in range(60)))),
                            (BW_DOMAIN, BW3_PROBLEM)]:
        task = open_session(domain, problem).task
        calls: list[int] = []
        assert task.relaxed_operators(lambda: calls.append(1))
        assert calls
        cancel = threading.Event()
        cancel.set()
        fresh = open_session(domain, problem).task
        with pytest.raises(GroundingLimitError) as caught:
            fresh.relaxed_operators(stop_check(GroundingOptions(cancel=cancel), time.monotonic(), "the analysis"))
        assert caught.value.details["kind"] == "cancelled" and "the analysis was cancelled" in caught.value.message


def test_cli_ground_refuses_a_bomb_in_seconds(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(bomb_domain(BOMBS["effect-when"]))
    (tmp_path / "p.pddl").write_text(objects())
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pypddlengine.cli", "ground", str(tmp_path / "d.pddl"),
                           str(tmp_path / "p.pddl")], capture_output=True, text=True, timeout=120)
    assert time.monotonic() - started < 20  # a fresh interpreter on a loaded machine; the refusal itself is instant
    assert proc.returncode == 2, proc.stderr
    assert "d.pddl:3:" in proc.stderr and "error[GROUNDING_LIMIT]" in proc.stderr and "Traceback" not in proc.stderr
