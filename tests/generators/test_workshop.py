"""The bundled temporal domain ``workshop`` and its generator (issue 31).

Every bundled problem, and generated ones, has a plan VAL accepts, built here
by the pair schedule the generator's docstring argues with (so "solvable by
construction" is checked, not assumed); the problems with a dark bay need
concurrency, stated with VAL on the same plan made sequential; LPG's and
TAMER's plans where they find one. The engine's temporal stage gives VAL's
verdicts and values on the same plans, and a TemporalSession stepping
through the witness (start, wait, end) reaches the goal with a history both
judge valid.
"""

from __future__ import annotations

import re
from collections import deque
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner
from temporal_oracles import (
    lpg_plan,
    lpg_unavailable_reason,
    parse_timed_plan,
    up_timed_verdict,
    up_unavailable_reason,
    val_timed_verdict,
    val_unavailable_reason,
)

from pypddl_experiments.generators import workshop, workshop_deadline
from pypddl_experiments.planners.cli import generate
from pypddlengine.bundled import bundled_task, bundled_tasks
from pypddlengine.temporal import load_temporal, validate_timed_plan
from pypddlengine.temporal_session import TemporalSession

needs_val = pytest.mark.skipif(val_unavailable_reason() is not None, reason=str(val_unavailable_reason()))
TASKS = bundled_tasks("workshop")
EPS = Decimal("0.01")  # VAL's default tolerance: the witness separates every pair of happenings by it


def _facts(text: str, predicate: str) -> list[list[str]]:
    init = text.split("(:init", 1)[1].split("(:goal", 1)[0]
    init = re.sub(r"\(at \d+ \([^()]*(\([^()]*\))?\)\)", "", init)  # timed literals apart
    return [m.split() for m in re.findall(rf"\({predicate}((?: [\w-]+)*)\)", init)]


def _timed(text: str) -> list[tuple[int, str]]:
    return [(int(t), body) for t, body in re.findall(r"\(at (\d+) (\((?:[^()]|\([^()]*\))*\))\)", text)]


def witness_plan(problem: Path) -> str:
    """The pair schedule: technicians t1 and t2 walk together to each
    machine's bay (in order m1, m2, ...); in a dark bay t1 holds the lamp
    while t2 repairs; then t2 tests. With one technician (bright bays only)
    t1 does both. Every happening is at least 0.01 from its neighbours."""
    text = problem.read_text()
    links: dict[str, list[str]] = {}
    for a, b in _facts(text, "connected"):
        links.setdefault(a, []).append(b)
    dark = {b for (b,) in _facts(text, "dark")}
    where = {t: b for t, b in _facts(text, "at")}
    machine_bay = {m: b for m, b in _facts(text, "in")}
    timed = _timed(text)
    opens = min((t for t, body in timed if body == "(open)"), default=0)
    sunsets = {re.findall(r"\(dark (\w+)\)", body)[0]: t for t, body in timed if body.startswith("(dark")}
    techs = sorted(where, key=lambda t: int(t[1:]))
    steps: list[str] = []
    clock = Decimal(0)

    def path(src: str, dst: str) -> list[str]:
        back, todo = {src: src}, deque([src])
        while todo:
            here = todo.popleft()
            for nxt in links.get(here, []):
                if nxt not in back:
                    back[nxt] = here
                    todo.append(nxt)
        out = [dst]
        while out[-1] != src:
            out.append(back[out[-1]])
        return out[::-1]

    def act(at: Decimal, name: str, dur: Decimal) -> Decimal:
        steps.append(f"{at}: ({name}) [{dur}]")
        return at + dur

    for m in sorted(machine_bay, key=lambda m: int(m[1:])):
        bay = machine_bay[m]
        arrive = clock
        for t in techs[:2]:
            at = clock
            hops = path(where[t], bay)
            for a, b in zip(hops, hops[1:], strict=False):
                at = act(at, f"walk {t} {a} {b}", Decimal(3)) + EPS
            where[t] = bay
            arrive = max(arrive, at)
        start = max(arrive, Decimal(opens) + EPS)
        sunset = sunsets.get(bay)
        if sunset is not None and start + 7 >= sunset:  # the bay goes dark before the repair is done
            start = max(start, Decimal(sunset) + EPS)
        repairer, tester = (techs[1], techs[1]) if len(techs) > 1 else (techs[0], techs[0])
        if bay in dark or (sunset is not None and start > sunset):
            act(start, f"hold-lamp {techs[0]} {bay}", 6 + 2 * EPS)
            done = act(start + EPS, f"repair {repairer} {m} {bay}", Decimal(6))
            done = max(done + EPS, start + 6 + 2 * EPS) + EPS
        else:
            done = act(start, f"repair {repairer} {m} {bay}", Decimal(6)) + EPS
        clock = act(done, f"test {tester} {m} {bay}", Decimal(2)) + EPS
    return "".join(f"{s}\n" for s in steps)


