"""ACPBench's natural-language questions read back into PDDL.

ACPBench's boolean and multiple-choice files carry no PDDL: each question
describes its task in plain language (a ``context``: the objects, the state
and, for most tasks, the goal) and names atoms, actions and plans in plain
language too. Each of its domains is written with fixed phrasings; this module
holds a table of them per domain (:data:`DOMAINS`) and reads a context back
into a PDDL problem (:func:`read_context`) and the question's items back into
PDDL atoms and actions (:func:`read_atoms`, :func:`read_action`,
:func:`read_plan`). The domain's PDDL is not in the question: it comes from a
generative question of the same domain (:func:`domain_sources`). Text that
fits no phrasing of the table raises :class:`NotRead` with the text, never a
guess.

:func:`answer_nl` answers a boolean (``yes``/``no``) or multiple-choice
(a letter) question with :class:`pypddlengine.exam.ExamTask`.
"""

from __future__ import annotations

import glob
import heapq
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ErrorCode, PDDLError
from .exam import ExamTask, SearchLimit
from .step import GroundAction

__all__ = ["DOMAINS", "NotRead", "Reading", "answer_nl", "detect_domain", "domain_sources", "read_context"]


class NotRead(Exception):
    """Text that fits none of the known phrasings (the question stays unanswered)."""


# ---------------------------------------------------------------------- the phrasings

_OBJ = r"\b(?!and\b)[\w\-]+"


@dataclass(frozen=True)
class Phrase:
    """One phrasing of an atom or action: ``head`` is the PDDL name,
    ``params`` the parameter names in PDDL order (a parameter may be computed
    from the others by the domain's ``derive``), ``regex`` the phrase."""

    head: str
    params: tuple[str, ...]
    regex: re.Pattern[str]
    text: str


def _compile(signature: str, phrase: str) -> Phrase:
    """``signature`` like ``(sail ?from ?to)``; ``phrase`` with ``?name``
    where each argument stands (a name may stand twice: the same object)."""
    head, *params = signature.strip("()").split()
    names: dict[str, str] = {}
    out: list[str] = []
    pos = 0
    for m in re.finditer(r"\?[\w\-]+", phrase):
        out.append(re.escape(phrase[pos:m.start()]))
        key = m.group(0)
        if key in names:
            out.append(f"(?P={names[key]})")
        else:
            names[key] = "v_" + re.sub(r"\W", "_", key[1:])
            out.append(f"(?P<{names[key]}>{_OBJ})")
        pos = m.end()
    out.append(re.escape(phrase[pos:]))
    regex = re.compile("".join(out).replace(r"\ ", r"\s+"), re.IGNORECASE)
    return Phrase(head, tuple(names.get(p, "v_" + re.sub(r"\W", "_", p[1:])) for p in params), regex, phrase)


@dataclass
class Domain:
    """One ACPBench domain: how its contexts begin, its phrasings, and how its
    state sentences read (``read``: the context before the goal -> objects
    with their types and the atoms of the state, statics included)."""

    key: str
    starts: tuple[str, ...]
    atoms: list[Phrase]
    actions: list[Phrase]
    decoys: list[re.Pattern[str]]
    read: Callable[[_Text], tuple[dict[str, str], set[tuple[str, ...]]]]
    derive: Callable[[dict[str, str]], dict[str, str]] = field(default=lambda g: {})
    placed: Mapping[str, Sequence[tuple[str, int]]] = field(default_factory=dict)
    """A check of a reading: every object of the type is an argument (at the
    position) of one of these atoms of the state (a car is somewhere or on board, ...)."""


def _table(rows: Iterable[tuple[str, Sequence[str]]]) -> list[Phrase]:
    return [_compile(sig, p) for sig, phrases in rows for p in phrases]


def _decoys(phrases: Iterable[str]) -> list[re.Pattern[str]]:
    return [_compile("(decoy)", p).regex for p in phrases]


# ---------------------------------------------------------------------- reading helpers


def _names(text: str) -> list[str]:
    """The objects of a list such as ``c1, c2, and c3``."""
    return [w for w in re.findall(_OBJ, text) if w.lower() != "and"]


class _Text:
    """A context's text and the spans its domain's reader has read: what is
    left unread must hold no object name (else a fact would be lost)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans: list[tuple[int, int]] = []

    def search(self, pattern: str, pos: int = 0, endpos: int | None = None) -> re.Match[str] | None:
        m = re.compile(pattern).search(self.text, pos, len(self.text) if endpos is None else endpos)
        if m is not None:
            self.spans.append(m.span())
        return m

    def need(self, pattern: str, pos: int = 0) -> re.Match[str]:
        m = self.search(pattern, pos)
        if m is None:
            raise NotRead(f"the context has no sentence like {pattern!r}")
        return m

    def findall(self, pattern: str, pos: int = 0, endpos: int | None = None) -> list[Any]:
        """As :func:`re.findall` from ``pos``, the matches read."""
        out: list[Any] = []
        for m in re.compile(pattern).finditer(self.text, pos, len(self.text) if endpos is None else endpos):
            self.spans.append(m.span())
            groups = m.groups()
            out.append(m.group(0) if not groups else groups[0] if len(groups) == 1 else groups)
        return out

    def sections(self, pattern: str, pos: int = 0) -> list[tuple[re.Match[str], int]]:
        """Each match of ``pattern`` (read) with where its sentence ends (the
        next period): the sentence's rest is for :meth:`findall` to read."""
        out = []
        for m in re.compile(pattern).finditer(self.text, pos):
            self.spans.append(m.span())
            end = self.text.find(".", m.end())
            out.append((m, len(self.text) if end < 0 else end))
        return out

    def count(self, noun: str) -> int:
        m = self.search(rf"\b(\d+) {noun}\b")
        if m is None:
            raise NotRead(f"no count of {noun} in the context")
        return int(m.group(1))

    def now(self) -> int:
        """Where the state's fluents begin (after "Currently,")."""
        at = self.text.find("Currently,")
        if at < 0:
            raise NotRead("the context has no 'Currently,' sentence")
        return at + len("Currently,")

    def grid(self) -> tuple[int, int]:
        m = self.need(r"grid size is (\d+)x(\d+)")
        return int(m.group(1)), int(m.group(2))

    def unread(self) -> list[str]:
        """The object-like words (with a digit) outside the spans read and the examples "(e.g., ...)"."""
        masked = list(self.text)
        for m in re.finditer(r"\(e\.g\.,[^)]*\)", self.text):
            self.spans.append(m.span())
        for start, end in self.spans:
            masked[start:end] = " " * (end - start)
        return re.findall(r"[\w\-]*\d[\w\-]*", "".join(masked))


_LIST = rf"((?:{_OBJ}, )*(?:{_OBJ},? and )?{_OBJ})"


def _neighbours(cells: Iterable[tuple[int, int]]) -> Iterable[tuple[tuple[int, int], tuple[int, int]]]:
    have = set(cells)
    for (i, j) in sorted(have):
        for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if (i + di, j + dj) in have:
                yield (i, j), (i + di, j + dj)


# ---------------------------------------------------------------------- ferry


def _read_ferry(t: _Text) -> tuple[dict[str, str], set[tuple[str, ...]]]:
    objects = {f"l{i}": "location" for i in range(t.count("locations?"))}
    objects.update({f"c{i}": "car" for i in range(t.count("cars?"))})
    init: set[tuple[str, ...]] = {("not-eq", a, b) for a in objects for b in objects
                                  if a != b and objects[a] == objects[b] == "location"}
    m = t.need(rf"the ferry is at ({_OBJ})(?: location)?(,? and it is empty|, with the car ({_OBJ}) on board)")
    init.add(("at-ferry", m.group(1)))
    init.add(("on", m.group(3)) if m.group(3) else ("empty-ferry",))
    cars = t.search(r"The cars are at locations as follows:")
    if cars is not None:
        for group, loc in t.findall(rf"{_LIST} (?:is|are) at ({_OBJ})", cars.end()):
            init.update(("at", c, loc) for c in _names(group))
    return objects, init


