"""Derive the parse tables of :mod:`._lalr` from the grammar, with lark.

Imported only when the tables are not cached yet (first use after an install
or a grammar change), so ordinary commands never import lark. Everything is
read from lark's own analysis of ``pddl.lark``: the LALR action table, the
terminals each parser state's lexer tries (in lark's order, after its
keyword-folding "unless" step) and, per rule, lark's tree-shaping decisions
(which children are kept or inlined, ``?rule`` expansion). Nothing about the
grammar is restated here, so a grammar edit needs no edit in this file; a
grammar that needs a lark feature the runtime does not implement fails the
build loudly (:class:`UnsupportedGrammar`) and the parser falls back to lark.
"""

from __future__ import annotations

import sys
from typing import Any

from lark import Lark
from lark.lexer import Scanner, UnlessCallback
from lark.parse_tree_builder import ChildFilterLALR_NoPlaceholders, ExpandSingleChild
from lark.parsers.lalr_analysis import Shift

__all__ = ["UnsupportedGrammar", "build_tables", "lark_options"]


class UnsupportedGrammar(Exception):
    """The grammar uses a lark feature that :mod:`._lalr` does not replay."""


def lark_options(start: tuple[str, ...]) -> dict[str, Any]:
    """The options of the one lark parser (the reference runtime uses the same)."""
    return {"parser": "lalr", "lexer": "contextual", "start": list(start), "maybe_placeholders": False}


def _patterns(scanner: Any) -> list[tuple[str, int]]:
    return [(mre.pattern, mre.flags) for mre in scanner._mres]


class _Recorder:
    """Stands in for the ``_sre`` module while ``re`` compiles a pattern and
    keeps the arguments of its last ``_sre.compile`` call: the pattern's
    compiled form, which the runtime hands to ``_sre.compile`` itself."""

    def __init__(self, sre: Any) -> None:
        self._sre = sre
        self.args: tuple[Any, ...] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sre, name)

    def compile(self, *args: Any) -> Any:
        self.args = args
        return self._sre.compile(*args)


def compiled_forms(patterns: set[tuple[str, int]]) -> dict[str, bytes]:
    """``pattern -> arguments of _sre.compile`` as the ``re`` module of this
    Python computes them (its pattern parser and code generator, unchanged),
    each marshalled on its own (the runtime reads a form when its lexer is
    first used). Loading them spares each process the pure-Python regex
    compiler, a third of parsing a small domain; keyed in the tables by
    ``_sre.MAGIC``."""
    import marshal
    from re import _compiler  # type: ignore[attr-defined]  # private (3.11+), absent from typeshed's re stubs

    forms: dict[str, bytes] = {}
    real = _compiler._sre
    recorder = _Recorder(real)
    _compiler._sre = recorder  # type: ignore[assignment]
    try:
        for pattern, flags in sorted(patterns):
            recorder.args = None
            _compiler.compile(pattern, flags)
            if recorder.args is None or recorder.args[0] != pattern:
                return {}
            final, code, groups, groupindex, indexgroup = recorder.args[1:]
            forms[f"{flags}:{pattern}"] = marshal.dumps((int(final), [int(c) for c in code], int(groups),
                                                         dict(groupindex), tuple(indexgroup)))  # plain ints
    finally:
        _compiler._sre = real  # type: ignore[assignment]
    return forms


def _split_scanner(scanner: Any, conf: Any) -> list[tuple[str, int]]:
    """The patterns a state's lexer tries in turn: lark's one union pattern,
    except that the leading higher-priority terminals (the long atom-run
    terminals) come first as patterns of their own. Alternation takes the
    first alternative that matches, so trying them alone first and then the
    union of the rest finds the same terminal and text; the long patterns are
    then compiled once per process instead of once inside every state's union."""
    terminals = list(scanner.terminals)
    lowest = min(t.priority for t in terminals)
    head = [t for t in terminals if t.priority > lowest]
    if not head or terminals[: len(head)] != head:
        return _patterns(scanner)
    tail = Scanner(terminals[len(head):], conf.g_regex_flags, conf.re_module, conf.use_bytes)
    own = [(f"(?P<{t.name}>{t.pattern.to_regexp()})", conf.g_regex_flags) for t in head]
    return own + _patterns(tail)


