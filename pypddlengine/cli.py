"""The ``pypddl`` command line: a thin click layer over pure functions.

Each command parses its options, calls the engine (or an adapter) and maps the
outcome to an exit code. The engine's own commands are here (validate, check,
ground, play) or in :mod:`.cli_serve` and :mod:`.cli_relabel`; other packages
add theirs through the entry-point group :data:`COMMAND_GROUP` (the experiment
side: solve, batch, reference, generate, experiment). Heavy modules (mcp, the
experiment side, the LLM SDKs) are imported only by the commands that need
them, so ``pypddl validate`` starts fast.

Exit codes: 0 success; 1 the input is well-formed but a plan is invalid (or
``check`` found errors in the PDDL); 2 bad input (unreadable or malformed
files, bad options).
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from . import __version__
from .errors import counted
from .names import FEEDBACK_LEVELS, HEURISTIC_NAMES

OK, INVALID, BAD_INPUT = 0, 1, 2

# command name -> ("module:attribute", one-line help); loaded on first use
LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("pypddlengine.cli_serve:serve", "Run the MCP server (stdio by default, or streamable HTTP)."),
    "demo": ("pypddlengine.cli_serve:demo", "Watch a scripted agent solve a bundled task over MCP."),
    "relabel": ("pypddlengine.cli_relabel:relabel", "Write a relabelled copy of a domain and problems; map plans."),
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


def plans_of(problem: Path, folder: Path) -> list[Path]:
    """The plans of ``problem`` in ``folder``: ``<stem>.plan`` and
    ``<stem>.plan.<n>`` (numbered anytime plans), in natural order."""
    from .task import natural_key

    stem = problem.stem
    found = [p for p in folder.iterdir() if p.is_file() and (p.name == f"{stem}.plan" or
                                                               p.name.startswith(f"{stem}.plan."))]
    return sorted(found, key=lambda p: natural_key(p.name))


# ----------------------------------------------------------------------------- validate


@main.command()
@click.argument("files", nargs=-1, metavar="[DOMAIN PROBLEM] PLAN...")
@click.option("--task", "bundled", help=TASK_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report per plan.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing; report through the exit code.")
def validate(files: Sequence[str], bundled: str | None, as_json: bool, quiet: bool) -> None:
    """Validate one or more PLAN files against DOMAIN and PROBLEM (or --task).

    A plan holds one '(action arg ...)' per line (IPC/VAL format; ';'
    comments, 'N:' prefixes and '[d]' suffixes are accepted). Give '-' to
    read a plan from stdin. When PROBLEM is a folder, every problem in it is
    validated with its plans, <problem>.plan and <problem>.plan.N, found in
    the folder given as PLAN (default: PROBLEM's folder). Exit code 0: every
    plan is valid; 1: a plan is invalid; 2: bad input.

    \b
    Examples:
      pypddl validate domain.pddl p01.pddl p01.plan
      pypddl validate --task blocksworld/p01 p01.plan
      pypddl validate domain.pddl problems/ plans/
    """
    from .gcpause import paused_gc

    if bundled:
        domain, problem = task_files(None, None, bundled)
        plans = list(files)
    else:
        if len(files) < 2:
            raise click.UsageError("give DOMAIN, PROBLEM and PLAN files, or --task NAME and PLAN files")
        domain, problem, plans = files[0], files[1], list(files[2:])
    folder = not bundled and Path(problem).is_dir()
    if not plans and not folder:
        raise click.UsageError("give at least one PLAN file ('-' reads one from stdin)")
    with paused_gc():  # a short process building acyclic data: the collector would only rescan it
        if folder:
            if len(plans) > 1 or (plans and not Path(plans[0]).is_dir()):
                raise click.UsageError("with a folder of problems, give at most one PLAN folder")
            status, results = _validate_folder(domain, Path(problem), Path(plans[0] if plans else problem),
                                               as_json, quiet)
        else:
            status, results = _validate_all(domain, problem, plans, as_json, quiet)
    if as_json and not quiet:
        _echo_json(results if len(results) > 1 or folder else results[0])
    sys.exit(status)


def _validate_all(
    domain: str, problem: str, plans: Sequence[str], as_json: bool, quiet: bool, task: Any = None
) -> tuple[int, list[dict[str, Any]]]:
    from .errors import PDDLError
    from .loading import load_task, read_file
    from .syntax import parse_plan
    from .validate import validate_plan

    if task is None:
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


def _validate_folder(domain: str, problems: Path, plan_folder: Path, as_json: bool, quiet: bool
                     ) -> tuple[int, list[dict[str, Any]]]:
    """Every problem of a folder with its plans (see :func:`plans_of`)."""
    from .errors import PDDLError
    from .lifted import compile_task
    from .loading import load_domain, load_problem, problem_files

    try:
        parsed = load_domain(domain)
    except PDDLError as err:
        report_error(err)
        sys.exit(BAD_INPUT)
    status, results, without = OK, [], []
    counts = {"valid": 0, "invalid": 0}
    for problem in problem_files(problems):
        plans = plans_of(problem, plan_folder)
        if not plans:
            without.append(problem)
            if not quiet and not as_json:
                click.echo(f"{problem}: no plan ({problem.stem}.plan in {plan_folder})")
            continue
        try:
            task = compile_task(parsed, load_problem(problem))
        except PDDLError as err:
            report_error(err)
            status = BAD_INPUT
            results.append({"problem": str(problem), "error": err.to_dict()})
            continue
        one, found = _validate_all(domain, str(problem), [str(p) for p in plans], as_json, quiet, task)
        status = max(status, one)
        for result in found:
            counts["valid" if result.get("valid") else "invalid"] += 1
            results.append({"problem": str(problem), **result})
    if not results:
        click.echo(f"error: no problem files in {problems}" if not without else
                   f"error: no plans (<problem>.plan or <problem>.plan.N) in {plan_folder}", err=True)
        sys.exit(BAD_INPUT)
    if not quiet and not as_json:
        click.echo(f"{counts['valid']} valid, {counts['invalid']} invalid, "
                   f"{counted(len(without), 'problem')} without a plan")
    return status, results


def _all_steps(n: int) -> str:
    return "its only step" if n == 1 else "an empty plan" if n == 0 else f"all {n} steps"


def _describe(name: str, report: Any) -> str:
    if report.valid:
        cost = "" if report.unit_cost else f", cost {report.cost:g}"
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
@click.argument("domain", type=click.Path(dir_okay=False), required=False)
@click.argument("problem", type=click.Path(), required=False)
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
    from .checker import check as run_check
    from .errors import PDDLError
    from .loading import load_domain, load_problem

    if bundled or domain is None:  # DOMAIN alone is checked alone
        domain, problem = task_files(domain, problem, bundled)
    if problem is not None and Path(problem).is_dir():
        sys.exit(_check_folder(domain, Path(problem), as_json, warnings))
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
        _print_diagnostics(report, warnings)
        what = f"{domain}" + (f" and {problem}" if problem else "")
        if report.ok:
            click.echo(f"{what}: ok ({counted(len(report.warnings), 'warning')})")
        else:
            click.echo(f"{what}: {counted(len(report.errors), 'error')}, {counted(len(report.warnings), 'warning')}",
                       err=True)
    sys.exit(OK if report.ok else INVALID)


def _print_diagnostics(report: Any, warnings: bool, skip: frozenset[str] = frozenset()) -> None:
    """A check's errors (and warnings) on stderr, leaving out those in ``skip``
    (a folder's domain diagnostics, said once)."""
    for err in report.errors:
        if err.render() not in skip:
            click.echo(err.render(), err=True)
    if warnings:
        for w in report.warnings:
            if w.render() not in skip:
                click.echo(w.render(), err=True)


def _check_folder(domain: str, folder: Path, as_json: bool, warnings: bool) -> int:
    """Check DOMAIN once and every problem of ``folder`` against it; the
    domain's own diagnostics are shown once, not with every problem."""
    from .checker import check as run_check
    from .errors import PDDLError
    from .loading import load_domain, load_problem, problem_files

    try:
        d = load_domain(domain)
    except PDDLError as err:
        if as_json:
            _echo_json({"ok": False, "errors": [err.to_dict()], "warnings": [], "problems": []})
        else:
            report_error(err)
        return BAD_INPUT
    files = problem_files(folder)
    if not files:
        click.echo(f"error: no problem files in {folder}", err=True)
        return BAD_INPUT
    own = run_check(d)
    seen = frozenset(e.render() for e in (*own.errors, *own.warnings))
    status = OK if own.ok else INVALID
    rows: list[dict[str, Any]] = []
    if not as_json:
        _print_diagnostics(own, warnings)
    for problem in files:
        try:
            report = run_check(d, load_problem(problem))
        except PDDLError as err:
            status = BAD_INPUT
            rows.append({"problem": str(problem), "ok": False, "errors": [err.to_dict()], "warnings": []})
            if not as_json:
                report_error(err)
            continue
        if not report.ok and status == OK:
            status = INVALID
        errors = [e for e in report.errors if e.render() not in seen]
        notes = [w for w in report.warnings if w.render() not in seen]
        rows.append({"problem": str(problem), "ok": not errors,
                     "errors": [e.to_dict() for e in errors],
                     "warnings": [w.to_dict() for w in notes] if warnings else []})
        if not as_json:
            _print_diagnostics(report, warnings, seen)
    ok = sum(1 for row in rows if row["ok"])
    if as_json:
        _echo_json({"ok": status == OK, "errors": [e.to_dict() for e in own.errors],
                    "warnings": [w.to_dict() for w in own.warnings] if warnings else [], "problems": rows})
    else:
        line = f"{domain}: {counted(len(own.errors), 'error')}; " if own.errors else f"{domain}: "
        click.echo(line + f"{counted(len(rows), 'problem')}: {ok} ok"
                   + (f", {len(rows) - ok} with errors" if ok < len(rows) else ""),
                   err=status != OK)
    return status


# ----------------------------------------------------------------------------- ground


@main.command()
@click.argument("domain", type=click.Path(dir_okay=False), required=False)
@click.argument("problem", type=click.Path(dir_okay=False), required=False)
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
    from .errors import PDDLError
    from .grounding import GroundingOptions
    from .grounding import ground as run_ground
    from .loading import load_task

    domain, problem = task_files(domain, problem, bundled)
    start = time.perf_counter()
    try:
        lifted = load_task(domain, problem)
        report_warnings(lifted.report)
        parsed = time.perf_counter()
        task = run_ground(lifted, GroundingOptions(max_actions=max_actions))
    except PDDLError as err:
        if (err.details or {}).get("kind") in ("actions", "estimate"):  # the one limit this command sets
            err.hint = (f"{err.hint}; " if err.hint else "") + \
                f"--max-actions N raises the limit ({max_actions:,} now)"
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
    commands (state, actions, undo, save, restore, reset, history, validate,
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
