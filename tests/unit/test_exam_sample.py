"""The landmark sample that `exam make` asks about (ExamTask.landmark_sample): every atom it lists is
classified as the full classification (ExamTask.landmarks, itself tested against brute force in
test_exam.py) classifies it, it proves enough atoms either way or is the full classification, and the land
questions made from it agree with `exam answer`'s full answers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pypddlengine.exam import ExamTask
from pypddlengine.exam_make import make_questions, state_problem
from pypddlengine.exam_questions import answer_question, compare, format_of

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = (ROOT / "domains" / "blocksworld.pddl").read_text()
GRIPPER = (ROOT / "domains" / "gripper.pddl").read_text()
TASKS = [(BLOCKS, (ROOT / "problems" / "blocksworld" / f"p0{i}.pddl").read_text()) for i in (1, 2, 3)]
TASKS.append((GRIPPER, sorted((ROOT / "problems" / "gripper").glob("*.pddl"))[0].read_text()))


@pytest.mark.parametrize("domain,problem", TASKS)
def test_sample_within_the_full_classification(domain: str, problem: str) -> None:
    root = ExamTask(domain, problem)
    rng = random.Random(3)
    partial = 0
    for _ in range(6):
        state = root.state
        for _ in range(rng.randrange(6)):
            options = root.applicable(state)
            state = rng.choice(options).apply(state) if options else state
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