FERRY = Domain(
    "ferry", ("This is a ferry domain",),
    _table([
        ("(at-ferry ?l)", ["The ferry is at ?l location"]),
        ("(at ?c ?l)", ["Car ?c is at location ?l"]),
        ("(empty-ferry)", ["The ferry is empty", "There are no cars on the ferry"]),
        ("(on ?c)", ["Car ?c is on board the ferry", "Car ?c is on the ferry", "Ferry has car ?c on board"]),
    ]),
    _table([
        ("(sail ?from ?to)", ["sail from location ?from to location ?to",
                              "travel by sea from location ?from to location ?to"]),
        ("(board ?car ?loc)", ["board car ?car at location ?loc", "board the car ?car at location ?loc",
                               "board the car ?car at location ?loc on to the ferry",
                                   "board the car ?car at the location ?loc",
                               "embark the car ?car at location ?loc on to the ferry",
                               "load the car ?car at location ?loc on to the ferry"]),
        ("(debark ?car ?loc)", ["debark car ?car to location ?loc from the ferry",
                                "debark the car ?car from the ferry to location ?loc",
                                "debark the car ?car to location ?loc from the ferry",
                                "unload the car ?car from the ferry to location ?loc"]),
    ]),
    _decoys(["embark the car ?a at location ?b into the airplane"]),
    _read_ferry,
    placed={"car": (("at", 1), ("on", 1))},
)


# ---------------------------------------------------------------------- logistics


def _read_logistics(t: _Text) -> tuple[dict[str, str], set[tuple[str, ...]]]:
    objects = {f"t{i}": "truck" for i in range(t.count("trucks?"))}
    objects.update({f"a{i}": "airplane" for i in range(t.count("airplanes?"))})
    objects.update({f"p{i}": "package" for i in range(t.count("packages?"))})
    objects.update({f"c{i}": "city" for i in range(t.count("cit(?:y|ies)"))})
    init: set[tuple[str, ...]] = set()
    cities = t.sections(r"The locations are in cities as follows:")
    for group, city in (g for m, end in cities for g in t.findall(rf"{_LIST} (?:is|are) in ({_OBJ})", m.end(), end)):
        for loc in _names(group):
            # ACPBench names locations l<city>-<n>; l<city>-0 is the city's airport (checked against every
            # generative question's PDDL by the tests)
            objects[loc] = "airport" if loc.endswith("-0") else "location"
            init.add(("in-city", loc, city))
    if t.count("locations?(?= across)") != sum(kind in ("airport", "location") for kind in objects.values()):
        raise NotRead("the locations in cities are not as many as the context counts")
    now = t.now()
    for group, rel, where in t.findall(rf"{_LIST} (?:is|are) (at|in) ({_OBJ})", now):
        init.update((rel, o, where) for o in _names(group))
    return objects, init


LOGISTICS = Domain(
    "logistics", ("There are several cities, each containing several locations",),
    _table([("(at ?obj ?loc)", ["?obj is at ?loc"]), ("(in ?obj1 ?obj2)", ["?obj1 is in ?obj2"])]),
    _table([
        ("(load-truck ?obj ?truck ?loc)", ["load object ?obj into truck ?truck at location ?loc",
                                           "load the object ?obj from location ?loc into the truck ?truck",
                                           "place the object ?obj into the truck ?truck at location ?loc"]),
        ("(load-airplane ?obj ?airplane ?loc)", ["load object ?obj into airplane ?airplane at location ?loc",
                                                 "load the object ?obj from location ?loc into the airplane ?airplane",
                                                 "load the object ?obj from location ?loc onto the airplane ?airplane",
                                                 "place the object ?obj onto the airplane ?airplane at location ?loc"]),
        ("(unload-truck ?obj ?truck ?loc)", ["offload the object ?obj from the truck ?truck at location ?loc",
                                             "remove the object ?obj from the truck ?truck and place it on the "
                                             "location ?loc",
                                             "unload object ?obj from truck ?truck at location ?loc",
                                             "unload the object ?obj from the truck ?truck at location ?loc"]),
        ("(unload-airplane ?obj ?airplane ?loc)", [
            "offload the object ?obj from the airplane ?airplane at location ?loc",
            "remove the object ?obj from the airplane ?airplane and place it on the location ?loc",
            "unload object ?obj from airplane ?airplane at location ?loc",
            "unload the object ?obj from the airplane ?airplane at location ?loc"]),
        ("(drive-truck ?truck ?from ?to ?city)", [
            "drive the truck ?truck in city ?city from location ?from to location ?to",
            "drive truck ?truck from location ?from in city ?city to location ?to in the same city",
            "navigate the truck ?truck from its current location ?from in city ?city to the new location ?to "
            "within the same city",
            "navigate the truck ?truck from location ?from in city ?city to location ?to in the same city",
            "navigate the truck ?truck which is in location ?from in city ?city to another location ?to in the "
            "same city"]),
        ("(fly-airplane ?airplane ?from ?to)", [
            "fly airplane ?airplane from airport ?from to airport ?to",
                "fly the airplane ?airplane from airport ?from to airport ?to",
            "fly the airplane ?airplane from location ?from to location ?to",
            "fly the airplane ?airplane from the airport ?from to the airport ?to",
            "operate the airplane ?airplane from airport ?from to airport ?to"]),
    ]),
    _decoys(["inspect ?a in truck ?b at location ?c",
             "navigate the truck ?a from location ?b in city ?c to location ?d in the next city"]),
    _read_logistics,
    placed={"package": (("at", 1), ("in", 1)), "truck": (("at", 1),), "airplane": (("at", 1),)},
)


# ---------------------------------------------------------------------- blocksworld


def _read_blocksworld(t: _Text) -> tuple[dict[str, str], set[tuple[str, ...]]]:
    blocks = [f"block_{i}" for i in range(1, t.count("blocks?") + 1)]
    objects = {b: "" for b in blocks}
    init: set[tuple[str, ...]] = set()
    held = t.search(rf"the robotic arm is holding ({_OBJ})")
    if held:
        init.add(("holding", held.group(1)))
    elif t.search(r"the robotic arm is empty"):
        init.add(("handempty",))
    else:
        raise NotRead("the context says neither what the arm holds nor that it is empty")
    table = t.search(r"The following block\(s\) (?:is|are) on the table: (.*?)\.")
    if table:
        init.update(("ontable", b) for b in _names(table.group(1)))
    for m, end in t.sections(r"The following block\(s\) (?:is|are) stacked on top of another block:"):
        init.update(("on", a, b) for a, b in t.findall(rf"({_OBJ}) is on ({_OBJ})", m.end(), end))
    covered = {a[2] for a in init if a[0] == "on"}
    init.update(("clear", b) for b in blocks if b not in covered and ("holding", b) not in init)
    return objects, init


BLOCKSWORLD = Domain(
    "blocksworld", ("This is a blocksworld domain",),
    _table([
        ("(clear ?x)", ["Block ?x is clear", "No blocks are placed on top of ?x",
                        "?x is not obstructed by any other blocks"]),
        ("(ontable ?x)", ["Block ?x is located on the table", "Block ?x is on the table",
                          "Block ?x is placed on the table"]),
        ("(holding ?x)", ["The block ?x is currently being held by the robotic arm", "The robotic arm is holding ?x"]),
        ("(on ?x ?y)", ["The block ?x is currently situated above the block ?y",
                        "The block ?y is currently situated under the block ?x",
                        "The block ?x is on top of block ?y"]),
        ("(handempty)", ["The robotic arm is empty", "The robotic arm is not holding anything"]),
    ]),
    _table([
        ("(pick-up ?ob)", ["collect the object ?ob from the table", "pick up object ?ob from the table",
                           "pick up the object ?ob from the table", "remove ?ob from table"]),
        ("(put-down ?ob)", ["place the object ?ob on the table", "put down object ?ob", "put down the object ?ob"]),
        ("(stack ?ob ?under)", ["place the object ?ob on top of the object ?under",
                                "stack object ?ob on top of object ?under",
                                "stack the object ?ob on top of the object ?under"]),
        ("(unstack ?ob ?under)", ["remove the object ?ob from on top of the object ?under",
                                  "unstack object ?ob from object ?under",
                                  "unstack the object ?ob from the object ?under"]),
    ]),
    _decoys(["pick up key ?a from place ?b", "pick up the gold from location ?a",
             "put the key ?a at the current position place ?b"]),
    _read_blocksworld,
    placed={"": (("ontable", 1), ("on", 1), ("holding", 1))},
)


