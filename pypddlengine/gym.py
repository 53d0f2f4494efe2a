"""Gymnasium environments on pypddlengine sessions (the optional extra ``gym``).

:class:`PDDLEnv` turns a domain and problem (files or PDDL text), a bundled
task, or a folder of problems sampled per reset into a ``gymnasium.Env``::

    import gymnasium
    import pypddlengine.gym  # registers the environments

    env = gymnasium.make("pypddlengine/blocksworld-p02-v0")
    obs, info = env.reset(seed=0)
    mask = env.unwrapped.action_masks()  # the actions applicable now

Observations (``observation=``):

* ``"vector"``: a ``MultiBinary`` vector with one bit per reachable atom of
  the task (of all problems, for a folder), 1 when the atom holds; with
  ``goal_in_observation`` a second block of bits marks the positive goal
  atoms (the default for a folder, whose goals differ).
* ``"atoms"``: a dict of two tuples of atom strings, ``state`` (the atoms
  that hold, sorted) and ``goal`` (the goal literals), for relational learners.
* ``"text"``: one string with the goal and the state, for language agents.

Actions (``action_mode=``): ``"discrete"`` is a ``Discrete`` space over the
ground actions (:attr:`PDDLEnv.action_names`; grounding keeps every action
applicable in some reachable state), with :meth:`PDDLEnv.action_masks` in the
convention sb3-contrib's MaskablePPO expects; ``"text"`` takes PDDL action
text such as ``"(stack a b)"``. ``step`` accepts an index or a text in both
modes. An inapplicable, unknown or malformed action never ends an episode:
nothing changes, the reward is ``invalid_action_reward`` and
``info["failure"]`` says why (the engine's why-not). It still counts as a
step toward ``max_steps``.

Rewards: ``reward="step"`` gives -1 per executed action, ``reward="cost"``
the negated action cost; ``goal_reward`` is added on reaching the goal.
``terminated`` is true in a goal state and in a state where no action is
applicable (a dead end the agent cannot leave: ``info["termination"]`` says
``"no applicable action"``, ``"goal"`` otherwise); ``truncated`` after
``max_steps`` steps, invalid ones included. After ``terminated`` the episode
is over: a further ``step`` before ``reset`` changes nothing, rewards 0 and
warns once, as Gymnasium's own environments do.
``info`` carries the engine's feedback at the session's level (``feedback=``:
goal progress from ``"progress"``, the heuristic distance and dead ends from
``"heuristic"``, why-not hints and a relaxed plan at ``"full"``).

Rendering (``render_mode=``): ``"ansi"`` gives the goal, the state and the
applicable actions as text; ``"rgb_array"`` the same text drawn into a fixed
size image (a ``uint8`` array of shape ``(576, 768, 3)``, drawn with a small
built-in bitmap font), so video recorders and vectorising wrappers such as
Stable-Baselines3's ``make_vec_env`` (which asks for ``rgb_array``) work.

The environment pickles (for subprocess vector environments and Ray): its
state is the PDDL text, its options and the current episode, and unpickling
grounds the task again and replays the episode's actions.

``gymnasium.make`` can import this module itself when the id names it:
``gymnasium.make("pypddlengine.gym:pypddlengine/blocksworld-p02-v0")``.

This module uses only the engine's public API (sessions, their tasks'
atoms and actions); the engine never imports it.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, SupportsInt

try:
    import gymnasium as gym
    import numpy as np
    from gymnasium import spaces
except ImportError as err:  # pragma: no cover - depends on the installation
    raise ImportError(f"pypddlengine.gym needs the 'gym' extra (pip install 'pypddlengine[gym]'): {err}") from err

from . import (
    ErrorCode,
    Failure,
    GroundAction,
    PDDLError,
    Session,
    StepResult,
    Task,
    UnsupportedRequirementError,
    open_session,
)
from .bundled import bundled_task, bundled_tasks
from .sources import is_pddl_text, read_source

__all__ = ["ENV_ID", "NO_APPLICABLE_ACTION", "OBSERVATIONS", "PDDLEnv", "register_envs", "task_env_id", "text_image"]

ENV_ID = "pypddlengine/PDDL-v0"
"""The generic environment: ``gymnasium.make(ENV_ID, domain=..., problem=...)``."""
OBSERVATIONS = ("vector", "atoms", "text")
ACTION_MODES = ("discrete", "text")
REWARDS = ("step", "cost")
_FIXED_TEXT = "goal: state: step problem applicable none ()-\n"


class _Problem:
    """One problem's session and its place in the environment's atom and
    action universes. Everything the environment asks of the engine goes
    through here (a thin layer over the public Session and Task API)."""

    def __init__(self, name: str, session: Session) -> None:
        if session.lifted.numeric_task:  # the observation is a vector of atoms: the values would be lost
            raise UnsupportedRequirementError(
                f"{name}: PDDLEnv observes atoms only, and this task has numeric fluents that actions change; "
                "simulate it with pypddlengine's Session (its states carry the values)",
                details={"feature": "numeric-fluents"})
        if session.grounded is None:
            why = ("a lifted session has no such sets" if session.backend_note.startswith("lifted (as requested)")
                   else f"this task is too large to ground here ({session.backend_note})")
            raise PDDLError(
                f"{name}: PDDLEnv's observation and action spaces list every ground atom and action, and {why}",
                code=ErrorCode.FEATURE_UNAVAILABLE,
                hint="simulate it with pypddlengine's Session (lifted), or pass backend='grounded' to try anyway")
        self.name = name
        self.session = session
        task = session.task
        if not isinstance(task, Task):  # a lazy backend grounds as it goes: no fixed atom and action sets
            raise ValueError(f"{name}: PDDLEnv needs backend='grounded' (a fixed action space needs every "
                             f"ground action), not {type(task).__name__}")
        self.atom_ids = [i for i in range(len(task.atoms)) if task.reachable[i]]
        self.atom_names = [task.render_atom(i) for i in self.atom_ids]
        self.actions: list[GroundAction] = task.sort_actions(task.actions)
        self.action_names = [task.render_action(a) for a in self.actions]
        status = session.goal_status()
        self.goal = tuple(sorted((*status.satisfied, *status.unsatisfied)))
        self.atom_column = np.full(len(task.atoms) + 1, -1, dtype=np.int64)
        self.action_column = np.full(len(task.actions), -1, dtype=np.int64)
        self.by_column: dict[int, GroundAction] = {}
        self.goal_columns = np.zeros(0, dtype=np.int64)

    def place(self, atom_index: dict[str, int], action_index: dict[str, int]) -> None:
        """Map this problem's atoms and actions to the universe columns."""
        for i, name in zip(self.atom_ids, self.atom_names, strict=True):
            self.atom_column[i] = atom_index[name]
        for action, name in zip(self.actions, self.action_names, strict=True):
            column = action_index[name]
            self.action_column[action.id] = column
            self.by_column[column] = action
        self.goal_columns = np.array(sorted(atom_index[g] for g in self.goal if g in atom_index), dtype=np.int64)

    def state_columns(self) -> np.ndarray:
        """The columns of the atoms that hold now (as observed)."""
        ids = np.fromiter(self.session.observe(), dtype=np.int64)
        columns = self.atom_column[ids]
        return columns[columns >= 0]

    def applicable_columns(self) -> np.ndarray:
        session = self.session
        ids = np.fromiter((a.id for a in session.task.applicable(session.state)), dtype=np.int64)
        return self.action_column[ids]


