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