# ---------------------------------------------------------------------- grid (keys and locks)


def _read_grid(t: _Text) -> tuple[dict[str, str], set[tuple[str, ...]]]:
    rows, cols = t.grid()
    cells = [(i, j) for i in range(rows) for j in range(cols)]
    objects = {f"f{i}-{j}f": "place" for i, j in cells}
    init: set[tuple[str, ...]] = {("conn", f"f{a[0]}-{a[1]}f", f"f{b[0]}-{b[1]}f") for a, b in _neighbours(cells)}
    for key, shape in t.findall(rf"Key ({_OBJ}) is of shape ({_OBJ})"):
        objects[key], objects[shape] = "key", "shape"
        init.add(("key-shape", key, shape))
    if t.count("keys?(?= in \\d+ different shapes?)") != sum(kind == "key" for kind in objects.values()):
        raise NotRead("the keys are not as many as the context counts")
    t.search(r"\b\d+ different shapes?\b")  # shapes are named where keys and locks are
    m = t.need(rf"the robot is at position ({_OBJ}) and (its arm is empty|is holding ({_OBJ}))")
    init.add(("at-robot", m.group(1)))
    init.add(("holding", m.group(3)) if m.group(3) else ("arm-empty",))
    locked: set[str] = set()
    locks = t.sections(r"All the positions are open except the following:")
    for m, end in locks:
        for place, shape in t.findall(rf"({_OBJ}) has ({_OBJ}) shaped lock", m.end(), end):
            objects.setdefault(shape, "shape")
            locked.add(place)
            init.update({("locked", place), ("lock-shape", place, shape)})
    if not locks and t.search("All the positions are open") is None:
        raise NotRead("the context does not say which positions are locked")
    init.update(("open", p) for p in objects if objects[p] == "place" and p not in locked)
    for key, place in t.findall(rf"Key ({_OBJ}) is at position ({_OBJ})"):
        init.add(("at", key, place))
    return objects, init


GRID = Domain(
    "grid", ("A robot is in a grid and can only move to places",),
    _table([
        ("(at ?r ?x)", ["Key ?r is at ?x location"]),
        ("(at-robot ?x)", ["Robot is at ?x location"]),
        ("(locked ?x)", ["Location ?x is locked"]),
        ("(open ?x)", ["Location ?x is open"]),
        ("(holding ?k)", ["Robot is holding ?k"]),
        ("(arm-empty)", ["Robot is not holding anything", "Robot's arm is empty"]),
    ]),
    _table([
        ("(move ?cur ?next)", ["move from place ?cur to place ?next", "move from ?cur to ?next",
                               "move to place ?next from place ?cur",
                               "transition from the current position ?cur to the next position ?next",
                               "travel from the current position ?cur to the next position ?next"]),
        ("(pickup ?cur ?key)", ["acquire the key ?key from the place ?cur", "pick up key ?key from place ?cur",
                                "retrieve the key ?key from its current position ?cur"]),
        ("(pickup-and-loose ?cur ?new ?old)", [
            "pick up key ?new at current position place ?cur and loose key ?old being held",
            "pick up the key ?new at the current position place ?cur and loose the key ?old being held",
            "pick up the key ?new from the current position ?cur and loose the key ?old which is being held"]),
        ("(putdown ?cur ?key)", ["place the key ?key at the current position ?cur",
                                 "place the key ?key at the current position place ?cur",
                                 "put down key ?key at current position place ?cur",
                                     "put down the key ?key at the current position ?cur",
                                 "put the key ?key at the current position place ?cur"]),
        ("(unlock ?cur ?lock ?key ?shape)", [
            "unlock place ?lock with key ?key of shape ?shape from current position place ?cur",
            "unlock the place ?lock with key ?key of shape ?shape from the current position place ?cur",
            "unlock the place ?lock with the key ?key of the shape ?shape from the current position place ?cur",
            "use the key ?key of shape ?shape to unlock the place ?lock from its current position ?cur",
            "use the key ?key of shape ?shape to unlock the place ?lock from the current position ?cur"]),
    ]),
    _decoys(["get the fruit ?a from the current position ?b while dropping the vegetable ?c"]),
    _read_grid,
    placed={"key": (("at", 1), ("holding", 1))},
)


# ---------------------------------------------------------------------- floortile


def _read_floortile(t: _Text) -> tuple[dict[str, str], set[tuple[str, ...]]]:
    objects = {f"robot{i}": "robot" for i in range(1, t.count("robots?") + 1)}
    objects.update({f"tile_{i}": "tile" for i in range(1, t.count("tiles?") + 1)})
    objects.update({"black": "color", "white": "color"})
    init: set[tuple[str, ...]] = {("available-color", "black"), ("available-color", "white")}
    for a, b in t.findall(rf"({_OBJ}) is to the right of ({_OBJ})"):
        init.update({("right", a, b), ("left", b, a)})
    for a, b in t.findall(rf"({_OBJ}) is down from ({_OBJ})"):
        init.update({("down", a, b), ("up", b, a)})
    now = t.now()
    for r, tile, c in t.findall(rf"robot ({_OBJ}) is at ({_OBJ}) and holding color ({_OBJ})", now):
        init.update({("robot-at", r, tile), ("robot-has", r, c)})
    for tile, c in t.findall(rf"({_OBJ}) is painted ({_OBJ})", now):
        init.add(("painted", tile, c))
    # a tile is clear when no robot stands on it and it is not painted (the domain's invariant); ACPBench
    # lists the clear tiles, once with the list left empty (" is clear;"), so the list is only checked
    taken = {a[2] for a in init if a[0] == "robot-at"} | {a[1] for a in init if a[0] == "painted"}
    clear = {t for t, kind in objects.items() if kind == "tile" and t not in taken}
    listed = t.search(rf"{_LIST} (?:is|are) clear", now)
    if listed and set(_names(listed.group(1))) != clear:
        raise NotRead("the clear tiles listed are not the tiles without a robot or paint")
    init.update(("clear", t) for t in clear)
    return objects, init


FLOORTILE = Domain(
    "floortile", ("A set of robots use different colors to paint",),
    _table([
        ("(robot-at ?r ?x)", ["Robot ?r is at ?x location"]),
        ("(robot-has ?r ?c)", ["Robot ?r is holding ?c paint"]),
        ("(painted ?x ?c)", ["Tile ?x is painted in ?c color"]),
        ("(clear ?x)", ["?x is clear"]),
    ]),
    _table([
        ("(change-color ?r ?c ?c2)", ["alter the color of the robot ?r from color ?c to color ?c2",
                                      "change the color of robot ?r from color ?c to color ?c2",
                                      "modify the color of the robot ?r from ?c to ?c2"]),
        ("(paint-up ?r ?y ?x ?c)", ["apply color ?c to tile ?y above tile ?x using robot ?r",
                                    "paint the tile ?y above the tile ?x with color ?c using the robot ?r",
                                    "paint tile ?y above tile ?x with color ?c using robot ?r",
                                    "use robot ?r to paint the tile ?y above the tile ?x with the color ?c"]),
        ("(paint-down ?r ?y ?x ?c)", ["apply color ?c to tile ?y which is below tile ?x using robot ?r",
                                      "paint the tile ?y down from tile ?x with color ?c using the robot ?r",
                                      "paint tile ?y down from tile ?x with color ?c using robot ?r",
                                      "use robot ?r to paint the tile ?y downwards from the tile ?x with the "
                                      "color ?c"]),
        ("(down ?r ?x ?y)", ["move robot ?r down from tile ?x to tile ?y",
                             "move the robot ?r from the tile ?x to the tile ?y going downwards"]),
        ("(up ?r ?x ?y)", ["move robot ?r up from tile ?x to tile ?y",
                           "move the robot ?r from tile ?x to tile ?y going upwards",
                           "move the robot ?r from tile ?x to tile ?y upwards",
                               "move the robot ?r up from tile ?x to tile ?y"]),
        ("(left ?r ?x ?y)", ["move robot ?r from tile ?x to the left tile tile ?y",
                             "move the robot ?r from the tile ?x to the tile on its left ?y",
                             "move the robot ?r from tile ?x to the left tile ?y",
                                 "navigate robot ?r from tile ?x to tile ?y to its left"]),
        ("(right ?r ?x ?y)", ["move robot ?r from tile ?x to the right tile tile ?y",
                              "move the robot ?r from the tile ?x to the tile ?y which is to the right of the tile ?x",
                              "move the robot ?r from tile ?x to the right tile ?y",
                              "navigate robot ?r from tile ?x to tile ?y to the right"]),
    ]),
    _decoys(["move package ?a up from tile ?b to tile ?c",
             "move the crate ?a from the tile ?b to the tile on its left ?c",
             "move the package ?a from the tile ?b to the tile ?c which is to the right of the tile ?d",
             "repaint the car ?a from color ?b to color ?c", "unload truck ?a from tile ?b to tile ?c to its left",
             "use truck ?a to load the tile ?b above the tile ?c with the color ?d",
             "use truck ?a to load the tile ?b downwards from the tile ?c with the color ?d"]),
    _read_floortile,
    placed={"robot": (("robot-at", 1),), "tile": (("clear", 1), ("painted", 1), ("robot-at", 2))},
)


