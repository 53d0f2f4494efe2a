"""In-process providers without a network: scripted turns, replay of a
recorded trace, and an offline stand-in for a model that plays plans.

:class:`OfflinePlanner` (``--provider offline``) lets the whole experiment
pipeline (run, report, replay) be tried without an API key. It is not a
language model: it reads the domain and problem from the prompt, takes a
plan from recorded plans when it has one for that problem text, else finds
one with a greedy best-first search on h_FF, and answers as a model would
(direct: the plan in a fenced block; agentic: one tool call a turn).
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import json
import math
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pypddlengine.mcp_server.names import EXECUTE, INITIALISE, VALIDATE

from .clock import FakeClock
from .types import CallParams, Msg, ProviderError, ToolCall, ToolSpec, Turn, Usage

__all__ = ["OfflinePlanner", "ReplayProvider", "ScriptedProvider", "greedy_plan", "load_trace", "problem_key",
           "recorded_plans"]

Script = Callable[[list[Msg], list[ToolSpec], CallParams], Turn]


class _Offline:
    name = "offline"
    model = "offline"

    def describe(self) -> dict[str, Any]:
        return {"provider": self.name, "model": self.model}

    async def aclose(self) -> None:
        pass


class ScriptedProvider(_Offline):
    """Plays ``script``: a list of :class:`Turn` (or :class:`ProviderError`
    to raise) used in order, or a function of the conversation returning the
    next turn. ``latency_s`` advances ``clock`` (a :class:`FakeClock`) per call."""

    name = "scripted"

    def __init__(
        self,
        script: list[Turn | ProviderError] | Script,
        *,
        model: str = "scripted",
        clock: FakeClock | None = None,
        latency_s: float = 0.0,
    ) -> None:
        self.model = model
        self._script = script
        self._clock = clock
        self._latency = latency_s
        self.requests: list[tuple[list[Msg], list[ToolSpec], CallParams, float]] = []

    async def complete(
        self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams, timeout_s: float
    ) -> Turn:
        self.requests.append((list(conversation), list(tools), params, timeout_s))
        if self._clock is not None and self._latency:
            if self._latency >= timeout_s:
                self._clock.advance(timeout_s)
                raise ProviderError("timeout", "scripted reply slower than the remaining budget")
            self._clock.advance(self._latency)
        if callable(self._script):
            step: Turn | ProviderError = self._script(conversation, tools, params)
        else:
            index = len(self.requests) - 1
            if index >= len(self._script):
                raise ProviderError("api_error", f"the script has only {len(self._script)} turn(s)")
            step = self._script[index]
        if isinstance(step, ProviderError):
            raise step
        return step


def load_trace(path: Path | str) -> list[dict[str, Any]]:
    with Path(path).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


class ReplayProvider(_Offline):
    """Gives back the turns (and errors) of a recorded trace, in order.

    With a :class:`FakeClock` it also sets the time each call ended, so the
    replayed run meets its deadline where the recorded one did. When the
    recorded turns run out, the recorded run was cut off by its budget, and
    so is the replay."""

    name = "replay"

    def __init__(self, events: list[dict[str, Any]], *, clock: FakeClock | None = None, start: float = 0.0,
                 budget_s: float | None = None) -> None:
        self._calls = [e for e in events if e.get("type") == "llm_call"]
        self._clock = clock
        self._start = start
        self._budget = budget_s
        self._next = 0
        self.model = next((e["turn"].get("model_reported") for e in self._calls if e.get("turn")), None) or "replay"

    async def complete(
        self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams, timeout_s: float
    ) -> Turn:
        if self._next >= len(self._calls):
            if self._clock is not None and self._budget is not None:
                self._clock.now = self._start + self._budget
            raise ProviderError("timeout", "replay: the recorded run ended here (budget exhausted)")
        event = self._calls[self._next]
        self._next += 1
        if self._clock is not None:
            self._clock.now = max(self._clock.now, self._start + float(event.get("t", 0.0)))
        if event.get("error"):
            raise ProviderError.from_dict(event["error"])
        return Turn.from_dict(event["turn"])


# ----------------------------------------------------------------------------- the offline planner stand-in

SEARCH_STATES = 100_000
"""States the offline planner's greedy search may expand before it gives up."""

