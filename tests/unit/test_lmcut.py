"""LM-cut (pypddlengine/lmcut.py) against brute force: on random small STRIPS
tasks with action costs (zero-cost actions included), in every reachable state,
h_max <= LM-cut <= h+ <= h*, where h+ (the optimal delete-relaxed cost) and h*
(the optimal cost) come from Dijkstra searches over every relaxed and every
real state; the C loop gives exactly the Python loop's values (there, on the
development tasks of ACPBench and the corpus); and nexta's A* with LM-cut
classifies the first actions as a Dijkstra over every state does."""

from __future__ import annotations

import heapq
import itertools
import random
from pathlib import Path

import pytest
from corpus import CORPUS, CORPUS_REASON, entries, smallest_task
from oracles import optimal_relaxed_cost, random_walk
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pypddlengine import ground, load_task
from pypddlengine.exam import ExamTask
from pypddlengine.lmcut import LMCut
from pypddlengine.heuristics import INF

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT.parent / "shared" / "acpbench-dev"
def _c_built() -> bool:
    from pypddlengine import heuristics

    return heuristics._relaxed is not None


needs_c = pytest.mark.skipif(not _c_built(), reason="the C extension was not built (no C compiler at install)")


def strips_text(n: int, ops: list[tuple[frozenset, frozenset, frozenset, int]], init: frozenset,
                goal: frozenset) -> tuple[str, str]:
    """A propositional domain and problem: atoms ``p0``..``p{n-1}``, one action per op (pre, add, del, cost)."""
    def conj(atoms: frozenset, neg: frozenset = frozenset()) -> str:
        return "(and " + " ".join([*(f"(p{i})" for i in sorted(atoms)), *(f"(not (p{i}))" for i in sorted(neg))]) + ")"

    actions = "".join(
        f"(:action o{k} :parameters () :precondition {conj(pre)}"
        f" :effect (and {conj(add, dele)[5:-1]} (increase (total-cost) {cost})))"
        for k, (pre, add, dele, cost) in enumerate(ops))
    domain = (f"(define (domain rnd) (:requirements :strips :action-costs)"
              f" (:predicates {' '.join(f'(p{i})' for i in range(n))}) (:functions (total-cost) - number) {actions})")
    problem = (f"(define (problem r) (:domain rnd) (:init (= (total-cost) 0) {' '.join(f'(p{i})' for i in sorted(init))})"
               f" (:goal {conj(goal)}) (:metric minimize (total-cost)))")
    return domain, problem


@st.composite
def small_tasks(draw: st.DrawFn) -> tuple[str, str]:
    n = draw(st.integers(2, 6))
    atoms = st.frozensets(st.integers(0, n - 1), max_size=3)
    op = st.tuples(atoms, st.frozensets(st.integers(0, n - 1), min_size=1, max_size=2), atoms, st.integers(0, 3))
    ops = draw(st.lists(op, min_size=1, max_size=8))
    init = draw(atoms)
    goal = draw(st.frozensets(st.integers(0, n - 1), min_size=1, max_size=3))
    return strips_text(n, ops, init, goal)


def reachable_states(exam: ExamTask) -> dict:
    """Every reachable state and its outgoing (action, successor) pairs."""
    edges: dict = {}
    stack = [exam.state]
    while stack:
        s = stack.pop()
        if s in edges:
            continue
        edges[s] = [(a, a.apply(s)) for a in exam.task.applicable(s)]
        stack.extend(t for _, t in edges[s])
    return edges


def optimal_costs(exam: ExamTask, edges: dict) -> dict:
    """h* of every state of ``edges`` (backward Dijkstra; absent: no plan)."""
    into: dict = {}
    for s, out in edges.items():
        for a, t in out:
            into.setdefault(t, []).append((a.cost, s))
    dist = {s: 0 for s in edges if exam.task.is_goal(s)}
    count = itertools.count()
    heap = [(0, next(count), s) for s in dist]
    while heap:
        d, _, t = heapq.heappop(heap)
        if d > dist[t]:
            continue
        for c, s in into.get(t, ()):
            if d + c < dist.get(s, INF):
                dist[s] = d + c
                heapq.heappush(heap, (d + c, next(count), s))
    return dist


