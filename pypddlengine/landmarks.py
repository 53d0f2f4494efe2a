"""Fact landmarks and the landmark-count heuristic (LM-count).

A fact landmark is an atom that every plan makes true at some point. They
are found here by Zhu & Givan's label propagation on the relaxed planning
graph (the relaxed-planning-graph analysis of "Landmark extraction via
planning graph propagation", 2003), reading the task only through
:meth:`Task.relaxed_operators`: the label of an atom is the set of atoms
that must be true before it (itself included)::

    label(q) = {q} | intersection over achievers o of q (union of label(r) for r in pre(o))

starting from ``{q}`` for the atoms of the initial state, and shrunk until
nothing changes. The propagation runs in C when the extension is built
(``pypddlengine/_relaxed.c``; labels as sorted arrays of atom ids), else in
Python with labels as bitsets (Python ints, bit ``a`` for atom ``a``); both
give the same landmarks, orderings and labels (``tests/unit/test_c_exploration.py``).
Set-up on Blocksworld (``bench/bench_heuristics.py --clock cpu``, relaxed task
already built, load average below 1 on 2 cores): 7.2 ms at 100 blocks in C
(32.5 ms with the relaxed task's own set-up from a bare task: issue 12's
target is 50 ms), 187 ms at 400; the Python propagation takes 33 ms and 6.3 s
(with building its atom-to-operator lists).

The landmarks of the task are the union of the goal atoms'
labels; ``p`` in ``label(q)`` is a natural ordering (``p`` holds strictly
before ``q`` first does). An atom that is a precondition of every achiever
of a landmark ``q`` is moreover needed *immediately* before ``q`` (a
greedy-necessary ordering, used for "required again").

Along a path, a landmark is *accepted* once it holds in a state in which all
its natural predecessors are accepted (and stays accepted); an accepted
landmark is *required again* when it does not hold now and it is a goal atom
or needed immediately before a landmark not yet accepted. LM-count is the
number of landmarks not accepted plus those required again: 0 in every
goal state reached by a path, since every landmark holds on every path to the
goal in the order the labels say.
"""

from __future__ import annotations

import time
from array import array
from collections import deque

from .heuristics import RelaxedTask, _relaxed, relaxed_task
from .task import State, Task
from .usercache import dataclass

__all__ = ["LandmarkProgress", "Landmarks", "find_landmarks"]


@dataclass(frozen=True, slots=True)
class LandmarkProgress:
    """The landmark status of one state on a path."""

    accepted: frozenset[int]
    required_again: frozenset[int]
    newly_accepted: tuple[int, ...]
    lm_count: int


@dataclass(frozen=True)
class Landmarks:
    """The fact landmarks of a task from its initial state.

    ``atoms``: every landmark (goal atoms included); ``before[q]``: the
    landmarks that must hold strictly before ``q`` (natural orderings);
    ``needed_by[p]``: landmarks ``q`` whose every achiever needs ``p``;
    ``unreachable_goals``: goal atoms with no label, unreachable even
    ignoring deletes; ``seconds``: the time the analysis took."""

    atoms: frozenset[int]
    goals: frozenset[int]
    before: dict[int, frozenset[int]]
    needed_by: dict[int, frozenset[int]]
    unreachable_goals: tuple[int, ...]
    seconds: float

    def start(self, state: State) -> LandmarkProgress:
        """The status at the start of a path in ``state``."""
        return self.step(frozenset(), state)

    def step(self, accepted: frozenset[int], state: State) -> LandmarkProgress:
        """The status after moving to ``state`` with ``accepted`` landmarks so far."""
        before = self.before
        new: list[int] = []
        grown = set(accepted)
        candidates = sorted(self.atoms.intersection(state).difference(accepted))
        changed = True
        while changed and candidates:
            changed = False
            rest = []
            for q in candidates:
                if before[q] <= grown:
                    grown.add(q)
                    new.append(q)
                    changed = True
                else:
                    rest.append(q)
            candidates = rest
        done = frozenset(grown)
        again = frozenset(self.required_again(done, state))
        return LandmarkProgress(done, again, tuple(new), len(self.atoms) - len(done) + len(again))

    def required_again(self, accepted: frozenset[int], state: State) -> list[int]:
        out = []
        for p in accepted.difference(state):
            if p in self.goals or any(q not in accepted for q in self.needed_by.get(p, ())):
                out.append(p)
        return out


