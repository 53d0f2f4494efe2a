"""Running an experiment: every (task, replicate) of one method, a few at a
time, each under its own wall-clock budget, one record per run.

The budget of a run starts after its MCP connection is open and its tools
are listed (harness overhead, not the model's time) and covers everything
else. Runs already recorded in the results folder are skipped, so an
interrupted experiment resumes where it stopped.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import anyio

from pypddlengine.mcp_server.names import INITIALISE

from .clock import Clock, Deadline
from .llm import ModelCaller, RateGate, Sleep
from .mcp_bridge import Toolbox, ToolboxSettings
from .outcome import MethodResult
from .prompts import PromptSet, prompt_set
from .provider_base import Provider
from .records import RUN_SCHEMA, ResultsStore, TraceWriter, env_info, machine_info, utc_now
from .tasks import TaskSpec
from .types import CallParams
from .variants import Relabelled, map_back, observed_problem_text, relabel_tasks

__all__ = ["ExperimentConfig", "RunContext", "build_record", "execute_run", "run_experiment"]

class RemoteRunner(Protocol):
    """Runs elsewhere (:class:`~.remote.RemoteRuns`, on Ray): given the context
    and the (task, replicate) pairs to run, it fills ``summary`` and calls
    ``on_record`` as :func:`run_experiment` does locally. A protocol, so the
    runner does not import the module that builds on it."""

    async def run(self, ctx: RunContext, todo: list[tuple[TaskSpec, int]], store: ResultsStore,
                  summary: ExperimentSummary, on_record: Callable[[dict[str, Any]], None] | None) -> None: ...


METHODS = ("direct", "agentic")


@dataclass
class ExperimentConfig:
    method: str
    params: CallParams
    experiment_id: str = "experiment"
    budget_s: float = 180.0
    replicates: int = 1
    concurrency: int = 2
    toolbox: ToolboxSettings | None = None
    session_init: str = "model"
    feedback: str | None = None
    rendering: str | None = None
    heuristic: str | None = None
    proof_budget: int | None = None
    rerun_outcomes: tuple[str, ...] = ()
    rerun_contaminated: bool = False
    max_retries: int = 8
    prompts: PromptSet | None = None
    observation: str | None = None
    """Agentic: partial-observability rules pinned on initialise_session (see :mod:`.variants`)."""
    relabel_seed: int | None = None
    """Run every task on a relabelled copy with this seed; plans are mapped back for scoring."""

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown method {self.method!r}; use one of {', '.join(METHODS)}")
        if self.observation is not None and self.method != "agentic":
            raise ValueError("observation rules apply to the agentic method only")
        if self.concurrency < 1 or self.replicates < 1:
            raise ValueError("concurrency and replicates must be at least 1")
        if self.prompts is None:
            self.prompts = prompt_set(self.method)
        if self.method == "agentic":
            self._pin_session_settings()

    def _pin_session_settings(self) -> None:
        """The agentic approach's feedback level (default ``paper``, the
        paper's signals) and rendering (default ``plain``, the paper's flat
        lists) are pinned on ``initialise_session``, so the server and the
        prompt's explanation of the replies always agree."""
        toolbox = self.toolbox or ToolboxSettings()
        init = dict(toolbox.pinned.get(INITIALISE, {}))
        self.feedback = self.feedback or init.get("feedback") or "paper"
        self.rendering = self.rendering or init.get("rendering") or "plain"
        assert self.prompts is not None
        self.prompts.feedback_text(self.feedback)  # a level the prompt cannot explain is refused here
        settings = {"feedback": self.feedback, "rendering": self.rendering, "heuristic": self.heuristic,
                    "proof_budget": self.proof_budget, "observation": self.observation}  # the last three when set
        for key, value in settings.items():
            if value is None:
                continue
            if init.setdefault(key, value) != value:
                raise ValueError(f"the toolbox pins {key}={init[key]!r} but the experiment's {key} is {value!r}")
        self.toolbox = replace(toolbox, pinned={**toolbox.pinned, INITIALISE: init})

    def describe(self, provider: Provider) -> dict[str, Any]:
        assert self.prompts is not None
        out: dict[str, Any] = {
            "method": self.method,
            "llm": {**provider.describe(), "temperature": self.params.temperature,
                    "max_tokens": self.params.max_tokens, "parallel_tools": self.params.parallel_tools,
                    "extra": self.params.extra},
            "budget_s": self.budget_s,
            "replicates": self.replicates,
            "prompts": self.prompts.describe(),
            "max_retries": self.max_retries,
        }
        out["llm"].pop("sdk", None)
        if self.method == "agentic":
            out["session_init"] = self.session_init
            out["feedback"] = self.feedback
            out["rendering"] = self.rendering
            if self.heuristic is not None:
                out["heuristic"] = self.heuristic
            if self.proof_budget is not None:
                out["proof_budget"] = self.proof_budget
        if self.observation is not None:  # left out when unset, so earlier manifests still match
            out["observation"] = self.observation
        if self.relabel_seed is not None:
            out["relabel_seed"] = self.relabel_seed
        return out


