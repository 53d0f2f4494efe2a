"""The parser's own LALR runtime (``syntax._lalr``) agrees with lark, and its
tables follow the grammar file.

The runtime replays lark's tables; these tests parse the same texts with both
and compare the parse trees node by node, every token with its type, text and
position (differential tests, lark is the oracle). They also check that tables
derived from one grammar text are never used for another: the ``numeric``
work changes ``pddl.lark`` while this runtime exists.
"""

from __future__ import annotations

import marshal
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Lark
from lark import Tree as LarkTree
from malformed_cases import BASE_DOMAIN, BASE_PROBLEM, CASES
from plan_cases import reference_plans

from pypddlengine.syntax import _lalr, parser
from pypddlengine.syntax._lalr import ParseFailure, Tables, Tree, load_tables
from pypddlengine.syntax._lalr_build import build_tables, lark_options

ROOT = Path(__file__).resolve().parents[2]
GRAMMAR = parser.grammar_text()
TOKEN_FIELDS = ("type", "value", "start_pos", "line", "column", "end_line", "end_column", "end_pos")


@pytest.fixture(scope="module")
def runtimes() -> tuple[Tables, Any, Lark]:
    tables = Tables(build_tables(GRAMMAR, parser.START))
    return tables, tables.bind(None), Lark(GRAMMAR, **lark_options(parser.START))


def _same(ours: Any, theirs: Any, where: str = "") -> None:
    if isinstance(theirs, LarkTree):
        assert isinstance(ours, Tree), f"{where}: {ours!r} is not a tree like {theirs.data}"
        assert ours.data == theirs.data, where
        assert len(ours.children) == len(theirs.children), f"{where}/{theirs.data}: children differ"
        for i, (a, b) in enumerate(zip(ours.children, theirs.children)):
            _same(a, b, f"{where}/{theirs.data}[{i}]")
    else:
        assert [getattr(ours, f) for f in TOKEN_FIELDS] == [getattr(theirs, f) for f in TOKEN_FIELDS], where


def agree(runtimes: tuple[Tables, Any, Lark], text: str, start: str) -> bool:
    """Both runtimes reject ``text``, or both build the same tree; True when parsed."""
    tables, bound, lark = runtimes
    try:
        theirs = lark.parse(text, start=start)
    except Exception:
        with pytest.raises(ParseFailure):
            tables.parse(text, start, bound)
        return False
    _same(tables.parse(text, start, bound), theirs)
    return True


def test_the_fast_runtime_is_in_use() -> None:
    """A grammar the runtime cannot replay would silently send every parse
    to lark (correct but slow): fail here instead."""
    assert parser._fast_parser() is not None


def test_bundled_files_parse_the_same(runtimes: tuple[Tables, Any, Lark]) -> None:
    files = sorted((ROOT / "domains").rglob("*.pddl")) + sorted((ROOT / "problems").rglob("*.pddl"))
    assert len(files) > 20
    for path in files:
        assert agree(runtimes, path.read_text(encoding="utf-8"), "pddl_file"), path


def test_malformed_cases_fail_in_both(runtimes: tuple[Tables, Any, Lark]) -> None:
    parsed = 0
    for case in CASES:
        for text in case[1:3]:
            if isinstance(text, str):
                parsed += agree(runtimes, text, "pddl_file")
    assert parsed  # most cases are semantic errors: their text parses


def _corpus_files(corpus: Path) -> list[Path]:
    return sorted(corpus.rglob("*.pddl"))


def test_corpus_sample_parses_the_same(corpus: Path, runtimes: tuple[Tables, Any, Lark]) -> None:
    files = _corpus_files(corpus)
    for path in random.Random(24).sample(files, min(120, len(files))):
        agree(runtimes, parser.read_text(path.read_bytes(), name=str(path)), "pddl_file")


@pytest.mark.slow
def test_whole_corpus_parses_the_same(corpus: Path, runtimes: tuple[Tables, Any, Lark]) -> None:
    numeric = corpus.parent / "numeric-benchmarks"
    files = _corpus_files(corpus) + (_corpus_files(numeric) if numeric.is_dir() else [])
    parsed = sum(agree(runtimes, parser.read_text(p.read_bytes(), name=str(p)), "pddl_file") for p in files)
    assert parsed > 0.9 * len(files)


def test_reference_plans_parse_the_same(corpus: Path, runtimes: tuple[Tables, Any, Lark]) -> None:
    plans = reference_plans(corpus)
    for _, _, _, plan in random.Random(7).sample(plans, min(60, len(plans))):
        assert agree(runtimes, plan.read_text(), "plan"), plan


_WORD = st.sampled_from(["a", "B1", "stack", "pick-up", "on_table", "x9", "?x", ":init", "and", "not", "12",
                         "0.5", "-", "=", "(", ")", ",", ";c\n", "[2]", "3:", "\n", " ", "\t", "\r\n", "é"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(_WORD, max_size=14), start=st.sampled_from(["plan", "action_ref"]))
def test_random_plans_and_actions_agree(runtimes: tuple[Tables, Any, Lark], words: list[str], start: str) -> None:
    agree(runtimes, " ".join(words), start)


_EDITS = [("(:requirements :strips :typing)", "(:requirements :strips :typing :negative-preconditions)"),
          ("(handempty)", "(HandEmpty)"), ("(clear ?y)", "(not (clear ?y))"), ("?x - block ?y", "?x ?y - block"),
          (":effect", ":effect ; note\n"), ("(on ?x ?y)", "(on ?x\n ?y)"), ("(and (clear", "(or (clear"),
          ("(handempty))", "(= ?x ?x))"), ("(:types block)", "(:types block - object (either))")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.sampled_from(_EDITS), max_size=4), cut=st.integers(0, 40))
