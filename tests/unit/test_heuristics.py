"""Delete-relaxation heuristics: hand-computed values, a brute-force
fixpoint oracle on random states, h+ bounds, and h_FF == 0 exactly in goal
states."""

from __future__ import annotations

import functools
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from incremental import IncrementalEvaluator
from oracles import bundled_grounded, optimal_relaxed_cost, relaxed_costs_fixpoint

from pypddlengine import Session
from pypddlengine.bundled import bundled_task
from pypddlengine.heuristics import HEURISTICS, RelaxedTask, relaxed_task

SMALL = ["blocksworld/p01", "blocksworld/p03", "gripper/p01", "logistics/p01", "blocksworld-table/p01",
         "blocksworld-sizes/p01", "blocksworld-table/u01"]


def test_hand_computed_values_blocksworld_p01() -> None:
    # p01: c on a, a and b on the table; goal (on a b) (on b c). Worked out by hand in unit costs:
    # h_max: holding a needs clear a (unstack c a, 1) -> pick-up a at 2 -> stack a b at 3.
    # h_add: on a b = 1 + holding a (2) = 3; on b c = 1 + holding b (1) = 2; sum 5.
    # h_FF: stack a b, pick-up a, unstack c a, stack b c, pick-up b = 5 (= h+, the real plan has 6 steps).
    session = Session(bundled_grounded("blocksworld/p01"))
    rt = relaxed_task(session.task)
    expect = {"goal_count": 2, "h_max": 3, "h_add": 5, "h_ff": 5}
    assert {h: rt.value(h, session.state) for h in HEURISTICS} == expect
    names = sorted(session.task.render_action(a) for a in rt.actions(rt.evaluate(session.state).relaxed_plan))
    assert names == ["(pick-up a)", "(pick-up b)", "(stack a b)", "(stack b c)", "(unstack c a)"]
    # after (unstack c a) the hand is full: handempty and clear c cost 1 (one op adds both),
    # holding a/b cost 2; on b c = 1 + 2 + 1, on a b = 1 + 2 + 0.
    assert session.execute("(unstack c a)").success
    expect = {"goal_count": 2, "h_max": 3, "h_add": 7, "h_ff": 5}
    assert {h: rt.value(h, session.state) for h in HEURISTICS} == expect


def test_unknown_heuristic_name() -> None:
    rt = relaxed_task(bundled_grounded("blocksworld/p01"))
    with pytest.raises(ValueError, match="unknown heuristic 'h_lol'"):
        rt.value("h_lol", bundled_grounded("blocksworld/p01").init)


@st.composite
def task_and_state(draw):  # type: ignore[no-untyped-def]
    """A small bundled task and an arbitrary set of its reachable atoms
    (static facts kept): relaxed analysis is defined on any atom set."""
    task = bundled_grounded(draw(st.sampled_from(SMALL)))
    fluent = [i for i, r in enumerate(task.reachable) if r and i not in task.static_atoms]
    chosen = draw(st.lists(st.sampled_from(fluent), max_size=len(fluent), unique=True))
    return task, frozenset(chosen) | task.static_atoms


@given(task_and_state())
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_costs_equal_brute_force_fixpoint(case) -> None:  # type: ignore[no-untyped-def]
    task, state = case
    rt = relaxed_task(task)
    for additive in (True, False):
        want = relaxed_costs_fixpoint(task, state, additive)
        got = rt.explore(state, additive)[0][: len(task.atoms)]
        assert got == want
        goals = task.goal_atoms
        ev = rt.evaluate(state, "add" if additive else "max")
        if any(want[g] == math.inf for g in goals):
            assert ev.dead_end and set(ev.unreachable_goals) == {g for g in goals if want[g] == math.inf}
            assert ev.h == ev.h_ff == math.inf
        else:
            assert ev.h == (sum if additive else max)(want[g] for g in goals)


@given(task_and_state())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_h_ff_is_a_relaxed_plan_between_h_max_and_h_add(case) -> None:  # type: ignore[no-untyped-def]
    task, state = case
    rt = relaxed_task(task)
    ev = rt.evaluate(state, "add")
    h_max = rt.value("h_max", state)
    if ev.dead_end:
        assert h_max == math.inf
        return
    reached = set(state)
    for o in ev.relaxed_plan:  # in order: every operator is applicable when its turn comes
        assert all(p in reached for p in rt.pre[o])
        reached.update(rt.add[o])
    assert all(g in reached for g in task.goal_atoms)
    assert h_max <= ev.h_ff <= ev.h
    assert (ev.h_ff == 0) == all(g in state for g in task.goal_atoms)


@pytest.mark.parametrize("name", ["blocksworld/p01", "gripper/p01", "blocksworld-table/p01"])
def test_h_plus_bounds_on_random_walks(name: str) -> None:
    """h_max <= h+ <= h_FF, with h+ from an exhaustive search of relaxed states."""
    task = bundled_grounded(name)
    rt = relaxed_task(task)
    rng = random.Random(name)
    state = task.init
    checked = 0
    for _ in range(12):
        h_plus = optimal_relaxed_cost(task, state, max_nodes=50_000)
        if h_plus is not None:
            checked += 1
            assert rt.value("h_max", state) <= h_plus <= rt.value("h_ff", state)
        state = rng.choice(task.applicable(state)).apply(state)
    assert checked