# ---------------------------------------------------------------------- grippers


def _read_grippers(t: _Text) -> tuple[dict[str, str], set[tuple[str, ...]]]:
    robots = [f"robot{i}" for i in range(1, t.count("robots?") + 1)]
    objects = {r: "robot" for r in robots}
    for r in robots:
        objects.update({f"left{r[5:]}": "gripper", f"right{r[5:]}": "gripper"})
    objects.update({f"room{i}": "room" for i in range(1, t.count("rooms?") + 1)})
    objects.update({f"ball{i}": "ball" for i in range(1, t.count("balls?") + 1)})
    init: set[tuple[str, ...]] = set()
    now = t.now()
    more = t.search(r"Additionally,", now)
    stop = more.start() if more else len(t.text)
    robots_at = list(re.compile(rf"the robot ({_OBJ}) is at ({_OBJ})").finditer(t.text, now, stop))
    for k, m in enumerate(robots_at):
        t.spans.append(m.span())
        r, n = m.group(1), m.group(1)[5:]
        init.add(("at-robby", r, m.group(2)))
        end = robots_at[k + 1].start() if k + 1 < len(robots_at) else stop
        if t.search(r"both grippers are free", m.end(), end):
            init.update({("free", r, f"left{n}"), ("free", r, f"right{n}")})
        for side in ("left", "right"):
            if t.search(rf"{side} gripper is free", m.end(), end):
                init.add(("free", r, f"{side}{n}"))
            carried = t.search(rf"{side} gripper is carrying the ball ({_OBJ})", m.end(), end)
            if carried:
                init.add(("carry", r, carried.group(1), f"{side}{n}"))
    for group, room in t.findall(rf"{_LIST} (?:is|are) at ({_OBJ})", more.end()) if more else []:
        init.update(("at", b, room) for b in _names(group))
    return objects, init


def _grippers_derive(groups: dict[str, str]) -> dict[str, str]:
    n = re.sub(r"^\D+", "", groups.get("v_robot", ""))
    return {"v_left": f"left{n}", "v_right": f"right{n}"}


GRIPPERS = Domain(
    "grippers", ("This is a grippers domain",),
    _table([
        ("(at ?o ?x)", ["Ball ?o is at ?x location", "Ball ?o is in room ?x"]),
        ("(at-robby ?r ?x)", ["Robot ?r is at ?x location", "Robot ?r is in room ?x"]),
        ("(carry ?r ?o ?g)", ["Robot ?r is carrying the ball ?o in gripper ?g"]),
        ("(free ?r ?g)", ["The gripper ?g of robot ?r is free"]),
        # the side words name the robot's own gripper (left1 of robot1): see _grippers_derive
        ("(carry ?robot ?o ?left)", ["Robot ?robot is carrying the ball ?o in the left gripper"]),
        ("(carry ?robot ?o ?right)", ["Robot ?robot is carrying the ball ?o in the right gripper"]),
        ("(free ?robot ?left)", ["The left gripper of robot ?robot is free"]),
        ("(free ?robot ?right)", ["The right gripper of robot ?robot is free"]),
    ]),
    _table([
        ("(drop ?r ?obj ?room ?g)", [
            "drop object ?obj in room ?room using ?g gripper of robot ?r",
                "drop the object ?obj in room ?room using robot ?r with the ?g gripper",
            "drop the object ?obj in the ?g gripper of the robot ?r at the room ?room",
            "place the object ?obj in the room ?room from the ?g gripper of the robot ?r",
            "place the object ?obj in the room ?room using the robot ?r with ?g gripper",
            "use robot ?r with ?g gripper to place the object ?obj in room ?room",
            "use the ?g gripper of robot ?r to drop the object ?obj in room ?room"]),
        ("(move ?r ?from ?to)", ["move robot ?r from room ?from to room ?to",
                                 "move the robot ?r from room ?from to room ?to",
                                 "transfer the robot ?r from room ?from to room ?to",
                                 "transfer the robot ?r from the room ?from to the room ?to"]),
        ("(pick ?r ?obj ?room ?g)", [
            "grasp the object ?obj from room ?room with the ?g gripper of robot ?r",
            "pick up object ?obj with robot ?r using ?g gripper from room ?room",
            "pick up the object ?obj with robot ?r using ?g gripper from room ?room",
            "pick up the object ?obj with the robot ?r using the ?g gripper from the room ?room",
            "use the ?g gripper of robot ?r to pick up the object ?obj from room ?room",
            "use the robot ?r equipped with ?g gripper to retrieve the object ?obj from room ?room"]),
    ]),
    _decoys(["fly drone ?a from room ?b to room ?c", "fly the drone ?a from room ?b to room ?c",
             "use robot ?a with gripper ?b to place the object ?c in room ?d"]),
    _read_grippers,
    _grippers_derive,
    placed={"ball": (("at", 1), ("carry", 2)), "robot": (("at-robby", 1),)},
)


# ---------------------------------------------------------------------- rovers


