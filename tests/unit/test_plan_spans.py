"""Plan steps are found where they are written: names, arguments, time
prefixes and spans (line, first and past-the-end column) of generated plan
files, checked against the positions the generator wrote them at. Runs with
one step per line take the parser's line-by-line path; a line with two steps
or a trailing comment takes its general path: both are covered."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pypddlengine.syntax import parse_plan, plan_words

NAMES = st.sampled_from(["stack", "unstack", "pick-up", "Put-Down", "a", "drive_truck"])
ARGS = st.lists(st.sampled_from(["b1", "B2", "obj-3", "x"]), max_size=3)
GAP = st.sampled_from([" ", "  ", "\t", " \t "])
LEAD = st.sampled_from(["", " ", "\t", "   "])
COMMENT = st.sampled_from(["", " ; note", ";(stack a b)", "  ;; x )"])


@st.composite
def plan_lines(draw: st.DrawFn) -> tuple[str, list[tuple[str, tuple[str, ...], tuple[int, int, int, int], float | None]]]:
    lines: list[str] = []
    expected = []
    timed = draw(st.booleans())
    for number in range(1, draw(st.integers(0, 12)) + 1):
        kind = draw(st.sampled_from(["step", "step", "step", "two", "blank", "comment"]))
        text = draw(LEAD)
        if kind == "blank":
            lines.append(text)
            continue
        if kind == "comment":
            lines.append(text + "; only a comment (x y)")
            continue
        time = None
        if timed:
            time = float(number)
            text += f"{number}.0: "
        for k in range(2 if kind == "two" else 1):
            if k:
                text += draw(GAP)
            name, args = draw(NAMES), draw(ARGS)
            step = "(" + draw(LEAD) + draw(GAP).join([name, *args]) + draw(LEAD) + ")"
            column = len(text) + 1
            text += step
            expected.append((name.lower(), tuple(a.lower() for a in args), (number, column, number, column + len(step)),
                             time if k == 0 else None))
        if timed and draw(st.booleans()):
            text += " [1.5]"
        lines.append(text + draw(COMMENT))
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"])), expected


@settings(max_examples=300, deadline=None)
@given(plan_lines())
def test_steps_are_found_where_they_are_written(case: tuple[str, list]) -> None:  # type: ignore[type-arg]
    text, expected = case
    plan = parse_plan(text)
    got = [(s.name, s.args, (s.span.line, s.span.column, s.span.end_line, s.span.end_column), s.time)
           for s in plan.steps]
    assert got == expected


@settings(max_examples=300, deadline=None)
@given(plan_lines())
def test_plan_words_are_the_parsed_steps_words(case: tuple[str, list]) -> None:  # type: ignore[type-arg]
    """``plan_words`` (the batch validator's steps, no object each) gives each
    step's folded name, arguments and text exactly as ``parse_plan`` does, for
    every plan made only of steps; a time prefix or duration makes it decline."""
    text, _ = case
    words = plan_words(text)
    steps = parse_plan(text).steps
    if words is None:
        assert any(s.time is not None for s in steps) or "[" in text
    else:
        assert words == [(s.name, s.args, s.text) for s in steps]
        assert all(s.time is None for s in steps)
