"""What a method returns for one run, before the runner turns it into a record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["OUTCOMES", "RERUN_ON_RESUME", "MethodResult", "error_detail"]

OUTCOMES = ("solved", "timeout", "early_exit", "error")


@dataclass
class MethodResult:
    """``outcome`` is one of :data:`OUTCOMES`; ``detail`` says why
    (``validated``, ``budget_exhausted``, ``rate_limited``, ``declared_unsolvable``,
    ``goal_not_validated``, ``stopped``, ``max_tokens``,
    ``invalid_final``, ``context_overflow``, ``refusal``, ``api_error``, ...)."""

    outcome: str
    detail: str
    plan: list[str] | None = None
    plan_length: int | None = None
    validation: dict[str, Any] | None = None
    attempts: int | None = None
    agent: dict[str, Any] | None = None
    final_text: str | None = None
    message: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def error_detail(kind: str) -> str:
    """The ``outcome_detail`` of a run ended by a provider error of ``kind``."""
    return {
        "context_overflow": "context_overflow",
        "auth": "auth_error",
        "bad_request": "bad_request",
        "rate_limit": "rate_limit",
        "overloaded": "overloaded",
        "connection": "connection_error",
        "unreachable": "unreachable",
    }.get(kind, "api_error")


RERUN_ON_RESUME = frozenset({"unreachable", "connection_error", "auth_error", "rate_limit", "overloaded",
                             "mcp_error", "harness_error"})
"""``outcome_detail`` of error runs that say nothing about the model (the
endpoint, the key, the network, the MCP server or the harness failed): a
resumed experiment runs them again without being asked."""
