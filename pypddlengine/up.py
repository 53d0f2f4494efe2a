"""pypddlengine as a unified-planning engine (the optional extra ``up``).

Importing this module registers :class:`PypddlEngine` with UP's engine
factory under the name ``"pypddlengine"``, so a UP user writes::

    import pypddlengine.up  # noqa: F401  (registers the engine)
    from unified_planning.shortcuts import PlanValidator, SequentialSimulator

    with SequentialSimulator(problem, name="pypddlengine") as simulator:
        state = simulator.get_initial_state()
        for action, params in simulator.get_applicable_actions(state): ...
    with PlanValidator(name="pypddlengine") as validator:
        result = validator.validate(problem, plan)

Two operation modes: ``SequentialSimulator`` (initial state, applicable
actions, apply, goal test) and ``PlanValidator`` (sequential plans; a failed
validation says which step fails and which preconditions or goals do not
hold). The UP problem is converted with UP's own ``PDDLWriter`` and loaded by
the engine; names are mapped back with the writer's renamings. The
declared kind (:func:`PypddlEngine.supported_kind`) is the fragment the
simulator takes (:func:`PypddlEngine.simulator_kind`: STRIPS with flat or
hierarchical typing, negative, disjunctive, equality, existential and
universal conditions, conditional and ``forall`` effects, and action costs)
plus the numeric fluents the validator takes (integer and real fluents read
and changed by actions, fluent action costs, a final-value metric); the
simulator refuses a problem whose actions change numbers, saying why.
Bounded integer types are not declared (UP checks their bounds; PDDL has
none). What UP's writer cannot write as PDDL (object fluents,
oversubscription, non-object parameters) validates as ``UNKNOWN`` and the
simulator refuses it, both naming the features. UP cannot write derived
predicates, so none come through here.

The engine's states are :class:`PypddlState` objects: immutable, hashable,
and answering ``get_value`` for boolean fluent expressions (and static
numeric fluents, e.g. cost tables) as UP's states do. A validation result
carries no trace of states (the engine's validator works on the lifted task
and never grounds). This module reaches the engine only through its public
API; the engine never imports it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

try:
    import unified_planning as up
except ImportError as err:  # pragma: no cover - depends on the installation
    raise ImportError(f"pypddlengine.up needs the 'up' extra (pip install 'pypddlengine[up]'): {err}") from err
from unified_planning.engines import (
    Credits,
    Engine,
    FailedValidationReason,
    LogLevel,
    LogMessage,
    ValidationResult,
    ValidationResultStatus,
)
from unified_planning.engines.mixins import PlanValidatorMixin, SequentialSimulatorMixin
from unified_planning.environment import get_environment
from unified_planning.exceptions import UPException, UPUsageError
from unified_planning.io import PDDLWriter
from unified_planning.model import FNode, ProblemKind
from unified_planning.model import State as UPStateInterface
from unified_planning.model.problem_kind_versioning import LATEST_PROBLEM_KIND_VERSION
from unified_planning.plans import PlanKind, SequentialPlan, TimeTriggeredPlan

from . import (
    GroundAction,
    PDDLError,
    Session,
    UnsupportedRequirementError,
    compile_temporal,
    load_task,
    parse_domain,
    parse_problem,
    validate_plan,
    validate_timed_plan,
)

__all__ = ["ENGINE_NAME", "PypddlEngine", "PypddlState", "register"]

ENGINE_NAME = "pypddlengine"

_CREDITS = Credits(
    name=ENGINE_NAME,
    author="pypddlengine developers",
    contact="see the project's README",
    website="see the project's README",
    license="MIT",
    short_description="A step-wise PDDL simulation engine with a validator that explains failures.",
    long_description="pypddlengine grounds a PDDL task once and simulates it one action at a time "
                     "(STRIPS, typing, negative conditions, equality, ADL, action costs); its validator "
                     "names the failing step and the preconditions or goals that do not hold.",
)


class _Translation:
    """A UP problem written as PDDL by UP's own writer, and the names
    between the two (the writer lower-cases and renames where PDDL needs it)."""

    def __init__(self, problem: up.model.Problem) -> None:
        self.problem = problem
        self.writer = PDDLWriter(problem)
        try:
            self.domain = self.writer.get_domain()
            self.problem_text = self.writer.get_problem()
        except (UPException, NotImplementedError) as err:  # object fluents, oversubscription, int parameters...
            outside = sorted(set(problem.kind.features) - set(PypddlEngine.supported_kind().features))
            raise UnsupportedRequirementError(
                f"{ENGINE_NAME} cannot take this problem: UP's PDDL writer cannot write it"
                + (f" ({err})" if str(err) else "")
                + (f"; features outside the engine's fragment: {', '.join(outside)}" if outside else ""),
                details={"feature": outside[0].lower() if outside else "unknown"}) from err

    def name(self, item: Any) -> str:
        return self.writer.get_pddl_name(item)

    def item(self, name: str) -> Any:
        return self.writer.get_item_named(name)

    def action_text(self, action: up.model.Action, parameters: Sequence[FNode]) -> str:
        names = [self.name(action)]
        for p in parameters:
            if not p.is_object_exp():
                raise UPUsageError(f"the parameter {p} of {action.name} is not an object; PDDL actions take objects")
            names.append(self.name(p.object()))
        return f"({' '.join(names)})"


class PypddlState(UPStateInterface):
    """A state of a :class:`PypddlEngine` simulation: the engine's set of
    true atoms (immutable and hashable; equal states compare equal)."""

    __slots__ = ("_atoms", "_engine")

    def __init__(self, atoms: frozenset[int], engine: PypddlEngine) -> None:
        self._atoms = atoms
        self._engine = engine

    def get_value(self, value: FNode) -> FNode:
        """``TRUE``/``FALSE`` for a ground boolean fluent expression; the
        initial value for a static numeric fluent (a cost table)."""
        return self._engine._value(self._atoms, value)

    def true_atoms(self) -> list[str]:
        """The atoms that hold, as PDDL text (the writer's names), sorted."""
        return self._engine._render_state(self._atoms)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PypddlState) and other._engine is self._engine and other._atoms == self._atoms

    def __hash__(self) -> int:
        return hash(self._atoms)

    def __repr__(self) -> str:
        return f"PypddlState({' '.join(self.true_atoms())})"


