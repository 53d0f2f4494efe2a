"""find_landmarks equals the frozenset label propagation (the oracle in
tests/unit/test_landmarks_fast.py) on the smallest task of every supported
STRIPS domain of the corpus, from its initial state and two random states."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from corpus import CORPUS, CORPUS_REASON, entries, smallest_task, supported

from pypddlengine import ground, load_task

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))
from test_landmarks_fast import assert_same_from

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)

NOT_STRIPS = {"conditional-effects", "derived-predicates", "disjunctive-preconditions", "universal-preconditions",
              "existential-preconditions", "universal-effects", "numeric-effects"}
STRIPS = [e for e in entries() if supported(e) and not NOT_STRIPS & set(e["features_detected"])]


@pytest.mark.parametrize("entry", STRIPS, ids=[e["domain"] for e in STRIPS])
def test_landmarks_equal_the_oracle(entry: dict) -> None:
    _, domain, problem = smallest_task(entry)
    task = ground(load_task(domain, problem))
    if task.general is not None:
        pytest.skip("landmarks are computed for STRIPS tasks only")
    rng = random.Random(f"landmarks-corpus:{entry['domain']}")
    state = task.init
    for _ in range(3):
        assert_same_from(task, state)
        for _ in range(5):
            actions = task.applicable(state)
            if not actions:
                return
            state = rng.choice(actions).apply(state)
