"""Undo, checkpoints and loop detection against a naive replay model.

Random sequences of execute / undo / save / restore / delete / reset on a
session must leave exactly the state and history that a fresh session gets by
executing the model's plan from the initial state, and the loop signal must be
the first step of that replay whose state equals the current one."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from pypddlengine import Session
from pypddlengine.bundled import bundled_task
from pypddlengine.errors import CheckpointError, ErrorCode

DOMAIN, PROBLEM = bundled_task("blocksworld/p02")
NAMES = ("a", "b", "c")
REPLAY_TASK = Session(DOMAIN, PROBLEM).task  # grounded once, replayed by fresh sessions


def replay(plan: list[str]) -> list[frozenset[int]]:
    """The states after each step of ``plan`` from the initial state (0: initial), by forward execution only."""
    fresh = Session(REPLAY_TASK)
    states = [fresh.state]
    for action in plan:
        assert fresh.execute(action).success, action
        states.append(fresh.state)
    return states


class CheckpointMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.session = Session(DOMAIN, PROBLEM, detect_loops=True)
        self.plan: list[str] = []
        self.saved: dict[str, list[str]] = {}
        self.revisits: list[tuple[int, int | None]] = []  # (step, revisited_step) of the last execute burst

    @rule(picks=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=6))
    def execute(self, picks: list[int]) -> None:
        for pick in picks:  # bursts, so that histories grow past what undo and reset take away
            actions = self.session.applicable_names()
            action = actions[pick % len(actions)]
            r = self.session.execute(action)
            assert r.success and r.step == len(self.plan) + 1
            self.plan.append(action)
            self.revisits.append((r.step, r.feedback.revisited_step))

    @rule()
    def execute_inapplicable(self) -> None:
        before = (self.session.state, self.session.history)
        r = self.session.execute("(stack nosuch block)")
        assert not r.success and (self.session.state, self.session.history) == before

    @rule(n=st.integers(min_value=0, max_value=5))
    def undo(self, n: int) -> None:
        done = self.session.undo(n)
        assert done == min(n, len(self.plan))
        del self.plan[len(self.plan) - done:]

    @rule(name=st.sampled_from(NAMES))
    def save(self, name: str) -> None:
        assert self.session.save(name).step == len(self.plan)
        self.saved[name] = list(self.plan)

    @rule(name=st.sampled_from(NAMES))
    def restore(self, name: str) -> None:
        if name in self.saved:
            self.session.restore(name)
            self.plan = list(self.saved[name])
        else:
            with pytest.raises(CheckpointError) as err:
                self.session.restore(name)
            assert err.value.code == ErrorCode.UNKNOWN_CHECKPOINT

    @rule(name=st.sampled_from(NAMES))
    def delete(self, name: str) -> None:
        if name in self.saved:
            self.session.delete_checkpoint(name)
            del self.saved[name]
        else:
            with pytest.raises(CheckpointError):
                self.session.delete_checkpoint(name)

    @rule()
    def reset(self) -> None:
        self.session.reset()
        self.plan = []

    @invariant()
    def matches_replay(self) -> None:
        s = self.session
        states = replay(self.plan)
        assert s.state == states[-1]
        assert s.plan() == self.plan
        assert [h.step for h in s.history] == list(range(1, len(self.plan) + 1))
        assert [s.state_after(i) for i in range(len(states))] == states
        first = states.index(states[-1])
        assert s.first_visit() == (first if first < len(self.plan) else None)
        for step, revisited in self.revisits:  # each step's loop signal: the first equal state before it
            earlier = states.index(states[step])
            assert revisited == (earlier if earlier < step else None), (step, revisited, earlier)
        self.revisits = []
        assert {c.name: [h.text for h in c.history] for c in s.checkpoints()} == self.saved


CheckpointMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
TestCheckpoints = CheckpointMachine.TestCase
