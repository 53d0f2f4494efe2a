"""Applicable-action sets equal unified-planning's SequentialSimulator along
seeded random walks on small tasks of 13 corpus domains (negative
preconditions: termes; action costs: scanalyzer, floortile; equality: hiking,
satellite; constants: childsnack), and goal tests agree at every step.

UP is slow (its simulator grounds lazily and rescans every action per call),
so only tasks it handles in seconds are used; on several other corpus
domains its reader or simulator fails on its own."""

from __future__ import annotations

import random
import warnings

import pytest
from corpus import CORPUS, CORPUS_REASON

from pypddlengine import open_session

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)

TASKS = [
    "downward-benchmarks/gripper/prob01.pddl",
    "downward-benchmarks/movie/prob01.pddl",
    "downward-benchmarks/depot/p01.pddl",
    "downward-benchmarks/rovers/p02.pddl",
    "downward-benchmarks/tpp/p01.pddl",
    "downward-benchmarks/visitall-opt11-strips/problem02-half.pddl",
    "downward-benchmarks/childsnack-sat14-strips/child-snack_pfile05.pddl",
    "downward-benchmarks/hiking-sat14-strips/ptesting-1-2-7.pddl",
    "downward-benchmarks/termes-sat18-strips/p01.pddl",
    "downward-benchmarks/scanalyzer-08-strips/p22.pddl",
    "downward-benchmarks/floortile-sat11-strips/seq-p01-001.pddl",
    "potassco-pddl-instances/ipc2002-satellite-strips-automatic/instance-1.pddl",
    "potassco-pddl-instances/ipc2000-blocks-strips-typed/instance-3.pddl",
]
STEPS = 25


@pytest.fixture(scope="module")
def up():
    pytest.importorskip("unified_planning")
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import SequentialSimulator, get_environment

    env = get_environment()
    env.credits_stream = None
    env.error_used_name = False  # tidy IPC files reuse names across kinds
    return PDDLReader, SequentialSimulator


def _name(action, params) -> str:  # type: ignore[no-untyped-def]
    return f"({' '.join([action.name, *(str(p) for p in params)])})".lower()


@pytest.mark.parametrize("rel", TASKS)
def test_applicable_sets_along_random_walks(rel: str, up) -> None:  # type: ignore[no-untyped-def]
    reader_cls, simulator_cls = up
    problem_path = CORPUS / rel
    domain_path = problem_path.parent / "domain.pddl"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        up_problem = reader_cls().parse_problem(str(domain_path), str(problem_path))
        simulator = simulator_cls(up_problem)
    session = open_session(domain_path, problem_path)
    rng = random.Random(f"walk:{rel}")
    up_state = simulator.get_initial_state()
    for step in range(STEPS):
        theirs = {_name(a, p): (a, p) for a, p in simulator.get_applicable_actions(up_state)}
        mine = [n.lower() for n in session.applicable_names()]
        assert set(mine) == set(theirs), f"step {step}: only ours {set(mine) - set(theirs)}, only UP {set(theirs) - set(mine)}"
        assert len(mine) == len(set(mine))
        assert session.is_goal() == simulator.is_goal(up_state)
        if not mine:
            break
        choice = rng.choice(sorted(mine))
        assert session.execute(choice).success
        action, params = theirs[choice]
        up_state = simulator.apply(up_state, action, params)
