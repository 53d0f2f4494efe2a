"""A step-wise simulation session: the seven operations and a few more.

:class:`Session` wraps one task backend (a grounded :class:`Task` or a
lifted :class:`LazyTask`, see :func:`build_backend`), the current state and
the history of executed actions. It is pure computation: it parses nothing
but action text, reads no files (see :func:`pypddlengine.load_task` for that)
and prints nothing. The seven operations of the paper map onto it as:

=========================  =========================================
initialise                 ``Session(task)``, :meth:`Session.from_pddl`
query current state        :attr:`Session.state`, :meth:`Session.state_atoms`
query applicable actions   :meth:`Session.applicable_actions`
execute one action         :meth:`Session.execute`
reset                      :meth:`Session.reset`
history                    :attr:`Session.history`
validate a complete plan   :meth:`Session.validate`
=========================  =========================================

plus :meth:`undo`, :meth:`explain` (why an action is or is not applicable,
without executing it), :meth:`goal_status` and :meth:`analysis`, and named
checkpoints (:meth:`save`, :meth:`restore`, :meth:`checkpoints`,
:meth:`delete_checkpoint`) that keep the state and the history.

Loop detection: the session keeps a digest of the state after every step of
the current history (step 0 is the initial state) and the first step at which
each digest occurs, so :attr:`Feedback.revisited_step` says "this state equals
the state after step 9". The index follows the history exactly: undo drops the
steps it undoes, restore rebuilds it from the checkpoint's history, reset
starts it again. The digest is 128 bits: the state's frozenset hash and a
Zobrist hash (the XOR of a mixed 64-bit value per atom, updated from the atoms
a step changes), so a false loop needs two independent hashes to collide, and
a step costs O(atoms changed) beyond the frozenset hash. It is on at level
``FULL`` and at any level with ``detect_loops=True``; otherwise nothing is kept.

Partial observability: ``observation=`` rules (see
:mod:`pypddlengine.observation`) hide atoms from :meth:`state_atoms`,
:meth:`observe` and a step's added/deleted atoms (and a step reports no fired
conditional effects: their conditions and changes may name hidden atoms);
execution, applicability and the goal stay on the true state (:attr:`state`).

A failed :meth:`execute` changes nothing: not the state, not the history, and
the session stays usable. Failures are returned, not raised, with a stable
``code`` (``INAPPLICABLE_ACTION``, ``UNKNOWN_ACTION``, ``WRONG_ARITY``,
``UNKNOWN_OBJECT``, ``TYPE_MISMATCH``, ``ACTION_SYNTAX``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import field
from typing import Any

from .deadends import DEAD_END, NO_PLAN, PLAN_EXISTS, dead_end
from .errors import (
    ActionReferenceError,
    CheckpointError,
    ErrorCode,
    FeatureUnavailableError,
    GroundingLimitError,
    NumericError,
    PDDLError,
)
from .exact import Value, to_text
from .feedback import RelaxedAnalysis, analyse
from .grounding import DEFAULT_OPTIONS, GroundingOptions, check_lifted, estimate_grounding, ground
from .heuristics import relaxed_task
from .landmarks import LandmarkProgress, Landmarks, find_landmarks
from .lazy import LazyTask
from .lifted import AtomKey, Instance, LiftedTask, compile_task
from .model import ActionRef, And, Plan
from .names import HEURISTIC_NAMES
from .numeric import term_text
from .numeric_heuristics import numeric_relaxation
from .observation import Observation, compile_observation
from .sources import PDDLSource, read_source
from .step import ConditionalEffect, GroundAction, State, revert
from .syntax import MAX_INPUT_BYTES, parse_action_ref, parse_domain, parse_problem
from .task import StepSpace, Task
from .usercache import dataclass
from .validate import INAPPLICABLE_ACTION, ValidationReport, validate_plan

__all__ = [
    "AUTO_GROUND_LIMIT",
    "BACKENDS",
    "HEURISTIC_CHOICES",
    "Checkpoint",
    "Explanation",
    "Failure",
    "Feedback",
    "FeedbackLevel",
    "GoalStatus",
    "HistoryEntry",
    "Session",
    "StepResult",
    "build_backend",
]


HEURISTIC_CHOICES = HEURISTIC_NAMES
"""What :attr:`Feedback.distance` can measure (the ``heuristic`` option)."""
LANDMARK_AUTO_LIMIT = 50_000
"""With ``landmarks=None`` landmarks are tracked when the task has at most
this many relaxed operators (their analysis grows with the task)."""
SHOWN = 10
"""At most this many landmarks or relaxed-plan actions are listed per step."""


class FeedbackLevel(enum.IntEnum):
    """How much the session says after each step (each level adds to the last).

    * ``PAPER``: exactly the signals the paper names (§III-A): after a step a
      success flag, the new state and a goal-reached flag; a validation says
      valid or not. The session computes what ``PLAIN`` does; the adapters
      (the MCP rendering, ``pypddl play``) show no more than those signals.
    * ``PLAIN``: success, new state, goal reached; on failure the reason and
      the unsatisfied preconditions.
    * ``PROGRESS``: goal atoms satisfied so far, and which are not.
    * ``HEURISTIC``: distance to the goal (h_FF unless the session's
      ``heuristic`` says otherwise) and its change, a dead-end warning when
      the goal became unreachable (a proof, see :mod:`.deadends`), and the
      landmarks (atoms every plan makes true) accepted so far, newly
      achieved, or required again.
    * ``FULL``: why-not explanations (which step last made a failing
      precondition false, which applicable actions would make it true) and a
      warning when a state repeats; the first actions of a relaxed plan.
    """

    PAPER = -1
    PLAIN = 0
    PROGRESS = 1
    HEURISTIC = 2
    FULL = 3

    @classmethod
    def parse(cls, value: str | int | FeedbackLevel) -> FeedbackLevel:
        if isinstance(value, FeedbackLevel):
            return value
        if isinstance(value, int):
            return cls(value)
        try:
            return cls[value.strip().upper()]
        except KeyError:
            names = ", ".join(m.name.lower() for m in cls)
            raise ValueError(f"unknown feedback level '{value}'; choose one of {names}") from None


@dataclass(frozen=True, slots=True)
class Failure:
    """Why an action could not be executed (nothing changed)."""

    code: str
    message: str
    unsatisfied: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GoalStatus:
    satisfied: tuple[str, ...]
    unsatisfied: tuple[str, ...]

    @property
    def reached(self) -> bool:
        return not self.unsatisfied

    @property
    def total(self) -> int:
        return len(self.satisfied) + len(self.unsatisfied)


@dataclass(frozen=True, slots=True)
class Feedback:
    """Extra signals, filled according to the session's :class:`FeedbackLevel`."""

    goals: GoalStatus | None = None
    distance: float | None = None
    distance_change: float | None = None
    dead_end: bool = False
    unreachable_goals: tuple[str, ...] = ()
    revisited_step: int | None = None
    notes: tuple[str, ...] = ()
    heuristic: str | None = None
    """What ``distance`` measures (one of :data:`HEURISTIC_CHOICES`)."""
    landmarks_accepted: int | None = None
    landmarks_total: int | None = None
    landmarks_achieved: tuple[str, ...] = ()
    landmarks_required_again: tuple[str, ...] = ()
    dead_end_status: str | None = None
    """A :mod:`.deadends` verdict: set for a dead end, or when the session searches (``proof_budget``)."""
    relaxed_plan: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One executed step: the action and the atoms it really changed."""

    step: int
    action: GroundAction
    text: str
    added: tuple[int, ...]
    deleted: tuple[int, ...]
    changed: tuple[tuple[int, Value | None, Value], ...] = ()
    """Numeric values the step changed: ``(fluent id, old value, new value)``."""


@dataclass(frozen=True, slots=True)
class StepResult:
    """The outcome of :meth:`Session.execute`."""

    success: bool
    action: str
    state: State = field(repr=False)
    goal_reached: bool
    step: int
    added: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    failure: Failure | None = None
    feedback: Feedback | None = None
    fired: tuple[str, ...] = ()
    """The conditional effects that fired (ADL tasks), each with its condition and objects."""
    changed: tuple[str, ...] = ()
    """Numeric values the step changed, ``(fuel t1): 20 -> 13`` (numeric tasks)."""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A named snapshot of a session: the state and the history that led to it."""

    name: str
    state: State = field(repr=False)
    history: tuple[HistoryEntry, ...] = field(repr=False)
    digests: tuple[int, ...] = field(repr=False)

    @property
    def step(self) -> int:
        return len(self.history)