def _read_rovers(t: _Text) -> tuple[dict[str, str], set[tuple[str, ...]]]:
    objects: dict[str, str] = {}
    for noun, kind in (("rovers?", "rover"), ("waypoints?", "waypoint"), ("stores?", "store"), ("cameras?", "camera"),
                       ("objectives?", "objective")):
        objects.update({f"{kind}{i}": kind for i in range(t.count(noun))})
    objects.update({"colour": "mode", "high_res": "mode", "low_res": "mode"})
    init: set[tuple[str, ...]] = set()
    if t.count("landers?") != 1:  # ("there is 1 lander and 3 modes for the camera namely colour, ...")
        raise NotRead("a rovers context with several landers")
    t.search(r"\b3 modes for the camera namely colour, high resolution, and low resolution")
    lander = t.need(rf"Lander ({_OBJ}) is at waypoint ({_OBJ})")
    objects[lander.group(1)] = "lander"
    init.add(("at_lander", lander.group(1), lander.group(2)))
    equipped = rf"Rover\(s\) {_LIST} (?:is|are) equipped for (soil analysis|rock analysis|imaging)"
    for group, what in t.findall(equipped):
        pred = {"soil analysis": "equipped_for_soil_analysis", "rock analysis": "equipped_for_rock_analysis",
                "imaging": "equipped_for_imaging"}[what]
        init.update((pred, r) for r in _names(group))
    for r, s in t.findall(rf"Rover ({_OBJ}) has store ({_OBJ})"):
        init.add(("store_of", s, r))
    for r, group in t.findall(rf"Rover ({_OBJ}) has {_LIST} on board"):
        init.update(("on_board", c, r) for c in _names(group))
    for c, o in t.findall(rf"Camera ({_OBJ}) can be calibrated on ({_OBJ})"):
        init.add(("calibration_target", c, o))
    for c, group in t.findall(rf"Camera ({_OBJ}) supports {_LIST}"):
        init.update(("supports", c, m) for m in _names(group))
    for m, end in t.sections(rf"Rover ({_OBJ}) can traverse from"):
        init.update(("can_traverse", m.group(1), a, b) for a, b in t.findall(rf"({_OBJ}) to ({_OBJ})", m.end(), end))
    for w, group in t.findall(rf"Waypoint\(s\) are visible from ({_OBJ}): {_LIST}"):
        init.update(("visible", w, v) for v in _names(group))
    for o, group in t.findall(rf"Objective ({_OBJ}) is visible from {_LIST}"):
        init.update(("visible_from", o, w) for w in _names(group))
    now = t.now()
    init.add(("channel_free", lander.group(1)))  # unless a sentence says otherwise (none does in ACPBench)
    for r, w in t.findall(rf"Rover ({_OBJ}) is at ({_OBJ})\.", now):
        init.add(("at", r, w))
    for kind, group in t.findall(rf"(Rocks|Soil) can be sampled at the following location\(s\): {_LIST}", now):
        init.update(("at_rock_sample" if kind == "Rocks" else "at_soil_sample", w) for w in _names(group))
    for group in t.findall(rf"Rovers {_LIST} (?:is|are) available", now):
        init.update(("available", r) for r in _names(group))
    for kind, w in t.findall(rf"(Soil|Rock) data was communicated from waypoint ({_OBJ})", now):
        init.add((f"communicated_{kind.lower()}_data", w))
    for kind, group in t.findall(rf"(Soil|Rock) data were communicated from the following waypoints: {_LIST}", now):
        init.update((f"communicated_{kind.lower()}_data", w) for w in _names(group))
    for o, m in t.findall(rf"Image ({_OBJ}) was communicated in mode ({_OBJ})", now):
        init.add(("communicated_image_data", o, m))
    for r, kind, w in t.findall(rf"Rover ({_OBJ}) has (soil|rock) analyzed in waypoint ({_OBJ})", now):
        init.add((f"have_{kind}_analysis", r, w))
    for r, o, m in t.findall(rf"Rover ({_OBJ}) has image ({_OBJ}) in mode ({_OBJ})", now):
        init.add(("have_image", r, o, m))
    for r, c in t.findall(rf"Rover ({_OBJ}) has its camera ({_OBJ}) calibrated", now):
        init.add(("calibrated", c, r))
    for group, kind in t.findall(rf"Store\(s\) {_LIST} (?:is|are) (empty|full)", now):
        init.update((kind, s) for s in _names(group))
    return objects, init


ROVERS = Domain(
    "rovers", ("This is a Rovers domain",),
    _table([
        ("(at ?x ?y)", ["Rover ?x is at ?y"]),
        ("(empty ?s)", ["Store(s) ?s is empty"]),
        ("(full ?s)", ["Store(s) ?s is full"]),
        ("(have_rock_analysis ?r ?w)", ["Rover ?r has rock analyzed in waypoint ?w"]),
        ("(have_soil_analysis ?r ?w)", ["Rover ?r has soil analyzed in waypoint ?w"]),
        ("(calibrated ?c ?r)", ["Rover ?r has its camera ?c calibrated"]),
        ("(available ?r)", ["Rover ?r is available"]),
        ("(have_image ?r ?o ?m)", ["Rover ?r has image ?o in mode ?m"]),
        ("(communicated_soil_data ?w)", ["Soil data was communicated from waypoint ?w;",
                                         "Soil data was communicated from waypoint ?w"]),
        ("(communicated_rock_data ?w)", ["Rock data was communicated from waypoint ?w;",
                                         "Rock data was communicated from waypoint ?w"]),
        ("(communicated_image_data ?o ?m)", ["Image ?o was communicated in mode ?m"]),
        ("(at_soil_sample ?w)", ["Soil can be sampled at the following location(s): ?w"]),
        ("(at_rock_sample ?w)", ["Rocks can be sampled at the following location(s): ?w"]),
        ("(channel_free ?l)", ["Channel ?l is free"]),
    ]),
    _table([
        ("(navigate ?x ?y ?z)", ["guide the rover ?x from waypoint ?y to waypoint ?z",
                                 "move the rover ?x from waypoint ?y to waypoint ?z",
                                 "navigate rover ?x from waypoint ?y to waypoint ?z",
                                     "navigate the rover ?x from waypoint ?y to waypoint ?z",
                                 "navigate with rover ?x from waypoint ?y to waypoint ?z",
                                 "navigate with rover ?x to waypoint ?z from waypoint ?y"]),
        ("(sample_rock ?x ?s ?p)", ["collect a rock sample from waypoint ?p using rover ?x and store it in store ?s",
                                    "collect a sample from the waypoint ?p using the rover ?x and store it in "
                                    "the store ?s",
                                    "sample a rock at waypoint ?p using rover ?x, then store it in the storage unit ?s",
                                    "sample rock at waypoint ?p with rover ?x and store in store ?s",
                                    "sample the rock at waypoint ?p with rover ?x and store it in store ?s"]),
        ("(sample_soil ?x ?s ?p)", ["collect a soil sample from waypoint ?p using rover ?x and deposit it in the "
                                    "store ?s",
                                    "sample soil at waypoint ?p with rover ?x and store in store ?s",
                                    "sample soil at waypoint ?p with rover ?x and store in the store ?s",
                                    "sample the soil at waypoint ?p using the rover ?x, then store it in the "
                                    "storage unit ?s",
                                    "sample the soil at waypoint ?p with rover ?x and store it in store ?s",
                                    "use the rover ?x to collect soil samples at waypoint ?p and store them in "
                                    "the store ?s"]),
        ("(drop ?x ?y)", ["drop from store ?y of rover ?x", "drop store ?y of rover ?x",
                          "drop the content from store ?y of the rover ?x",
                          "empty the content from store ?y of the rover ?x", "empty the store ?y from rover ?x",
                          "if storey is full, drop store ?y of rover ?x", "unload the store ?y from the rover ?x"]),
        ("(calibrate ?r ?i ?t ?w)", ["adjust the camera ?i on the rover ?r for the objective ?t at waypoint ?w",
                                     "calibrate camera ?i on rover ?r for objective ?t at waypoint ?w",
                                     "calibrate the camera ?i on rover ?r for the objective ?t at the waypoint ?w",
                                     "calibrate the camera ?i on the rover ?r for the objective ?t at the waypoint ?w",
                                     "calibrate the camera ?i on the rover ?r for the objective ?t at waypoint ?w"]),
        ("(take_image ?r ?p ?o ?i ?m)", [
            "capture an image of objective ?o in mode ?m using the camera ?i on the rover ?r from waypoint ?p",
            "capture an image of the objective ?o in mode ?m with the camera ?i on the rover ?r at waypoint ?p",
            "take a picture of the objective ?o in mode ?m using the camera ?i mounted on the rover ?r from the "
            "waypoint ?p",
            "take an image of objective ?o in mode ?m using camera ?i on rover ?r from waypoint ?p",
            "take an image of the objective ?o in mode ?m using the camera ?i on the rover ?r from the waypoint ?p"]),
        ("(communicate_soil_data ?r ?l ?p ?x ?y)", [
            "communicate soil data from rover ?r at waypoint ?x with soil analysis of waypoint ?p to lander ?l "
            "at waypoint ?y",
            "communicate the soil data from rover ?r at waypoint ?x with the soil analysis of waypoint ?p to "
            "lander ?l at waypoint ?y",
            "communicate the soil data from the rover ?r at waypoint ?x with the soil analysis of waypoint ?p "
            "to the lander ?l at waypoint ?y",
            "transmit soil data from rover ?r at waypoint ?x to the lander ?l at waypoint ?y, regarding the "
            "soil analysis of waypoint ?p",
            "transmit soil data from rover ?r located at waypoint ?x to lander ?l located at waypoint ?y using "
            "soil analysis of waypoint ?p"]),
        ("(communicate_rock_data ?r ?l ?p ?x ?y)", [
            "communicate rock data from rover ?r at waypoint ?x about waypoint ?p to lander ?l at waypoint ?y",
            "communicate rock data from rover ?r at waypoint ?x to lander ?l at waypoint ?y via waypoint ?p",
            "communicate the rock data from rover ?r at waypoint ?x to lander ?l at waypoint ?y via waypoint ?p",
            "communicate the rock data from the rover ?r at waypoint ?x to the lander ?l at waypoint ?y via "
            "waypoint ?p",
            "transmit the rock data from rover ?r at waypoint ?x to the lander ?l at waypoint ?y through waypoint ?p",
            "transmit the rock data from the rover ?r at waypoint ?x to the lander ?l at waypoint ?y using "
            "waypoint ?p as a relay"]),
        ("(communicate_image_data ?r ?l ?o ?m ?x ?y)", [
            "communicate image data of objective ?o in mode ?m from rover ?r at waypoint ?x to lander ?l at "
            "waypoint ?y",
            "communicate the image data of objective ?o in mode ?m from rover ?r at waypoint ?x to lander ?l at "
            "waypoint ?y",
            "communicate the image data of target ?o in mode ?m from rover ?r at waypoint ?x to lander ?l at "
            "waypoint ?y",
            "transmit image data of objective ?o in mode ?m from rover ?r at waypoint ?x to the lander ?l at "
            "waypoint ?y",
            "transmit the image data of the objective ?o in mode ?m from the rover ?r at waypoint ?x to the "
            "lander ?l at waypoint ?y"]),
    ]),
    _decoys(["dig with rover ?a to waypoint ?b from waypoint ?c",
             "drill a sample at waypoint ?a with rover ?b using store ?c",
             "pick up objective ?a in mode ?b using instrument ?c mounted on the rover ?d from the waypoint ?e"]),
    _read_rovers,
    placed={"rover": (("at", 1),), "store": (("empty", 1), ("full", 1))},
)


