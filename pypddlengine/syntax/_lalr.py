"""A small LALR(1) runtime that replays lark's analysis of ``pddl.lark``.

``pypddl validate`` is run once per plan by scripts, so the parser's start-up
matters: importing lark and loading its analysed grammar cost more than the
whole validation. This module parses with tables that lark derived from the
grammar (:mod:`._lalr_build`), stored as plain data in the per-user cache and
loaded with :mod:`marshal` in about a millisecond; it imports neither lark nor
anything heavy. The grammar file stays the single source: the cached tables
hold the grammar text they were built from and are rebuilt when it differs.

It replays exactly what lark's contextual lexer and LALR parser do on input
they accept: the same terminal per state and position (first alternative of
lark's own per-state union pattern, keywords folded by the same "unless"
patterns), the same tokens with the same positions, the same reductions in the
same order, and lark's tree shaping (filtered punctuation, inlined ``_rules``,
``?rule`` expansion) before each transformer callback. It does not explain
failures: on any lexing or parsing error it raises :class:`ParseFailure` and
the caller re-parses with lark, whose exception carries what the error message
needs. Tests compare the two runtimes tree by tree on every corpus file.
"""

from __future__ import annotations

import _sre
import marshal
import os
import re
import sys
import zlib
from collections.abc import Callable
from typing import Any

from ..usercache import cache_folder, write_atomic

__all__ = ["FORMAT", "ParseFailure", "Tables", "Token", "Tree", "load_tables"]

FORMAT = 4
"""Version of the table layout; part of the cache file's name. (4: each
stored regex form is its own marshalled bytes, read when its lexer is first
used: unmarshalling all 54 forms up front was half of loading the tables.)"""


class Token(str):
    """A lexed terminal: the text itself, with lark's attribute names."""

    __slots__ = ("column", "end_column", "end_line", "end_pos", "line", "start_pos", "type", "value")

    type: str
    value: str
    start_pos: int
    line: int
    column: int
    end_line: int
    end_column: int
    end_pos: int

    def __new__(cls, type_: str, value: str, start_pos: int, line: int, column: int, end_line: int,
                end_column: int, end_pos: int) -> Token:
        self = str.__new__(cls, value)
        self.type = type_
        self.value = value
        self.start_pos = start_pos
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column
        self.end_pos = end_pos
        return self

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {self.value!r})"


class Tree:
    """What a rule without a transformer callback builds (lark's ``Tree``)."""

    __slots__ = ("children", "data")

    def __init__(self, data: str, children: list[Any]) -> None:
        self.data = data
        self.children = children

    def __repr__(self) -> str:
        return f"Tree({self.data!r}, {self.children!r})"


class ParseFailure(Exception):
    """The input is not in the language; lark is asked to explain why."""


