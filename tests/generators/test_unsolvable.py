"""Deliberately unsolvable tasks: the proofs hold, an independent exhaustive
search confirms them on small tasks, and the prover does not 'prove'
solvable tasks unsolvable."""

from __future__ import annotations

import pytest
from gen_helpers import domain_text, ground_problem, reachable_states

from pypddl_experiments.generators import UNSOLVABLE_KINDS, blocksworld, hanoi, prove_unsolvable, unsolvable

SMALL = [(kind, n) for kind in UNSOLVABLE_KINDS for n in (2, 3, 4, 5) if not (kind == "two-positions" and n < 3)]


@pytest.mark.parametrize(("kind", "blocks"), SMALL)
def test_small_unsolvable_tasks_have_no_plan(kind: str, blocks: int) -> None:
    domain, method = UNSOLVABLE_KINDS[kind]
    for seed in (1, 2):
        text = unsolvable(kind, blocks, seed)
        proof = prove_unsolvable(domain_text(domain), text)
        assert proof is not None and proof.method == method
        task = ground_problem(domain, text)
        states = reachable_states(task)  # independent exhaustive search
        assert not any(task.is_goal(s) for s in states)
        if method == "exhaustive-search":
            assert proof.states == len(states)


@pytest.mark.parametrize(("kind", "blocks"), [("size-inversion", 60), ("one-position", 40), ("two-positions", 40)])
def test_large_unsolvable_tasks_are_proved(kind: str, blocks: int) -> None:
    domain, method = UNSOLVABLE_KINDS[kind]
    proof = prove_unsolvable(domain_text(domain), unsolvable(kind, blocks, 3))
    assert proof is not None and proof.method == method


def test_goal_of_each_kind_is_not_satisfied_initially_and_seeds_differ() -> None:
    for kind, (domain, _) in UNSOLVABLE_KINDS.items():
        task = ground_problem(domain, unsolvable(kind, 6, 1))
        assert not task.is_goal(task.init)
        if kind != "hanoi-two-positions":  # deterministic by design
            assert unsolvable(kind, 6, 1) != unsolvable(kind, 6, 2)
        assert unsolvable(kind, 6, 1) == unsolvable(kind, 6, 1)


def test_solvable_tasks_are_not_proved_unsolvable() -> None:
    assert prove_unsolvable(domain_text("blocksworld"), blocksworld(5, 1)) is None
    assert prove_unsolvable(domain_text("blocksworld-sizes"), hanoi(3)) is None


def test_no_proof_when_the_search_limit_is_too_small() -> None:
    text = unsolvable("cycle", 5, 1)
    assert prove_unsolvable(domain_text("blocksworld"), text, max_states=50) is None
    assert prove_unsolvable(domain_text("blocksworld"), text) is not None


def test_unknown_kind_and_too_few_blocks() -> None:
    with pytest.raises(ValueError):
        unsolvable("nope", 4)
    with pytest.raises(ValueError):
        unsolvable("cycle", 1)
    with pytest.raises(ValueError):
        unsolvable("two-positions", 2)
