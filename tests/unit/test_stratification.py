"""Unstratifiable axioms (issue 25 item 4): ``check`` used to say ok where
``validate`` and ``ground`` refused the task with UNSTRATIFIABLE_AXIOMS. The
checker now decides stratification itself, so every command agrees; the
decision is compared with an independent oracle (networkx's strongly
connected components: negation must not lie inside one) on random axiom sets."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from pypddlengine import check, load_task
from pypddlengine.cli import main
from pypddlengine.syntax import parse_domain, parse_problem

NAMES = ["d0", "d1", "d2", "d3", "d4"]


def axiom_domain(rules: list[tuple[int, list[tuple[int, str]]]]) -> str:
    """One :derived rule per ``(head, uses)``; a use is ``(predicate, how)``,
    ``how`` one of pos, not, imply (the antecedent of an imply: negative),
    then (its consequent: positive), exists, forall."""
    forms = {
        "pos": "({p})", "not": "(not ({p}))", "imply": "(imply ({p}) (base))", "then": "(imply (base) ({p}))",
        "exists": "(exists (?o) ({p}))", "forall": "(forall (?o) (not ({p})))",
    }
    axioms = []
    for head, uses in rules:
        body = " ".join(forms[how].format(p=NAMES[q]) for q, how in uses) or "(base)"
        axioms.append(f"  (:derived ({NAMES[head]}) (and (base) {body}))")
    return ("(define (domain strat) (:requirements :adl :derived-predicates)\n"
            f"  (:predicates (base) {' '.join(f'({n})' for n in NAMES)})\n" + "\n".join(axioms) + "\n"
            "  (:action a :parameters () :precondition (base) :effect (not (base))))\n")


PROBLEM = "(define (problem p) (:domain strat) (:objects o) (:init (base)) (:goal (d0)))"
NEGATIVE = {"not", "imply", "forall"}

uses = st.lists(st.tuples(st.integers(0, 4), st.sampled_from(["pos", "not", "imply", "then", "exists", "forall"])),
                max_size=3)
rule_sets = st.lists(st.tuples(st.integers(0, 4), uses), min_size=1, max_size=6)


def oracle_stratifiable(rules: list[tuple[int, list[tuple[int, str]]]]) -> bool:
    nx = pytest.importorskip("networkx", reason="the oracle needs networkx (installed with the test extra's "
                             "unified-planning)")
    graph = nx.DiGraph()
    negative = set()
    for head, body in rules:
        graph.add_node(head)
        for q, how in body:
            graph.add_edge(head, q)
            if how in NEGATIVE:
                negative.add((head, q))
    component = {n: i for i, comp in enumerate(nx.strongly_connected_components(graph)) for n in comp}
    return all(component[h] != component[q] for h, q in negative)


@settings(max_examples=150, deadline=None)
@given(rule_sets)
def test_check_decides_stratification_like_the_oracle(rules: list[tuple[int, list[tuple[int, str]]]]) -> None:
    from pypddlengine.checker import axiom_levels, negative_cycle

    domain = parse_domain(axiom_domain(rules))
    report = check(domain, parse_problem(PROBLEM))
    codes = [e.code for e in report.errors]
    assert ("UNSTRATIFIABLE_AXIOMS" not in codes) is oracle_stratifiable(rules), axiom_domain(rules)
    assert (negative_cycle(domain) is None) is oracle_stratifiable(rules)
    if oracle_stratifiable(rules):
        levels = axiom_levels(domain)
        for head, body in rules:
            for q, how in body:
                if NAMES[q] in levels:  # a derived predicate (one without rules is a basic one)
                        assert levels[NAMES[head]] >= levels[NAMES[q]] + (1 if how in NEGATIVE else 0)


def test_every_command_refuses_what_check_refuses(tmp_path: Path) -> None:
    domain, problem, plan = tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan"
    domain.write_text(axiom_domain([(0, [(1, "pos")]), (1, [(0, "not")]), (2, [(1, "not")])]))
    problem.write_text(PROBLEM)
    plan.write_text("(a)\n")
    runner = CliRunner()
    results = {
        "check": runner.invoke(main, ["check", str(domain), str(problem)]),
        "check-domain": runner.invoke(main, ["check", str(domain)]),
        "validate": runner.invoke(main, ["validate", str(domain), str(problem), str(plan)]),
        "ground": runner.invoke(main, ["ground", str(domain), str(problem)]),
    }
    for name, result in results.items():
        assert result.exit_code != 0, (name, result.output)
        assert "UNSTRATIFIABLE_AXIOMS" in result.output, (name, result.output)
    assert "'d1' depends negatively on itself" in results["check"].output
    assert "d.pddl:4:13" in results["check"].output  # the head of the :derived rule of d1
    with pytest.raises(Exception) as err:
        load_task(domain, problem)
    assert getattr(err.value, "code", None) == "UNSTRATIFIABLE_AXIOMS"