def h_plus(exam: ExamTask, state: frozenset) -> float:
    """The optimal delete-relaxed cost from ``state`` (uniform-cost search over sets of reached atoms)."""
    value = optimal_relaxed_cost(exam.task, state)
    assert value is not None
    return value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_tasks())
def test_lmcut_between_h_max_and_h_plus_and_nexta_exact(texts: tuple[str, str]) -> None:
    exam = ExamTask(*texts)
    lm = exam.lmcut()
    assume(lm is not None)
    assert lm is not None
    edges = reachable_states(exam)
    dist = optimal_costs(exam, edges)
    for s in edges:
        value = lm(s)
        assert value == lm.python_value(s)
        hp = h_plus(exam, s)
        assert exam._h_max(s) <= value <= hp <= dist.get(s, INF)
        assert (value == INF) == (hp == INF)
    result = exam.next_actions()
    opt = dist.get(exam.state, INF)
    assert result["maybe"] == [] and result["opt"] == (None if opt == INF else opt)
    for a, t in edges[exam.state]:
        starts = opt != INF and a.cost + dist.get(t, INF) == opt
        assert exam.action_text(a) in result["yes" if starts else "no"]


def test_lmcut_above_h_max_and_a_relaxed_dead_end() -> None:
    """Two independent goals of cost 2 and 3: h_max 3, LM-cut 5 (= h* here); in a state without the atom
    both need (an action deletes it), the goal is unreachable even ignoring deletes: INF."""
    ops = [(frozenset({0}), frozenset({1}), frozenset(), 2), (frozenset({0}), frozenset({2}), frozenset(), 3),
           (frozenset(), frozenset({3}), frozenset({0}), 1)]
    exam = ExamTask(*strips_text(4, ops, frozenset({0}), frozenset({1, 2})))
    lm = exam.lmcut()
    assert lm is not None and exam._h_max(exam.state) == 3 and lm(exam.state) == 5 == lm.python_value(exam.state)
    assert lm(frozenset()) == INF == lm.python_value(frozenset())


def test_an_action_naming_an_atom_twice() -> None:
    """(join ?a ?b) with ?a = ?b needs (free a) twice: LM-cut counts its cost once (h* = 2 here: two joins)."""
    domain = """(define (domain twice) (:requirements :strips :action-costs)
      (:predicates (free ?x) (done ?x)) (:functions (total-cost) - number)
      (:action join :parameters (?a ?b) :precondition (and (free ?a) (free ?b))
        :effect (and (done ?a) (done ?b) (not (free ?a)) (increase (total-cost) 1))))"""
    problem = """(define (problem p) (:domain twice) (:objects a b c) (:init (free a) (free b) (free c) (= (total-cost) 0))
      (:goal (and (done a) (done b) (done c))) (:metric minimize (total-cost)))"""
    exam = ExamTask(domain, problem)
    lm = exam.lmcut()
    assert lm is not None and any(len(set(a.pre)) < len(a.pre) for a in exam.task.actions)
    edges = reachable_states(exam)
    dist = optimal_costs(exam, edges)
    assert dist[exam.state] == 2
    for s in edges:
        assert exam._h_max(s) <= lm(s) == lm.python_value(s) <= h_plus(exam, s) <= dist.get(s, INF)


def _walk_states(exam: ExamTask, seed: int, n: int = 12) -> list[frozenset]:
    rng = random.Random(seed)
    states, s = [exam.state], exam.state
    for _ in range(n):
        acts = exam.task.applicable(s)
        if not acts:
            break
        s = rng.choice(acts).apply(s)
        states.append(s)
    return states


