"""pypddlengine: a step-wise PDDL simulation engine.

Parse and check PDDL (STRIPS, typing, negative preconditions, equality,
action costs), ground it by relaxed reachability, and simulate it one action
at a time, with plan validation and externally grounded feedback::

    from pypddlengine import open_session

    session = open_session("domain.pddl", "problem.pddl")
    session.applicable_names()          # ['(pick-up a)', '(unstack c b)', ...]
    result = session.execute("(unstack c b)")
    result.success, result.goal_reached # True, False
    session.validate().summary()        # 'invalid plan: the only step applies but ...'

Every failure on bad input is a :class:`PDDLError` subclass with a stable
``code`` and, where there is a file, ``file:line:col`` and a caret snippet.
"""

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Public names resolve lazily (PEP 562), so a command that only validates
# plans does not import the grounder, the session or the feedback module.
_EXPORTS = {
    "checker": ["CheckReport", "PDDLWarning", "check"],
    "errors": ["ActionReferenceError", "ErrorCode", "GroundingLimitError", "InputTooLargeError", "PDDLError",
               "PDDLSemanticError", "PDDLSyntaxError", "SourceFile", "Span", "UnsupportedRequirementError"],
    "feedback": ["Failure", "Feedback", "FeedbackLevel", "GoalStatus", "RelaxedAnalysis", "analyse"],
    "grounding": ["GroundingOptions", "ground", "ground_brute_force"],
    "lifted": ["LiftedTask", "compile_task"],
    "loading": ["load_domain", "load_plan", "load_problem", "load_task", "open_session", "read_file",
                "validate_files"],
    "model": ["Domain", "Plan", "Problem"],
    "session": ["Explanation", "Session", "StepResult"],
    "syntax": ["parse_action_ref", "parse_domain", "parse_plan", "parse_problem"],
    "task": ["GroundAction", "State", "Task"],
    "temporal": ["TemporalReport", "compile_temporal", "validate_timed_plan"],
    "temporal_session": ["StepRefused", "TemporalSession"],
    "validate": ["StepFailure", "ValidationReport", "validate_plan"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'pypddlengine' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from .checker import CheckReport, PDDLWarning, check
    from .errors import (
        ActionReferenceError,
        ErrorCode,
        GroundingLimitError,
        InputTooLargeError,
        PDDLError,
        PDDLSemanticError,
        PDDLSyntaxError,
        SourceFile,
        Span,
        UnsupportedRequirementError,
    )
    from .feedback import Failure, Feedback, FeedbackLevel, GoalStatus, RelaxedAnalysis, analyse
    from .grounding import GroundingOptions, ground, ground_brute_force
    from .lifted import LiftedTask, compile_task
    from .loading import load_domain, load_plan, load_problem, load_task, open_session, read_file, validate_files
    from .model import Domain, Plan, Problem
    from .session import Explanation, Session, StepResult
    from .syntax import parse_action_ref, parse_domain, parse_plan, parse_problem
    from .task import GroundAction, State, Task
    from .temporal import TemporalReport, compile_temporal, validate_timed_plan
    from .temporal_session import StepRefused, TemporalSession
    from .validate import StepFailure, ValidationReport, validate_plan

__all__ = [
    "ActionReferenceError",
    "CheckReport",
    "Domain",
    "ErrorCode",
    "Explanation",
    "Failure",
    "Feedback",
    "FeedbackLevel",
    "GoalStatus",
    "GroundAction",
    "GroundingLimitError",
    "GroundingOptions",
    "InputTooLargeError",
    "LiftedTask",
    "PDDLError",
    "PDDLSemanticError",
    "PDDLSyntaxError",
    "PDDLWarning",
    "Plan",
    "Problem",
    "RelaxedAnalysis",
    "Session",
    "SourceFile",
    "Span",
    "State",
    "StepFailure",
    "StepRefused",
    "StepResult",
    "Task",
    "TemporalReport",
    "TemporalSession",
    "UnsupportedRequirementError",
    "ValidationReport",
    "__version__",
    "analyse",
    "check",
    "compile_task",
    "compile_temporal",
    "ground",
    "ground_brute_force",
    "load_domain",
    "load_plan",
    "load_problem",
    "load_task",
    "open_session",
    "parse_action_ref",
    "parse_domain",
    "parse_plan",
    "parse_problem",
    "read_file",
    "validate_files",
    "validate_plan",
    "validate_timed_plan",
]
