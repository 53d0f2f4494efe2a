"""The bodies of ``pypddl validate``, ``check`` and ``ground``: plain
functions of their arguments that print through :func:`echo` (no click) and
return the exit code. The click commands in :mod:`.cli` and the click-free
``pypddl`` script (:mod:`.commands`) both call them.

Exit codes: 0 success; 1 the input is well-formed but a plan is invalid (or
``check`` found errors in the PDDL); 2 bad input.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from .errors import counted

__all__ = ["BAD_INPUT", "INVALID", "OK", "check_files", "echo", "echo_json", "ground_files", "plan_paths", "plans_of",
           "report_error", "report_warnings", "validate_files"]

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
    files (a task folder's domain and problem). Also whether a folder was given.
    A folder without a plan file is bad input (``FILE_NOT_FOUND``), as an
    empty folder of problems is."""
    from .errors import ErrorCode, PDDLError

    paths: list[str] = []
    folder = False
    for name in names:
        if name != "-" and os.path.isdir(name):
            folder = True
            with os.scandir(name) as entries:
                found = sorted(e.path for e in entries if e.is_file() and not e.name.startswith(".")
                               and not e.name.lower().endswith(".pddl"))
            if not found:
                raise PDDLError(f"no plan files in {name}", code=ErrorCode.FILE_NOT_FOUND,
                                hint="every file of a plan folder is read as a plan, but hidden and .pddl files")
            paths.extend(found)
        else:
            paths.append(name)
    return paths, folder


def validate_files(domain: str, problem: str, plans: Sequence[str], as_json: bool, quiet: bool,
                   epsilon: str | None = None) -> int:
    """``pypddl validate``: parse the task once, then validate each plan;
    print one line (or JSON report) per plan and return the exit code. When
    ``problem`` is a folder, every problem in it is validated with its plans
    (:func:`plans_of`) from the folder ``plans[0]`` (default: ``problem``)."""
    from .gcpause import paused_gc

    if epsilon is not None and not os.path.isdir(problem):  # only timed plans have a tolerance
        return validate_timed_files(domain, problem, plans, as_json, quiet, epsilon)
    with paused_gc():  # a short process building acyclic data: the collector would only rescan it
        if os.path.isdir(problem):
            status, found = _validate_folder(domain, problem, plans[0] if plans else problem, as_json, quiet,
                                             epsilon)
            if found is None:
                return status
            results, folder = found, True
        else:
            status, results, folder = _validate_all(domain, problem, plans, as_json, quiet)
    if as_json and not quiet:
        echo_json(results if len(results) != 1 or folder else results[0])
    return status


def plans_of(problem: str, folder: str) -> list[str]:
    """The plans of ``problem`` in ``folder``: ``<stem>.plan`` and
    ``<stem>.plan.<n>`` (numbered anytime plans), in natural order."""
    from .task import natural_key

    stem = os.path.splitext(os.path.basename(problem))[0]
    with os.scandir(folder) as entries:
        found = [e.path for e in entries if e.is_file() and (e.name == f"{stem}.plan" or
                                                              e.name.startswith(f"{stem}.plan."))]
    return sorted(found, key=lambda p: natural_key(os.path.basename(p)))


def _validate_all(
    domain: str, problem: str, plans: Sequence[str], as_json: bool, quiet: bool, task: Any = None
) -> tuple[int, list[dict[str, Any]], bool]:
    from .errors import PDDLError
    from .lazy import LazyTask
    from .loading import load_task
    from .syntax import parse_plan, plan_words
    from .validate import validate_plan

    if task is None:
        try:
            task = load_task(domain, problem)
        except PDDLError as err:
            if err.details.get("feature") in _TIMED:  # a temporal task: its plans are timed plans
                timed: list[dict[str, Any]] = []
                status = validate_timed_files(domain, problem, plans, as_json, True if as_json else quiet, None, timed)
                return status, timed, len(timed) != 1
            report_error(err)
            return BAD_INPUT, [], False
        if not quiet:
            report_warnings(task.report)
    space = LazyTask(task)  # one for the batch: each ground step is instantiated once, not once per plan

    def judge(data: Any, filename: str) -> Any:
        # a valid plan is judged from its step words, without an object per step; an invalid one (or one
        # plan_words does not take) is parsed in full, so that its report says where the failing step is
        words = plan_words(data, filename=filename)
        report = None if words is None else validate_plan(space, words)
        if report is None or not report.valid:
            report = validate_plan(space, parse_plan(data, filename=filename))
        return report

    return _judge_plans(plans, judge, _describe, as_json, quiet)


