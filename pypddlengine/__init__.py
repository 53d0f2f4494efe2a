"""pypddlengine: a step-wise PDDL simulation engine.

Parse and check PDDL (STRIPS, typing, negative preconditions, equality,
action costs), ground it by relaxed reachability, and simulate it one action
at a time, with plan validation and externally grounded feedback::

    from pypddlengine import open_session

    session = open_session("domain.pddl", "problem.pddl")
    session.applicable_names()          # ['(pick-up a)', '(unstack c b)', ...]
    result = session.execute("(unstack c b)")
    result.success, result.goal_reached # True, False
    session.validate().summary()        # 'invalid plan: all 1 step(s) apply but ...'

Every failure on bad input is a :class:`PDDLError` subclass with a stable
``code`` and, where there is a file, ``file:line:col`` and a caret snippet.
"""

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
from .feedback import RelaxedAnalysis, analyse
from .grounding import GroundingOptions, ground, ground_brute_force
from .lifted import LiftedTask, compile_task
from .loading import load_domain, load_plan, load_problem, load_task, open_session, read_file, validate_files
from .model import Domain, Plan, Problem
from .session import Explanation, Failure, Feedback, FeedbackLevel, GoalStatus, Session, StepResult
from .syntax import parse_action_ref, parse_domain, parse_plan, parse_problem
from .task import GroundAction, State, Task
from .validate import StepFailure, ValidationReport, validate_plan

__version__ = "0.1.0"

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
    "StepResult",
    "Task",
    "UnsupportedRequirementError",
    "ValidationReport",
    "__version__",
    "analyse",
    "check",
    "compile_task",
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
]