@dataclass
class RunContext:
    """What one run needs besides its task."""

    config: ExperimentConfig
    provider: Provider
    clock: Clock = time.monotonic
    sleep: Sleep = anyio.sleep
    toolbox_factory: Callable[[TaskSpec], Toolbox] | None = None
    """A toolbox whose server reads only the given task's files."""
    tools_info: dict[str, Any] | None = None
    gate: RateGate | None = None  # rate limits shared with other workers (Ray)
    relabelled: Relabelled | None = None
    """The relabelled copy of each task (``config.relabel_seed``)."""


def _round(x: float) -> float:
    return round(x, 3)


def build_record(
    *,
    ctx: RunContext,
    task: TaskSpec,
    replicate: int,
    run_id: str,
    started_at: str,
    wall_s: float,
    result: MethodResult,
    caller: ModelCaller,
    trace_file: str | None,
) -> dict[str, Any]:
    config = ctx.config
    prompts = config.prompts
    assert prompts is not None
    provider_info = ctx.provider.describe()
    model_reported = None
    for event in reversed(caller.trace.events):
        if event.get("type") == "llm_call" and event.get("turn"):
            model_reported = event["turn"].get("model_reported")
            break
    record: dict[str, Any] = {
        "schema": RUN_SCHEMA,
        "experiment_id": config.experiment_id,
        "run_id": run_id,
        "method": config.method,
        "instance_id": task.instance_id,
        "domain_sha256": task.domain_sha256,
        "problem_sha256": task.problem_sha256,
        "replicate": replicate,
        "started_at": started_at,
        "wall_s": _round(wall_s),
        "budget_s": config.budget_s,
        "outcome": result.outcome,
        "outcome_detail": result.detail,
        "plan": result.plan,
        "plan_length": result.plan_length,
        "plan_valid": True if result.outcome == "solved" else (False if result.detail == "invalid_final" else None),
        "validator": {"name": "pypddlengine", "version": env_info()["engine_version"], "message": result.message},
        "crosscheck_valid": None,
        "attempts": result.attempts,
        "agent": result.agent,
        "final_text": result.final_text,
        "llm": {
            "provider": provider_info.get("provider"),
            "model": provider_info.get("model"),
            "base_url": provider_info.get("base_url"),
            "model_reported": model_reported,
            "temperature": config.params.temperature,
            "max_tokens": config.params.max_tokens,
            "parallel_tools": config.params.parallel_tools,
            "prompt_caching": False,
            "prompt_version": prompts.version,
            "prompt_sha256": prompts.sha256,
        },
        "usage": caller.usage.to_dict(),
        "planner": {"alias": None, "returncode": None, "plans_found": None, "last_plan_s": None},
        "contaminated": caller.contaminated,
        "retries": caller.retries,
        "errors": caller.errors,
        "trace_file": trace_file,
        "env": env_info(),
    }
    if config.method == "agentic":
        record["tools"] = {
            "session_init": config.session_init,
            "feedback": config.feedback,
            "rendering": config.rendering,
            "shown": (ctx.tools_info or {}).get("shown"),
            "shown_sha256": (ctx.tools_info or {}).get("shown_sha256"),
        }
    return record