_PDDL_BLOCK = re.compile(r"```pddl\n(.*?)\n```", re.S)
_FILE_NAMES = re.compile(r"Domain \(file (?P<domain>.+?)\):.*?Problem \(file (?P<problem>.+?)\):", re.S)
_OPEN_SESSION = re.compile(r"already open: session_id (\S+?)\.?$", re.M)
_SESSION_ID = re.compile(r'"session_id"\s*:\s*"([^"]+)"')


def problem_key(problem_text: str) -> str:
    """The key under which a plan for a problem text is kept: the SHA-256 of
    the text without leading and trailing white space."""
    return hashlib.sha256(problem_text.strip().encode("utf-8")).hexdigest()


def greedy_plan(domain_text: str, problem_text: str, max_states: int = SEARCH_STATES,
                max_seconds: float = math.inf) -> tuple[list[str] | None, bool]:
    """A plan found by lazy greedy best-first search on h_FF (a state is
    evaluated when it is expanded; successors by the actions of its relaxed
    plan go first), and whether the search proved that there is none (it
    expanded every state reachable from the initial state that h_FF does not
    prove a dead end). ``(None, False)``: no plan within ``max_states``
    expansions or ``max_seconds``."""
    from pypddlengine.grounding import ground
    from pypddlengine.heuristics import relaxed_task
    from pypddlengine.loading import load_task

    task = ground(load_task(domain_text, problem_text))
    relaxed = relaxed_task(task)
    parent: dict[Any, tuple[Any, Any] | None] = {task.init: None}
    tie = itertools.count()
    frontier: list[tuple[float, int, int, Any]] = [(0.0, 0, next(tie), task.init)]
    goal = None
    expanded = 0
    deadline = time.monotonic() + max_seconds
    while frontier and expanded < max_states and (expanded % 64 or time.monotonic() < deadline):
        _, _, _, state = heapq.heappop(frontier)
        if task.is_goal(state):
            goal = state
            break
        evaluation = relaxed.evaluate(state)
        if math.isinf(evaluation.h_ff):  # h_FF is safe: an infinite value proves a dead end
            continue
        expanded += 1
        helpful = set(relaxed.actions(evaluation.relaxed_plan))
        for action in task.applicable(state):
            succ = action.apply(state)
            if succ not in parent:
                parent[succ] = (state, action)
                heapq.heappush(frontier, (evaluation.h_ff, action not in helpful, next(tie), succ))
    if goal is None:
        return None, not frontier
    steps = []
    node = parent[goal]
    while node is not None:
        prev, action = node
        steps.append(task.render_action(action))
        node = parent[prev]
    return steps[::-1], False


def recorded_plans(source: Path | str, tasks: list[Any]) -> dict[str, list[str]]:
    """Plans for ``tasks`` (:class:`~.tasks.TaskSpec`) from ``source``, keyed
    by :func:`problem_key`: a folder of ``<instance_id>.plan`` files (IPC/VAL
    format), or a ``runs.jsonl`` (or a results folder holding one) whose
    records carry plans, matched by problem SHA-256 or else instance id (the
    shortest valid plan of a task when several are recorded)."""
    from pypddlengine.syntax import parse_plan

    path = Path(source)
    out: dict[str, list[str]] = {}
    if path.is_dir() and not (path / "runs.jsonl").is_file():
        for task in tasks:
            plan_file = path / f"{task.instance_id}.plan"
            if plan_file.is_file():
                out[problem_key(task.problem_text)] = [str(s) for s in parse_plan(plan_file.read_text(),
                                                                                  filename=str(plan_file)).steps]
        return out
    runs = path / "runs.jsonl" if path.is_dir() else path
    if not runs.is_file():
        raise FileNotFoundError(f"no plan files or run records at {source}")
    best: dict[str, list[str]] = {}
    with runs.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            record = json.loads(line)
            plan = record.get("plan")
            if record.get("plan_valid") is not True or not plan:
                continue
            for key in (f"sha256:{record.get('problem_sha256')}", f"id:{record.get('instance_id')}"):
                if key not in best or len(plan) < len(best[key]):
                    best[key] = list(plan)
    for task in tasks:
        plan = best.get(f"sha256:{task.problem_sha256}") or best.get(f"id:{task.instance_id}")
        if plan:
            out[problem_key(task.problem_text)] = plan
    return out


def _text_turn(text: str) -> Turn:
    return Turn(text=text, stop="end", usage=Usage(0, 0, 0, 0, 0, None, reported=True), model_reported="offline")