@needs_c
def test_c_equals_python_on_acpbench_dev_tasks() -> None:
    if not DEV.is_dir():
        pytest.skip("ACPBench's development split (../shared/acpbench-dev) is absent")
    from pypddlengine.exam_questions import read_questions

    checked = 0
    for doc in read_questions(DEV / "nexta" / "dev.gen.json")[::3]:
        exam = ExamTask(doc["PDDL_domain"], doc["PDDL_problem"])
        lm = exam.lmcut()
        assert lm is not None and lm.accelerated
        for s in _walk_states(exam, doc["id"], 6):
            assert lm(s) == lm.python_value(s)
            checked += 1
    assert checked > 40


ENTRIES = entries() if (CORPUS / "index.json").is_file() else []


@needs_c
@pytest.mark.skipif(not ENTRIES, reason=CORPUS_REASON)
@pytest.mark.parametrize("entry", ENTRIES, ids=[e["domain"] for e in ENTRIES])
def test_c_equals_python_on_every_corpus_domain(entry: dict) -> None:
    """The smallest task of every corpus domain, a few states of a random walk (of a task with more than
    500 operators only its initial state: the Python loop takes up to seconds a state there)."""
    _, domain, problem = smallest_task(entry)
    task = ground(load_task(domain, problem))
    lm = LMCut.of(task)
    if lm is None or not lm.accelerated:
        pytest.skip("beyond plain STRIPS or without integer costs")
    if lm.goal > 10_000:
        pytest.skip(f"{lm.goal:,} atoms: the Python loop takes tens of seconds a state")
    for s in random_walk(task, entry["domain"], 4 if len(lm.pre) <= 500 else 0):
        assert lm(s) == lm.python_value(s)


@needs_c
def test_c_lmcut_refuses_bad_input_with_python_errors() -> None:
    from pypddlengine import heuristics

    ops = [(frozenset({0}), frozenset({1}), frozenset(), 2)]
    exam = ExamTask(*strips_text(2, ops + [(frozenset({1}), frozenset({0}), frozenset({1}), 1)], frozenset({0}),
                                 frozenset({1})))
    lm = exam.lmcut()
    assert lm is not None and lm.accelerated
    arrays = list(lm._arrays)
    with pytest.raises(IndexError):
        heuristics._relaxed.lmcut(*arrays, [lm.truth])  # the always-true atom is not the state's to give
    with pytest.raises(TypeError):
        heuristics._relaxed.lmcut(*arrays, ["p0"])
    arrays[0] = arrays[0][:-1]  # offsets of one operator fewer
    with pytest.raises(ValueError, match="sizes"):
        heuristics._relaxed.lmcut(*arrays, [0])


def test_fractional_costs_run_the_exact_python_loop() -> None:
    """Costs 0.5 and 1.25 (exact fractions): no C loop; h_max <= LM-cut <= h+ <= h* in every state, and nexta exact."""
    ops = [(frozenset({0}), frozenset({1}), frozenset({0}), "0.5"), (frozenset({1}), frozenset({2}), frozenset(), "1.25"),
           (frozenset({0}), frozenset({2}), frozenset(), "2.5"), (frozenset({2}), frozenset({0}), frozenset({2}), "0.5")]
    exam = ExamTask(*strips_text(3, ops, frozenset({0}), frozenset({1, 2})))  # type: ignore[arg-type]
    lm = exam.lmcut()
    assert lm is not None and not lm.accelerated
    edges = reachable_states(exam)
    dist = optimal_costs(exam, edges)
    for s in edges:
        assert exam._h_max(s) <= lm(s) <= h_plus(exam, s) <= dist.get(s, INF)
    result = exam.next_actions()
    assert result["maybe"] == [] and result["opt"] == dist[exam.state]
    for a, t in edges[exam.state]:
        assert exam.action_text(a) in result["yes" if a.cost + dist.get(t, INF) == dist[exam.state] else "no"]
