"""Reply size budgets: every reply fits in a number of characters an LLM can read.

A reply's text is its model as compact JSON (:func:`.tools.reply`). When it is
longer than the budget (the server's ``reply_budget``, a session's, or a
call's), :func:`fit` shortens its long collections (static facts, state atoms,
objects, goal, a step's diff), least needed first: each keeps the first items
of every group (predicate or type), as many per group as fit, and the reply's
``omitted`` says per field how many it shows, how many it left out per group,
and how to page the rest (``query_current_state`` with ``part``, ``group``
and ``offset``). A page that is itself too long is cut at the end
(:func:`prefix`): its ``next_offset`` continues it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from . import models as m
from .names import STATE

__all__ = ["DEFAULT_BUDGET", "MIN_BUDGET", "TRIMMED", "fit", "flatten", "prefix", "regroup", "size"]

DEFAULT_BUDGET = 25_000
"""Characters of one reply by default (the server's ``reply_budget``)."""
MIN_BUDGET = 2_000
"""The smallest budget a session or call may ask for."""

M = TypeVar("M", bound=BaseModel)

Items = dict[str, list[str]] | list[str]

_PAGE = {
    "static_facts": f"{STATE}(part='static', group=PREDICATE, offset=N)",
    "state": f"{STATE}(group=PREDICATE, offset=N)",
    "objects": f"{STATE}(part='objects', group=TYPE, offset=N)",
    "goal": f"{STATE}(part='goal', offset=N)",
    "added": f"{STATE}(group=PREDICATE) for the state after the step",
    "deleted": f"{STATE}(group=PREDICATE) for the state after the step",
    "undone": "not kept after the undo: undo fewer steps at once to see each",
}
"""How to page each field that :func:`fit` may shorten."""

TRIMMED: dict[type, tuple[str, ...]] = {
    m.SessionSummary: ("static_facts", "goal", "objects"),
    m.StateView: ("state",),
    m.StepOutcome: ("state", "deleted", "added"),
    m.ResetOutcome: ("state",),
    m.UndoOutcome: ("state", "deleted", "added", "undone"),
}
"""The fields :func:`fit` may shorten, per reply model, the first first."""


def size(model: BaseModel) -> int:
    """The length of a reply's text (as :func:`.tools.reply` writes it)."""
    data = model.model_dump(mode="json", exclude_none=True)
    return len(json.dumps(data, separators=(",", ":"), ensure_ascii=False))


def _group(text: str) -> str:
    """The predicate of a flat atom ``(on a b)`` (``not`` for a negated one)."""
    head = text.lstrip("(").split(" ", 1)[0]
    return head.rstrip(")")


def flatten(items: Items) -> list[tuple[str, str]]:
    """``(group, item)`` pairs in order: a grouped rendering's groups, or a flat list's atoms by predicate."""
    if isinstance(items, dict):
        return [(g, x) for g, xs in items.items() for x in xs]
    return [(_group(x), x) for x in items]


def regroup(pairs: list[tuple[str, str]], grouped: bool) -> Items:
    """The inverse of :func:`flatten` (grouped or flat)."""
    if not grouped:
        return [x for _, x in pairs]
    out: dict[str, list[str]] = {}
    for g, x in pairs:
        out.setdefault(g, []).append(x)
    return out


def _cap(items: Items, per_group: int) -> tuple[Items, dict[str, int], int]:
    """The first ``per_group`` items of each group, what was left out per group, and how many are shown."""
    kept: list[tuple[str, str]] = []
    left: dict[str, int] = {}
    seen: dict[str, int] = {}
    for g, x in flatten(items):
        n = seen.get(g, 0)
        seen[g] = n + 1
        if n < per_group:
            kept.append((g, x))
        else:
            left[g] = left.get(g, 0) + 1
    return regroup(kept, isinstance(items, dict)), left, len(kept)


def fit(model: M, budget: int) -> M:
    """``model`` within ``budget`` characters (see the module docstring); unchanged when it fits."""
    if size(model) <= budget:
        return model
    fields = TRIMMED.get(type(model), ())
    omitted: dict[str, m.Omitted] = {}
    for name in fields:
        items = getattr(model, name, None)
        if not items:
            continue
        groups: dict[str, int] = {}
        for g, _ in flatten(items):
            groups[g] = groups.get(g, 0) + 1

        def attempt(per_group: int, name: str = name, items: Items = items) -> BaseModel:
            shown, left, count = _cap(items, per_group)
            note = dict(omitted)
            if left:
                note[name] = m.Omitted(shown=count, left_out=sum(left.values()), by_group=left, page=_PAGE[name])
            return model.model_copy(update={name: shown, "omitted": note or None})

        model = attempt(_largest(0, max(groups.values()), lambda k: size(attempt(k)) <= budget))  # type: ignore[assignment]
        omitted = dict(model.omitted or {})  # type: ignore[attr-defined]
        if size(model) <= budget:
            break
    return model


def prefix(build: Callable[[int], M], count: int, budget: int) -> tuple[M, int]:
    """The reply ``build(k)`` of the most items ``k <= count`` that fits in
    ``budget`` (at least one item, so that paging always moves on), and ``k``."""
    reply = build(count)
    if size(reply) <= budget or count <= 1:
        return reply, count
    k = _largest(1, count - 1, lambda k: size(build(k)) <= budget)
    return build(k), k


def _largest(low: int, high: int, fits: Callable[[int], bool]) -> int:
    """The largest ``k`` in ``[low, high]`` with ``fits(k)`` (``fits`` falls as ``k`` grows), else ``low``."""
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def budget_of(*given: Any) -> int:
    """The first budget given (a call's, then a session's, then the server's)."""
    for b in given:
        if b is not None:
            return int(b)
    return DEFAULT_BUDGET
