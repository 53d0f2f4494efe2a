"""Shared checks for relabelled copies: the copy re-parses to the same model,
and seeded random walks agree step by step between the original and the copy."""

from __future__ import annotations

import random

from pypddlengine import Session, compile_task, ground, parse_domain, parse_problem
from pypddlengine.model import Domain, Problem
from pypddlengine.printer import format_domain, format_problem
from pypddlengine.relabel import Relabelling, relabel
from pypddlengine.syntax import parse_action_ref


def relabelled_copy(domain: Domain, problem: Problem, seed: int) -> tuple[str, str, Relabelling]:
    """The copy's domain and problem text; asserts they re-parse to the relabelled models."""
    new_domain, (new_problem,), mapping = relabel(domain, [problem], seed)
    d_text, p_text = format_domain(new_domain), format_problem(new_problem)
    assert parse_domain(d_text) == new_domain and parse_problem(p_text) == new_problem
    return d_text, p_text, mapping


def walks_agree(original: Session, copy: Session, mapping: Relabelling, seed: int, steps: int) -> int:
    """Walk randomly on the original, executing each mapped step on the copy:
    applicable-action counts and sets, goal status and states (mapped) agree
    at every step, and the walk maps back to itself. Returns the steps walked."""
    rng = random.Random(seed)
    walked = []
    for _ in range(steps):
        names = original.applicable_names()
        mapped = {mapping.map_step(parse_action_ref(n)) for n in names}
        assert len(names) == len(copy.applicable_names()) and mapped == set(copy.applicable_names())
        assert original.is_goal() == copy.is_goal()
        assert len(original.goal_status().satisfied) == len(copy.goal_status().satisfied)
        assert {map_atom(mapping, a) for a in original.state_atoms()} == set(copy.state_atoms())
        if not names:
            break
        action = rng.choice(names)
        assert copy.execute(mapping.map_step(parse_action_ref(action))).success
        original.execute(action)
        walked.append(action)
    back = mapping.map_plan([parse_action_ref(a) for a in copy.plan()], reverse=True)
    assert back == [a.lower() for a in original.plan()] == [a.lower() for a in walked]  # names fold case
    return len(walked)


def map_atom(mapping: Relabelling, text: str) -> str:
    words = text.lower().strip("()").split()
    return f"({' '.join([mapping.new('predicates', words[0]), *(mapping.new('objects', w) for w in words[1:])])})"


def sessions(domain: Domain, problem: Problem, seed: int) -> tuple[Session, Session, Relabelling, str, str]:
    d_text, p_text, mapping = relabelled_copy(domain, problem, seed)
    original = Session(ground(compile_task(domain, problem)))
    copy = Session(ground(compile_task(parse_domain(d_text), parse_problem(p_text))))
    return original, copy, mapping, d_text, p_text
