"""The temporal validator counts time in integers (issue 31, speed): every time
and duration of a plan, and every timed literal's time, is a whole number of
one unit, ten to the most decimal places of the plan's numbers (times the
timed literals' denominators). These properties pin that the integers are the
exact values: their comparisons, sums and floats are those of the Fractions,
and the report does not depend on how a number is written or on whether the
plan is given as text or as parsed steps."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pypddlengine.syntax import parse_domain, parse_problem
from pypddlengine.temporal import (
    _STEP,
    _WRITTEN,
    _in_units,
    _time_unit,
    compile_temporal,
    parse_timed_plan,
    validate_timed_plan,
)

NUMBER = re.compile(r"[-+]?[0-9]{0,15}\.?[0-9]{1,15}")
"""A number as a timed plan's line may write it (the reader's pattern)."""


@st.composite
def decimals(draw: st.DrawFn) -> str:
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    whole = draw(st.text("0123456789", max_size=15))
    places = draw(st.text("0123456789", max_size=15))
    if not places:
        whole = whole or "0"
        return sign + whole
    return f"{sign}{whole}.{places}"


fractions = st.builds(Fraction, st.integers(-10**6, 10**6), st.sampled_from([1, 2, 3, 4, 7, 8, 10, 25, 1000]))


@given(st.lists(decimals(), min_size=1, max_size=8), st.lists(fractions, max_size=3), st.text(max_size=20))
def test_times_in_units_are_the_exact_values(texts: list[str], others: list[Fraction], comment: str) -> None:
    assert all(NUMBER.fullmatch(x) for x in texts)
    plan = " ".join(f"{x}: (a) [{x}]" for x in texts) + " ; " + comment
    unit = _time_unit(plan, others)
    exact = [Fraction(Decimal(x)) for x in texts] + others
    scaled = [_in_units(x, unit) for x in texts] + [_in_units(f, unit) for f in others]
    assert [Fraction(s, unit) for s in scaled] == exact
    for a, ea in zip(scaled, exact, strict=True):
        assert a / unit == float(ea)  # the float VAL computes, from the integers
        for b, eb in zip(scaled, exact, strict=True):
            assert (a < b, a == b, a + b) == (ea < eb, ea == eb, (ea + eb) * unit)
            assert a / unit + b / unit == float(ea) + float(eb)  # an end's time as VAL adds it


line_text = st.text(alphabet="0123456789.-+: ()[]ab\t;", max_size=30)


@st.composite
def step_lines(draw: st.DrawFn) -> str:
    time = draw(st.one_of(st.none(), decimals(), line_text))
    body = draw(st.text(alphabet="ab \t-@;", max_size=12))
    dur = draw(st.one_of(st.none(), decimals(), line_text))
    spaces = draw(st.sampled_from(["", " ", "  ", "\t"]))
    out = "" if time is None else f"{time}:{spaces or ' '}"
    out += f"({body})"
    if dur is not None:
        out += f"{spaces or ' '}[{dur}]"
    return out + draw(st.sampled_from(["", "", " )", " x"]))


@settings(max_examples=400)
@given(st.one_of(step_lines(), line_text))
def test_the_planners_line_pattern_reads_what_the_general_one_reads(line: str) -> None:
    """A line the strict pattern (tried first) matches whole is read alike by the general one."""
    line = line.split(";", 1)[0].strip()
    fast = _WRITTEN.fullmatch(line)
    if fast is None or not fast.group(2).split():
        return
    slow = _STEP.match(line)
    assert slow is not None
    time, body, dur, rest = slow.groups()
    assert (time, body.split(), dur, rest.strip()) == (fast.group(1), fast.group(2).split(), fast.group(3), "")


DOMAIN = """(define (domain clock)
 (:requirements :durative-actions :timed-initial-literals :fluents :duration-inequalities)
 (:predicates (p) (q) (r) (w))
 (:functions (f) (limit))
 (:durative-action a :parameters () :duration (= ?duration 2)
   :condition (and (at start (r)) (over all (q)))
   :effect (and (at start (p)) (at end (increase (f) ?duration))))
 (:durative-action b :parameters () :duration (and (>= ?duration 0.5) (<= ?duration (limit)))
   :condition (and (at start (p)) (over all (w)))
   :effect (and (at end (not (q))) (at start (increase (limit) 1))))
 (:durative-action c :parameters () :duration (= ?duration 0.25)
   :condition (at start (r))
   :effect (at end (not (p))))
 (:action s :parameters () :precondition (p) :effect (decrease (f) 1)))"""

PROBLEM = """(define (problem clockp) (:domain clock)
 (:init (r) (q) (= (f) 0) (= (limit) 1.5) (at 0.75 (w)) (at 3.125 (not (w))))
 (:goal (p))
 (:metric minimize (+ (total-time) (f))))"""

TASK = compile_temporal(parse_domain(DOMAIN), parse_problem(PROBLEM))

TIMES = ["0", "0.25", "0.5", "0.75", "1", "1.0005", "1.001", "1.125", "2", "2.25", "3.125", "3.5"]
DURATIONS: dict[str, list[str | None]] = {"a": ["2", "2.005", "1.5"], "b": ["0.5", "1.5", "2.5", "0.4995"],
                                          "c": ["0.25", "0.3"], "s": [None]}


@st.composite
def plans(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 5))):
        act = draw(st.sampled_from(sorted(DURATIONS)))
        dur = draw(st.sampled_from(DURATIONS[act]))
        lines.append(f"{draw(st.sampled_from(TIMES))}: ({act})" + ("" if dur is None else f" [{dur}]"))
    return "\n".join(lines) + "\n"


def padded(text: str) -> str:
    """The same plan with every number written with six more places."""
    return re.sub(r"(?<![\w.])([0-9]+)(?:\.([0-9]+))?(?![\w.])",
                  lambda m: f"{m.group(1)}.{m.group(2) or ''}000000", text)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(plans(), st.sampled_from([Fraction(1, 100), Fraction(1, 1000), Fraction(1, 3)]))
def test_the_report_does_not_depend_on_how_times_are_written(text: str, epsilon: Fraction) -> None:
    report = validate_timed_plan(TASK, text, epsilon).to_dict()
    assert validate_timed_plan(TASK, padded(text), epsilon).to_dict() == report
    assert validate_timed_plan(TASK, parse_timed_plan(text), epsilon).to_dict() == report


def test_a_valid_plan_of_decimal_times_gets_its_exact_makespan_and_metric() -> None:
    text = "0: (a) [2]\n0.8: (b) [1.2]\n1: (s)\n"  # (w) holds from 0.75 to 3.125; (f) ends at 0 + 2 - 1
    report = validate_timed_plan(TASK, text)
    assert report.valid, report.summary()
    assert (report.makespan, report.metric, report.happenings) == (2, 3, 6)
    early = validate_timed_plan(TASK, "0: (a) [2]\n0.5: (b) [1.5]\n").failure
    assert early is not None
    assert (early.code, early.time, early.unsatisfied) == ("INVARIANT_VIOLATED", Fraction(1, 2), ("(w)",))
    assert validate_timed_plan(TASK, padded(text)).to_dict() == report.to_dict()
