"""Actions with many preconditions and parameters (issue 25 item 2): the
generated join code used to nest one loop per literal and CPython refuses
more than 20 nested blocks ("too many statically nested blocks"), so caldera
and organic-synthesis (IPC 2018) crashed the grounder. The join is now split
into chained functions; the grounding must equal the brute-force oracle
whichever precondition triggers it."""

from __future__ import annotations

import pytest

from pypddlengine import Session, ground, ground_brute_force, load_task
from pypddlengine.grounding import _trigger_source

MAX_LOOPS = 20  # CPython's limit of statically nested blocks in one function


def chain_task(length: int, free: int, wide: int = 5) -> tuple[str, str]:
    """One action ``walk`` whose precondition is a chain of ``length`` links
    ``(e ?x0 ?x1) ... (e ?x{length-1} ?x{length})`` after ``(start ?x0)``,
    plus ``free`` parameters no positive precondition binds (they are kept
    apart by a negative one). The first ``wide`` chain types have two objects,
    the others one; ``start`` is made true by another action, so its atoms
    reach the join after the links."""
    chain = [f"?x{i} - t{i}" for i in range(length + 1)]
    extra = [f"?f{i} - f" for i in range(free)]
    pre = ["(start ?x0)", *(f"(e ?x{i} ?x{i + 1})" for i in range(length)), *(f"(not (bad ?f{i}))" for i in range(free))]
    domain = f"""(define (domain deep)
  (:requirements :strips :typing :negative-preconditions)
  (:types {' '.join(f't{i}' for i in range(length + 1))} f)
  (:predicates (seed ?x - t0) (start ?x - t0) (e ?a ?b - object) (bad ?x - f) (done))
  (:action begin :parameters (?x - t0) :precondition (seed ?x) :effect (start ?x))
  (:action walk :parameters ({' '.join(chain + extra)})
    :precondition (and {' '.join(pre)})
    :effect (done)))
"""
    objects: list[list[str]] = [[f"o{i}a", f"o{i}b"] if i < wide else [f"o{i}a"] for i in range(length + 1)]
    links = [f"(e {a} {b})" for i in range(length) for a in objects[i] for b in objects[i + 1]
             if (a, b) != ("o2b", "o3a")]  # one missing link, so not every combination joins
    problem = f"""(define (problem deep-{length}) (:domain deep)
  (:objects {' '.join(f"{' '.join(objs)} - t{i}" for i, objs in enumerate(objects))} g1 g2 g3 - f)
  (:init (seed o0a) (seed o0b) (bad g3) {' '.join(links)})
  (:goal (done)))
"""
    return domain, problem


@pytest.mark.parametrize(("length", "free"), [(5, 0), (21, 0), (24, 3), (40, 6)])
def test_deep_joins_ground_like_the_oracle(length: int, free: int) -> None:
    lifted = load_task(*chain_task(length, free))
    task = ground(lifted)
    ours = [(a.schema.id, a.args) for a in task.actions]
    assert len(ours) == len(set(ours)), "an instance was produced twice"
    assert set(ours) == ground_brute_force(lifted)
    walks = [a for a in task.actions if a.schema.name == "walk"]
    assert len(walks) == 2 * 2 * 3 * 2 * 2**free  # x0, x1, (x2, x3) but o2b-o3a, x4; each ?f in {g1, g2}


def test_a_deep_action_steps_in_a_session() -> None:
    session = Session(*chain_task(24, 3))
    assert session.execute("(begin o0a)").success
    walk = next(a for a in session.applicable_names() if a.startswith("(walk"))
    assert session.execute(walk).goal_reached


def test_the_join_source_never_nests_past_the_limit() -> None:
    lifted = load_task(*chain_task(40, 6))
    walk = lifted.schema_index["walk"]
    static = frozenset(range(len(lifted.predicates))) - lifted.fluent_predicates
    for trigger in range(len(walk.pre)):
        source = _trigger_source(walk, trigger, static)
        depth = 0
        for line in source.splitlines():
            if line.startswith("def "):
                depth = 0
            elif line.lstrip().startswith("for "):
                depth = max(depth, (len(line) - len(line.lstrip())) // 4)
                assert depth <= MAX_LOOPS, source
        assert source.count("\ndef j") >= 2  # 40 links and 6 free parameters need three functions