async def execute_run(
    ctx: RunContext, task: TaskSpec, replicate: int, trace_path: Any, *, trace_name: str | None = None,
    toolbox: Toolbox | None = None,
) -> dict[str, Any]:
    """One run of ``ctx.config.method`` on ``task``; returns its record.
    ``toolbox``: an already open toolbox (replay uses its own)."""
    from .agentic import run_agentic
    from .direct import run_direct

    config = ctx.config
    run_id = uuid.uuid4().hex
    started_at = utc_now()
    opened: Toolbox | None = None
    open_error: Exception | None = None
    original = task
    if ctx.relabelled is not None:
        task, mapping = ctx.relabelled[original.instance_id]
    if config.observation is not None:
        try:
            task = replace(task, shown_problem=observed_problem_text(task, config.observation))
        except Exception as err:  # bad rules end this run as an error; the experiment goes on
            open_error = err
    if config.method == "agentic" and toolbox is None and open_error is None:
        assert ctx.toolbox_factory is not None
        try:
            candidate = ctx.toolbox_factory(task)
            await candidate.__aenter__()
            opened = toolbox = candidate
        except Exception as err:  # a server that does not start: this run is an error, the others go on
            open_error = err
    try:
        deadline = Deadline(config.budget_s, ctx.clock)
        trace = TraceWriter(trace_path, run_id, ctx.clock, deadline.start)
        caller = ModelCaller(ctx.provider, config.params, deadline, trace, sleep=ctx.sleep,
                             max_retries=config.max_retries, gate=ctx.gate)
        trace.event("run_start", method=config.method, instance_id=task.instance_id, replicate=replicate,
                    budget_s=config.budget_s)
        try:
            if open_error is not None:
                result = MethodResult("error", "mcp_error", message=f"{type(open_error).__name__}: {open_error}")
            elif config.method == "direct":
                result = await run_direct(task, caller, trace, prompts=config.prompts or prompt_set("direct"))
            else:
                assert toolbox is not None
                prompts = config.prompts or prompt_set("agentic")
                result = await run_agentic(task, caller, toolbox, trace, prompts=prompts,
                                           session_init=config.session_init, feedback=config.feedback or "paper")
        except Exception as err:  # a harness bug or a broken server must not stop the experiment
            logging.getLogger("pypddl_experiments.llm").exception("run %s/%s failed", task.instance_id, replicate)
            result = MethodResult("error", "harness_error", message=f"{type(err).__name__}: {err}")
        wall = deadline.elapsed()
        relabel_info = None
        if ctx.relabelled is not None:
            result, relabel_info = map_back(result, original, task, mapping)
        trace.event("run_end", outcome=result.outcome, detail=result.detail, wall_s=_round(wall))
        trace.close()
        record = build_record(ctx=ctx, task=original, replicate=replicate, run_id=run_id, started_at=started_at,
                              wall_s=wall, result=result, caller=caller, trace_file=trace_name)
        if relabel_info is not None:
            record["relabel"] = relabel_info
        if config.observation is not None:
            record["observation"] = config.observation
        return record
    finally:
        if opened is not None:
            await opened.__aexit__(None, None, None)


def task_files(task: TaskSpec) -> tuple[str, str]:
    """The files a run's MCP server may read: the run's domain and problem."""
    return (str(task.domain_path), str(task.problem_path))


OnRecord = Callable[[dict[str, Any]], Awaitable[None] | None]


