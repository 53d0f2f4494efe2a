"""A differential random walk against unified-planning's SequentialSimulator
on the numeric tasks UP can read (issue 20): at every step the applicable
actions, the goal test and every fluent's value agree (UP computes with
exact fractions too). UP cannot read IPC 2002 driverlog (a metric over
``total-time``), settlers (``:constants`` after ``:predicates``) and
zenotravel (``either`` types), nor IPC 2023 markettrader (initial values of
undeclared functions) and sugar (``has-resource`` is a predicate and a
function); we read them all (tests/integration/test_numeric_corpus.py).
Its simulator also refuses a task in which some numeric term has no initial
value: there UP's copy of the task gives such terms the value 0."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest
from numeric_cases import NUMERIC_CORPUS_REASON, numeric_tasks
from oracles import up_problem, up_simulator

from pypddlengine import Session
from pypddlengine.bundled import bundled_task

pytest.importorskip("unified_planning")

UP_CANNOT_READ = ("ipc2002/driverlog-numeric/", "ipc2002/settlers-numeric/", "ipc2002/zenotravel-numeric/",
                  "ipc2023-numeric/markettrader/", "ipc2023-numeric/sugar/")
TASKS = numeric_tasks()
# the first task of each domain UP reads (UP grounds every action on its first query: small tasks only)
FIRST = [t for t in TASKS if t[0].endswith(("/pfile1", "/instance-1")) and not t[0].startswith(UP_CANNOT_READ)]


def _up(domain: Path, problem: Path):  # type: ignore[no-untyped-def]
    task = up_problem(domain, problem)
    # UP's simulator refuses a task where a numeric term has no initial value (we read that as undefined, an
    # error only where it is read); UP's copy gets 0 there, and the walk compares only values we have
    zero = task.environment.expression_manager.Int(0)
    for fluent in task.fluents:
        if fluent.type.is_real_type() or fluent.type.is_int_type():
            task.fluents_defaults.setdefault(fluent, zero)
    return task, up_simulator(domain, problem, task)


def _walk(domain: Path, problem: Path, seed: int, steps: int) -> int:
    task, simulator = _up(domain, problem)
    session = Session(domain, problem, backend="grounded")
    lifted = session.lifted
    fluents = {f.name.lower(): f for f in task.fluents}
    objects = {o.name.lower(): o for o in task.all_objects}
    terms = [(i, fluents[name](*[objects[lifted.objects[o]] for o in args]))
             for i, (name, args) in enumerate(lifted.fluent_terms) if name in fluents]
    rng = random.Random(seed)
    up_state = simulator.get_initial_state()
    compared = 0
    for step in range(steps):
        theirs = {f"({' '.join([a.name, *(str(p) for p in ps)])})".lower(): (a, ps)
                  for a, ps in simulator.get_applicable_actions(up_state)}
        mine = [n.lower() for n in session.applicable_names()]
        # we do not list an action whose cost or effect reads a term without a value (it could not execute,
        # and VAL rejects a plan there); UP's copy reads such terms as 0 (see _up), so it lists them
        for only_up in set(theirs) - set(mine):
            refused = session.execute(only_up)
            assert not refused.success and refused.failure.code == "UNDEFINED_FUNCTION_VALUE", (step, only_up)
        assert set(mine) <= set(theirs), f"step {step}: only ours {set(mine) - set(theirs)}"
        assert session.is_goal() == simulator.is_goal(up_state)
        values = session.state.values
        for i, expr in terms:
            if values[i] is not None:
                assert Fraction(up_state.get_value(expr).constant_value()) == values[i], (step, str(expr))
                compared += 1
        names = sorted(set(mine))
        rng.shuffle(names)
        for choice in names:  # a step whose numeric effect cannot be executed fails here; take another
            if session.execute(choice).success:
                action, params = theirs[choice]
                up_state = simulator.apply(up_state, action, params)
                break
        else:
            break
    return compared


def test_the_corpus_is_there_or_the_tests_say_why() -> None:
    if not TASKS:
        pytest.skip(NUMERIC_CORPUS_REASON)
    assert len(FIRST) == 14


@pytest.mark.parametrize("task", FIRST, ids=[t[0] for t in FIRST])
def test_random_walk_agrees_with_unified_planning(task: tuple[str, Path, Path]) -> None:
    assert _walk(task[1], task[2], seed=7, steps=15) > 0


@pytest.mark.parametrize("name", ["fuel-delivery/p01", "fuel-delivery/p02", "fuel-delivery/p03"])
def test_bundled_numeric_tasks_agree_with_unified_planning(name: str) -> None:
    assert _walk(*bundled_task(name), seed=3, steps=25) > 0