def _is_folder(problem: object) -> bool:
    return isinstance(problem, (str, os.PathLike)) and not (isinstance(problem, str) and is_pddl_text(problem)) \
        and Path(problem).is_dir()


def _problem_sources(problem: Any) -> list[tuple[str, Any]]:
    """(name, source) of each problem: one file or text, a folder's ``*.pddl``
    files (sorted), or a list of files or texts."""
    if _is_folder(problem):
        files = sorted(Path(problem).glob("*.pddl"))
        if not files:
            raise ValueError(f"the folder '{problem}' holds no .pddl problem files")
        return [(f.stem, f) for f in files]
    if isinstance(problem, (list, tuple)):
        if not problem:
            raise ValueError("the list of problems is empty")
        return [(_source_name(p, k), p) for k, p in enumerate(problem)]
    return [(_source_name(problem, 0), problem)]


def _source_name(source: Any, index: int) -> str:
    if isinstance(source, (str, bytes)) and is_pddl_text(source if isinstance(source, str) else source.decode()):
        return f"problem-{index}"
    return Path(source).stem


class PDDLEnv(gym.Env):  # type: ignore[type-arg]
    """A Gymnasium environment over one PDDL task or a set of problems of one
    domain (see the module docstring for the spaces, rewards and info).

    Give ``task`` (a bundled task such as ``"blocksworld/p02"``) or
    ``domain`` and ``problem``; ``problem`` may be a file, PDDL text, a
    folder of ``.pddl`` files or a list of files or texts: then each
    :meth:`reset` picks one with the environment's seeded generator
    (``options={"problem": name_or_index}`` picks one by hand). Every problem
    is grounded when the environment is made, so the spaces are fixed.
    ``session_options`` go to :func:`pypddlengine.open_session`
    (``heuristic``, ``observation`` rules, ``options`` ...)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}  # noqa: RUF012 (gymnasium's convention)

    def __init__(
        self,
        domain: Any = None,
        problem: Any = None,
        *,
        task: str | None = None,
        observation: str = "vector",
        action_mode: str = "discrete",
        reward: str = "step",
        goal_reward: float = 0.0,
        invalid_action_reward: float = -1.0,
        max_steps: int | None = 100,
        feedback: str = "progress",
        goal_in_observation: bool | None = None,
        render_mode: str | None = None,
        **session_options: Any,
    ) -> None:
        if observation not in OBSERVATIONS:
            raise ValueError(f"unknown observation '{observation}'; choose one of {', '.join(OBSERVATIONS)}")
        if action_mode not in ACTION_MODES:
            raise ValueError(f"unknown action_mode '{action_mode}'; choose one of {', '.join(ACTION_MODES)}")
        if reward not in REWARDS:
            raise ValueError(f"unknown reward '{reward}'; choose one of {', '.join(REWARDS)}")
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be at least 1 (or None for no limit)")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode '{render_mode}'; this environment renders "
                             f"{' or '.join(repr(m) for m in self.metadata['render_modes'])}")
        if task is not None:
            if domain is not None or problem is not None:
                raise TypeError("give either task= (a bundled task) or domain and problem, not both")
            domain, problem = bundled_task(task)
        elif domain is None or problem is None:
            raise TypeError("PDDLEnv needs task= (e.g. 'blocksworld/p01') or a domain and a problem")
        # the automatic backend, as sessions have: a task too large to ground is refused at once (the fixed
        # spaces need every ground action), not after grounding for minutes; backend="grounded" forces it
        session_options.setdefault("backend", "auto")
        sources = _problem_sources(problem)
        self.problems = [_Problem(name, open_session(domain, source, feedback=feedback,
                                                         temporal=False, **session_options))
                         for name, source in sources]
        # what a pickle holds to build the environment again (see __getstate__)
        self._pddl = (_text(domain, "domain"), [_text(source, "problem") for _, source in sources])
        self._made = {"observation": observation, "action_mode": action_mode, "reward": reward,
                      "goal_reward": goal_reward, "invalid_action_reward": invalid_action_reward,
                      "max_steps": max_steps, "feedback": feedback, "goal_in_observation": goal_in_observation,
                      "render_mode": render_mode, **session_options}
        names = [p.name for p in self.problems]
        if len(set(names)) != len(names):  # files of the same stem in a list: number them
            for k, p in enumerate(self.problems):
                p.name = f"{k}:{p.name}"
        self.observation_mode = observation
        self.action_mode = action_mode
        self.reward_mode = reward
        self.goal_reward = float(goal_reward)
        self.invalid_action_reward = float(invalid_action_reward)
        self.max_steps = max_steps
        self.render_mode = render_mode
        self.goal_in_observation = len(self.problems) > 1 if goal_in_observation is None else goal_in_observation

        self.atom_names: list[str] = sorted({n for p in self.problems for n in p.atom_names})
        """The atoms of the observation vector, in column order."""
        action_names: dict[str, None] = {}
        for p in self.problems:
            action_names.update(dict.fromkeys(p.action_names))
        self.action_names: list[str] = list(action_names)
        """The ground actions of the discrete action space, in index order."""
        if not self.action_names:
            raise ValueError("the task has no ground action that can ever apply, so there is nothing to act with")
        atom_index = {n: k for k, n in enumerate(self.atom_names)}
        self._action_index = {n: k for k, n in enumerate(self.action_names)}
        for p in self.problems:
            p.place(atom_index, self._action_index)

        texts = [*self.atom_names, *self.action_names, *(g for p in self.problems for g in p.goal)]
        charset = frozenset("".join(texts) + _FIXED_TEXT)
        goal_chars = max(sum(len(g) + 1 for g in p.goal) for p in self.problems)
        atom_chars = sum(len(a) + 1 for a in self.atom_names)
        n_atoms = len(self.atom_names)
        if observation == "vector":
            self.observation_space = spaces.MultiBinary(2 * n_atoms if self.goal_in_observation else n_atoms)
        elif observation == "atoms":
            width = max(len(t) for t in texts)
            item = spaces.Text(width, min_length=1, charset=charset)
            self.observation_space = spaces.Dict({"state": spaces.Sequence(item), "goal": spaces.Sequence(item)})
        else:
            self.observation_space = spaces.Text(goal_chars + atom_chars + 16, min_length=0, charset=charset)
        if action_mode == "discrete":
            self.action_space = spaces.Discrete(len(self.action_names))
        else:
            self.action_space = spaces.Text(max(len(a) for a in self.action_names), min_length=1, charset=charset)
        self._current = self.problems[0]
        self._steps = 0
        self._done = False
        self._terminated = False
        self._warned_after_terminated = False

    # ------------------------------------------------------------------ the gymnasium API

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        choice = (options or {}).get("problem")
        if choice is not None:
            self._current = self._pick(choice)
        elif len(self.problems) > 1:
            self._current = self.problems[int(self.np_random.integers(len(self.problems)))]
        self._current.session.reset()
        self._steps = 0
        self._done = False
        self._terminated = False
        session = self._current.session
        info: dict[str, Any] = {"problem": self._current.name, "step": 0, "goal_reached": session.is_goal()}
        if not session.is_goal() and not session.applicable_actions():
            info["termination"] = NO_APPLICABLE_ACTION  # the first step will end the episode
        info.update(_feedback_info(session.current_feedback()))
        return self._observe(), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        problem = self._current
        session = problem.session
        if self._terminated:  # Gymnasium's convention: undefined, so change nothing and warn once
            if not self._warned_after_terminated:
                gym.logger.warn("step() called after this episode terminated; call reset() first: the step "
                                "changes nothing and rewards 0")
                self._warned_after_terminated = True
            return self._observe(), 0.0, True, False, {"problem": problem.name, "step": self._steps,
                                                       "applied": False, "goal_reached": session.is_goal(),
                                                       "is_success": session.is_goal(), "after_terminated": True}
        before = session.state
        self._steps += 1
        result = self._execute(problem, action)
        info: dict[str, Any] = {"problem": problem.name, "step": self._steps, "action": result.action,
                                "applied": result.success, "goal_reached": result.goal_reached}
        if result.success:
            cost = 1.0 if self.reward_mode == "step" else _as_float(session.history[-1].action.step_cost(before))
            reward = -cost
        else:
            reward = self.invalid_action_reward
            failure = result.failure
            assert failure is not None
            info["failure"] = {"code": str(failure.code), "message": failure.message,
                               "unsatisfied": failure.unsatisfied, "suggestions": failure.suggestions,
                               "hints": failure.hints}
        terminated = result.goal_reached
        if terminated and result.success:
            reward += self.goal_reward
        info["is_success"] = terminated
        info.update(_feedback_info(result.feedback))
        if terminated:
            info["termination"] = "goal"
        elif not session.applicable_actions():  # a dead end no action leaves: masks would be all false
            terminated = True
            info["termination"] = NO_APPLICABLE_ACTION
        truncated = not terminated and self.max_steps is not None and self._steps >= self.max_steps
        self._done = terminated or truncated
        self._terminated = terminated
        return self._observe(), float(reward), bool(terminated), bool(truncated), info

    def render(self) -> Any:
        if self.render_mode not in ("ansi", "rgb_array"):
            return None
        session = self._current.session
        text = (f"problem {self._current.name}, step {self._steps}\n{self._text()}\n"
                f"applicable: {' '.join(session.applicable_names()) or 'none'}\n")
        return text if self.render_mode == "ansi" else text_image(text)

    # ------------------------------------------------------------------ pickling

    def __getstate__(self) -> dict[str, Any]:
        """The PDDL text, the options and the episode: no grounded task (it
        holds generated code that does not pickle)."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("problems", "_current")}
        state["_problem_names"] = self.problem_names
        state["_episode"] = (self.problems.index(self._current), self._current.session.plan())
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        domain, problems = state["_pddl"]
        made = dict(state["_made"])
        PDDLEnv.__init__(self, domain, problems if len(problems) > 1 else problems[0], **made)
        for p, name in zip(self.problems, state.pop("_problem_names"), strict=True):
            p.name = name
        current, plan = state.pop("_episode")
        self.__dict__.update(state)
        self._current = self.problems[current]
        for text in plan:
            if not self._current.session.execute(text).success:  # pragma: no cover - the same task and state
                raise RuntimeError(f"unpickling could not replay '{text}'")

    # ------------------------------------------------------------------ helpers for agents

    def action_masks(self) -> np.ndarray:
        """A boolean mask over :attr:`action_names`: true for the actions
        applicable now (sb3-contrib's MaskablePPO reads this method)."""
        mask = np.zeros(len(self.action_names), dtype=bool)
        mask[self._current.applicable_columns()] = True
        return mask

    def valid_actions(self) -> list[str]:
        """The actions applicable now, as PDDL text."""
        return self._current.session.applicable_names()

    def action_index(self, action: str) -> int:
        """The discrete index of a ground action's text (``KeyError`` when
        the action can never apply in this environment's problems)."""
        session = self._current.session
        ground = session.resolve(action)
        name = session.task.render_action(ground) if ground is not None else action
        return self._action_index[name]

    @property
    def session(self) -> Session:
        """The engine session of the current episode (for inspection; stepping
        it directly bypasses the environment's step count)."""
        return self._current.session

    @property
    def problem_names(self) -> list[str]:
        return [p.name for p in self.problems]

    # ------------------------------------------------------------------ internals

    def _pick(self, choice: str | SupportsInt) -> _Problem:
        if isinstance(choice, str):
            for p in self.problems:
                if p.name == choice:
                    return p
            raise ValueError(f"no problem '{choice}' in this environment; it has {', '.join(self.problem_names)}")
        index = int(choice)
        if not 0 <= index < len(self.problems):
            raise ValueError(f"problem index {index} is out of range 0..{len(self.problems) - 1}")
        return self.problems[index]

    def _execute(self, problem: _Problem, action: Any) -> StepResult:
        session = problem.session
        if isinstance(action, bytes):
            try:
                action = action.decode()
            except UnicodeDecodeError:
                return _rejected(session, repr(action), "an action text must be UTF-8")
        if isinstance(action, str):
            return session.execute(action)
        try:
            index = operator.index(action)  # ints and numpy integers (0-d arrays too), not floats
        except TypeError:
            return _rejected(session, repr(action), f"an action is an index or PDDL text, not {type(action).__name__}")
        ground = problem.by_column.get(index)
        if ground is None:
            if 0 <= index < len(self.action_names):
                return _rejected(session, self.action_names[index],
                                 f"'{self.action_names[index]}' does not exist in problem {problem.name}")
            return _rejected(session, str(index), f"action index {index} is outside 0..{len(self.action_names) - 1}")
        return session.execute(ground)

    def _observe(self) -> Any:
        problem = self._current
        if self.observation_mode == "vector":
            n = len(self.atom_names)
            obs = np.zeros(2 * n if self.goal_in_observation else n, dtype=np.int8)
            obs[problem.state_columns()] = 1
            if self.goal_in_observation:
                obs[n + problem.goal_columns] = 1
            return obs
        if self.observation_mode == "atoms":
            return {"state": tuple(problem.session.state_atoms()), "goal": problem.goal}
        return self._text()

    def _text(self) -> str:
        problem = self._current
        return f"goal: {' '.join(problem.goal)}\nstate: {' '.join(problem.session.state_atoms())}"