class PypddlEngine(Engine, SequentialSimulatorMixin, PlanValidatorMixin):  # type: ignore[misc]
    """pypddlengine's session and validator behind UP's ``SequentialSimulator``
    and ``PlanValidator`` operation modes (see the module docstring)."""

    def __init__(self, problem: up.model.AbstractProblem | None = None, error_on_failed_checks: bool = True,
                 **options: Any) -> None:
        Engine.__init__(self)
        if options:
            raise UPUsageError(f"{ENGINE_NAME} takes no options, got {', '.join(sorted(options))}")
        self._problem = problem  # type: ignore[assignment]
        self._translation: _Translation | None = None
        if problem is None:  # the PlanValidator mode: problems come with each validate() call
            return
        SequentialSimulatorMixin.__init__(self, problem, error_on_failed_checks)
        if not isinstance(problem, up.model.Problem):
            raise UPUsageError(f"{ENGINE_NAME} simulates classical problems, not {type(problem).__name__}")
        self._translation = translation = _Translation(problem)
        # grounded: the atom and action maps below are built once over the whole ground task
        self._session = session = Session(translation.domain, translation.problem_text, backend="grounded")
        if session.lifted.numeric_task:  # UP states here are sets of atoms: numeric values would be lost
            raise UnsupportedRequirementError(
                f"{ENGINE_NAME}'s UP simulator covers classical problems; this one has numeric fluents that actions "
                "change (pypddlengine's own Session simulates it, and the PlanValidator mode validates its plans)",
                details={"feature": "numeric-fluents"})
        task = session.task
        self._atom_ids = {task.render_atom(i): i for i in range(len(task.atoms))}
        self._ground: dict[tuple[Any, tuple[FNode, ...]], GroundAction | None] = {}
        self._up_actions: dict[int, tuple[up.model.Action, tuple[FNode, ...]]] = {}
        em = problem.environment.expression_manager
        self._true, self._false = em.TRUE(), em.FALSE()
        self._object_exp = em.ObjectExp
        self._initial = PypddlState(session.state, self)

    # ------------------------------------------------------------------ the engine

    @property
    def name(self) -> str:
        return ENGINE_NAME

    @staticmethod
    def get_credits(**kwargs: Any) -> Credits | None:
        return _CREDITS

    @staticmethod
    def supported_kind() -> ProblemKind:
        """The problems the engine takes: the simulator's classical fragment
        (:meth:`simulator_kind`) and, for the validator, numeric fluents
        (integer and real, read and changed by actions, in conditions, costs
        and a final-value metric). The simulator refuses a problem whose
        actions change numbers, saying why (``UNSUPPORTED_REQUIREMENT``)."""
        kind = PypddlEngine.simulator_kind()
        for problem_type in ("SIMPLE_NUMERIC_PLANNING", "GENERAL_NUMERIC_PLANNING"):
            kind.set_problem_type(problem_type)
        kind.set_fluents_type("INT_FLUENTS")
        kind.set_fluents_type("REAL_FLUENTS")
        for effect in ("INCREASE_EFFECTS", "DECREASE_EFFECTS", "STATIC_FLUENTS_IN_NUMERIC_ASSIGNMENTS",
                       "FLUENTS_IN_NUMERIC_ASSIGNMENTS"):
            kind.set_effects_kind(effect)
        kind.set_actions_cost_kind("FLUENTS_IN_ACTIONS_COST")
        kind.set_quality_metrics("FINAL_VALUE")
        # time, for the validator of time-triggered plans (PDDL 2.1 durative actions, PDDL 2.2 timed literals)
        kind.set_time("CONTINUOUS_TIME")
        kind.set_time("TIMED_EFFECTS")
        kind.set_time("DURATION_INEQUALITIES")
        kind.set_expression_duration("STATIC_FLUENTS_IN_DURATIONS")
        kind.set_expression_duration("FLUENTS_IN_DURATIONS")
        kind.set_expression_duration("INT_TYPE_DURATIONS")
        kind.set_expression_duration("REAL_TYPE_DURATIONS")
        kind.set_quality_metrics("MAKESPAN")
        # not BOUNDED_TYPES: UP checks an integer fluent's bounds as a state invariant, and the PDDL its
        # writer gives the engine has no bounds (a plan past a bound would be valid here, invalid for UP)
        return kind

    @staticmethod
    def simulator_kind() -> ProblemKind:
        """The classical fragment the ``SequentialSimulator`` mode simulates
        (its states are sets of atoms)."""
        kind = ProblemKind(version=LATEST_PROBLEM_KIND_VERSION)
        kind.set_problem_class("ACTION_BASED")
        kind.set_typing("FLAT_TYPING")
        kind.set_typing("HIERARCHICAL_TYPING")
        for condition in ("NEGATIVE_CONDITIONS", "DISJUNCTIVE_CONDITIONS", "EQUALITIES", "EXISTENTIAL_CONDITIONS",
                          "UNIVERSAL_CONDITIONS"):
            kind.set_conditions_kind(condition)
        kind.set_effects_kind("CONDITIONAL_EFFECTS")
        kind.set_effects_kind("FORALL_EFFECTS")
        kind.set_quality_metrics("ACTIONS_COST")
        kind.set_quality_metrics("PLAN_LENGTH")
        for cost in ("INT_NUMBERS_IN_ACTIONS_COST", "REAL_NUMBERS_IN_ACTIONS_COST", "STATIC_FLUENTS_IN_ACTIONS_COST"):
            kind.set_actions_cost_kind(cost)
        return kind

    @staticmethod
    def supports(problem_kind: ProblemKind) -> bool:
        return problem_kind <= PypddlEngine.supported_kind()

    @staticmethod
    def supports_plan(plan_kind: PlanKind) -> bool:
        return plan_kind in (PlanKind.SEQUENTIAL_PLAN, PlanKind.TIME_TRIGGERED_PLAN)

    # ------------------------------------------------------------------ SequentialSimulator

    def _get_initial_state(self) -> PypddlState:
        return self._initial

    def _is_applicable(self, state: UPStateInterface, action: up.model.Action,
                       parameters: tuple[FNode, ...]) -> bool:
        ground = self._lookup(action, parameters)
        return ground is not None and ground.applicable(self._atoms(state))

    def _apply(self, state: UPStateInterface, action: up.model.Action,
               parameters: tuple[FNode, ...]) -> PypddlState | None:
        atoms = self._atoms(state)
        ground = self._lookup(action, parameters)
        if ground is None or not ground.applicable(atoms):
            return None
        return PypddlState(ground.apply(atoms), self)

    def _get_applicable_actions(self, state: UPStateInterface) -> Iterator[tuple[up.model.Action, tuple[FNode, ...]]]:
        task = self._session.task
        for ground in task.sort_actions(task.applicable(self._atoms(state))):
            yield self._up_action(ground)

    def _is_goal(self, state: UPStateInterface) -> bool:
        return self._session.task.is_goal(self._atoms(state))

    def get_unsatisfied_goals(self, state: UPStateInterface, early_termination: bool = False) -> list[FNode]:
        """The problem's goals that do not hold in ``state`` (as UP's
        simulator offers; evaluated by UP's own state evaluator)."""
        from unified_planning.model.walkers import StateEvaluator

        evaluator = StateEvaluator(self._problem)
        unsatisfied = []
        for goal in self._problem.goals:  # type: ignore[union-attr]
            if not evaluator.evaluate(goal, state).bool_constant_value():
                unsatisfied.append(goal)
                if early_termination:
                    break
        return unsatisfied

    @property
    def session(self) -> Session:
        """The engine session behind this simulator (grounded once)."""
        return self._session

    # ------------------------------------------------------------------ PlanValidator

    def _validate(self, problem: up.model.AbstractProblem, plan: up.plans.Plan) -> ValidationResult:
        if isinstance(plan, TimeTriggeredPlan) and isinstance(problem, up.model.Problem):
            return self._validate_timed(problem, plan)
        if not isinstance(plan, SequentialPlan):
            raise UPUsageError(f"{ENGINE_NAME} validates sequential plans, not {type(plan).__name__}")
        if not isinstance(problem, up.model.Problem):
            raise UPUsageError(f"{ENGINE_NAME} validates classical problems, not {type(problem).__name__}")
        try:
            translation = _Translation(problem)
        except UnsupportedRequirementError as err:  # UP cannot write it as PDDL: the engine cannot tell
            return ValidationResult(ValidationResultStatus.UNKNOWN, self.name, [LogMessage(LogLevel.ERROR, str(err))])
        steps = [translation.action_text(ai.action, ai.actual_parameters) for ai in plan.actions]
        try:
            report = validate_plan(load_task(translation.domain, translation.problem_text), steps)
        except PDDLError as err:  # the engine cannot load what UP wrote: it cannot tell
            return ValidationResult(ValidationResultStatus.UNKNOWN, self.name,
                                    [LogMessage(LogLevel.ERROR, f"{ENGINE_NAME} cannot load the problem: {err}")])
        logs = [LogMessage(LogLevel.INFO, report.summary())]
        if report.valid:
            metrics = {m: _metric_value(m, report, len(steps)) for m in problem.quality_metrics
                       if m.is_minimize_action_costs() or m.is_minimize_sequential_plan_length()
                       or (_final_value(m) and report.metric is not None)}
            return ValidationResult(ValidationResultStatus.VALID, self.name, logs, metrics or None)
        if report.failure is not None:
            return ValidationResult(ValidationResultStatus.INVALID, self.name, logs, None,
                                    FailedValidationReason.INAPPLICABLE_ACTION,
                                    inapplicable_action=plan.actions[report.failure.step - 1])
        return ValidationResult(ValidationResultStatus.INVALID, self.name, logs, None,
                                FailedValidationReason.UNSATISFIED_GOALS)

    def _validate_timed(self, problem: up.model.Problem, plan: TimeTriggeredPlan) -> ValidationResult:
        """A time-triggered plan, written as an IPC timed plan over the PDDL UP
        writes, judged by the engine's temporal validator (VAL's semantics, its
        default epsilon 0.01)."""
        try:
            translation = _Translation(problem)
            lines = [f"{_decimal(start)}: {translation.action_text(ai.action, ai.actual_parameters)}"
                     + ("" if duration is None else f" [{_decimal(duration)}]")
                     for start, ai, duration in plan.timed_actions]
        except UnsupportedRequirementError as err:
            return ValidationResult(ValidationResultStatus.UNKNOWN, self.name, [LogMessage(LogLevel.ERROR, str(err))])
        try:
            task = compile_temporal(parse_domain(translation.domain), parse_problem(translation.problem_text))
            report = validate_timed_plan(task, "".join(line + "\n" for line in lines))
        except PDDLError as err:
            return ValidationResult(ValidationResultStatus.UNKNOWN, self.name,
                                    [LogMessage(LogLevel.ERROR, f"{ENGINE_NAME} cannot load the problem: {err}")])
        logs = [LogMessage(LogLevel.INFO, report.summary())]
        if report.valid:
            metrics = {m: _makespan(report.makespan) for m in problem.quality_metrics if m.is_minimize_makespan()}
            return ValidationResult(ValidationResultStatus.VALID, self.name, logs, metrics or None)
        reason = FailedValidationReason.UNSATISFIED_GOALS if report.failure is None else \
            FailedValidationReason.INAPPLICABLE_ACTION
        return ValidationResult(ValidationResultStatus.INVALID, self.name, logs, None, reason)

    # ------------------------------------------------------------------ between the two models

    def _atoms(self, state: UPStateInterface) -> frozenset[int]:
        if not isinstance(state, PypddlState) or state._engine is not self:
            raise UPUsageError(f"{ENGINE_NAME} takes the states it made (from get_initial_state() or apply()), "
                               f"not {type(state).__name__}")
        return state._atoms

    def _lookup(self, action: up.model.Action, parameters: tuple[FNode, ...]) -> GroundAction | None:
        key = (action, parameters)
        try:
            return self._ground[key]
        except KeyError:
            pass
        if action not in self._problem.actions:  # type: ignore[union-attr]
            raise UPUsageError(f"the action {action.name} does not belong to this simulator's problem")
        translation = self._translation
        assert translation is not None
        try:
            ground = self._session.resolve(translation.action_text(action, parameters))
        except PDDLError as err:  # e.g. an object of the wrong type: UP checks types, so only odd calls get here
            raise UPUsageError(str(err)) from err
        self._ground[key] = ground
        return ground

    def _up_action(self, ground: GroundAction) -> tuple[up.model.Action, tuple[FNode, ...]]:
        found = self._up_actions.get(ground.id)
        if found is None:
            name, *args = self._session.task.render_action(ground)[1:-1].split()
            translation = self._translation
            assert translation is not None
            found = (translation.item(name), tuple(self._object_exp(translation.item(a)) for a in args))
            self._up_actions[ground.id] = found
            self._ground[found] = ground
        return found

    def _value(self, atoms: frozenset[int], value: FNode) -> FNode:
        if not value.is_fluent_exp():
            raise UPUsageError(f"{value} is not a fluent expression")
        fluent = value.fluent()
        translation = self._translation
        assert translation is not None
        if not fluent.type.is_bool_type():  # only static numeric fluents (cost tables) pass the kind check
            return self._problem.initial_value(value)  # type: ignore[union-attr]
        names = [translation.name(fluent)]
        for arg in value.args:
            if not arg.is_object_exp():
                raise UPUsageError(f"{value} is not ground: {arg} is not an object")
            names.append(translation.name(arg.object()))
        atom = self._atom_ids.get(f"({' '.join(names)})")
        return self._true if atom is not None and atom in atoms else self._false

    def _render_state(self, atoms: frozenset[int]) -> list[str]:
        render = self._session.task.render_atom
        return sorted(render(a) for a in atoms)


