"""Numeric PDDL used by several test modules: one domain that uses every
numeric construct the engine accepts (typed functions with object arguments,
comparisons in preconditions, goals, ``when`` conditions, quantifiers and
derived bodies; the five assignment operators; n-ary and unary arithmetic;
decimal, negative and integer literals; a metric over an expression), and the
numeric corpus (read by path, never copied)."""

from __future__ import annotations

import os
from pathlib import Path

from corpus import CORPUS

NUMERIC_CORPUS = Path(os.environ.get("PYPDDL_NUMERIC_CORPUS", CORPUS.parent / "numeric-benchmarks")).resolve()
NUMERIC_CORPUS_REASON = (f"numeric benchmark corpus not found at {NUMERIC_CORPUS} "
                         "(set PYPDDL_NUMERIC_CORPUS to its path)")


def numeric_tasks() -> list[tuple[str, Path, Path]]:
    """``(name, domain, problem)`` of every task of the numeric corpus, in a
    stable order (empty when the corpus is absent)."""
    out = []
    for domain in sorted(NUMERIC_CORPUS.glob("*/*/domain.pddl")):
        problems = sorted((p for p in domain.parent.glob("*.pddl") if p.name != "domain.pddl"),
                          key=lambda p: (len(p.stem), p.stem))
        for problem in problems:
            out.append((f"{domain.parent.parent.name}/{domain.parent.name}/{problem.stem}", domain, problem))
    return out


DOMAIN = """\
(define (domain tanks)
  (:requirements :typing :numeric-fluents :conditional-effects :universal-preconditions
                 :derived-predicates :negative-preconditions)
  (:types tank pump - object)
  (:predicates (open ?p - pump) (linked ?p - pump ?t - tank) (alarm) (full ?t - tank))
  (:functions (level ?t - tank) - number
              (capacity ?t - tank)
              (rate ?p - pump) - number
              (pumped) (energy) - number)
  (:derived (full ?t - tank) (>= (level ?t) (capacity ?t)))
  (:action open-pump
    :parameters (?p - pump)
    :precondition (and (not (open ?p)) (> (energy) 0))
    :effect (and (open ?p) (decrease (energy) 1)))
  (:action pump
    :parameters (?p - pump ?t - tank)
    :precondition (and (open ?p) (linked ?p ?t) (not (full ?t))
                       (<= (+ (level ?t) (rate ?p)) (* 2 (capacity ?t))))
    :effect (and (increase (level ?t) (rate ?p))
                 (increase (pumped) (* (rate ?p) 1.5))
                 (when (> (+ (level ?t) (rate ?p)) (capacity ?t)) (alarm))))
  (:action drain
    :parameters (?t - tank)
    :precondition (forall (?p - pump) (imply (linked ?p ?t) (not (open ?p))))
    :effect (and (scale-down (level ?t) 2) (assign (pumped) (- (pumped) (/ (level ?t) 2)))))
  (:action boost
    :parameters (?p - pump)
    :precondition (exists (?t - tank) (and (linked ?p ?t) (< (level ?t) (- (capacity ?t) 1))))
    :effect (and (scale-up (rate ?p) 1.25) (decrease (energy) (- 3 (- 1))))))
"""

PROBLEM = """\
(define (problem tanks-1)
  (:domain tanks)
  (:objects t1 t2 - tank p1 p2 - pump)
  (:init (linked p1 t1) (linked p2 t2) (linked p2 t1)
         (= (level t1) 0) (= (level t2) 0.5)
         (= (capacity t1) 10) (= (capacity t2) 2.5)
         (= (rate p1) 4) (= (rate p2) 0.1)
         (= (pumped) 0) (= (energy) 12))
  (:goal (and (full t1) (>= (level t2) 0.7) (not (alarm))))
  (:metric minimize (+ (pumped) (* -0.5 (energy)))))
"""


def without_goal(problem: Path, out: Path) -> Path:
    """A copy of a problem file whose goal is ``(and)`` (every executable plan
    reaches it, so VAL prints its final value for any such plan); the rest of
    the text is kept byte for byte."""
    text = problem.read_text(errors="replace")
    start = end = text.lower().index("(:goal")
    depth = 0
    while end < len(text):
        ch = text[end]
        if ch == ";":  # a comment: skip to the end of its line
            end = text.find("\n", end)
            end = len(text) if end < 0 else end
            continue
        depth += 1 if ch == "(" else -1 if ch == ")" else 0
        if depth == 0:
            break
        end += 1
    out.write_text(text[:start] + "(:goal (and))" + text[end + 1:])
    return out


def random_walk(session, seed: int, steps: int) -> list[str]:  # type: ignore[no-untyped-def]
    """A seeded random walk of a session: at each step a random applicable
    action; one whose execution fails (a numeric effect that cannot be
    executed) is left out and another one tried."""
    import random

    rng = random.Random(seed)
    for _ in range(steps):
        actions = session.applicable_actions()
        rng.shuffle(actions)
        if not any(session.execute(a).success for a in actions[:20]):
            break
    return session.plan()