def sequential(plan: str) -> str:
    """The plan's steps in start order, each starting 0.01 after the previous one ends."""
    out, clock = [], Decimal(0)
    for step in sorted(parse_timed_plan(plan), key=lambda s: Decimal(s.start)):
        out.append(f"{clock}: {step.action} [{step.duration}]")
        clock += Decimal(step.duration or 0) + EPS
    return "".join(f"{s}\n" for s in out)


def test_ladder_is_ten_problems() -> None:
    assert TASKS == [f"workshop/p{i:02d}" for i in range(1, 11)]


@needs_val
@pytest.mark.parametrize("name", TASKS)
def test_val_accepts_the_witness_plan(name: str) -> None:
    domain, problem = bundled_task(name)
    plan = witness_plan(problem)
    verdict = val_timed_verdict(domain, problem, plan)
    assert verdict.valid, (plan, verdict.failure)
    assert verdict.value == pytest.approx(max(float(s.end) for s in parse_timed_plan(plan)))  # total-time


@needs_val
@pytest.mark.parametrize("name", [n for n in TASKS if "dark" in bundled_task(n)[1].read_text().split("(:init")[1]])
def test_a_dark_bay_requires_concurrency(name: str) -> None:
    """Only a running hold-lamp makes a dark bay lit (its end deletes it), and a
    repair needs light over its whole duration: so a plan with no two actions
    overlapping has no repair in a dark bay. VAL says so of the witness made
    sequential: it fails at a repair."""
    domain, problem = bundled_task(name)
    verdict = val_timed_verdict(domain, problem, sequential(witness_plan(problem)))
    assert not verdict.valid
    assert any("(repair " in line for line in verdict.failure), verdict.failure


@pytest.mark.skipif(up_unavailable_reason() is not None, reason=str(up_unavailable_reason()))
@pytest.mark.parametrize("name", TASKS)
def test_unified_planning_agrees_except_on_the_makespan_with_timed_literals(name: str) -> None:
    """unified-planning's time-triggered validator, the second opinion, accepts
    the witness and rejects it made sequential (p02-p10), like VAL. Where they
    differ: UP's makespan counts the timed initial literals (it is the later of
    the plan's end and the last literal's time), VAL's value is the plan's end."""
    domain, problem = bundled_task(name)
    plan = witness_plan(problem)
    verdict = up_timed_verdict(domain, problem, plan)
    assert verdict.valid is True, verdict.reason
    last_literal = max((t for t, _ in _timed(problem.read_text())), default=0)
    end = max(float(s.end) for s in parse_timed_plan(plan))
    assert verdict.makespan == pytest.approx(max(end, last_literal))
    if name != "workshop/p01":
        assert up_timed_verdict(domain, problem, sequential(plan)).valid is False


def test_the_ladder_has_what_the_issue_asks() -> None:
    texts = {n: bundled_task(n)[1].read_text() for n in TASKS}
    domain = bundled_task(TASKS[0])[0].read_text()
    assert domain.count("(:durative-action") == 4 and "(<= ?duration" in domain and "(over all" in domain
    assert all("(:metric minimize (total-time))" in t for t in texts.values())
    assert sum("(not (open))" in t for t in texts.values()) >= 3  # closing times
    assert any("(at 5 (open))" in t for t in texts.values()) and any("(dark b" in t.split(":goal")[0]
                                                                  for t in texts.values())


@needs_val
@pytest.mark.parametrize("seed", range(4))
def test_generated_tasks_are_solvable_by_the_pair_schedule(tmp_path: Path, seed: int) -> None:
    text = workshop(4, 3, 5, dark=2, seed=seed, deadline=True, opens_at=3, sunset=True, name="g")
    problem = tmp_path / "g.pddl"
    problem.write_text(text)
    domain = bundled_task(TASKS[0])[0]
    assert f"(at {workshop_deadline(4, 5, 3)} (not (open)))" in text
    verdict = val_timed_verdict(domain, problem, witness_plan(problem))
    assert verdict.valid, verdict.failure