# ---------------------------------------------------------------------- visitall


def _read_visitall(t: _Text) -> tuple[dict[str, str], set[tuple[str, ...]]]:
    rows, cols = t.grid()
    gone: set[str] = set()
    m = t.search(rf"The (?:only )?unavailable cells? (?:is|are) {_LIST}")
    if m:
        gone = set(_names(m.group(1)))
    elif t.search("There are no unavailable cells") is None:
        raise NotRead("the context does not say which cells are unavailable")
    cells = [(i, j) for i in range(rows) for j in range(cols) if f"loc-x{i}-y{j}" not in gone]
    objects = {f"loc-x{i}-y{j}": "place" for i, j in cells}
    init: set[tuple[str, ...]] = {("connected", f"loc-x{a[0]}-y{a[1]}", f"loc-x{b[0]}-y{b[1]}")
                                  for a, b in _neighbours(cells)}
    init.add(("at-robot", t.need(rf"the robot is in place ({_OBJ})").group(1)))
    visited = t.search(rf"The following places have been visited: {_LIST}")
    if visited:
        init.update(("visited", p) for p in _names(visited.group(1)))
    init.update(("visited", p) for p in t.findall(rf"Place ({_OBJ}) has been visited"))
    return objects, init


VISITALL = Domain(
    "visitall", ("This is a visitall domain",),
    _table([
        ("(at-robot ?x)", ["the robot is in place ?x", "The robot is at ?x"]),
        ("(visited ?x)", ["Place ?x has been visited", "Place ?x is visited"]),
    ]),
    _table([
        ("(move ?cur ?next)", ["Please move to ?next position from ?cur position", "go to ?next from ?cur",
                               "move from place ?cur to place ?next",
                               "move from ?cur to ?next", "move to place ?next from place ?cur",
                                   "navigate from ?cur to ?next",
                               "transition from the current position ?cur to the next position ?next",
                               "travel from the current position ?cur to the next position ?next",
                                   "travel from ?cur to ?next"]),
    ]),
    _decoys(["check that position ?a is connected to position ?b", "push box to place ?a from place ?b"]),
    _read_visitall,
    placed={},
)

DOMAINS: dict[str, Domain] = {d.key: d for d in
                              (FERRY, LOGISTICS, BLOCKSWORLD, GRID, FLOORTILE, GRIPPERS, ROVERS, VISITALL)}
"""ACPBench's domains whose plain language is read, by name."""


# ---------------------------------------------------------------------- reading items

Atom = tuple[str, ...]
DECOY = ("<decoy>",)
"""An action phrase of ACPBench's distractors that names no action of the domain (e.g. "fly drone d1 ...")."""


def detect_domain(context: str) -> Domain:
    text = context.lstrip()
    for d in DOMAINS.values():
        if any(text.startswith(s) for s in d.starts):
            return d
    raise NotRead(f"the context is of no domain whose phrasing is known: {text[:60]!r}")


def _fill(domain: Domain, phrase: Phrase, m: re.Match[str]) -> tuple[str, ...]:
    groups = {k: v for k, v in m.groupdict().items() if v is not None}
    groups.update(domain.derive(groups))
    return (phrase.head, *(groups[p] for p in phrase.params))


def _match_all(phrases: Sequence[Phrase], text: str, pos: int) -> list[tuple[int, Phrase, re.Match[str]]]:
    out = []
    for p in phrases:
        m = p.regex.match(text, pos)
        if m:
            out.append((m.end(), p, m))
    return sorted(out, key=lambda t: -t[0])


def _sequence(domain: Domain, phrases: Sequence[Phrase], text: str, separators: Sequence[str],
              decoys: bool = False) -> list[tuple[str, ...]]:
    """``text`` read as phrases joined by ``separators``, the one way it
    reads. Raises :class:`NotRead` when it reads in no way or in several."""
    text = re.sub(r"\s+", " ", text.strip()).rstrip(".?")
    seps = [re.compile(re.escape(s), re.IGNORECASE) for s in sorted(separators, key=len, reverse=True)]

    # positions where an item may start, in increasing order; for each, the ways it is reached (at most 2
    # counted: a text read in two ways is refused, not guessed) and the item and start that reached it
    ways: dict[int, int] = {0: 1}
    back: dict[int, tuple[int, tuple[str, ...]]] = {}
    todo = [0]
    while todo:
        pos = heapq.heappop(todo)
        candidates: list[tuple[int, tuple[str, ...]]] = [(end, _fill(domain, p, m))
                                                         for end, p, m in _match_all(phrases, text, pos)]
        if decoys:
            candidates += [(m.end(), DECOY) for r in domain.decoys if (m := r.match(text, pos))]
        for end, item in dict.fromkeys(candidates):  # two phrasings that read the same are one way
            # -1: the whole text is read; else where the next item starts, after a separator
            targets = [-1] if end == len(text) else [sm.end() for sm in (s.match(text, end) for s in seps) if sm]
            for target in targets:
                if target not in ways:
                    if target != -1:
                        heapq.heappush(todo, target)
                    back[target] = (pos, item)
                ways[target] = min(2, ways.get(target, 0) + ways[pos])
    if not text:
        return []
    if -1 not in ways:
        raise NotRead(f"no {domain.key} phrasing reads {text[:120]!r}")
    if ways[-1] > 1:
        raise NotRead(f"{text[:120]!r} reads in more than one way as {domain.key} phrasings")
    found: list[tuple[str, ...]] = []
    at = -1
    while at != 0:
        at, item = back[at]
        found.append(item)
    return found[::-1]


def read_atoms(domain: Domain, text: str) -> list[Atom]:
    """A conjunction of atoms in plain language (joined by "and" or commas)."""
    return _sequence(domain, domain.atoms, text, [", and ", " and ", ", "])


def read_action(domain: Domain, text: str) -> tuple[str, ...]:
    """One action in plain language (:data:`DECOY` for a known distractor phrasing)."""
    return _sequence(domain, domain.actions, text, [], decoys=True)[0]


def read_plan(domain: Domain, text: str, separators: Sequence[str] = (", ",)) -> list[tuple[str, ...]]:
    """A sequence of actions in plain language, joined by ``separators``."""
    return _sequence(domain, domain.actions, text, separators, decoys=True)


# ---------------------------------------------------------------------- the task


