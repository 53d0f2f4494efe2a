"""Exact answers to questions about action and change (ACPBench's eight tasks).

An :class:`ExamTask` is a grounded STRIPS task whose initial state is the
state a question is about. It answers, from the semantics of a step
(:mod:`pypddlengine.step`) and exhaustive or bounded search:

* ``app``: the actions applicable in the state;
* ``prog``: an action's effects here, ``pos`` (false now, true after) and
  ``neg`` (true now, false after);
* ``val``: the index of a sequence's first inapplicable step (``-1``: none);
* ``reach``: the type-correct atoms of fluent predicates that hold in no
  state reachable from this one;
* ``areach``: the type-correct ground actions applicable in no reachable state;
* ``just``: the single steps and pairs of consecutive steps whose removal
  leaves a plan;
* ``land``: for every atom that holds neither now nor in the goal, whether it
  is a fact landmark (true at some point of every plan from the state);
* ``nexta``: for every applicable action whether it starts an optimal plan,
  with the optimal cost.

Each answer that needs a search has a state limit: what a limited search
cannot decide is reported as undecided (``maybe``), never guessed.
"""

from __future__ import annotations

import copy
import heapq
import itertools
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any
from dataclasses import dataclass, field

from .errors import UnsupportedRequirementError
from .grounding import ground
from .heuristics import INF, relaxed_task
from .lifted import compile_task
from .lmcut import LMCut
from .step import GroundAction, State
from .syntax import parse_action_ref, parse_domain, parse_problem

__all__ = ["DEFAULT_STATE_LIMIT", "TASKS", "ExamTask", "Removal", "SearchLimit", "normal_text", "plan_steps"]

TASKS = ("app", "prog", "reach", "val", "areach", "just", "land", "nexta")
"""ACPBench's task names, in its order."""

DEFAULT_STATE_LIMIT = 200_000
"""How many states one search may store before it gives up (then: undecided)."""

_REMEMBERED = 1_000_000
"""How many heuristic values, and exact costs, the copies of one grounded task keep (then they start again)."""


class SearchLimit(Exception):
    """A search stored its limit of states without deciding the question."""


def normal_text(text: str) -> str:
    """An atom or action as compared: lower case, one space between words,
    parentheses around (``at c0 l1`` and ``(AT  c0 l1)`` are the same)."""
    words = text.strip().lower().strip("()").split()
    return "(" + " ".join(words) + ")"


@dataclass(frozen=True)
class Removal:
    """A way to shorten a plan: drop step ``index`` (0-based), or the pair
    ``index``, ``index + 1`` when ``pair``."""

    index: int
    pair: bool
    steps: tuple[str, ...] = field(default=())


