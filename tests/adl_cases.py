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