def _call_turn(n: int, name: str, args: dict[str, Any]) -> Turn:
    call = ToolCall(f"offline-{n}", name, args, json.dumps(args))
    return Turn(tool_calls=[call], stop="tool", usage=Usage(0, 0, 0, 0, 0, None, reported=True),
                model_reported="offline")


class OfflinePlanner(_Offline):
    """A stand-in for a model that needs no network and no key (see the
    module docstring). Its plan for a task comes from ``plans`` (built by
    :func:`recorded_plans`, keyed by :func:`problem_key`) when it holds one
    for the problem text in the prompt, else from :func:`greedy_plan`.
    Without a plan, an agentic run ends with its words (read as the task
    declared unsolvable when the search proved it, else as a plain stop) and
    a direct run as a timeout (a search cut by the budget too), at once.
    Its turns report zero tokens."""

    name = "offline"

    def __init__(self, plans: dict[str, list[str]] | None = None, *, source: str | None = None,
                 max_states: int = SEARCH_STATES) -> None:
        self.model = "offline"
        self._plans = dict(plans or {})
        self._source = source
        self._max_states = max_states
        self._found: dict[str, tuple[list[str] | None, str]] = {}

    def describe(self) -> dict[str, Any]:
        return {"provider": self.name, "model": self.model, "plans": self._source,
                "search": f"greedy best-first on h_FF, at most {self._max_states:,} states"}

    def _plan(self, domain: str, problem: str, seconds: float) -> tuple[list[str] | None, str]:
        key = problem_key(problem)
        if key in self._plans:
            return self._plans[key], f"a recorded plan ({self._source})"
        if key in self._found:
            return self._found[key]
        started = time.monotonic()
        plan, proved = greedy_plan(domain, problem, self._max_states, seconds)
        if plan is not None:
            found = (plan, "greedy best-first search on h_FF")
        elif proved:
            found = (None, "this problem is unsolvable: the search proved that no plan exists")
        elif time.monotonic() - started >= seconds:  # not kept: a later call may have more time
            raise ProviderError("timeout", f"offline: no plan found within the remaining {seconds:.1f} s")
        else:
            found = (None, f"I found no plan within {self._max_states:,} states")
        self._found[key] = found
        return found

    async def complete(
        self, conversation: list[Msg], tools: list[ToolSpec], params: CallParams, timeout_s: float
    ) -> Turn:
        prompt = next((m.text for m in conversation if m.role == "user"), "")
        blocks = _PDDL_BLOCK.findall(prompt)
        if len(blocks) < 2:
            raise ProviderError("bad_request", "offline: the prompt holds no domain and problem in ```pddl blocks")
        import anyio

        plan, how = await anyio.to_thread.run_sync(self._plan, blocks[0], blocks[1], timeout_s)
        if not tools:  # the direct approach: the whole plan in one reply
            if plan is None:  # asking again cannot help: the run ends as a model that never answers would
                raise ProviderError("timeout", f"offline: no plan: {how}")
            return _text_turn(f"Plan from {how}.\n\n```plan\n" + "\n".join(plan) + "\n```\n")
        return self._agent_turn(conversation, prompt, plan, how)

    def _agent_turn(self, conversation: list[Msg], prompt: str, plan: list[str] | None, how: str) -> Turn:
        """Initialise (unless the harness did), execute the plan one action a
        turn, validate it, all read back from the conversation so far."""
        turns = sum(1 for m in conversation if m.role == "assistant")
        if plan is None:
            return _text_turn(f"No plan: {how}.")
        opened = _OPEN_SESSION.search(prompt)
        steps: list[tuple[str, dict[str, Any]]] = []
        if opened is None:
            files = _FILE_NAMES.search(prompt)
            names = {"domain": files["domain"], "problem": files["problem"]} if files else {}
            steps.append((INITIALISE, names))
        session_id = opened.group(1) if opened else self._session_from(conversation)
        steps += [(EXECUTE, {"action": a}) for a in plan]
        steps.append((VALIDATE, {"plan": list(plan)}))
        if turns >= len(steps):
            return _text_turn("The plan was not confirmed; I stop here.")
        name, args = steps[turns]
        if name != INITIALISE:
            args = {"session_id": session_id or "", **args}
        return _call_turn(turns, name, args)

    @staticmethod
    def _session_from(conversation: list[Msg]) -> str | None:
        for message in conversation:
            for result in message.results:
                if result.name == INITIALISE and not result.is_error:
                    found = _SESSION_ID.search(result.text)
                    if found:
                        return found.group(1)
        return None
