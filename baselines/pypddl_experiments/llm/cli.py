"""``pypddl experiment run`` and ``replay``: the LLM planning experiments (the
group and its ``report`` command are assembled in :mod:`pypddl_experiments.cli`)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import click

from pypddl_experiments.runs.executors import executor_options
from pypddlengine.mcp_server.names import RENDERINGS
from pypddlengine.names import FEEDBACK_LEVELS, HEURISTIC_NAMES

from .providers import PROVIDERS

__all__ = ["replay", "run"]

INTERRUPTED = 130
"""Exit code of ``experiment run`` stopped by Ctrl-C (as ``pypddl batch``)."""


def _tool_set(value: str) -> tuple[str, ...] | None:
    from .mcp_bridge import PAPER_TOOLS

    if value == "paper":
        return PAPER_TOOLS
    if value == "all":
        return None
    return tuple(v.strip() for v in value.split(",") if v.strip())


@click.command("run")
@click.option("--method", type=click.Choice(["direct", "agentic"]), required=True, help="The LLM approach.")
@click.option("--provider", type=click.Choice(PROVIDERS), required=True,
              help="anthropic: Messages API; openai: Chat Completions (also any compatible server via --base-url); "
                   "offline: no model, no key, no network: a stand-in that plays plans from --plans or found by "
                   "greedy search, to try run, report and replay.")
@click.option("--model", help="Model id, e.g. claude-haiku-4-5-20251001 (required but for --provider offline).")
@click.option("--plans", "plans_source", type=click.Path(exists=True),
              help="--provider offline: plans to play, a folder of <instance>.plan files or run records "
                   "(runs.jsonl or its folder, e.g. docs/reference/runs.jsonl); tasks without one are searched.")
@click.option("--tasks", "tasks_spec", required=True,
              help="A folder of problem files, a glob, one problem file, or a bundled task/domain name.")
@click.option("--domain", type=click.Path(dir_okay=False),
              help="Domain file (default: domain.pddl next to each problem).")
@click.option("--limit", type=int, help="Only the first N tasks (in benchmark order).")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Results folder (created or resumed).")
@click.option("--budget", type=float, default=180.0, show_default=True, help="Wall-clock seconds per run.")
@click.option("--base-url", help="API base URL (OpenAI-compatible servers: vLLM, Ollama, llama.cpp, LM Studio).")
@click.option("--api-key-env",
              help="Environment variable holding the key (default ANTHROPIC_API_KEY / OPENAI_API_KEY).")
@click.option("--temperature", type=float, default=None,
              help="Sampling temperature (default: 0.2 for direct; for agentic none is sent, the provider's default).")
@click.option("--max-tokens", type=int, default=8192, show_default=True, help="Output tokens per model call.")
@click.option("--feedback", type=click.Choice(FEEDBACK_LEVELS), default="paper", show_default=True,
              help="Agentic: the simulator's per-step feedback level (paper: exactly the paper's signals; the "
                   "richer levels add failure reasons, goal progress, h_FF, hints). The prompt says what the "
                   "level's replies mean.")
@click.option("--heuristic", type=click.Choice(HEURISTIC_NAMES), default=None,
              help="Agentic, feedback heuristic/full: the distance estimate the replies carry (default h_ff).")
@click.option("--proof-budget", type=click.IntRange(0, 100_000), default=None,
              help="Agentic, feedback heuristic/full: states a search may visit after each step to prove a dead end.")
@click.option("--rendering", type=click.Choice(RENDERINGS), default="plain", show_default=True,
              help="Agentic: how the simulator renders states (plain: the paper's full state after each step).")
@click.option("--tools", "tool_set", default="paper", show_default=True,
              help="Agentic: 'paper' (the seven tools), 'all' (every listed tool) or a comma-separated list.")
@click.option("--session-init", type=click.Choice(["model", "harness"]), default="model", show_default=True,
              help="Agentic: who calls initialise_session (the model, as in the paper, or the harness).")
@click.option("--mcp", "transport", type=click.Choice(["inprocess", "stdio"]), default="inprocess", show_default=True,
              help="Agentic: reach the MCP server in process or as a 'pypddl serve' subprocess over stdio.")
@click.option("--server-command",
              help="Agentic, stdio: the server command (default: python -m pypddlengine.cli serve).")
@click.option("--concurrency", type=int, default=2, show_default=True, help="Runs at once.")
@click.option("--replicates", type=int, default=1, show_default=True, help="Runs per task.")
@click.option("--experiment-id", help="Name stored in every record (default: the --out folder's name).")
@click.option("--rerun", "rerun_outcomes", multiple=True, type=click.Choice(["error", "timeout", "early_exit"]),
              help="Run again the tasks whose last record has this outcome (repeatable).")
@click.option("--rerun-contaminated", is_flag=True, help="Run again the runs that met rate limits or overload.")
@click.option("--max-retries", type=int, default=8, show_default=True,
              help="Retries of one model call after rate limits, overload or lost connections (within the budget).")
@click.option("--force", is_flag=True, help="Resume even if the folder's manifest has another configuration.")
@click.option("--observe", "observation",
              help="Agentic: partial observability rules, e.g. blocksworld-top2 (states and the prompt's initial "
                   "facts show only what the rules let the agent see).")
@click.option("--relabel-seed", type=int,
              help="Run every task on a relabelled copy (names like p-7f3a, this seed); plans are mapped back and "
                   "scored on the original task.")
@executor_options(llm=True)
def run(**opts: object) -> None:
    """Run one approach on a set of tasks; one JSONL record per run.

    Resumable: runs already recorded in --out are skipped. Keys are read from
    the environment; a provider refuses to start without one. --provider
    offline needs none: it tries the whole pipeline without a model.

    With --executor ray each run is one Ray task (--concurrency caps the runs
    in flight; rate limits are shared by all workers; the key is forwarded to
    the workers); only this process writes --out.

    Exit codes: 0 done; 1 runs were lost with their Ray workers, or ended
    with errors that say nothing about the model (an unreachable endpoint, a
    bad key: run the same command again to redo them); 2 bad options, or a
    --base-url that cannot be reached (checked before any run); 130
    interrupted (Ctrl-C: run the same command again to resume).

    \b
    Examples:
      pypddl experiment run --method direct --provider anthropic \\
          --model claude-haiku-4-5-20251001 --tasks path/to/tasks --budget 180 --out results/direct
      pypddl experiment run --method agentic --provider openai --base-url http://localhost:11434/v1 \\
          --model qwen2.5:14b --tasks blocksworld --feedback heuristic --out results/qwen-h
      pypddl experiment run --method agentic --provider offline --tasks blocksworld --out results/offline
    """
    import anyio

    from pypddl_experiments.runs.executors import ExecutorUnavailable, options_from_cli

    from .mcp_bridge import ToolboxSettings, parse_command
    from .outcome import RERUN_ON_RESUME
    from .providers import create_provider
    from .records import ManifestMismatch, RecordsLocked, ResultsStore
    from .runner import ExperimentConfig, ExperimentSummary, run_experiment
    from .tasks import resolve_tasks
    from .types import CallParams, ProviderError

    method = str(opts["method"])
    offline = opts["provider"] == "offline"
    if offline:
        if opts["base_url"] or opts["api_key_env"]:
            raise click.UsageError("--provider offline reaches no server: drop --base-url and --api-key-env")
        opts["model"] = opts["model"] or "offline"
    elif opts["model"] is None:
        raise click.UsageError("--model is required (e.g. --model claude-haiku-4-5-20251001)")
    elif opts["plans_source"] is not None:
        raise click.UsageError("--plans goes with --provider offline")
    where = options_from_cli(opts["executor"], opts["ray_address"], opts["ray_cpus"])  # type: ignore[arg-type]
    try:
        tasks = resolve_tasks(str(opts["tasks_spec"]), domain=opts["domain"], limit=opts["limit"])  # type: ignore[arg-type]
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    temperature = opts["temperature"]
    if temperature is None and method == "direct":
        temperature = 0.2
    params = CallParams(str(opts["model"]), temperature, int(opts["max_tokens"]), parallel_tools=False)  # type: ignore[arg-type]
    toolbox = None
    if method == "agentic":
        toolbox = ToolboxSettings(tools=_tool_set(str(opts["tool_set"])),
                                  transport=str(opts["transport"]),
                                  command=parse_command(opts["server_command"]))  # type: ignore[arg-type]
    out = Path(str(opts["out"]))
    if opts["observation"] is not None and method != "agentic":
        raise click.UsageError("--observe applies to --method agentic only")
    config = ExperimentConfig(
        method, params, experiment_id=str(opts["experiment_id"] or out.name), budget_s=float(opts["budget"]),  # type: ignore[arg-type]
        replicates=int(opts["replicates"]), concurrency=int(opts["concurrency"]), toolbox=toolbox,  # type: ignore[arg-type]
        session_init=str(opts["session_init"]),
        feedback=str(opts["feedback"]) if method == "agentic" else None,
        rendering=str(opts["rendering"]) if method == "agentic" else None,
        heuristic=opts.get("heuristic") if method == "agentic" else None,  # type: ignore[arg-type]
        proof_budget=opts.get("proof_budget") if method == "agentic" else None,  # type: ignore[arg-type]
        rerun_outcomes=tuple(opts["rerun_outcomes"]), rerun_contaminated=bool(opts["rerun_contaminated"]),  # type: ignore[arg-type]
        max_retries=int(opts["max_retries"]),  # type: ignore[arg-type]
        observation=opts["observation"],  # type: ignore[arg-type]
        relabel_seed=opts["relabel_seed"],  # type: ignore[arg-type]
    )
    if config.observation is not None and tasks:
        from pypddlengine.errors import PDDLError

        from .variants import observed_problem_text

        try:
            observed_problem_text(tasks[0], config.observation)
        except PDDLError as err:
            click.echo(f"error: --observe: {err.message}" + (f"; hint: {err.hint}" if err.hint else ""), err=True)
            sys.exit(2)
    if opts["base_url"]:  # a wrong URL is said now, not as one error record per run
        from .provider_base import check_endpoint

        problem = check_endpoint(str(opts["base_url"]))
        if problem is not None:
            click.echo(f"error: cannot reach --base-url {opts['base_url']}: {problem}; check the URL and that the "
                       "server is running (nothing was run)", err=True)
            sys.exit(2)
    provider_options: dict[str, object] = {}
    if opts["plans_source"] is not None:
        from .provider_offline import recorded_plans

        try:
            plans = recorded_plans(str(opts["plans_source"]), tasks)
        except (OSError, ValueError) as err:
            raise click.UsageError(f"--plans: {err}") from None
        click.echo(f"offline: recorded plans for {len(plans)} of {len(tasks)} task(s); the others are searched",
                   err=True)
        provider_options = {"plans": plans, "plans_source": str(opts["plans_source"])}
    try:
        provider = create_provider(str(opts["provider"]), str(opts["model"]), base_url=opts["base_url"],  # type: ignore[arg-type]
                                   api_key_env=opts["api_key_env"], **provider_options)  # type: ignore[arg-type]
    except ProviderError as err:
        click.echo(f"error: {err.message}", err=True)
        sys.exit(2)

    def progress(record: dict) -> None:
        usage = record.get("usage") or {}
        length = f", {record['plan_length']} steps" if record.get("plan_length") is not None else ""
        total = usage.get("total")
        tokens = f"{total:,} tokens" if total is not None else f"at least {usage.get('total_known') or 0:,} tokens"
        click.echo(f"{record['instance_id']} r{record['replicate']}: {record['outcome']} ({record['outcome_detail']}"
                   f"{length}) in {record['wall_s']:.1f} s, {tokens}")

    remote = None
    if where.remote:
        from .remote import ProviderSpec, RemoteRuns

        remote = RemoteRuns(where, ProviderSpec(str(opts["provider"]), str(opts["model"]), opts["base_url"],  # type: ignore[arg-type]
                                                opts["api_key_env"], provider_options))  # type: ignore[arg-type]

    async def main() -> ExperimentSummary:
        try:
            return await run_experiment(config, tasks, ResultsStore(out), provider, force=bool(opts["force"]),
                                        on_record=progress, remote=remote)
        finally:
            await provider.aclose()

    try:
        summary = anyio.run(main)
    except KeyboardInterrupt:  # as `pypddl batch`: 130, and the runs recorded so far stay
        click.echo(f"interrupted: the runs finished so far are in {out / 'runs.jsonl'}; run the same command again "
                   "to resume", err=True)
        sys.exit(INTERRUPTED)
    except RecordsLocked:
        click.echo(f"error: {out} is in use by another 'pypddl experiment run' (its runs.jsonl is locked); "
                   "wait for it to finish, or give another --out", err=True)
        sys.exit(2)
    except (ManifestMismatch, LookupError, ExecutorUnavailable, ProviderError) as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(2)
    solved = sum(1 for r in summary.records if r["outcome"] == "solved")
    click.echo(f"{summary.planned - summary.lost} run(s) made ({solved} solved), {summary.skipped} already recorded; "
               f"records in {out / 'runs.jsonl'}")
    not_the_model = Counter(str(r["outcome_detail"]) for r in summary.records
                            if r["outcome"] == "error" and r["outcome_detail"] in RERUN_ON_RESUME)
    if not_the_model:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(not_the_model.items()))
        click.echo(f"error: {sum(not_the_model.values())} run(s) ended with errors that say nothing about the model "
                   f"({kinds}): fix the endpoint, key or server and run the same command again to redo them", err=True)
        sys.exit(1)
    if summary.lost:
        click.echo(f"{summary.lost} run(s) lost with their Ray workers and not recorded: "
                   "run the same command again to retry them", err=True)
        sys.exit(1)


@click.command("replay")
@click.argument("results", type=click.Path(exists=True, file_okay=False))
@click.argument("traces", nargs=-1, required=True)
def replay(results: str, traces: tuple[str, ...]) -> None:
    """Replay recorded runs from their traces and compare with their records.

    TRACES are trace files (relative to RESULTS or absolute). Exit code 1 if
    any replay differs from its record.

    \b
    Example:
      pypddl experiment replay results/agentic traces/agentic/instance-7/r0.jsonl
    """
    import anyio

    from .replay import compare_records, format_differences, replay_run

    differing = 0
    for trace in traces:
        try:
            old, new = anyio.run(replay_run, results, trace)
        except (OSError, LookupError, ValueError) as err:  # a missing or unreadable trace or manifest: bad input
            code = "[FILE_NOT_FOUND]" if isinstance(err, (OSError, LookupError)) else ""
            click.echo(f"error{code}: {trace}: {err}", err=True)
            sys.exit(2)
        diffs = compare_records(old, new)
        differing += bool(diffs)
        click.echo(f"{trace}: {format_differences(diffs)}")
    sys.exit(1 if differing else 0)
