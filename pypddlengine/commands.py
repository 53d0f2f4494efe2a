"""The bodies of ``pypddl validate``, ``check`` and ``ground``, and the
console entry point that runs them without importing click.

Scripts start ``pypddl validate`` once per plan, thousands of times, and the
CLI framework alone took several times as long to import as VAL takes to
validate. So the entry point, :func:`run`, reads the argument list of these
three commands itself when it is a plain one (the positional arguments and
the documented options, nothing else) and calls the same functions that the
click commands in :mod:`.cli` call; anything else (``--help``, an unknown or
misspelt option, a missing argument, a directory where a file is expected,
any other command) goes to click, which prints the usual help or error. Both
routes print through :func:`echo` and return the same exit codes; tests check
that every argument list this module accepts means the same to click.

Exit codes: 0 success; 1 the input is well-formed but a plan is invalid (or
``check`` found errors in the PDDL); 2 bad input.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from .errors import counted

__all__ = ["BAD_INPUT", "INVALID", "OK", "check_files", "echo", "ground_files", "parse_fast", "plan_paths", "report_warnings",
           "run", "validate_files"]

OK, INVALID, BAD_INPUT = 0, 1, 2


def echo(message: str, *, err: bool = False) -> None:
    """One line to stdout (or stderr), flushed, as ``click.echo`` prints it."""
    stream = sys.stderr if err else sys.stdout
    stream.write(f"{message}\n")
    stream.flush()


def report_error(err: Exception) -> None:
    """Print an engine error as ``file:line:col: error[CODE]: message`` + snippet."""
    echo(str(err), err=True)


def report_warnings(report: Any) -> None:
    """Print a checked task's warnings (e.g. a declared requirement it never
    uses) on stderr: every command that loads a task says them the same way."""
    for warning in report.warnings:
        echo(warning.render(), err=True)


def echo_json(data: Any) -> None:
    import json

    echo(json.dumps(data, indent=2, sort_keys=False))


# ----------------------------------------------------------------------------- validate


def plan_paths(names: Sequence[str]) -> tuple[list[str], bool]:
    """The plan files named: each argument itself, or for a folder every file
    in it (not below it) in name order, skipping hidden files and ``.pddl``
    files (a task folder's domain and problem). Also whether a folder was given."""
    paths: list[str] = []
    folder = False
    for name in names:
        if name != "-" and os.path.isdir(name):
            folder = True
            with os.scandir(name) as entries:
                paths.extend(sorted(e.path for e in entries if e.is_file() and not e.name.startswith(".")
                                    and not e.name.lower().endswith(".pddl")))
        else:
            paths.append(name)
    return paths, folder


def validate_files(domain: str, problem: str, plans: Sequence[str], as_json: bool, quiet: bool) -> int:
    """``pypddl validate``: parse the task once, then validate each plan;
    print one line (or JSON report) per plan and return the exit code."""
    from .gcpause import paused_gc

    with paused_gc():  # a short process building acyclic data: the collector would only rescan it
        status, results, folder = _validate_all(domain, problem, plans, as_json, quiet)
    if as_json and not quiet:
        echo_json(results if len(results) != 1 or folder else results[0])
    return status


def _validate_all(
    domain: str, problem: str, plans: Sequence[str], as_json: bool, quiet: bool
) -> tuple[int, list[dict[str, Any]], bool]:
    from .errors import PDDLError
    from .loading import load_task, read_file
    from .syntax import parse_plan
    from .validate import validate_plan

    try:
        task = load_task(domain, problem)
    except PDDLError as err:
        report_error(err)
        return BAD_INPUT, [], False
    if not quiet:
        report_warnings(task.report)
    names, folder = plan_paths(plans)
    status = OK
    results: list[dict[str, Any]] = []
    for name in names:
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
        echo(_describe(name, report))
    return status, results, folder


def _all_steps(n: int) -> str:
    return "its only step" if n == 1 else "an empty plan" if n == 0 else f"all {n} steps"


def _describe(name: str, report: Any) -> str:
    if report.valid:
        cost = "" if report.unit_cost else f", cost {report.cost:g}"
        if report.metric is not None:  # VAL's "Final value"
            from .exact import to_text

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


def check_files(domain: str, problem: str | None, as_json: bool, warnings: bool) -> int:
    """``pypddl check``: every error (and warning) in DOMAIN and PROBLEM."""
    from .checker import check as run_check
    from .errors import PDDLError
    from .loading import load_domain, load_problem

    try:
        d = load_domain(domain)
        p = load_problem(problem) if problem else None
    except PDDLError as err:
        if as_json:
            echo_json({"ok": False, "errors": [err.to_dict()], "warnings": []})
        else:
            report_error(err)
        return BAD_INPUT
    report = run_check(d, p)
    if as_json:
        echo_json({
            "ok": report.ok,
            "errors": [e.to_dict() for e in report.errors],
            "warnings": [w.to_dict() for w in report.warnings] if warnings else [],
            "features": sorted(report.features),
        })
    else:
        for err in report.errors:
            echo(err.render(), err=True)
        if warnings:
            report_warnings(report)
        what = f"{domain}" + (f" and {problem}" if problem else "")
        if report.ok:
            echo(f"{what}: ok ({counted(len(report.warnings), 'warning')})")
        else:
            echo(f"{what}: {counted(len(report.errors), 'error')}, {counted(len(report.warnings), 'warning')}",
                 err=True)
    return OK if report.ok else INVALID


# ----------------------------------------------------------------------------- ground


def ground_files(domain: str, problem: str, as_json: bool, max_actions: int) -> int:
    """``pypddl ground``: ground the task and print its statistics."""
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
        return BAD_INPUT
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
        echo_json(stats)
        return OK
    for key, value in stats.items():
        if key == "unreachable_goal_atoms":
            value = ", ".join(value) or "none"
        echo(f"{key.replace('_', ' '):<24} {value}")
    return OK


# ----------------------------------------------------------------------------- the entry point

# command -> (positional count: least, most or None; flags: option -> (parameter, value); valued options)
_Spec = tuple[tuple[int, int | None], dict[str, tuple[str, bool]], dict[str, tuple[str, Callable[[str], Any]]]]
_FAST: dict[str, _Spec] = {
    "validate": ((3, None), {"--json": ("as_json", True), "-q": ("quiet", True), "--quiet": ("quiet", True)}, {}),
    "check": ((1, 2), {"--json": ("as_json", True), "--warnings": ("warnings", True),
                       "--no-warnings": ("warnings", False)}, {}),
    "ground": ((2, 2), {"--json": ("as_json", True)}, {"--max-actions": ("max_actions", int)}),
}
_DEFAULTS: dict[str, dict[str, Any]] = {
    "validate": {"as_json": False, "quiet": False},
    "check": {"as_json": False, "warnings": True},
    "ground": {"as_json": False, "max_actions": 3_000_000},
}
_FILE_ARGUMENTS = {"validate": 2, "check": 2, "ground": 2}  # leading positionals that click checks as files


def parse_fast(argv: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    """``(command, parameters)`` for a plain argument list of validate, check
    or ground, with the parameter names and values click would give; ``None``
    for anything else (click then handles it)."""
    if not argv or argv[0] not in _FAST:
        return None
    command = argv[0]
    (least, most), flags, valued = _FAST[command]
    params = dict(_DEFAULTS[command])
    positional: list[str] = []
    rest = list(argv[1:])
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg.startswith("-") and arg != "-":
            if arg in flags:
                name, value = flags[arg]
                params[name] = value
                i += 1
                continue
            option, eq, given = arg.partition("=")
            if option in valued:
                if not eq:
                    if i + 1 >= len(rest) or rest[i + 1].startswith("-"):
                        return None
                    given = rest[i + 1]
                    i += 1
                name, convert = valued[option]
                try:
                    params[name] = convert(given)
                except ValueError:
                    return None
                i += 1
                continue
            return None  # --help, --, a misspelt option, grouped short flags: click's business
        positional.append(arg)
        i += 1
    if len(positional) < least or (most is not None and len(positional) > most):
        return None
    for path in positional[: _FILE_ARGUMENTS[command]]:
        try:
            st = os.stat(path)
        except OSError:
            continue  # a missing file is reported by the command itself, as click lets it through
        if stat.S_ISDIR(st.st_mode) or not os.access(path, os.R_OK):
            return None  # click rejects it with a usage error
    if command == "validate":
        params.update(domain=positional[0], problem=positional[1], plans=tuple(positional[2:]))
    elif command == "check":
        params.update(domain=positional[0], problem=positional[1] if len(positional) > 1 else None)
    else:
        params.update(domain=positional[0], problem=positional[1])
    return command, params


_BODIES: dict[str, Callable[..., int]] = {"validate": validate_files, "check": check_files, "ground": ground_files}


def run(argv: Sequence[str] | None = None) -> None:
    """Console entry point (``pypddl``): validate/check/ground without click
    when the arguments are plain, else the click command line."""
    args = sys.argv[1:] if argv is None else list(argv)
    fast = parse_fast(args)
    if fast is None:
        from .cli import run as click_run

        click_run(argv)
        return
    command, params = fast
    try:
        status = _BODIES[command](**params)
        sys.stdout.flush()
        sys.stderr.flush()
    except KeyboardInterrupt:
        echo("\nAborted!", err=True)  # as click reports an interrupted command
        sys.exit(1)
    except BrokenPipeError:
        # the reader of our output went away (``pypddl validate ... | head``): exit quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    _exit_now(status)


def _exit_now(status: int) -> None:
    """End the process without tearing the heap down object by object: after
    grounding a large task that teardown took a third of the whole run. The
    exit handlers still run (the per-user cache writes what it learnt) and
    the output is flushed, so nothing but the freeing is skipped."""
    import atexit

    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None:  # another Python: leave the usual way
        sys.exit(status)
    run_handlers()
    os._exit(status)


if __name__ == "__main__":  # pragma: no cover
    run()
