"""`pypddl demo --task workshop/p02` (issue 31): the demo's scripted agent
waits, starts and ends actions through the MCP tools to the goal of a task that
requires concurrency; the timed plan it prints is valid for VAL too."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
from oracles import val_binary
from temporal_oracles import val_timed_verdict

from pypddlengine.bundled import bundled_task
from pypddlengine.cli_serve import run_demo


def test_the_demo_agent_reaches_the_goal_of_a_temporal_task() -> None:
    lines: list[str] = []
    assert anyio.run(run_demo, "workshop/p02", "heuristic", lines.append) is True
    text = "\n".join(lines)
    assert re.search(r"step +\d+ +wait -> ", text) and re.search(r"step +\d+ +\(end \d+\)", text)
    assert "VALID plan" in text
    plan = "".join(line.strip() + "\n" for line in lines if re.match(r"^\s+[\d.]+: \(", line))
    assert plan.count("\n") >= 3 and "(repair t1 m1 b1)" in plan
    if val_binary() is not None:
        domain, problem = bundled_task("workshop/p02")
        assert val_timed_verdict(Path(domain), Path(problem), plan).valid