def _final_value(metric: Any) -> bool:
    return bool(metric.is_minimize_expression_on_final_state() or metric.is_maximize_expression_on_final_state())


def _metric_value(metric: Any, report: Any, length: int) -> int | Fraction:
    value: int | Fraction | float = (report.metric if _final_value(metric) else report.cost
                                     if metric.is_minimize_action_costs() else length)
    if isinstance(value, float):
        return int(value) if value.is_integer() else Fraction(str(value))
    return value


def register(environment: Any = None) -> None:
    """Add the engine to UP's factory as ``"pypddlengine"`` (done on import;
    calling again is harmless). It goes last in the preference list, so UP
    picks it only when asked by name or when no earlier engine fits."""
    factory = get_environment(environment).factory
    if ENGINE_NAME not in factory.engines:
        factory.add_engine(ENGINE_NAME, __name__, "PypddlEngine")


register()


def _makespan(value: Any) -> Any:
    """A makespan as UP's validators report it (an exact number)."""
    em = get_environment().expression_manager
    f = Fraction(value)
    return em.Int(f.numerator) if f.denominator == 1 else em.Real(f)


def _decimal(value: Any) -> str:
    """A time or duration of a UP plan (a Fraction) as the decimal an IPC timed plan holds (exact when it
    terminates, else to 30 significant digits)."""
    from decimal import Context, Decimal

    f = Fraction(value)
    text = format(Context(prec=30).divide(Decimal(f.numerator), Decimal(f.denominator)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text
