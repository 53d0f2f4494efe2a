"""The type hierarchy of a domain: declared types, ancestors, compatibility."""

from __future__ import annotations

from collections.abc import Iterable

from .model import OBJECT_TYPE, Domain

__all__ = ["TypeTable"]


class TypeTable:
    """Types of one domain with their ancestor sets (each includes the type
    itself and ``object``). A type mentioned only as a parent in ``:types`` is
    declared by that mention, with parent ``object``; ``object`` is built in.

    Cycles must be reported by the checker before a table is used for
    subtype questions; :meth:`build` tolerates them (it stops at a repeat)."""

    __slots__ = ("ancestors", "parents")

    def __init__(self, parents: dict[str, tuple[str, ...]]) -> None:
        self.parents = parents
        self.ancestors: dict[str, frozenset[str]] = {}
        for name in parents:
            self.ancestors[name] = self._collect(name)
        self.ancestors[OBJECT_TYPE] = frozenset({OBJECT_TYPE})

    @classmethod
    def build(cls, domain: Domain) -> TypeTable:
        parents: dict[str, list[str]] = {}
        for decl in domain.types:
            if decl.name == OBJECT_TYPE:
                continue
            entry = parents.setdefault(decl.name, [])
            for parent in decl.parents:
                if parent not in entry:
                    entry.append(parent)
            for parent in decl.parents:
                if parent != OBJECT_TYPE:
                    parents.setdefault(parent, [])
        return cls({name: tuple(ps) or (OBJECT_TYPE,) for name, ps in parents.items()})

    def _collect(self, name: str) -> frozenset[str]:
        seen = {name, OBJECT_TYPE}
        stack = [name]
        while stack:
            for parent in self.parents.get(stack.pop(), ()):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return frozenset(seen)

    def __contains__(self, name: str) -> bool:
        return name in self.ancestors

    def names(self) -> list[str]:
        return sorted(self.ancestors)

    def ancestors_of(self, types: Iterable[str]) -> frozenset[str]:
        """The union of the ancestor sets of ``types`` (unknown types ignored)."""
        out: set[str] = set()
        for t in types:
            out |= self.ancestors.get(t, frozenset())
        return frozenset(out)

    def is_subtype(self, sub: str, sup: str) -> bool:
        return sup in self.ancestors.get(sub, frozenset())

    def fits(self, actual: tuple[str, ...], expected: tuple[str, ...]) -> bool:
        """An object declared with ``actual`` types may fill a slot typed
        ``expected`` (``either`` on either side: some pair is a subtype pair)."""
        return any(self.is_subtype(a, e) for a in actual for e in expected)

    def overlaps(self, actual: tuple[str, ...], expected: tuple[str, ...]) -> bool:
        """Some object could have both types: one is a subtype of the other.

        Used for variables, whose typing in IPC domains is often looser than
        the predicate's (a ``?x - locatable`` passed where a ``truck`` is
        expected); only incompatible types are an error there."""
        return any(self.is_subtype(a, e) or self.is_subtype(e, a) for a in actual for e in expected)

    def find_cycle(self) -> list[str] | None:
        """A list of types forming a cycle in the declared parents, if any."""
        state: dict[str, int] = {}
        path: list[str] = []

        def visit(name: str) -> list[str] | None:
            state[name] = 1
            path.append(name)
            for parent in self.parents.get(name, ()):
                if state.get(parent) == 1:
                    return [*path[path.index(parent) :], parent]
                if parent not in state:
                    found = visit(parent)
                    if found:
                        return found
            path.pop()
            state[name] = 2
            return None

        for name in self.parents:
            if name not in state:
                found = visit(name)
                if found:
                    return found
        return None
