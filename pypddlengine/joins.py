"""Conjunctive queries over a state: the lifted backend's successor generator.

The positive precondition atoms of an action schema (or the body of an axiom
rule) form a conjunctive query; its answers in a state are the schema's
candidate instances. :func:`join_source` plans each query once and generates
it as nested Python loops (as the grounder generates its joins):

* **Join order by selectivity**: the next atom joined is the one expected to
  yield the fewest candidates, estimated from the initial state: a
  predicate's atom count divided by the number of distinct objects at the
  most selective position already bound. An atom whose variables are all
  bound is a membership test, done as soon as it can be.
* **Static atoms** (of predicates no action changes) are indexed once, by
  predicate and by (predicate, position, object); fluent atoms are indexed
  the same way in a :class:`Relations` that follows the session from state
  to state by the atoms that change, never rebuilt.
* **Filters**: types, equalities and inequalities, and negative literals are
  tested as soon as their variables are bound.

A semi-naive *trigger* variant binds one atom of the query to a new atom
(the derived atoms of :class:`pypddlengine.lazy.LazyTask` are computed with
it, stratum by stratum).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .lifted import AtomKey, LiftedTask, Schema, Template

__all__ = ["JoinStats", "OrderedQuery", "Relations", "join_source"]


class Relations:
    """Atoms indexed for joins: all of them (:attr:`keys`), by predicate
    (:attr:`by_pred`, one set per predicate) and by (predicate, position,
    object) for the positions the joins look up (:attr:`by_pos`)."""

    __slots__ = ("by_pos", "by_pred", "keys", "positions")

    def __init__(self, predicates: int, positions: dict[int, tuple[int, ...]]) -> None:
        self.keys: set[AtomKey] = set()
        self.by_pred: list[set[AtomKey]] = [set() for _ in range(predicates)]
        self.by_pos: dict[tuple[int, int, int], set[AtomKey]] = {}
        self.positions = positions

    def add(self, key: AtomKey) -> None:
        if key in self.keys:
            return
        self.keys.add(key)
        pred = key[0]
        self.by_pred[pred].add(key)
        for pos in self.positions.get(pred, ()):
            slot = (pred, pos, key[pos + 1])
            bucket = self.by_pos.get(slot)
            if bucket is None:
                self.by_pos[slot] = {key}
            else:
                bucket.add(key)

    def remove(self, key: AtomKey) -> None:
        if key not in self.keys:
            return
        self.keys.discard(key)
        pred = key[0]
        self.by_pred[pred].discard(key)
        for pos in self.positions.get(pred, ()):
            self.by_pos[(pred, pos, key[pos + 1])].discard(key)

    def update(self, keys: Iterable[AtomKey]) -> None:
        for key in keys:
            self.add(key)

    def index(self, pred: int, pos: int) -> None:
        """Index ``pred``'s atoms by position ``pos`` too (those held now and later)."""
        have = self.positions.get(pred, ())
        if pos in have:
            return
        self.positions = {**self.positions, pred: (*have, pos)}
        by_pos = self.by_pos
        for key in self.by_pred[pred]:
            by_pos.setdefault((pred, pos, key[pos + 1]), set()).add(key)


class JoinStats:
    """Size estimates for join ordering (from the initial state). A plain
    class, not a dataclass: making the class is part of a lifted session's
    first listing, and making a dataclass costs a cold process ~0.3 ms."""

    __slots__ = ("distinct", "size")

    def __init__(self, size: tuple[float, ...], distinct: dict[tuple[int, int], float]) -> None:
        self.size = size
        """Expected atoms of each predicate in a state."""
        self.distinct = distinct
        """Expected distinct objects at (predicate, position)."""

    @staticmethod
    def of(lifted: LiftedTask) -> JoinStats:
        size = [0.0] * len(lifted.predicates)
        seen: dict[tuple[int, int], set[int]] = {}
        by_pred: dict[int, list[AtomKey]] = {}
        for key in lifted.init:
            by_pred.setdefault(key[0], []).append(key)
        for pred, keys in by_pred.items():
            size[pred] = float(len(keys))
            for pos in range(len(keys[0]) - 1):
                seen[(pred, pos)] = {key[pos + 1] for key in keys}
        for pred in range(len(size)):
            if size[pred] == 0 and pred in lifted.derived_predicates:  # nothing known: its typed size
                arity = lifted.predicate_arity[pred]
                size[pred] = float(len(lifted.objects)) ** arity
        distinct = {k: float(len(v)) for k, v in seen.items()}
        return JoinStats(tuple(max(s, 1.0) for s in size), distinct)

    def estimate(self, pred: int, bound_positions: Iterable[int]) -> float:
        best = 1.0
        for pos in bound_positions:
            best = max(best, self.distinct.get((pred, pos), 1.0))
        return self.size[pred] / best


