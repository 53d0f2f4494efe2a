"""A step-wise simulation session: the seven operations and a few more.

:class:`Session` wraps one grounded task, the current state and the history
of executed actions. It is pure computation: it parses nothing but action
text, reads no files (see :func:`pypddlengine.load_task` for that) and prints
nothing. The seven operations of the paper map onto it as:

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
without executing it), :meth:`goal_status` and :meth:`analysis`.

A failed :meth:`execute` changes nothing: not the state, not the history, and
the session stays usable. Failures are returned, not raised, with a stable
``code`` (``INAPPLICABLE_ACTION``, ``UNKNOWN_ACTION``, ``WRONG_ARITY``,
``UNKNOWN_OBJECT``, ``TYPE_MISMATCH``, ``ACTION_SYNTAX``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

from .deadends import DEAD_END, NO_PLAN, PLAN_EXISTS, dead_end
from .errors import ActionReferenceError, ErrorCode, PDDLError
from .feedback import RelaxedAnalysis, analyse
from .grounding import DEFAULT_OPTIONS, GroundingOptions, ground
from .heuristics import relaxed_task
from .landmarks import LandmarkProgress, Landmarks, find_landmarks
from .lifted import AtomKey, Instance, compile_task
from .model import ActionRef, Plan
from .sources import PDDLSource, read_source
from .syntax import MAX_INPUT_BYTES, parse_action_ref, parse_domain, parse_problem
from .task import GroundAction, State, Task
from .validate import INAPPLICABLE_ACTION, ValidationReport, validate_plan

__all__ = [
    "HEURISTIC_CHOICES",
    "Explanation",
    "Failure",
    "Feedback",
    "FeedbackLevel",
    "GoalStatus",
    "HistoryEntry",
    "Session",
    "StepResult",
]


HEURISTIC_CHOICES = ("h_ff", "h_add", "h_max", "goal_count", "lm_count")
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


@dataclass(frozen=True, slots=True)
class Explanation:
    """Whether an action is applicable now, and if not why (see :meth:`Session.explain`)."""

    action: str
    applicable: bool
    failure: Failure | None = None


class Session:
    """Step-wise simulation of one grounded :class:`Task` (see module docstring).

    ``Session(task)`` wraps a grounded task; ``Session(domain, problem)``
    reads, checks and grounds a domain and problem first, each a file path
    or PDDL text (as :func:`pypddlengine.open_session`)."""

    def __init__(
        self,
        task: Task | PDDLSource,
        problem: PDDLSource | None = None,
        *,
        feedback: FeedbackLevel | str | int = FeedbackLevel.PLAIN,
        options: GroundingOptions = DEFAULT_OPTIONS,
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
        if not isinstance(task, Task):
            if problem is None:
                raise TypeError("Session(domain, problem) needs both, or Session(task) a grounded Task")
            d_text, d_name = read_source(task, "domain")
            p_text, p_name = read_source(problem, "problem")
            task = ground(compile_task(parse_domain(d_text, filename=d_name), parse_problem(p_text, filename=p_name)),
                          options)
        elif problem is not None:
            raise TypeError("Session(task) takes a grounded Task alone; pass domain and problem instead")
        self.task = task
        self.lifted = task.lifted
        self.feedback_level = FeedbackLevel.parse(feedback)
        self._state: State = task.init
        self._history: list[HistoryEntry] = []
        self._applicable_cache: tuple[State, list[GroundAction]] | None = None
        self._visited: dict[int, int] = {hash(task.init): 0}
        self._last_distance: float | None = None
        self.failed_attempts = 0
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
        heuristic: str = "h_ff",
        proof_budget: int = 0,
    ) -> Session:
        """Initialise from PDDL text: parse, check, compile and ground.

        Raises a :class:`PDDLError` subclass on any problem with the input
        (``INPUT_TOO_LARGE`` beyond ``max_bytes``, ``GROUNDING_LIMIT`` beyond
        ``options``)."""
        d = parse_domain(domain, filename=domain_name, max_bytes=max_bytes)
        p = parse_problem(problem, filename=problem_name, max_bytes=max_bytes)
        return cls(ground(compile_task(d, p), options), feedback=feedback, heuristic=heuristic,
                   proof_budget=proof_budget)

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> State:
        """The current state (atom ids; static atoms included)."""
        return self._state

    def state_atoms(self, *, include_static: bool = True) -> list[str]:
        """The atoms that hold, rendered and sorted."""
        task = self.task
        ids = self._state if include_static else self._state - task.static_atoms
        return sorted(task.render_atom(i) for i in ids)

    def is_goal(self) -> bool:
        return self.task.is_goal(self._state)

    def goal_status(self) -> GoalStatus:
        """Each goal literal, split into satisfied and unsatisfied."""
        lifted = self.lifted
        keys = self.task.keys(self._state)
        unsatisfied = lifted.unsatisfied_goals(keys)
        missing = set(unsatisfied)
        everything = [lifted.render_key(k) for k in lifted.goal_pos]
        everything += [f"(not {lifted.render_key(k)})" for k in lifted.goal_neg]
        return GoalStatus(tuple(g for g in everything if g not in missing), tuple(unsatisfied))

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
        new_state = ground_action.apply(state)
        added = tuple(a for a in ground_action.add if a not in state)
        deleted = tuple(d for d in ground_action.delete if d in state and d not in new_state)
        self._state = new_state
        step = len(self._history) + 1
        self._history.append(HistoryEntry(step, ground_action, text, added, deleted))
        render = self.task.render_atom
        return StepResult(
            success=True,
            action=text,
            state=new_state,
            goal_reached=self.task.is_goal(new_state),
            step=step,
            added=tuple(sorted(render(a) for a in added)),
            deleted=tuple(sorted(render(d) for d in deleted)),
            feedback=self._feedback(new_state, step),
        )

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
        task, lifted = self.task, self.lifted
        hints: list[str] = []
        applicable = set(a.id for a in task.applicable(self._state))
        for k in inst.pre:
            if k in keys:
                continue
            text = lifted.render_key(k)
            atom = task.atom_ids.get(k)
            if atom is None or not task.reachable[atom]:
                hints.append(f"{text} can never become true")
                continue
            last = next((h for h in reversed(self._history) if atom in h.deleted), None)
            if last is not None:
                hints.append(f"{text} was made false by step {last.step} {last.text}")
            now = [task.render_action(a) for a in task.achievers(atom) if a.id in applicable]
            if now:
                shown = ", ".join(sorted(now)[:5])
                hints.append(f"{text} would be made true now by: {shown}")
            elif atom in task.static_atoms or k[0] not in lifted.fluent_predicates:
                hints.append(f"{text} is a static fact and never changes")
            else:
                hints.append(f"{text}: no applicable action makes it true right now")
        for k in inst.neg:
            if k in keys:
                atom = task.atom_ids.get(k)
                dels = [task.render_action(a) for a in task.applicable(self._state) if atom in a.delete]
                text = lifted.render_key(k)
                if dels:
                    hints.append(f"{text} would be made false now by: {', '.join(sorted(dels)[:5])}")
        return hints

    # ------------------------------------------------------------------ feedback

    def analysis(self) -> RelaxedAnalysis:
        """Relaxed-planning analysis (h_add, h_FF, dead end) of the current state."""
        return analyse(self.task, self._state)

    def landmarks(self) -> Landmarks | None:
        """The task's landmarks (computed on first use), ``None`` when the
        session does not track them."""
        if self._landmarks is None:
            track = self._track_landmarks
            if track is None:
                track = len(relaxed_task(self.task).operators) <= LANDMARK_AUTO_LIMIT
            if not track:
                return None
            self._landmarks = find_landmarks(self.task)
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
        return self._feedback(self._state, len(self._history), moved=False)

    def _feedback(self, state: State, step: int, moved: bool = True) -> Feedback | None:
        level = self.feedback_level
        if level <= FeedbackLevel.PLAIN:
            return None
        goals = self.goal_status()
        if level < FeedbackLevel.HEURISTIC:
            return Feedback(goals)
        task, render = self.task, self.task.render_atom
        notes: list[str] = []
        rt = relaxed_task(task)
        name = self.heuristic
        ev = rt.evaluate(state, "max" if name == "h_max" else "add", plan=name == "h_ff" or level >= FeedbackLevel.FULL)
        progress = self.landmark_progress()
        value = {"h_ff": ev.h_ff, "h_add": ev.h, "h_max": ev.h, "goal_count": ev.goal_count}.get(name)
        if name == "lm_count" and progress is not None:
            value = progress.lm_count
        status = None
        unreachable: tuple[str, ...] = ()
        if ev.dead_end:
            status = DEAD_END
            unreachable = tuple(render(g) for g in ev.unreachable_goals if g >= 0)
            if any(g < 0 for g in ev.unreachable_goals):  # goal atoms the grounding never reached
                missing = (k for k in task.unreachable_goals if k not in task.atom_ids)
                unreachable += tuple(self.lifted.render_key(k) for k in missing)
        elif self.proof_budget:
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
        revisited = None
        if level >= FeedbackLevel.FULL and moved:
            fingerprint = hash(state)
            revisited = self._visited.get(fingerprint)
            if revisited is None:
                self._visited[fingerprint] = step
            else:
                notes.append(f"this state was already reached after step {revisited}; you may be going in circles")
        hint: tuple[str, ...] = ()
        if level >= FeedbackLevel.FULL and not dead:
            hint = tuple(task.render_action(a) for a in rt.actions(ev.relaxed_plan)[:SHOWN])
        lm = self._landmarks
        return Feedback(
            goals, distance, change, dead, unreachable, revisited, tuple(notes), name,
            None if progress is None else len(progress.accepted),
            None if lm is None else len(lm.atoms),
            () if progress is None or not moved else _shown(render, progress.newly_accepted),
            () if progress is None else _shown(render, progress.required_again),
            status, hint,
        )

    # ------------------------------------------------------------------ history, reset, undo

    @property
    def history(self) -> tuple[HistoryEntry, ...]:
        return tuple(self._history)

    def plan(self) -> list[str]:
        """The executed actions as PDDL text, in order."""
        return [h.text for h in self._history]

    def reset(self) -> None:
        """Back to the initial state with an empty history."""
        self._state = self.task.init
        self._history.clear()
        self._visited = {hash(self.task.init): 0}
        self._last_distance = None

    def undo(self, steps: int = 1) -> int:
        """Undo up to ``steps`` executed actions; returns how many were undone."""
        undone = 0
        while undone < steps and self._history:
            entry = self._history.pop()
            self._state = self._state.difference(entry.added).union(entry.deleted)
            undone += 1
        self._last_distance = None
        return undone

    # ------------------------------------------------------------------ validation

    def validate(self, plan: Plan | Iterable[ActionRef | str] | None = None) -> ValidationReport:
        """Validate ``plan`` from the initial state (the session's history when
        ``plan`` is ``None``). The session itself is not changed."""
        if plan is None:
            plan = [h.text for h in self._history]
        return validate_plan(self.lifted, plan)


def _shown(render, atoms: Iterable[int]) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    return tuple(sorted(render(a) for a in atoms)[:SHOWN])


def _failure_from_error(err: PDDLError) -> Failure:
    suggestions = err.details.get("suggestions") if isinstance(err, ActionReferenceError) else None
    hints = (err.hint,) if err.hint else ()
    code = err.code if err.code != ErrorCode.SYNTAX_ERROR else ErrorCode.ACTION_SYNTAX
    return Failure(code, err.message, (), tuple(suggestions or ()), hints)