NO_APPLICABLE_ACTION = "no applicable action"
"""``info["termination"]`` when an episode ends in a state where no action applies."""


def _text(source: Any, kind: str) -> str | bytes:
    """The PDDL text of a file or text source (what a pickle keeps)."""
    return read_source(source, kind)[0]


def _rejected(session: Session, text: str, message: str) -> StepResult:
    """A failed step for an action index the environment cannot map to a
    ground action of the current problem (nothing changes)."""
    return StepResult(success=False, action=text, state=session.state, goal_reached=session.is_goal(),
                      step=len(session.history), failure=Failure(ErrorCode.UNKNOWN_ACTION, message),
                      feedback=session.current_feedback())


def _feedback_info(feedback: Any) -> dict[str, Any]:
    """The engine's feedback as plain info entries (none below ``progress``)."""
    if feedback is None:
        return {}
    info: dict[str, Any] = {}
    if feedback.goals is not None:
        info["goals_satisfied"] = len(feedback.goals.satisfied)
        info["goals_total"] = feedback.goals.total
        info["unsatisfied_goals"] = feedback.goals.unsatisfied
    if feedback.heuristic is not None:
        info["heuristic"] = feedback.heuristic
        info["distance"] = feedback.distance
        info["distance_change"] = feedback.distance_change
        info["dead_end"] = feedback.dead_end
    if feedback.notes:
        info["notes"] = feedback.notes
    if feedback.relaxed_plan:
        info["relaxed_plan"] = feedback.relaxed_plan
    if feedback.revisited_step is not None:
        info["revisited_step"] = feedback.revisited_step
    return info


