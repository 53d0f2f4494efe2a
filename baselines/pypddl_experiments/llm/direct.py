"""The direct approach: the whole task in one prompt, a plan in one reply.

Each attempt starts from a fresh context (system prompt plus the domain and
problem as text); the plan is read from the reply and checked by the engine's
validator. An invalid or unreadable plan is followed by a new attempt from
scratch with no feedback, until a plan is valid (``solved``) or the budget
runs out (``timeout``). A provider error that retrying cannot fix ends the
run as ``error``.
"""

from __future__ import annotations

from .clock import BudgetExhausted
from .extract import extract_plan
from .llm import FatalModelError, ModelCaller
from .outcome import MethodResult, error_detail
from .prompts import DIRECT, PromptSet
from .records import TraceWriter
from .tasks import TaskSpec
from .types import Msg

__all__ = ["run_direct"]


async def run_direct(
    task: TaskSpec, caller: ModelCaller, trace: TraceWriter, prompts: PromptSet = DIRECT
) -> MethodResult:
    from pypddlengine.validate import validate_plan

    lifted = task.lifted
    names = task.action_names
    user = prompts.render(domain=task.domain_text, problem=task.problem_text)
    attempts = 0
    last_message = ""
    while True:
        conversation = [Msg("system", prompts.system), Msg("user", user)]
        try:
            turn = await caller(conversation, [], fresh=True)
        except BudgetExhausted as err:
            return MethodResult("timeout", err.detail, attempts=attempts, message=last_message)
        except FatalModelError as err:
            return MethodResult("error", error_detail(err.error.kind), attempts=attempts, message=err.error.message)
        attempts += 1
        extracted = extract_plan(turn.text, names)
        if not extracted:
            last_message = f"no plan found in the reply (stop: {turn.stop})"
            trace.event("attempt", n=attempts, parsed_plan=[], source=extracted.source, valid=False,
                        message=last_message)
            continue
        report = validate_plan(lifted, extracted.actions)
        last_message = report.summary()
        trace.event("attempt", n=attempts, parsed_plan=extracted.actions, source=extracted.source,
                    valid=report.valid, message=last_message)
        if report.valid:
            return MethodResult(
                "solved",
                "validated",
                plan=extracted.actions,
                plan_length=report.length,
                validation=report.to_dict(),
                attempts=attempts,
                message=last_message,
            )
