"""Replaying a recorded run: the model's turns come from its trace, the rest
(plan extraction, validation, the MCP server's answers) is computed again by
the current code. A replay that reproduces the recorded record shows the
run is explained by its trace; a difference points at a change in the
engine, the server or the harness.

Session ids are random, so the replay maps the recorded ids to the ones the
new server hands out (the n-th session opened then is the n-th opened now).
Time follows the trace: each model call ends when the recorded one did, and
a run the budget cut short is cut short again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pypddlengine.mcp_server.names import INITIALISE
from pypddlengine.relabel import MAPPING_FILE, Relabelling

from .clock import FakeClock
from .mcp_bridge import Toolbox, ToolboxSettings, ToolOutcome
from .prompts import prompt_set
from .provider_offline import ReplayProvider, load_trace
from .records import ResultsStore
from .runner import ExperimentConfig, RunContext, execute_run, task_files
from .tasks import TaskSpec
from .types import CallParams

__all__ = ["COMPARED", "compare_records", "replay_run"]

COMPARED = ("outcome", "outcome_detail", "plan", "plan_length", "plan_valid", "attempts", "agent", "usage",
            "final_text")
"""Record fields a replay must reproduce (ids, timestamps, wall time and
environment are expected to differ)."""


class SessionMappingToolbox:
    """A toolbox that renames recorded session ids to the live ones."""

    def __init__(self, inner: Toolbox, recorded_ids: list[str]) -> None:
        self.inner = inner
        self.recorded = list(recorded_ids)
        self.mapping: dict[str, str] = {}
        self.opened = 0

    @property
    def tools(self) -> list[Any]:
        return self.inner.tools

    def offers(self, name: str) -> bool:
        return self.inner.offers(name)

    async def call(self, name: str, arguments: dict[str, Any], timeout_s: float) -> ToolOutcome:
        args = dict(arguments)
        sid = args.get("session_id")
        if isinstance(sid, str) and sid in self.mapping:
            args["session_id"] = self.mapping[sid]
        out = await self.inner.call(name, args, timeout_s)
        new_id = (out.structured or {}).get("session_id") if name == INITIALISE else None
        if not out.is_error and new_id:
            if self.opened < len(self.recorded):
                self.mapping[self.recorded[self.opened]] = str(new_id)
            self.opened += 1
        return out


def _recorded_session_ids(events: list[dict[str, Any]]) -> list[str]:
    ids = []
    for e in events:
        if e.get("type") in ("tool_result", "harness_call") and e.get("name") == INITIALISE:
            sid = (e.get("structured") or {}).get("session_id")
            if sid and not e.get("is_error"):
                ids.append(str(sid))
    return ids


def _under(root: Path, recorded: str) -> Path:
    """A relabelled copy's file as recorded, or found again under the results
    folder ``root`` when that folder was given by another path."""
    path = Path(recorded)
    if path.exists() or "relabelled" not in path.parts:
        return path
    return root.joinpath(*path.parts[path.parts.index("relabelled"):])


def compare_records(old: dict[str, Any], new: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """The compared fields that differ, as ``{field: (old, new)}``."""
    return {k: (old.get(k), new.get(k)) for k in COMPARED if old.get(k) != new.get(k)}


async def replay_run(results_dir: Path | str, trace_file: Path | str, *, out_trace: Path | None = None
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Replay one run of ``results_dir`` from its trace; returns the recorded
    record and the replayed one."""
    store = ResultsStore(results_dir)
    manifest = store.read_manifest()
    if manifest is None:
        raise FileNotFoundError(f"no manifest.json in {results_dir}")
    trace_path = Path(trace_file)
    if not trace_path.is_absolute() and not trace_path.exists():
        trace_path = store.root / trace_path
    events = load_trace(trace_path)
    run_id = events[0]["run_id"]
    old = next((r for r in store.records() if r.get("run_id") == run_id), None)
    if old is None:
        raise LookupError(f"no record with run_id {run_id} in {store.runs_path}")
    config = manifest["config"]
    task_info = next(t for t in manifest["tasks"] if t["instance_id"] == old["instance_id"])
    task = TaskSpec(old["instance_id"], Path(task_info["domain"]), Path(task_info["problem"]))
    llm = config["llm"]
    prompts = prompt_set(config["method"])
    if prompts.sha256 != config["prompts"]["sha256"]:
        raise ValueError(
            f"the run used prompts {config['prompts']['version']} ({config['prompts']['sha256'][:12]}), this code "
            f"has {prompts.version} ({prompts.sha256[:12]}); replay would not reproduce the request"
        )
    params = CallParams(llm["model"], llm.get("temperature"), llm.get("max_tokens", 8192),
                        bool(llm.get("parallel_tools")), dict(llm.get("extra") or {}))
    toolbox_settings = None
    tools = config.get("tools")
    if config["method"] == "agentic" and tools:
        toolbox_settings = ToolboxSettings(
            tools=tuple(tools["shown"]), pinned=tools.get("pinned") or {}, transport="inprocess",
            server_options=tools.get("server_options") or {},
        )
    exp = ExperimentConfig(
        config["method"], params, experiment_id=manifest.get("experiment_id", "replay"),
        budget_s=float(config["budget_s"]), toolbox=toolbox_settings, session_init=config.get("session_init", "model"),
        feedback=config.get("feedback"), rendering=config.get("rendering"), prompts=prompts,
        max_retries=int(config.get("max_retries", 8)),
        observation=config.get("observation"), relabel_seed=config.get("relabel_seed"),
    )
    relabelled = None
    served = task  # the files the run's server read: the relabelled copy, if any
    if exp.relabel_seed is not None:  # the copy the run saw, as written under the results folder
        info = old.get("relabel") or {}
        served = TaskSpec(old["instance_id"], _under(store.root, info["domain"]), _under(store.root, info["problem"]))
        mapping = Relabelling.from_json(json.loads((served.domain_path.parent / MAPPING_FILE).read_text()))
        relabelled = {old["instance_id"]: (served, mapping)}
    clock = FakeClock(0.0)
    provider = ReplayProvider(events, clock=clock, start=0.0, budget_s=exp.budget_s)

    class _Described:  # the record names the original provider, not "replay"
        name = llm.get("provider")
        model = llm.get("model")

        def describe(self) -> dict[str, Any]:
            return {"provider": llm.get("provider"), "model": llm.get("model"), "base_url": llm.get("base_url")}

        async def complete(self, *args: Any) -> Any:
            return await provider.complete(*args)

    async def sleep(seconds: float) -> None:
        clock.advance(seconds)

    ctx = RunContext(exp, _Described(), clock, sleep, None, {"shown": (tools or {}).get("shown"),
                                                            "shown_sha256": (tools or {}).get("shown_sha256")},
                     relabelled=relabelled)
    replicate = int(old.get("replicate") or 0)
    if exp.method == "agentic":
        async with Toolbox(toolbox_settings, allowed_files=task_files(served)) as toolbox:
            mapped = SessionMappingToolbox(toolbox, _recorded_session_ids(events))
            new = await execute_run(ctx, task, replicate, out_trace, toolbox=mapped)  # type: ignore[arg-type]
    else:
        new = await execute_run(ctx, task, replicate, out_trace)
    return old, new


def format_differences(diffs: dict[str, tuple[Any, Any]]) -> str:
    if not diffs:
        return "replay reproduces the record"
    return "\n".join(f"{k}: recorded {json.dumps(a)[:200]} / replayed {json.dumps(b)[:200]}" for k, (a, b) in
                     diffs.items())
