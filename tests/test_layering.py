"""Every import of the repository runs downward (issue 23).

Two packages: the engine, ``pypddlengine`` (core layers, then its adapters:
the MCP server and the command line), and the experiment side,
``pypddl_experiments`` (in ``baselines/``: runs, generators, planners, llm,
report, then its command table). The engine imports nothing of the
experiment side and its core imports no adapter dependency (pydantic, click,
mcp, subprocess) and never prints; the experiment side uses only the
engine's public modules. Every module has a layer (a new one fails until it
is given one), an import may only go to the same layer or below, and the
import graph of the whole repository, lazy imports included, has no circle.
Tests and benchmarks stand on top and are imported by nothing.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "pypddlengine"
EXPERIMENTS = ROOT / "baselines" / "pypddl_experiments"

# lower number = lower layer; a module may import only from its own layer or below
ENGINE_LAYERS = {
    "errors": 0, "features": 0, "gcpause": 0, "usercache": 0, "exact": 0, "names": 0, "_relaxed": 0,  # _relaxed: optional C code
    "model": 1, "bundled": 1,
    "syntax": 2, "hierarchy": 2, "printer": 2, "sources": 2, "relabel": 2,
    "checker": 3, "normalise": 3, "numeric": 3,
    "lifted": 4,
    "step": 5, "task": 5, "joins": 5,
    "grounding": 6, "lazy": 6,
    "validate": 7, "temporal": 7, "feedback": 7, "heuristics": 7, "lmcut": 7, "numeric_heuristics": 7, "landmarks": 7, "deadends": 7, "observation": 7,
    "session": 8, "temporal_session": 8,
    "loading": 9, "exam": 9, "exam_nl": 9, "exam_questions": 9, "exam_make": 9,
    "__init__": 10,
    # the adapters
    "play": 11, "mcp_server": 11, "cli_relabel": 11, "cli_exam": 11, "gym": 11, "up": 11, "file_commands": 11,
    "cli_serve": 12, "play_time": 12,
    "cli": 13,
    "commands": 14,  # the pypddl script: file_commands without click, else cli
}
ADAPTER_LAYER = 11
MCP_LAYERS = {
    "names": 0, "errors": 1, "models": 1, "wire": 1, "access": 2, "store": 2, "render": 3, "inputs": 3, "budget": 3, "timed": 3,
    "tools": 4, "http": 4, "server": 5, "__init__": 6,
}
EXPERIMENT_LAYERS = {"runs": 0, "generators": 0, "planners": 1, "llm": 1, "report": 2, "cli": 3, "commands": 3,
                     "__init__": 4}
ENGINE_FORBIDDEN = {"pydantic", "click", "mcp", "subprocess", "anthropic", "openai", "unified_planning", "gymnasium",
                    "numpy", "torch"}
# the ecosystem adapters (optional extras): nothing in the engine imports them, and they reach the engine
# only through its public API (the package's top-level names; ``bundled`` and ``sources`` for bundled tasks
# and the one rule telling PDDL text from a file name)
ECOSYSTEM = {"gym", "up"}
ECOSYSTEM_MAY_IMPORT = {"pypddlengine", "pypddlengine.bundled", "pypddlengine.sources"}
NOT_FOR_EXPERIMENTS = {"pypddlengine.cli", "pypddlengine.cli_serve", "pypddlengine.cli_relabel", "pypddlengine.play",
                       "pypddlengine.commands", "pypddlengine.file_commands"}
"""The engine's command-line modules: the experiment side reaches the engine through its library API."""


