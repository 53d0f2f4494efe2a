"""Parsing: case folding, spellings, sections, plans and action references;
the fast atom-run tokens agree with the structural rules (property tests)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from malformed_cases import BASE_DOMAIN, BASE_PROBLEM, reformat

from pypddlengine import PDDLError, PDDLSyntaxError, check, parse_action_ref, parse_domain, parse_plan, parse_problem
from pypddlengine.model import Add, And, Atom, Constant, Delete, EffectAnd, Not, Variable
from pypddlengine.printer import format_domain, format_problem


def test_case_is_folded_and_spelling_kept() -> None:
    text = BASE_PROBLEM.replace("(:objects a b - block)", "(:OBJECTS A Bee - BLOCK)").replace(
        "(clear b)", "(CLEAR Bee)"
    ).replace("(on a b)", "(ON A bee)").replace("(:init", "(:INIT").replace("(define", "(DEFINE")
    problem = parse_problem(text)
    assert [o.name for o in problem.objects] == ["a", "bee"]
    assert [o.display for o in problem.objects] == ["A", "Bee"]
    assert [o.types for o in problem.objects] == [("block",), ("block",)]
    assert Atom("clear", (Constant("bee"),)) in problem.init
    assert problem.goal == And((Atom("on", (Constant("a"), Constant("bee"))),))


def test_domain_structure() -> None:
    domain = parse_domain(BASE_DOMAIN)
    assert domain.name == "bw"
    assert [r.name for r in domain.requirements] == [":strips", ":typing"]
    assert [a.name for a in domain.actions] == ["pick", "put"]
    put = domain.actions[1]
    assert [(p.name, p.types) for p in put.parameters] == [("?x", ("block",)), ("?y", ("block",))]
    x, y = Variable("?x"), Variable("?y")
    assert put.effect == EffectAnd(
        (Add(Atom("on", (x, y))), Add(Atom("handempty", ())), Delete(Atom("holding", (x,))))
    )


def test_types_either_and_late_parents() -> None:
    domain = parse_domain(
        "(define (domain t) (:types truck airplane - vehicle package vehicle - physobj place)"
        " (:constants depot - (either place physobj))"
        " (:predicates (at ?x - (either vehicle package) ?p - place)))"
    )
    assert {t.name: t.parents for t in domain.types}["vehicle"] == ("physobj",)
    assert domain.constants[0].types == ("place", "physobj")
    assert domain.predicates[0].parameters[0].types == ("vehicle", "package")


def test_empty_precondition_effect_and_goal() -> None:
    domain = parse_domain("(define (domain z) (:predicates (p)) (:action noop :parameters () :precondition () :effect ()))")
    assert domain.actions[0].precondition is None and domain.actions[0].effect is None
    problem = parse_problem("(define (problem z1) (:domain z) (:init) (:goal (and)))")
    assert problem.goal == And(())


def test_negative_and_numeric_init() -> None:
    problem = parse_problem(
        "(define (problem c) (:domain d) (:init (p a) (not (p b)) (= (total-cost) 0) (= (road a b) 7))"
        " (:goal (p a)) (:metric minimize (total-cost)))"
    )
    kinds = [type(f).__name__ for f in problem.init]
    assert kinds == ["Atom", "Not", "NumericFact", "NumericFact"]
    assert problem.init[3].value.value == 7
    assert problem.metric is not None and problem.metric.direction == "minimize"


@pytest.mark.parametrize(
    "text",
    ["(stack a b)", "stack a b", "stack(a, b)", "STACK(A,B)", " `(Stack A B)` ", "'stack a b'", "(stack a, b)"],
)
def test_action_references(text: str) -> None:
    ref = parse_action_ref(text)
    assert (ref.name, ref.args) == ("stack", ("a", "b"))


@pytest.mark.parametrize("text", ["", "(stack a b", "(stack a b) (pick c)", "stack((a))", "(?x a)", "123"])
def test_bad_action_references(text: str) -> None:
    with pytest.raises(PDDLSyntaxError) as info:
        parse_action_ref(text)
    assert info.value.code == "ACTION_SYNTAX"


_WORDS = st.sampled_from(["a", "B", "stack", "Hold-Lamp", "t_1", "and", "Not", "not-x", "forall", "x9", "é",
                          "?x", "1", "when", "-", "(", ")", "increase", "scale-up"])


@settings(max_examples=300, deadline=None)
@given(words=st.lists(_WORDS, min_size=0, max_size=5), gaps=st.lists(st.sampled_from(["", " ", "\t", "  "]),
                                                                      min_size=7, max_size=7),
       paren=st.booleans())
def test_a_plain_action_text_reads_as_the_parser_reads_it(words: list[str], gaps: list[str], paren: bool) -> None:
    """Action texts ``(name arg ...)`` of plain names skip the parser (what sessions are sent, step after
    step); every text reads as the parser reads it (name, args, span, text, argument spans) or is refused
    with its error."""
    import re

    from pypddlengine.syntax import parser

    body = gaps[0] + "".join(w + g for w, g in zip(words, gaps[1:], strict=False))
    text = f"({body})" if paren else body

    def read(path: re.Pattern[str]) -> object:
        saved, parser._PLAIN_REF = parser._PLAIN_REF, path  # noqa: SLF001
        try:
            ref = parse_action_ref(text)
            return ref, ref.span, ref.text, ref.arg_spans
        except PDDLError as err:
            return err.code, str(err)
        finally:
            parser._PLAIN_REF = saved  # noqa: SLF001

    assert read(parser._PLAIN_REF) == read(re.compile("(?!)"))  # noqa: SLF001


def test_the_plain_action_pattern_is_the_grammars_atom() -> None:
    """The fast path's pattern is the grammar's GROUND_ATOMS token for one atom (possessive quantifiers
    apart), so the two cannot drift apart."""
    from importlib.resources import files

    from pypddlengine.syntax import parser

    grammar = files("pypddlengine.syntax").joinpath("pddl.lark").read_text()
    token = grammar.split("GROUND_ATOMS.2: /", 1)[1].split("/\n", 1)[0]
    assert token.startswith(parser._PLAIN_REF.pattern)  # noqa: SLF001


def test_plan_formats() -> None:
    text = "; a plan\n0: (pick-up A) [1]\n0.5: (stack a b)\n(put-down c) ; trailing\n(noop)\n; cost = 4 (unit cost)\n"
    plan = parse_plan(text)
    assert [(s.name, s.args) for s in plan.steps] == [
        ("pick-up", ("a",)), ("stack", ("a", "b")), ("put-down", ("c",)), ("noop", ())
    ]
    assert plan.steps[0].time == 0.0 and plan.steps[0].text == "(pick-up A)"
    assert plan.steps[2].span is not None and plan.steps[2].span.line == 4
    assert len(parse_plan("; only a comment\n")) == 0


def test_plan_syntax_error_has_position() -> None:
    with pytest.raises(PDDLSyntaxError) as info:
        parse_plan("(pick-up a)\n(stack a\n")
    assert info.value.code in {"PLAN_SYNTAX", "UNBALANCED_PARENTHESES"}
    assert info.value.span is not None and info.value.span.line == 2


def test_runs_and_structural_atoms_agree_on_spans() -> None:
    text = "(define (problem s) (:domain d)\n (:init (p a)\n  (q a b) ; note (x)\n\t(r)) (:goal (and (p a) (q a\n b))))"
    problem = parse_problem(text)
    spans = [(a.span.line, a.span.column) for a in problem.init]
    assert spans == [(2, 9), (3, 3), (4, 2)]
    assert [str(a) for a in problem.goal.parts] == ["(p a)", "(q a b)"]


@pytest.mark.parametrize(("objects", "names"), [
    ("a Bee c - block d", ["a", "Bee", "c", "d"]),
    ("a\n  Bee\tc ; x y\n c2 - block\n\n d e", ["a", "Bee", "c", "c2", "d", "e"]),
    ("a - (either block t) Bee c - t d-1 e_2", ["a", "Bee", "c", "d-1", "e_2"]),
    ("a", ["a"]),
    ("a b", ["a", "b"]),
])
def test_runs_of_names_keep_each_name_and_its_position(objects: str, names: list[str]) -> None:
    """Names in a typed list lex as one run token (the parser's shortcut);
    each object keeps its spelling and the span of its own text, as when
    every name was a token of its own (the lark reference runtime agrees)."""
    from pypddlengine.syntax.parser import _lark_parser

    text = f"(define (problem s) (:domain d)\n (:objects {objects})\n (:init (p a)) (:goal (p a)))"
    problem = parse_problem(text)
    assert problem == _lark_parser().parse(text, start="pddl_file")
    assert [o.display for o in problem.objects] == names
    lines = text.split("\n")
    for obj in problem.objects:
        span = obj.span
        assert span is not None and span.line == span.end_line
        assert lines[span.line - 1][span.column - 1:span.end_column - 1] == obj.display


# ---------------------------------------------------------------- property tests: formatting never matters


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9))
def test_reformatting_keeps_the_model(seed: int) -> None:
    rng = random.Random(seed)
    assert parse_domain(reformat(BASE_DOMAIN, rng)) == parse_domain(BASE_DOMAIN)
    assert parse_problem(reformat(BASE_PROBLEM, rng)) == parse_problem(BASE_PROBLEM)


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), ending=st.sampled_from(["\r", "\r\n"]))
def test_any_line_ending_keeps_the_model_and_the_positions(seed: int, ending: str) -> None:
    """Issue 25 item 9: a lone CR is a line end (classic Mac files), as CR-LF
    is; with CR only, a ';' comment used to swallow the rest of the file."""
    rng = random.Random(seed)
    domain, problem = reformat(BASE_DOMAIN, rng), reformat(BASE_PROBLEM, rng)
    assert parse_domain(domain.replace("\n", ending)) == parse_domain(domain)
    assert parse_problem(problem.replace("\n", ending)) == parse_problem(problem)
    plan = "; the plan\n(pick a)  ; first\n\n(put a b)\n"
    assert parse_plan(plan.replace("\n", ending)).steps == parse_plan(plan).steps
    broken = "; a comment first\n" + BASE_DOMAIN.replace("(clear ?x) (handempty))",
                                                         "(clear ?x) (handempty) (holdin ?x))", 1)
    line = next(i for i, t in enumerate(broken.splitlines(), 1) if "(holdin ?x)" in t)
    errors = [err for err in (pytest.raises(PDDLError, load_check, broken.replace("\n", e)).value
                              for e in ("\n", ending))]
    assert [(e.code, e.span) for e in errors] == [(errors[0].code, errors[0].span)] * 2
    assert errors[0].span is not None and errors[0].span.line == line


def load_check(text: str) -> None:
    check(parse_domain(text)).raise_first()


@pytest.mark.parametrize(("plan", "where", "char"), [
    ("(pick-up bl\u00f6ck)\n", "1:12", "\u00f6"),
    ("(pick a)\n(p\u00fct a b)\n", "2:3", "\u00fc"),
    ("(pick a)\n(put a \u6728)\n", "2:8", "\u6728"),
])
def test_a_non_ascii_name_in_a_plan_is_named_with_its_position(plan: str, where: str, char: str) -> None:
    """Issue 25 item 9: it used to be UNBALANCED_PARENTHESES at the step's '('."""
    with pytest.raises(PDDLSyntaxError) as info:
        parse_plan(plan)
    err = info.value
    assert err.code == "PLAN_SYNTAX" and str(err.span) == where
    assert f"{char!r} (U+{ord(char):04X}) at {where} is not allowed in a PDDL name" in err.message
    with pytest.raises(PDDLSyntaxError) as info:
        parse_action_ref(plan.splitlines()[-1])
    assert info.value.code == "ACTION_SYNTAX" and "is not allowed in a PDDL name" in info.value.message


def test_the_input_size_limit_bounds_a_parse(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 25 item 9: a 41 MB domain within the old 64 MiB limit parsed for
    more than 90 s in 1.6 GB; above the limit now it is refused before reading."""
    import subprocess
    import sys
    import time

    from pypddlengine.syntax import MAX_INPUT_BYTES

    assert MAX_INPUT_BYTES == 8 * 1024 * 1024
    action = "(:action a{} :parameters (?x ?y) :precondition (and (p ?x) (not (p ?y))) :effect (and (p ?y) (not (p ?x))))\n"
    body = "".join(action.format(i) for i in range(MAX_INPUT_BYTES // len(action) + 2000))
    (tmp_path / "big.pddl").write_text(f"(define (domain big) (:predicates (p ?x))\n{body})\n")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pypddlengine.cli", "check", str(tmp_path / "big.pddl")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2 and "error[INPUT_TOO_LARGE]" in proc.stderr, proc.stderr
    assert time.monotonic() - started < 30


def test_printer_round_trip_on_base() -> None:
    domain, problem = parse_domain(BASE_DOMAIN), parse_problem(BASE_PROBLEM)
    assert parse_domain(format_domain(domain)) == domain
    assert parse_problem(format_problem(problem)) == problem


def test_negation_in_goal_is_kept() -> None:
    problem = parse_problem("(define (problem n) (:domain d) (:init) (:goal (and (p) (not (q a)))))")
    assert problem.goal.parts[1] == Not(Atom("q", (Constant("a"),)))
