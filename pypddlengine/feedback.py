"""What a session says after each step, and the relaxed analyses it rests on.

:class:`FeedbackComposer` composes a step's feedback for a
:class:`pypddlengine.session.Session` (which keeps the state, the history and
the loop index, and hands them over as arguments): goal progress, distances
(:mod:`.heuristics`, :mod:`.numeric_heuristics`), dead ends (:mod:`.deadends`),
landmarks (:mod:`.landmarks`), why-not explanations of a failed step, the
conditional effects that fired and the numeric values that changed; each
:class:`FeedbackLevel` adds to the last.

The paper this project starts from concludes that step feedback which only
says "applicable" leaves an agent to judge its own progress. This module
computes signals the environment can vouch for:

* ``h_add`` and ``h_FF`` of a state (Bonet & Geffner's additive heuristic and
  Hoffmann & Nebel's relaxed-plan heuristic, computed with best supporters
  from ``h_add``), counted in action costs (steps in unit-cost tasks);
* goal atoms that are unreachable even when delete effects are ignored: a
  proof that the state is a dead end (no plan from it exists).

Negative preconditions and negative goals are ignored by the relaxation, as
usual (in ADL tasks, negative literals inside formulas and negated derived
atoms too; see :meth:`pypddlengine.task.Task.relaxed_operators`): a dead end
reported is a real dead end. Costs are exact numbers; ``None`` stands for
"unreachable".
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import Protocol, cast

from .deadends import DEAD_END, NO_PLAN, PLAN_EXISTS, dead_end
from .errors import ActionReferenceError, ErrorCode, FeatureUnavailableError, NumericError, PDDLError
from .exact import Value, to_text
from .heuristics import relaxed_task
from .landmarks import LandmarkProgress, Landmarks, find_landmarks
from .lifted import AtomKey, Instance
from .model import And
from .names import HEURISTIC_NAMES
from .numeric import term_text
from .numeric_heuristics import numeric_relaxation
from .step import ConditionalEffect
from .task import GroundAction, State, StepSpace, Task
from .usercache import dataclass
from .validate import INAPPLICABLE_ACTION

__all__ = [
    "FEATURES_OFF",
    "HEURISTIC_CHOICES",
    "LANDMARK_AUTO_LIMIT",
    "Failure",
    "Feedback",
    "FeedbackComposer",
    "FeedbackLevel",
    "GoalStatus",
    "RelaxedAnalysis",
    "analyse",
    "check_settings",
    "failure_from_error",
]


HEURISTIC_CHOICES = HEURISTIC_NAMES
"""What :attr:`Feedback.distance` can measure (the ``heuristic`` option)."""
LANDMARK_AUTO_LIMIT = 50_000
"""With ``landmarks=None`` landmarks are tracked when the task has at most
this many relaxed operators (their analysis grows with the task)."""
SHOWN = 10
"""At most this many landmarks or relaxed-plan actions are listed per step."""
NUMERIC_H_FF = ("on a numeric task the distance is the numeric relaxation's h_add (h_FF's relaxed plans are not "
                "defined over numbers here)")
NO_LANDMARKS = ("no landmark distance: landmarks are computed for STRIPS tasks only, not with conditional effects, "
                "quantified or disjunctive conditions, or derived predicates")
FEATURES_OFF = ("off for this session: the task was not grounded (lifted backend), and heuristic distances, "
                "landmarks and relaxed dead-end proofs need the ground task; open it with backend='grounded' for them")


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
class RelaxedAnalysis:
    """Relaxed-planning facts about one state.

    ``h_ff`` is the cost of a relaxed plan (``None`` when the goal is
    unreachable in the relaxation, i.e. the state is a proven dead end);
    ``relaxed_plan`` lists its actions; ``unreachable_goals`` the goal atom
    ids that no sequence of actions can make true from this state."""

    h_add: float | None
    h_ff: float | None
    relaxed_plan: tuple[GroundAction, ...]
    unreachable_goals: tuple[int, ...]

    @property
    def dead_end(self) -> bool:
        return bool(self.unreachable_goals)


def analyse(task: Task, state: State) -> RelaxedAnalysis:
    """Compute ``h_add``, ``h_FF`` and unreachable goals for ``state`` (one
    exploration of :class:`pypddlengine.heuristics.RelaxedTask`)."""
    rt = relaxed_task(task)
    ev = rt.evaluate(state, "add")
    if ev.dead_end:
        return RelaxedAnalysis(None, None, (), ev.unreachable_goals)
    return RelaxedAnalysis(ev.h, ev.h_ff, rt.actions(ev.relaxed_plan), ())


class Step(Protocol):
    """What the composer reads of one executed step (a session's history entry)."""

    @property
    def step(self) -> int: ...
    @property
    def action(self) -> GroundAction: ...
    @property
    def text(self) -> str: ...
    @property
    def deleted(self) -> tuple[int, ...]: ...


def check_settings(heuristic: str, proof_budget: int) -> None:
    """Refuse an unknown ``heuristic`` or a negative ``proof_budget`` (``ValueError``)."""
    if heuristic not in HEURISTIC_CHOICES:
        raise ValueError(f"unknown heuristic '{heuristic}'; choose one of {', '.join(HEURISTIC_CHOICES)}")
    if proof_budget < 0:
        raise ValueError("proof_budget must be 0 or more")


class FeedbackComposer:
    """The feedback of one session: built with its backend ``task`` (a
    grounded :class:`Task` or a lifted task: then no distances, landmarks or
    relaxed proofs, and the feedback says so) and the session's settings.
    It keeps only what feedback itself needs between steps (the last
    distance, the landmarks and their progress along the history); the
    session passes the state, the history and the loop index's verdict.

    ``heuristic``: what the distance measures (see :data:`HEURISTIC_CHOICES`);
    ``proof_budget``: states a breadth-first search may visit after each step
    to prove or refute a dead end (0: only the relaxed proof); ``landmarks``:
    track landmarks (``None``: when the task is not too large, see
    :data:`LANDMARK_AUTO_LIMIT`); ``detect_loops``: say when a state repeats
    (``None``: at level ``FULL``)."""

    def __init__(
        self,
        task: StepSpace,
        *,
        level: FeedbackLevel | str | int = FeedbackLevel.PLAIN,
        heuristic: str = "h_ff",
        proof_budget: int = 0,
        landmarks: bool | None = None,
        detect_loops: bool | None = None,
    ) -> None:
        check_settings(heuristic, proof_budget)
        self.task = task
        self.lifted = task.lifted
        self.grounded: Task | None = task if isinstance(task, Task) else None
        self.level = FeedbackLevel.parse(level)
        self.detect_loops: bool = self.level >= FeedbackLevel.FULL if detect_loops is None else detect_loops
        self.heuristic = heuristic
        self.proof_budget = proof_budget
        self._track_landmarks = landmarks if heuristic != "lm_count" else True
        self._landmarks: Landmarks | None = None
        self._lm_path: list[tuple[int, State, LandmarkProgress]] = []
        self._last_distance: float | None = None

    def forget_distance(self) -> None:
        """The next step's distance has no change to report (after reset, undo, restore)."""
        self._last_distance = None

    # ------------------------------------------------------------------ goals

    def goal_status(self, state: State) -> GoalStatus:
        """Each goal literal, split into satisfied and unsatisfied (a compound
        goal conjunct counts as one, explained when it fails)."""
        lifted = self.lifted
        keys = self.task.keys(state)
        unsatisfied = lifted.unsatisfied_goals(keys)
        missing = set(unsatisfied)
        everything = [lifted.render_key(k) for k in lifted.goal_pos]
        everything += [f"(not {lifted.render_key(k)})" for k in lifted.goal_neg]
        satisfied = [g for g in everything if g not in missing]
        if lifted.goal_residual is not None:
            parts = lifted.goal_residual.parts if isinstance(lifted.goal_residual, And) else (lifted.goal_residual,)
            satisfied += [lifted.render_condition(p, {}) for p in parts if lifted.holds(p, {}, keys)]
        return GoalStatus(tuple(satisfied), tuple(unsatisfied))

    def after_failure(self, state: State) -> Feedback | None:
        """The feedback of a step that failed (nothing changed): the goals, from ``PROGRESS`` on."""
        return Feedback(goals=self.goal_status(state)) if self.level >= FeedbackLevel.PROGRESS else None

    # ------------------------------------------------------------------ a step's changes

    def changed(self, changed: Iterable[tuple[int, Value | None, Value]]) -> tuple[str, ...]:
        """``(fuel t1): 20 -> 13`` for each value a step changed."""
        lifted = self.lifted
        out = []
        for i, old, new in changed:
            name, args = lifted.fluent_terms[i]
            term = term_text(lifted.function_display.get(name, name), args, lifted.object_display)
            out.append(f"{term}: {'undefined' if old is None else to_text(old)} -> {to_text(new)}")
        return tuple(out)

    def fired(self, action: GroundAction, fired: Iterable[ConditionalEffect]) -> tuple[str, ...]:
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

    # ------------------------------------------------------------------ why not

    def why_not(self, inst: Instance, state: State, history: Sequence[Step]) -> Failure:
        """Why ``inst`` cannot apply in ``state`` (at level ``FULL`` with hints: which step of ``history``
        last made a failing precondition false, which applicable actions would make it true)."""
        keys = self.task.keys(state)
        unsatisfied = tuple(self.lifted.unsatisfied(inst, keys))
        hints = self._hints(inst, keys, state, history) if self.level >= FeedbackLevel.FULL else []
        return Failure(
            INAPPLICABLE_ACTION,
            "the action's preconditions do not hold in the current state",
            unsatisfied,
            hints=tuple(hints),
        )

    def _hints(self, inst: Instance, keys: set[AtomKey], state: State, history: Sequence[Step]) -> list[str]:
        task, lifted, grounded = self.task, self.lifted, self.grounded
        hints: list[str] = []
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
            last = None if atom is None else next((h for h in reversed(history) if atom in h.deleted), None)
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

    # ------------------------------------------------------------------ relaxed analyses

    def analysis(self, state: State) -> RelaxedAnalysis:
        """Relaxed-planning analysis (h_add, h_FF, dead end) of ``state``.
        Raises :class:`FeatureUnavailableError` on a lifted task."""
        return analyse(self._ground_task("relaxed-planning analysis"), state)

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

    def landmark_progress(self, history: Sequence[Step]) -> LandmarkProgress | None:
        """The landmark status after ``history``, replayed from the
        last step whose action is unchanged (so undo, reset and restore need
        no bookkeeping here)."""
        lm = self.landmarks()
        if lm is None:
            return None
        path = self._lm_path
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

    def feedback(self, state: State, history: Sequence[Step], revisited: int | None = None,
                 moved: bool = True) -> Feedback | None:
        """The feedback on ``state``, reached by ``history``, per the level
        (``None`` below ``PROGRESS`` unless loops are detected): ``revisited``
        is the earlier step with the same state (from the session's loop
        index); ``moved``: a step led here (so the distance's change is
        reported and the distance remembered, and newly achieved landmarks
        are listed); ``False`` for a look at the current state."""
        level = self.level
        if not self.detect_loops:
            revisited = None
        loop_notes = () if revisited is None else (
            f"this state equals the state after step {revisited}; you may be going in circles",)
        if level <= FeedbackLevel.PLAIN:
            return Feedback(revisited_step=revisited, notes=loop_notes) if self.detect_loops else None
        goals = self.goal_status(state)
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
            progress = self.landmark_progress(history)
            value = {"h_ff": ev.h_ff, "h_add": ev.h, "h_max": ev.h, "goal_count": ev.goal_count}.get(name)
            nev = None
            if numeric:  # the numeric relaxation (numeric_heuristics); h_FF is not defined over numbers here
                nev = numeric_relaxation(self.grounded).evaluate(state, "max" if name == "h_max" else "add")
                if name == "h_ff":
                    name = "h_add"
                    if not history:  # said once, at the start
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
        if dead and not history:
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


def _shown(render, atoms: Iterable[int]) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    return tuple(sorted(render(a) for a in atoms)[:SHOWN])


def failure_from_error(err: PDDLError) -> Failure:
    """The :class:`Failure` of a step refused for ``err`` (a bad reference, a
    syntax error in the action text: ``ACTION_SYNTAX``, a numeric error with
    where in the domain it happened)."""
    suggestions = (cast("list[str] | None", err.details.get("suggestions"))
                   if isinstance(err, ActionReferenceError) else None)
    hints = (err.hint,) if err.hint else ()
    code = err.code if err.code != ErrorCode.SYNTAX_ERROR else ErrorCode.ACTION_SYNTAX
    message = err.message
    if isinstance(err, NumericError) and err.location:  # where in the domain the step failed
        message = f"{message} ({err.location})"
    return Failure(code, message, (), tuple(suggestions or ()), hints)
