"""Timing unified-planning's SequentialSimulator the same way in every bench
script: set-up to the initial state's applicable actions, and the median step
of a short seeded random walk (listing the applicable actions and applying one)."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any


def up_init(make_simulator: Callable[[], Any]) -> dict:
    """Seconds from nothing to the initial state's applicable actions."""
    start = time.perf_counter()
    sim = make_simulator()
    actions = list(sim.get_applicable_actions(sim.get_initial_state()))
    return {"seconds": time.perf_counter() - start, "applicable": len(actions)}


def up_step(make_simulator: Callable[[], Any], steps: int = 5, seed: int = 11) -> dict:
    """Median seconds of one step of a seeded random walk (after a first listing)."""
    sim = make_simulator()
    state = sim.get_initial_state()
    list(sim.get_applicable_actions(state))
    rng = random.Random(seed)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        actions = list(sim.get_applicable_actions(state))
        if not actions:
            break
        action, params = rng.choice(actions)
        state = sim.apply(state, action, params)
        times.append(time.perf_counter() - start)
    return {"seconds": statistics.median(times), "steps": len(times)}
