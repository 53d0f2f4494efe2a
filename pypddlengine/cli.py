"""The ``pypddl`` command line: a thin click layer over pure functions.

Each command parses its options, calls the engine (or an adapter) and maps the
outcome to an exit code. Heavy modules (mcp, unified-planning, the LLM SDKs,
the baselines) are imported only by the commands that need them. The bodies of
validate, check and ground live in :mod:`.commands`, whose console entry point
runs them without importing click at all when their arguments are plain.

Exit codes: 0 success; 1 the input is well-formed but a plan is invalid (or
``check`` found errors in the PDDL); 2 bad input (unreadable or malformed
files, bad options).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from . import __version__
from .commands import (
    BAD_INPUT,
    INVALID,
    OK,
    check_files,
    ground_files,
    report_error,
    report_warnings,
    validate_files,
)

__all__ = ["BAD_INPUT", "FEEDBACK_LEVELS", "INVALID", "LAZY_COMMANDS", "OK", "main", "report_error", "run"]

FEEDBACK_LEVELS = ["paper", "plain", "progress", "heuristic", "full"]
"""The names of :class:`pypddlengine.session.FeedbackLevel`, for every command
that takes ``--feedback`` (kept here, importable without the engine; a test
checks that the two agree)."""

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
    read a plan from stdin, or a folder for every file in it (in name order;
    hidden and .pddl files skipped). The task is parsed once for all plans.
    Exit code 0: every plan is valid; 1: a plan is invalid; 2: bad input.

    \b
    Examples:
      pypddl validate domain.pddl p01.pddl p01.plan
      pypddl validate domain.pddl p01.pddl plans/     # every plan in plans/
    """
    sys.exit(validate_files(domain, problem, plans, as_json, quiet))


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
    sys.exit(check_files(domain, problem, as_json, warnings))


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
    sys.exit(ground_files(domain, problem, as_json, max_actions))


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
