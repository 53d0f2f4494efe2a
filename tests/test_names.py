"""Each name list (feedback levels, heuristics, tool names, renderings) is
spelled once, in ``pypddlengine.names`` or ``pypddlengine.mcp_server.names``;
every other place derives it (issue 23)."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

from pypddlengine.mcp_server.names import PAPER_TOOLS, RENDERINGS, TOOLS
from pypddlengine.names import FEEDBACK_LEVELS, HEURISTIC_NAMES

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [*(ROOT / "pypddlengine").rglob("*.py"), *(ROOT / "baselines").rglob("*.py")]
HOMES = {ROOT / "pypddlengine" / "names.py", ROOT / "pypddlengine" / "mcp_server" / "names.py"}
LISTS = {"feedback levels": FEEDBACK_LEVELS, "heuristics": HEURISTIC_NAMES, "renderings": RENDERINGS,
         "tools": TOOLS, "paper tools": PAPER_TOOLS}


def _spelled(node: ast.AST) -> tuple[str, ...] | None:
    """The strings of a tuple, list or ``Literal[...]`` of string constants."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        node = node.slice
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return tuple(e.value for e in node.elts)  # type: ignore[attr-defined]
    return None


def test_no_name_list_is_spelled_twice() -> None:
    found = []
    for path in SOURCES:
        if path in HOMES:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            values = _spelled(node)
            if values is None or len(values) < 2:
                continue
            for what, names in LISTS.items():
                if set(values) == set(names):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} spells the {what} again")
    assert not found, "\n".join(found)


def test_the_lists_agree_with_what_uses_them() -> None:
    from pypddl_experiments.llm.cli import run
    from pypddl_experiments.llm.prompts import FEEDBACK_TEXTS
    from pypddl_experiments.report.report_model import LEVEL_ORDER
    from pypddlengine.cli import play
    from pypddlengine.cli_serve import serve
    from pypddlengine.mcp_server import models
    from pypddlengine.mcp_server.tools import FeedbackName, HeuristicName
    from pypddlengine.session import HEURISTIC_CHOICES, FeedbackLevel

    assert tuple(level.name.lower() for level in sorted(FeedbackLevel)) == FEEDBACK_LEVELS
    assert tuple(FEEDBACK_TEXTS) == FEEDBACK_LEVELS == LEVEL_ORDER
    assert typing.get_args(FeedbackName) == FEEDBACK_LEVELS and typing.get_args(HeuristicName) == HEURISTIC_NAMES
    assert typing.get_args(models.Rendering) == RENDERINGS and HEURISTIC_CHOICES == HEURISTIC_NAMES
    options = {(c.name, p.name): tuple(p.type.choices) for c in (play, serve, run) for p in c.params
               if p.name in ("feedback", "heuristic", "rendering")}
    assert options == {("play", "feedback"): FEEDBACK_LEVELS, ("play", "heuristic"): HEURISTIC_NAMES,
                       ("serve", "feedback"): FEEDBACK_LEVELS, ("serve", "rendering"): RENDERINGS,
                       ("run", "feedback"): FEEDBACK_LEVELS, ("run", "heuristic"): HEURISTIC_NAMES,
                       ("run", "rendering"): RENDERINGS}
