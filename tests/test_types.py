"""The engine package type-checks: ``mypy`` with the ``[tool.mypy]`` settings
of pyproject.toml (every function annotated, bodies checked) reports no
error in any module of ``pypddlengine`` (the MCP server included). The
package ships ``py.typed``, so its annotations are a promise to its users."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("mypy", reason="mypy is not installed (it is in the test extra: pip install -e '.[test]')")


def test_the_engine_package_has_no_type_error(request: pytest.FixtureRequest) -> None:
    cache = request.config.cache.mkdir("mypy") if request.config.cache else None
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--no-color-output"]
    if cache is not None:
        cmd += ["--cache-dir", str(cache)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    out = done.stdout + done.stderr
    assert done.returncode == 0, f"mypy found type errors:\n{out}"
    # the configured files are the whole package: every module was checked, not a part of it
    modules = [p for p in (ROOT / "pypddlengine").rglob("*.py") if "__pycache__" not in p.parts]
    checked = re.search(r"Success: no issues found in (\d+) source files", out)
    assert checked is not None, out
    assert int(checked.group(1)) == len(modules), out


def test_the_check_can_fail(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """The same settings flag an unannotated function and a wrong type (so a
    passing check above means something)."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x):\n    return x\n\n\ndef g() -> int:\n    return 'no'\n")
    cache = request.config.cache.mkdir("mypy-bad") if request.config.cache else tmp_path / "cache"
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(cache), str(bad)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "[no-untyped-def]" in out and "[return-value]" in out, out
