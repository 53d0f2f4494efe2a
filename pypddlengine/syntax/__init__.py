"""Text to model: the lark grammar, its transformer and the parse entry points."""

from .parser import (
    KNOWN_DOMAIN_SECTIONS,
    KNOWN_PROBLEM_SECTIONS,
    MAX_INPUT_BYTES,
    StepWords,
    parse_action_ref,
    parse_domain,
    parse_pddl,
    parse_plan,
    parse_problem,
    plan_words,
    read_text,
)

__all__ = [
    "KNOWN_DOMAIN_SECTIONS",
    "KNOWN_PROBLEM_SECTIONS",
    "MAX_INPUT_BYTES",
    "StepWords",
    "parse_action_ref",
    "parse_domain",
    "parse_pddl",
    "parse_plan",
    "parse_problem",
    "plan_words",
    "read_text",
]
