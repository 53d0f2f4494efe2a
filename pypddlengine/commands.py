"""The ``pypddl`` console entry point, which runs ``validate``, ``check`` and
``ground`` without importing click (their bodies are in :mod:`.file_commands`).

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
import types
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["parse_fast", "run"]


# ----------------------------------------------------------------------------- the entry point

# command -> (positional count: least, most or None; flags: option -> (parameter, value); valued options)
_Spec = tuple[tuple[int, int | None], dict[str, tuple[str, bool]], dict[str, tuple[str, Callable[[str], Any]]]]
_FAST: dict[str, _Spec] = {
    "validate": ((3, None), {"--json": ("as_json", True), "-q": ("quiet", True), "--quiet": ("quiet", True)},
                 {"--epsilon": ("epsilon", str)}),
    "check": ((1, 2), {"--json": ("as_json", True), "--warnings": ("warnings", True),
                       "--no-warnings": ("warnings", False)}, {}),
    "ground": ((2, 2), {"--json": ("as_json", True)}, {"--max-actions": ("max_actions", int)}),
}
_DEFAULTS: dict[str, dict[str, Any]] = {
    "validate": {"bundled": None, "as_json": False, "quiet": False, "epsilon": None},
    "check": {"bundled": None, "as_json": False, "warnings": True},
    "ground": {"bundled": None, "as_json": False, "max_actions": 3_000_000},
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
        params.update(files=tuple(positional))
    elif command == "check":
        params.update(domain=positional[0], problem=positional[1] if len(positional) > 1 else None)
    else:
        params.update(domain=positional[0], problem=positional[1])
    return command, params


def _validate(files: Sequence[str], bundled: None, as_json: bool, quiet: bool, epsilon: str | None = None) -> int:
    from .file_commands import validate_files

    return validate_files(files[0], files[1], files[2:], as_json, quiet, epsilon)


def _check(domain: str, problem: str | None, bundled: None, as_json: bool, warnings: bool) -> int:
    from .file_commands import check_files

    return check_files(domain, problem, as_json, warnings)


def _ground(domain: str, problem: str, bundled: None, as_json: bool, max_actions: int) -> int:
    from .file_commands import ground_files

    return ground_files(domain, problem, as_json, max_actions)


_BODIES: dict[str, Callable[..., int]] = {"validate": _validate, "check": _check, "ground": _ground}
"""The fast path's calls, taking the parameters of the click commands (``--task``, ``bundled``, is click's)."""


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
    defer_import("inspect")
    try:
        status = _BODIES[command](**params)
        sys.stdout.flush()
        sys.stderr.flush()
    except KeyboardInterrupt:
        from .file_commands import echo

        echo("\nAborted!", err=True)  # as click reports an interrupted command
        sys.exit(1)
    except BrokenPipeError:
        # the reader of our output went away (``pypddl validate ... | head``): exit quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    _exit_now(status)


class _Deferred(types.ModuleType):
    """A standard module not imported yet: the first attribute read imports
    it, takes its place in ``sys.modules``, and copies its names here (so
    modules that imported this stand-in read them directly from then on)."""

    def __getattr__(self, name: str) -> Any:
        module = sys.modules.get(self.__name__)
        if module is self:
            del sys.modules[self.__name__]
            __import__(self.__name__)
            module = sys.modules[self.__name__]
            self.__dict__.update(module.__dict__)
        return getattr(module, name)


def defer_import(name: str) -> None:
    """Import the standard module ``name`` when something first reads from
    it, not when something imports it (a no-op when it is loaded already).

    The fast commands defer ``inspect``: :mod:`dataclasses` imports it (and
    with it ast, dis, tokenize and linecache: a sixth of a ``pypddl validate``
    process, measured) only to write a signature into classes that have no
    docstring, and every class on these paths has one. Only this script's
    own process is affected: the library never defers anything."""
    if name not in sys.modules:
        sys.modules[name] = _Deferred(name)


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
