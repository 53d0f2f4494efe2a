"""Tool names: a leaf module, cheap to import for clients such as the harness."""

from __future__ import annotations

__all__ = ["PAPER_TOOLS"]

PAPER_TOOLS = (
    "initialise_session",
    "query_current_state",
    "query_applicable_actions",
    "execute_single_action",
    "reset_to_initial_state",
    "query_action_history",
    "validate_complete_plan",
)
"""The seven operations of the paper, by their MCP tool names (kept unchanged so
that experiments stay comparable with the paper)."""