def test_generator_is_seeded_and_checks_its_sizes() -> None:
    assert workshop(3, 2, 4, dark=1, seed=5) == workshop(3, 2, 4, dark=1, seed=5)
    assert workshop(3, 2, 4, dark=1, seed=5) != workshop(3, 2, 4, dark=1, seed=6)
    with pytest.raises(ValueError, match="two technicians"):
        workshop(2, 1, 1, dark=1)
    result = CliRunner().invoke(generate, ["workshop", "--bays", "2", "--technicians", "1", "--machines", "1",
                                           "--dark", "1"])
    assert result.exit_code == 2 and "two technicians" in result.output


@needs_val
@pytest.mark.skipif(lpg_unavailable_reason() is not None, reason=str(lpg_unavailable_reason()))
def test_lpg_plans_only_where_no_lamp_is_needed() -> None:
    """LPG-td supports no duration inequality ("Duration inequalities are not
    supported by this version"): it plans for p01, where no bay is dark (so
    hold-lamp never applies), and VAL accepts the plan at the IPC's tolerance;
    it gives up on p02, where the lamp is needed."""
    domain, problem = bundled_task("workshop/p01")
    plan = lpg_plan(domain, problem, timeout=30)
    assert plan is not None and val_timed_verdict(domain, problem, plan, epsilon=0.001).valid
    assert lpg_plan(*bundled_task("workshop/p02"), timeout=30) is None


@needs_val
@pytest.mark.parametrize("name", TASKS)
def test_our_validator_gives_vals_verdicts_on_the_witness_and_its_sequential_form(name: str) -> None:
    domain, problem = bundled_task(name)
    task = load_temporal(str(domain), str(problem))
    for plan in (witness_plan(problem), sequential(witness_plan(problem))):
        ours, val = validate_timed_plan(task, plan), val_timed_verdict(domain, problem, plan)
        assert ours.valid == val.valid, (plan, ours, val.failure)
        if val.valid:
            assert float(ours.makespan) == pytest.approx(val.value)


@needs_val
@pytest.mark.parametrize("name", TASKS)
def test_a_session_steps_through_the_witness_to_the_goal(name: str) -> None:
    """Start each action at its time, let time pass, end it when its duration
    is up: the goal is reached, and the session's history (a timed plan) is
    valid for the session's validator and for VAL."""
    domain, problem = bundled_task(name)
    session = TemporalSession(load_temporal(str(domain), str(problem)))
    steps = parse_timed_plan(witness_plan(problem))
    events = sorted([(Decimal(s.start), 1, i) for i, s in enumerate(steps)]
                    + [(Decimal(s.end), 0, i) for i, s in enumerate(steps)])
    started: dict[int, int] = {}
    for at, kind, i in events:
        if at > session.clock:
            session.advance(str(at))
        if kind == 1:
            started[i] = session.start(steps[i].action).id
        else:
            session.end(started[i])
    assert session.goal_reached()
    assert session.validate().valid
    verdict = val_timed_verdict(domain, problem, session.plan_text())
    assert verdict.valid, (session.plan_text(), verdict.failure)


@pytest.mark.parametrize("name", ["workshop/p02", "workshop/p04", "workshop/p07"])
def test_undo_gives_back_every_earlier_moment_of_a_session(name: str) -> None:
    """Undo records share what a step does not change (the history, states
    no step writes into): stepping through the witness, then undoing one
    step at a time, gives back every earlier clock, state, running list and
    history exactly, and the session can step forward again from there."""
    domain, problem = bundled_task(name)
    session = TemporalSession(load_temporal(str(domain), str(problem)))

    def moment() -> tuple[object, ...]:
        return (session.clock, tuple(session.facts()), tuple(session.values()),
                tuple((r.id, r.action, r.start) for r in session.running), session.plan_text())

    steps = parse_timed_plan(witness_plan(problem))
    events = sorted([(Decimal(s.start), 1, i) for i, s in enumerate(steps)]
                    + [(Decimal(s.end), 0, i) for i, s in enumerate(steps)])
    seen, started = [moment()], {}
    for at, kind, i in events:
        if at > session.clock:
            session.advance(str(at))
            seen.append(moment())
        if kind == 1:
            started[i] = session.start(steps[i].action).id
        else:
            session.end(started[i])
        seen.append(moment())
    assert session.goal_reached()
    for earlier in reversed(seen[:-1]):
        assert session.undo()
        assert moment() == earlier
    assert not session.undo()
    at, _, i = events[0]  # forward again from the start: the same first step gives the same moment
    if at > session.clock:
        session.advance(str(at))
    session.start(steps[i].action)
    assert moment() == seen[2 if at > 0 else 1]
