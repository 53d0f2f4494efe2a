"""The console entry point runs validate/check/ground without click: it must
mean what click means, print what click's commands print, and import only
what those commands need (checked in fresh processes, never timed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pypddlengine.cli import main
from pypddlengine.commands import parse_fast
from pypddlengine.file_commands import plan_paths

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = ROOT / "domains" / "blocksworld.pddl"
PROBLEM = ROOT / "problems" / "blocksworld" / "p01.pddl"


def _click_params(argv: list[str]) -> dict[str, object] | None:
    """What click makes of ``argv`` (``None`` when it rejects it)."""
    ctx = click.Context(main)
    command = main.get_command(ctx, argv[0])
    assert command is not None
    try:
        with command.make_context(argv[0], list(argv[1:]), parent=ctx) as sub:
            return dict(sub.params)
    except (click.exceptions.Exit, click.exceptions.Abort, click.UsageError, click.BadParameter):
        return None


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("fast")
    (tmp / "plans").mkdir()
    (tmp / "p.plan").write_text("(pick-up a)\n")
    return {"D": str(DOMAIN), "P": str(PROBLEM), "plan": str(tmp / "p.plan"), "dir": str(tmp / "plans"),
            "missing": str(tmp / "nope.pddl"), "-": "-"}


_TOKENS = ["D", "P", "plan", "dir", "missing", "-", "--json", "-q", "--quiet", "--warnings", "--no-warnings",
           "--max-actions", "--max-actions=7", "12", "-5", "x1", "--help", "-h", "--", "-qq", "--jsn", "--max-actions="]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(["validate", "check", "ground"]), words=st.lists(st.sampled_from(_TOKENS), max_size=7))
def test_every_argument_list_taken_without_click_means_the_same_to_click(
        files: dict[str, str], command: str, words: list[str]) -> None:
    argv = [command, *(files.get(w, w) for w in words)]
    fast = parse_fast(argv)
    if fast is None:
        return  # click handles it, as before
    assert fast[0] == command
    theirs = _click_params(argv)
    assert theirs is not None, f"click rejects {argv} but the fast path accepts it"
    ours = dict(fast[1])
    if "plans" in ours:
        ours["plans"] = tuple(ours["plans"])
    assert ours == theirs


def test_plain_argument_lists_take_the_fast_path(files: dict[str, str]) -> None:
    d, p, plan = files["D"], files["P"], files["plan"]
    assert parse_fast(["validate", d, p, plan, "-q"]) is not None
    assert parse_fast(["validate", "--json", d, p, plan, files["dir"], "-"]) is not None
    assert parse_fast(["check", d]) is not None
    assert parse_fast(["ground", d, p, "--max-actions", "10"]) == (
        "ground", {"bundled": None, "as_json": False, "max_actions": 10, "domain": d, "problem": p})
    for argv in (["validate", d, p], ["validate", "--help"], ["check", files["dir"]], ["play", d, p],
                 ["ground", d, p, "--max-actions", "ten"], ["validate", d, p, plan, "--"], []):
        assert parse_fast(argv) is None, argv


def _run(entry: str, *args: str) -> tuple[int, str, str]:
    out = subprocess.run([sys.executable, "-m", entry, *args], capture_output=True, text=True, cwd=ROOT, check=False)
    return out.returncode, out.stdout, out.stderr


@pytest.mark.parametrize("args", [
    ["validate", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl", "PLAN"],
    ["validate", "--json", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl", "PLAN", "BAD", "NONE"],
    ["validate", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl", "FOLDER"],
    ["validate", "-q", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl", "BAD"],
    ["check", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl"],
    ["check", "--json", "--no-warnings", "domains/blocksworld.pddl", "NONE"],
    ["ground", "--json", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl"],
])
def test_both_entry_points_print_the_same(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "a.plan").write_text("(unstack b a)\n")
    (tmp_path / "plans" / "b.plan").write_text("; nothing\n")
    (tmp_path / "plans" / "domain.pddl").write_text("(define (domain x))")  # skipped in a folder
    (tmp_path / "bad.plan").write_text("(fly a)\n(pick-up\n")
    names = {"PLAN": str(tmp_path / "plans" / "a.plan"), "BAD": str(tmp_path / "bad.plan"),
             "NONE": str(tmp_path / "none.plan"), "FOLDER": str(tmp_path / "plans")}
    argv = [names.get(a, a) for a in args]
    assert parse_fast(argv) is not None
    fast, slow = _run("pypddlengine.commands", *argv), _run("pypddlengine.cli", *argv)
    if args[0] == "ground":  # the timing fields differ from run to run
        fast_stats, slow_stats = json.loads(fast[1]), json.loads(slow[1])
        for stats in (fast_stats, slow_stats):
            stats.pop("parse_check_seconds")
            stats.pop("ground_seconds")
        assert fast_stats == slow_stats and fast[0] == slow[0] == 0
    else:
        assert fast == slow


def test_a_folder_holds_its_plan_files_in_name_order(tmp_path: Path) -> None:
    for name in ("b.plan", "a.txt", ".hidden", "domain.pddl", "P01.PDDL"):
        (tmp_path / name).write_text("")
    (tmp_path / "sub").mkdir()
    paths, folder = plan_paths([str(tmp_path), "-"])
    assert folder
    assert paths == [str(tmp_path / "a.txt"), str(tmp_path / "b.plan"), "-"]


# ----------------------------------------------------------------------------- what each command imports

HEAVY = ("mcp", "pydantic", "click", "lark", "anyio", "httpx", "starlette", "uvicorn", "anthropic", "openai",
         "unified_planning", "numpy", "pypddl_experiments", "pypddlengine.heuristics", "pypddlengine.landmarks",
         "pypddlengine.session", "pypddlengine.mcp_server", "pypddlengine.cli_serve", "pypddlengine.joins")
HEAVY_STDLIB = ("pathlib", "urllib", "json", "threading", "difflib", "ast", "dis", "tokenize")
"""Standard modules these commands do without (pathlib and urllib.parse alone cost a quarter of VAL's run;
ast, dis and tokenize come with inspect, which the fast route defers: see ``commands.defer_import``)."""


def _modules_after(entry: str, argv: list[str], *, bare: bool = False) -> set[str]:
    """The modules loaded when ``run(argv)`` of ``entry`` exits; ``bare``: in an
    interpreter without site start-up files (``-S``, the checkout on the path),
    whose own imports a development environment's ``.pth`` files would hide."""
    # printed at exit: the fast route ends with os._exit after the exit handlers
    code = (f"import atexit, sys\nfrom {entry} import run\n"
            "atexit.register(lambda: print('\\n'.join(sorted(sys.modules)), file=sys.stderr))\n"
            "run(sys.argv[1:])\n")
    flags, env = (["-S"], {**os.environ, "PYTHONPATH": str(ROOT)}) if bare else ([], None)
    out = subprocess.run([sys.executable, *flags, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT,
                         check=False, input="(unstack b a)\n", env=env)
    return set(out.stderr.split())


@pytest.mark.parametrize("argv", [
    ["validate", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl", "PLAN", "PLAN"],
    ["check", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl"],
    ["ground", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl"],
])
def test_the_fast_commands_import_only_what_they_need(tmp_path: Path, argv: list[str]) -> None:
    """Also not lark: the parser runs on its cached tables (lark only explains syntax errors)."""
    (tmp_path / "p.plan").write_text("(unstack b a)\n(put-down b)\n")
    modules = _modules_after("pypddlengine.commands", [str(tmp_path / "p.plan") if a == "PLAN" else a for a in argv])
    assert "pypddlengine.loading" in modules  # the command did run
    loaded = sorted(m for m in modules if m.split(".")[0] in HEAVY or m.startswith(HEAVY))
    assert not loaded, f"{argv[0]} imported {loaded}"
    bare = _modules_after("pypddlengine.commands", [str(tmp_path / "p.plan") if a == "PLAN" else a for a in argv],
                          bare=True)
    assert "pypddlengine.loading" in bare
    slow_stdlib = sorted(m for m in bare if m.split(".")[0] in HEAVY_STDLIB)
    assert not slow_stdlib, f"{argv[0]} imported {slow_stdlib}"


def test_the_click_route_imports_no_adapter_either() -> None:
    """Through click (``--help``-free, but not a plain list: an option click
    alone understands), validate still imports no MCP, harness or heuristics."""
    argv = ["validate", "--quiet", "--json", "domains/blocksworld.pddl", "problems/blocksworld/p01.pddl", "-"]
    modules = _modules_after("pypddlengine.cli", argv)
    assert "pypddlengine.loading" in modules and "click" in modules
    allowed = {"click"}
    loaded = sorted(m for m in modules if (m.split(".")[0] in HEAVY or m.startswith(HEAVY))
                    and m.split(".")[0] not in allowed)
    assert not loaded, f"validate through click imported {loaded}"


def test_a_deferred_module_is_the_standard_module_once_read() -> None:
    """``defer_import`` (the fast route's way to skip inspect): nothing is
    loaded until a name is read; then every importer sees the real module's
    names, a dataclass without a docstring still gets its signature, and
    ``sys.modules`` holds the real module."""
    code = """
import sys, types
from pypddlengine.commands import defer_import
defer_import("inspect")
import dataclasses, inspect as early
assert "ast" not in sys.modules and "tokenize" not in sys.modules, "inspect was loaded at import"
@dataclasses.dataclass
class P:
    x: int
    y: str = "a"
assert P.__doc__ == "P(x: int, y: str = 'a')", P.__doc__
assert "ast" in sys.modules
import inspect as late
from inspect import signature
assert type(sys.modules["inspect"]) is types.ModuleType and late is sys.modules["inspect"]
assert early.signature is late.signature is signature and str(signature(lambda a, b=2: 0)) == "(a, b=2)"
assert early.getsource is late.getsource
defer_import("inspect")  # loaded now: a no-op
assert sys.modules["inspect"] is late
print("ok")
"""
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=False,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "ok", out.stderr