def _judge_plans(plans: Sequence[str], judge: Any, describe: Any, as_json: bool,
                 quiet: bool) -> tuple[int, list[dict[str, Any]], bool]:
    """Each plan named (:func:`plan_paths`; ``-`` is standard input) read and
    judged by ``judge(data, filename)``, classical or timed: the exit status,
    one result per plan (its report, or the error that stopped it) and whether
    a folder was given. Unless ``quiet`` or ``as_json``, ``describe(name,
    report)`` is printed per plan as it is judged."""
    from .errors import PDDLError
    from .loading import read_file

    try:
        names, folder = plan_paths(plans)
    except PDDLError as err:
        report_error(err)
        return BAD_INPUT, [{"plan": plans[0] if len(plans) == 1 else list(plans), "error": err.to_dict()}], True
    status = OK
    results: list[dict[str, Any]] = []
    for name in names:
        filename = "<stdin>" if name == "-" else name
        try:
            data = sys.stdin.buffer.read() if name == "-" else read_file(name)
            report = judge(data, filename)
        except PDDLError as err:
            report_error(err)
            status = BAD_INPUT
            results.append({"plan": name, "error": err.to_dict()})
            continue
        if not report.valid and status == OK:
            status = INVALID
        results.append({"plan": name, **report.to_dict()})
        if not quiet and not as_json:
            echo(describe(name, report))
    return status, results, folder


def _validate_folder(domain: str, problems: str, plan_folder: str, as_json: bool, quiet: bool,
                     epsilon: str | None = None) -> tuple[int, list[dict[str, Any]] | None]:
    """Every problem of a folder with its plans (see :func:`plans_of`); no
    results (``None``) when nothing could be validated."""
    from .errors import PDDLError
    from .lifted import compile_task
    from .loading import load_domain, load_problem, problem_files

    try:
        parsed = load_domain(domain)
    except PDDLError as err:
        report_error(err)
        return BAD_INPUT, None
    status = OK
    results: list[dict[str, Any]] = []
    without: list[str] = []
    counts = {"valid": 0, "invalid": 0}
    for path in problem_files(problems):
        problem = str(path)
        plans = plans_of(problem, plan_folder)
        if not plans:
            without.append(problem)
            if not quiet and not as_json:
                echo(f"{problem}: no plan ({path.stem}.plan in {plan_folder})")
            continue
        try:
            task = compile_task(parsed, load_problem(problem))
        except PDDLError as err:
            if err.details.get("feature") in _TIMED:  # a temporal task: its plans are timed plans
                timed: list[dict[str, Any]] = []
                one = validate_timed_files(domain, problem, plans, as_json, True if as_json else quiet, epsilon, timed)
                status = max(status, one)
                counts["valid"] += sum(1 for r in timed if r.get("valid"))
                counts["invalid"] += sum(1 for r in timed if not r.get("valid"))
                results.extend({"problem": problem, **r} for r in timed)
                continue
            report_error(err)
            status = BAD_INPUT
            results.append({"problem": problem, "error": err.to_dict()})
            continue
        one, found, _ = _validate_all(domain, problem, plans, as_json, quiet, task)
        status = max(status, one)
        for result in found:
            counts["valid" if result.get("valid") else "invalid"] += 1
            results.append({"problem": problem, **result})
    if not results:
        report_error(_no_files(f"no problem files in {problems}" if not without else
                               f"no plans (<problem>.plan or <problem>.plan.N) in {plan_folder}"))
        return BAD_INPUT, None
    if not quiet and not as_json:
        echo(f"{counts['valid']} valid, {counts['invalid']} invalid, {counted(len(without), 'problem')} without a plan")
    return status, results


def _no_files(message: str) -> Exception:
    """A folder without the files a command reads: bad input, as a missing file is."""
    from .errors import ErrorCode, PDDLError

    return PDDLError(message, code=ErrorCode.FILE_NOT_FOUND)


def _describe(name: str, report: Any) -> str:
    if report.valid:
        cost = "" if report.unit_cost else f", cost {report.cost:g}"
        if report.metric is not None:  # VAL's "Final value"
            from .exact import to_text

            cost += f", metric {to_text(report.metric)} ({report.metric_direction})"
        elif report.metric_error is not None:
            cost += f"; the metric cannot be evaluated: {report.metric_error}"
        return f"{name}: valid plan ({counted(report.length, 'step')}{cost})"
    lines = [f"{name}: {report.headline()}"]  # the one wording of a verdict (ValidationReport.headline)
    if report.failure is not None:
        lines.extend(f"  unsatisfied precondition: {u}" for u in report.failure.unsatisfied)
    else:
        lines.extend(f"  unsatisfied goal: {g}" for g in report.unsatisfied_goals)
    return "\n".join(lines)


# ----------------------------------------------------------------------------- check


