"""ADL and axioms, stage 1: every construct parses, prints and parses back to
the same model, and the checker scopes and types variables in quantifiers,
conditional effects and :derived bodies."""

from __future__ import annotations

import re

import pytest
from adl_cases import DOMAIN, PROBLEM

from pypddlengine import check
from pypddlengine.errors import PDDLSyntaxError
from pypddlengine.model import DerivedDecl, Exists, Forall, ForallEffect, Imply, Or, When
from pypddlengine.printer import format_domain
from pypddlengine.syntax import parse_domain, parse_problem


def test_adl_constructs_parse_and_round_trip() -> None:
    domain = parse_domain(DOMAIN)
    assert [a.predicate for a in domain.axioms] == ["seen", "dark"]
    assert isinstance(domain.axioms[0], DerivedDecl)
    assert isinstance(domain.axioms[0].body, Or) and isinstance(domain.axioms[0].body.parts[1], Exists)
    assert isinstance(domain.axioms[1].body, Forall)
    move = domain.actions[0]
    assert isinstance(move.precondition.parts[1], Imply)
    assert isinstance(move.effect.parts[2], ForallEffect) and isinstance(move.effect.parts[2].effect, When)
    assert parse_domain(format_domain(domain)) == domain
    report = check(domain, parse_problem(PROBLEM))
    assert report.ok, [e.render() for e in report.errors]
    assert {"derived-predicates", "conditional-effects", "universal-effects", "disjunctive-preconditions",
            "existential-preconditions", "universal-preconditions"} <= report.features


@pytest.mark.parametrize(
    ("old", "new", "code", "words"),
    [
        ("(exists (?b - ball) (at ?b ?r))", "(exists (?b - ball) (at ?c ?r))", "UNDEFINED_VARIABLE", "?c"),
        ("(exists (?b - ball) (at ?b ?r))", "(exists (?b - room) (at ?b ?r))", "TYPE_MISMATCH", "ball"),
        ("(when (at ?b ?from)", "(when (at ?from ?b)", "TYPE_MISMATCH", "ball"),
        ("(not (robot ?from))", "(not (robot ?from)) (dark)", "INVALID_EFFECT", "dark"),
        ("(:derived (dark)", "(:derived (dark ?r - room)", "ARITY_MISMATCH", "dark"),
        ("(lit ?r - room) (seen ?r - room) (dark)", "(lit ?r - room) (dark)", "UNDEFINED_PREDICATE", "seen"),
    ],
)
def test_checker_scopes_and_types_adl_variables(old: str, new: str, code: str, words: str) -> None:
    assert old in DOMAIN
    report = check(parse_domain(DOMAIN.replace(old, new, 1)), parse_problem(PROBLEM))
    assert report.errors, "accepted"
    err = report.errors[0]
    assert err.code == code, err.render()
    assert words in err.message and err.span is not None


def test_derived_atom_in_init_is_refused() -> None:
    report = check(parse_domain(DOMAIN), parse_problem(PROBLEM.replace("(lit r2)", "(lit r2) (dark)")))
    assert report.errors and report.errors[0].code == "INVALID_EFFECT"
    assert report.errors[0].span is not None and report.errors[0].span.line == 3


def test_numeric_is_accepted_and_durative_stays_rejected_by_name() -> None:
    numeric = DOMAIN.replace("(:action switch", "(:functions (fuel)) (:action switch").replace(
        ":effect (and (when (lit ?r)", ":effect (and (increase (fuel) 1) (when (lit ?r)")
    report = check(parse_domain(numeric), parse_problem(PROBLEM))
    assert report.errors == () and "numeric-fluents" in report.features  # issue 20
    durative = DOMAIN.replace("(:action switch", "(:durative-action wait :parameters () :duration (= ?duration 1) "
                                                 ":condition (and) :effect (and)) (:action switch")
    report = check(parse_domain(durative), parse_problem(PROBLEM))
    assert report.errors[0].code == "UNSUPPORTED_REQUIREMENT" and "durative" in report.errors[0].message
    assert report.errors[0].span is not None


AXIOM_DOMAIN = """(define (domain dd) (:requirements :strips :derived-predicates)
  (:predicates (base ?x ?y) (a ?x ?y) (z) (g))
  {axioms}
  (:action act :parameters (?x) :precondition (and (a ?x ?x) (z)) :effect (g)))"""


@pytest.mark.parametrize(("compact", "structural"), [
    ("(:derived (a ?x ?y) (base ?y ?x))", "(:derived (a ?x ?y) (and (base ?y ?x)))"),
    ("(:derived (A ?x ?y)\n  (Base ?y ?x))", "(:derived (a ?x ?y) (and (base ?y ?x)))"),
    ("(:derived (a ?x ?y) ; why\n (base ?y ?x))", "(:derived (a ?x - object ?y) (base ?y ?x))"),
    ("(:derived (z) (g))", "(:derived (z) (and (g)))"),
    ("(:derived (z)(g))", "(:derived (z) (or (g)))"),
])
def test_an_untyped_head_with_a_one_atom_body_parses(compact: str, structural: str) -> None:
    """Issue 25 item 3: the head and a one-atom body used to lex as one run of
    atoms and fail with SYNTAX_ERROR (VAL and Fast Downward accept them)."""
    ours = parse_domain(AXIOM_DOMAIN.format(axioms=compact)).axioms[0]
    reference = parse_domain(AXIOM_DOMAIN.format(axioms=structural)).axioms[0]
    assert (ours.predicate, ours.parameters, ours.body) == (reference.predicate, reference.parameters,
                                                          _unwrap(reference.body))
    assert ours.display == re.match(r"\(:derived \((\w+)", compact).group(1)  # type: ignore[union-attr]


def _unwrap(body: object) -> object:
    parts = getattr(body, "parts", None)
    return parts[0] if parts is not None and len(parts) == 1 else body


def test_a_derived_run_of_three_atoms_is_a_located_error() -> None:
    with pytest.raises(PDDLSyntaxError) as err:
        parse_domain(AXIOM_DOMAIN.format(axioms="(:derived (z) (g) (g))"))
    assert err.value.span is not None and err.value.span.column == 21
    assert "':derived' takes a head and one condition, not 3 atom(s)" in err.value.message
