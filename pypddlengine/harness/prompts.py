"""The prompts of the two LLM approaches, versioned and hashed.

The paper does not publish its prompts, so these are ours. Each prompt set
carries a version; its SHA-256 (over version, system prompt and user template)
goes into the manifest and every run record, so results made with different
wording are never mixed silently. Change the text, change the version.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

__all__ = ["AGENTIC", "DIRECT", "PromptSet", "prompt_set"]


@dataclass(frozen=True, slots=True)
class PromptSet:
    name: str
    version: str
    system: str
    user_template: str
    notes: tuple[tuple[str, str], ...] = ()

    @property
    def sha256(self) -> str:
        blob = json.dumps(
            [self.name, self.version, self.system, self.user_template, [list(n) for n in self.notes]],
            ensure_ascii=False,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def render(self, **fields: str) -> str:
        return self.user_template.format(**fields)

    def note(self, key: str, **fields: str) -> str:
        return dict(self.notes)[key].format(**fields)

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

AGENTIC = PromptSet(
    name="agentic",
    version="agentic-v1",
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

Domain (file {domain_path}):
```pddl
{domain}
```

Problem (file {problem_path}):
```pddl
{problem}
```

{session_note}""",
    notes=(
        (
            "model",
            "Start by calling initialise_session for this task; you can pass the two file paths above instead "
            "of the PDDL text.",
        ),
        ("harness", "A simulator session on this task is already open: session_id {session_id}."),
    ),
)

_SETS = {"direct": DIRECT, "agentic": AGENTIC}


def prompt_set(method: str) -> PromptSet:
    return _SETS[method]
