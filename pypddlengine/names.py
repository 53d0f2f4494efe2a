"""The engine's name lists, each defined once: every other place (click
choices, the MCP server's ``Literal`` types, the experiment harness, tests)
derives its list from here. A leaf module: cheap to import, so the command
line can build its options without loading the engine."""

from __future__ import annotations

__all__ = ["FEEDBACK_LEVELS", "HEURISTIC_NAMES"]

FEEDBACK_LEVELS = ("paper", "plain", "progress", "heuristic", "full")
"""The feedback levels, poorest first: the names of
:class:`~pypddlengine.session.FeedbackLevel`'s members, lower-cased, in order."""

HEURISTIC_NAMES = ("h_ff", "h_add", "h_max", "goal_count", "lm_count")
"""What a session's distance can measure (its ``heuristic`` option), the
default first."""