def module_name(path: Path) -> str:
    rel = path.relative_to(ENGINE.parent if path.is_relative_to(ENGINE) else EXPERIMENTS.parent)
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.cache
def imports(path: Path) -> list[tuple[str, int]]:
    """Every module ``path`` imports (absolute names; ``from X import y``
    counts as ``X.y`` when that is a module of the repository), lazy imports
    and those under ``TYPE_CHECKING`` included."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((sub if sub in MODULES or _extension(sub) else target, node.lineno))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
    return found


def _sources() -> dict[str, Path]:
    return {module_name(p): p for p in (*ENGINE.rglob("*.py"), *EXPERIMENTS.rglob("*.py"))}


MODULES = _sources()


@functools.cache
def _extension(module: str) -> bool:
    """Whether ``module`` is a compiled module of the repository (``pypddlengine._relaxed``): a
    bottom layer of its own, which imports nothing of the repository."""
    root = ENGINE.parent if module.startswith("pypddlengine.") else EXPERIMENTS.parent
    path = root.joinpath(*module.split("."))
    return any(path.parent.glob(path.name + ".c")) or any(path.parent.glob(path.name + ".*.so"))


def _owner(module: str) -> str | None:
    """The repository module ``module`` names (itself, or the package it is in)."""
    while module and module not in MODULES and not _extension(module):
        module = module.rpartition(".")[0]
    return module or None


def layer(module: str) -> tuple[str, int, int] | None:
    """(package, layer, sub-layer) of a repository module."""
    parts = module.split(".")
    if parts[0] == "pypddlengine":
        top = parts[1] if len(parts) > 1 else "__init__"
        if top not in ENGINE_LAYERS:
            return None
        sub = MCP_LAYERS.get(parts[2] if len(parts) > 2 else "__init__", -1) if top == "mcp_server" else 0
        return ("pypddlengine", ENGINE_LAYERS[top], sub)
    if parts[0] == "pypddl_experiments":
        top = parts[1] if len(parts) > 1 else "__init__"
        return ("pypddl_experiments", EXPERIMENT_LAYERS[top], 0) if top in EXPERIMENT_LAYERS else None
    return None


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for target, _ in imports(path):
            owner = _owner(target)
            if owner is not None and owner != module and not module.startswith(owner + "."):
                edges[module].add(owner)
                edges.setdefault(owner, set())
    return edges


def test_every_module_has_a_layer() -> None:
    missing = sorted(m for m in MODULES if layer(m) is None or layer(m)[2] < 0)  # type: ignore[index]
    assert not missing, f"give these modules a layer in tests/test_layering.py: {missing}"


def test_imports_run_downward_only() -> None:
    problems = []
    for module, path in MODULES.items():
        mine = layer(module)
        for target, line in imports(path):
            owner = _owner(target)
            if owner is None or mine is None:
                continue
            theirs = layer(owner)
            if theirs is None:
                continue
            where = f"{path.relative_to(ROOT)}:{line} imports {target}"
            if mine[0] == "pypddlengine" and theirs[0] == "pypddl_experiments":
                problems.append(f"{where}: the engine imports nothing of the experiment side")
            elif mine[0] == theirs[0] and (theirs[1], theirs[2]) > (mine[1], mine[2]) and \
                    not (mine[1] == theirs[1] and module.split(".")[1] != owner.split(".")[1]):
                problems.append(f"{where} (layer {theirs[1:]} above {mine[1:]})")
            elif mine[0] == theirs[0] == "pypddlengine" and mine[1] == theirs[1] == ADAPTER_LAYER and \
                    module.split(".")[1] != owner.split(".")[1]:
                problems.append(f"{where}: adapters of one layer do not import each other")
    assert not problems, "\n".join(problems)


def test_the_import_graph_has_no_circle() -> None:
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    assert not circles, f"import circles: {circles}"


def test_the_experiment_side_uses_the_engines_public_modules() -> None:
    problems = []
    for module, path in MODULES.items():
        if not module.startswith("pypddl_experiments"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("pypddlengine"):
                target = node.module or ""
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.endswith("__")]
                if any(part.startswith("_") for part in target.split(".")) or private:
                    problems.append(f"{path.relative_to(ROOT)}:{node.lineno} imports a private name of {target}")
                if _owner(target) in NOT_FOR_EXPERIMENTS:
                    problems.append(f"{path.relative_to(ROOT)}:{node.lineno} imports the command-line module {target}")
    assert not problems, "\n".join(problems)


def test_nothing_imports_tests_or_benchmarks() -> None:
    test_modules = {p.stem for p in (ROOT / "tests").rglob("*.py")} | {p.stem for p in (ROOT / "bench").glob("*.py")}
    problems = [f"{path.relative_to(ROOT)}:{line} imports {target}" for module, path in MODULES.items()
                for target, line in imports(path) if target.split(".")[0] in test_modules | {"tests", "bench"}]
    assert not problems, "\n".join(problems)


def test_engine_core_has_no_adapter_dependencies_and_never_prints() -> None:
    problems = []
    for module, path in MODULES.items():
        where = layer(module)
        if where is None or where[0] != "pypddlengine" or where[1] >= ADAPTER_LAYER:
            continue
        for target, line in imports(path):
            if target.split(".")[0] in ENGINE_FORBIDDEN:
                problems.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                problems.append(f"{path.relative_to(ROOT)}:{node.lineno} calls print()")
    assert not problems, "\n".join(problems)


def test_the_checks_catch_what_they_guard(tmp_path: Path) -> None:
    """The helpers see a relative import that runs up, and a circle."""
    assert layer("pypddlengine.session")[1] < layer("pypddlengine.loading")[1]  # type: ignore[index]
    assert _owner("pypddlengine.mcp_server.tools.reply") == "pypddlengine.mcp_server.tools"
    assert ("pypddl_experiments.runs.records", 1) in [
        (t, 1) for t, _ in imports(MODULES["pypddl_experiments.llm.records"])]


def test_the_ecosystem_adapters_use_only_the_public_api() -> None:
    """The engine never imports them (an upward import to the adapter layer
    anyway), and they import only the engine's public API."""
    problems = []
    for name in sorted(ECOSYSTEM):
        path = ENGINE / f"{name}.py"
        assert path.is_file(), f"the adapter module {name}.py is missing"
        for target, line in imports(path):
            if target.startswith("pypddlengine") and target not in ECOSYSTEM_MAY_IMPORT:
                problems.append(f"{name}.py:{line} imports {target}")
    assert not problems, "\n".join(problems)
