"""The public API: every exported name resolves, and the package imports lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

import pypddlengine


def test_every_public_name_resolves() -> None:
    for name in pypddlengine.__all__:
        assert getattr(pypddlengine, name) is not None, name
    assert set(pypddlengine.__all__) <= set(dir(pypddlengine))


def test_unknown_attribute_raises() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        pypddlengine.__getattr__("no_such_thing")


def test_importing_the_package_loads_no_engine_module() -> None:
    code = "import sys, pypddlengine; print([m for m in sys.modules if m.startswith('pypddlengine.')])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
