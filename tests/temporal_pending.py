"""Bundled tasks of the temporal stage: the domain ``workshop`` (durative
actions, timed initial literals). Tests that put every bundled task through
the classical stage (grounding, the relaxed heuristics, landmarks, the
Gymnasium spaces) leave these out with :data:`REASON`: the classical session
refuses a temporal task, saying so. The temporal stage runs them in
``tests/generators/test_workshop.py`` (our validator beside VAL, a
TemporalSession replaying the witness plan) and ``tests/integration/``."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

import pytest

from pypddlengine.bundled import bundled_domains, bundled_root
from pypddlengine.sources import read_file
from pypddlengine.syntax import parse_domain
from pypddlengine.temporal import is_temporal

REASON = ("a temporal task (durative actions): the classical stage does not take it; the temporal stage runs it in "
          "tests/generators/test_workshop.py")


@cache
def temporal_domains() -> frozenset[str]:
    """The bundled domains the engine reads as temporal (decided by the engine, not listed by hand)."""
    root = bundled_root("domains")
    return frozenset(d for d in bundled_domains() if is_temporal(parse_domain(read_file(str(root / f"{d}.pddl")))))


def pending(name: str) -> bool:
    """Whether a bundled task (``domain/problem``) or domain is temporal."""
    return name.split("/", 1)[0] in temporal_domains()


def engine_tasks(names: Iterable[str]) -> list[object]:
    """``names`` for ``pytest.mark.parametrize``, the temporal ones skipped with :data:`REASON`."""
    return [pytest.param(n, marks=pytest.mark.skip(reason=REASON)) if pending(n) else n for n in names]