@dataclass
class ExperimentSummary:
    planned: int = 0
    skipped: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)
    lost: int = 0  # runs whose Ray worker died on every attempt: not recorded


async def run_experiment(
    config: ExperimentConfig,
    tasks: list[TaskSpec],
    store: ResultsStore,
    provider: Provider,
    *,
    clock: Clock = time.monotonic,
    sleep: Sleep = anyio.sleep,
    force: bool = False,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    remote: RemoteRunner | None = None,
) -> ExperimentSummary:
    """Run every missing (task, replicate) and append their records, holding
    the results folder's lock throughout (a second experiment on the same
    folder gets :class:`~pypddl_experiments.runs.records.RecordsLocked` before it
    writes anything, the manifest included). ``remote``: run them as Ray
    tasks instead (:mod:`.remote`)."""
    with store.locked():
        return await _run_locked(config, tasks, store, provider, clock=clock, sleep=sleep, force=force,
                                 on_record=on_record, remote=remote)


async def _run_locked(
    config: ExperimentConfig,
    tasks: list[TaskSpec],
    store: ResultsStore,
    provider: Provider,
    *,
    clock: Clock,
    sleep: Sleep,
    force: bool,
    on_record: Callable[[dict[str, Any]], None] | None,
    remote: RemoteRunner | None,
) -> ExperimentSummary:
    logging.getLogger("pypddlengine.mcp").setLevel(logging.WARNING)
    toolbox_factory = None
    tools_info = None
    if config.method == "agentic":
        settings = config.toolbox or ToolboxSettings()

        def toolbox_factory(task: TaskSpec) -> Toolbox:
            return Toolbox(settings, allowed_files=task_files(task))

        async with Toolbox(settings, allowed_files=()) as probe:  # the listing goes into the manifest
            tools_info = probe.describe()
    relabelled = None
    if config.relabel_seed is not None:
        relabelled = relabel_tasks(tasks, config.relabel_seed, store.root / "relabelled")
    ctx = RunContext(config, provider, clock, sleep, toolbox_factory, tools_info, relabelled=relabelled)
    described = config.describe(provider)
    if tools_info is not None:
        described["tools"] = tools_info
    session = {"started_at": utc_now(), "finished_at": None, "base_url": provider.describe().get("base_url")}
    manifest = store.open_manifest(
        {
            "experiment_id": config.experiment_id,
            "created_at": session["started_at"],
            "config": described,
            "prompt_texts": {"system": config.prompts.system, "user_template": config.prompts.user_template}
            if config.prompts else None,
            "tasks": [t.describe() for t in tasks],
            "versions": env_info(),
            "machine": machine_info(),
            "concurrency": config.concurrency,
            "sessions": [session],
        },
        force=force,
    )
    done = store.done_keys(rerun_outcomes=config.rerun_outcomes, rerun_contaminated=config.rerun_contaminated)
    todo = [
        (task, r)
        for r in range(config.replicates)
        for task in tasks
        if (config.method, task.instance_id, r) not in done
    ]
    summary = ExperimentSummary(planned=len(todo), skipped=len(tasks) * config.replicates - len(todo))
    limiter = anyio.CapacityLimiter(config.concurrency)

    async def one(task: TaskSpec, replicate: int) -> None:
        async with limiter:
            path = store.trace_path(config.method, task.instance_id, replicate)
            record = await execute_run(ctx, task, replicate, path, trace_name=store.relative(path))
            store.append(record)
            summary.records.append(record)
            if on_record is not None:
                on_record(record)

    if remote is not None:
        await remote.run(ctx, todo, store, summary, on_record)
    else:
        async with anyio.create_task_group() as tg:
            for task, replicate in todo:
                tg.start_soon(one, task, replicate)
    session["finished_at"] = utc_now()
    manifest["sessions"][-1] = session
    store.write_manifest(manifest)
    return summary
