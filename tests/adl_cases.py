"""A small ADL task with every construct of issue 11 (disjunction, imply,
exists, forall, when, forall effects, derived predicates with negation),
shared by the unit, session and MCP tests."""

from __future__ import annotations

DOMAIN = """\
(define (domain adl)
  (:requirements :adl :derived-predicates)
  (:types room ball)
  (:predicates (at ?b - ball ?r - room) (robot ?r - room) (lit ?r - room) (seen ?r - room) (dark))
  (:derived (seen ?r - room) (or (lit ?r) (exists (?b - ball) (at ?b ?r))))
  (:derived (dark) (forall (?r - room) (not (lit ?r))))
  (:action move
    :parameters (?from ?to - room)
    :precondition (and (robot ?from) (imply (dark) (seen ?to)))
    :effect (and (robot ?to) (not (robot ?from))
                 (forall (?b - ball) (when (at ?b ?from) (and (at ?b ?to) (not (at ?b ?from)))))))
  (:action switch
    :parameters (?r - room)
    :precondition (robot ?r)
    :effect (and (when (lit ?r) (not (lit ?r))) (when (not (lit ?r)) (lit ?r)))))
"""

PROBLEM = """\
(define (problem p) (:domain adl)
  (:objects r1 r2 r3 - room b1 b2 - ball)
  (:init (robot r1) (at b1 r1) (lit r2))
  (:goal (and (forall (?b - ball) (imply (at ?b r1) (seen r3))) (exists (?r - room) (at b1 ?r)))))
"""


# conditional action costs (issue 25 item 1): VAL charges a cost inside when/forall per firing (VAL
# needs every :precondition, and an (and ...) around a numeric effect directly under forall)
COST_DOMAIN = """\
(define (domain cc)
  (:requirements :adl :action-costs)
  (:types item)
  (:predicates (p) (q) (m ?x - item) (done))
  (:functions (total-cost) - number (w ?x - item) - number)
  (:action a :parameters () :precondition (and)
    :effect (and (done) (increase (total-cost) 3) (when (p) (and (q) (increase (total-cost) 10)))))
  (:action b :parameters () :precondition (and)
    :effect (and (done) (increase (total-cost) 1)
                 (forall (?x - item) (when (m ?x) (increase (total-cost) 100)))))
  (:action c :parameters () :precondition (and)
    :effect (forall (?x - item) (when (m ?x) (and (increase (total-cost) (w ?x)) (increase (total-cost) 1)))))
  (:action d :parameters () :precondition (and) :effect (forall (?x - item) (and (increase (total-cost) 1))))
  (:action flip :parameters (?x - item) :precondition (and)
    :effect (and (increase (total-cost) 2) (when (m ?x) (not (m ?x))) (when (not (m ?x)) (m ?x))))
  (:action toggle :parameters () :precondition (and)
    :effect (and (when (p) (not (p))) (when (not (p)) (and (p) (increase (total-cost) 7))))))
"""


def cost_problem(marked: int, p: bool = False) -> str:
    init = [f"(m i{k})" for k in range(1, marked + 1)] + (["(p)"] if p else [])
    weights = " ".join(f"(= (w i{k}) {k * 5})" for k in range(1, 4))
    return (f"(define (problem cc{marked}) (:domain cc) (:objects i1 i2 i3 - item)\n"
            f"  (:init (= (total-cost) 0) {weights} {' '.join(init)})\n"
            "  (:goal (done)) (:metric minimize (total-cost)))\n")
