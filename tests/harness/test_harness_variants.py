"""Harness settings: relabelled tasks (the model sees only the copy; plans are
mapped back and scored on the original) and partial observability (pinned on
initialise_session; the prompt shows only the visible initial facts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from harness_scripts import lama_plan

from pypddl_experiments.llm.mcp_bridge import ToolboxSettings
from pypddl_experiments.llm.provider_offline import ScriptedProvider
from pypddl_experiments.llm.records import ResultsStore
from pypddl_experiments.llm.replay import compare_records, replay_run
from pypddl_experiments.llm.runner import ExperimentConfig, run_experiment
from pypddl_experiments.llm.tasks import resolve_tasks
from pypddl_experiments.llm.types import CallParams, Msg, ToolCall, Turn
from pypddlengine import Session
from pypddlengine.relabel import Relabelling
from pypddlengine.syntax import parse_plan

ORIGINAL_WORDS = ("pick-up", "put-down", "unstack", "ontable", "handempty", "blocks")


def mapping_for(out: Path, instance: str) -> tuple[Relabelling, str]:
    (path,) = (out / "relabelled").glob("seed-*/domain-*/mapping.json")
    data = json.loads(path.read_text())
    return Relabelling.from_json(data), data["files"]["problems"][f"{instance}.pddl"]


def run(config: ExperimentConfig, tasks: Any, out: Path, provider: Any) -> list[dict[str, Any]]:
    return anyio.run(lambda: run_experiment(config, tasks, ResultsStore(out), provider)).records


def test_direct_run_on_a_relabelled_copy_is_scored_on_the_original(tmp_path: Path, blocks: Path) -> None:
    plan = lama_plan(blocks, "instance-3")
    prompts: list[str] = []

    def answer(conversation: list[Msg], tools: Any, params: Any) -> Turn:
        prompts.append(conversation[-1].text)
        mapping, _ = mapping_for(tmp_path, "instance-3")
        return Turn(text="```\n" + "\n".join(mapping.map_plan(parse_plan("\n".join(plan)).steps)) + "\n```")

    config = ExperimentConfig("direct", CallParams("m", 0.2), relabel_seed=9)
    (record,) = run(config, resolve_tasks(str(blocks / "instance-3.pddl")), tmp_path, ScriptedProvider(answer))
    assert record["outcome"] == "solved" and record["instance_id"] == "instance-3"
    assert record["plan"] == [p.lower() for p in plan]
    assert record["relabel"]["plan_valid_on_original"] is True and record["relabel"]["seed"] == 9
    assert all(step.startswith("(a-") for step in record["relabel"]["plan_copy"])
    assert not [w for w in ORIGINAL_WORDS if w in prompts[0].lower()]
    assert json.loads((tmp_path / "manifest.json").read_text())["config"]["relabel_seed"] == 9


def test_agentic_run_on_a_relabelled_copy(tmp_path: Path, blocks: Path) -> None:
    plan = lama_plan(blocks, "instance-2")
    seen: dict[str, Any] = {}

    def agent(conversation: list[Any], tools: list[Any], params: CallParams) -> Turn:
        if "session_id" not in seen:
            seen["session_id"] = conversation[1].text.rsplit("session_id ", 1)[1].rstrip(".")
            seen["prompt"] = conversation[1].text
            mapping, _ = mapping_for(tmp_path, "instance-2")
            seen["plan"] = mapping.map_plan(parse_plan("\n".join(plan)).steps)
        done = sum(len(m.results) for m in conversation if m.role == "tool")
        sid = seen["session_id"]
        if done < len(plan):
            return Turn(tool_calls=[ToolCall(f"c{done}", "execute_single_action",
                                             {"session_id": sid, "action": seen["plan"][done]})])
        return Turn(tool_calls=[ToolCall("v", "validate_complete_plan", {"session_id": sid})])

    config = ExperimentConfig("agentic", CallParams("m"), session_init="harness", toolbox=ToolboxSettings(),
                              relabel_seed=4)
    (record,) = run(config, resolve_tasks(str(blocks / "instance-2.pddl")), tmp_path, ScriptedProvider(agent))
    assert record["outcome"] == "solved", record["validator"]
    assert record["plan"] == [p.lower() for p in plan] and record["relabel"]["plan_valid_on_original"] is True
    assert not [w for w in ORIGINAL_WORDS if w in seen["prompt"].lower()]
    old, new = anyio.run(lambda: replay_run(tmp_path, record["trace_file"]))
    assert compare_records(old, new) == {} and new["relabel"] == old["relabel"]


def _stacked_instance(blocks: Path) -> str:
    for n in range(1, 40):
        problem = blocks / f"instance-{n}.pddl"
        s = Session(blocks / "domain.pddl", problem, observation="blocksworld-top2")
        if s.state_atoms() != s.state_atoms(observed=False):
            return f"instance-{n}"
    raise AssertionError("no IPC-2000 task with a stack of three blocks")


def test_agentic_run_under_partial_observability(tmp_path: Path, blocks: Path) -> None:
    instance = _stacked_instance(blocks)
    plan = lama_plan(blocks, instance)
    engine = Session(blocks / "domain.pddl", blocks / f"{instance}.pddl", observation="blocksworld-top2")
    hidden = sorted(set(engine.state_atoms(observed=False)) - set(engine.state_atoms()))
    seen: dict[str, Any] = {}

    def agent(conversation: list[Any], tools: list[Any], params: CallParams) -> Turn:
        sid = conversation[1].text.rsplit("session_id ", 1)[1].rstrip(".")
        seen.setdefault("prompt", conversation[1].text)
        done = sum(len(m.results) for m in conversation if m.role == "tool")
        if done == 0:
            return Turn(tool_calls=[ToolCall("s", "query_current_state", {"session_id": sid})])
        if done == 1:
            seen["state"] = conversation[-1].results[0].text
        if done - 1 < len(plan):
            return Turn(tool_calls=[ToolCall(f"c{done}", "execute_single_action",
                                             {"session_id": sid, "action": plan[done - 1]})])
        return Turn(tool_calls=[ToolCall("v", "validate_complete_plan", {"session_id": sid})])

    config = ExperimentConfig("agentic", CallParams("m"), session_init="harness", toolbox=ToolboxSettings(),
                              observation="blocksworld-top2")
    (record,) = run(config, resolve_tasks(str(blocks / f"{instance}.pddl")), tmp_path, ScriptedProvider(agent))
    assert record["outcome"] == "solved" and record["observation"] == "blocksworld-top2"
    assert hidden and not [a for a in hidden if a.lower() in seen["state"].lower()]
    assert "; partial observability (stack-top 2 on)" in seen["prompt"]
    init_shown = seen["prompt"].lower().split("(:init", 1)[1].split("(:goal", 1)[0]
    assert not [a for a in hidden if a.lower() in init_shown]
    assert all(a.lower() in init_shown for a in engine.state_atoms())
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["config"]["observation"] == "blocksworld-top2"
    old, new = anyio.run(lambda: replay_run(tmp_path, record["trace_file"]))
    assert compare_records(old, new) == {}
    with pytest.raises(ValueError, match="agentic"):
        ExperimentConfig("direct", CallParams("m"), observation="blocksworld-top2")


def test_cli_refuses_bad_observation_settings(tmp_path: Path, blocks: Path) -> None:
    from click.testing import CliRunner

    from pypddlengine.cli import main

    base = ["experiment", "run", "--provider", "openai", "--model", "m", "--tasks", str(blocks / "instance-1.pddl"),
            "--out", str(tmp_path / "o")]
    r = CliRunner().invoke(main, [*base, "--method", "direct", "--observe", "blocksworld-top2"])
    assert r.exit_code == 2 and "agentic only" in r.output
    r = CliRunner().invoke(main, [*base, "--method", "agentic", "--observe", "hide nothing"])
    assert r.exit_code == 2 and "no predicate 'nothing'" in r.output and not (tmp_path / "o").exists()