def _key(pred: int, args: tuple[int, ...], var: dict[int, str]) -> str:
    return f"({', '.join([str(pred), *[var[a] if a >= 0 else str(~a) for a in args]])},)"


def join_source(schema: Schema, static: frozenset[int], stats: JoinStats, *, name: str, params: str,
                emit: list[str], trigger: int | None = None,
                used: dict[tuple[bool, int], set[int]] | None = None) -> str:
    """Source of ``def name(params)``: every binding of ``schema``'s
    parameters under which its positive atoms hold (static ones in ``SK``,
    ``SP``, ``SX``; fluent ones in ``FK``, ``FP``, ``FX``, the fields of two
    :class:`Relations`), its parameters have their types (``d<i>``,
    ``D<i>``), and its equalities, inequalities and negative literals hold.
    Then the ``emit`` lines run with the objects in ``v<i>`` (and ``a``, the
    tuple of all of them). With ``trigger``, the positive atom of that index
    is the parameter ``key`` (semi-naive evaluation). ``used`` collects the
    ``(static?, predicate) -> positions`` looked up, for :class:`Relations`.
    Every loop counts its iterations down ``left[0]`` before it runs and
    calls ``tick()`` when it goes below zero (the caller's work limit)."""
    var: dict[int, str] = {}
    lines = [f"def {name}({params}):"]
    depth = [1]
    # filters, tested as soon as their variables are bound: (variables, kind, payload)
    checks: list[tuple[frozenset[int], str, object]] = []
    for t in schema.neg:
        checks.append((frozenset(a for a in t[1] if a >= 0), "SK" if t[0] in static else "FK", t))
    for kind, pairs in (("==", schema.eq), ("!=", schema.neq)):
        for x, y in pairs:
            checks.append((frozenset(a for a in (x, y) if a >= 0), kind, (x, y)))

    def term(a: int) -> str:
        return var[a] if a >= 0 else str(~a)

    def condition(kind: str, payload: Any) -> str:
        if kind in ("==", "!="):
            x, y = payload
            return f"{term(x)} {kind} {term(y)}"
        pred, args = payload
        return f"{_key(pred, args, var)} not in {kind}"

    def fail() -> str:
        return "return" if depth[0] == 1 else "continue"

    def line(text: str) -> None:
        lines.append("    " * depth[0] + text)

    def flush() -> None:
        bound = set(var)
        keep = []
        for need, kind, payload in checks:
            if need <= bound:
                line(f"if not ({condition(kind, payload)}): {fail()}")
            else:
                keep.append((need, kind, payload))
        checks[:] = keep

    def bind(source: str, args: tuple[int, ...], skip: int | None) -> None:
        """Unify atom variable ``source`` with template ``args``."""
        for j, a in enumerate(args):
            if j == skip:
                continue
            if a < 0:
                line(f"if {source}[{j + 1}] != {~a}: {fail()}")
            elif a in var:
                line(f"if {source}[{j + 1}] != {var[a]}: {fail()}")
            else:
                var[a] = f"v{a}"
                line(f"v{a} = {source}[{j + 1}]")
                if schema.domain_sets[a] is not None:
                    line(f"if v{a} not in d{a}: {fail()}")

    remaining = list(enumerate(schema.pre))
    if trigger is not None:
        _, (pred, args) = remaining.pop(trigger)
        bind("key", args, None)
    flush()
    count = 0
    while remaining:
        def score(item: tuple[int, Template]) -> tuple[int, float, int]:
            pred, args = item[1]
            free = [a for a in args if a >= 0 and a not in var]
            if not free:
                return (0, 0.0, item[0])
            bound = [pos for pos, a in enumerate(args) if a < 0 or a in var]
            return (1, stats.estimate(pred, bound), item[0])

        best = min(remaining, key=score)
        remaining.remove(best)
        pred, args = best[1]
        is_static = pred in static
        keys, by_pred, by_pos = ("SK", "SP", "SX") if is_static else ("FK", "FP", "FX")
        if all(a < 0 or a in var for a in args):
            line(f"if {_key(pred, args, var)} not in {keys}: {fail()}")
            flush()
            continue
        bound = [pos for pos, a in enumerate(args) if a < 0 or a in var]
        cand = f"c{count}"
        count += 1
        if bound:
            pos = max(bound, key=lambda p: stats.distinct.get((pred, p), 1.0))
            a = args[pos]
            value = term(a)
            if used is not None:
                used.setdefault((is_static, pred), set()).add(pos)
            line(f"{cand}s = {by_pos}.get(({pred}, {pos}, {value}), ())")
            skip: int | None = pos
        else:
            line(f"{cand}s = {by_pred}[{pred}]")
            skip = None
        line(f"left[0] -= len({cand}s)")  # the loop's steps, counted before it runs
        line("if left[0] < 0: tick()")
        line(f"for {cand} in {cand}s:")
        depth[0] += 1
        bind(cand, args, skip)
        flush()
    for i in range(schema.arity):
        if i not in var:
            line(f"left[0] -= len(D{i})")
            line("if left[0] < 0: tick()")
            line(f"for v{i} in D{i}:")
            depth[0] += 1
            var[i] = f"v{i}"
            flush()
    assert not checks, checks
    line(f"a = ({', '.join(f'v{i}' for i in range(schema.arity))}{',' if schema.arity else ''})")
    for text in emit:
        line(text)
    return "\n".join(lines) + "\n"


