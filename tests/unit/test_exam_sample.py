"""The landmark sample that `exam make` asks about (ExamTask.landmark_sample): every atom it lists is
classified as the full classification (ExamTask.landmarks, itself tested against brute force in
test_exam.py) classifies it, it proves enough atoms either way or is the full classification, and the land
questions made from it agree with `exam answer`'s full answers."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from pypddlengine.exam import ExamTask
from pypddlengine.exam_make import make_questions, state_problem
from pypddlengine.exam_questions import answer_question, compare, format_of

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = (ROOT / "domains" / "blocksworld.pddl").read_text()
GRIPPER = (ROOT / "domains" / "gripper.pddl").read_text()
TASKS = [(BLOCKS, (ROOT / "problems" / "blocksworld" / f"p0{i}.pddl").read_text()) for i in (1, 2, 3)]
TASKS.append((GRIPPER, sorted((ROOT / "problems" / "gripper").glob("*.pddl"))[0].read_text()))


def walk(root: ExamTask, rng: random.Random, steps: int) -> Any:
    """The state after up to ``steps`` random steps from ``root``'s state."""
    state = root.state
    for _ in range(steps):
        options = root.applicable(state)
        state = rng.choice(options).apply(state) if options else state
    return state


@pytest.mark.parametrize("domain,problem", TASKS)
def test_sample_within_the_full_classification(domain: str, problem: str) -> None:
    root = ExamTask(domain, problem)
    rng = random.Random(3)
    partial = 0
    for _ in range(6):
        state = walk(root, rng, rng.randrange(6))
        exam = ExamTask(domain, state_problem(root, state, problem))
        sample, full = exam.landmark_sample(), exam.landmarks()
        assert set(sample["yes"]) <= set(full["yes"])
        assert set(sample["no"]) <= set(full["no"])
        assert set(sample["maybe"]) <= set(full["maybe"])
        if len(sample["yes"]) >= 1 and len(sample["no"]) >= 3:
            partial += sample != full
        else:
            assert sample == full  # too few proved: every atom was decided, as in the full classification
    assert partial  # not vacuous: the sample stops before deciding everything somewhere


def test_made_land_questions_agree_with_the_full_answers() -> None:
    docs = make_questions(BLOCKS, TASKS[2][1], seed=4, per_task=3, tasks=["land"])
    assert {format_of(d) for d in docs} == {"gen", "bool", "mcq"}
    for doc in docs:
        verdict, note = compare(doc, answer_question(doc))
        assert verdict == "agree", (doc["group"], note)


LOGISTICS = (ROOT / "domains" / "logistics.pddl").read_text()
ONE_WAY = """(define (domain one-way) (:requirements :strips :typing :action-costs)
  (:types place) (:predicates (at ?p - place) (road ?a ?b - place) (visited ?p - place))
  (:functions (total-cost) - number (len ?a ?b - place) - number)
  (:action drive :parameters (?a ?b - place) :precondition (and (at ?a) (road ?a ?b))
    :effect (and (not (at ?a)) (at ?b) (visited ?b) (increase (total-cost) (len ?a ?b)))))"""
ROADS = [("p0", "p1", 1), ("p1", "p2", 1), ("p2", "p5", 3), ("p1", "p3", 1), ("p0", "p2", 2), ("p2", "p4", 1),
         ("p4", "p5", 1), ("p3", "p6", 1)]  # one way each; p3 leads to the dead end p6
ONE_WAY_PROBLEM = ("(define (problem w) (:domain one-way) (:objects p0 p1 p2 p3 p4 p5 p6 - place) (:init (at p0)"
                   " (= (total-cost) 0) " + " ".join(f"(road {a} {b}) (= (len {a} {b}) {c})" for a, b, c in ROADS)
                   + ") (:goal (and (visited p5))) (:metric minimize (total-cost)))")
SHARED = [*TASKS[1:], (LOGISTICS, (ROOT / "problems" / "logistics" / "p01.pddl").read_text()),
          (ONE_WAY, ONE_WAY_PROBLEM)]


@pytest.mark.parametrize("domain,problem", SHARED)
def test_a_copy_at_a_state_answers_as_the_states_own_problem(domain: str, problem: str) -> None:
    """`exam make` asks ExamTask.at(state), which shares the grounding from the sampled walk's start (and
    nexta's LM-cut values and exact costs across the states): every answer equals the one the state's own
    problem text gets, parsed and grounded afresh."""
    root = ExamTask(domain, problem)
    rng = random.Random(5)
    for _ in range(8):
        state = walk(root, rng, rng.randrange(1, 7))
        shared, own = root.at(state), ExamTask(domain, state_problem(root, state, problem))
        assert [shared.action_text(a) for a in shared.applicable()] == [own.action_text(a) for a in own.applicable()]
        assert shared.unreachable_atoms() == own.unreachable_atoms()
        assert shared.unreachable_actions() == own.unreachable_actions()
        assert shared.landmarks() == own.landmarks()
        assert shared.next_actions() == own.next_actions()
        for a, b in zip(shared.applicable(), own.applicable(), strict=True):
            assert shared.progression(a) == own.progression(b)
    assert root.next_actions() == ExamTask(domain, problem).next_actions()  # the root, after its copies


def test_made_questions_of_every_task_agree_with_exam_answer() -> None:
    docs = make_questions(BLOCKS, TASKS[1][1], seed=2, per_task=2)
    assert {d["group"].rpartition("_")[0] for d in docs} >= {"applicable_actions", "goal_closer", "landmarks"}
    for doc in docs:
        verdict, note = compare(doc, answer_question(doc))
        assert verdict == "agree", (doc["group"], note)


def test_next_actions_of_copies_agree_with_the_optimal_region() -> None:
    """nexta's searches (ExamTask.cheapest, one from the state and one per successor) on copies at many states
    sharing LM-cut values and the exact costs proved before, against the region of every state with f up to
    the optimal cost (ExamTask.optimal_region, a different search) on each state's own problem."""
    from pypddlengine.heuristics import INF

    domain, problem = TASKS[2]
    root = ExamTask(domain, problem)
    rng = random.Random(7)
    remembered = 0
    for _ in range(12):
        state = walk(root, rng, rng.randrange(8))
        own = ExamTask(domain, state_problem(root, state, problem))
        lmcut = own.lmcut()
        assert lmcut is not None
        opt, rest = own.optimal_region(own.state, lmcut)
        yes = [own.action_text(a) for a in own.applicable() if a.cost + rest.get(a.apply(own.state), INF) == opt]
        got = root.at(state).next_actions()
        assert got["opt"] == opt and got["yes"] == yes and not got["maybe"]
        assert sorted([*got["yes"], *got["no"]]) == sorted(own.action_text(a) for a in own.applicable())
        remembered = len(root._shared["exact"])
    assert remembered  # not vacuous: exact costs were proved and shared