def _expand_single(f: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
    def expand(children: list[Any]) -> Any:
        return children[0] if len(children) == 1 else f(children)

    return expand


def _filter(keep: tuple[tuple[int, bool], ...], f: Callable[[list[Any]], Any]) -> Callable[[list[Any]], Any]:
    if not any(expand for _, expand in keep):
        indices = [i for i, _ in keep]
        if len(indices) == 1:
            (only,) = indices
            return lambda children: f([children[only]])
        return lambda children: f([children[i] for i in indices])

    def shape(children: list[Any]) -> Any:  # lark's ChildFilterLALR_NoPlaceholders
        filtered: list[Any] = []
        for i, expand in keep:
            if expand:
                if filtered:
                    filtered += children[i].children
                else:
                    filtered = children[i].children
            else:
                filtered.append(children[i])
        return f(filtered)

    return shape


class _Callbacks(dict[int, Callable[[list[Any]], Any]]):
    """Rule number -> the callback that builds its value from its children."""

    __slots__ = ("rules", "transformer")

    def __init__(self, rules: list[tuple[str, int, str, bool, tuple[tuple[int, bool], ...] | None]],
                 transformer: Any) -> None:
        super().__init__()
        self.rules = rules
        self.transformer = transformer

    def __missing__(self, rule: int) -> Callable[[list[Any]], Any]:
        _origin, _size, name, expand1, keep = self.rules[rule]
        f = getattr(self.transformer, name, None)
        if f is None:
            f = (lambda data: lambda children: Tree(data, children))(name)
        if expand1:
            f = _expand_single(f)
        if keep is not None:
            f = _filter(keep, f)
        self[rule] = f
        return f


class Tables:
    """Parse tables loaded from plain data; callbacks are bound per transformer."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.grammar: str = data["grammar"]
        self.start_states: dict[str, int] = data["start_states"]
        self.end_states: dict[str, int] = data["end_states"]
        self.states: list[dict[str, int]] = data["states"]
        self.rules: list[tuple[str, int, str, bool, tuple[tuple[int, bool], ...] | None]] = data["rules"]
        self.terminals: list[str] = data["terminals"]
        self.ignore = frozenset(data["ignore"])
        self.newline = frozenset(data["newline"])
        self._lexer_data: list[Any] = data["lexers"]
        self._compiled_forms: dict[str, bytes] = data.get("compiled", {})
        self.state_lexer: list[int] = data["state_lexer"]
        # compiled on first use, as lark does: a plan compiles only its own few patterns
        self._scanners: list[Callable[[str, int], re.Match[str] | None] | None] = [None] * len(self._lexer_data)
        self._unless: list[dict[str, list[re.Pattern[str]]] | None] = [None] * len(self._lexer_data)

    def _scanner(self, lexer: int) -> Callable[[str, int], re.Match[str] | None]:
        patterns, unless = self._lexer_data[lexer]
        compiled = [self._compile(p, f) for p, f in patterns]
        scan: Callable[[str, int], re.Match[str] | None]
        if len(compiled) == 1:
            scan = compiled[0].match
        else:
            def scan_each(text: str, pos: int) -> re.Match[str] | None:
                for mre in compiled:
                    m = mre.match(text, pos)
                    if m:
                        return m
                return None
            scan = scan_each
        self._unless[lexer] = {name: [self._compile(p, f) for p, f in pats] for name, pats in unless.items()}
        self._scanners[lexer] = scan
        return scan

    def _compile(self, pattern: str, flags: int) -> re.Pattern[str]:
        """``re.compile(pattern, flags)``, from the compiled form stored with
        the tables when there is one (the tables are specific to this Python
        and its ``_sre.MAGIC``), so that no regex is compiled in Python."""
        form = self._compiled_forms.get(f"{flags}:{pattern}")
        if form is not None:
            try:
                return _sre.compile(pattern, *marshal.loads(form))  # type: ignore[no-any-return]
            except (TypeError, ValueError, RuntimeError, EOFError):
                self._compiled_forms = {}  # another layout after all: compile as usual from now on
        return re.compile(pattern, flags)

    def bind(self, transformer: Any) -> tuple[_Callbacks, dict[str, Callable[[Any], Any]]]:
        """Rule callbacks (lark's wrappers around the transformer's methods,
        by rule number, each made when its rule is first reduced: a parse
        reduces a fraction of the grammar's rules) and token callbacks
        (methods named after a terminal)."""
        tokens = {t: getattr(transformer, t) for t in self.terminals if callable(getattr(transformer, t, None))}
        return _Callbacks(self.rules, transformer), tokens

    def parse(self, text: str, start: str, bound: tuple[_Callbacks, dict[str, Callable[[Any], Any]]]) -> Any:
        """Parse ``text`` from ``start``; raise :class:`ParseFailure` where lark would raise."""
        callbacks, token_callbacks = bound
        states = self.states
        rules = self.rules
        state_lexer = self.state_lexer
        scanners = self._scanners
        unlesses = self._unless
        ignore = self.ignore
        newline = self.newline
        end_state = self.end_states[start]
        stack = [self.start_states[start]]
        values: list[Any] = []
        pos, line, line_start, n = 0, 1, 0, len(text)
        while True:
            # ---- the next token, lexed in the context of the current state
            ttype = "$END"
            tok: Any = None
            while pos < n:
                lexer = state_lexer[stack[-1]]
                scan = scanners[lexer] or self._scanner(lexer)
                m = scan(text, pos)
                if m is None:
                    raise ParseFailure
                value = m.group()
                ttype = m.lastgroup  # type: ignore[assignment]
                start_pos, start_line = pos, line
                column = pos - line_start + 1
                if ttype in newline:
                    breaks = value.count("\n")
                    if breaks:
                        line += breaks
                        line_start = pos + value.rindex("\n") + 1
                pos += len(value)
                if ttype in ignore:
                    ttype = "$END"
                    continue
                unless = unlesses[lexer]
                if unless and ttype in unless:
                    for mre in unless[ttype]:
                        whole = mre.fullmatch(value)
                        if whole:
                            ttype = whole.lastgroup  # type: ignore[assignment]
                            break
                tok = Token(ttype, value, start_pos, start_line, column, line, pos - line_start + 1, pos)
                break
            # ---- reduce as far as the token allows, then shift it
            while True:
                action = states[stack[-1]].get(ttype)
                if action is None:
                    raise ParseFailure
                if action >= 0:
                    stack.append(action)
                    values.append(token_callbacks[ttype](tok) if ttype in token_callbacks else tok)
                    break
                rule = -action - 1
                origin, size, _, _, _ = rules[rule]
                if size:
                    children = values[-size:]
                    del stack[-size:]
                    del values[-size:]
                else:
                    children = []
                value = callbacks[rule](children)
                stack.append(states[stack[-1]][origin])
                values.append(value)
                if tok is None and stack[-1] == end_state:
                    return values[-1]


# ----------------------------------------------------------------------------- the per-user cache


def _table_file(folder: str, grammar: str) -> str:
    tag = f"{zlib.crc32(grammar.encode()):08x}-{len(grammar)}"
    return os.path.join(folder, f"pddl-lalr-v{FORMAT}-py{sys.version_info[0]}{sys.version_info[1]}-{tag}.marshal")


def _valid(data: Any, grammar: str, start: tuple[str, ...]) -> bool:
    return (isinstance(data, dict) and data.get("format") == FORMAT and data.get("grammar") == grammar
            and data.get("python") == list(sys.version_info[:2]) and data.get("start") == list(start)
            and data.get("sre_magic") == _sre.MAGIC)


def load_tables(grammar: str, start: tuple[str, ...]) -> Tables:
    """The tables for ``grammar``: from the cache when it holds tables built
    from this very text (the stored grammar is compared in full), else built
    with lark now and stored for the next process. Raises ImportError or
    ``UnsupportedGrammar`` when they cannot be built."""
    folder = cache_folder()
    path = _table_file(folder, grammar) if folder else None
    if path is not None:
        try:
            with open(path, "rb") as f:
                data = marshal.loads(f.read())
            if _valid(data, grammar, start):
                return Tables(data)
        except (OSError, ValueError, EOFError, TypeError):
            pass
    from ._lalr_build import build_tables

    data = {**build_tables(grammar, start), "format": FORMAT}  # the runtime owns the format's version
    if path is not None:
        write_atomic(path, marshal.dumps(data))
    return Tables(data)
