"""Partial observability: hidden atoms, the Blocksworld top-two rule against a
brute-force stack oracle along random walks, goals on the true state, errors."""

from __future__ import annotations

import random
import re

import pytest

from pypddlengine import Session
from pypddlengine.bundled import bundled_task
from pypddlengine.errors import ErrorCode, ObservationRuleError


def bw(name: str = "p05", **kw: object) -> Session:
    return Session(*bundled_task(f"blocksworld/{name}"), **kw)  # type: ignore[arg-type]


def oracle_visible(atoms: list[str], keep: int = 2) -> list[str]:
    """Build each stack bottom-up from (ontable x) and (on x y); hide every atom
    that names a block below the top ``keep`` of its stack."""
    on = {}
    bottoms = []
    for a in atoms:
        words = a.strip("()").split()
        if words[0] == "on":
            on[words[2]] = words[1]  # words[1] sits on words[2]
        elif words[0] == "ontable":
            bottoms.append(words[1])
    hidden = set()
    for b in bottoms:
        stack = [b]
        while stack[-1] in on:
            stack.append(on[stack[-1]])
        hidden.update(stack[:-keep])
    return [a for a in atoms if not hidden & set(a.strip("()").split()[1:])]


def test_top_two_of_each_stack_are_visible() -> None:
    s = bw(observation="blocksworld-top2")
    assert s.state_atoms() == sorted(["(clear h)", "(on h b)", "(ontable g)", "(on a g)", "(clear a)", "(handempty)"])
    assert "(on b c)" in s.state_atoms(observed=False) and "(on b c)" in [s.task.render_atom(i) for i in s.state]
    r = s.execute("unstack h b")  # c comes into view: (on b c) and (clear b) are now seen
    assert r.success and set(r.added) == {"(holding h)", "(clear b)", "(on b c)"}
    assert set(r.deleted) == {"(on h b)", "(clear h)", "(handempty)"}
    assert r.goal_reached is False


@pytest.mark.parametrize("task", ["p05", "p08", "p10"])
def test_random_walks_agree_with_the_stack_oracle(task: str) -> None:
    rng = random.Random(task)
    s = bw(task, observation="Stack-Top 2 ON")
    seen = s.state_atoms()
    for _ in range(150):
        truth = s.state_atoms(observed=False)
        assert s.state_atoms() == oracle_visible(truth)
        assert set(s.state_atoms()) <= set(truth)
        r = s.execute(rng.choice(s.applicable_names()))
        now = s.state_atoms()
        assert set(r.added) == set(now) - set(seen) and set(r.deleted) == set(seen) - set(now)
        seen = now


def test_goal_is_checked_on_the_true_state() -> None:
    plain, hidden = bw("p01"), bw("p01", observation="hide on")
    plan = ["unstack c a", "put-down c", "pick-up b", "stack b c", "pick-up a", "stack a b"]
    for a in plan:
        r = hidden.execute(a)
        plain.execute(a)
    assert r.goal_reached and hidden.is_goal() and not any(a.startswith("(on ") for a in hidden.state_atoms())
    assert hidden.applicable_names() == plain.applicable_names()  # true applicability


def test_hide_patterns_and_rule_lists() -> None:
    s = bw(observation=["hide on ? g", "hide handempty"])
    atoms = s.state_atoms()
    assert "(on a g)" not in atoms and "(handempty)" not in atoms and "(on e d)" in atoms
    assert s.observation.text == "hide on ? g; hide handempty"
    assert bw(observation=" ; ").observation is None


@pytest.mark.parametrize(("rule", "fragment"), [
    ("hide nothing", "no predicate 'nothing'"),
    ("hide on zz", "no object 'zz'"),
    ("hide on a b c", "takes 2 argument"),
    ("stack-top 0", "depth of 1 or more"),
    ("stack-top 2 clear", "two arguments"),
    ("peek on", "unknown observation rule"),
    ("hide", "names no predicate"),
])
def test_bad_rules_raise_typed_errors(rule: str, fragment: str) -> None:
    with pytest.raises(ObservationRuleError) as err:
        bw(observation=rule)
    assert err.value.code == ErrorCode.BAD_OBSERVATION_RULE and re.search(re.escape(fragment), err.value.message)


SWITCH_DOMAIN = """(define (domain switch)
  (:requirements :strips :conditional-effects)
  (:predicates (on ?l) (secret ?l) (lit ?l))
  (:action flip :parameters (?l)
    :precondition (on ?l)
    :effect (and (not (on ?l)) (when (secret ?l) (lit ?l)))))"""
SWITCH_PROBLEM = """(define (problem p) (:domain switch) (:objects a b)
  (:init (on a) (on b) (secret a)) (:goal (lit a)))"""


def test_fired_effects_do_not_leak_hidden_atoms() -> None:
    plain = Session(SWITCH_DOMAIN, SWITCH_PROBLEM)
    r = plain.execute("flip a")
    assert r.fired and "secret" in " ".join(r.fired)  # without an observation the condition is shown
    hidden = Session(SWITCH_DOMAIN, SWITCH_PROBLEM, observation="hide secret")
    r = hidden.execute("flip a")
    assert r.success and r.goal_reached and r.fired == ()
    assert not any("secret" in a for a in (*r.added, *r.deleted, *hidden.state_atoms()))
    assert set(r.added) == {"(lit a)"} and set(r.deleted) == {"(on a)"}
