"""Statistics against hand-computed values and against scipy."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from pypddl_experiments.report.stats import holm, mcnemar_exact, median, wilson


def test_wilson_matches_the_design_notes() -> None:
    lo, hi = wilson(65, 102)
    assert (round(lo, 3), round(hi, 3)) == (0.541, 0.724)
    lo, hi = wilson(68, 102)
    assert (round(lo, 3), round(hi, 3)) == (0.571, 0.751)


def test_wilson_edges() -> None:
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == 1.0
    assert all(math.isnan(x) for x in wilson(0, 0))
    with pytest.raises(ValueError):
        wilson(3, 2)


@given(st.integers(1, 400).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_agrees_with_scipy(kn: tuple[int, int]) -> None:
    k, n = kn
    ci = binomtest(k, n).proportion_ci(method="wilson")
    lo, hi = wilson(k, n)
    assert lo == pytest.approx(ci.low, abs=1e-12) and hi == pytest.approx(ci.high, abs=1e-12)


def test_mcnemar_hand_values() -> None:
    assert mcnemar_exact(3, 0) == 0.25  # 2 * (1/2)^3
    assert mcnemar_exact(0, 3) == 0.25
    assert mcnemar_exact(5, 2) == pytest.approx(58 / 128)  # 2 * (1 + 7 + 21) / 128
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(4, 4) == 1.0


@given(st.integers(0, 150), st.integers(0, 150))
def test_mcnemar_agrees_with_scipy(b: int, c: int) -> None:
    expected = 1.0 if b + c == 0 else binomtest(b, b + c, 0.5).pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_holm() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []


def test_median() -> None:
    assert median([3, 1, 2]) == 2
    assert median([4, 1, 3, 2]) == 2.5
    assert math.isnan(median([]))
