"""The reachability grounder equals the brute-force grounder on the smallest
task of every supported corpus domain, and the applicable-action index
equals a full scan along seeded random walks."""

from __future__ import annotations

import math
import random

import pytest
from corpus import CORPUS, CORPUS_REASON, entries, smallest_task, supported

from pypddlengine import Session, ground, ground_brute_force, load_task

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)

SUPPORTED = [e for e in entries() if supported(e)]
IDS = [f"{e['collection']}/{e['domain']}" for e in SUPPORTED]
BRUTE_FORCE_LIMIT = 400_000


@pytest.mark.parametrize("entry", SUPPORTED, ids=IDS)
def test_reachability_equals_brute_force(entry: dict) -> None:
    _, domain, problem = smallest_task(entry)
    lifted = load_task(domain, problem)
    size = sum(math.prod(len(d) for d in s.domains) for s in lifted.schemas)
    if size > BRUTE_FORCE_LIMIT:
        pytest.skip(f"{size:,} candidate instances is too many for the brute-force oracle")
    task = ground(lifted)
    ours = [(a.schema.id, a.args) for a in task.actions]
    assert len(ours) == len(set(ours)), "an instance was produced twice"
    assert set(ours) == ground_brute_force(lifted)


@pytest.mark.parametrize("entry", SUPPORTED, ids=IDS)
def test_index_equals_scan_on_random_walks(entry: dict) -> None:
    _, domain, problem = smallest_task(entry)
    session = Session(ground(load_task(domain, problem)))
    task = session.task
    rng = random.Random(f"walk:{entry['domain']}")
    for _ in range(3):
        session.reset()
        states = [session.state]
        for _ in range(40):
            indexed = sorted(a.id for a in task.applicable(session.state))
            assert indexed == sorted(a.id for a in task.applicable_scan(session.state))
            if not indexed:
                break
            assert session.execute(task.actions[rng.choice(indexed)]).success
            states.append(session.state)
        # undo retraces exactly the states of the walk
        while session.history:
            states.pop()
            session.undo()
            assert session.state == states[-1]
        assert session.state == task.init