class ExamTask:
    """A task whose initial state is the state asked about.

    ``state_limit`` bounds every search (stored states)."""

    def __init__(self, domain: str, problem: str, *, state_limit: int = DEFAULT_STATE_LIMIT) -> None:
        self.lifted = compile_task(parse_domain(domain, filename="PDDL_domain"),
                                   parse_problem(problem, filename="PDDL_problem"))
        if self.lifted.numeric_task:
            raise UnsupportedRequirementError("exam questions need a task without numeric fluents",
                                              details={"feature": "numeric-fluents"})
        self.task = ground(self.lifted)
        self.state: State = self.task.init
        self.state_limit = state_limit
        self._relaxed = relaxed_task(self.task)
        self._reachable: tuple[set[int], set[int], bool] | None = None
        self._pairs: list[int] | None = None
        self._memo: dict[str, Any] = {}
        self._bfs: tuple[set[State], deque[State]] = (set(), deque())
        # per grounded task, shared by the copies :meth:`at` makes: LM-cut, its values, and exact optimal costs
        # to the goal (every state of a plan an optimal search found)
        self._shared: dict[str, Any] = {"lm": None, "h": {}, "exact": {}}

    def at(self, state: State) -> ExamTask:
        """This task with ``state`` (reachable from this task's state) as the
        state asked about, without parsing or grounding again: the grounding,
        the relaxation, LM-cut, its values and the exact optimal costs found by
        :meth:`next_actions` are shared; every answer is computed afresh. The
        grounding, from this task's state, may hold actions and atoms the
        state's own grounding leaves out; they are relaxed-unreachable from
        ``state``, and every answer is the one the state's own problem text
        gets (``exam make`` asks about such copies)."""
        other = copy.copy(self)
        other.state = state
        other._reachable = None
        other._pairs = None
        other._memo = {}
        other._bfs = (set(), deque())
        return other

    def _remember(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()``'s answer, computed once; each call gets fresh lists (callers may change them)."""
        if key not in self._memo:
            self._memo[key] = compute()
        value = self._memo[key]
        if isinstance(value, dict):
            return {k: list(v) if isinstance(v, list) else v for k, v in value.items()}
        return tuple(list(v) for v in value)

    # ------------------------------------------------------------------ names

    def atom_text(self, atom: int) -> str:
        return self.task.render_atom(atom)

    def action_text(self, action: GroundAction) -> str:
        return self.task.render_action(action)

    def action(self, text: str) -> GroundAction | None:
        """The ground action ``text`` names, ``None`` when it names a
        type-correct action that can never apply; raises :class:`PDDLError`
        when it names no action of the task."""
        schema, args = self.lifted.resolve(parse_action_ref(text))
        return self.task.lookup(schema, args)

    def actions(self, steps: Sequence[str]) -> list[GroundAction | None]:
        return [self.action(s) for s in steps]

    # ------------------------------------------------------------------ one step

    def applicable(self, state: State | None = None) -> list[GroundAction]:
        return self.task.sort_actions(self.task.applicable(self.state if state is None else state))

    def progression(self, action: GroundAction) -> tuple[list[str], list[str]]:
        """``(pos, neg)``: atoms false now and true after, true now and false after."""
        state = self.state
        after = action.apply(state)
        pos = sorted(self.atom_text(a) for a in after - state)
        neg = sorted(self.atom_text(a) for a in state - after)
        return pos, neg

    def run(self, actions: Sequence[GroundAction | None]) -> tuple[int, State]:
        """Execute from the state: ``(-1, end)`` when every step applies, else
        ``(index of the first inapplicable step, state before it)``."""
        state = self.state
        for i, a in enumerate(actions):
            if a is None or not a.applicable(state):
                return i, state
            state = a.apply(state)
        return -1, state

    def is_plan(self, actions: Sequence[GroundAction | None]) -> bool:
        index, end = self.run(actions)
        return index == -1 and self.task.is_goal(end)

    # ------------------------------------------------------------------ reachability

    def _explore(self, pending_atoms: Iterable[int] = (), pending_acts: Iterable[int] = (),
                 limit: int | None = None) -> tuple[set[int], set[int], bool]:
        """The atoms that hold and the actions that apply in the states a
        breadth-first search from the state has visited, and whether it
        visited every reachable state. The search resumes where it stopped
        and stops once every atom of ``pending_atoms`` and action (id) of
        ``pending_acts`` has been met, or the queue is empty, or it stored
        ``limit`` states (default and at most ``state_limit // 4``; the
        targeted searches of :meth:`reaches` add what they meet)."""
        if self._reachable is None:
            self._reachable = (set(self.state), set(), False)
            self._bfs = ({self.state}, deque([self.state]))
        atoms, acts, complete = self._reachable
        if complete:
            return self._reachable
        want_atoms = set(pending_atoms) - atoms
        want_acts = set(pending_acts) - acts
        if not want_atoms and not want_acts:
            return self._reachable
        seen, queue = self._bfs
        limit = max(1, min(self.state_limit // 4, self.state_limit // 4 if limit is None else limit))
        applicable = self.task.applicable
        while queue and len(seen) <= limit and (want_atoms or want_acts):
            s = queue.popleft()
            for a in applicable(s):
                if a.id not in acts:
                    acts.add(a.id)
                    want_acts.discard(a.id)
                t = a.apply(s)
                if t not in seen:
                    seen.add(t)
                    new = t - atoms
                    if new:
                        atoms.update(new)
                        want_atoms.difference_update(new)
                    queue.append(t)
        if not queue:
            self._reachable = (atoms, acts, True)
        return self._reachable

    def pairs(self) -> list[int]:
        """h^2 reachability from the state (Haslum and Geffner 2000, m = 2):
        bit ``q`` of ``pairs()[p]`` is set unless the atoms ``p`` and ``q``
        provably never hold together in a reachable state (bit ``p`` of
        ``pairs()[p]``: ``p`` may hold at all). Sound: every pair of a reachable
        state is set. Computed for plain STRIPS actions; with conditional
        effects or derived atoms every pair the relaxation reaches is set."""
        if self._pairs is None:
            self._pairs = self._h2()
        return self._pairs

    def _h2(self, without: int | None = None) -> list[int]:
        """:meth:`pairs`, with the actions that add ``without`` left out when given."""
        task = self.task
        n = len(task.atoms)
        relaxed = 0
        for a in self.relaxed_atoms():
            relaxed |= 1 << a
        if task.derived_atoms or any(a.__class__ is not GroundAction for a in task.actions):
            return [relaxed if relaxed >> p & 1 else 0 for p in range(n)]
        r = [0] * n
        start = 0
        for p in self.state:
            start |= 1 << p
        for p in self.state:
            r[p] = start
        acts = [(a.pre, sum(1 << p for p in a.pre), sum(1 << p for p in a.delete), a.add,
                 sum(1 << p for p in a.add)) for a in task.actions if a.add and without not in a.add]
        changed = True
        while changed:
            changed = False
            reached = sum(1 << p for p in range(n) if r[p] >> p & 1)
            for pre, pre_mask, del_mask, add, add_mask in acts:
                together = reached
                for p in pre:
                    together &= r[p]
                    if together & pre_mask != pre_mask:
                        break
                else:
                    new_q = (together & ~del_mask) | add_mask  # atoms that may hold after the action
                    for p in add:
                        fresh = new_q & ~r[p]
                        if fresh:
                            changed = True
                            r[p] |= fresh
                            bit = 1 << p
                            while fresh:
                                low = fresh & -fresh
                                r[low.bit_length() - 1] |= bit
                                fresh ^= low
        return r

    def h2_atom(self, atom: int) -> bool:
        """Whether ``atom`` may hold in a reachable state by h^2 (``False``: never)."""
        return bool(self.pairs()[atom] >> atom & 1)

    def h2_together(self, atoms: Sequence[int]) -> bool:
        """Whether ``atoms`` may hold together by h^2 (``False``: a pair of them is a mutex)."""
        r = self.pairs()
        mask = sum(1 << p for p in atoms)
        return all(r[p] & mask == mask for p in atoms)

    def reaches(self, targets: tuple[int, ...]) -> bool:
        """Whether some state reachable from the state holds every atom of
        ``targets`` (greedy best-first on the relaxed cost of the targets,
        with deferred evaluation: a state is queued at its parent's value,
        ties to fewer targets missing, and evaluated when it is expanded;
        complete); raises :class:`SearchLimit` after ``state_limit // 400``
        evaluated states or ``state_limit // 40`` stored ones (one question
        asks about many targets)."""
        rt = self._relaxed
        want = frozenset(targets)

        def h(s: State) -> float:
            cost, _ = rt.explore_arrays(s, True)
            total = 0.0
            for t in targets:
                total += cost[t]
            return total

        start = self.state
        if want <= start:
            return True
        met_atoms, met_acts, _ = self._explore()
        counter = itertools.count()
        seen = {start}
        heap = [(0.0, 0, next(counter), start)]
        applicable = self.task.applicable
        limit = self.state_limit // 40
        evaluated = 0
        while heap:
            _, _, _, s = heapq.heappop(heap)
            met_atoms.update(s)
            evaluated += 1
            if evaluated > self.state_limit // 400:
                raise SearchLimit
            v = h(s)
            if v == INF:
                continue
            for a in applicable(s):
                met_acts.add(a.id)
                t = a.apply(s)
                if t in seen:
                    continue
                if want <= t:
                    met_atoms.update(t)
                    return True
                seen.add(t)
                if len(seen) > limit:
                    raise SearchLimit
                heapq.heappush(heap, (v, len(want - t), next(counter), t))
        return False

    def _decide(self, targets: tuple[int, ...], *, action: int | None = None) -> bool | None:
        """Whether ``targets`` (an atom, or the preconditions of ``action``)
        hold together in some reachable state: a targeted search, then the
        breadth-first search resumed up to its full limit; ``None`` when both
        stop at their limits."""
        try:
            return self.reaches(targets)
        except SearchLimit:
            pass
        atoms, acts, complete = self._explore(pending_atoms=targets if action is None else (),
                                              pending_acts=() if action is None else (action,))
        if action is None and targets[0] in atoms or action is not None and action in acts:
            return True
        return False if complete else None

    def relaxed_atoms(self) -> frozenset[int]:
        """The atoms the delete relaxation reaches from the state (a superset of the reachable ones)."""
        cost, _ = self._relaxed.explore_arrays(self.state, False)
        return frozenset(i for i in range(len(self.task.atoms)) if cost[i] != INF)

    def _typed_atoms(self) -> Iterable[tuple[int, tuple[int, ...]]]:
        lifted = self.lifted
        members = lifted.type_members
        for p, decl in enumerate(lifted.domain.predicates):
            if p not in lifted.fluent_predicates or p in lifted.derived_predicates:
                continue
            domains = [sorted({o for t in prm.types for o in members.get(t, ())}) for prm in decl.parameters]
            for args in itertools.product(*domains):
                yield p, args  # type: ignore[misc]

    def unreachable_atoms(self) -> tuple[list[str], list[str]]:
        """See the private method of the same name; computed once per task (a fresh copy each call)."""
        return self._remember("unreachable_atoms", self._unreachable_atoms)

    def _unreachable_atoms(self) -> tuple[list[str], list[str]]:
        """``(never, undecided)``: the type-correct atoms of fluent predicates
        that hold in no reachable state, and those a limited search could not
        decide."""
        relaxed = self.relaxed_atoms()
        ids = self.task.atom_ids
        open_atoms = [a for a in (ids.get((p, *args)) for p, args in self._typed_atoms())
                      if a is not None and a in relaxed and self.h2_atom(a)]
        seen_atoms, _, complete = self._explore(pending_atoms=open_atoms, limit=self.state_limit // 100)
        never: list[str] = []
        undecided: list[str] = []
        for p, args in self._typed_atoms():
            key: tuple[int, ...] = (p, *args)
            atom = ids.get(key)
            if atom is not None and atom in seen_atoms:
                continue
            verdict = False if atom is None or atom not in relaxed or complete or not self.h2_atom(atom) else (
                atom in seen_atoms or self._decide((atom,)))
            if verdict is None:
                undecided.append(self.lifted.render_key(key))
            elif not verdict:
                never.append(self.lifted.render_key(key))
        return never, undecided

    def _typed_actions(self) -> Iterable[tuple[object, tuple[int, ...]]]:
        for schema in self.lifted.schemas:
            yield from ((schema, args) for args in itertools.product(*schema.domains))

    def unreachable_actions(self) -> tuple[list[str], list[str]]:
        """See the private method of the same name; computed once per task (a fresh copy each call)."""
        return self._remember("unreachable_actions", self._unreachable_actions)

    def _unreachable_actions(self) -> tuple[list[str], list[str]]:
        """``(never, undecided)`` for the type-correct ground actions: applicable
        in no reachable state, or not decided by a limited search."""
        relaxed = self.relaxed_atoms()
        open_acts = [a.id for a in self.task.actions if all(p in relaxed for p in a.pre) and self.h2_together(a.pre)]
        _, seen_acts, complete = self._explore(pending_acts=open_acts, limit=self.state_limit // 100)
        never: list[str] = []
        undecided: list[str] = []
        for schema, args in self._typed_actions():
            action = self.task.lookup(schema, args)  # type: ignore[arg-type]
            if action is not None and action.id in seen_acts:
                continue
            if (action is None or complete or not all(a in relaxed for a in action.pre)
                    or not self.h2_together(action.pre)):
                verdict: bool | None = False
            else:
                verdict = action.id in seen_acts or self._decide(tuple(action.pre), action=action.id)
            if verdict is None:
                undecided.append(self.lifted.render_action(schema, args))  # type: ignore[arg-type]
            elif not verdict:
                never.append(self.lifted.render_action(schema, args))  # type: ignore[arg-type]
        return never, undecided

    # ------------------------------------------------------------------ search

    def _h_max(self, state: State) -> float:
        """h_max (admissible and consistent) from the C exploration when built."""
        rt = self._relaxed
        if rt.missing_goals:
            return INF
        cost, _ = rt.explore_arrays(state, False, stop=True)
        h = 0.0
        for g in rt.goals:
            c = cost[g]
            if c > h:
                h = c
        return h

    def lmcut(self) -> LMCut | None:
        """LM-cut of the task (:mod:`pypddlengine.lmcut`), ``None`` beyond plain STRIPS."""
        shared = self._shared
        if shared["lm"] is None:
            shared["lm"] = LMCut.of(self.task) or False
        return shared["lm"] if isinstance(shared["lm"], LMCut) else None

    def optimal_region(self, state: State, heuristic: Callable[[State], float] | None = None,
                       limit: int | None = None) -> tuple[float, dict[State, float]]:
        """``(opt, rest)``: the cost of an optimal plan from ``state`` (``INF``
        when there is none) and, for every state an optimal plan from
        ``state`` passes, its exact optimal cost to the goal (other states
        may appear with an upper bound). A* that goes on until every state
        with f at most ``opt`` is expanded, reopening a state met again at a
        lower g (with an admissible heuristic these include every state of
        every optimal plan, each expanded at its optimal g; h_max is
        moreover consistent, so nothing is reopened; LM-cut need not be),
        then a backward Dijkstra over the expanded edges. ``heuristic``: an
        admissible one, h_max by default; each state is evaluated once.
        Raises :class:`SearchLimit` when it stores more than ``limit``
        states (default: ``state_limit // 10`` with h_max, ``// 40`` with
        another heuristic)."""
        task = self.task
        h_of = self._h_max if heuristic is None else heuristic
        h0 = h_of(state)
        if h0 == INF:
            return INF, {}
        counter = itertools.count()
        best = {state: 0.0}
        seen_h = {state: h0}
        heap = [(h0, next(counter), 0.0, state)]
        opt = INF
        into: dict[State, list[tuple[float, State]]] = {}  # expanded edges, reversed
        closed: set[State] = set()
        goals: dict[State, None] = {}
        if limit is None:
            limit = self.state_limit // (10 if heuristic is None else 40)
        while heap:
            f, _, g, s = heapq.heappop(heap)
            if f > opt:
                break
            if g > best[s]:  # a stale entry; a state met again at a lower g is expanded again (reopening)
                continue
            closed.add(s)
            if task.is_goal(s):
                goals[s] = None
                if g < opt:
                    opt = g
            for a in task.applicable(s):
                t = a.apply(s)
                into.setdefault(t, []).append((a.cost, s))
                g2 = g + a.cost
                if g2 >= best.get(t, INF):
                    continue
                h = seen_h.get(t)
                if h is None:
                    h = seen_h[t] = h_of(t)
                if h == INF or g2 + h > opt:
                    continue
                best[t] = g2
                if len(best) > limit:
                    raise SearchLimit
                heapq.heappush(heap, (g2 + h, next(counter), g2, t))
        rest: dict[State, float] = {s: 0.0 for s in goals}
        back = [(0.0, next(counter), s) for s in goals]
        while back:
            d, _, t = heapq.heappop(back)
            if d > rest[t]:
                continue
            for c, s in into.get(t, ()):
                if s in closed and d + c < rest.get(s, INF):
                    rest[s] = d + c
                    heapq.heappush(back, (d + c, next(counter), s))
        return opt, rest

    def optimal_cost(self, state: State) -> float:
        """The cost of an optimal plan from ``state``, ``INF`` when there is
        none; raises :class:`SearchLimit` (see :meth:`optimal_region`)."""
        return self.optimal_region(state)[0]

    def any_plan(self, state: State, banned_atom: int | None = None) -> list[GroundAction] | None:
        """Some plan from ``state`` that never makes ``banned_atom`` true
        (greedy best-first on the relaxed plan's cost), ``None`` when none
        exists; raises :class:`SearchLimit` after ``state_limit`` states
        (``state_limit // 10`` with ``banned_atom``: one ``land`` question
        may ask about many atoms)."""
        task = self.task
        rt = self._relaxed
        limit = self.state_limit if banned_atom is None else self.state_limit // 10
        if banned_atom is not None and banned_atom in state:
            return None

        h = rt.h_ff
        counter = itertools.count()
        parent: dict[State, tuple[State, GroundAction] | None] = {state: None}
        heap = [(h(state), next(counter), state)]
        while heap:
            _, _, s = heapq.heappop(heap)
            if task.is_goal(s):
                steps: list[GroundAction] = []
                node = parent[s]
                while node is not None:
                    steps.append(node[1])
                    node = parent[node[0]]
                return steps[::-1]
            for a in task.applicable(s):
                t = a.apply(s)
                if t in parent or (banned_atom is not None and banned_atom in t):
                    continue
                parent[t] = (s, a)
                if len(parent) > limit:
                    raise SearchLimit
                # the relaxation may still use a banned atom: it only guides, pruning stays exact
                heapq.heappush(heap, (h(t), next(counter), t))
        return None

    # ------------------------------------------------------------------ just

    def removals(self, steps: Sequence[str]) -> list[Removal]:
        """Every single step, then every pair of consecutive steps, whose
        removal leaves a plan (a shorter subsequence that is still a plan)."""
        acts = self.actions(steps)
        out: list[Removal] = []
        for i in range(len(acts)):
            if self.is_plan(acts[:i] + acts[i + 1:]):
                out.append(Removal(i, False, (steps[i],)))
        for i in range(len(acts) - 1):
            if self.is_plan(acts[:i] + acts[i + 2:]):
                out.append(Removal(i, True, (steps[i], steps[i + 1])))
        return out

    # ------------------------------------------------------------------ land

    def landmarks(self, atoms: Iterable[int] | None = None) -> dict[str, list[str]]:
        """:meth:`_landmarks`, computed once per task for the default atoms (a fresh copy each call)."""
        if atoms is not None:
            return self._landmarks(atoms)
        return self._remember("landmarks", self._landmarks)  # type: ignore[no-any-return]

    def landmark_sample(self, yes: int = 1, no: int = 3) -> dict[str, list[str]]:
        """Atoms proved landmarks and proved not, enough for questions about
        a few atoms (``exam make``): :meth:`_landmarks` that stops deciding
        once ``yes`` landmarks and ``no`` non-landmarks are proved. The cheap
        proofs run first (every atom one plan from the state never makes true
        is ``no``; the relaxation without the atom's achievers, then h^2,
        prove ``yes``), a search for a plan avoiding an atom only while too
        few are proved; atoms left undecided are in no list (a partial
        answer, as ACPBench's labels are). Computed once per task."""
        return self._remember(f"landmark_sample {yes} {no}",  # type: ignore[no-any-return]
                              lambda: self._landmarks(enough=(yes, no)))

    def _landmarks(self, atoms: Iterable[int] | None = None, enough: tuple[int, int] | None = None
                   ) -> dict[str, list[str]]:
        """Classify atoms as fact landmarks of the state: ``yes`` (every plan
        makes it true at some point), ``no`` (some plan never does; atoms that
        never hold included),
        ``maybe`` (undecided within the limit). By default every atom of the
        task that holds neither in the state nor in the goal; when the task
        has no plan, nothing is a landmark question: all ``maybe`` stays empty
        and every atom is ``yes`` (vacuously). With ``enough`` (``(y, n)``)
        deciding stops once ``y`` atoms are ``yes`` and ``n`` are ``no``; the
        atoms not decided by then are left out (see :meth:`landmark_sample`)."""
        task = self.task
        goal = set(task.goal_pos)
        if atoms is None:
            relaxed = self.relaxed_atoms()  # a copy made by :meth:`at` may have more atoms grounded
            atoms = [i for i in range(len(task.atoms)) if task.reachable[i] and i in relaxed
                     and task.atoms[i][0] in self.lifted.fluent_predicates]
        todo = [a for a in atoms if a not in self.state and a not in goal]
        yes: list[int] = []
        no: set[int] = set()
        maybe: list[int] = []
        try:
            plan = self.any_plan(self.state)
        except SearchLimit:
            plan = []
        def avoided(plan: list[GroundAction]) -> set[int]:  # the atoms a plan never makes true
            passed: set[int] = set()
            s = self.state
            for a in plan:
                s = a.apply(s)
                passed.update(s)
            return {a for a in todo if a not in passed}

        def done() -> bool:
            return enough is not None and len(yes) >= enough[0] and len(no) >= enough[1]

        if plan:
            no = avoided(plan)
        # cheapest proofs first: the relaxation, h^2, then a search per atom (each only while not done)
        rest: list[int] = []
        for atom in todo:
            if atom not in no:
                (yes if self._relaxed_without(atom) else rest).append(atom)
        searched: list[int] = []
        for atom in rest:
            if done():
                break
            (yes if self._h2_without(atom) else searched).append(atom)
        for atom in searched:
            if done():
                break
            if atom in no:
                continue
            try:
                found = self.any_plan(self.state, banned_atom=atom)
            except SearchLimit:
                maybe.append(atom)
                continue
            if found is None:
                yes.append(atom)
            else:
                no.update(avoided(found))
        text = self.atom_text
        never: list[str] = []
        if plan or no:  # the task has a plan: an atom that can never hold is no landmark
            relaxed = self.relaxed_atoms()
            ids = self.task.atom_ids
            goal_keys = set(self.lifted.goal_pos)
            for p, args in self._typed_atoms():
                key: tuple[int, ...] = (p, *args)
                if key not in goal_keys and ids.get(key, -1) not in relaxed:
                    never.append(self.lifted.render_key(key))
        return {"yes": sorted(map(text, yes)), "no": sorted([*map(text, no), *never]),
                "maybe": sorted(map(text, maybe))}

    def _h2_without(self, atom: int) -> bool:
        """Whether h^2 proves the goal unreachable once no action may add
        ``atom`` (then every plan makes ``atom`` true: a landmark)."""
        if self.task.derived_atoms or any(a.__class__ is not GroundAction for a in self.task.actions):
            return False
        goal = self.task.goal_pos  # each a necessary condition of the goal
        if any(g < 0 for g in goal):
            return False
        r = self._h2(without=atom)
        mask = sum(1 << g for g in goal)
        return not all(r[g] & mask == mask for g in goal)

    def _relaxed_without(self, atom: int) -> bool:
        """Whether the goal is relaxed-unreachable once no action may add ``atom``."""
        reached = set(self.state)
        ops = [a for a in self.task.actions if atom not in a.add]
        changed = True
        while changed:
            changed = False
            for a in ops:
                if a.add and not reached.issuperset(a.add) and reached.issuperset(a.pre):
                    reached.update(a.add)
                    changed = True
        return not all(g in reached for g in self.task.goal_pos)

    # ------------------------------------------------------------------ nexta

    def next_actions(self) -> dict[str, object]:
        """See the private method of the same name; computed once per task (a fresh copy each call)."""
        return self._remember("next_actions", self._next_actions)

    def _optimal_searches(self) -> list[tuple[Callable[[State], float] | None, int]]:
        """The heuristics :meth:`next_actions` tries in turn, each
        ``(heuristic, state limit)`` (the limit for its searches together):
        with LM-cut in C, LM-cut up to ``state_limit // 4`` states;
        otherwise h_max (cheap, weak) up to ``state_limit // 10``, then,
        for a plain STRIPS task, LM-cut in Python (about 30 times slower per
        state) up to ``state_limit // 40``."""
        lm = self.lmcut()
        if lm is not None and lm.accelerated:
            return [(lm, self.state_limit // 4)]
        return [(None, self.state_limit // 10)] + ([(lm, self.state_limit // 40)] if lm is not None else [])

    def _remembering(self, heuristic: Callable[[State], float] | None) -> Callable[[State], float]:
        """``heuristic`` (h_max when ``None``), with the exact optimal cost
        instead where :meth:`cheapest` proved it (both admissible, so is
        the result); LM-cut's values are kept for the other questions about
        this grounded task (the copies :meth:`at` makes)."""
        base = self._h_max if heuristic is None else heuristic
        known: dict[State, float] = self._shared["exact"]
        values: dict[State, float] = self._shared["h"] if heuristic is self.lmcut() else {}
        if len(values) > _REMEMBERED:
            values.clear()

        def h(state: State) -> float:
            v = known.get(state)
            if v is None:
                v = values.get(state)
                if v is None:
                    v = values[state] = base(state)
            return v

        return h

    def cheapest(self, start: State, heuristic: Callable[[State], float], bound: float = INF,
                 limit: int | None = None) -> tuple[float, int]:
        """``(cost, stored)``: the cost of an optimal plan from ``start`` when
        it is at most ``bound``, else ``INF``, and the states stored. A* with
        an admissible ``heuristic``, ties to the larger g, reopening a state
        met again at a lower g, pruning f above ``bound``, stopping at the
        first goal popped; a state whose exact optimal cost an earlier call
        proved is a goal at that cost. The states of the plan found get
        their exact costs (shared by the copies :meth:`at` makes: with
        :meth:`_remembering` they are the heuristic there). Raises
        :class:`SearchLimit` after ``limit`` stored states (default
        ``state_limit // 4``)."""
        task = self.task
        known: dict[State, float] = self._shared["exact"]
        if len(known) > _REMEMBERED:
            known.clear()
        limit = self.state_limit // 4 if limit is None else limit
        h0 = heuristic(start)
        if h0 > bound:  # INF included
            return INF, 0
        counter = itertools.count()
        best = {start: 0.0}
        parent: dict[State, tuple[State, float]] = {}
        heap = [(h0, 0.0, next(counter), start)]
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            f, neg_g, _, s = pop(heap)
            if f > bound:
                break
            g = -neg_g
            if g > best[s]:  # stale: met again at a lower g since
                continue
            to_go = 0.0 if task.is_goal(s) else known.get(s)
            if to_go is not None:
                if g + to_go > f:  # the heuristic was below the cost there: back in the queue at the cost
                    push(heap, (g + to_go, neg_g, next(counter), s))
                    continue
                cost = g + to_go
                # the plan's states: exact where the path to them is a cheapest one (g + suffix == cost)
                suffix = to_go
                while True:
                    if best[s] + suffix == cost:
                        known[s] = suffix
                    if s not in parent:
                        break
                    s, c = parent[s]
                    suffix += c
                return cost, len(best)
            for a in task.applicable(s):
                t = a.apply(s)
                g2 = g + a.cost
                if g2 >= best.get(t, INF):
                    continue
                ht = heuristic(t)
                if g2 + ht > bound:  # INF included
                    continue
                best[t] = g2
                parent[t] = (s, a.cost)
                if len(best) > limit:
                    raise SearchLimit
                push(heap, (g2 + ht, -g2, next(counter), t))
        return INF, len(best)

    def _next_actions(self) -> dict[str, object]:
        """Every applicable action classified: ``yes`` when it starts an
        optimal plan, ``no`` when it does not, ``maybe`` when a search hit its
        limit; ``opt`` the optimal cost (``None`` when undecided, ``INF`` not
        reported: a task without a plan has every action in ``no``). One
        search from the state finds ``opt`` (:meth:`cheapest`), then one
        from each action's successor ``t``, bounded by ``opt`` less the
        action's cost (``yes`` when it finds a plan within), every search
        within the limit of :meth:`_optimal_searches` altogether."""
        opt: float | None = None
        firsts: list[tuple[GroundAction, bool]] = []
        acts = self.applicable()
        for heuristic, limit in self._optimal_searches():
            h = self._remembering(heuristic)
            try:
                opt, stored = self.cheapest(self.state, h, INF, limit)
                firsts = []
                for a in acts:
                    bound = opt - a.cost
                    found, used = (self.cheapest(a.apply(self.state), h, bound, limit - stored) if bound >= 0
                                   else (INF, 0))
                    stored += used
                    firsts.append((a, found <= bound))
                break
            except SearchLimit:
                opt = None
                continue
        yes: list[str] = []
        no: list[str] = []
        maybe: list[str] = []
        if opt is None:
            maybe = [self.action_text(a) for a in acts]
        for a, starts in firsts:
            (yes if opt != INF and starts else no).append(self.action_text(a))
        cost: object = None if opt is None or opt == INF else (int(opt) if float(opt).is_integer() else opt)
        return {"yes": yes, "no": no, "maybe": maybe, "opt": cost}


def plan_steps(text: str) -> list[str]:
    """The steps ``(name arg ...)`` written in ``text``, in order."""
    out: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(text):
        if c == "(":
            if depth == 0:
                start = i
            depth += 1
        elif c == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append(text[start:i + 1])
    return out

