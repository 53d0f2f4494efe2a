"""PDDL requirements and the features they name (a leaf module: no imports
from the package).

A *feature* is something a domain or problem actually uses; a *requirement*
is what the file declares. IPC files under-declare, so the engine decides by
features used, as planners do: a supported feature is accepted whether or not
it is declared, and an unsupported one is rejected by name and position.
"""

from __future__ import annotations

__all__ = [
    "FEATURE_INFO",
    "KNOWN_REQUIREMENTS",
    "SUPPORTED_FEATURES",
    "SUPPORTED_REQUIREMENTS",
    "describe_feature",
]

KNOWN_REQUIREMENTS = frozenset(
    {
        ":strips",
        ":typing",
        ":negative-preconditions",
        ":disjunctive-preconditions",
        ":equality",
        ":existential-preconditions",
        ":universal-preconditions",
        ":quantified-preconditions",
        ":conditional-effects",
        ":fluents",
        ":numeric-fluents",
        ":object-fluents",
        ":adl",
        ":durative-actions",
        ":duration-inequalities",
        ":continuous-effects",
        ":derived-predicates",
        ":timed-initial-literals",
        ":preferences",
        ":constraints",
        ":action-costs",
        ":domain-axioms",
        ":action-expansions",
        ":foreach-expansions",
        ":dag-expansions",
        ":subgoals-through-axioms",
        ":safety-constraints",
        ":expression-evaluation",
        ":open-world",
        ":true-negation",
        ":ucpop",
        ":time",
        ":non-deterministic",
        ":probabilistic-effects",
        ":rewards",
        ":mdp",
    }
)

SUPPORTED_REQUIREMENTS = frozenset(
    {
        ":strips",
        ":typing",
        ":negative-preconditions",
        ":equality",
        ":action-costs",
        ":disjunctive-preconditions",
        ":existential-preconditions",
        ":universal-preconditions",
        ":quantified-preconditions",
        ":conditional-effects",
        ":adl",
        ":derived-predicates",
        ":numeric-fluents",
        ":fluents",
    }
)

# feature -> (requirement that names it, words for messages)
FEATURE_INFO: dict[str, tuple[str, str]] = {
    "typing": (":typing", "typed objects and parameters"),
    "negative-preconditions": (":negative-preconditions", "negative preconditions or goals ('not')"),
    "equality": (":equality", "equality ('=')"),
    "action-costs": (":action-costs", "action costs ('increase (total-cost)')"),
    "disjunctive-preconditions": (
        ":disjunctive-preconditions",
        "disjunction ('or', 'imply', or 'not' over a compound condition)",
    ),
    "existential-preconditions": (":existential-preconditions", "existential quantification ('exists')"),
    "universal-preconditions": (":universal-preconditions", "universal quantification in a condition ('forall')"),
    "conditional-effects": (":conditional-effects", "conditional effects ('when')"),
    "universal-effects": (":conditional-effects", "universally quantified effects ('forall' in an effect)"),
    "numeric-fluents": (
        ":numeric-fluents",
        "numeric fluents (numeric conditions, effects or metrics beyond total-cost)",
    ),
    "object-fluents": (":object-fluents", "object-valued functions"),
    "derived-predicates": (":derived-predicates", "derived predicates (':derived')"),
    "durative-actions": (":durative-actions", "durative actions (':durative-action')"),
    "continuous-effects": (":continuous-effects", "continuous effects ('#t' in a durative action)"),
    "cross-time-conditional-effects": (
        ":conditional-effects",
        "a conditional effect whose condition is at another time than its effect "
        "('(when (at start c) (at end e))' or '(when (over all c) ...)')",
    ),
    "timed-initial-literals": (":timed-initial-literals", "timed initial literals ('(at t ...)' in :init)"),
    "preferences": (":preferences", "preferences ('preference')"),
    "constraints": (":constraints", "state-trajectory constraints (':constraints')"),
    "processes-and-events": (":time", "processes and events (PDDL+)"),
}

SUPPORTED_FEATURES = frozenset(
    {
        "typing",
        "negative-preconditions",
        "equality",
        "action-costs",
        "disjunctive-preconditions",
        "existential-preconditions",
        "universal-preconditions",
        "conditional-effects",
        "universal-effects",
        "derived-predicates",
        "numeric-fluents",
    }
)


def describe_feature(feature: str) -> str:
    """``"conditional effects ('when') [:conditional-effects]"``."""
    requirement, words = FEATURE_INFO.get(feature, (f":{feature}", feature))
    return f"{words} [{requirement}]"