@dataclass
class Reading:
    """A task read from a context: the domain, the objects with their types,
    the state (statics included) and the goal (empty when the context has none)."""

    domain: Domain
    objects: dict[str, str]
    init: set[Atom]
    goal: list[Atom]

    def problem(self, domain_name: str) -> str:
        """The PDDL problem text."""
        by_type: dict[str, list[str]] = {}
        for o, t in self.objects.items():
            by_type.setdefault(t, []).append(o)
        objs = " ".join(" ".join(sorted(os)) + (f" - {t}" if t else "") for t, os in sorted(by_type.items()))
        init = " ".join("(" + " ".join(a) + ")" for a in sorted(self.init))
        goal = " ".join("(" + " ".join(a) + ")" for a in self.goal)
        return (f"(define (problem nl) (:domain {domain_name})\n (:objects {objs})\n (:init {init})\n"
                f" (:goal (and {goal})))\n")


_GOAL = "The goal is to reach a state where the following facts hold:"


def read_context(context: str) -> Reading:
    """The task a context describes. Raises :class:`NotRead`."""
    domain = detect_domain(context)
    text = re.sub(r"The available (?:propositions|actions) are: .*?(?=The goal is to reach|$)", "",
                  re.sub(r"\s+", " ", context))
    head, _, rest = text.partition(_GOAL)
    rest = rest.strip().rstrip(".")
    read = _Text(head)
    objects, init = domain.read(read)
    unread = read.unread()
    if unread:
        raise NotRead(f"the context says what is not read: {' '.join(unread[:4])}")
    for kind, where in domain.placed.items():
        at = {a[i] for a in init for p, i in where if a[0] == p and len(a) > i}
        lost = sorted(o for o, t in objects.items() if t == kind and o not in at)
        if lost and where:
            raise NotRead(f"the context does not say where {', '.join(lost[:3])} is")
    goal = read_atoms(domain, rest) if rest else []
    return Reading(domain, objects, init, goal)