def test_edited_domains_agree(runtimes: tuple[Tables, Any, Lark], edits: list[tuple[str, str]], cut: int) -> None:
    text = BASE_DOMAIN
    for old, new in edits:
        text = text.replace(old, new, 1)
    agree(runtimes, text, "pddl_file")
    agree(runtimes, text[: len(text) - cut], "pddl_file")  # truncated: most fail, in both
    agree(runtimes, BASE_PROBLEM.replace("(clear a)", text[cut: cut + 12]), "pddl_file")


# ----------------------------------------------------------------------------- tables follow the grammar


def test_tables_are_rebuilt_when_the_grammar_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("PYPDDL_NO_CACHE", raising=False)
    first = load_tables(GRAMMAR, parser.START)
    assert first.grammar == GRAMMAR
    assert len(list((tmp_path / "pypddlengine").glob("pddl-lalr-*.marshal"))) == 1
    # a grammar with one more alternative: new tables, which parse what the old ones cannot
    extended = GRAMMAR.replace('          | NAME "(" _ref_arg* ")"                 -> ref_call',
                               '          | NAME "(" _ref_arg* ")"                 -> ref_call\n'
                               '          | "@" NAME                               -> ref_at')
    assert extended != GRAMMAR
    second = load_tables(extended, parser.START)
    assert second.grammar == extended
    assert len(list((tmp_path / "pypddlengine").glob("pddl-lalr-*.marshal"))) == 2
    runtime = (second, second.bind(None), Lark(extended, **lark_options(parser.START)))
    assert agree(runtime, "@Stack", "action_ref")
    with pytest.raises(ParseFailure):
        first.parse("@Stack", "action_ref", first.bind(None))


def test_a_cache_file_from_another_grammar_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file name is only a digest: the stored grammar text is compared in full."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("PYPDDL_NO_CACHE", raising=False)
    load_tables(GRAMMAR, parser.START)
    (path,) = (tmp_path / "pypddlengine").glob("pddl-lalr-*.marshal")
    stale = marshal.loads(path.read_bytes())
    stale["grammar"] = GRAMMAR + "// an older version\n"
    stale["states"] = []  # unusable tables: using them would fail every parse
    path.write_bytes(marshal.dumps(stale))
    tables = load_tables(GRAMMAR, parser.START)
    assert tables.states and tables.grammar == GRAMMAR
    assert marshal.loads(path.read_bytes())["grammar"] == GRAMMAR  # rewritten
    path.write_bytes(b"not marshal data")
    assert load_tables(GRAMMAR, parser.START).states


def test_no_cache_builds_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("PYPDDL_NO_CACHE", "1")
    tables = load_tables(GRAMMAR, parser.START)
    assert tables.states
    assert not (tmp_path / "pypddlengine").exists()
    assert _lalr.FORMAT >= 1


def test_stored_regex_forms_compile_to_the_same_patterns(runtimes: tuple[Tables, Any, Lark]) -> None:
    """The tables carry each lexer pattern in ``re``'s compiled form; loading
    it gives the pattern ``re.compile`` gives (same groups, same matches)."""
    import re

    tables = runtimes[0]
    forms = dict(tables._compiled_forms)
    assert forms, "no compiled forms stored: every process would compile the lexer's regexes"
    samples = ["(on a b) (clear c)", "?x - block", ":precondition", "(and", "0: (pick-up a) [1]", "; c\n x",
               "-12.5", "<= =", "(not (p))"]
    for key in forms:
        flags, pattern = key.split(":", 1)
        ours, theirs = tables._compile(pattern, int(flags)), re.compile(pattern, int(flags))
        assert (ours.pattern, ours.flags, ours.groups, ours.groupindex) == \
            (theirs.pattern, theirs.flags, theirs.groups, theirs.groupindex)
        for text in samples:
            for pos in range(len(text)):
                a, b = ours.match(text, pos), theirs.match(text, pos)
                assert (a and (a.group(), a.lastgroup)) == (b and (b.group(), b.lastgroup))


def test_tables_from_another_regex_engine_are_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("PYPDDL_NO_CACHE", raising=False)
    load_tables(GRAMMAR, parser.START)
    (path,) = (tmp_path / "pypddlengine").glob("pddl-lalr-*.marshal")
    data = marshal.loads(path.read_bytes())
    data["sre_magic"] -= 1
    data["compiled"] = {key: (0, [], 0, {}, ()) for key in data["compiled"]}  # unusable forms
    path.write_bytes(marshal.dumps(data))
    tables = load_tables(GRAMMAR, parser.START)
    runtime = (tables, tables.bind(None), Lark(GRAMMAR, **lark_options(parser.START)))
    assert agree(runtime, BASE_DOMAIN, "pddl_file")
