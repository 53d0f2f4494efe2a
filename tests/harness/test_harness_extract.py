"""Plan extraction from free-text replies (the direct approach)."""

from __future__ import annotations

import time

import pytest

from pypddl_experiments.llm.extract import extract_plan

NAMES = ["pick-up", "put-down", "stack", "unstack"]
PLAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)"]

CASES = [
    ("fenced block", "Sure.\n```plan\n(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n```\nDone.", "fence"),
    ("fence without language", "```\n(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n```", "fence"),
    ("numbered in fence", "```pddl\n1. (unstack c a)\n2. (put-down c)\n3. (pick-up b)\n4. (stack b c)\n```", "fence"),
    ("plan tags", "thinking...\n<plan>\n(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n</plan>", "tags"),
    ("upper case, hyphen-less names", "```\n(UNSTACK C A)\n(PUTDOWN C)\n(PICKUP B)\n(STACK B C)\n```", "fence"),
    ("underscores", "```\n(unstack c a)\n(put_down c)\n(pick_up b)\n(stack b c)\n```", "fence"),
    ("Step N: and function style", "Step 1: unstack(c, a)\nStep 2: put-down(c)\nStep 3: pick-up(b)\nStep 4: stack(b, c)",
     "text"),
    ("bullets and backticks", "- `(unstack c a)`\n- `(put-down c)`\n- `(pick-up b)`\n- `(stack b c)`", "text"),
    ("bare words with numbering", "Plan:\n1) unstack c a\n2) put-down c\n3) pick-up b\n4) stack b c\nThat's it.",
     "text"),
    ("several actions on a line", "(unstack c a) (put-down c)\n(pick-up b) (stack b c)", "text"),
    ("VAL plan file with cost comment", "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n; cost = 4 (unit cost)",
     "text"),
    ("prose around, action mentioned in a sentence",
     "We must first free a, e.g. (unstack c a) comes first.\n\n1. (unstack c a)\n2. (put-down c)\n3. (pick-up b)\n"
     "4. (stack b c)\n\nNote that (stack b c) needs b held.", "text"),
    ("last fence with actions wins over the PDDL echo",
     "```pddl\n(define (problem p) (:init (on c a)))\n```\nAnswer:\n```\n(unstack c a)\n(put-down c)\n(pick-up b)\n"
     "(stack b c)\n```", "fence"),
]


@pytest.mark.parametrize(("text", "source"), [(t, s) for _, t, s in CASES], ids=[c[0] for c in CASES])
def test_extracts_the_plan(text: str, source: str) -> None:
    got = extract_plan(text, NAMES)
    assert got.actions == PLAN
    assert got.source == source


@pytest.mark.parametrize("text", ["", "I cannot solve this.", "No plan exists.", "```\n```", "(on a b)\n(clear c)"])
def test_no_plan(text: str) -> None:
    got = extract_plan(text, NAMES)
    assert got.actions == [] and not got
    assert got.source == "none"


def test_unknown_action_names_are_not_actions_when_names_are_known() -> None:
    got = extract_plan("```\n(unstack c a)\n(teleport c b)\n(put-down c)\n```", NAMES)
    assert got.actions == ["(unstack c a)", "(put-down c)"]


def test_without_names_every_parenthesised_step_in_a_fence_counts() -> None:
    got = extract_plan("```\n(move a b c)\n(jump x)\n```")
    assert got.actions == ["(move a b c)", "(jump x)"]


def test_drafts_then_final_plan_in_tags_uses_the_last_tags() -> None:
    text = "<plan>(pick-up a)</plan> wait, better:\n<plan>\n(unstack c a)\n(put-down c)\n</plan>"
    assert extract_plan(text, NAMES).actions == ["(unstack c a)", "(put-down c)"]


def test_pathological_input_is_fast() -> None:
    started = time.perf_counter()
    extract_plan("stack(" + "a" * 20000 + "\n(stack" + " a" * 20000, NAMES)
    extract_plan("(" * 20000 + "x" * 20000, NAMES)
    assert time.perf_counter() - started < 2.0