NUMERIC_H_FF = ("on a numeric task the distance is the numeric relaxation's h_add (h_FF's relaxed plans are not "
                "defined over numbers here)")
NO_LANDMARKS = ("no landmark distance: landmarks are computed for STRIPS tasks only, not with conditional effects, "
                "quantified or disjunctive conditions, or derived predicates")

MAX_CHECKPOINTS = 64
"""Checkpoints one session keeps at most (each holds a copy of the history)."""
MAX_CHECKPOINT_NAME = 64


@dataclass(frozen=True, slots=True)
class Explanation:
    """Whether an action is applicable now, and if not why (see :meth:`Session.explain`)."""

    action: str
    applicable: bool
    failure: Failure | None = None


BACKENDS = ("auto", "grounded", "lifted")
"""The ``backend`` choices of a session (see :func:`build_backend`)."""
AUTO_GROUND_LIMIT = 100_000
"""With ``backend="auto"`` a task is grounded when :func:`estimate_grounding`
expects at most this many ground actions (and four times as many atoms)."""
FEATURES_OFF = ("off for this session: the task was not grounded (lifted backend), and heuristic distances, "
                "landmarks and relaxed dead-end proofs need the ground task; open it with backend='grounded' for them")


def build_backend(lifted: LiftedTask, backend: str = "auto", options: GroundingOptions = DEFAULT_OPTIONS,
                  limit: float = AUTO_GROUND_LIMIT) -> tuple[StepSpace, str]:
    """The session backend for ``lifted`` and one sentence saying which and why.

    ``"grounded"`` grounds the task (:func:`ground`, with ``options``);
    ``"lifted"`` builds a :class:`LazyTask` (nothing grounded: actions are
    instantiated as the session meets them); ``"auto"`` grounds when
    :func:`estimate_grounding` says the grounding is small (at most ``limit``
    actions), and goes lifted otherwise, or when grounding then stops at a
    size or time limit (a cancellation still stops it)."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend '{backend}'; choose one of {', '.join(BACKENDS)}")
    if backend == "grounded":
        task = ground(lifted, options)
        return task, f"grounded (as requested): {task.stats.actions:,} ground actions"
    check_lifted(lifted, options)  # what would make every state's step too large, refused at initialise
    if backend == "lifted":
        return LazyTask(lifted, max_work=options.max_actions), ("lifted (as requested): actions are instantiated as "
                                                                "the session meets them")
    estimate = estimate_grounding(lifted)
    if estimate.small(limit):
        try:
            task = ground(lifted, options)
        except GroundingLimitError as err:
            if err.details.get("kind") == "cancelled":
                raise
            return LazyTask(lifted, max_work=options.max_actions), (
                f"lifted: grounding stopped ({err.message}), so actions are instantiated as the session meets them")
        return task, (f"grounded: {task.stats.actions:,} ground actions (at most about {estimate.actions:,.0f} "
                      f"were expected; the automatic limit is {limit:,.0f})")
    return LazyTask(lifted, max_work=options.max_actions), (
        f"lifted: grounding could make about {estimate.actions:,.0f} actions (the automatic limit is {limit:,.0f}), "
        "so actions are instantiated as the session meets them")


class Session:
    """Step-wise simulation of one task (see module docstring) on one of two
    backends: a grounded :class:`Task` or a lifted :class:`LazyTask`.

    ``Session(task)`` wraps a backend; ``Session(domain, problem)`` reads and
    checks a domain and problem first, each a file path or PDDL text (as
    :func:`pypddlengine.open_session`), and picks the backend (``backend``,
    see :func:`build_backend`). :attr:`backend` and :attr:`backend_note` say
    which it is and why. A lifted session has no heuristic distances,
    landmarks or relaxed dead-end proofs (its feedback says so); everything
    else is the same, step for step."""

    def __init__(
        self,
        task: StepSpace | PDDLSource,
        problem: PDDLSource | None = None,
        *,
        backend: str = "auto",
        feedback: FeedbackLevel | str | int = FeedbackLevel.PLAIN,
        options: GroundingOptions = DEFAULT_OPTIONS,
        detect_loops: bool | None = None,
        observation: str | Iterable[str] | None = None,
        heuristic: str = "h_ff",
        proof_budget: int = 0,
        landmarks: bool | None = None,
    ) -> None:
        """``heuristic``: what the feedback's distance measures (see
        :data:`HEURISTIC_CHOICES`); ``proof_budget``: states a breadth-first
        search may visit after each step to prove or refute a dead end (0: only
        the relaxed proof); ``landmarks``: track landmarks (``None``: when the
        task is not too large, see :data:`LANDMARK_AUTO_LIMIT`)."""
        if heuristic not in HEURISTIC_CHOICES:
            raise ValueError(f"unknown heuristic '{heuristic}'; choose one of {', '.join(HEURISTIC_CHOICES)}")
        if proof_budget < 0:
            raise ValueError("proof_budget must be 0 or more")
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend '{backend}'; choose one of {', '.join(BACKENDS)}")
        if not isinstance(task, StepSpace):
            if problem is None:
                raise TypeError("Session(domain, problem) needs both, or Session(task) a Task or LazyTask")
            d_text, d_name = read_source(task, "domain")
            p_text, p_name = read_source(problem, "problem")
            lifted = compile_task(parse_domain(d_text, filename=d_name), parse_problem(p_text, filename=p_name))
            task, note = build_backend(lifted, backend, options)
        elif problem is not None:
            raise TypeError("Session(task) takes a Task or LazyTask alone; pass domain and problem instead")
        elif backend not in ("auto", task.backend):
            raise ValueError(f"Session(task) got a {task.backend} task but backend='{backend}'")
        else:
            note = f"{task.backend} (given)"
        self.task = task
        self.backend: str = task.backend
        """``"grounded"`` or ``"lifted"``."""
        self.backend_note: str = note
        """Which backend, and why (for a session summary)."""
        self.grounded: Task | None = task if isinstance(task, Task) else None
        """The ground task, for the analyses that need it (``None`` on a lifted session)."""
        self.lifted = task.lifted
        self.feedback_level = FeedbackLevel.parse(feedback)
        self._state: State = task.init
        self._history: list[HistoryEntry] = []
        self._applicable_cache: tuple[State, list[GroundAction]] | None = None
        self.detect_loops = self.feedback_level >= FeedbackLevel.FULL if detect_loops is None else detect_loops
        self._digests: list[int] = [_digest(task.init, 0, task.init, ()) if self.detect_loops else 0]
        """The digest of the state after each step of the history (0: the initial state)."""
        self._first_seen: dict[int, int] = {self._digests[0]: 0}
        """Each digest of :attr:`_digests` and the first step where it occurs."""
        self._checkpoints: dict[str, Checkpoint] = {}
        self._last_distance: float | None = None
        self.failed_attempts = 0
        self.observation: Observation | None = None
        """The rules hiding atoms from the agent (``None``: everything is seen)."""
        self._observed: tuple[State, State] | None = None
        if observation is not None:
            compiled = compile_observation(observation, task)
            self.observation = compiled if compiled.text else None
        self.heuristic = heuristic
        self.proof_budget = proof_budget
        self._track_landmarks = landmarks if heuristic != "lm_count" else True
        self._landmarks: Landmarks | None = None
        self._lm_path: list[tuple[int, State, LandmarkProgress]] = []

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_pddl(
        cls,
        domain: str | bytes,
        problem: str | bytes,
        *,
        domain_name: str | None = None,
        problem_name: str | None = None,
        feedback: FeedbackLevel | str | int = FeedbackLevel.PLAIN,
        options: GroundingOptions = DEFAULT_OPTIONS,
        max_bytes: int = MAX_INPUT_BYTES,
        detect_loops: bool | None = None,
        observation: str | Iterable[str] | None = None,
        heuristic: str = "h_ff",
        proof_budget: int = 0,
        backend: str = "auto",
    ) -> Session:
        """Initialise from PDDL text: parse, check, compile and pick the
        backend (see :func:`build_backend`).

        Raises a :class:`PDDLError` subclass on any problem with the input
        (``INPUT_TOO_LARGE`` beyond ``max_bytes``, ``GROUNDING_LIMIT`` beyond
        ``options`` when grounding was requested)."""
        d = parse_domain(domain, filename=domain_name, max_bytes=max_bytes)
        p = parse_problem(problem, filename=problem_name, max_bytes=max_bytes)
        return cls.on(compile_task(d, p), backend=backend, options=options, feedback=feedback,
                      detect_loops=detect_loops, observation=observation, heuristic=heuristic,
                      proof_budget=proof_budget)

    @classmethod
    def on(cls, lifted: LiftedTask, *, backend: str = "auto", options: GroundingOptions = DEFAULT_OPTIONS,
           **session_options: Any) -> Session:
        """A session on a compiled task, with the backend :func:`build_backend`
        picks (its note kept as :attr:`backend_note`)."""
        task, note = build_backend(lifted, backend, options)
        session = cls(task, **session_options)
        session.backend_note = note
        return session

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> State:
        """The current state (atom ids; static atoms included)."""
        return self._state

    def state_atoms(self, *, include_static: bool = True, observed: bool = True) -> list[str]:
        """The atoms that hold, rendered and sorted (with an observation, only
        the visible ones unless ``observed=False``)."""
        task = self.task
        ids = self.observe() if observed else self._state
        if not include_static:
            ids = ids - task.static_atoms
        return sorted(task.render_atom(i) for i in ids)

    def state_values(self, *, include_static: bool = False) -> list[str]:
        """The numeric values of the current state, ``(fuel t1) = 12.5``
        (exact), in the order of the task's fluent terms; with
        ``include_static`` also the static values (distances, capacities,
        ...), which never change. Empty for a task without numeric fluents."""
        values = getattr(self._state, "values", None)
        out = [] if values is None else self.lifted.render_values(values)
        if include_static:
            out += self.lifted.render_static_values()
        return out

    def observe(self, state: State | None = None) -> State:
        """The atoms of ``state`` (default: the current state) that the
        session's observation rules let the agent see."""
        state = self._state if state is None else state
        if self.observation is None:
            return state
        cached = self._observed
        if cached is None or cached[0] is not state:  # one entry: a step asks for the last step's state again
            cached = self._observed = (state, self.observation.visible(state))
        return cached[1]

    def is_goal(self) -> bool:
        return self.task.is_goal(self._state)

    def goal_status(self) -> GoalStatus:
        """Each goal literal, split into satisfied and unsatisfied (a compound
        goal conjunct counts as one, explained when it fails)."""
        lifted = self.lifted
        keys = self.task.keys(self._state)
        unsatisfied = lifted.unsatisfied_goals(keys)
        missing = set(unsatisfied)
        everything = [lifted.render_key(k) for k in lifted.goal_pos]
        everything += [f"(not {lifted.render_key(k)})" for k in lifted.goal_neg]
        satisfied = [g for g in everything if g not in missing]
        if lifted.goal_residual is not None:
            parts = lifted.goal_residual.parts if isinstance(lifted.goal_residual, And) else (lifted.goal_residual,)
            satisfied += [lifted.render_condition(p, {}) for p in parts if lifted.holds(p, {}, keys)]
        return GoalStatus(tuple(satisfied), tuple(unsatisfied))

    def derived_atoms(self) -> list[str]:
        """The derived atoms (of :derived predicates) that hold now, sorted;
        they are part of :meth:`state_atoms` too."""
        task = self.task
        return sorted(task.render_atom(i) for i in self._state & task.derived_atoms)

    # ------------------------------------------------------------------ applicable actions

    def applicable_actions(self) -> list[GroundAction]:
        """The actions applicable now, sorted by name (cached per state)."""
        cache = self._applicable_cache
        if cache is not None and cache[0] is self._state:
            return cache[1]
        actions = self.task.sort_actions(self.task.applicable(self._state))
        self._applicable_cache = (self._state, actions)
        return actions

    def applicable_names(self) -> list[str]:
        render = self.task.render_action
        return [render(a) for a in self.applicable_actions()]

    # ------------------------------------------------------------------ execution

    def resolve(self, action: str | ActionRef | GroundAction) -> GroundAction | None:
        """The ground action ``action`` names, ``None`` when it cannot apply in
        any reachable state. Raises :class:`PDDLError` for a bad reference."""
        return self._lookup(action)[1]

    def _lookup(self, action: str | ActionRef | GroundAction) -> tuple[str, GroundAction | None, Instance]:
        """Canonical text, ground action (``None`` when grounding proved it
        never applicable) and instance of an action reference."""
        if isinstance(action, GroundAction):
            return self.task.render_action(action), action, action.schema.instantiate(action.args)
        ref = parse_action_ref(action) if isinstance(action, str) else action
        schema, args = self.lifted.resolve(ref)
        return self.lifted.render_action(schema, args), self.task.lookup(schema, args), schema.instantiate(args)

    def execute(self, action: str | ActionRef | GroundAction) -> StepResult:
        """Execute one action. On success the state and history advance; on
        failure nothing changes and :attr:`StepResult.failure` says why."""
        try:
            text, ground_action, inst = self._lookup(action)
        except PDDLError as err:
            return self._failed(action if isinstance(action, str) else str(action), _failure_from_error(err))
        state = self._state
        if ground_action is None or not ground_action.applicable(state):
            return self._failed(text, self._why_not(inst))
        try:
            move = ground_action.step(state)
        except PDDLError as err:  # a cost value the problem does not define (lifted backend)
            return self._failed(text, _failure_from_error(err))
        new_state, added, deleted = move.state, move.added, move.deleted
        fired = self._fired(ground_action, move.fired) if move.fired else ()
        shown_added, shown_deleted = added, deleted
        if self.observation is not None:  # the change in what is seen: revealed atoms count as added
            seen_before, seen_after = self.observe(state), self.observe(new_state)
            shown_added, shown_deleted = tuple(seen_after - seen_before), tuple(seen_before - seen_after)
            fired = ()  # their conditions and changes may name hidden atoms
        self._state = new_state
        step = len(self._history) + 1
        self._history.append(HistoryEntry(step, ground_action, text, added, deleted, move.changed))
        revisited = self._record_visit(new_state, step)
        render = self.task.render_atom
        return StepResult(
            success=True,
            action=text,
            state=new_state,
            goal_reached=self.task.is_goal(new_state),
            step=step,
            added=tuple(sorted(render(a) for a in shown_added)),
            deleted=tuple(sorted(render(d) for d in shown_deleted)),
            feedback=self._feedback(new_state, revisited),
            fired=fired,
            changed=self._changed(move.changed),
        )

    def _changed(self, changed: Iterable[tuple[int, Value | None, Value]]) -> tuple[str, ...]:
        """``(fuel t1): 20 -> 13`` for each value a step changed."""
        lifted = self.lifted
        out = []
        for i, old, new in changed:
            name, args = lifted.fluent_terms[i]
            term = term_text(lifted.function_display.get(name, name), args, lifted.object_display)
            out.append(f"{term}: {'undefined' if old is None else to_text(old)} -> {to_text(new)}")
        return tuple(out)

    def _fired(self, action: GroundAction, fired: Iterable[ConditionalEffect]) -> tuple[str, ...]:
        """The conditional effects of ``action`` that fired, each as
        ``when <condition> [for ?x=obj]: <effects>`` with its objects."""
        lifted = self.lifted
        schema = action.schema
        out: list[str] = []
        for effect in fired:
            rule = schema.rules[effect.rule]
            binding = {**schema.binding(action.args), **dict(zip((v.name for v in rule.variables), effect.args,
                                                                 strict=True))}
            where = " ".join(f"{v.name}={lifted.object_display[o]}"
                             for v, o in zip(rule.variables, effect.args, strict=True))
            changes = [self.task.render_atom(a) for a in effect.add]
            changes += [f"(not {self.task.render_atom(d)})" for d in effect.delete]
            if effect.cost:
                changes.append(f"(increase (total-cost) {effect.cost:g})")
            cond = "always" if rule.condition is None else f"when {lifted.render_condition(rule.condition, binding)}"
            out.append(f"{cond}{' for ' + where if where else ''}: {' '.join(changes) or '(no change)'}")
        return tuple(out)

    def _failed(self, text: str, failure: Failure) -> StepResult:
        self.failed_attempts += 1
        feedback = None
        if self.feedback_level >= FeedbackLevel.PROGRESS:
            feedback = Feedback(goals=self.goal_status())
        return StepResult(
            success=False,
            action=text,
            state=self._state,
            goal_reached=self.is_goal(),
            step=len(self._history),
            failure=failure,
            feedback=feedback,
        )

    def explain(self, action: str | ActionRef | GroundAction) -> Explanation:
        """Whether ``action`` is applicable now and, if not, why; nothing changes."""
        try:
            text, ground_action, inst = self._lookup(action)
        except PDDLError as err:
            return Explanation(action if isinstance(action, str) else str(action), False, _failure_from_error(err))
        if ground_action is not None and ground_action.applicable(self._state):
            return Explanation(text, True)
        return Explanation(text, False, self._why_not(inst))

    # ------------------------------------------------------------------ why not

    def _why_not(self, inst: Instance) -> Failure:
        keys = self.task.keys(self._state)
        unsatisfied = tuple(self.lifted.unsatisfied(inst, keys))
        hints = self._hints(inst, keys) if self.feedback_level >= FeedbackLevel.FULL else []
        return Failure(
            INAPPLICABLE_ACTION,
            "the action's preconditions do not hold in the current state",
            unsatisfied,
            hints=tuple(hints),
        )

    def _hints(self, inst: Instance, keys: set[AtomKey]) -> list[str]:
        task, lifted, grounded = self.task, self.lifted, self.grounded
        hints: list[str] = []
        state = self._state
        now_applicable = task.applicable(state)
        applicable = set(a.id for a in now_applicable)
        # beyond STRIPS (and on the lifted backend, which has no achiever index) whether an action makes an atom
        # true or false depends on its effect conditions (and on axioms): there the hints ask each applicable
        # action's successor state
        exact = grounded is None or task.general is not None
        successors: dict[int, State] = {}

        def successor(a: GroundAction) -> State:
            if a.id not in successors:
                try:
                    successors[a.id] = a.apply(state)
                except PDDLError:  # a numeric effect that cannot be executed: the step changes nothing
                    successors[a.id] = state
            return successors[a.id]

        def makes_true(a: GroundAction, atom: int) -> bool:  # a is an applicable achiever of atom
            return not exact or atom in successor(a)

        def makes_false(a: GroundAction, atom: int) -> bool:  # a is applicable and atom holds
            return atom in a.delete if not exact else atom not in successor(a)

        for k in inst.pre:
            if k in keys:
                continue
            text = lifted.render_key(k)
            atom = task.atom_ids.get(k)
            static = k[0] not in lifted.fluent_predicates
            never = static if grounded is None else atom is None or not grounded.reachable[atom]
            if never:
                hints.append(f"{text} can never become true")
                continue
            last = None if atom is None else next((h for h in reversed(self._history) if atom in h.deleted), None)
            if last is not None:
                hints.append(f"{text} was made false by step {last.step} {last.text}")
            candidates = () if atom is None else (
                now_applicable if grounded is None else [a for a in grounded.achievers(atom) if a.id in applicable])
            now = [task.render_action(a) for a in candidates if makes_true(a, atom)]  # type: ignore[arg-type]
            if now:
                shown = ", ".join(sorted(now)[:5])
                hints.append(f"{text} would be made true now by: {shown}")
            elif static or atom in task.static_atoms:
                hints.append(f"{text} is a static fact and never changes")
            else:
                hints.append(f"{text}: no applicable action makes it true right now")
        for k in inst.neg:
            if k in keys:
                atom = task.atom_ids[k]
                dels = [task.render_action(a) for a in now_applicable if makes_false(a, atom)]
                text = lifted.render_key(k)
                if dels:
                    hints.append(f"{text} would be made false now by: {', '.join(sorted(dels)[:5])}")
        return hints

    # ------------------------------------------------------------------ feedback

    def analysis(self) -> RelaxedAnalysis:
        """Relaxed-planning analysis (h_add, h_FF, dead end) of the current
        state. Raises :class:`FeatureUnavailableError` on a lifted session."""
        return analyse(self._ground_task("relaxed-planning analysis"), self._state)

    def _ground_task(self, what: str) -> Task:
        if self.grounded is None:
            raise FeatureUnavailableError(f"{what} is {FEATURES_OFF}", hint="open the task with backend='grounded'")
        return self.grounded

    def landmarks(self) -> Landmarks | None:
        """The task's landmarks (computed on first use), ``None`` when the
        session does not track them (always on a lifted session)."""
        if self._landmarks is None:
            if self.grounded is None or self.task.general is not None:
                return None  # the landmark analysis is defined here for STRIPS tasks only (see NO_LANDMARKS)
            track = self._track_landmarks
            if track is None:
                track = len(relaxed_task(self.grounded).operators) <= LANDMARK_AUTO_LIMIT
            if not track:
                return None
            self._landmarks = find_landmarks(self.grounded)
        return self._landmarks

    def landmark_progress(self) -> LandmarkProgress | None:
        """The landmark status after the current history, replayed from the
        last step whose action is unchanged (so undo, reset and restore need
        no bookkeeping here)."""
        lm = self.landmarks()
        if lm is None:
            return None
        path, history = self._lm_path, self._history
        if not path:
            path.append((-1, self.task.init, lm.start(self.task.init)))
        k = 0
        while k + 1 < len(path) and k < len(history) and path[k + 1][0] == history[k].action.id:
            k += 1
        del path[k + 1:]
        _, state, progress = path[k]
        for entry in history[k:]:
            state = entry.action.apply(state)
            progress = lm.step(progress.accepted, state)
            path.append((entry.action.id, state, progress))
        return progress

    def current_feedback(self) -> Feedback | None:
        """Feedback on the current state per the session's level, without
        executing anything (``None`` below ``PROGRESS``; no change, no
        revisit check)."""
        return self._feedback(self._state, None, moved=False)

    def _feedback(self, state: State, revisited: int | None, moved: bool = True) -> Feedback | None:
        level = self.feedback_level
        if not self.detect_loops:
            revisited = None
        loop_notes = () if revisited is None else (
            f"this state equals the state after step {revisited}; you may be going in circles",)
        if level <= FeedbackLevel.PLAIN:
            return Feedback(revisited_step=revisited, notes=loop_notes) if self.detect_loops else None
        goals = self.goal_status()
        if level < FeedbackLevel.HEURISTIC:
            return Feedback(goals, revisited_step=revisited, notes=loop_notes)
        task, render = self.task, self.task.render_atom
        notes: list[str] = []
        name = self.heuristic
        status = None
        unreachable: tuple[str, ...] = ()
        progress: LandmarkProgress | None = None
        hint: tuple[str, ...] = ()
        numeric = self.lifted.numeric_task
        if self.grounded is None:  # lifted: no relaxed analysis, and the feedback says so
            value: float | None = len(goals.unsatisfied) if name == "goal_count" else None
            if value is None:
                notes.append(f"no {name} distance: {FEATURES_OFF}")
        else:
            rt = relaxed_task(self.grounded)
            ev = rt.evaluate(state, "max" if name == "h_max" else "add",
                             plan=not numeric and (name == "h_ff" or level >= FeedbackLevel.FULL))
            progress = self.landmark_progress()
            value = {"h_ff": ev.h_ff, "h_add": ev.h, "h_max": ev.h, "goal_count": ev.goal_count}.get(name)
            nev = None
            if numeric:  # the numeric relaxation (numeric_heuristics); h_FF is not defined over numbers here
                nev = numeric_relaxation(self.grounded).evaluate(state, "max" if name == "h_max" else "add")
                if name == "h_ff":
                    name = "h_add"
                    if not self._history:  # said once, at the start
                        notes.append(NUMERIC_H_FF)
                value = {"h_add": nev.h_add, "h_max": nev.h_max, "goal_count": nev.goal_count}.get(name)
            if name == "lm_count":
                value = None if progress is None else progress.lm_count
                if progress is None and task.general is not None:
                    notes.append(NO_LANDMARKS)
            if ev.dead_end:
                status = DEAD_END
                unreachable = tuple(render(g) for g in ev.unreachable_goals if g >= 0)
                if any(g < 0 for g in ev.unreachable_goals):  # goal atoms the grounding never reached
                    missing = (k for k in self.grounded.unreachable_goals if k not in task.atom_ids)
                    unreachable += tuple(self.lifted.render_key(k) for k in missing)
            elif nev is not None and nev.dead_end:  # proved by the numeric relaxation (see its module)
                status = DEAD_END
                unreachable = nev.unreachable
            elif level >= FeedbackLevel.FULL and not numeric:
                hint = tuple(task.render_action(a) for a in rt.actions(ev.relaxed_plan)[:SHOWN])
        if status is None and self.proof_budget:
            verdict = dead_end(task, state, self.proof_budget)
            status = verdict.status
            if status == NO_PLAN:
                notes.append(f"{NO_PLAN}: all {verdict.states} states reachable from here were visited, none is a "
                             "goal state; reset or undo")
            elif status == PLAN_EXISTS:
                notes.append(f"a plan of {verdict.plan_length} steps exists from here")
        dead = status in (DEAD_END, NO_PLAN)
        distance = None if dead or value is None else float(value)
        if status == DEAD_END:
            notes.append("dead end: the goal can no longer be reached from this state; reset or undo")
        if dead and not self._history:
            notes.append("the task is proved unsolvable: no plan reaches the goal from the initial state")
        change = None
        if moved:
            if distance is not None and self._last_distance is not None:
                change = distance - self._last_distance
            self._last_distance = distance
        if dead:
            hint = ()
        lm = self._landmarks
        return Feedback(
            goals, distance, change, dead, unreachable, revisited, (*notes, *loop_notes), name,
            None if progress is None else len(progress.accepted),
            None if lm is None else len(lm.atoms),
            () if progress is None or not moved else _shown(render, progress.newly_accepted),
            () if progress is None else _shown(render, progress.required_again),
            status, hint,
        )

    # ------------------------------------------------------------------ loop detection

    def _record_visit(self, state: State, step: int) -> int | None:
        """Add the state after ``step`` to the loop index; the earlier step
        with the same state, if any."""
        if not self.detect_loops:
            return None
        entry = self._history[-1]
        digest = _digest(state, self._digests[-1], entry.added, entry.deleted)
        self._digests.append(digest)
        first = self._first_seen.get(digest)
        if first is None:
            self._first_seen[digest] = step
        return first

    def first_visit(self) -> int | None:
        """The first step of the history after which the current state already
        held, when that is earlier than now (a loop); else ``None``."""
        first = self._first_seen.get(self._digests[-1]) if self.detect_loops else None
        return first if first is not None and first < len(self._history) else None

    def state_after(self, step: int) -> State:
        """The state after ``step`` of the current history (0: the initial
        state), rebuilt backwards from the current state."""
        if not 0 <= step <= len(self._history):
            raise IndexError(f"step {step} is not in the history (0..{len(self._history)})")
        state = self._state
        for entry in reversed(self._history[step:]):
            state = revert(state, entry.added, entry.deleted, entry.changed)
        return state

    def _rebuild_loop_index(self) -> None:
        self._first_seen = {}
        for step, digest in enumerate(self._digests):
            self._first_seen.setdefault(digest, step)

    # ------------------------------------------------------------------ history, reset, undo

    @property
    def history(self) -> tuple[HistoryEntry, ...]:
        return tuple(self._history)

    def plan(self) -> list[str]:
        """The executed actions as PDDL text, in order."""
        return [h.text for h in self._history]

    def reset(self) -> None:
        """Back to the initial state with an empty history (checkpoints are kept)."""
        self._state = self.task.init
        self._history.clear()
        del self._digests[1:]
        self._rebuild_loop_index()
        self._last_distance = None

    def undo(self, steps: int = 1) -> int:
        """Undo up to ``steps`` executed actions; returns how many were undone.

        The state and the history become exactly what they were before those
        steps (the atoms each step really added and deleted are reverted)."""
        if steps < 0:
            raise ValueError(f"undo takes a number of steps >= 0, not {steps}")
        undone = 0
        while undone < steps and self._history:
            entry = self._history.pop()
            self._state = revert(self._state, entry.added, entry.deleted, entry.changed)
            if self.detect_loops:
                digest = self._digests.pop()
                if self._first_seen.get(digest) == entry.step:
                    del self._first_seen[digest]
            undone += 1
        self._last_distance = None
        return undone

    # ------------------------------------------------------------------ checkpoints

    def save(self, name: str) -> Checkpoint:
        """Save the current state and history as checkpoint ``name`` (replacing
        a checkpoint of that name). Raises :class:`CheckpointError`
        (``BAD_CHECKPOINT_NAME``, ``CHECKPOINT_LIMIT``)."""
        key = name.strip()
        if not key or len(key) > MAX_CHECKPOINT_NAME:
            raise CheckpointError(f"a checkpoint name must have 1 to {MAX_CHECKPOINT_NAME} characters",
                                  code=ErrorCode.BAD_CHECKPOINT_NAME, hint="e.g. 'before-tower'")
        if key not in self._checkpoints and len(self._checkpoints) >= MAX_CHECKPOINTS:
            raise CheckpointError(f"this session already keeps {MAX_CHECKPOINTS} checkpoints",
                                  code=ErrorCode.CHECKPOINT_LIMIT, hint="delete one first")
        checkpoint = Checkpoint(key, self._state, tuple(self._history), tuple(self._digests))
        self._checkpoints.pop(key, None)
        self._checkpoints[key] = checkpoint
        return checkpoint

    def restore(self, name: str) -> Checkpoint:
        """Go back to checkpoint ``name``: its state and its history (the
        checkpoint stays). Raises :class:`CheckpointError` for an unknown name."""
        checkpoint = self._checkpoint(name)
        self._state = checkpoint.state
        self._history = list(checkpoint.history)
        self._digests = list(checkpoint.digests)
        self._rebuild_loop_index()
        self._last_distance = None
        return checkpoint

    def checkpoints(self) -> list[Checkpoint]:
        """The saved checkpoints, oldest first."""
        return list(self._checkpoints.values())

    def delete_checkpoint(self, name: str) -> Checkpoint:
        """Forget checkpoint ``name`` (the session itself does not change)."""
        checkpoint = self._checkpoint(name)
        del self._checkpoints[checkpoint.name]
        return checkpoint

    def _checkpoint(self, name: str) -> Checkpoint:
        checkpoint = self._checkpoints.get(name.strip())
        if checkpoint is None:
            names = ", ".join(self._checkpoints) or "none"
            raise CheckpointError(f"no checkpoint '{name.strip()[:MAX_CHECKPOINT_NAME]}'",
                                  hint=f"the checkpoints are: {names}")
        return checkpoint

    # ------------------------------------------------------------------ validation

    def validate(self, plan: Plan | Iterable[ActionRef | str] | None = None) -> ValidationReport:
        """Validate ``plan`` from the initial state (the session's history when
        ``plan`` is ``None``). The session itself is not changed."""
        return validate_plan(self.task, [h.action for h in self._history] if plan is None else plan)


