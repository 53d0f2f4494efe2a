"""Scripted models for the fake model server (tests only).

Both scripts find the task they are asked about in the request (the problem
text for the direct approach, the problem file path for the agentic one),
look up its lama-first plan in the corpus and answer according to a
per-instance *behaviour*. They are stateless where they can be (the agent
reads its progress from the tool results in the conversation), so the same
script works through either provider's wire format.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from fake_server import FakeModelServer, FakeRequest, Reply

from pypddl_experiments.llm.clock import FakeClock


def lama_plan(blocks: Path, instance: str) -> list[str]:
    text = (blocks / "plans-lama-first" / f"{instance}.plan").read_text()
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("(")]


def usage_for(n: int) -> dict[str, int]:
    """Usage that grows with the conversation, with some cached input."""
    return {"input": 400 + 50 * n, "cache_read": 100 if n else 0, "cache_write": 20 if n == 0 else 0, "output": 30}


class _Script:
    def __init__(self, blocks: Path, behaviours: dict[str, str], *, clock: FakeClock | None = None,
                 step_s: float = 5.0) -> None:
        self.blocks = blocks
        self.behaviours = behaviours
        self.clock = clock  # advanced by step_s per request: each model call "takes" that long
        self.step_s = step_s


class DirectScript(_Script):
    """Behaviours: ``oracle`` (plan in a fenced block), ``prose`` (a numbered
    list in prose, no fence), ``second`` (a wrong plan, then the right one),
    ``never`` (always an inapplicable plan), ``garbage`` (no plan at all),
    ``rate_limit`` (HTTP 429 with retry-after 1, then the plan)."""

    def __init__(self, blocks: Path, behaviours: dict[str, str], **kw: Any) -> None:
        super().__init__(blocks, behaviours, **kw)
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._texts = {p.stem: p.read_text() for p in blocks.glob("instance-*.pddl") if p.stem in behaviours}

    def instance(self, request: FakeRequest) -> str:
        text = request.user_text()
        for name, problem in self._texts.items():
            if problem in text:
                return name
        raise LookupError("no known problem in the prompt")

    def __call__(self, request: FakeRequest) -> Reply:
        name = self.instance(request)
        with self._lock:
            self.calls[name] += 1
            n = self.calls[name]
        if self.clock is not None:
            self.clock.advance(self.step_s)
        plan = lama_plan(self.blocks, name)
        kind = self.behaviours[name]
        usage = {"input": 1500, "cache_read": 0, "output": 12 * len(plan)}
        fenced = "Here is the plan.\n\n```plan\n" + "\n".join(plan) + "\n```\n"
        if kind == "oracle":
            return Reply(text=fenced, usage=usage)
        if kind == "prose":
            steps = "\n".join(f"{i}. {a[1:-1].upper()}" for i, a in enumerate(plan, 1))
            return Reply(text=f"Let me think about the towers first.\n\nPlan:\n{steps}\n\nThis reaches the goal.",
                         usage=usage)
        if kind == "second":
            return Reply(text=fenced if n >= 2 else "```plan\n" + "\n".join(plan[1:]) + "\n```", usage=usage)
        if kind == "never":
            return Reply(text="```plan\n" + "\n".join(reversed(plan)) + "\n```", usage=usage)
        if kind == "garbage":
            return Reply(text="I am not able to produce a plan for this problem.", usage=usage)
        if kind == "rate_limit":
            if n == 1:
                return Reply(status=429, error_message="rate limited (scripted)", headers={"retry-after": "1"})
            return Reply(text=fenced, usage=usage)
        raise ValueError(kind)


END = "end"


class AgentScript(_Script):
    """Behaviours: ``oracle`` (initialise, execute the lama-first plan one
    action per turn, validate it), ``history`` (validate without a plan:
    the session's history), ``one_line`` / ``val_format`` (validate the plan
    as one line of text / in VAL's ``N: (action) [1]`` format),
    ``malformed`` (one call with broken JSON arguments and one with an
    unknown tool, then the oracle), ``illegal_then_reset`` (an inapplicable
    action, a reset, then the oracle), ``early_exit`` (gives up in prose,
    saying the task cannot be solved, after initialising), ``stopped``
    (stops after initialising, saying nothing of the kind),
    ``goal_unvalidated`` (executes the plan, says it is done, never
    validates), ``invalid_then_stop`` (validates a wrong plan, is told it is
    invalid, stops), ``endless`` (queries the state forever),
    ``wrong_problem`` (opens a session on another problem's PDDL text and
    validates a plan for it), ``peek`` (tries to open the lama-first plan
    file of its task as the problem, then plays the oracle)."""

    def instance(self, request: FakeRequest) -> tuple[str, str, str]:
        """The task's name and the domain and problem as the prompt names
        them (file names, which the server resolves to the task's files)."""
        m = re.search(r"Problem \(file (.+?)\)", request.user_text())
        d = re.search(r"Domain \(file (.+?)\)", request.user_text())
        if not m or not d:
            raise LookupError("no problem file in the prompt")
        return Path(m.group(1)).stem, d.group(1), m.group(1)

    def sequence(self, name: str, domain: str, problem: str, sid: str | None) -> list[Any]:
        kind = self.behaviours[name]
        plan = lama_plan(self.blocks, name)
        init = ("initialise_session", {"domain": domain, "problem": problem})
        execs = [("execute_single_action", {"session_id": sid, "action": a}) for a in plan]
        validate = ("validate_complete_plan", {"session_id": sid, "plan": plan})
        done = (END, "The goal is reached and the plan is validated.")
        if kind == "oracle":
            return [init, *execs, validate, done]
        if kind == "history":
            return [init, *execs, ("validate_complete_plan", {"session_id": sid}), done]
        if kind == "malformed":
            broken = ("execute_single_action", '{"session_id": "' + str(sid) + '", "action": "(pick-up')
            return [init, broken, ("teleport", {"block": "a"}), *execs, validate, done]
        if kind == "illegal_then_reset":
            first = plan[0][1:-1].split()[1]
            illegal = ("execute_single_action", {"session_id": sid, "action": f"(put-down {first})"})
            return [init, illegal, ("reset_to_initial_state", {"session_id": sid}), *execs, validate, done]
        if kind == "one_line":
            return [init, *execs, ("validate_complete_plan", {"session_id": sid, "plan": " ".join(plan)}), done]
        if kind == "val_format":
            text = "\n".join(f"{i}: {a} [1]" for i, a in enumerate(plan)) + f"\n; cost = {len(plan)} (unit cost)"
            return [init, *execs, ("validate_complete_plan", {"session_id": sid, "plan": text}), done]
        if kind == "early_exit":
            return [init, (END, "After looking at the state, I believe this problem cannot be solved.")]
        if kind == "stopped":
            return [init, (END, "Let me look at the blocks first.")]
        if kind == "goal_unvalidated":
            return [init, *execs, (END, "All blocks are where they belong; done.")]
        if kind == "invalid_then_stop":
            return [init, ("validate_complete_plan", {"session_id": sid, "plan": plan[1:]}),
                    (END, "My plan was rejected and I have run out of ideas.")]
        if kind == "peek":
            secret = str(self.blocks / "plans-lama-first" / f"{name}.plan")
            return [("initialise_session", {"domain": domain, "problem": secret}), init, *execs, validate, done]
        if kind == "endless":
            return [init] + [("query_current_state", {"session_id": sid})] * 100_000
        if kind == "wrong_problem":
            other = "instance-1" if name != "instance-1" else "instance-2"
            other_plan = lama_plan(self.blocks, other)
            wrong = ("initialise_session", {"domain": domain, "problem": (self.blocks / f"{other}.pddl").read_text()})
            return [wrong, ("validate_complete_plan", {"session_id": sid, "plan": other_plan}),
                    (END, "The plan is valid, I am done.")]
        raise ValueError(kind)

    def __call__(self, request: FakeRequest) -> Reply:
        if self.clock is not None:
            self.clock.advance(self.step_s)
        name, domain, problem = self.instance(request)
        results = request.tool_results()
        sid = None
        for result in results:  # the first session opened
            try:
                sid = json.loads(result["text"])["session_id"]
                break
            except (ValueError, KeyError, TypeError):
                continue
        step = self.sequence(name, domain, problem, sid)[len(results)]
        usage = usage_for(len(results))
        if step[0] == END:
            return Reply(text=step[1], usage=usage)
        tool, args = step
        thought = "Next step." if len(results) % 3 == 0 else ""
        if isinstance(args, str):
            return Reply(text=thought, tool_calls=[{"name": tool, "raw_arguments": args}], usage=usage)
        return Reply(text=thought, tool_calls=[{"name": tool, "args": args}], usage=usage)


def run_with_fake_server(
    script: Any, provider_name: str, config: Any, tasks: list[Any], out: Path, *, clock: FakeClock | None = None,
) -> tuple[list[dict[str, Any]], FakeModelServer]:
    """Run an experiment whose model is ``script`` behind the fake server,
    reached through the real SDK of ``provider_name``; with ``clock`` the
    budget and the waits after rate limits run on that fake clock."""
    import anyio

    from pypddl_experiments.llm.providers import create_provider
    from pypddl_experiments.llm.records import ResultsStore
    from pypddl_experiments.llm.runner import run_experiment

    async def main(server: FakeModelServer) -> list[dict[str, Any]]:
        url = server.anthropic_base_url if provider_name == "anthropic" else server.openai_base_url
        provider = create_provider(provider_name, "scripted-model", base_url=url)
        kwargs: dict[str, Any] = {}
        if clock is not None:
            async def sleep(seconds: float) -> None:
                clock.advance(seconds)

            kwargs = {"clock": clock, "sleep": sleep}
        try:
            summary = await run_experiment(config, tasks, ResultsStore(out), provider, **kwargs)
        finally:
            await provider.aclose()
        return summary.records

    with FakeModelServer(script) as server:
        records = anyio.run(main, server)
    return records, server


def write_records(folder: Path, records: list[dict[str, Any]]) -> Path:
    """A results folder holding ``records`` as its ``runs.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return folder


def csv_rows(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open() as fh:
        return list(csv.DictReader(fh))
