"""The ``pypddl`` command line: a thin click layer over pure functions.

Each command parses its options, calls the engine (or an adapter) and maps the
outcome to an exit code. Heavy modules (mcp, unified-planning, the LLM SDKs,
the baselines) are imported only by the commands that need them, so
``pypddl validate`` starts fast.

Exit codes: 0 success; 1 the input is well-formed but a plan is invalid (or
``check`` found errors in the PDDL); 2 bad input (unreadable or malformed
files, bad options).
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from . import __version__
from .cli_serve import FEEDBACK_LEVELS
from .errors import counted

OK, INVALID, BAD_INPUT = 0, 1, 2

# command name -> ("module:attribute", one-line help); loaded on first use
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("pypddlengine.cli_serve:serve", "Run the MCP server (stdio by default, or streamable HTTP)."),
    "demo": ("pypddlengine.cli_serve:demo", "Watch a scripted agent solve a bundled task over MCP."),
    "solve": ("pypddlengine.baselines.cli:solve", "Solve a task with Fast Downward; print the validated plan."),
    "generate": ("pypddlengine.baselines.cli:generate", "Generate seeded benchmark tasks (Blocksworld, gripper, ...)."),
    "batch": ("pypddlengine.baselines.cli:batch", "Run planners over many tasks in parallel; append JSONL records."),
    "reference": (
        "pypddlengine.baselines.cli:reference",
        "The paper's Fast Downward protocol on the 102 IPC-2000 Blocksworld tasks.",
    ),
    "experiment": ("pypddlengine.harness.cli:experiment", "Run and report LLM planning experiments (direct, agentic)."),
    "relabel": ("pypddlengine.cli_relabel:relabel", "Write a relabelled copy of a domain and problems; map plans."),
}


class LazyGroup(click.Group):
    """A group whose adapter commands are imported only when invoked."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in LAZY_COMMANDS:
            target, _ = LAZY_COMMANDS[name]
            module, attr = target.split(":")
            try:
                return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]
            except (ImportError, AttributeError) as err:
                return _unavailable(name, err)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in LAZY_COMMANDS:
                rows.append((name, LAZY_COMMANDS[name][1]))
            else:
                cmd = super().get_command(ctx, name)
                if cmd is not None and not cmd.hidden:
                    rows.append((name, cmd.get_short_help_str(limit=80)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _unavailable(name: str, err: Exception) -> click.Command:
    @click.command(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    def missing() -> None:
        click.echo(f"error: the '{name}' command is not available: {err}", err=True)
        click.echo("hint: install the optional dependencies: pip install 'pypddlengine[all]'", err=True)
        sys.exit(BAD_INPUT)

    return missing


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pypddl")
def main() -> None:
    """pypddl: a step-wise PDDL simulation engine, validator and MCP server.

    \b
    Examples:
      pypddl validate domain.pddl problem.pddl plan.txt
      pypddl check domain.pddl problem.pddl
      pypddl play domain.pddl problem.pddl
      pypddl serve                      # MCP over stdio
    """


# ----------------------------------------------------------------------------- helpers


def report_error(err: Exception) -> None:
    """Print an engine error as ``file:line:col: error[CODE]: message`` + snippet."""
    click.echo(str(err), err=True)


def report_warnings(report: Any) -> None:
    """Print a checked task's warnings (e.g. a declared requirement it never
    uses) on stderr: every command that loads a task says them the same way."""
    for warning in report.warnings:
        click.echo(warning.render(), err=True)


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=False))


# ----------------------------------------------------------------------------- validate


@main.command()
@click.argument("domain", type=click.Path(dir_okay=False))
@click.argument("problem", type=click.Path(dir_okay=False))
@click.argument("plans", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report per plan.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing; report through the exit code.")
def validate(domain: str, problem: str, plans: Sequence[str], as_json: bool, quiet: bool) -> None:
    """Validate one or more PLAN files against DOMAIN and PROBLEM.

    A plan holds one '(action arg ...)' per line (IPC/VAL format; ';'
    comments, 'N:' prefixes and '[d]' suffixes are accepted). Give '-' to
    read a plan from stdin. Exit code 0: every plan is valid; 1: a plan is
    invalid; 2: bad input.

    \b
    Example:
      pypddl validate domain.pddl p01.pddl p01.plan
    """
    from .gcpause import paused_gc

    with paused_gc():  # a short process building acyclic data: the collector would only rescan it
        status, results = _validate_all(domain, problem, plans, as_json, quiet)
    if as_json and not quiet:
        _echo_json(results if len(results) > 1 else results[0])
    sys.exit(status)


def _validate_all(
    domain: str, problem: str, plans: Sequence[str], as_json: bool, quiet: bool
) -> tuple[int, list[dict[str, Any]]]:
    from .errors import PDDLError
    from .loading import load_task, read_file
    from .syntax import parse_plan
    from .validate import validate_plan

    try:
        task = load_task(domain, problem)
    except PDDLError as err:
        report_error(err)
        sys.exit(BAD_INPUT)
    if not quiet:
        report_warnings(task.report)
    status = OK
    results: list[dict[str, Any]] = []
    for name in plans:
        try:
            data = sys.stdin.buffer.read() if name == "-" else read_file(name)
            plan = parse_plan(data, filename="<stdin>" if name == "-" else name)
        except PDDLError as err:
            report_error(err)
            status = BAD_INPUT
            results.append({"plan": name, "error": err.to_dict()})
            continue
        report = validate_plan(task, plan)
        if not report.valid and status == OK:
            status = INVALID
        results.append({"plan": name, **report.to_dict()})
        if quiet or as_json:
            continue
        click.echo(_describe(name, report))
    return status, results


def _all_steps(n: int) -> str:
    return "its only step" if n == 1 else "an empty plan" if n == 0 else f"all {n} steps"


def _describe(name: str, report: Any) -> str:
    from .exact import to_text

    if report.valid:
        cost = "" if report.unit_cost else f", cost {report.cost:g}"
        if report.metric is not None:  # VAL's "Final value"
            cost += f", metric {to_text(report.metric)} ({report.metric_direction})"
        elif report.metric_error is not None:
            cost += f"; the metric cannot be evaluated: {report.metric_error}"
        return f"{name}: valid plan ({counted(report.length, 'step')}{cost})"
    lines = []
    if report.failure is not None:
        f = report.failure
        lines.append(f"{name}: INVALID: step {f.step} {f.action}: {f.message}")
        lines.extend(f"  unsatisfied precondition: {u}" for u in f.unsatisfied)
    else:
        lines.append(f"{name}: INVALID: the goal does not hold after {_all_steps(report.length)}")
        lines.extend(f"  unsatisfied goal: {g}" for g in report.unsatisfied_goals)
    return "\n".join(lines)


# ----------------------------------------------------------------------------- check


@main.command()
@click.argument("domain", type=click.Path(dir_okay=False))
@click.argument("problem", type=click.Path(dir_okay=False), required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the diagnostics as JSON.")
@click.option("--warnings/--no-warnings", default=True, help="Also print warnings (default: on).")
def check(domain: str, problem: str | None, as_json: bool, warnings: bool) -> None:
    """Parse and check DOMAIN (and PROBLEM), reporting every error found.

    Exit code 0: no errors; 1: the PDDL has errors; 2: a file cannot be read
    or does not parse.

    \b
    Example:
      pypddl check domain.pddl problem.pddl
    """
    from .checker import check as run_check
    from .errors import PDDLError
    from .loading import load_domain, load_problem

    try:
        d = load_domain(domain)
        p = load_problem(problem) if problem else None
    except PDDLError as err:
        if as_json:
            _echo_json({"ok": False, "errors": [err.to_dict()], "warnings": []})
        else:
            report_error(err)
        sys.exit(BAD_INPUT)
    report = run_check(d, p)
    if as_json:
        _echo_json({
            "ok": report.ok,
            "errors": [e.to_dict() for e in report.errors],
            "warnings": [w.to_dict() for w in report.warnings] if warnings else [],
            "features": sorted(report.features),
        })
    else:
        for err in report.errors:
            click.echo(err.render(), err=True)
        if warnings:
            report_warnings(report)
        what = f"{domain}" + (f" and {problem}" if problem else "")
        if report.ok:
            click.echo(f"{what}: ok ({counted(len(report.warnings), 'warning')})")
        else:
            click.echo(f"{what}: {counted(len(report.errors), 'error')}, {counted(len(report.warnings), 'warning')}",
                       err=True)
    sys.exit(OK if report.ok else INVALID)


# ----------------------------------------------------------------------------- ground


@main.command()
@click.argument("domain", type=click.Path(dir_okay=False))
@click.argument("problem", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option("--max-actions", type=int, default=3_000_000, show_default=True, help="Refuse larger groundings.")
def ground(domain: str, problem: str, as_json: bool, max_actions: int) -> None:
    """Ground DOMAIN and PROBLEM and print task statistics.

    \b
    Example:
      pypddl ground domain.pddl problem.pddl
    """
    from .errors import PDDLError
    from .grounding import GroundingOptions
    from .grounding import ground as run_ground
    from .loading import load_task

    start = time.perf_counter()
    try:
        lifted = load_task(domain, problem)
        report_warnings(lifted.report)
        parsed = time.perf_counter()
        task = run_ground(lifted, GroundingOptions(max_actions=max_actions))
    except PDDLError as err:
        report_error(err)
        sys.exit(BAD_INPUT)
    done = time.perf_counter()
    s = task.stats
    stats = {
        "objects": s.objects,
        "atoms": s.reachable_atoms,
        "static_atoms": s.static_atoms,
        "ground_actions": s.actions,
        "initial_atoms": len(task.init),
        "goal_atoms": len(task.goal_pos) + len(task.goal_neg),
        "unreachable_goal_atoms": [lifted.render_key(k) for k in task.unreachable_goals],
        "parse_check_seconds": round(parsed - start, 4),
        "ground_seconds": round(done - parsed, 4),
    }
    if as_json:
        _echo_json(stats)
        return
    for key, value in stats.items():
        if key == "unreachable_goal_atoms":
            value = ", ".join(value) or "none"
        click.echo(f"{key.replace('_', ' '):<24} {value}")


# ----------------------------------------------------------------------------- play


@main.command()
@click.argument("domain", type=click.Path(dir_okay=False), required=False)
@click.argument("problem", type=click.Path(dir_okay=False), required=False)
@click.option("--task", "bundled", help="A bundled task instead of files, e.g. blocksworld/p03.")
@click.option("--feedback", type=click.Choice(FEEDBACK_LEVELS), default="full",
              show_default=True, help="How much the session says after each step (paper: success, state and "
              "goal reached only).")
@click.option("--heuristic", type=click.Choice(["h_ff", "h_add", "h_max", "goal_count", "lm_count"]), default="h_ff",
              show_default=True, help="The distance shown after each step (feedback heuristic/full).")
@click.option("--proof-budget", type=click.IntRange(0, None), default=0, show_default=True,
              help="States a search may visit after each step to prove a dead end (0: the relaxed proof only).")
@click.option("--observe", "observation", help="Partial observability rules, e.g. blocksworld-top2 or 'hide on'.")
@click.option("--backend", type=click.Choice(["auto", "grounded", "lifted"]), default="auto", show_default=True,
              help="grounded: build every action first (heuristics, landmarks); lifted: instantiate actions as they "
              "are met (large tasks open in seconds); auto: grounded when a quick estimate says the task is small.")
def play(domain: str | None, problem: str | None, bundled: str | None, feedback: str, heuristic: str,
         proof_budget: int, observation: str | None, backend: str) -> None:
    """Step through a task interactively, as an agent would.

    Give DOMAIN and PROBLEM files, or --task NAME for a bundled task. Type an
    action such as '(unstack c a)' or 'unstack c a'; 'help' lists the other
    commands (state, actions, undo, save, restore, reset, history, validate,
    distance, heuristics, deadend, quit). Tab
    completes commands and the applicable actions, in either form.

    Exit codes: 0 after 'quit' or end of input; 2 bad input; 130 Ctrl-C.

    \b
    Examples:
      pypddl play domain.pddl problem.pddl
      pypddl play --task blocksworld/p03
    """
    from .bundled import DEFAULT_TASK, bundled_task
    from .errors import PDDLError
    from .loading import open_session
    from .play import run_repl

    if bundled and (domain or problem):
        raise click.UsageError("give DOMAIN and PROBLEM, or --task NAME, not both")
    if not bundled and not (domain and problem):
        raise click.UsageError(f"give both DOMAIN and PROBLEM, or --task NAME (e.g. --task {DEFAULT_TASK})")
    try:
        paths = (Path(domain), Path(problem)) if domain and problem else bundled_task(bundled or DEFAULT_TASK)
        session = open_session(*paths, feedback=feedback, heuristic=heuristic, proof_budget=proof_budget,
                               observation=observation, backend=backend)
    except PDDLError as err:
        report_error(err)
        sys.exit(BAD_INPUT)
    report_warnings(session.lifted.report)
    lines = None if sys.stdin.isatty() else _bounded_lines(sys.stdin.buffer)
    try:
        sys.exit(run_repl(session, click.echo, input_fn=None, lines=lines))
    except PDDLError as err:
        report_error(err)
        sys.exit(BAD_INPUT)


MAX_LINE_BYTES = 1 << 20
"""Longest line ``play`` reads from a pipe or file (so ``< /dev/zero`` ends with INPUT_TOO_LARGE)."""


def _bounded_lines(stream: Any, limit: int = MAX_LINE_BYTES) -> Any:
    from .errors import InputTooLargeError

    while line := stream.readline(limit + 1):
        if len(line) > limit:
            raise InputTooLargeError(f"<stdin>: a line longer than the limit of {limit:,} bytes",
                                     details={"limit": limit})
        yield line.decode("utf-8", "replace").rstrip("\r\n")


def run() -> None:
    """Console entry point: ``main`` plus a quiet exit when the reader of our
    output goes away (``pypddl demo | head``)."""
    try:
        main()
    except* BrokenPipeError:  # also when wrapped in an async task group (pypddl demo)
        import os

        # stdout is gone: point it at /dev/null so the interpreter's final flush stays quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)


if __name__ == "__main__":  # pragma: no cover
    run()
