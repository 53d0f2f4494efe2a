"""The agentic approach: the model plans by acting in the simulator, over MCP.

The model gets the domain and problem as text plus the tools listed by the
engine's MCP server, and may make one tool call per turn (parallel tool use
is off). Each call goes to the server through a real MCP client and its
result goes back to the model. The run ends

* ``solved``: a ``validate_complete_plan`` result says ``valid: true`` and
  the harness, validating the same plan against the task files itself,
  agrees (a plan validated on a session the model opened on other PDDL does
  not count);
* ``timeout``: the budget ran out (during a model call, a tool call, or
  between them);
* ``early_exit``: the model answered without a tool call before success
  (``model_end_turn``; ``max_tokens`` when the reply was cut off; its last
  text is kept in the record). ``invalid_final`` marks an early exit after
  a ``validate_complete_plan`` success that the harness rejected;
* ``error``: the provider failed in a way retrying cannot fix, or refused.

A tool call the harness cannot carry out (malformed JSON arguments, a tool
not offered) is answered with an error result and the loop goes on, as is a
tool error from the server.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .clock import BudgetExhausted, Deadline
from .llm import FatalModelError, ModelCaller
from .mcp_bridge import Toolbox, ToolOutcome
from .outcome import MethodResult, error_detail
from .prompts import AGENTIC, PromptSet
from .records import TraceWriter
from .tasks import TaskSpec
from .types import Msg, ToolCall, ToolResult

__all__ = ["AgentStats", "run_agentic"]

VALIDATE = "validate_complete_plan"
EXECUTE = "execute_single_action"
RESET = "reset_to_initial_state"
INITIALISE = "initialise_session"
HISTORY = "query_action_history"


class AgentStats:
    def __init__(self) -> None:
        self.turns = 0
        self.tool_calls = 0
        self.by_tool: Counter[str] = Counter()
        self.illegal_actions = 0
        self.tool_errors = 0
        self.malformed_calls = 0
        self.resets = 0
        self.validate_calls = 0
        self.rejected_validations = 0
        self.max_calls_in_turn = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "turns": self.turns,
            "tool_calls": self.tool_calls,
            "by_tool": dict(sorted(self.by_tool.items())),
            "illegal_actions": self.illegal_actions,
            "tool_errors": self.tool_errors,
            "malformed_calls": self.malformed_calls,
            "resets": self.resets,
            "validate_calls": self.validate_calls,
            "rejected_validations": self.rejected_validations,
            "max_calls_in_turn": self.max_calls_in_turn,
            "nudges": 0,
        }


def _plan_argument(value: Any) -> list[str] | None:
    """The plan given to ``validate_complete_plan``: a list of actions or
    one text with an action per line (``None`` when not given)."""
    if value is None:
        return None
    if isinstance(value, list):
        return [str(v) for v in value]
    lines = [ln.split(";", 1)[0].strip() for ln in str(value).splitlines()]
    return [ln for ln in lines if ln]


async def _session_history(toolbox: Toolbox, session_id: str, deadline: Deadline, trace: TraceWriter) -> list[str]:
    """The session's executed actions, read by the harness (not the model)."""
    actions: list[str] = []
    offset: int | None = 0
    while offset is not None:
        out = await toolbox.call(HISTORY, {"session_id": session_id, "offset": offset}, deadline.remaining())
        trace.event("harness_call", name=HISTORY, args={"session_id": session_id, "offset": offset},
                    is_error=out.is_error, text=out.text[:2000])
        data = out.structured or {}
        if out.is_error or "actions" not in data:
            break
        actions.extend(str(a) for a in data["actions"])
        offset = data.get("next_offset")
    return actions


