"""A step-wise simulation session: the seven operations and a few more.

:class:`Session` wraps one task backend (a grounded :class:`Task` or a
lifted :class:`LazyTask`, see :func:`build_backend`), the current state and
the history of executed actions. It is pure computation: it parses nothing
but action text, reads no files (see :func:`pypddlengine.load_task` for that)
and prints nothing. The seven operations of the paper map onto it as:

=========================  =========================================
initialise                 ``Session(task)``, :func:`open_session`
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

The session keeps the state, the history and the loop index; what it says
after each step (goals, distances, dead ends, landmarks, why-not hints, the
conditional effects that fired, the values that changed) is composed by its
:class:`pypddlengine.feedback.FeedbackComposer` (:attr:`Session.composer`).

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

from collections.abc import Iterable
from dataclasses import field
from typing import Any

from .errors import CheckpointError, ErrorCode, GroundingLimitError, PDDLError, nesting_guard
from .exact import Value
from .feedback import (
    FEATURES_OFF,
    HEURISTIC_CHOICES,
    LANDMARK_AUTO_LIMIT,
    Failure,
    Feedback,
    FeedbackComposer,
    FeedbackLevel,
    GoalStatus,
    RelaxedAnalysis,
    check_settings,
    failure_from_error,
)
from .grounding import DEFAULT_OPTIONS, GroundingOptions, check_lifted, estimate_grounding, ground
from .landmarks import LandmarkProgress, Landmarks
from .lazy import LazyTask
from .lifted import Instance, LiftedTask, Schema, load_task
from .model import ActionRef, Plan
from .observation import Observation, compile_observation
from .sources import PDDLSource
from .step import GroundAction, State, revert
from .syntax import MAX_INPUT_BYTES, parse_action_ref
from .task import Listing, StepSpace, Task
from .usercache import dataclass
from .validate import ValidationReport, validate_plan

__all__ = [
    "AUTO_GROUND_LIMIT",
    "BACKENDS",
    "FEATURES_OFF",
    "HEURISTIC_CHOICES",
    "LANDMARK_AUTO_LIMIT",
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
    "open_backend",
    "open_session",
]


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
def _check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend '{backend}'; choose one of {', '.join(BACKENDS)}")


def build_backend(lifted: LiftedTask, backend: str = "auto", options: GroundingOptions = DEFAULT_OPTIONS,
                  limit: float = AUTO_GROUND_LIMIT) -> tuple[StepSpace, str]:
    """The session backend for ``lifted`` and one sentence saying which and why.

    ``"grounded"`` grounds the task (:func:`ground`, with ``options``);
    ``"lifted"`` builds a :class:`LazyTask` (nothing grounded: actions are
    instantiated as the session meets them); ``"auto"`` grounds when
    :func:`estimate_grounding` says the grounding is small (at most ``limit``
    actions), and goes lifted otherwise, or when grounding then stops at a
    size or time limit (a cancellation still stops it)."""
    _check_backend(backend)
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
    checks a domain and problem first, each a file path or PDDL text, and
    picks the backend (``backend``, see :func:`build_backend`), through
    :func:`open_backend` as :func:`open_session` does. :attr:`backend` and :attr:`backend_note` say
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
        check_settings(heuristic, proof_budget)
        _check_backend(backend)
        if not isinstance(task, StepSpace):
            if problem is None:
                raise TypeError("Session(domain, problem) needs both, or Session(task) a Task or LazyTask")
            task, note = open_backend(task, problem, backend=backend, options=options)
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
        self.composer = FeedbackComposer(task, level=feedback, heuristic=heuristic, proof_budget=proof_budget,
                                         landmarks=landmarks, detect_loops=detect_loops)
        """Composes what the session says after each step (see :mod:`.feedback`)."""
        self._state: State = task.init
        self._history: list[HistoryEntry] = []
        self._applicable_cache: tuple[State, list[GroundAction]] | None = None
        self._listing: Listing | None = None
        """The current state's applicable actions as far as pages asked (see :meth:`applicable_actions`)."""
        self._uncounted: State | None = None
        """A state whose applicable actions are too many to list at once (see :meth:`applicable_count`)."""
        self._digests: list[int] = [_digest(task.init, 0, task.init, ()) if self.detect_loops else 0]
        """The digest of the state after each step of the history (0: the initial state)."""
        self._first_seen: dict[int, int] = {self._digests[0]: 0}
        """Each digest of :attr:`_digests` and the first step where it occurs."""
        self._checkpoints: dict[str, Checkpoint] = {}
        self.failed_attempts = 0
        self.observation: Observation | None = None
        """The rules hiding atoms from the agent (``None``: everything is seen)."""
        self._observed: tuple[State, State] | None = None
        if observation is not None:
            compiled = compile_observation(observation, task)
            self.observation = compiled if compiled.text else None

    # ------------------------------------------------------------------ settings (kept by the feedback composer)

    @property
    def feedback_level(self) -> FeedbackLevel:
        return self.composer.level

    @feedback_level.setter
    def feedback_level(self, level: FeedbackLevel | str | int) -> None:
        self.composer.level = FeedbackLevel.parse(level)

    @property
    def heuristic(self) -> str:
        """What the feedback's distance measures (one of :data:`HEURISTIC_CHOICES`)."""
        return self.composer.heuristic

    @heuristic.setter
    def heuristic(self, name: str) -> None:
        check_settings(name, self.composer.proof_budget)
        self.composer.heuristic = name

    @property
    def proof_budget(self) -> int:
        """States a breadth-first search may visit after each step to prove or refute a dead end."""
        return self.composer.proof_budget

    @proof_budget.setter
    def proof_budget(self, budget: int) -> None:
        check_settings(self.composer.heuristic, budget)
        self.composer.proof_budget = budget

    @property
    def detect_loops(self) -> bool:
        """Whether the session keeps the loop index (fixed when the session is made)."""
        return self.composer.detect_loops

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_pddl(cls, domain: str | bytes, problem: str | bytes, *, domain_name: str | None = None,
                  problem_name: str | None = None, **options: Any) -> Session:
        """Initialise from PDDL text (never a file name): :func:`open_session`
        with ``text=True``, messages naming ``domain_name`` and
        ``problem_name``, and the same ``options``.

        Raises a :class:`PDDLError` subclass on any problem with the input
        (``INPUT_TOO_LARGE`` beyond ``max_bytes``, ``GROUNDING_LIMIT`` beyond
        ``options`` when grounding was requested)."""
        return open_session(domain, problem, domain_name=domain_name, problem_name=problem_name, text=True,
                            **options)

    @classmethod
    def on(cls, lifted: LiftedTask, *, backend: str = "auto", options: GroundingOptions = DEFAULT_OPTIONS,
           **session_options: Any) -> Session:
        """A session on a compiled task, with the backend :func:`build_backend`
        picks (its note kept as :attr:`backend_note`)."""
        return cls._noted(*build_backend(lifted, backend, options), **session_options)

    @classmethod
    def _noted(cls, task: StepSpace, note: str, **session_options: Any) -> Session:
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
        return self.composer.goal_status(self._state)

    def derived_atoms(self) -> list[str]:
        """The derived atoms (of :derived predicates) that hold now, sorted;
        they are part of :meth:`state_atoms` too."""
        task = self.task
        return sorted(task.render_atom(i) for i in self._state & task.derived_atoms)

    # ------------------------------------------------------------------ applicable actions

    def applicable_actions(self, limit: int | None = None, *, schema: Schema | None = None) -> list[GroundAction]:
        """The actions applicable now, sorted by name (cached per state).

        With ``limit``: the first ``limit`` of them (of ``schema`` only, when
        given), in the same order. A lifted session finds only those (and goes
        on from there when a later call in the same state asks for more), so a
        state with millions of applicable actions still has a first page;
        listing them all stops at the backend's work limit (``GROUNDING_LIMIT``)."""
        cache = self._applicable_cache
        if cache is not None and cache[0] is self._state and schema is None:
            return cache[1] if limit is None else cache[1][:limit]
        if limit is not None and (self.grounded is None or schema is not None):
            listing = self._listing
            if listing is None or listing.state is not self._state or listing.schema is not schema:
                listing = self._listing = self.task.listing(self._state, schema)
            page = listing.first(limit)
            if listing.complete and schema is None:
                self._applicable_cache = (self._state, listing.found)
            return page
        actions = self.task.sort_actions(self.task.applicable(self._state))
        self._applicable_cache = (self._state, actions)
        return actions if limit is None else actions[:limit]

    def applicable_names(self, limit: int | None = None) -> list[str]:
        """The names of :meth:`applicable_actions` (the first ``limit`` of them)."""
        render = self.task.render_action
        return [render(a) for a in self.applicable_actions(limit)]

    def applicable_count(self) -> int | None:
        """How many actions apply now; ``None`` when a lifted session's work
        limit refuses to list them all (remembered for the state: pages of
        :meth:`applicable_actions` with a ``limit`` still work)."""
        if self._uncounted is self._state:
            return None
        try:
            return len(self.applicable_actions())
        except GroundingLimitError as err:
            if err.details.get("kind") != "lifted":
                raise
            self._uncounted = self._state
            return None

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
        failure nothing changes and :attr:`StepResult.failure` says why. Atomic:
        whatever raises (a typed error of a limit, or a defect) leaves the
        state, the history and the loop index as they were."""
        with nesting_guard("the action's condition or effect"):
            return self._execute(action)

    def _execute(self, action: str | ActionRef | GroundAction) -> StepResult:
        try:
            text, ground_action, inst = self._lookup(action)
        except PDDLError as err:
            return self._failed(action if isinstance(action, str) else str(action), failure_from_error(err))
        state = self._state
        if ground_action is None or not ground_action.applicable(state):
            return self._failed(text, self.composer.why_not(inst, self._state, self._history))
        try:
            move = ground_action.step(state)
        except PDDLError as err:  # a cost value the problem does not define (lifted backend)
            return self._failed(text, failure_from_error(err))
        new_state, added, deleted = move.state, move.added, move.deleted
        fired = self.composer.fired(ground_action, move.fired) if move.fired else ()
        shown_added, shown_deleted = added, deleted
        if self.observation is not None:  # the change in what is seen: revealed atoms count as added
            seen_before, seen_after = self.observe(state), self.observe(new_state)
            shown_added, shown_deleted = tuple(seen_after - seen_before), tuple(seen_before - seen_after)
            fired = ()  # their conditions and changes may name hidden atoms
        step = len(self._history) + 1
        digests = len(self._digests)
        # the backend follows the step (a rollback below leaves it at new_state: it then compares states again)
        self.task.advanced(state, new_state, added, deleted)
        self._state = new_state
        self._history.append(HistoryEntry(step, ground_action, text, added, deleted, move.changed))
        try:
            return self._succeeded(text, new_state, step, shown_added, shown_deleted, fired, move.changed)
        except BaseException:  # nothing of the step stays
            self._state = state
            del self._history[step - 1:]
            for digest in self._digests[digests:]:
                if self._first_seen.get(digest) == step:
                    del self._first_seen[digest]
            del self._digests[digests:]
            raise

    def _succeeded(self, text: str, new_state: State, step: int, shown_added: Any, shown_deleted: Any,
                   fired: Any, changed: Any) -> StepResult:
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
            feedback=self.composer.feedback(new_state, self._history, revisited),
            fired=fired,
            changed=self.composer.changed(changed),
        )

    def _failed(self, text: str, failure: Failure) -> StepResult:
        self.failed_attempts += 1
        feedback = self.composer.after_failure(self._state)
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
            return Explanation(action if isinstance(action, str) else str(action), False, failure_from_error(err))
        if ground_action is not None and ground_action.applicable(self._state):
            error = ground_action.step_error(self._state)  # listed means executable: so does the explanation
            if isinstance(error, PDDLError):
                return Explanation(text, False, failure_from_error(error))
            return Explanation(text, True)
        return Explanation(text, False, self.composer.why_not(inst, self._state, self._history))

    # ------------------------------------------------------------------ feedback

    def analysis(self) -> RelaxedAnalysis:
        """Relaxed-planning analysis (h_add, h_FF, dead end) of the current
        state. Raises :class:`FeatureUnavailableError` on a lifted session."""
        return self.composer.analysis(self._state)

    def landmarks(self) -> Landmarks | None:
        """The task's landmarks (computed on first use), ``None`` when the
        session does not track them (always on a lifted session)."""
        return self.composer.landmarks()

    def landmark_progress(self) -> LandmarkProgress | None:
        """The landmark status after the current history (see
        :meth:`FeedbackComposer.landmark_progress`)."""
        return self.composer.landmark_progress(self._history)

    def current_feedback(self) -> Feedback | None:
        """Feedback on the current state per the session's level, without
        executing anything (``None`` below ``PROGRESS``; no change, no
        revisit check)."""
        return self.composer.feedback(self._state, self._history, None, moved=False)


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
        self.composer.forget_distance()

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
        self.composer.forget_distance()
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
        self.composer.forget_distance()
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

    def validate(self, plan: Plan | Iterable[ActionRef | str] | None = None, *,
                 max_seconds: float | None = None) -> ValidationReport:
        """Validate ``plan`` from the initial state (the session's history when
        ``plan`` is ``None``). The session itself is not changed."""
        return validate_plan(self.task, [h.action for h in self._history] if plan is None else plan,
                             max_seconds=max_seconds)


def open_backend(
    domain: PDDLSource,
    problem: PDDLSource,
    *,
    domain_name: str | None = None,
    problem_name: str | None = None,
    max_bytes: int = MAX_INPUT_BYTES,
    text: bool = False,
    backend: str = "auto",
    options: GroundingOptions | None = None,
) -> tuple[StepSpace, str]:
    """The one pipeline from files or text to a session's backend: read
    (each a file path or PDDL text, see :data:`PDDLSource`; with ``text``
    always text or bytes), parse (at most ``max_bytes`` each, messages naming
    ``domain_name`` and ``problem_name`` when given), check and compile
    (:func:`pypddlengine.lifted.load_task`), then pick and build the backend
    (:func:`build_backend` with the grounding ``options``). Every way of
    opening a session from files or text runs it: :func:`open_session` (and
    so :func:`pypddlengine.open_session`, ``pypddl play``, the gym adapter and
    the MCP server's ``initialise_session``), :meth:`Session.from_pddl` and
    ``Session(domain, problem)``."""
    _check_backend(backend)
    lifted = load_task(domain, problem, max_bytes=max_bytes, domain_name=domain_name, problem_name=problem_name,
                       text=text)
    with nesting_guard("the task"):
        return build_backend(lifted, backend, options or DEFAULT_OPTIONS)


def open_session(
    domain: PDDLSource,
    problem: PDDLSource,
    *,
    domain_name: str | None = None,
    problem_name: str | None = None,
    max_bytes: int = MAX_INPUT_BYTES,
    text: bool = False,
    backend: str = "auto",
    options: GroundingOptions | None = None,
    **session_options: Any,
) -> Session:
    """A :class:`Session` on a domain and problem, from files or text: the
    backend from :func:`open_backend` (its note kept as
    :attr:`Session.backend_note`), then the session with ``session_options``
    (``feedback``, ``heuristic``, ``proof_budget``, ``landmarks``,
    ``detect_loops``, ``observation``, as in :class:`Session`)."""
    check_settings(session_options.get("heuristic", "h_ff"), session_options.get("proof_budget", 0))
    task, note = open_backend(domain, problem, domain_name=domain_name, problem_name=problem_name,
                              max_bytes=max_bytes, text=text, backend=backend, options=options)
    return Session._noted(task, note, **session_options)


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
