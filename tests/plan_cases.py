"""Plans with their tasks, and corrupted variants of them, for agreement tests."""

from __future__ import annotations

import re
from pathlib import Path

STEP = re.compile(r"^\s*\(([^()]*)\)\s*$")


def plan_steps(text: str) -> list[str]:
    """The ``(action ...)`` lines of a plan file (comments dropped)."""
    return [line.strip() for line in text.splitlines() if STEP.match(line.split(";", 1)[0])]


def corruptions(steps: list[str]) -> dict[str, list[str]]:
    """Four deterministic edits of a plan (each may or may not stay valid)."""
    out: dict[str, list[str]] = {}
    if not steps:
        return out
    mid = len(steps) // 2
    out["drop-step"] = steps[:mid] + steps[mid + 1 :]
    if len(steps) >= 2:
        swapped = list(steps)
        swapped[mid - 1], swapped[mid] = swapped[mid], swapped[mid - 1]
        out["swap-steps"] = swapped
    for i in range(mid, mid + len(steps)):
        words = STEP.match(steps[i % len(steps)]).group(1).split()  # type: ignore[union-attr]
        if len(words) >= 3 and words[1] != words[2]:
            changed = list(steps)
            changed[i % len(steps)] = f"({words[0]} {words[2]} {words[1]} {' '.join(words[3:])})".replace(" )", ")")
            out["swap-args"] = changed
            break
    out["drop-last"] = steps[:-1]
    return out


def reference_plans(corpus: Path) -> list[tuple[str, Path, Path, Path]]:
    """(id, domain, problem, plan) for every plan file in the corpus."""
    cases = []
    for plan in sorted(corpus.glob("ipc2023-learning/*/plans/*.plan")):
        split = plan.parent.parent
        cases.append((f"{split.name}/{plan.stem}", split / "domain.pddl", split / f"{plan.stem}.pddl", plan))
    blocks = corpus / "potassco-pddl-instances" / "ipc2000-blocks-strips-typed"
    for plan in sorted(blocks.glob("plans-lama-first/*.plan"), key=lambda p: int(p.stem.split("-")[1])):
        cases.append((f"ipc2000-blocks/{plan.stem}", blocks / "domain.pddl", blocks / f"{plan.stem}.pddl", plan))
    return cases
