"""The uniform random state samplers: exact counts against brute force and
the engine's state space, uniformity by a chi-square test (which a biased
sampler fails), and validity of every sampled state."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Hashable

import pytest

from pypddl_experiments.generators import SizedTowerSampler, TowerSampler, TowerState, count_states

# OEIS A000262: sets of lists, i.e. Blocksworld states with n blocks
A000262 = [1, 1, 3, 13, 73, 501, 4051, 37633, 394353, 4596553]


def all_states(blocks: str, positions: int | None = None) -> set[Hashable]:
    """Every state, by brute force: permutations cut into towers, towers
    placed on distinct positions (independent of the samplers' counting)."""
    states: set[Hashable] = set()
    n = len(blocks)
    for perm in itertools.permutations(blocks):
        for cuts in itertools.product((False, True), repeat=max(n - 1, 0)):
            towers, current = [], [perm[0]] if n else []
            for block, cut in zip(perm[1:], cuts, strict=True):
                if cut:
                    towers.append(tuple(current))
                    current = []
                current.append(block)
            if current:
                towers.append(tuple(current))
            if positions is None:
                states.add(frozenset(towers))
            elif len(towers) <= positions:
                for places in itertools.permutations(range(positions), len(towers)):
                    states.add(frozenset(zip(places, towers, strict=True)))
    if n == 0:
        states.add(frozenset())
    return states


def respects(state: Hashable, sizes: dict[str, int]) -> bool:
    towers = [t[1] if isinstance(t[0], int) else t for t in state]  # type: ignore[union-attr]
    return all(sizes[t[i]] <= sizes[t[i - 1]] for t in towers for i in range(1, len(t)))


def test_counts_match_the_known_sequence() -> None:
    assert [count_states(n) for n in range(len(A000262))] == A000262


@pytest.mark.parametrize("positions", [None, 1, 2, 3, 4])
@pytest.mark.parametrize("n", range(6))
def test_counts_match_brute_force(n: int, positions: int | None) -> None:
    blocks = "abcdef"[:n]
    assert count_states(n, positions) == len(all_states(blocks, positions))


@pytest.mark.parametrize("positions", [None, 2, 3])
def test_sized_counts_match_brute_force(positions: int | None) -> None:
    sizes = {"a": 1, "b": 2, "c": 2, "d": 3, "e": 1}
    expected = [s for s in all_states("abcde", positions) if respects(s, sizes)]
    assert SizedTowerSampler(sizes, positions).count() == len(expected)


@pytest.mark.parametrize("positions", [None, 1, 3])
def test_sized_sampler_with_equal_sizes_counts_all_states(positions: int | None) -> None:
    for n in range(7):
        sizes = {f"b{i}": 7 for i in range(n)}
        assert SizedTowerSampler(sizes, positions).count() == count_states(n, positions)


def chi_square(counts: Counter[Hashable], support: set[Hashable], draws: int) -> float:
    expected = draws / len(support)
    return sum((counts[s] - expected) ** 2 / expected for s in support)


def critical_value(df: int, z: float = 3.09) -> float:
    """Upper 0.1% point of chi-square (Wilson-Hilferty approximation)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def draw(sample: Callable[[], TowerState], times: int) -> Counter[Hashable]:
    return Counter(sample().canonical() for _ in range(times))


CASES = [
    ("abcd", None, None),
    ("abcd", 3, None),
    ("abcde", 2, None),
    ("abcde", 3, {"a": 1, "b": 2, "c": 2, "d": 3, "e": 3}),
    ("abcde", None, {"a": 1, "b": 1, "c": 2, "d": 3, "e": 3}),
]


@pytest.mark.parametrize(("blocks", "positions", "sizes"), CASES)
def test_samplers_are_uniform(blocks: str, positions: int | None, sizes: dict[str, int] | None) -> None:
    rng = random.Random(12345)
    support = all_states(blocks, positions)
    if sizes is None:
        sampler = TowerSampler(len(blocks), positions)
        sample = lambda: sampler.sample(rng, blocks)  # noqa: E731
    else:
        support = {s for s in support if respects(s, sizes)}
        sized = SizedTowerSampler(sizes, positions)
        sample = lambda: sized.sample(rng)  # noqa: E731
    draws = 60 * len(support)
    counts = draw(sample, draws)
    assert set(counts) == support  # every state, and nothing else
    assert chi_square(counts, support, draws) < critical_value(len(support) - 1)


def test_the_chi_square_test_catches_a_biased_sampler() -> None:
    """Random permutation cut at random places: every forest is possible but
    not equally likely (a forest of k towers has k! orders), so the test must
    reject it at the same number of draws."""
    rng = random.Random(12345)
    blocks = "abcd"
    support = all_states(blocks)

    def naive() -> TowerState:
        perm = list(blocks)
        rng.shuffle(perm)
        towers, current = [], [perm[0]]
        for b in perm[1:]:
            if rng.random() < 0.5:
                towers.append(tuple(current))
                current = []
            current.append(b)
        towers.append(tuple(current))
        return TowerState(tuple(towers))

    draws = 60 * len(support)
    counts = draw(naive, draws)
    assert set(counts) == support
    assert chi_square(counts, support, draws) > critical_value(len(support) - 1)


@pytest.mark.parametrize("positions", [None, 1, 3, 7])
@pytest.mark.parametrize("n", [1, 2, 9, 30])
def test_sampled_states_are_valid(n: int, positions: int | None) -> None:
    rng = random.Random(n)
    blocks = [f"b{i}" for i in range(n)]
    sampler = TowerSampler(n, positions)
    for _ in range(50):
        s = sampler.sample(rng, blocks)
        assert sorted(b for t in s.towers for b in t) == sorted(blocks)  # each block exactly once
        assert all(s.towers)
        if positions is None:
            assert s.positions is None
        else:
            assert s.positions is not None and len(s.positions) == len(s.towers)
            assert len(set(s.positions)) == len(s.positions)
            assert all(0 <= p < positions for p in s.positions)
            assert len(s.towers) <= positions


def test_sized_states_respect_sizes() -> None:
    rng = random.Random(3)
    sizes = {f"b{i}": rng.randint(1, 4) for i in range(25)}
    sampler = SizedTowerSampler(sizes, 3)
    for _ in range(50):
        s = sampler.sample(rng)
        assert sorted(b for t in s.towers for b in t) == sorted(sizes)
        assert all(sizes[t[i]] <= sizes[t[i - 1]] for t in s.towers for i in range(1, len(t)))
        assert s.positions is not None and len(set(s.positions)) == len(s.towers) <= 3


def test_same_seed_same_state_and_bad_arguments() -> None:
    blocks = [f"b{i}" for i in range(40)]
    sampler = TowerSampler(40, 5)
    assert sampler.sample(random.Random(7), blocks) == sampler.sample(random.Random(7), blocks)
    assert sampler.sample(random.Random(7), blocks) != sampler.sample(random.Random(8), blocks)
    with pytest.raises(ValueError):
        sampler.sample(random.Random(1), blocks[:3])
    with pytest.raises(ValueError):
        TowerSampler(-1)
    with pytest.raises(ValueError):
        SizedTowerSampler({"a": 1}, 0)
