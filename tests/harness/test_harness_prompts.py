"""Item 6: the agentic prompt says what the simulator's replies mean at the
run's feedback level. Every level has its text (a new level without one
fails here), every field a level's replies carry is named in its text, the
texts are hashed with the prompts, and the text of the configured level is
what the model receives (fake model server, real SDKs)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_scripts import AgentScript, run_with_fake_server

from pypddl_experiments.llm.clock import FakeClock
from pypddl_experiments.llm.mcp_bridge import Toolbox, ToolboxSettings
from pypddl_experiments.llm.prompts import AGENTIC, FEEDBACK_TEXTS, PromptSet
from pypddl_experiments.llm.runner import ExperimentConfig
from pypddl_experiments.llm.tasks import resolve_tasks
from pypddl_experiments.llm.types import CallParams
from pypddlengine.session import FeedbackLevel

LEVELS = [level.name.lower() for level in FeedbackLevel]

# fields that are bookkeeping, not signals about the task (the echo of the action, counters)
BOOKKEEPING = {"action", "step", "attempts_left", "message", "plan_source", "length", "steps_applied", "cost",
               "summary"}


def test_every_level_has_its_text() -> None:
    assert set(FEEDBACK_TEXTS) == set(LEVELS)
    assert dict(AGENTIC.levels) == FEEDBACK_TEXTS
    for level in LEVELS:
        assert AGENTIC.feedback_text(level) == FEEDBACK_TEXTS[level]


def test_a_level_without_a_text_is_refused_before_any_run() -> None:
    partial = PromptSet(AGENTIC.name, AGENTIC.version, AGENTIC.system, AGENTIC.user_template, AGENTIC.notes,
                        tuple((k, v) for k, v in AGENTIC.levels if k != "heuristic"))
    with pytest.raises(KeyError, match="heuristic"):
        ExperimentConfig("agentic", CallParams("m"), feedback="heuristic", prompts=partial)


def test_the_texts_are_part_of_the_prompt_hash() -> None:
    changed = PromptSet(AGENTIC.name, AGENTIC.version, AGENTIC.system, AGENTIC.user_template, AGENTIC.notes,
                        tuple((k, v + " ") for k, v in AGENTIC.levels))
    assert changed.sha256 != AGENTIC.sha256


def _fields(data: Any, prefix: str = "") -> set[str]:
    out = set()
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("state", "added", "deleted", "unsatisfied_goals", "unsatisfied") or not isinstance(value, dict):
                out.add(prefix + key)
            else:
                out |= _fields(value, prefix + key + ".")
    return out


async def _replies(level: str, blocks: Path) -> set[str]:
    """Every field (but bookkeeping) the replies of execute_single_action and
    validate_complete_plan carry in a short episode at ``level`` on IPC
    instance-1: successful and failed steps, a repeated state, a rejected and
    a history validation."""
    pinned = {"initialise_session": {"feedback": level, "rendering": "plain"}}
    domain, problem = blocks / "domain.pddl", blocks / "instance-1.pddl"
    seen: set[str] = set()
    async with Toolbox(ToolboxSettings(pinned=pinned), allowed_files=(domain, problem)) as tb:
        sid = (await tb.call("initialise_session", {"domain": "domain.pddl", "problem": "instance-1.pddl"}, 30)
               ).structured["session_id"]
        actions = ["(pick-up c)", "(put-down c)", "(pick-up c)", "(stack c a)", "(stack b c)", "(unstack c a)",
                   "(put-down c)", "(pick-up b)", "(stack b a)", "(unstack b a)"]  # (on b a) is a goal atom
        for action in actions:
            out = await tb.call("execute_single_action", {"session_id": sid, "action": action}, 30)
            seen |= _fields(out.structured)
        for plan in (["(pick-up c)"], ["(stack a b)"], None):
            args = {"session_id": sid} if plan is None else {"session_id": sid, "plan": plan}
            seen |= _fields((await tb.call("validate_complete_plan", args, 30)).structured)
    return {f for f in seen if f.rsplit(".", 1)[-1] not in BOOKKEEPING}


@pytest.mark.parametrize("level", LEVELS)
def test_every_field_of_a_level_is_explained_in_its_text(level: str, blocks: Path) -> None:
    fields = anyio.run(_replies, level, blocks)
    assert {"success", "goal_reached", "valid"} <= fields
    text = FEEDBACK_TEXTS[level]
    missing = sorted(f for f in fields if not re.search(rf"(?<![\w.]){re.escape(f)}(?!\w)", text))
    assert not missing, f"level {level}: replies carry {missing}, which its prompt text does not explain"
    if level == "paper":
        assert fields == {"success", "state", "goal_reached", "valid"}


@pytest.mark.parametrize("level", LEVELS)
def test_the_model_is_told_its_own_level(tmp_path: Path, blocks: Path, level: str) -> None:
    provider = "anthropic" if LEVELS.index(level) % 2 else "openai"
    config = ExperimentConfig("agentic", CallParams("scripted-model"), feedback=level)
    (record,), server = run_with_fake_server(AgentScript(blocks, {"instance-1": "oracle"}), provider, config,
                                             resolve_tasks(str(blocks / "instance-1.pddl")), tmp_path,
                                             clock=FakeClock())
    assert record["outcome"] == "solved" and record["tools"]["feedback"] == level
    assert record["llm"]["prompt_sha256"] == AGENTIC.sha256 and record["llm"]["prompt_version"] == "agentic-v2"
    prompt = server.requests[0].user_text()
    told = re.search(r"What the simulator tells you: (.*?)\n\n", prompt, re.S)
    assert told is not None and told.group(1) == FEEDBACK_TEXTS[level]
    init = server.requests[1].tool_results()[0]["text"]
    assert f'"feedback_level":"{level}"' in init