def check_files(domain: str, problem: str | None, as_json: bool, warnings: bool) -> int:
    """``pypddl check``: every error (and warning) in DOMAIN and PROBLEM, or
    in every problem of a folder PROBLEM (:func:`_check_folder`)."""
    from .checker import check as run_check
    from .errors import PDDLError
    from .loading import load_domain, load_problem

    if problem is not None and os.path.isdir(problem):
        return _check_folder(domain, problem, as_json, warnings)
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
        _print_diagnostics(report, warnings)
        what = f"{domain}" + (f" and {problem}" if problem else "")
        if report.ok:
            echo(f"{what}: ok ({counted(len(report.warnings), 'warning')})")
        else:
            echo(f"{what}: {counted(len(report.errors), 'error')}, {counted(len(report.warnings), 'warning')}",
                 err=True)
    return OK if report.ok else INVALID


def _print_diagnostics(report: Any, warnings: bool, skip: frozenset[str] = frozenset()) -> None:
    """A check's errors (and warnings) on stderr, leaving out those in ``skip``
    (a folder's domain diagnostics, said once)."""
    for err in report.errors:
        if err.render() not in skip:
            echo(err.render(), err=True)
    if warnings:
        for w in report.warnings:
            if w.render() not in skip:
                echo(w.render(), err=True)


def _check_folder(domain: str, folder: str, as_json: bool, warnings: bool) -> int:
    """Check DOMAIN once and every problem of ``folder`` against it; the
    domain's own diagnostics are shown once, not with every problem."""
    from .checker import check as run_check
    from .errors import PDDLError
    from .loading import load_domain, load_problem, problem_files

    try:
        d = load_domain(domain)
    except PDDLError as err:
        if as_json:
            echo_json({"ok": False, "errors": [err.to_dict()], "warnings": [], "problems": []})
        else:
            report_error(err)
        return BAD_INPUT
    files = problem_files(folder)
    if not files:
        report_error(_no_files(f"no problem files in {folder}"))
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
        echo_json({"ok": status == OK, "errors": [e.to_dict() for e in own.errors],
                   "warnings": [w.to_dict() for w in own.warnings] if warnings else [], "problems": rows})
    else:
        line = f"{domain}: {counted(len(own.errors), 'error')}; " if own.errors else f"{domain}: "
        echo(line + f"{counted(len(rows), 'problem')}: {ok} ok"
             + (f", {len(rows) - ok} with errors" if ok < len(rows) else ""), err=status != OK)
    return status


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
        if (err.details or {}).get("kind") in ("actions", "estimate"):  # the one limit this command sets
            err.hint = (f"{err.hint}; " if err.hint else "") + \
                f"--max-actions N raises the limit ({max_actions:,} now)"
        report_error(err)
        return BAD_INPUT
    done = time.perf_counter()
    s = task.stats
    stats: dict[str, Any] = {
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


# ----------------------------------------------------------------------------- validate: timed plans

_TIMED = ("durative-actions", "timed-initial-literals", "duration-inequalities")


def validate_timed_files(domain: str, problem: str, plans: Sequence[str], as_json: bool, quiet: bool,
                         epsilon: str | None, results: list[dict[str, Any]] | None = None) -> int:
    """``pypddl validate`` on a temporal task (:mod:`pypddlengine.temporal`):
    each plan is an IPC timed plan, judged as VAL judges it with tolerance
    ``epsilon`` (VAL's ``-t``; default 0.01). Prints one verdict per plan
    (or, with ``as_json``, collects the reports in ``results`` or prints them)."""
    from fractions import Fraction

    from .errors import PDDLError
    from .temporal import DEFAULT_EPSILON, load_temporal, validate_timed_plan

    collect = results is not None
    results = [] if results is None else results
    try:
        eps = DEFAULT_EPSILON if epsilon is None else Fraction(epsilon)
        if eps < 0:
            raise ValueError
    except (ValueError, ZeroDivisionError):
        echo(f"error: --epsilon takes a non-negative number, not '{epsilon}'", err=True)
        return BAD_INPUT
    try:
        task = load_temporal(domain, problem)
    except PDDLError as err:
        report_error(err)
        return BAD_INPUT
    except OSError as err:
        echo(f"error: {err.strerror}: {err.filename}", err=True)
        return BAD_INPUT
    if not quiet and not as_json:
        report_warnings(task.report)
    def judge(data: Any, filename: str) -> Any:
        text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
        return validate_timed_plan(task, text, eps, filename)

    status, found, folder = _judge_plans(plans, judge, lambda name, report: f"{name}: {report.summary()}",
                                         as_json, quiet)
    results.extend(found)
    if as_json and not quiet and not collect:
        echo_json(results if len(results) != 1 or folder else results[0])
    return status
