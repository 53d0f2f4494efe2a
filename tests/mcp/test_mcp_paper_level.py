"""Feedback level ``paper``: the seven tools return exactly the signals the
paper names (§III-A), checked field by field and against the engine on
random walks; every place that names a level accepts it."""

from __future__ import annotations

import random
import typing

import pytest
from mcp_support import BW3, BW3_PLAN, BW_DOMAIN, Tools, bw_problem

from pypddlengine.mcp_server import models as m
from pypddlengine.mcp_server.render import PAPER_FIELDS
from pypddlengine.session import FeedbackLevel, Session

pytestmark = pytest.mark.anyio

# what the paper says each operation returns, as field names (render.py quotes the passage)
PAPER = {
    "execute_single_action": {"success", "state", "goal_reached"},  # "a success flag, the updated state, and a goal-reached flag"
    "query_current_state": {"state"},  # "the set of currently true predicates"
    "query_applicable_actions": {"actions"},  # "all ground actions valid in the current state"
    "query_action_history": {"actions"},  # "the sequence of actions executed"
    "validate_complete_plan": {"valid"},  # "checks whether a submitted action sequence satisfies all goal conditions"
    "reset_to_initial_state": {"step"},  # "restores the environment to the problem's initial state"
}


def test_the_paper_fields_are_the_papers() -> None:
    by_tool = {
        "execute_single_action": m.StepOutcome, "query_current_state": m.StateView,
        "query_applicable_actions": m.ActionsPage, "query_action_history": m.HistoryView,
        "validate_complete_plan": m.ValidationView, "reset_to_initial_state": m.ResetOutcome,
    }
    for tool, model in by_tool.items():
        # only paging (next_offset beyond the largest page) comes on top of the paper's fields, and a
        # numeric task's values, part of its state (absent on the paper's classical tasks: checked below), and a
        # temporal task's clock, running actions, starts and ends (absent on classical tasks)
        time = {"clock", "running", "next_event", "starts", "ends"}
        assert PAPER_FIELDS[model] - {"next_offset", "values"} - time == PAPER[tool], tool
        required = {name for name, f in model.model_fields.items() if f.is_required()}
        assert required <= PAPER_FIELDS[model], f"{model.__name__} requires fields the paper level leaves out"


async def test_a_paper_level_episode_returns_only_the_papers_fields(tools: Tools) -> None:
    summary = await tools.ok("initialise_session", **BW3, feedback="paper", rendering="plain")
    assert set(summary) == {"session_id", "domain", "problem", "sources", "feedback_level", "rendering"}
    assert summary["feedback_level"] == "paper"
    sid = summary["session_id"]
    engine = Session.from_pddl(BW3["domain"], BW3["problem"], feedback="paper")

    state = await tools.ok("query_current_state", session_id=sid)
    assert state == {"state": engine.state_atoms()}
    actions = await tools.ok("query_applicable_actions", session_id=sid)
    assert actions == {"actions": engine.applicable_names()}

    # an inapplicable action, an action the task does not have, a malformed one: success false, no reason
    for bad in ["(stack c b)", "(fly c)", "(pick-up zz)", "pick up"]:
        step = await tools.ok("execute_single_action", session_id=sid, action=bad)
        assert step == {"success": False, "state": engine.state_atoms(), "goal_reached": False}, bad

    for action in BW3_PLAN:
        step = await tools.ok("execute_single_action", session_id=sid, action=action)
        result = engine.execute(action)
        assert step == {"success": True, "state": engine.state_atoms(), "goal_reached": result.goal_reached}
    assert step["goal_reached"] is True

    history = await tools.ok("query_action_history", session_id=sid)
    assert history == {"actions": BW3_PLAN}
    assert await tools.ok("validate_complete_plan", session_id=sid) == {"valid": True}
    assert await tools.ok("validate_complete_plan", session_id=sid, plan=BW3_PLAN[1:]) == {"valid": False}
    assert await tools.ok("validate_complete_plan", session_id=sid, plan="\n".join(BW3_PLAN[:-1])) == {"valid": False}
    assert await tools.ok("reset_to_initial_state", session_id=sid) == {"step": 0}
    assert await tools.ok("query_action_history", session_id=sid) == {"actions": []}


