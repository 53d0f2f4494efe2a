"""Tool names and renderings of the MCP server: a leaf module, cheap to import
for clients such as the experiment harness. The server registers exactly
:data:`TOOLS` (a test checks it), and every other list derives from here."""

from __future__ import annotations

__all__ = [
    "ADVANCE",
    "APPLICABLE",
    "CHECKPOINT",
    "CLOSE",
    "EXECUTE",
    "EXPLAIN",
    "HISTORY",
    "INITIALISE",
    "LIST_SESSIONS",
    "LIST_TASKS",
    "PAPER_TOOLS",
    "RENDERINGS",
    "RESET",
    "STATE",
    "TOOLS",
    "UNDO",
    "VALIDATE",
]

INITIALISE = "initialise_session"
STATE = "query_current_state"
APPLICABLE = "query_applicable_actions"
EXECUTE = "execute_single_action"
RESET = "reset_to_initial_state"
HISTORY = "query_action_history"
VALIDATE = "validate_complete_plan"
EXPLAIN = "explain_action"
UNDO = "undo_last_action"
CHECKPOINT = "checkpoint"
CLOSE = "close_session"
LIST_SESSIONS = "list_sessions"
LIST_TASKS = "list_bundled_tasks"
ADVANCE = "advance_time"

PAPER_TOOLS = (INITIALISE, STATE, APPLICABLE, EXECUTE, RESET, HISTORY, VALIDATE)
"""The seven operations of the paper, by their MCP tool names (kept unchanged so
that experiments stay comparable with the paper)."""

TOOLS = (*PAPER_TOOLS, EXPLAIN, CHECKPOINT, UNDO, ADVANCE, CLOSE, LIST_SESSIONS, LIST_TASKS)
"""Every tool of the server: the paper's seven, then the others."""

RENDERINGS = ("compact", "plain")
"""How replies show states: grouped by predicate (the server's default) or the
paper's flat lists."""
