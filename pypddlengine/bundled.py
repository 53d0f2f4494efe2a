"""The tasks that ship with pypddlengine (``domains/`` and ``problems/``).

A bundled task is named ``<domain>/<problem>``, e.g. ``blocksworld/p01``: the
domain file is ``domains/<domain>.pddl`` and the problem file
``problems/<domain>/<problem>.pddl``. In a checkout (or an editable install)
the folders sit next to the package; a wheel carries them as
``pypddlengine/data/``.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from .errors import ErrorCode, PDDLError

__all__ = ["DEFAULT_TASK", "bundled_catalogue", "bundled_domains", "bundled_root", "bundled_task", "bundled_tasks"]

DEFAULT_TASK = "blocksworld/p01"
_PACKAGE = Path(__file__).resolve().parent


def bundled_root(kind: str) -> Path:
    """The folder holding bundled ``domains`` or ``problems``."""
    for candidate in (_PACKAGE / "data" / kind, _PACKAGE.parent / kind):
        if candidate.is_dir():
            return candidate
    raise PDDLError(f"the bundled {kind} folder is missing from this installation", code=ErrorCode.FILE_NOT_FOUND)


def bundled_domains() -> list[str]:
    return sorted(p.stem for p in bundled_root("domains").glob("*.pddl"))


def bundled_tasks(domain: str | None = None) -> list[str]:
    """Names of the bundled tasks (of one domain, or of all), sorted."""
    root = bundled_root("problems")
    domains = [domain] if domain else bundled_domains()
    names: list[str] = []
    for d in domains:
        folder = root / d
        if folder.is_dir():
            names.extend(f"{d}/{p.stem}" for p in sorted(folder.glob("*.pddl")))
    return names


def bundled_catalogue(domain: str | None = None) -> list[dict[str, Any]]:
    """Every bundled task (of one domain, or of all) with what
    ``problems/ladder.json`` says of it: ``size``, ``solvable``,
    ``optimal_length``, ``lama_first_length``, ``purpose`` ... (``None``
    where the table says nothing), in :func:`bundled_tasks` order."""
    ladder = bundled_root("problems") / "ladder.json"
    known = {t["task"]: t for t in json.loads(ladder.read_text())["tasks"]} if ladder.is_file() else {}
    fields = ("size", "solvable", "optimal_length", "optimal_by", "lama_first_length", "purpose")
    return [{"task": name, "domain": name.partition("/")[0], **{f: known.get(name, {}).get(f) for f in fields}}
            for name in bundled_tasks(domain)]


def bundled_task(name: str) -> tuple[Path, Path]:
    """Domain and problem paths of a bundled task (``PDDLError`` with code
    ``UNKNOWN_TASK`` and suggestions when there is no such task)."""
    domain, _, problem = name.strip().partition("/")
    d = bundled_root("domains") / f"{domain}.pddl"
    p = bundled_root("problems") / domain / f"{problem}.pddl"
    if "/" in problem or ".." in name or not d.is_file() or not p.is_file():
        known = bundled_tasks()
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        raise PDDLError(
            f"no bundled task '{name}'" + (f"; did you mean '{close[0]}'?" if close else ""),
            code=ErrorCode.UNKNOWN_TASK,
            hint=f"bundled tasks: {', '.join(known[:12])}{' ...' if len(known) > 12 else ''}",
            details={"suggestions": close},
        )
    return d, p