# ---------------------------------------------------------------------------- rgb_array rendering

# A 3x5 bitmap font drawn for this module (rows top to bottom, "#" is ink).
# Letters are drawn as capitals; PDDL names are case-insensitive, and a
# character without a glyph is drawn as a full block.
_GLYPHS = {
    "a": "###|#.#|###|#.#|#.#", "b": "##.|#.#|##.|#.#|##.", "c": "###|#..|#..|#..|###", "d": "##.|#.#|#.#|#.#|##.",
    "e": "###|#..|##.|#..|###", "f": "###|#..|##.|#..|#..", "g": "###|#..|#.#|#.#|###", "h": "#.#|#.#|###|#.#|#.#",
    "i": "###|.#.|.#.|.#.|###", "j": "..#|..#|..#|#.#|###", "k": "#.#|#.#|##.|#.#|#.#", "l": "#..|#..|#..|#..|###",
    "m": "#.#|###|###|#.#|#.#", "n": "##.|#.#|#.#|#.#|#.#", "o": "###|#.#|#.#|#.#|###", "p": "###|#.#|###|#..|#..",
    "q": "###|#.#|#.#|###|..#", "r": "##.|#.#|##.|#.#|#.#", "s": "###|#..|###|..#|###", "t": "###|.#.|.#.|.#.|.#.",
    "u": "#.#|#.#|#.#|#.#|###", "v": "#.#|#.#|#.#|#.#|.#.", "w": "#.#|#.#|###|###|#.#", "x": "#.#|#.#|.#.|#.#|#.#",
    "y": "#.#|#.#|.#.|.#.|.#.", "z": "###|..#|.#.|#..|###",
    "0": ".#.|#.#|#.#|#.#|.#.", "1": ".#.|##.|.#.|.#.|###", "2": "##.|..#|.#.|#..|###", "3": "##.|..#|.#.|..#|##.",
    "4": "#.#|#.#|###|..#|..#", "5": "###|#..|##.|..#|##.", "6": ".##|#..|###|#.#|###", "7": "###|..#|.#.|.#.|.#.",
    "8": "###|#.#|###|#.#|###", "9": "###|#.#|###|..#|##.",
    "(": ".#.|#..|#..|#..|.#.", ")": ".#.|..#|..#|..#|.#.", "-": "...|...|###|...|...", "_": "...|...|...|...|###",
    ":": "...|.#.|...|.#.|...", ",": "...|...|...|.#.|#..", ".": "...|...|...|...|.#.", "/": "..#|..#|.#.|#..|#..",
    "=": "...|###|...|###|...", "?": "##.|..#|.#.|...|.#.", "!": ".#.|.#.|.#.|...|.#.", "+": "...|.#.|###|.#.|...",
    "<": "..#|.#.|#..|.#.|..#", ">": "#..|.#.|..#|.#.|#..", "*": "#.#|.#.|#.#|...|...", " ": "...|...|...|...|...",
}
_COLUMNS, _LINES, _SCALE = 96, 48, 2
"""The image holds 48 lines of 96 characters, each in a 4x6 cell scaled by 2."""


