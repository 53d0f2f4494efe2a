"""The ``pypddl`` command line: a thin click layer over pure functions.

Each command parses its options, calls the engine (or an adapter) and maps the
outcome to an exit code. The engine's own commands are here (validate, check,
ground, play) or in :mod:`.cli_serve` and :mod:`.cli_relabel`; other packages
add theirs through the entry-point group :data:`COMMAND_GROUP` (the experiment
side: solve, batch, reference, generate, experiment). Heavy modules (mcp, the
experiment side, the LLM SDKs) are imported only by the commands that need
them. The bodies of validate, check and ground live in :mod:`.commands`,
whose console entry point (the ``pypddl`` script) runs them without importing
click at all when their arguments are plain.

Exit codes: 0 success; 1 the input is well-formed but a plan is invalid (or
``check`` found errors in the PDDL); 2 bad input (unreadable or malformed
files, bad options).
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from . import __version__
from .file_commands import (
    BAD_INPUT,
    INVALID,
    OK,
    check_files,
    ground_files,
    report_error,
    report_warnings,
    validate_files,
)
from .names import FEEDBACK_LEVELS, HEURISTIC_NAMES

__all__ = ["BAD_INPUT", "COMMAND_GROUP", "INVALID", "LAZY_COMMANDS", "OK", "main", "register_commands", "report_error",
           "run", "task_files"]

# command name -> ("module:attribute", one-line help); loaded on first use
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("pypddlengine.cli_serve:serve", "Run the MCP server (stdio by default, or streamable HTTP)."),
    "demo": ("pypddlengine.cli_serve:demo", "Watch a scripted agent solve a bundled task over MCP."),
    "relabel": ("pypddlengine.cli_relabel:relabel", "Write a relabelled copy of a domain and problems; map plans."),
    "exam": ("pypddlengine.cli_exam:exam", "Answer, make and score questions about action and change (ACPBench)."),
}

COMMAND_GROUP = "pypddl.commands"
"""Entry-point group through which other packages add ``pypddl`` commands:
each entry names a table like :data:`LAZY_COMMANDS` (``module:attribute``).
The experiment side (``pypddl_experiments``) registers its table there."""

_registered: list[str] = []


def register_commands(table: str) -> None:
    """Add the commands of ``table`` (``module:attribute`` of a dict like
    :data:`LAZY_COMMANDS`), as an entry point of :data:`COMMAND_GROUP` does:
    for running from a checkout, where no entry point is installed."""
    if table not in _registered:
        _registered.append(table)
        _plugin_commands.cache_clear()


@functools.cache
def _plugin_commands() -> dict[str, tuple[str, str]]:
    """The commands of the installed entry points and registered tables. Read
    only when a command is not the engine's own, or for --help: the engine's
    commands start without scanning the installed distributions."""
    from importlib.metadata import entry_points

    tables = [*(ep.value for ep in entry_points(group=COMMAND_GROUP)), *_registered]
    commands: dict[str, tuple[str, str]] = {}
    for table in dict.fromkeys(tables):
        module, _, attr = table.partition(":")
        try:
            found = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):  # a table that cannot load adds no commands
            continue
        for name, entry in found.items():
            commands.setdefault(name, entry)
    return commands


class LazyGroup(click.Group):
    """A group whose adapter and plugin commands are imported only when invoked."""

    def _lazy(self, ctx: click.Context, name: str) -> tuple[str, str] | None:
        if name in LAZY_COMMANDS:
            return LAZY_COMMANDS[name]
        if super().get_command(ctx, name) is not None:
            return None
        return _plugin_commands().get(name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS, *_plugin_commands()})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = self._lazy(ctx, name)
        if entry is None:
            return super().get_command(ctx, name)
        module, attr = entry[0].split(":")
        try:
            return getattr(importlib.import_module(module), attr)  # type: ignore[no-any-return]
        except (ImportError, AttributeError) as err:
            return _unavailable(name, err)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            entry = self._lazy(ctx, name)
            if entry is not None:
                rows.append((name, entry[1]))
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


TASK_HELP = "A bundled task instead of DOMAIN and PROBLEM, e.g. blocksworld/p01 (see 'pypddl play --help')."


def task_files(domain: str | None, problem: str | None, bundled: str | None) -> tuple[str, str]:
    """DOMAIN and PROBLEM, or the files of the bundled task ``--task NAME``;
    a usage error when both or neither are given, exit 2 for an unknown task."""
    from .bundled import DEFAULT_TASK, bundled_task
    from .errors import PDDLError

    if bundled:
        if domain or problem:
            raise click.UsageError("give DOMAIN and PROBLEM, or --task NAME, not both")
        try:
            d, p = bundled_task(bundled)
        except PDDLError as err:
            report_error(err)
            sys.exit(BAD_INPUT)
        return str(d), str(p)
    if not (domain and problem):
        raise click.UsageError(f"give both DOMAIN and PROBLEM, or --task NAME (e.g. --task {DEFAULT_TASK})")
    return domain, problem


# ----------------------------------------------------------------------------- validate


@main.command()
@click.argument("files", nargs=-1, metavar="[DOMAIN PROBLEM] PLAN...")
@click.option("--task", "bundled", help=TASK_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report per plan.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing; report through the exit code.")
@click.option("--epsilon", default=None, metavar="E",
              help="Timed plans: VAL's tolerance -t (default 0.01); times at most E/10 apart are one happening.")
def validate(files: Sequence[str], bundled: str | None, as_json: bool, quiet: bool, epsilon: str | None) -> None:
    """Validate one or more PLAN files against DOMAIN and PROBLEM (or --task).

    A plan holds one '(action arg ...)' per line (IPC/VAL format; ';'
    comments, 'N:' prefixes and '[d]' suffixes are accepted). Give '-' to
    read a plan from stdin, or a folder for every file in it (in name order;
    hidden and .pddl files skipped); the task is parsed once for all plans.
    When PROBLEM is a folder, every problem in it is validated with its
    plans, <problem>.plan and <problem>.plan.N, found in the folder given as
    PLAN (default: PROBLEM's folder). Exit code 0: every plan is valid; 1: a
    plan is invalid; 2: bad input.

    \b
    A temporal task (durative actions, timed initial literals) takes IPC
    timed plans, '0.000: (action arg ...) [duration]' per line, judged as
    VAL judges them (see --epsilon).

    \b
    Examples:
      pypddl validate domain.pddl p01.pddl p01.plan
      pypddl validate domain.pddl p01.pddl plans/     # every plan in plans/
      pypddl validate --task blocksworld/p01 p01.plan
      pypddl validate domain.pddl problems/ plans/
    """
    if bundled:
        domain, problem = task_files(None, None, bundled)
        plans = list(files)
    else:
        if len(files) < 2:
            raise click.UsageError("give DOMAIN, PROBLEM and PLAN files, or --task NAME and PLAN files")
        domain, problem, plans = files[0], files[1], list(files[2:])
    if Path(problem).is_dir():
        if len(plans) > 1 or (plans and not Path(plans[0]).is_dir()):
            raise click.UsageError("with a folder of problems, give at most one PLAN folder")
    elif not plans:
        raise click.UsageError("give at least one PLAN file ('-' reads one from stdin)")
    sys.exit(validate_files(domain, problem, plans, as_json, quiet, epsilon))


# ----------------------------------------------------------------------------- check


@main.command()
@click.argument("domain", required=False)  # files are read (and their errors reported) by the engine
@click.argument("problem", required=False)
@click.option("--task", "bundled", help=TASK_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the diagnostics as JSON.")
@click.option("--warnings/--no-warnings", default=True, help="Also print warnings (default: on).")
def check(domain: str | None, problem: str | None, bundled: str | None, as_json: bool, warnings: bool) -> None:
    """Parse and check DOMAIN (and PROBLEM), reporting every error found.

    PROBLEM may be a folder: every problem in it is checked against DOMAIN.
    Exit code 0: no errors; 1: the PDDL has errors; 2: a file cannot be read
    or does not parse.

    \b
    Examples:
      pypddl check domain.pddl problem.pddl
      pypddl check --task blocksworld/p01
      pypddl check domain.pddl problems/
    """
    if bundled or domain is None:  # DOMAIN alone is checked alone
        domain, problem = task_files(domain, problem, bundled)
    sys.exit(check_files(domain, problem, as_json, warnings))


# ----------------------------------------------------------------------------- ground


@main.command()
@click.argument("domain", required=False)
@click.argument("problem", required=False)
@click.option("--task", "bundled", help=TASK_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option("--max-actions", type=int, default=3_000_000, show_default=True, help="Refuse larger groundings.")
def ground(domain: str | None, problem: str | None, bundled: str | None, as_json: bool, max_actions: int) -> None:
    """Ground DOMAIN and PROBLEM (or --task) and print task statistics.

    \b
    Examples:
      pypddl ground domain.pddl problem.pddl
      pypddl ground --task blocksworld/p11 --json
    """
    domain, problem = task_files(domain, problem, bundled)
    sys.exit(ground_files(domain, problem, as_json, max_actions))


# ----------------------------------------------------------------------------- tasks


@main.command()
@click.argument("domain", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
def tasks(domain: str | None, as_json: bool) -> None:
    """List the bundled tasks (of DOMAIN, or of all): name, size, optimal
    plan length where known, and what each is for. Use a name with --task.

    \b
    Examples:
      pypddl tasks
      pypddl tasks gripper --json
      pypddl play --task blocksworld/p03
    """
    import json

    from .bundled import bundled_catalogue, bundled_domains
    from .errors import ErrorCode, PDDLError

    if domain is not None and domain not in bundled_domains():
        import difflib

        close = difflib.get_close_matches(domain, bundled_domains(), n=1, cutoff=0.5)
        report_error(PDDLError(f"no bundled domain '{domain}'" + (f"; did you mean '{close[0]}'?" if close else ""),
                               code=ErrorCode.UNKNOWN_TASK, hint=f"bundled domains: {', '.join(bundled_domains())}"))
        sys.exit(BAD_INPUT)
    rows = bundled_catalogue(domain)
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    width = max(len(r["task"]) for r in rows)
    size_width = max(len(r["size"] or "") for r in rows)
    for r in rows:
        optimal = f"optimal {r['optimal_length']}" if r["optimal_length"] is not None else (
            "unsolvable" if r["solvable"] is False else "")
        line = f"{r['task']:<{width}}  {r['size'] or '':<{size_width}}  {optimal:<12}  {r['purpose'] or ''}"
        click.echo(line.rstrip())
    click.echo(f"{len(rows)} tasks; use one with --task, e.g. 'pypddl play --task {rows[0]['task']}'")


# ----------------------------------------------------------------------------- play


@main.command()
@click.argument("domain", required=False)
@click.argument("problem", required=False)
@click.option("--task", "bundled", help="A bundled task instead of files, e.g. blocksworld/p03.")
@click.option("--feedback", type=click.Choice(FEEDBACK_LEVELS), default="full",
              show_default=True, help="How much the session says after each step (paper: success, state and "
              "goal reached only).")
@click.option("--heuristic", type=click.Choice(HEURISTIC_NAMES), default=HEURISTIC_NAMES[0],
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
    commands (state, actions, undo, save, restore, reset, history, write, validate,
    distance, heuristics, deadend, quit). Tab
    completes commands and the applicable actions, in either form.

    Exit codes: 0 after 'quit' or end of input; 2 bad input; 130 Ctrl-C.

    \b
    Examples:
      pypddl play domain.pddl problem.pddl
      pypddl play --task blocksworld/p03
    """
    from .errors import PDDLError
    from .loading import open_session
    from .play import run_repl

    paths = task_files(domain, problem, bundled)
    try:
        session = open_session(*paths, feedback=feedback, heuristic=heuristic, proof_budget=proof_budget,
                               observation=observation, backend=backend)
    except PDDLError as err:
        report_error(err)
        sys.exit(BAD_INPUT)
    lines = None if sys.stdin.isatty() else _bounded_lines(sys.stdin.buffer)
    from .temporal_session import TemporalSession

    if isinstance(session, TemporalSession):  # a temporal task: the clock, running actions, start/end/wait
        from .play_time import run_time_repl

        report_warnings(session.task.report)
        sys.exit(run_time_repl(session, click.echo, input_fn=None, lines=lines))
    report_warnings(session.lifted.report)
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


def run(argv: Sequence[str] | None = None) -> None:
    """The click command line (``python -m pypddlengine.cli``): ``main`` plus a
    quiet exit when the reader of our output goes away (``pypddl demo | head``).
    The ``pypddl`` script is :func:`pypddlengine.commands.run`, which comes here
    for everything but plain validate/check/ground argument lists."""
    try:
        main(args=None if argv is None else list(argv))
    except* BrokenPipeError:  # also when wrapped in an async task group (pypddl demo)
        import os

        # stdout is gone: point it at /dev/null so the interpreter's final flush stays quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)


if __name__ == "__main__":  # pragma: no cover
    run()
