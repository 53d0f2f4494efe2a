"""Relabelled domains: a consistently renamed copy of a domain and its problems.

For the memorisation test the paper proposes: the copy has the same structure
(every plan of the original, mapped, is a plan of the copy, and the other way
round), but no name a model could recognise. Predicates, actions, objects and
constants, types, functions, variables, the domain and the problems each get a
seeded name of a letter, a dash and hex digits with at least one digit
(``p-7f3a``), so no name is an English word. ``object``, ``number`` and
``total-cost`` keep their meaning and their names.

:func:`relabel` works on the parsed models (the one parser) and the caller
prints them with :mod:`pypddlengine.printer`; :class:`Relabelling` holds the
mapping, maps plan steps both ways and goes to and from JSON.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from typing import Any

from .errors import ActionReferenceError, ErrorCode, PDDLError
from .model import OBJECT_TYPE, ActionRef, Domain, Problem
from .printer import format_domain, format_problem
from .usercache import dataclass

__all__ = ["KINDS", "MAPPING_FILE", "MAPPING_SCHEMA", "Relabelling", "relabel", "relabelled_files"]

MAPPING_SCHEMA = "pypddl.relabel/1"
MAPPING_FILE = "mapping.json"
KINDS: dict[str, str] = {
    "domain": "d", "problems": "q", "predicates": "p", "actions": "a", "objects": "o", "types": "t",
    "functions": "f", "variables": "v",
}
"""Each kind of name and the letter its new names start with."""
KEEP = {"types": {OBJECT_TYPE, "number"}, "functions": {"total-cost"}}

# (node class name, field) -> the kind of name the field holds (a str or a tuple of str); by class name, so a
# class another branch adds (DerivedDecl, the head of an axiom) can be listed before it exists here
_NAME_FIELDS: dict[tuple[str, str], str] = {
    ("Atom", "predicate"): "predicates",
    ("Constant", "name"): "objects",
    ("Variable", "name"): "variables",
    ("Parameter", "name"): "variables",
    ("Parameter", "types"): "types",
    ("TypeDecl", "name"): "types",
    ("TypeDecl", "parents"): "types",
    ("ObjectDecl", "name"): "objects",
    ("ObjectDecl", "types"): "types",
    ("PredicateDecl", "name"): "predicates",
    ("DerivedDecl", "predicate"): "predicates",
    ("FunctionDecl", "name"): "functions",
    ("FunctionDecl", "result"): "types",
    ("FunctionTerm", "name"): "functions",
    ("ActionDecl", "name"): "actions",
    ("DurativeActionDecl", "name"): "actions",
    ("Domain", "name"): "domain",
    ("Problem", "name"): "problems",
    ("Problem", "domain_name"): "domain",
}
_SKIP = {"span", "source", "section_spans", "domain_span", "unsupported"}
NOT_NAMES: dict[str, tuple[str, ...]] = {
    "BinaryExpr": ("op",), "Compare": ("op",), "NumericEffect": ("op",), "Metric": ("direction",),
    "Preference": ("name",), "Requirement": ("name",), "UnsupportedConstruct": ("keyword",),
    "ActionRef": ("name", "args", "text"), "PlanStep": ("name", "args", "text"),
    "DurationConstraint": ("op", "at"), "TimedCondition": ("at",), "TimedEffect": ("at",),
    "DurativeActionDecl": ("duration",),  # nodes (walked), not a name: its type's text holds "str"
}
"""Text fields of the model that hold no name to relabel (keywords, operators;
plan steps are mapped by :meth:`Relabelling.map_step`). A test checks that
every text field of every model class is either here or renamed."""


@dataclass(frozen=True)
class Relabelling:
    """Original name -> new name, per kind (:data:`KINDS`), plus the seed."""

    seed: int
    names: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_inverse", {k: {v: o for o, v in m.items()} for k, m in self.names.items()})

    def new(self, kind: str, name: str) -> str:
        return self.names.get(kind, {}).get(name, name)

    def map_step(self, step: ActionRef, *, reverse: bool = False) -> str:
        """``step`` as PDDL text in the copy's names (the original's with
        ``reverse``). Raises :class:`ActionReferenceError` for a name the
        mapping does not know."""
        table: dict[str, dict[str, str]] = self._inverse if reverse else self.names  # type: ignore[attr-defined]
        side = "copy" if reverse else "original"
        action = table.get("actions", {}).get(step.name)
        if action is None:
            raise ActionReferenceError(f"the {side} domain has no action '{step.name[:80]}'",
                                       code=ErrorCode.UNKNOWN_ACTION, span=step.span,
                                       hint="map-plan --to-original maps a plan of the copy back")
        args = []
        for a in step.args:
            mapped = table.get("objects", {}).get(a)
            if mapped is None:
                raise ActionReferenceError(f"the {side} task has no object '{a[:80]}'", code=ErrorCode.UNKNOWN_OBJECT,
                                           span=step.span)
            args.append(mapped)
        return f"({' '.join([action, *args])})"

    def map_plan(self, steps: Iterable[ActionRef], *, reverse: bool = False) -> list[str]:
        return [self.map_step(s, reverse=reverse) for s in steps]

    def to_json(self) -> dict[str, Any]:
        return {"schema": MAPPING_SCHEMA, "seed": self.seed, **{k: dict(sorted(v.items())) for k, v in
                                                                 self.names.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Relabelling:
        """Read a mapping written by :meth:`to_json`; ``PDDLError``
        (``SYNTAX_ERROR``) when it is not one."""
        if not isinstance(data, Mapping) or data.get("schema") != MAPPING_SCHEMA:
            raise PDDLError(f"not a relabelling mapping (expected \"schema\": \"{MAPPING_SCHEMA}\")",
                            hint="give the mapping.json that 'pypddl relabel' wrote")
        names: dict[str, dict[str, str]] = {}
        for kind in KINDS:
            table = data.get(kind, {})
            if not isinstance(table, Mapping) or not all(isinstance(v, str) for v in (*table, *table.values())):
                raise PDDLError(f"the mapping's '{kind}' is not a table of names")
            names[kind] = dict(table)
        return cls(int(data.get("seed", 0)), names)


def relabel(domain: Domain, problems: Sequence[Problem], seed: int) -> tuple[Domain, list[Problem], Relabelling]:
    """The renamed copies of ``domain`` and ``problems`` and the mapping.

    Deterministic: the same models and seed give the same names (the names of
    each kind are drawn in sorted order from ``random.Random(seed)``)."""
    found: dict[str, set[str]] = {k: set() for k in KINDS}
    for model in (domain, *problems):
        _collect(model, found)
    rng = random.Random(seed)
    used: set[str] = set()
    names: dict[str, dict[str, str]] = {}
    for kind, letter in KINDS.items():
        keep = KEEP.get(kind, set())
        table = {}
        for name in sorted(found[kind]):
            table[name] = name if name in keep else _fresh(rng, letter, used, kind == "variables")
        names[kind] = table
    mapping = Relabelling(seed, names)
    return _rename(domain, mapping), [_rename(p, mapping) for p in problems], mapping


def relabelled_files(domain: tuple[str, Domain], problems: Sequence[tuple[str, Problem]],
                     seed: int) -> tuple[dict[str, str], Relabelling]:
    """The files of a relabelled copy, by name: ``domain.pddl``, one
    ``<new problem name>.pddl`` per problem (``-2``, ``-3`` ... when names
    repeat) and :data:`MAPPING_FILE`, which also records which original file
    became which. ``domain`` and ``problems`` are ``(file name, model)``
    pairs. Pure: the caller writes the files."""
    new_domain, new_problems, mapping = relabel(domain[1], [p for _, p in problems], seed)
    out = {"domain.pddl": format_domain(new_domain)}
    names: dict[str, str] = {}
    for (source, _), problem in zip(problems, new_problems, strict=True):
        target, n = f"{problem.name}.pddl", 1
        while target in out:
            n += 1
            target = f"{problem.name}-{n}.pddl"
        out[target] = format_problem(problem)
        names[source] = target
    files = {"domain": {"from": domain[0], "to": "domain.pddl"}, "problems": names}
    out[MAPPING_FILE] = json.dumps({**mapping.to_json(), "files": files}, indent=1) + "\n"
    return out, mapping


def _fresh(rng: random.Random, letter: str, used: set[str], variable: bool) -> str:
    digits = 4
    while True:
        for _ in range(64):
            text = f"{rng.getrandbits(4 * digits):0{digits}x}"
            name = f"{'?' if variable else ''}{letter}-{text}"
            if any(c.isdigit() for c in text) and name not in used:
                used.add(name)
                return name
        digits += 2  # crowded: longer names


def _fields(node: Any) -> Iterable[tuple[str, Any]]:
    for f in dataclasses.fields(node):
        if f.name not in _SKIP and f.name != "display":
            yield f.name, getattr(node, f.name)


def _collect(node: Any, found: dict[str, set[str]]) -> None:
    if isinstance(node, tuple):
        for item in node:
            _collect(item, found)
        return
    if not dataclasses.is_dataclass(node):
        return
    for name, value in _fields(node):
        kind = _NAME_FIELDS.get((type(node).__name__, name))
        if kind is not None:
            found[kind].update(value if isinstance(value, tuple) else (value,))
        else:
            _collect(value, found)


def _rename(node: Any, mapping: Relabelling) -> Any:
    if isinstance(node, tuple):
        return tuple(_rename(item, mapping) for item in node)
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return node
    changes: dict[str, Any] = {}
    for name, value in _fields(node):
        kind = _NAME_FIELDS.get((type(node).__name__, name))
        if kind is not None:
            changes[name] = (tuple(mapping.new(kind, v) for v in value) if isinstance(value, tuple)
                             else mapping.new(kind, value))
        else:
            changes[name] = _rename(value, mapping)
    if any(f.name == "display" for f in dataclasses.fields(node)):
        changes["display"] = ""
    return dataclasses.replace(node, **changes)
