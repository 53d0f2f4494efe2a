"""The package configuration ships every bundled domain and problem folder."""

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
                                                                   "experiment"}
