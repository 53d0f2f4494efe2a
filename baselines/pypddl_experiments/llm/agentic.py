"""The agentic approach: the model plans by acting in the simulator, over MCP.

The model gets the domain and problem as text (the files named, never their
paths), what the simulator's replies mean at the run's feedback level, and
the tools listed by the engine's MCP server, and may make one tool call per
turn (parallel tool use is off). Each call goes to the server through a real
MCP client and its result goes back to the model. The server reads no file
but the run's own domain and problem. The run ends

* ``solved``: a ``validate_complete_plan`` result says ``valid: true`` and
  the harness, validating the same plan against the task files itself,
  agrees (a plan validated on a session the model opened on other PDDL does
  not count). The plan is read with the engine's one plan parser, as the
  server reads it: a list of actions, or one text in IPC/VAL format (one
  line or many, ``N:`` step prefixes, ``[duration]`` suffixes, comments);
* ``timeout``: the budget ran out (during a model call, a tool call, or
  between them); ``rate_limited`` when a rate-limit wait would have passed
  the deadline (the run is flagged contaminated);
* ``early_exit``: the model answered without a tool call before success.
  The endings are kept apart in ``outcome_detail`` (the report prints the
  breakdown beside Table II's early-exit column):

  - ``declared_unsolvable``: its last text says the task cannot be solved
    (:data:`UNSOLVABLE`): the paper's early exit;
  - ``goal_not_validated``: the session's executed actions reach the goal
    (the harness validates them) but no validation confirmed a plan;
  - ``max_tokens``: the reply was cut at the output-token limit;
  - ``invalid_final``: its last ``validate_complete_plan`` did not confirm a
    plan for this task (the server said invalid, or the harness rejected it);
  - ``stopped``: none of these (it stopped without saying why);

* ``error``: the provider failed in a way retrying cannot fix, or refused.

A tool call the harness cannot carry out (malformed JSON arguments, a tool
not offered) is answered with an error result and the loop goes on, as is a
tool error from the server.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from pypddlengine.mcp_server.names import EXECUTE, HISTORY, INITIALISE, RESET, VALIDATE

from .clock import BudgetExhausted, Deadline
from .llm import FatalModelError, ModelCaller
from .mcp_bridge import Toolbox, ToolOutcome, error_code
from .outcome import MethodResult, error_detail
from .prompts import AGENTIC, PromptSet
from .records import TraceWriter
from .tasks import TaskSpec
from .types import Msg, ToolCall, ToolResult

__all__ = ["AgentStats", "run_agentic"]


UNSOLVABLE = re.compile(
    r"\b(?:unsolvable|insoluble|not solvable|impossible|infeasible"
    r"|can(?:not|'t|\u2019t| not) be (?:solved|achieved|reached)"
    r"|no (?:valid |possible )?(?:plan|solution) (?:exists|is possible|can be found)"
    r"|does not have a solution|has no solution)\b",
    re.I,
)
"""What counts as the model saying the task cannot be solved, in the text of
its last turn (the paper's early exit: "the model judges the problem
unsolvable and halts")."""


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
        self.error_codes: Counter[str] = Counter()

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
            "error_codes": dict(sorted(self.error_codes.items())),
            "nudges": 0,
        }


def _plan_argument(value: Any) -> list[Any] | None:
    """The plan given to ``validate_complete_plan``, read as the server
    reads it: a list of actions, or one text parsed by the engine's plan
    parser (IPC/VAL format). ``None`` when not given; an unreadable text is
    an empty plan (it cannot be valid)."""
    from pypddlengine.errors import PDDLError
    from pypddlengine.syntax import parse_plan

    if value is None:
        return None
    if isinstance(value, list):
        return [str(v) for v in value]
    try:
        return list(parse_plan(str(value), filename="<plan>").steps)
    except PDDLError:
        return []


