"""Layers import downward only, and the engine stays free of adapter
dependencies (pydantic, click, mcp, subprocess) and of printing."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pypddlengine"

# lower number = lower layer; a module may import only from its own layer or below
LAYERS = {
    "errors": 0, "features": 0, "gcpause": 0, "usercache": 0, "exact": 0,
    "model": 1,
    "syntax": 2, "hierarchy": 2, "printer": 2, "sources": 2, "relabel": 2,
    "checker": 3, "normalise": 3, "numeric": 3,
    "lifted": 4,
    "step": 5, "task": 5,
    "grounding": 6, "lazy": 6,
    "validate": 7, "feedback": 7, "heuristics": 7, "numeric_heuristics": 7, "landmarks": 7, "deadends": 7, "observation": 7,
    "session": 8,
    "loading": 9,
    "__init__": 10,
}
ENGINE_FORBIDDEN = {"pydantic", "click", "mcp", "subprocess", "anthropic", "openai", "unified_planning", "gymnasium",
                    "numpy", "torch"}
# the ecosystem adapters (optional extras): nothing in the engine imports them, and they reach the engine
# only through its public API (the package's top-level names; ``bundled`` and ``sources`` for bundled tasks
# and the one rule telling PDDL text from a file name)
ADAPTERS = {"gym", "up"}
ADAPTER_MAY_IMPORT = {"pypddlengine", "pypddlengine.bundled", "pypddlengine.sources"}


def _module_layer(path: Path) -> tuple[str, int] | None:
    rel = path.relative_to(PACKAGE)
    top = rel.parts[0].removesuffix(".py")
    return (top, LAYERS[top]) if top in LAYERS else None


def _imports(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                found.append((node.module, node.lineno))
            elif node.level >= 1:
                base = path.parent.relative_to(PACKAGE).parts
                parts = list(base[: len(base) - (node.level - 1)] if node.level > 1 else base)
                mod = ".".join([*parts, node.module] if node.module else parts)
                found.append(("pypddlengine." + mod if mod else "pypddlengine", node.lineno))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
    return found


def engine_modules() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if _module_layer(p) is not None]


def test_layers_import_downward_only() -> None:
    problems = []
    for path in engine_modules():
        name, layer = _module_layer(path)  # type: ignore[misc]
        for module, line in _imports(path):
            if not module.startswith("pypddlengine."):
                continue
            target = module.split(".")[1]
            if target in LAYERS and LAYERS[target] > layer:
                problems.append(f"{path.relative_to(PACKAGE)}:{line} imports {module} (layer {LAYERS[target]} > {layer})")
    assert not problems, "\n".join(problems)


def test_engine_has_no_adapter_dependencies_and_never_prints() -> None:
    problems = []
    for path in engine_modules():
        for module, line in _imports(path):
            if module.split(".")[0] in ENGINE_FORBIDDEN:
                problems.append(f"{path.relative_to(PACKAGE)}:{line} imports {module}")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                problems.append(f"{path.relative_to(PACKAGE)}:{node.lineno} calls print()")
    assert not problems, "\n".join(problems)


def test_the_engine_never_imports_the_ecosystem_adapters() -> None:
    problems = []
    for path in engine_modules():
        for module, line in _imports(path):
            parts = module.split(".")
            if parts[0] == "pypddlengine" and len(parts) > 1 and parts[1] in ADAPTERS:
                problems.append(f"{path.relative_to(PACKAGE)}:{line} imports {module}")
    assert not problems, "\n".join(problems)


def test_the_ecosystem_adapters_use_only_the_public_api() -> None:
    problems = []
    for name in sorted(ADAPTERS):
        path = PACKAGE / f"{name}.py"
        assert path.is_file(), f"the adapter module {name}.py is missing"
        for module, line in _imports(path):
            if module.startswith("pypddlengine") and module not in ADAPTER_MAY_IMPORT:
                problems.append(f"{name}.py:{line} imports {module}")
    assert not problems, "\n".join(problems)
