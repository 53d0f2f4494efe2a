"""The prompts of the two LLM approaches, versioned and hashed.

The paper does not publish its prompts, so these are ours. Each prompt set
carries a version; its SHA-256 (over version, system prompt, user template,
notes and the per-level texts) goes into the manifest and every run record, so
results made with different wording are never mixed silently. Change the
text, change the version.

The agentic prompt says what the simulator's replies mean at the run's
feedback level (:data:`FEEDBACK_TEXTS`, keyed by level name: a new level needs
a new entry, and a test fails while one is missing), so that a model given
richer feedback is told what the new fields are. It names the task's files by
their names only, never by their paths.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

__all__ = ["AGENTIC", "DIRECT", "FEEDBACK_TEXTS", "PromptSet", "prompt_set"]


@dataclass(frozen=True, slots=True)
class PromptSet:
    name: str
    version: str
    system: str
    user_template: str
    notes: tuple[tuple[str, str], ...] = ()
    levels: tuple[tuple[str, str], ...] = ()
    """What the simulator's replies mean, per feedback level name."""

    @property
    def sha256(self) -> str:
        blob = json.dumps(
            [self.name, self.version, self.system, self.user_template, [list(n) for n in self.notes],
             [list(level) for level in self.levels]],
            ensure_ascii=False,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def render(self, **fields: str) -> str:
        return self.user_template.format(**fields)

    def note(self, key: str, **fields: str) -> str:
        return dict(self.notes)[key].format(**fields)

    def feedback_text(self, level: str) -> str:
        """What the replies mean at feedback ``level``; a level without a
        text is an error (the model would meet fields nothing explains)."""
        texts = dict(self.levels)
        if level not in texts:
            raise KeyError(f"the {self.name} prompts ({self.version}) explain no feedback level {level!r}; "
                           f"they explain {', '.join(texts)}")
        return texts[level]

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version, "sha256": self.sha256}


DIRECT = PromptSet(
    name="direct",
    version="direct-v1",
    system=(
        "You are an expert in classical planning. You are given a planning domain and a planning problem "
        "written in PDDL. You answer with a plan: a sequence of ground actions that can be applied one after "
        "the other from the initial state and that leaves the goal satisfied."
    ),
    user_template="""Domain:
```pddl
{domain}
```

Problem:
```pddl
{problem}
```

Write a plan that solves this problem. Give the complete plan in one fenced block marked `plan`, one action \
per line, each written in parentheses as the action name followed by its arguments, for example:
```plan
(action-name object-1 object-2)
```
Use only the action names of the domain and the object names of the problem, and put nothing but actions \
in the block.""",
)

_PLAIN = (
    "After each execute_single_action the reply says whether the action could be applied (success), the atoms "
    "it added and deleted (added, deleted; in the plain rendering also the whole new state), and whether the "
    "goal is reached (goal_reached). If the action could not be applied nothing changed, and the reply says "
    "why: failure.code and, when preconditions do not hold, failure.unsatisfied lists those that are false now. "
    "An action the task does not have is answered with an error that may suggest the intended name. "
    "validate_complete_plan says whether the plan is valid and, if not, names the first step that fails "
    "(failure) or the goal atoms that do not hold at the end (unsatisfied_goals; more_unsatisfied counts those "
    "not listed)."
)
_PROGRESS = (
    " Each reply also carries feedback on the goal: feedback.goals_satisfied of feedback.goals_total goal atoms "
    "hold now, feedback.unsatisfied_goals lists those that do not (feedback.more_unsatisfied counts those not "
    "listed), and feedback.goals_achieved / feedback.goals_undone list the goal atoms the last step made true / "
    "false."
)
_HEURISTIC = (
    " feedback.h_ff estimates how many more actions the goal needs from the current state (the length of a "
    "relaxed plan that ignores delete effects: smaller means closer, but it is an estimate, not an exact count); "
    "feedback.h_ff_change is its change since the previous step (negative: closer). feedback.dead_end: true means "
    "the goal can no longer be reached from this state at all, with feedback.unreachable_goals; undo or reset. "
    "feedback.dead_end_status is the simulator's verdict when it has one: \"dead end (proved)\", \"no plan from "
    "here (proved)\", \"a plan exists from here\" or \"unknown\" (it never guesses). If the session measures "
    "distance with another estimate, feedback.heuristic names it (h_add, h_max, goal_count, lm_count) and "
    "feedback.h / feedback.h_change take the place of h_ff / h_ff_change. Landmarks are atoms that every plan "
    "must make true at some point: feedback.landmarks_accepted of feedback.landmarks_total have been reached in "
    "a valid order so far, feedback.landmarks_achieved lists those the last step reached (real progress), and "
    "feedback.landmarks_required_again those reached before that are false now but still needed (progress "
    "undone). feedback.notes says such warnings in words."
)
_FULL = (
    " A failed action also comes with failure.hints: which earlier step made a failing precondition false, and "
    "which applicable actions would make it true now. feedback.revisited_step says the current state was already "
    "reached after that step (you may be going in circles). feedback.relaxed_plan lists the first actions of a "
    "plan that ignores delete effects: a hint at what may help, not a plan to follow."
)
FEEDBACK_TEXTS: dict[str, str] = {
    "paper": (
        "After each execute_single_action the reply says only whether the action could be applied (success), "
        "the state after it (unchanged if it could not be applied), and whether the goal is reached "
        "(goal_reached); it does not say why an action could not be applied. validate_complete_plan says only "
        "whether the plan is valid."
    ),
    "plain": _PLAIN,
    "progress": _PLAIN + _PROGRESS,
    "heuristic": _PLAIN + _PROGRESS + _HEURISTIC,
    "full": _PLAIN + _PROGRESS + _HEURISTIC + _FULL,
}
"""What the simulator's replies mean, per feedback level (the agentic prompt
shows the run's own)."""

AGENTIC = PromptSet(
    name="agentic",
    version="agentic-v2",
    system=(
        "You are a planning agent that works inside a PDDL simulator, which you reach through tools. You solve "
        "a planning problem by executing actions one at a time: after each action you learn whether it could "
        "be applied and what the state is now. Open a simulator session on the task, inspect the current state "
        "and the applicable actions, execute actions, reset to the initial state when a trajectory looks "
        "unproductive, and review the actions taken so far. When you believe the goal is reached, submit the "
        "complete plan (every action from the initial state, in order) to validate_complete_plan. Call one tool "
        "at a time."
    ),
    user_template="""Solve this planning problem.

Domain (file {domain_file}):
```pddl
{domain}
```

Problem (file {problem_file}):
```pddl
{problem}
```

What the simulator tells you: {feedback_text}

{session_note}""",
    notes=(
        (
            "model",
            "Start by calling initialise_session for this task; you can pass the two file names above "
            "({domain_file} and {problem_file}) as domain and problem instead of the PDDL text.",
        ),
        ("harness", "A simulator session on this task is already open: session_id {session_id}."),
    ),
    levels=tuple(FEEDBACK_TEXTS.items()),
)

_SETS = {"direct": DIRECT, "agentic": AGENTIC}


def prompt_set(method: str) -> PromptSet:
    return _SETS[method]