def _shown(render, atoms: Iterable[int]) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    return tuple(sorted(render(a) for a in atoms)[:SHOWN])


_MASK = (1 << 64) - 1


def _mix(atom: int) -> int:
    """A well-spread 64-bit value per atom id (the splitmix64 finaliser)."""
    x = (atom + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def _digest(state: State, previous: int, added: Iterable[int], deleted: Iterable[int]) -> int:
    """The 128-bit digest of ``state``: its frozenset hash and a Zobrist hash
    updated from the ``previous`` digest by the atoms a step changed (for
    the initial state, ``previous`` is 0 and ``added`` is the whole state)."""
    z = previous & _MASK
    for atom in added:
        z ^= _mix(atom)
    for atom in deleted:
        z ^= _mix(atom)
    return (hash(state) & _MASK) << 64 | z


def _failure_from_error(err: PDDLError) -> Failure:
    suggestions = err.details.get("suggestions") if isinstance(err, ActionReferenceError) else None
    hints = (err.hint,) if err.hint else ()
    code = err.code if err.code != ErrorCode.SYNTAX_ERROR else ErrorCode.ACTION_SYNTAX
    message = err.message
    if isinstance(err, NumericError) and err.location:  # where in the domain the step failed
        message = f"{message} ({err.location})"
    return Failure(code, message, (), tuple(suggestions or ()), hints)