@given(task_and_state(), st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 7.0]), min_size=1, max_size=5))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_general_costs_equal_brute_force_fixpoint(case, pattern) -> None:  # type: ignore[no-untyped-def]
    """Non-unit (and zero) operator costs, assigned cyclically from ``pattern``."""
    task, state = case
    rt = RelaxedTask(task)
    rt.cost = [pattern[i % len(pattern)] for i in range(len(rt.cost))]
    ops = [op._replace(cost=c) for op, c in zip(rt.operators, rt.cost)]
    for additive in (True, False):
        assert rt.explore(state, additive)[0][: len(task.atoms)] == relaxed_costs_fixpoint(task, state, additive, ops)


@functools.cache
def pyperplan_heuristics(name: str):  # type: ignore[no-untyped-def]
    parser = pytest.importorskip("pyperplan.pddl.parser").Parser(*map(str, bundled_task(name)))
    grounding = pytest.importorskip("pyperplan.grounding")
    relaxation = pytest.importorskip("pyperplan.heuristics.relaxation")
    pp_task = grounding.ground(parser.parse_problem(parser.parse_domain()))
    return relaxation.hMaxHeuristic(pp_task), relaxation.hAddHeuristic(pp_task), relaxation.hFFHeuristic(pp_task)


@pytest.mark.parametrize("name", ["blocksworld/p03", "gripper/p02", "logistics/p01", "blocksworld-table/p02"])
def test_h_max_and_h_add_equal_pyperplan_on_random_walks(name: str) -> None:
    """pyperplan's h_max and h_add (an independent implementation, no ties
    involved) give the same values; its h_FF the same on most states (ties
    between equally cheap supporters may be broken differently)."""
    make_root_node = pytest.importorskip("pyperplan.search.searchspace", reason="the oracle pyperplan (the "
                                         "test extra) is not installed").make_root_node
    task = bundled_grounded(name)
    rt = relaxed_task(task)
    h_max, h_add, h_ff = pyperplan_heuristics(name)
    render = task.lifted.render_key
    rng = random.Random(name)
    state = task.init
    same_ff = 0
    for _ in range(40):
        fluent = state - task.static_atoms  # pyperplan compiles static facts away
        node = make_root_node(frozenset(f"({' '.join(render(task.atoms[i])[1:-1].lower().split())})" for i in fluent))
        assert rt.value("h_max", state) == h_max(node)
        assert rt.value("h_add", state) == h_add(node)
        same_ff += rt.value("h_ff", state) == h_ff(node)
        state = rng.choice(task.applicable(state)).apply(state)
    assert same_ff >= 30


@pytest.mark.parametrize("name", ["blocksworld/p03", "gripper/p02", "logistics/p02", "blocksworld-table/u02",
                                  "blocksworld-sizes/p02"])
@pytest.mark.parametrize("mode", ["add", "max"])
@pytest.mark.parametrize("max_affected", [1.0, 0.2])
def test_incremental_equals_from_scratch_on_random_walks(name: str, mode: str, max_affected: float) -> None:
    """Along a random walk with undo-like jumps back, the incremental costs
    equal a full exploration's, and its h_FF is a relaxed plan's cost."""
    task = bundled_grounded(name)
    rt = relaxed_task(task)
    inc = IncrementalEvaluator(rt, mode, max_affected)  # type: ignore[arg-type]
    rng = random.Random(f"{name}{mode}")
    path = [task.init]
    for _ in range(80):
        state = path[-1]
        ev = inc.evaluate(state)
        full_cost, _ = rt.explore(state, mode == "add")
        assert inc._cost == full_cost
        fresh = rt.evaluate(state, mode)  # type: ignore[arg-type]
        assert (ev.h, ev.unreachable_goals) == (fresh.h, fresh.unreachable_goals)
        if not ev.dead_end:
            reached = set(state)
            for o in ev.relaxed_plan:
                assert all(p in reached for p in rt.pre[o])
                reached.update(rt.add[o])
            assert set(rt.goals) <= reached and rt.value("h_max", state) <= ev.h_ff
            assert mode == "max" or ev.h_ff <= ev.h
        if rng.random() < 0.1 and len(path) > 3:
            del path[-3:]  # jump back, as undo does
        else:
            path.append(rng.choice(task.applicable(state)).apply(state))
    assert max_affected < 1 or inc.incremental > 40


@pytest.mark.parametrize("name", ["blocksworld/p03", "gripper/p01", "logistics/p01"])
def test_h_ff_alone_equals_the_evaluation(name: str) -> None:
    """RelaxedTask.h_ff (the value only, for searches) is evaluate()'s h_ff along a random walk, dead ends included."""
    from oracles import random_walk

    task = bundled_grounded(name)
    rt = relaxed_task(task)
    states = random_walk(task, name, 30)
    assert len(states) > 10
    for state in states:
        assert rt.h_ff(state) == rt.evaluate(state, "add").h_ff
    assert rt.h_ff(frozenset()) == rt.evaluate(frozenset(), "add").h_ff