def find_landmarks(task: Task) -> Landmarks:
    """Zhu & Givan fact landmarks of ``task`` from its initial state."""

    started = time.perf_counter()
    rt = relaxed_task(task)
    label, common = zhu_givan_labels(rt, task.init)
    goals = frozenset(rt.goals)
    unreachable = tuple(g for g in rt.goals if label[g] is None) + rt.missing_goals
    atoms = frozenset(q for q, lab in label.items() if lab is not None)
    before = {q: frozenset(label[q] or ()) - {q} for q in sorted(atoms)}
    needed_by: dict[int, set[int]] = {}
    for q, needs in common.items():
        for p in atoms.intersection(needs):
            needed_by.setdefault(p, set()).add(q)
    return Landmarks(
        atoms,
        goals,
        before,
        {p: frozenset(qs) for p, qs in needed_by.items()},
        unreachable,
        time.perf_counter() - started,
    )


Labels = dict[int, "tuple[int, ...] | None"]
Needs = dict[int, "tuple[int, ...]"]


def zhu_givan_labels(rt: RelaxedTask, init: State, *, use_c: bool | None = None) -> tuple[Labels, Needs]:
    """The landmarks' labels and what their achievers share: (landmark or
    goal atom -> its label, sorted atom ids with itself included, ``None``
    for an unreachable goal; landmark not initially true -> the atoms that
    every achiever applicable in the relaxation needs, sorted). The
    landmarks are the union of the goals' labels. In C when the extension is
    built (``use_c`` forces a side), else in Python; both give the same
    result (the tests compare them)."""
    if use_c if use_c is not None else _relaxed is not None:
        goals = array("i", rt.goals)
        assert _relaxed is not None
        return _relaxed.labels(*rt.csr(), init, array("i", rt.npre), goals)  # type: ignore[no-any-return]
    return python_labels(rt, init)


def python_labels(rt: RelaxedTask, init: State) -> tuple[Labels, Needs]:
    """:func:`zhu_givan_labels` with labels as bitsets (Python ints, bit
    ``a`` for atom ``a``), so a union or an intersection is one C-level
    operation."""
    pre, add, by_pre = rt.pre, rt.add, rt.by_pre
    n = rt.n_atoms
    label: list[int] = [-1] * (n + 1)  # -1: no label yet
    label[n] = 0  # the always-true atom of operators without preconditions
    for a in init:
        label[a] = 1 << a
    fixed = bytearray(n + 1)  # atoms of the initial state keep their label {a}
    for a in init:
        fixed[a] = 1
    remaining = rt.npre[:]
    queue: deque[int] = deque([*init, n])
    first_pass = bytearray(n + 1)
    while queue:
        a = queue.popleft()
        first = not first_pass[a]
        first_pass[a] = 1
        for o in by_pre[a]:
            if first:
                r = remaining[o] - 1
                remaining[o] = r
                if r:
                    continue
            elif remaining[o]:
                continue
            union = -1
            for q in add[o]:
                if fixed[q]:
                    continue
                if union < 0:
                    union = 0
                    for r in pre[o]:
                        union |= label[r]
                old = label[q]
                new = (union if old < 0 else old & union) | 1 << q
                if new != old:  # a first label, or atoms other than q left it
                    label[q] = new
                    queue.append(q)
    union = 0
    for g in rt.goals:
        if label[g] > 0:
            union |= label[g]
    members = bits(union)
    label_of: Labels = {q: tuple(bits(label[q])) for q in members}
    label_of.update((g, None) for g in rt.goals if label[g] < 0)
    # landmarks q (not initially true) and the atoms every achiever of q needs
    shared: dict[int, set[int] | None] = {q: None for q in members if not fixed[q]}
    for o, adds in enumerate(add):
        if remaining[o] <= 0:  # the operator became applicable in the relaxation
            for q in adds:
                if q in shared:
                    common = shared[q]
                    if common is None:
                        shared[q] = set(pre[o])
                    elif common:
                        common.intersection_update(pre[o])
    return label_of, {q: tuple(sorted(common or ())) for q, common in shared.items()}


def bits(x: int) -> list[int]:
    """The positions of the set bits of ``x >= 0``, lowest first."""
    text = bin(x)[:1:-1]
    out = []
    i = text.find("1")
    while i >= 0:
        out.append(i)
        i = text.find("1", i + 1)
    return out
