"""The temporal corpus (../shared/temporal-benchmarks, read by path) and VAL and
LPG as oracles for timed plans (issue 31)."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import subprocess
import tempfile
from fractions import Fraction
from pathlib import Path

from oracles import val_binary

HERE = Path(__file__).resolve().parent
TEMPORAL_CORPUS = Path(os.environ.get("PYPDDL_TEMPORAL_CORPUS",
                                      HERE.parent.parent / "shared" / "temporal-benchmarks")).resolve()
TEMPORAL_REASON = f"temporal corpus not found at {TEMPORAL_CORPUS} (set PYPDDL_TEMPORAL_CORPUS)"


def temporal_index() -> list[dict]:
    index = TEMPORAL_CORPUS / "index.json"
    return json.loads(index.read_text()) if index.is_file() else []


def domain_file(folder: Path, problem: str) -> Path:
    """The domain of ``problem``: ``domain.pddl``, or the per-instance file some tracks have."""
    for name in (f"domain-{problem}", f"domain-domain-{problem.removeprefix('instance-')}", "domain.pddl"):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"no domain for {folder / problem}")


def temporal_tasks(limit: int | None = None) -> list[tuple[str, Path, Path]]:
    """``(id, domain, problem)`` of the corpus, the first ``limit`` problems of each domain."""
    out = []
    for entry in temporal_index():
        folder = TEMPORAL_CORPUS / entry["folder"]
        for name in entry["problems"][:limit]:
            out.append((f"{entry['folder']}/{name}", domain_file(folder, name), folder / name))
    return out


def val_timed(domain: Path, problem: Path, plan_text: str, epsilon: str = "0.01") -> tuple[bool, Fraction | None, str]:
    """VAL's verdict on a timed plan at tolerance ``epsilon`` (read from its
    text, not its exit code), the value it prints ("Final value: N"), and its output."""
    binary = val_binary()
    assert binary is not None
    with tempfile.NamedTemporaryFile("w", suffix=".plan", delete=False) as f:
        f.write(plan_text)
    try:
        out = subprocess.run([str(binary), "-t", epsilon, str(domain), str(problem), f.name],
                             capture_output=True, text=True, timeout=120).stdout
    finally:
        Path(f.name).unlink(missing_ok=True)
    found = re.search(r"^Final value: (\S+)", out, re.MULTILINE)
    return "Plan valid" in out, Fraction(found.group(1)) if found else None, out


@functools.cache
def lpg_binary() -> Path | None:
    spec = importlib.util.find_spec("up_lpg")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "lpg"
    return path if path.is_file() else None


def lpg_plan(domain: Path, problem: Path, timeout: float = 20, seed: int = 1) -> str | None:
    """LPG-td's first plan for a task (its ``.SOL`` text, with the stray ``)`` it
    writes after some steps removed), or ``None`` when it finds none in time."""
    binary = lpg_binary()
    assert binary is not None
    with tempfile.TemporaryDirectory() as tmp:
        try:
            subprocess.run([str(binary), "-o", str(domain), "-f", str(problem), "-n", "1", "-seed", str(seed), "-out",
                            str(Path(tmp) / "plan")], capture_output=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return None
        sol = Path(tmp) / "plan_1.SOL"
        if not sol.is_file():
            return None
        return "".join(re.sub(r"\]\)\s*$", "]", line) + "\n" for line in sol.read_text().splitlines())


_LINE = re.compile(r"^\s*([0-9.]+)\s*:\s*(\([^)]*\))\s*\[([0-9.]+)\]\s*$")


def plan_lines(text: str) -> list[tuple[Fraction, str, Fraction]]:
    return [(Fraction(m.group(1)), m.group(2), Fraction(m.group(3))) for m in map(_LINE.match, text.splitlines()) if m]


def plan_text(lines: list[tuple[Fraction, str, Fraction]]) -> str:
    return "".join(f"{float(t):.4f}: {a} [{float(d):.4f}]\n" for t, a, d in lines)


def corruptions(text: str) -> dict[str, str]:
    """Variants of a timed plan: drop a step, start one earlier, stretch a
    duration, swap two starts, and move a start next to the previous one's end."""
    lines = plan_lines(text)
    out: dict[str, str] = {}
    if not lines:
        return out
    mid = len(lines) // 2
    out["drop"] = plan_text(lines[:mid] + lines[mid + 1:])
    t, a, d = lines[-1]
    out["shift-earlier"] = plan_text([*lines[:-1], (max(Fraction(0), t - d / 2 - 1), a, d)])
    t, a, d = lines[mid]
    out["stretch"] = plan_text([*lines[:mid], (t, a, d * 2), *lines[mid + 1:]])
    if len(lines) > 1:
        (t1, a1, d1), (t2, a2, d2) = lines[0], lines[-1]
        out["swap-starts"] = plan_text([(t1, a2, d2), *lines[1:-1], (t2, a1, d1)])
        ends = [t0 + d0 for t0, _, d0 in lines[:-1]]
        t, a, d = lines[-1]
        if ends:
            out["break-epsilon-gap"] = plan_text([*lines[:-1], (max(ends) + Fraction(5, 10000), a, d)])
    return out
