"""The package configuration ships every bundled domain and problem folder; a wheel and an
editable install (a plain path entry) work from fresh venvs."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_problem_folder_is_a_declared_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = set(config["tool"]["setuptools"]["packages"])
    folders = {p.name for p in (ROOT / "problems").iterdir() if p.is_dir()}
    missing = {f"pypddlengine.data.problems.{f}" for f in folders} - packages
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"


def test_every_bundled_problem_has_its_domain() -> None:
    domains = {p.stem for p in (ROOT / "domains").glob("*.pddl")}
    folders = {p.name for p in (ROOT / "problems").iterdir() if p.is_dir()}
    assert folders <= domains


def test_every_experiment_package_is_declared_and_both_import_names_ship() -> None:
    """The experiment side ships as its own import name, from baselines/."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = config["tool"]["setuptools"]
    packages = set(setuptools["packages"])
    source = ROOT / "baselines"
    found = {".".join(p.parent.relative_to(source).parts) for p in source.rglob("__init__.py")}
    assert found == {p for p in packages if p.startswith("pypddl_experiments")}, "declare them in pyproject.toml"
    assert setuptools["package-dir"]["pypddl_experiments"] == "baselines/pypddl_experiments"
    assert not any(p.startswith("pypddlengine.") and "baselines" in p for p in packages)
    entry = config["project"]["entry-points"]["pypddl.commands"]["experiments"]
    module, _, attr = entry.partition(":")
    import importlib

    assert set(getattr(importlib.import_module(module), attr)) == {"solve", "batch", "reference", "generate",
                                                                   "benchmark", "experiment", "exam-llm"}


# --- fresh installs: the wheel and the editable install, each in its own venv ---

import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import sysconfig  # noqa: E402

import pytest  # noqa: E402

# What each fresh install runs: where the package and its bundled tasks come
# from, whether the C extension is in use, whether an import hook was
# installed, and one bundled task validated end to end.
_PROBE = """
import json, sys
import pypddlengine, pypddlengine.heuristics as h
from pypddlengine.bundled import bundled_root, bundled_tasks
print(json.dumps({
    "package": pypddlengine.__file__,
    "problems": str(bundled_root("problems")),
    "accelerated": h.ACCELERATED,
    "finders": [type(f).__module__ for f in sys.meta_path],
    "tasks": len(bundled_tasks()),
}))
"""


def _fresh_venv(where: Path) -> tuple[Path, Path]:
    """A venv without pip's dependencies installed: the running interpreter's
    site-packages come last on its path (a plain line in a ``.pth``, whose own
    ``.pth`` files are not run), so lark, click and mcp import."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True, timeout=300)
    python = where / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "zz_shared_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return python, site


def _pip(python: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_REQUIRE_VIRTUALENV")}
    done = subprocess.run([str(python), "-m", "pip", *args], capture_output=True, text=True, timeout=900, env=env)
    if done.returncode and "setuptools" in done.stderr and ("Could not find" in done.stderr
                                                            or "No matching distribution" in done.stderr):
        pytest.skip("the build backend (setuptools>=77) cannot be installed here (offline?)")
    assert done.returncode == 0, done.stderr[-3000:]


def _probe(python: Path, cwd: Path) -> dict:
    import json

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(python), "-c", _PROBE], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _pypddl_demo(python: Path, cwd: Path) -> None:
    """The README's first command, ``pypddl demo``, from the installed script."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([str(python.parent / "pypddl"), "demo"], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)
    assert done.returncode == 0 and "VALID plan" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]


@pytest.mark.slow  # two venvs, a build and pypddl demo: about 40 s quiet, 90 s on a loaded 2-core machine
def test_editable_install_is_a_plain_path_entry(tmp_path: Path) -> None:
    """``pip install -e .`` writes a ``.pth`` naming the checkout and
    ``baselines/`` (no import-hook finder), and the bundled tasks and the C
    extension work from it."""
    python, site = _fresh_venv(tmp_path / "venv")
    _pip(python, "install", "--no-deps", "-q", "-e", str(ROOT))
    pths = {p.name: p.read_text() for p in site.glob("*.pth") if p.name != "zz_shared_deps.pth"}
    editable = [text for name, text in pths.items() if name.startswith("__editable__")]
    assert editable and editable[0].split() == [str(ROOT), str(ROOT / "baselines")], pths
    assert not list(site.glob("__editable__*finder*.py"))
    got = _probe(python, tmp_path)
    assert Path(got["package"]).parent == ROOT / "pypddlengine"
    assert Path(got["problems"]) == ROOT / "problems"
    assert got["tasks"] >= 10
    assert not any("editable" in f for f in got["finders"]), got["finders"]
    # setup.py builds the extension in place when a C compiler is present
    if list((ROOT / "pypddlengine").glob("_relaxed*.so")):
        assert got["accelerated"]
    _pypddl_demo(python, tmp_path)


@pytest.mark.slow
def test_wheel_ships_the_bundled_tasks_and_the_extension(tmp_path: Path) -> None:
    python, site = _fresh_venv(tmp_path / "venv")
    _pip(python, "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(ROOT))
    (wheel,) = (tmp_path / "dist").glob("pypddlengine-*.whl")
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata
    assert "pypddlengine/data/domains/blocksworld.pddl" in names
    assert "pypddl_experiments/commands.py" in names
    _pip(python, "install", "--no-deps", "-q", str(wheel))
    got = _probe(python, tmp_path)
    assert Path(got["package"]).is_relative_to(site)
    assert Path(got["problems"]) == site / "pypddlengine" / "data" / "problems"
    assert got["tasks"] >= 10
    if any(n.endswith(".so") for n in names):
        assert got["accelerated"]
    _pypddl_demo(python, tmp_path)