def _canonical(step: Any) -> str:
    """A step of a valid plan as ``(name arg ...)``."""
    from pypddlengine.syntax import parse_action_ref

    return str(parse_action_ref(step) if isinstance(step, str) else step)


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
    feedback: str = "paper",
) -> MethodResult:
    from pypddlengine.validate import validate_plan

    deadline = caller.deadline
    stats = AgentStats()
    last_text = ""
    names = {"domain_file": task.domain_path.name, "problem_file": task.problem_path.name}
    fields = {"domain": task.domain_text, "problem": task.shown_problem or task.problem_text,
              "feedback_text": prompts.feedback_text(feedback), **names}
    sessions: list[str] = []  # the sessions the model (or the harness) opened, newest last
    # the verdict of the model's last validate_complete_plan: "rejected", or None (none yet)
    validation: dict[str, str | None] = {"last": None}

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
            sessions.append(str(out.structured["session_id"]))
            note = prompts.note("harness", session_id=sessions[-1])
        else:
            note = prompts.note("model", **names)
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
                detail = await _why_it_stopped(task, turn.stop, turn.text, validation["last"], sessions, toolbox,
                                               deadline, trace)
                return result("early_exit", detail)
            stats.max_calls_in_turn = max(stats.max_calls_in_turn, len(turn.tool_calls))
            results: list[ToolResult] = []
            for call in turn.tool_calls:
                deadline.check()
                outcome = await _execute(call, toolbox, deadline, trace, stats)
                results.append(ToolResult(call.id, call.name, outcome.text, outcome.is_error))
                deadline.check()  # a result that arrives after the deadline does not count
                _note_session(call, outcome, sessions)
                if call.name != VALIDATE:
                    continue
                validation["last"] = "rejected"
                if outcome.is_error or (outcome.structured or {}).get("valid") is not True:
                    continue
                plan = _plan_argument(call.args.get("plan"))
                if plan is None:
                    plan = await _session_history(toolbox, str(call.args.get("session_id", "")), deadline, trace)
                report = validate_plan(task.lifted, plan)
                trace.event("harness_validation", plan=[str(p) for p in plan], valid=report.valid,
                            message=report.summary())
                if report.valid:
                    return result("solved", "validated", plan=[_canonical(p) for p in plan],
                                  plan_length=report.length, validation=report.to_dict())
                stats.rejected_validations += 1
            conversation.append(Msg("tool", results=results))
    except BudgetExhausted as err:
        trace.event("deadline", detail=err.detail)
        return result("timeout", err.detail)


def _note_session(call: ToolCall, outcome: ToolOutcome, sessions: list[str]) -> None:
    """Keep the order in which sessions were opened and used (the last one
    used is the one the model stopped in)."""
    sid = (outcome.structured or {}).get("session_id") if call.name == INITIALISE and not outcome.is_error else None
    sid = sid or (call.args.get("session_id") if not outcome.is_error else None)
    if isinstance(sid, str) and sid:
        if sid in sessions:
            sessions.remove(sid)
        sessions.append(sid)


async def _why_it_stopped(task: TaskSpec, stop: str, text: str, last_validation: str | None, sessions: list[str],
                          toolbox: Toolbox, deadline: Deadline, trace: TraceWriter) -> str:
    """The ``outcome_detail`` of an early exit (see the module docstring)."""
    from pypddlengine.validate import validate_plan

    if stop == "max_tokens":
        return "max_tokens"
    if sessions and deadline.remaining() > 0:
        history = await _session_history(toolbox, sessions[-1], deadline, trace)
        if history and validate_plan(task.lifted, history).valid:
            trace.event("harness_validation", plan=history, valid=True, message="the session's history reaches the "
                        "goal, but no validate_complete_plan confirmed it")
            return "goal_not_validated"
    if last_validation == "rejected":
        return "invalid_final"
    return "declared_unsolvable" if UNSOLVABLE.search(text or "") else "stopped"


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
        stats.error_codes[error_code(outcome) or "OTHER"] += 1
    trace.event("tool_result", id=call.id, name=call.name, is_error=outcome.is_error, text=outcome.text,
                structured=outcome.structured, latency_s=round(outcome.latency_s, 4))
    return outcome
