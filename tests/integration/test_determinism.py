"""Atom ids, action order and applicable-action order do not depend on the
hash seed (checked in subprocesses with different PYTHONHASHSEED values)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest
from corpus import CORPUS, CORPUS_REASON

SCRIPT = r"""
import hashlib, random, sys
from pypddlengine import open_session
s = open_session(sys.argv[1], sys.argv[2], backend="grounded")
t = s.task
h = hashlib.sha256()
h.update(repr(t.atoms).encode())
h.update(repr([(a.schema.name, a.args, a.pre, a.neg, a.add, a.delete, getattr(a, "cond", None),
               getattr(a, "effects", ())) for a in t.actions]).encode())
h.update(repr(t.general).encode())
rng = random.Random(7)
for _ in range(30):
    names = s.applicable_names()
    h.update(repr(names).encode())
    h.update(repr(sorted(s.state)).encode())
    if not names:
        break
    s.execute(rng.choice(names))
print(h.hexdigest())
"""

TASKS = [
    "downward-benchmarks/logistics00/probLOGISTICS-6-0.pddl",
    "downward-benchmarks/tidybot-sat11-strips/p01.pddl",
    "downward-benchmarks/elevators-sat08-strips/p01.pddl",
    "downward-benchmarks/psr-middle/p05-s34-n3-l2-f50.pddl",  # derived predicates
    "downward-benchmarks/citycar-sat14-adl/p3-2-2-0-1.pddl",  # conditional and universal effects
]


@pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)
@pytest.mark.parametrize("rel", TASKS)
def test_same_result_under_different_hash_seeds(rel: str) -> None:
    problem = CORPUS / rel
    digests = set()
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(problem.parent / "domain.pddl"), str(problem)],
            capture_output=True, text=True, env=env, timeout=300, check=True,
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1, digests
    assert len(next(iter(digests))) == len(hashlib.sha256().hexdigest())
