"""Partial observability: rules that hide atoms of the true state from the agent.

A session with an observation (``Session(..., observation="blocksworld-top2")``)
still executes on the true state and checks the goal on it; only what it shows
of states is filtered: :meth:`Session.state_atoms`, :meth:`Session.observe`,
the added and deleted atoms of a step (the conditional effects that fired are
not reported at all: their conditions may name hidden atoms). Which actions are applicable is decided
on the true state (the engine executes there), so the applicable-action list
and the unsatisfied preconditions of a failed step are not filtered: an
experiment that wants the agent blind to them should not offer those tools.

The rule language, rules separated by ``;`` (or given as a list)::

    hide PRED [ARG ...]      hide the atoms of PRED whose arguments match; an ARG
                             is an object name or a wildcard (? or ?x); missing
                             trailing arguments match anything
    stack-top N [PRED]       stacks built by the binary PRED (x is on y; default
                             'on'): every atom that names an object N or more
                             places below the top of its stack is hidden
    blocksworld-top2         the Blocksworld-MCP benchmark's fifth category
                             (only the top two blocks of a stack are visible):
                             'stack-top 2 on'

Names are matched without regard to case. An object below the visible part of
a stack disappears from every atom; the agent still sees that the lowest
visible block is on something (it is neither on the table nor held).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .errors import ErrorCode, ObservationRuleError
from .lifted import AtomKey, LiftedTask
from .task import State, StepSpace

__all__ = ["NAMED_RULES", "Observation", "compile_observation"]

NAMED_RULES: dict[str, str] = {"blocksworld-top2": "stack-top 2 on"}
"""Named rules and the rule text each stands for."""

MAX_RULE_TEXT = 2000


class Observation:
    """Compiled rules for one task (see :func:`compile_observation`). The
    atom ids each rule covers are found as atoms get ids, so the rules work
    on a lifted backend too, whose atoms are interned as they are met."""

    __slots__ = ("_fixed", "_hide", "_seen", "_stack_atoms", "_stack_rules", "atoms", "text")

    def __init__(self, text: str, hide: tuple[tuple[int, tuple[int | None, ...]], ...],
                 stacks: tuple[tuple[int, int], ...], atoms: Sequence[AtomKey]) -> None:
        self.text = text
        """The rules, normalised (named rules expanded), separated by ``; ``."""
        self._hide = hide
        self._stack_rules = stacks
        self.atoms = atoms
        self._seen = 0
        self._fixed: set[int] = set()
        self._stack_atoms: list[set[int]] = [set() for _ in stacks]

    def _refresh(self) -> None:
        atoms, n = self.atoms, len(self.atoms)
        for i in range(self._seen, n):
            key = atoms[i]
            if any(key[0] == pred and _matches(key[1:], args) for pred, args in self._hide):
                self._fixed.add(i)
            for j, (pred, _) in enumerate(self._stack_rules):
                if key[0] == pred:
                    self._stack_atoms[j].add(i)
        self._seen = n

    @property
    def fixed(self) -> frozenset[int]:
        """Atom ids hidden in every state (the ``hide`` rules)."""
        self._refresh()
        return frozenset(self._fixed)

    def hidden(self, state: Iterable[int]) -> frozenset[int]:
        """The atoms of ``state`` the rules hide."""
        self._refresh()
        state = state if isinstance(state, frozenset) else frozenset(state)
        out = set(state.intersection(self._fixed))
        for on_atoms, (_, depth) in zip(self._stack_atoms, self._stack_rules, strict=True):
            deep = _deep_objects(self.atoms, state.intersection(on_atoms), depth)
            if deep:
                atoms = self.atoms
                out.update(i for i in state if not deep.isdisjoint(atoms[i][1:]))
        return frozenset(out)

    def visible(self, state: State) -> State:
        """``state`` without the atoms the rules hide."""
        hidden = self.hidden(state)
        return state - hidden if hidden else state


def _deep_objects(atoms: Sequence[AtomKey], on_atoms: frozenset[int], depth: int) -> set[int]:
    """The objects ``depth`` or more places below the top of their stack, given the 'on' atoms that hold."""
    below: dict[int, int] = {}
    for i in on_atoms:
        key = atoms[i]
        below[key[1]] = key[2]
    supports = set(below.values())
    deep: set[int] = set()
    for top in below:
        if top in supports:
            continue
        x, d = top, 0
        while x in below and d <= len(below):  # the bound guards against a cyclic 'on' relation
            x, d = below[x], d + 1
            if d >= depth:
                deep.add(x)
    return deep


def compile_observation(rules: str | Iterable[str], task: StepSpace) -> Observation:
    """Parse and check observation ``rules`` against ``task``; raises
    :class:`ObservationRuleError` (``BAD_OBSERVATION_RULE``) with a hint."""
    parts = [rules] if isinstance(rules, str) else list(rules)
    if sum(len(p) for p in parts) > MAX_RULE_TEXT:
        raise _bad(f"the observation rules are longer than {MAX_RULE_TEXT} characters")
    lifted = task.lifted
    hide: list[tuple[int, tuple[int | None, ...]]] = []
    stacks: list[tuple[int, int]] = []
    texts: list[str] = []
    for rule in (r.strip() for p in parts for r in p.split(";")):
        if not rule:
            continue
        words = NAMED_RULES.get(rule.lower(), rule).split()
        kind = words[0].lower()
        if kind == "hide":
            pred, args = _predicate(lifted, words[1:], rule)
            hide.append((pred, args))
        elif kind == "stack-top":
            if len(words) not in (2, 3) or not words[1].isdigit() or int(words[1]) < 1:
                raise _bad(f"'{rule}' needs a depth of 1 or more and at most one predicate",
                           "e.g. 'stack-top 2' or 'stack-top 2 on'")
            pred, _ = _predicate(lifted, words[2:] or ["on"], rule)
            if lifted.predicate_arity[pred] != 2:
                raise _bad(f"'{rule}': the stack predicate must take two arguments (x is on y)")
            stacks.append((pred, int(words[1])))
        else:
            named = ", ".join(NAMED_RULES)
            raise _bad(f"unknown observation rule '{rule[:80]}'",
                       f"a rule is 'hide PRED [ARG ...]', 'stack-top N [PRED]' or one of: {named}")
        texts.append(" ".join(words))
    return Observation("; ".join(texts), tuple(hide), tuple(stacks), task.atoms)


def _predicate(lifted: LiftedTask, words: list[str], rule: str) -> tuple[int, tuple[int | None, ...]]:
    if not words:
        raise _bad(f"'{rule}' names no predicate", "e.g. 'hide holding'")
    pred = lifted.predicate_index.get(words[0].lower())
    if pred is None:
        names = ", ".join(sorted(lifted.predicate_display))
        raise _bad(f"observation rule '{rule[:80]}': no predicate '{words[0][:40]}'", f"the predicates are: {names}")
    if len(words) - 1 > lifted.predicate_arity[pred]:
        raise _bad(f"observation rule '{rule[:80]}': '{words[0]}' takes {lifted.predicate_arity[pred]} argument(s)")
    args: list[int | None] = []
    for w in words[1:]:
        if w.startswith("?"):
            args.append(None)
            continue
        oid = lifted.object_index.get(w.lower())
        if oid is None:
            raise _bad(f"observation rule '{rule[:80]}': no object '{w[:40]}'", "use an object name or ? for any")
        args.append(oid)
    return pred, tuple(args)


def _matches(key_args: tuple[int, ...], pattern: tuple[int | None, ...]) -> bool:
    return all(p is None or p == a for p, a in zip(pattern, key_args, strict=False))


def _bad(message: str, hint: str | None = None) -> ObservationRuleError:
    return ObservationRuleError(message, code=ErrorCode.BAD_OBSERVATION_RULE, hint=hint)