def _glyph(char: str) -> np.ndarray:
    rows = _GLYPHS.get(char.lower(), "###|###|###|###|###").split("|")
    cell = np.zeros((6, 4), dtype=bool)
    cell[:5, :3] = [[c == "#" for c in row] for row in rows]
    return cell


_CELLS = {c: _glyph(c) for c in _GLYPHS}


def text_lines(text: str, columns: int = _COLUMNS, lines: int = _LINES) -> list[str]:
    """``text`` wrapped at ``columns`` (at spaces where it can), at most
    ``lines`` lines; a cut is marked with ``...``."""
    out: list[str] = []
    for paragraph in text.splitlines():
        line = ""
        for word in paragraph.split(" "):
            while len(word) > columns:  # a word longer than a line is split
                if line:
                    out.append(line)
                    line = ""
                out.append(word[:columns])
                word = word[columns:]
            if line and len(line) + 1 + len(word) > columns:
                out.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        out.append(line)
    if len(out) > lines:
        out = [*out[:lines - 1], out[lines - 1][:columns - 3] + "..."]
    return out


def text_image(text: str) -> np.ndarray:
    """``text`` drawn black on white into a ``(576, 768, 3)`` ``uint8`` image."""
    ink = np.zeros((_LINES * 6, _COLUMNS * 4), dtype=bool)
    blank = _CELLS[" "]
    for row, line in enumerate(text_lines(text)):
        for col, char in enumerate(line):
            cell = _CELLS.get(char.lower())
            if cell is None:
                cell = _glyph(char)
            if cell is not blank:
                ink[row * 6:row * 6 + 6, col * 4:col * 4 + 4] = cell
    ink = ink.repeat(_SCALE, axis=0).repeat(_SCALE, axis=1)
    image = np.full((*ink.shape, 3), 255, dtype=np.uint8)
    image[ink] = 0
    return image


# ---------------------------------------------------------------------------- registration


def task_env_id(task: str) -> str:
    """The registered id of a bundled task: ``blocksworld/p02`` ->
    ``pypddlengine/blocksworld-p02-v0``."""
    return f"pypddlengine/{task.replace('/', '-')}-v0"


def register_envs(tasks: Iterable[str] | None = None) -> list[str]:
    """Register :data:`ENV_ID` and one id per bundled task with Gymnasium
    (done on import; calling again is harmless). Returns the task ids."""
    if ENV_ID not in gym.registry:
        gym.register(id=ENV_ID, entry_point="pypddlengine.gym:PDDLEnv")
    ids = []
    for task in bundled_tasks() if tasks is None else tasks:
        env_id = task_env_id(task)
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="pypddlengine.gym:PDDLEnv", kwargs={"task": task})
        ids.append(env_id)
    return ids


register_envs()


def _as_float(cost: Any) -> float:
    """A step's cost as a reward's float: an infinity when no double holds it."""
    try:
        return float(cost)
    except OverflowError:
        return float("inf")