def domain_sources(docs: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """``{domain: PDDL domain text}`` from ACPBench generative questions (each
    carries its context, which names the domain, and ``PDDL_domain``)."""
    out: dict[str, str] = {}
    for doc in docs:
        if "PDDL_domain" not in doc:
            continue
        try:
            key = detect_domain(str(doc.get("context", ""))).key
        except NotRead:
            continue
        out.setdefault(key, str(doc["PDDL_domain"]))
    return out


def sibling_sources(path: str | Path) -> list[str]:
    """The generative files beside a question file and in the folders beside
    its folder (ACPBench's layout: ``<task>/dev.gen.json``)."""
    p = Path(path).resolve().parent
    found: list[str] = []
    for pattern in ("*.gen.json", "*.gen.json.gz", "*/*.gen.json", "*/*.gen.json.gz"):
        found += sorted(glob.glob(str(p / pattern))) + sorted(glob.glob(str(p.parent / pattern)))
    return list(dict.fromkeys(found))


__all__ += ["read_action", "read_atoms", "read_plan", "sibling_sources", "DECOY"]


# ---------------------------------------------------------------------- answering


class Undecided(Exception):
    """A search stopped at its state limit before deciding an item."""


class _Asked:
    """One question's task as an :class:`ExamTask`, with its items looked up."""

    def __init__(self, reading: Reading, domain_pddl: str, state_limit: int | None) -> None:
        m = re.search(r"\(\s*domain\s+([^\s()]+)", domain_pddl, re.IGNORECASE)
        if m is None:
            raise NotRead("the PDDL domain has no name")
        kwargs = {} if state_limit is None else {"state_limit": state_limit}
        self.reading = reading
        self.exam = ExamTask(domain_pddl, reading.problem(m.group(1)), **kwargs)
        lifted = self.exam.lifted
        self._static_init = set(lifted.init)

    # ---- atoms

    def key(self, atom: Atom) -> tuple[int, ...] | None:
        """The atom's key, ``None`` when it names an object of the wrong type
        or one the task does not have (such an atom never holds)."""
        lifted = self.exam.lifted
        p = lifted.predicate_index.get(atom[0].lower())
        if p is None or lifted.predicate_arity[p] != len(atom) - 1:
            raise NotRead(f"{atom} names no predicate of the domain")
        decl = lifted.domain.predicates[p]
        ids: list[int] = []
        for prm, name in zip(decl.parameters, atom[1:], strict=True):
            oid = lifted.object_index.get(name.lower())
            if oid is None or not any(oid in lifted.type_members.get(t, ()) for t in prm.types):
                return None
            ids.append(oid)
        return (p, *ids)

    def atom_ids(self, atoms: Sequence[Atom]) -> list[int] | None:
        """The fluent atoms' ids; ``None`` when one of them never holds (a
        wrong type, an unknown object, a false static atom, an atom the
        grounding never reaches)."""
        out: list[int] = []
        fluent = self.exam.lifted.fluent_predicates
        for atom in atoms:
            key = self.key(atom)
            if key is None:
                return None
            if key[0] not in fluent:
                if key not in self._static_init:
                    return None
                continue
            aid = self.exam.task.atom_ids.get(key)
            if aid is None:
                return None
            out.append(aid)
        return out

    def holds(self, atoms: Sequence[Atom], state: Any) -> bool:
        ids = self.atom_ids(atoms)
        return ids is not None and all(a in state for a in ids)

    def reachable(self, atoms: Sequence[Atom]) -> bool:
        """Whether some state reachable from the state holds all ``atoms``."""
        exam = self.exam
        ids = self.atom_ids(atoms)
        if ids is None:
            return False
        if all(a in exam.state for a in ids):
            return True
        relaxed = exam.relaxed_atoms()
        if not all(a in relaxed for a in ids) or not exam.h2_together(ids):
            return False
        try:
            return exam.reaches(tuple(ids))
        except SearchLimit:
            pass
        return self._bfs(lambda s: all(a in s for a in ids))

    def _bfs(self, goal: Callable[[Any], bool]) -> bool:
        exam = self.exam
        seen = {exam.state}
        frontier = [exam.state]
        limit = exam.state_limit // 4
        while frontier:
            nxt = []
            for s in frontier:
                for a in exam.task.applicable(s):
                    t = a.apply(s)
                    if t in seen:
                        continue
                    if goal(t):
                        return True
                    seen.add(t)
                    if len(seen) > limit:
                        raise Undecided("a search of the reachable states hit its state limit")
                    nxt.append(t)
            frontier = nxt
        return False

    # ---- actions

    def action(self, item: tuple[str, ...]) -> GroundAction | None | bool:
        """The ground action ``item`` names; ``None`` when it is type-correct
        but never applicable (the grounding drops it); ``False`` when it names
        an unknown object, an object of the wrong type, or is a decoy."""
        if item == DECOY:
            return False
        try:
            return self.exam.action("(" + " ".join(item) + ")")
        except PDDLError as err:
            if err.code in (ErrorCode.TYPE_MISMATCH, ErrorCode.UNKNOWN_OBJECT):
                return False
            raise NotRead(f"{item} names no action of the domain: {err.message}") from err

    def applicable(self, item: tuple[str, ...], state: Any = None) -> bool:
        a = self.action(item)
        return isinstance(a, GroundAction) and a.applicable(self.exam.state if state is None else state)

    def action_reachable(self, item: tuple[str, ...]) -> bool:
        a = self.action(item)
        if not isinstance(a, GroundAction):
            return False
        if a.applicable(self.exam.state):
            return True
        never, undecided = self.exam.unreachable_actions()
        text = _norm(self.exam.action_text(a))
        if text in {_norm(x) for x in undecided}:
            raise Undecided(f"{text} undecided within the state limit")
        return text not in {_norm(x) for x in never}

    def steps(self, plan: Sequence[tuple[str, ...]]) -> list[GroundAction | None]:
        out: list[GroundAction | None] = []
        for item in plan:
            a = self.action(item)
            out.append(a if isinstance(a, GroundAction) else None)
        return out

    # ---- landmarks

    def landmark(self, atoms: Sequence[Atom]) -> bool:
        """Whether the conjunction ``atoms`` is a fact landmark: true at some
        point of every plan from the state (the state itself included)."""
        if len(atoms) != 1:
            raise NotRead("a landmark question about several atoms at once")
        ids = self.atom_ids(atoms)
        exam = self.exam
        if ids is None:  # never holds: a landmark only when there is no plan at all
            try:
                return exam.any_plan(exam.state) is None
            except SearchLimit as err:
                raise Undecided("the search for a plan hit its state limit") from err
        if not ids:
            return True
        atom = ids[0]
        if atom in exam.state or atom in set(exam.task.goal_pos):
            return True
        marks = exam.landmarks()
        text = _norm(exam.atom_text(atom))
        if text in {_norm(x) for x in marks.get("maybe", [])}:
            raise Undecided(f"{text} undecided within the state limit")
        if text in {_norm(x) for x in marks["yes"]}:
            return True
        if text in {_norm(x) for x in marks["no"]}:
            return False
        return _norm_bool(exam.landmarks([atom]), text)


def _norm_bool(marks: Mapping[str, list[str]], text: str) -> bool:
    if text in {_norm(x) for x in marks.get("maybe", [])}:
        raise Undecided(f"{text} undecided within the state limit")
    return text in {_norm(x) for x in marks["yes"]}


def _norm(text: str) -> str:
    return " ".join(text.lower().strip("()").split())


_QUESTIONS: dict[tuple[str, str], str] = {
    ("app", "bool"): r"Is the following action applicable in this state: (?P<item>.+)\?",
    ("areach", "bool"): r'Is it possible to transition to a state where the action "(?P<item>[^"]+)" can be applied\?',
    ("reach", "bool"): r"Is it possible to transition to a state where the following holds: (?P<item>.+)\?",
    ("land", "bool"): (r"Is the following fact a landmark \(must hold at some point along any plan\) for the current "
                       r"state\? (?P<item>.+)"),
    ("prog", "bool"): (r'Will the fact "(?P<item>[^"]+)" hold after performing the action "(?P<action>[^"]+)" in the '
                       r"current state\?"),
    ("val", "bool"): (r'Is the following sequence of actions "(?P<plan>[^"]+)" (?P<level>valid in this problem|'
                      r"applicable in the current state|a plan for the current state)\?"),
    ("just", "bool"): (r'Given the plan: "(?P<plan>[^"]+)"; can the following (?P<size>action|pair of consecutive '
                       r"actions) be removed from this plan and still have a valid plan: (?P<item>.+)\?"),
    ("app", "mcq"): r"Which of the following actions will be applicable in this state\? A\. .*",
    ("areach", "mcq"): r"Which of the following actions can eventually be applied\? A\. .*",
    ("reach", "mcq"): r"Which of the following options can hold in a state that can potentially be reached\? A\. .*",
    ("land", "mcq"): (r"Which of the following facts is a landmark \(must hold at some point along any plan\) for the "
                      r"current state\? A\. .*"),
    ("prog", "mcq"): (r'Which of the following facts hold after performing the action "(?P<action>[^"]+)" in the '
                      r"current state\? A\. .*"),
    ("val", "mcq"): (r"Which of the following claims is true with regard to the following sequence of actions "
                     r'"(?P<plan>[^"]+)" +A\. .*'),
    ("just", "mcq"): (r'Given the plan: "(?P<plan>[^"]+)"; which of the following (?P<size>actions|pairs of '
                      r"consecutive actions) can be removed from this plan and still have a valid plan\? A\. .*"),
}
"""ACPBench's question forms per task and format (whole question), the asked items in named groups."""

_CLAIMS = {"the sequence is not valid": "not valid", "the sequence is not applicable": "not applicable",
           "the sequence is applicable, but does not achieve the goal": "no goal", "the sequence is a plan": "plan"}


def _truths(asked: _Asked, task: str, form: re.Match[str], items: list[str]) -> list[bool]:
    """The truth of each item (the one asked about, or each choice) of a question of ``form``."""
    d = asked.reading.domain
    exam = asked.exam
    if task == "app":
        return [asked.applicable(read_action(d, t)) for t in items]
    if task == "areach":
        return [asked.action_reachable(read_action(d, t)) for t in items]
    if task == "reach":
        return [asked.reachable(read_atoms(d, t)) for t in items]
    if task == "land":
        return [asked.landmark(read_atoms(d, t)) for t in items]
    if task == "prog":
        action = asked.action(read_action(d, form["action"]))
        if not isinstance(action, GroundAction) or not action.applicable(exam.state):
            raise NotRead("the action asked about does not apply in the state")
        after = action.apply(exam.state)
        return [asked.holds(read_atoms(d, t), after) for t in items]
    plan = read_plan(d, form["plan"])
    if task == "val":
        # ACPBench's three levels: valid (every step names an action of the task; its distractor plans hold
        # an action of another domain), applicable (every step applies in turn), a plan (and the goal holds)
        valid = all(isinstance(asked.action(item), GroundAction | None) for item in plan)
        index, end = exam.run(asked.steps(plan)) if valid else (0, exam.state)
        applies = valid and index == -1
        goal = applies and exam.task.is_goal(end)
        if "level" in form.groupdict():
            return [{"valid in this problem": valid, "applicable in the current state": applies,
                     "a plan for the current state": goal}[form["level"]]]
        truth = {"not valid": not valid, "not applicable": valid and not applies, "no goal": applies and not goal,
                 "plan": goal}
        claims = [_CLAIMS.get(_norm(t.rstrip("."))) for t in items]
        if None in claims:
            raise NotRead(f"an unknown claim about a sequence among {items}")
        return [truth[c] for c in claims if c is not None]
    assert task == "just"
    # the question names the step(s), not their place: removable when removing them at some place where
    # they stand (one step, or two consecutive ones) leaves a plan
    steps = asked.steps(plan)
    size = 1 if form["size"] in ("action", "actions") else 2
    out = []
    for t in items:
        removed = read_plan(d, t, separators=(" and ",)) if size == 2 else [read_action(d, t)]
        if len(removed) != size:
            raise NotRead(f"{t!r} names {len(removed)} steps where the question asks about {size}")
        starts = [i for i in range(len(plan) - size + 1) if plan[i:i + size] == removed]
        if not starts:
            raise NotRead(f"the plan has no step(s) {removed}")
        out.append(any(exam.is_plan(steps[:i] + steps[i + size:]) for i in starts))
    return out


def answer_nl(doc: Mapping[str, Any], task: str, fmt: str, sources: Mapping[str, str], *,
              state_limit: int | None = None) -> str:
    """The answer to a boolean (``"yes"``/``"no"``) or multiple-choice (the
    letter of the one true choice) question that carries only plain language.
    ``sources``: PDDL domain text per domain (:func:`domain_sources`). Raises
    :class:`NotRead` (text that fits no known phrasing, or a question it
    cannot decide, with the reason) and :class:`Undecided`."""
    pattern = _QUESTIONS.get((task, fmt))
    if pattern is None:
        raise NotRead(f"no plain-language form of a {fmt} {task} question")
    question = re.sub(r"\s+", " ", str(doc.get("question", ""))).strip()
    form = re.fullmatch(pattern, question)
    if form is None:
        raise NotRead(f"the question is in no known form of a {fmt} {task} question: {question[:80]!r}")
    reading = read_context(str(doc.get("context", "")))
    if reading.domain.key not in sources:
        raise NotRead(f"no PDDL domain of {reading.domain.key} (give a generative question file of it)")
    asked = _Asked(reading, sources[reading.domain.key], state_limit)
    if fmt == "bool":
        item = form.groupdict().get("item") or ""
        return "yes" if _truths(asked, task, form, [item])[0] else "no"
    choices = doc.get("choices") or {}
    texts, labels = list(choices.get("text", [])), list(choices.get("label", []))
    if not texts or len(texts) != len(labels):
        raise NotRead("a multiple-choice question without its choices")
    truths = _truths(asked, task, form, texts)
    right = [lab for lab, ok in zip(labels, truths, strict=True) if ok]
    if len(right) != 1:
        raise NotRead(f"{len(right)} of the choices are true" + (f" ({', '.join(right)})" if right else ""))
    return str(right[0])


__all__ += ["Undecided", "answer_nl"]