def build_tables(grammar: str, start: tuple[str, ...]) -> dict[str, Any]:
    """Analyse ``grammar`` with lark and return the tables as plain data
    (dicts, lists, tuples, strings and ints: marshal can store them)."""
    parser = Lark(grammar, **lark_options(start))
    frontend = parser.parser
    table = frontend.parser.parser.parse_table
    lexer = frontend.lexer
    conf = frontend.lexer_conf
    if conf.g_regex_flags or conf.use_bytes or conf.callbacks or parser.options.postlex is not None:
        raise UnsupportedGrammar("lexer options beyond the defaults (flags, bytes, callbacks, a post-lexer)")

    # rules, in lark's order, with their tree-shaping wrappers
    rule_index: dict[Any, int] = {}
    rules: list[tuple[str, int, str, bool, tuple[tuple[int, bool], ...] | None]] = []
    for rule, chain in parser._parse_tree_builder.rule_builders:
        expand1 = False
        keep: tuple[tuple[int, bool], ...] | None = None
        for wrapper in chain:
            if wrapper is ExpandSingleChild:
                expand1 = True
            elif getattr(wrapper, "func", None) is ChildFilterLALR_NoPlaceholders:
                keep = tuple((int(i), bool(expand)) for i, expand in wrapper.args[0])
            else:
                raise UnsupportedGrammar(f"tree wrapper {wrapper!r} on rule {rule}")
        name = rule.alias or rule.options.template_source or rule.origin.name
        rule_index[rule] = len(rules)
        rules.append((str(rule.origin.name), len(rule.expansion), str(name), expand1, keep))

    # the action table: a shift is the next state (>= 0), a reduce -(rule + 1)
    states: list[dict[str, int]] = [{} for _ in range(len(table.states))]
    for state, actions in table.states.items():
        row = states[state]
        for symbol, (action, arg) in actions.items():
            row[str(symbol)] = int(arg) if action is Shift else -(rule_index[arg] + 1)

    # one lexer per distinct scanner; each state names its lexer
    lexers: list[tuple[list[tuple[str, int]], dict[str, list[tuple[str, int]]]]] = []
    lexer_ids: dict[Any, int] = {}
    state_lexer = [0] * len(states)
    for state, basic in lexer.lexers.items():
        scanner = basic.scanner  # builds it, with lark's keyword ("unless") callbacks
        unless: dict[str, list[tuple[str, int]]] = {}
        for name, callback in basic.callback.items():
            if not isinstance(callback, UnlessCallback):
                raise UnsupportedGrammar(f"lexer callback {callback!r} on {name}")
            unless[name] = _patterns(callback.scanner)
        entry = (_split_scanner(scanner, conf), unless)
        key = repr(entry)
        if key not in lexer_ids:
            lexer_ids[key] = len(lexers)
            lexers.append(entry)
        state_lexer[state] = lexer_ids[key]
    first = next(iter(lexer.lexers.values()))
    patterns = {p for entry in lexers for p in entry[0]} | {
        p for entry in lexers for pats in entry[1].values() for p in pats}
    import _sre

    return {
        "sre_magic": _sre.MAGIC,
        "compiled": compiled_forms(patterns),
        "python": list(sys.version_info[:2]),
        "grammar": grammar,
        "start": list(start),
        "start_states": {s: int(table.start_states[s]) for s in start},
        "end_states": {s: int(table.end_states[s]) for s in start},
        "states": states,
        "rules": rules,
        "lexers": lexers,
        "state_lexer": state_lexer,
        "ignore": sorted(first.ignore_types),
        "newline": sorted({t.name for t in parser.terminals if _has_newline(t.pattern.to_regexp())}),
        "terminals": sorted(t.name for t in parser.terminals),
    }


def _has_newline(regexp: str) -> bool:
    from lark.lexer import _regexp_has_newline

    return bool(_regexp_has_newline(regexp))