async def test_compact_rendering_at_the_paper_level_keeps_the_whole_state(tools: Tools) -> None:
    """The paper's state is every true atom: static facts are not left out
    (there is no task summary at this level that would list them)."""
    domain = BW_DOMAIN.replace("(handempty))\n", "(handempty) (heavy ?x - block))\n", 1)
    problem = BW3["problem"].replace("(handempty))", "(handempty) (heavy a))")
    sid = (await tools.ok("initialise_session", domain=domain, problem=problem, feedback="paper"))["session_id"]
    state = (await tools.ok("query_current_state", session_id=sid))["state"]
    assert state["heavy"] == ["a"] and state["on"] == ["c a"]


async def test_random_walks_agree_with_the_engine(tools: Tools) -> None:
    """A seeded random walk over applicable and inapplicable actions on a
    5-block task: every paper-level step result is the engine's."""
    problem = bw_problem(5)
    rng = random.Random(7)
    for walk in range(3):
        sid = (await tools.ok("initialise_session", domain=BW_DOMAIN, problem=problem, feedback="paper",
                              rendering="plain"))["session_id"]
        engine = Session.from_pddl(BW_DOMAIN, problem, feedback="paper")
        every = engine.task.sort_actions(engine.task.actions)
        for _ in range(40):
            pool = engine.applicable_names() if rng.random() < 0.7 else [engine.task.render_action(a) for a in every]
            action = rng.choice(pool)
            step = await tools.ok("execute_single_action", session_id=sid, action=action)
            result = engine.execute(action)
            assert step == {"success": result.success, "state": engine.state_atoms(),
                            "goal_reached": result.goal_reached}, (walk, action)
        verdict = await tools.ok("validate_complete_plan", session_id=sid)
        assert verdict == {"valid": engine.validate().valid}


async def test_richer_levels_are_unchanged(tools: Tools) -> None:
    sid = (await tools.ok("initialise_session", **BW3, feedback="plain"))["session_id"]
    step = await tools.ok("execute_single_action", session_id=sid, action="(stack c b)")
    assert step["failure"]["unsatisfied"] == ["(holding c)"] and "attempts_left" in step
    bad = await tools.error("execute_single_action", session_id=sid, action="(fly c)")
    assert bad.code == "UNKNOWN_ACTION"


async def test_call_errors_stay_errors_at_the_paper_level(tools: Tools) -> None:
    await tools.ok("initialise_session", **BW3, feedback="paper")
    reply = await tools.error("execute_single_action", session_id="nope", action="(pick-up b)")
    assert reply.code == "UNKNOWN_SESSION"


def test_every_place_that_names_a_level_accepts_every_level() -> None:
    from pypddl_experiments.llm.cli import run
    from pypddlengine.cli import play
    from pypddlengine.cli_serve import serve
    from pypddlengine.mcp_server.tools import FeedbackName
    from pypddlengine.names import FEEDBACK_LEVELS

    names = [level.name.lower() for level in FeedbackLevel]
    assert names[0] == "paper" and FeedbackLevel.PAPER < FeedbackLevel.PLAIN < FeedbackLevel.PROGRESS
    assert tuple(names) == FEEDBACK_LEVELS
    assert list(typing.get_args(FeedbackName)) == names
    for command in (play, serve, run):
        option = next(p for p in command.params if p.name == "feedback")
        assert list(option.type.choices) == names, command.name
    for name in names:
        assert Session.from_pddl(BW3["domain"], BW3["problem"], feedback=name).feedback_level.name.lower() == name


def test_play_at_the_paper_level() -> None:
    from pypddlengine.play import handle

    session = Session.from_pddl(BW3["domain"], BW3["problem"], feedback="paper")
    out, _ = handle(session, "(stack c b)")
    assert out == ["x (stack c b)", f"  state: {' '.join(session.state_atoms())}", "  goal reached: no"]
    out, _ = handle(session, "(unstack c a)")
    assert out[0] == "ok (unstack c a)" and "unsatisfied" not in "\n".join(out) and "+" not in out[1]
