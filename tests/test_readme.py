"""The README and the documentation pages (docs/): their Python examples run
and print what the text says they print, and what the README promises a
newcomer (the two commands, the tour, where to go next) holds."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def doc_pages() -> list[Path]:
    """The README and every Markdown page of the site (docs/reference/ holds run records, not pages)."""
    pages = sorted(p for p in DOCS.rglob("*.md") if "reference" not in p.relative_to(DOCS).parts)
    return [README, *pages]


def _blocks(page: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", page.read_text(), re.S | re.M)


def _expectations(block: str) -> list[str]:
    """The output each print() is documented to give: a trailing comment on the
    print line, or the comment line right after it. '...' ends a prefix."""
    lines = block.splitlines()
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("print("):
            continue
        code, _, comment = line.partition("  # ")
        if comment:
            out.append(comment.strip())
        elif i + 1 < len(lines) and lines[i + 1].startswith("# "):
            out.append(lines[i + 1][2:].strip())
        else:
            out.append("")
    return out


def _matches(expected: str, actual: str) -> bool:
    if not expected:
        return True
    if expected.endswith("...]") or expected.endswith("..."):
        return actual.startswith(expected.rstrip(".]").rstrip(", "))
    return actual == expected


def test_readme_has_a_python_example() -> None:
    assert _blocks(README)


def _missing_extras(block: str) -> list[str]:
    """The third-party modules a block imports that are not installed (the extras' examples)."""
    names = re.findall(r"^(?:import|from) (\w+)", block, re.M)
    return sorted({n for n in names if n != "pypddlengine" and importlib.util.find_spec(n) is None})


PAGES_WITH_PYTHON = [p for p in doc_pages() if _blocks(p)]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("page", PAGES_WITH_PYTHON, ids=[str(p.relative_to(ROOT)) for p in PAGES_WITH_PYTHON])
def test_python_examples_print_what_they_claim(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    skipped = []
    for block in _blocks(page):
        missing = _missing_extras(block)
        if missing:  # an extra's example (gym, up) without that extra installed
            skipped.append(f"{block.splitlines()[0]!r} needs {', '.join(missing)}")
            continue
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            exec(compile(block, str(page), "exec"), {})
        printed = buffer.getvalue().splitlines()
        expected = _expectations(block)
        assert len(printed) == len(expected), (page.name, printed, expected)
        for exp, act in zip(expected, printed):
            assert _matches(exp, act), f"{page.name} says {exp!r}, code printed {act!r}"
    if skipped:
        pytest.skip(f"the other examples ran; not installed for these: {'; '.join(skipped)}")


# ------------------------------------------------------------------ the README: a newcomer's first ten minutes

def test_the_readme_stays_a_first_ten_minutes_page() -> None:
    """What it is, the two commands, the tour, where to go next; the rest lives in docs/."""
    text = README.read_text()
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings == ["Install and run the demo", "Five-minute tour", "Where to go next"], headings
    assert len(text.splitlines()) <= 150, "the README grew: move the new text to a page under docs/"


def test_the_readme_has_the_two_commands_and_ci_runs_the_second_verbatim() -> None:
    text = README.read_text()
    install, tests = "pip install -e . && pypddl demo", 'pip install -e ".[test]" && python -m pytest'
    assert f"```sh\n{install}\n```" in text and f"```sh\n{tests}\n```" in text
    assert tests in (ROOT / ".ci" / "run").read_text()


def test_the_readme_says_how_long_the_tests_take_and_what_runslow_adds() -> None:
    text = " ".join(README.read_text().split())
    assert "about 9 minutes on a quiet machine" in text and "22 minutes on a loaded 2-core" in text
    assert "--runslow" in text and "skipped" in text


def test_every_relative_link_of_the_readme_and_the_pages_resolves() -> None:
    """A moved page or a renamed file breaks no link (mkdocs --strict checks the site's links; this one checks
    the README's, which GitHub shows, and works without mkdocs)."""
    broken = []
    for page in doc_pages():
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#")[0]
            if path and not (page.parent / path).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


# ------------------------------------------------------------------ facts the pages must keep

MCP_PAGE = DOCS / "mcp.md"


def test_inspector_steps_name_the_release_that_works_and_node_once() -> None:
    """Issue 25 item 13: a bare ``npx @modelcontextprotocol/inspector`` may run
    an old release from npx's cache (no ``--header``); the docs name
    ``@latest`` everywhere and state the Node.js version in one place."""
    texts = [p.read_text() for p in doc_pages()]
    assert "@modelcontextprotocol/inspector" in MCP_PAGE.read_text()
    assert not [m for t in texts for m in re.findall(r"@modelcontextprotocol/inspector(?!@latest)", t)]
    versions = [m for t in texts for m in re.findall(r"Node\.js \d[\d.]*", t)]
    assert len(versions) == 1, versions


def test_inspector_test_runs_the_release_the_docs_name() -> None:
    source = (ROOT / "tests" / "mcp" / "test_mcp_inspector.py").read_text()
    assert '"@modelcontextprotocol/inspector@latest"' in source


def test_the_docs_name_the_mcp_resources_and_the_shipped_reference_records() -> None:
    """Issue 25 item 16: both exist and were not mentioned."""
    assert "pddl://domains/<domain>" in MCP_PAGE.read_text()
    assert "pddl://problems/<domain>/<task>" in MCP_PAGE.read_text()
    baselines = (DOCS / "baselines.md").read_text()
    assert "docs/reference/runs.jsonl" in baselines and "`docs/reference/`" in baselines
    assert all((DOCS / "reference" / name).is_file()
               for name in ("runs.jsonl", "report.txt", "difficulty.json", "README.md"))


def test_the_main_reference_run_is_the_papers_release_and_26_6_the_comparison() -> None:
    """Issue 34: docs/reference/runs.jsonl, the first reference a reader meets,
    is the Fast Downward 23.06 run that reproduces the paper (lama-first
    87/102); the 26.6 run sits in docs/reference/26.6."""
    import json

    reference = README.parent / "docs" / "reference"
    for folder, release, solved in ((reference, "23.06", 87), (reference / "26.6", "26.6", 84)):
        records = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines() if line.strip()]
        assert len(records) == 204
        assert {r["planner"]["fd_release"] for r in records} == {release}
        lama = [r for r in records if r["planner"]["config"] == "lama-first"]
        assert sum(r["outcome"] == "solved" for r in lama) == solved
        assert (folder / "README.md").is_file() and (folder / "report.txt").is_file()
