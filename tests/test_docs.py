"""The documentation site (mkdocs.yml, docs/) builds with warnings as errors,
its navigation names every page, and the API reference has a page per public
module. The examples of the pages run in tests/test_readme.py (Python) and
tests/test_readme_commands.py (shell blocks marked runnable)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CONFIG = ROOT / "mkdocs.yml"


# The modules a user imports (the package's public names, the adapters, the MCP server's pieces): each has a
# page under docs/api/ whose body is the mkdocstrings directive "::: <module>".
PUBLIC_MODULES = [
    "pypddlengine", "pypddlengine.session", "pypddlengine.loading", "pypddlengine.validate", "pypddlengine.errors",
    "pypddlengine.model", "pypddlengine.syntax", "pypddlengine.printer", "pypddlengine.checker",
    "pypddlengine.lifted", "pypddlengine.step", "pypddlengine.task", "pypddlengine.grounding", "pypddlengine.exact",
    "pypddlengine.numeric", "pypddlengine.heuristics", "pypddlengine.landmarks", "pypddlengine.deadends",
    "pypddlengine.feedback", "pypddlengine.observation", "pypddlengine.relabel", "pypddlengine.bundled",
    "pypddlengine.sources", "pypddlengine.gym", "pypddlengine.up", "pypddlengine.mcp_server",
    "pypddlengine.mcp_server.server", "pypddlengine.mcp_server.tools", "pypddlengine.mcp_server.models",
    "pypddlengine.mcp_server.wire", "pypddlengine.mcp_server.http",
    "pypddlengine.temporal", "pypddlengine.temporal_session", "pypddlengine.exam",
]


def _nav_pages() -> list[str]:
    """The pages the nav of mkdocs.yml names."""
    nav = CONFIG.read_text().split("\nnav:", 1)[1]
    return re.findall(r"^\s*- [^:\n]+:\s*(\S+\.md)\s*$", nav, re.M)


def test_the_nav_names_every_page_and_only_pages_that_exist() -> None:
    nav = _nav_pages()
    assert len(nav) == len(set(nav)), "a page is listed twice"
    missing = [p for p in nav if not (DOCS / p).is_file()]
    assert not missing, f"the nav names pages that do not exist: {missing}"
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")
             if p.relative_to(DOCS).parts[0] not in ("reference", "examples")}
    assert sorted(pages - set(nav)) == [], "pages missing from the nav of mkdocs.yml"


def test_the_api_reference_has_a_page_per_public_module() -> None:
    pages = {p.stem: p.read_text() for p in (DOCS / "api").glob("*.md")}
    documented = {m for text in pages.values() for m in re.findall(r"^::: (\S+)$", text, re.M)}
    assert documented == set(PUBLIC_MODULES)
    for module in PUBLIC_MODULES:  # each one exists (a renamed module breaks its page, not silently)
        assert importlib.util.find_spec(module) is not None, module


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent is missing
        return False


def _missing_tools() -> list[str]:
    tools = (("mkdocs", "mkdocs"), ("mkdocs-material", "material"),
             ("mkdocstrings[python]", "mkdocstrings_handlers.python"))
    return [name for name, module in tools if not _installed(module)]


@pytest.mark.timeout(900)
def test_the_site_builds_with_warnings_as_errors(tmp_path: Path) -> None:
    missing = _missing_tools()
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)} (the docs and test extras install them)")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(CONFIG),
                           "--site-dir", str(site)], cwd=ROOT, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "WARNING" not in done.stderr, done.stderr[-4000:]
    # the API reference is rendered from the docstrings, not an empty page
    session = (site / "api" / "session" / "index.html").read_text()
    assert "A step-wise simulation session" in session and "open_session" in session
    # the tour's pages are there, and the run records stayed out of the site
    assert (site / "validation" / "index.html").is_file() and not (site / "reference").exists()
    assert not (site / "hooks").exists()
    # docstrings' Sphinx roles (:func:`x`) are shown as code, without the role's name (docs/hooks/roles.py)
    assert ":func:`" in (ROOT / "pypddlengine" / "session.py").read_text()
    api = [page.read_text() for page in (site / "api").rglob("*.html")]
    assert api and not [page for page in api if re.search(r":(func|class|meth|mod|attr|data):<code>", page)]