async def run_agentic(
    task: TaskSpec,
    caller: ModelCaller,
    toolbox: Toolbox,
    trace: TraceWriter,
    *,
    prompts: PromptSet = AGENTIC,
    session_init: str = "model",
) -> MethodResult:
    from ..validate import validate_plan

    deadline = caller.deadline
    stats = AgentStats()
    last_text = ""
    fields = {"domain": task.domain_text, "problem": task.problem_text,
              "domain_path": str(task.domain_path), "problem_path": str(task.problem_path)}

    def result(outcome: str, detail: str, **kw: Any) -> MethodResult:
        return MethodResult(outcome, detail, agent=stats.to_dict(), final_text=last_text or None, **kw)

    try:
        if session_init == "harness":
            out = await toolbox.call(INITIALISE, {"domain": str(task.domain_path), "problem": str(task.problem_path)},
                                     deadline.check())
            trace.event("harness_call", name=INITIALISE, is_error=out.is_error, text=out.text[:2000],
                        structured=out.structured)
            if out.is_error or not out.structured or "session_id" not in out.structured:
                return result("error", "harness_init_failed", message=out.text[:500])
            note = prompts.note("harness", session_id=str(out.structured["session_id"]))
        else:
            note = prompts.note("model")
        conversation = [Msg("system", prompts.system), Msg("user", prompts.render(session_note=note, **fields))]

        while True:
            try:
                turn = await caller(conversation, toolbox.tools)
            except FatalModelError as err:
                return result("error", error_detail(err.error.kind), message=err.error.message)
            stats.turns += 1
            conversation.append(turn.assistant_message())
            if turn.text.strip():
                last_text = turn.text
            if not turn.tool_calls:
                if turn.stop == "refusal":
                    return result("error", "refusal")
                if turn.stop == "context_overflow":
                    return result("error", "context_overflow")
                if turn.stop == "max_tokens":
                    return result("early_exit", "max_tokens")
                if stats.rejected_validations:
                    return result("early_exit", "invalid_final")
                return result("early_exit", "model_end_turn")
            stats.max_calls_in_turn = max(stats.max_calls_in_turn, len(turn.tool_calls))
            results: list[ToolResult] = []
            for call in turn.tool_calls:
                deadline.check()
                outcome = await _execute(call, toolbox, deadline, trace, stats)
                results.append(ToolResult(call.id, call.name, outcome.text, outcome.is_error))
                deadline.check()  # a result that arrives after the deadline does not count
                if call.name == VALIDATE and not outcome.is_error and (outcome.structured or {}).get("valid") is True:
                    plan = _plan_argument(call.args.get("plan"))
                    if plan is None:
                        plan = await _session_history(toolbox, str(call.args.get("session_id", "")), deadline, trace)
                    report = validate_plan(task.lifted, plan)
                    trace.event("harness_validation", plan=plan, valid=report.valid, message=report.summary())
                    if report.valid:
                        return result("solved", "validated", plan=[str(p) for p in plan], plan_length=report.length,
                                      validation=report.to_dict())
                    stats.rejected_validations += 1
            conversation.append(Msg("tool", results=results))
    except BudgetExhausted:
        trace.event("deadline")
        return result("timeout", "budget_exhausted")


async def _execute(call: ToolCall, toolbox: Toolbox, deadline: Deadline, trace: TraceWriter,
                   stats: AgentStats) -> ToolOutcome:
    stats.tool_calls += 1
    stats.by_tool[call.name] += 1
    trace.event("tool_call", id=call.id, name=call.name, args=call.args, raw_arguments=call.raw_arguments,
                args_error=call.args_error)
    if call.args_error is not None:
        stats.malformed_calls += 1
        outcome = ToolOutcome(f"Error: the call to {call.name} was not carried out: {call.args_error}. "
                              "Send the arguments as one JSON object.", True, None, 0.0, {})
    elif not toolbox.offers(call.name):
        stats.malformed_calls += 1
        offered = ", ".join(t.name for t in toolbox.tools)
        outcome = ToolOutcome(f"Error: there is no tool named {call.name!r}; the tools are: {offered}.", True, None,
                              0.0, {})
    else:
        outcome = await toolbox.call(call.name, call.args, deadline.remaining())
        if call.name == EXECUTE and (outcome.is_error or (outcome.structured or {}).get("success") is False):
            stats.illegal_actions += 1
        if call.name == RESET and not outcome.is_error:
            stats.resets += 1
        if call.name == VALIDATE:
            stats.validate_calls += 1
    if outcome.is_error:
        stats.tool_errors += 1
    trace.event("tool_result", id=call.id, name=call.name, is_error=outcome.is_error, text=outcome.text,
                structured=outcome.structured, latency_s=round(outcome.latency_s, 4))
    return outcome
