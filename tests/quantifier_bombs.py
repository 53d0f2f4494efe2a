"""ADL quantifier bombs (issue 25 item 7), shared by the unit, CLI and MCP
tests: tiny domains whose quantifiers range over six variables, 60 objects
each (4.7e10 bindings for one instance), and a slow one that passes the
up-front estimate but grounds for many minutes without its limits."""

from __future__ import annotations

SIX = "?a ?b ?c ?d ?e ?f"

BOMBS = {
    "precondition-forall": f"(:action a :parameters () :precondition (forall ({SIX}) (not (p {SIX}))) :effect (g))",
    "precondition-exists": f"(:action a :parameters () :precondition (exists ({SIX}) (p {SIX})) :effect (g))",
    "effect-forall": f"(:action a :parameters () :precondition (and) :effect (and (g) (forall ({SIX}) (p {SIX}))))",
    "effect-when": f"(:action a :parameters () :precondition (and) "
                   f":effect (and (g) (forall ({SIX}) (when (q ?a) (not (q ?b))))))",
    "axiom-forall": f"(:derived (d) (forall ({SIX}) (not (p {SIX})))) (:action a :parameters () :precondition (d) "
                    ":effect (g))",
    "axiom-exists-unbound": f"(:derived (d) (exists ({SIX}) (not (p {SIX})))) (:action a :parameters () "
                            ":precondition (d) :effect (g))",
}
"""Each an action (or axiom and action) of :func:`bomb_domain`; the dictionary key names the construct."""


def bomb_domain(body: str) -> str:
    return ("(define (domain b) (:requirements :adl :derived-predicates)\n"
            f" (:predicates (p {SIX}) (q ?x) (d) (g))\n {body})\n")


def objects(n: int = 60, init: str = "", goal: str = "(g)") -> str:
    names = " ".join(f"o{i}" for i in range(n))
    return f"(define (problem p) (:domain b) (:objects {names}) (:init {init}) (:goal {goal}))\n"


GOAL_BOMB = (bomb_domain("(:action a :parameters () :precondition (and) :effect (g))"),
             objects(goal=f"(and (g) (forall ({SIX}) (not (p {SIX}))))"))

SLOW_ADL = (
    "(define (domain b) (:requirements :adl)\n"
    " (:predicates (p ?a ?b ?c ?x ?y) (e ?x ?y) (g))\n"
    " (:action a :parameters (?x ?y) :precondition (and (e ?x ?y) (forall (?a ?b ?c) (not (p ?a ?b ?c ?x ?y))))\n"
    "  :effect (g)))\n",
    objects(init=" ".join(f"(e o{i} o{j})" for i in range(60) for j in range(60))),
)
"""3,600 instances, each a forall over 216,000 bindings that depends on both
parameters (no memo helps): under every per-instance limit, about 7.8e8
bindings in all."""