def namespace(schema: Schema) -> dict[str, object]:
    """The type domains a :func:`join_source` function reads."""
    ns: dict[str, object] = {}
    for i, dom in enumerate(schema.domain_sets):
        ns[f"d{i}"] = dom
        ns[f"D{i}"] = schema.domains[i]
    return ns


class OrderedQuery:
    """The answers of one schema's query in the canonical order (parameter
    by parameter, each in object rank order), produced one at a time: the
    first page of applicable actions without the rest.

    Variable-at-a-time (generic join): parameter ``i``'s candidates are the
    values at its position(s) of the atoms matching what is bound (one atom
    generates them, the other atoms that still have unbound variables
    intersect their projections, the atoms ``i`` completes are membership
    tests), then its type, equalities and negative literals filter them.
    :meth:`needs` are the (static?, predicate) -> positions it looks up, for
    :class:`Relations`."""

    def __init__(self, schema: Schema, static: frozenset[int], stats: JoinStats, rank: list[int]) -> None:
        self.schema = schema
        n = schema.arity
        self.rank = rank
        self.needs: dict[tuple[bool, int], set[int]] = {}
        self.ground_pos: list[tuple[bool, AtomKey]] = []
        self.ground_neg: list[tuple[bool, AtomKey]] = []
        # per level: (generators/projections, membership tests, negative tests, (in)equalities)
        self.proj: list[list[tuple[bool, int, tuple[int, ...], tuple[tuple[int, int], ...], int | None]]] = \
            [[] for _ in range(n)]
        self.member: list[list[tuple[bool, int, tuple[int, ...]]]] = [[] for _ in range(n)]
        self.negs: list[list[tuple[bool, int, tuple[int, ...]]]] = [[] for _ in range(n)]
        self.pairs: list[list[tuple[bool, int, int]]] = [[] for _ in range(n)]
        for pred, args in schema.pre:
            st = pred in static
            vs = sorted({a for a in args if a >= 0})
            if not vs:
                self.ground_pos.append((st, (pred, *[~a for a in args])))
                continue
            last = vs[-1]
            for i in vs:
                if i == last and i != vs[0]:
                    self.member[i].append((st, pred, args))  # tested whole once its last variable is bound
                    continue
                ipos = tuple(p for p, a in enumerate(args) if a == i)
                bound = tuple((p, a) for p, a in enumerate(args) if a < 0 or a < i)
                look = None
                if bound:
                    look = max((p for p, _ in bound), key=lambda p: stats.distinct.get((pred, p), 1.0))
                    self.needs.setdefault((st, pred), set()).add(look)
                self.proj[i].append((st, pred, ipos, bound, look))
        for pred, args in schema.neg:
            vs = [a for a in args if a >= 0]
            item = (pred in static, pred, args)
            if vs:
                self.negs[max(vs)].append(item)
            else:
                self.ground_neg.append((pred in static, (pred, *[~a for a in args])))
        for eq, pairs in ((True, schema.eq), (False, schema.neq)):
            for x, y in pairs:
                vs = [a for a in (x, y) if a >= 0]
                if vs:
                    self.pairs[max(vs)].append((eq, x, y))
                elif (x == y) != eq:
                    self.ground_pos.append((True, (-1,)))  # never holds
        # the generating atom of a level first: one with a looked-up position, then the most selective
        for i in range(n):
            self.proj[i].sort(key=lambda t: (t[4] is None, stats.size[t[1]]))
        self.sorted_domains = [sorted(d, key=rank.__getitem__) for d in schema.domains]

    def answers(self, rels: tuple[Relations, Relations], left: list[int], tick: Any) -> Any:
        """Yield each answer (the tuple of objects) in canonical order;
        ``rels`` are the (fluent, static) relations; every candidate looked
        at counts down ``left[0]`` (``tick()`` below zero)."""
        for st, key in self.ground_pos:
            if key not in rels[st].keys:
                return
        for st, key in self.ground_neg:
            if key in rels[st].keys:
                return
        schema, rank = self.schema, self.rank
        n = schema.arity
        if n == 0:
            yield ()
            return
        vals = [0] * n

        def term(a: int) -> int:
            return vals[a] if a >= 0 else ~a

        def key_of(pred: int, args: tuple[int, ...]) -> AtomKey:
            return (pred, *[vals[a] if a >= 0 else ~a for a in args])

        def candidates(i: int) -> list[int]:
            found: set[int] | None = None
            for st, pred, ipos, bound, look in self.proj[i]:
                rel = rels[st]
                if look is not None:
                    bucket: Iterable[AtomKey] = rel.by_pos.get((pred, look, term(dict(bound)[look])), ())
                else:
                    bucket = rel.by_pred[pred]
                want = [(p + 1, term(a)) for p, a in bound]
                first, rest = ipos[0] + 1, [q + 1 for q in ipos[1:]]
                vs: set[int] = set()
                count = 0
                for key in bucket:
                    count += 1
                    for p, v in want:
                        if key[p] != v:
                            break
                    else:
                        v = key[first]
                        if all(key[q] == v for q in rest):
                            vs.add(v)
                left[0] -= count
                if left[0] < 0:
                    tick()
                found = vs if found is None else found & vs
                if not found:
                    return []
            if found is None:
                return self.sorted_domains[i]
            allowed = schema.domain_sets[i]
            if allowed is not None:
                found &= allowed
            return sorted(found, key=rank.__getitem__)

        def ok(i: int) -> bool:
            for st, pred, args in self.member[i]:
                if key_of(pred, args) not in rels[st].keys:
                    return False
            for st, pred, args in self.negs[i]:
                if key_of(pred, args) in rels[st].keys:
                    return False
            for eq, x, y in self.pairs[i]:
                if (term(x) == term(y)) != eq:
                    return False
            return True

        # an explicit stack of candidate lists (no recursion: one generator frame)
        stack = [iter(candidates(0))]
        while stack:
            i = len(stack) - 1
            for v in stack[-1]:
                left[0] -= 1
                if left[0] < 0:
                    tick()
                vals[i] = v
                if not ok(i):
                    continue
                if i + 1 == n:
                    yield tuple(vals)
                    continue
                stack.append(iter(candidates(i + 1)))
                break
            else:
                stack.pop()
