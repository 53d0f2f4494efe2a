"""Malformed input gives a typed error with a stable code and its position,
never a crash, and messages speak PDDL, not lark."""

from __future__ import annotations

import re

import pytest
from malformed_cases import BASE_DOMAIN, BASE_PROBLEM, CASES

from pypddlengine import (
    PDDLError,
    PDDLSemanticError,
    PDDLSyntaxError,
    UnsupportedRequirementError,
    check,
    parse_domain,
    parse_problem,
)
from pypddlengine.errors import InputTooLargeError

LARK_WORDS = re.compile(r"__ANON|\b(LPAR|RPAR|NAME|VARIABLE|KEYWORD|ATOMS|GROUND_ATOMS|SEXPR_ATOM|\$END)\b")


def run(domain: str | bytes, problem: str | bytes | None) -> PDDLError:
    with pytest.raises(PDDLError) as info:
        d = parse_domain(domain, filename="d.pddl")
        p = parse_problem(problem, filename="p.pddl") if problem is not None else None
        check(d, p).raise_first()
    return info.value


def test_base_files_are_valid() -> None:
    report = check(parse_domain(BASE_DOMAIN), parse_problem(BASE_PROBLEM))
    assert report.ok, [e.render() for e in report.errors]


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 25
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_malformed_input(case: tuple) -> None:
    _, domain, problem, code, line, column, words = case
    err = run(domain, problem)
    assert err.code == code, err.render()
    if line:
        assert err.span is not None and (err.span.line, err.span.column) == (line, column), err.render()
        assert err.source is not None and err.source.name in {"d.pddl", "p.pddl"}
        rendered = err.render()
        assert rendered.startswith(f"{err.source.name}:{line}:{column}: error[{code}]")
        assert "^" in rendered  # caret snippet under the offending text
    assert words in err.message, err.message
    assert not LARK_WORDS.search(str(err)), str(err)


def test_error_classes_match_codes() -> None:
    for cid, domain, problem, code, *_ in CASES:
        err = run(domain, problem)
        if code == "UNSUPPORTED_REQUIREMENT":
            assert isinstance(err, UnsupportedRequirementError), cid
            assert err.feature, cid
        elif code in {"SYNTAX_ERROR", "UNBALANCED_PARENTHESES", "EMPTY_INPUT", "BINARY_INPUT", "UNKNOWN_SECTION",
                      "MISSING_SECTION", "DUPLICATE_SECTION", "WRONG_FILE_KIND"}:
            assert isinstance(err, PDDLSyntaxError), cid
        else:
            assert isinstance(err, PDDLSemanticError), cid


def test_oversized_input_is_rejected_before_parsing() -> None:
    with pytest.raises(InputTooLargeError) as info:
        parse_domain(BASE_DOMAIN, max_bytes=100)
    assert info.value.code == "INPUT_TOO_LARGE"
    assert info.value.details["limit"] == 100


def test_checker_collects_every_error() -> None:
    domain = BASE_DOMAIN.replace("(clear ?x) (handempty))", "(free ?x) (handempty))").replace(
        ":parameters (?x - block ?y - block)", ":parameters (?x - blok ?y - block)"
    )
    report = check(parse_domain(domain), None)
    codes = sorted(e.code for e in report.errors)
    assert codes == ["UNDEFINED_PREDICATE", "UNDEFINED_TYPE"]


def test_error_is_picklable_with_its_fields() -> None:
    import pickle

    err = run(BASE_DOMAIN.replace("(:predicates", "(:predicats"), None)
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.code, copy.span, copy.message) == (err.code, err.span, err.message)
    assert copy.to_dict()["line"] == 4
