"""pypddlengine.gym: the Gymnasium environment over sessions.

Gymnasium's own checker passes on every bundled domain (each observation and
action mode, warnings as errors); observations, masks and rewards are compared
with the session they wrap along seeded random walks; no action, however
malformed, ends an episode or changes the state."""

from __future__ import annotations

import warnings

import pytest

np = pytest.importorskip("numpy", reason="the gym extra (gymnasium, numpy) is not installed")
gymnasium = pytest.importorskip("gymnasium", reason="the gym extra (gymnasium) is not installed")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from temporal_pending import pending  # noqa: E402

import pypddlengine.gym as pg  # noqa: E402
from pypddlengine import ErrorCode, PDDLError, open_session  # noqa: E402
from pypddlengine.bundled import bundled_domains, bundled_root, bundled_task, bundled_tasks  # noqa: E402

COSTS_DOMAIN = """(define (domain roads) (:requirements :typing :action-costs)
  (:types place)
  (:predicates (at ?p - place) (road ?a ?b - place))
  (:functions (total-cost) - number (length ?a ?b - place) - number)
  (:action drive :parameters (?a ?b - place)
    :precondition (and (at ?a) (road ?a ?b))
    :effect (and (not (at ?a)) (at ?b) (increase (total-cost) (length ?a ?b)))))"""
COSTS_PROBLEM = """(define (problem trip) (:domain roads)
  (:objects home shop work - place)
  (:init (at home) (road home shop) (road shop work) (road home work)
         (= (length home shop) 2) (= (length shop work) 3) (= (length home work) 9) (= (total-cost) 0))
  (:goal (at work)) (:metric minimize (total-cost)))"""


CLASSICAL = [d for d in bundled_domains()
             if not pending(d) and not open_session(*bundled_task(bundled_tasks(d)[0])).lifted.numeric_task]
"""Bundled domains PDDLEnv takes (a numeric one is refused: see the last test)."""


def _folder(domain: str) -> dict[str, object]:
    return {"domain": bundled_root("domains") / f"{domain}.pddl", "problem": bundled_root("problems") / domain}


def _checked(env: gymnasium.Env) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium's checker reports many problems as warnings only
        check_env(env.unwrapped)


@pytest.mark.parametrize("domain", CLASSICAL)
def test_check_env_on_every_bundled_domain_folder(domain: str) -> None:
    env = gymnasium.make(pg.ENV_ID, **_folder(domain))
    assert len(env.unwrapped.problems) == len(bundled_tasks(domain))
    _checked(env)


@pytest.mark.parametrize("domain", CLASSICAL)
@pytest.mark.parametrize(("observation", "action_mode"), [("atoms", "discrete"), ("text", "text"), ("vector", "text")])
def test_check_env_in_every_mode(domain: str, observation: str, action_mode: str) -> None:
    env = gymnasium.make(pg.task_env_id(bundled_tasks(domain)[0]), observation=observation, action_mode=action_mode)
    _checked(env)


def test_every_bundled_task_is_registered() -> None:
    for task in bundled_tasks():
        assert pg.task_env_id(task) in gymnasium.registry
    env = gymnasium.make("pypddlengine/gripper-p01-v0")
    assert env.unwrapped.problem_names == ["p01"]
    assert pg.register_envs() == [pg.task_env_id(t) for t in bundled_tasks()]  # again: harmless


def _decode(env: pg.PDDLEnv, obs: np.ndarray) -> set[str]:
    return {env.atom_names[i] for i in np.flatnonzero(obs[: len(env.atom_names)])}


@pytest.mark.parametrize("task", ["blocksworld/p03", "gripper/p02", "logistics/p01", "blocksworld-table/p02"])
def test_observation_mask_and_rewards_follow_the_session_on_random_walks(task: str) -> None:
    env = pg.PDDLEnv(task=task, max_steps=None)
    oracle = open_session(*bundled_task(task), feedback="progress")
    rng = np.random.default_rng(7)
    obs, info = env.reset(seed=3)
    assert info["step"] == 0 and info["problem"] == task.split("/")[1]
    for step in range(1, 60):
        assert _decode(env, obs) == set(oracle.state_atoms())
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        assert [env.action_names[i] for i in np.flatnonzero(mask)] == sorted(
            oracle.applicable_names(), key=env.action_names.index)
        assert set(env.valid_actions()) == set(oracle.applicable_names())
        if rng.random() < 0.3 and not mask.all():  # an inapplicable action: nothing changes
            bad = int(rng.choice(np.flatnonzero(~mask)))
            before = obs.copy()
            obs, reward, terminated, truncated, info = env.step(bad)
            assert not info["applied"] and reward == -1.0 and not terminated and not truncated
            assert info["failure"]["code"] == "INAPPLICABLE_ACTION" and info["failure"]["unsatisfied"]
            assert info["failure"]["unsatisfied"] == oracle.explain(env.action_names[bad]).failure.unsatisfied
            assert np.array_equal(obs, before)
            continue
        choice = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = env.step(choice)
        expected = oracle.execute(env.action_names[choice])
        assert info["applied"] and info["action"] == expected.action and reward == -1.0
        assert terminated == expected.goal_reached == info["is_success"]
        assert info["goals_satisfied"] == len(expected.feedback.goals.satisfied)
        if terminated:
            break


def test_a_plan_reaches_the_goal_with_the_goal_reward_and_text_actions_parse() -> None:
    env = pg.PDDLEnv(task="blocksworld/p01", goal_reward=10.0, action_mode="text", observation="text")
    obs, _ = env.reset(seed=0)
    assert obs.startswith("goal: (on a b) (on b c)\nstate: ") and "(on c a)" in obs
    plan = ["(UNSTACK C A)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]
    total = 0.0
    for k, action in enumerate(plan, start=1):
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        assert info["applied"] and info["step"] == k and not truncated
        assert terminated == (k == len(plan))
    assert total == -6 + 10.0 and info["is_success"] and info["goals_satisfied"] == info["goals_total"] == 2
    assert "(on a b)" in obs.split("\n")[1]


def test_truncated_at_the_step_limit_even_after_invalid_actions() -> None:
    env = pg.PDDLEnv(task="blocksworld/p01", max_steps=3)
    env.reset(seed=0)
    outcomes = [env.step("(stack a a)")[2:4] for _ in range(3)]
    assert outcomes == [(False, False), (False, False), (False, True)]
    env.reset()
    assert env.step(env.action_index("(unstack c a)"))[3] is False


@settings(max_examples=150, deadline=None)
@given(action=st.one_of(st.text(max_size=40), st.integers(), st.binary(max_size=20), st.none(), st.floats()))
def test_no_action_crashes_an_episode_or_changes_the_state(action: object) -> None:
    env = _shared_env()
    obs, _ = env.reset(seed=0)
    obs2, reward, terminated, truncated, info = env.step(action)
    if info["applied"]:  # the rare valid text, e.g. '(unstack c a)'
        assert env.session.plan() == [info["action"]]
        return
    assert np.array_equal(obs, obs2) and reward == -1.0 and not terminated and not truncated
    assert info["failure"]["code"] and info["failure"]["message"]
    assert env.session.plan() == []


_ENV: list[pg.PDDLEnv] = []


def _shared_env() -> pg.PDDLEnv:
    if not _ENV:
        _ENV.append(pg.PDDLEnv(task="blocksworld/p01"))
    return _ENV[0]


def test_out_of_range_and_foreign_indices_are_reported() -> None:
    env = pg.PDDLEnv(task="blocksworld/p01")
    env.reset(seed=0)
    info = env.step(10_000)[4]
    assert info["failure"]["code"] == "UNKNOWN_ACTION" and "outside 0..23" in info["failure"]["message"]
    info = env.step(-1)[4]
    assert info["failure"]["code"] == "UNKNOWN_ACTION"
    info = env.step("(fly a)")[4]
    assert info["failure"]["code"] == "UNKNOWN_ACTION" and not info["applied"]


def test_a_folder_is_sampled_per_reset_with_the_seed_and_goals_are_observed() -> None:
    env = pg.PDDLEnv(**_folder("gripper"))
    assert env.goal_in_observation and env.observation_space.n == 2 * len(env.atom_names)
    seen = [env.reset(seed=s)[1]["problem"] for s in range(12)]
    assert seen == [env.reset(seed=s)[1]["problem"] for s in range(12)]  # reproducible
    assert len(set(seen)) > 2
    for name in env.problem_names:
        obs, info = env.reset(options={"problem": name})
        assert info["problem"] == name
        oracle = open_session(*bundled_task(f"gripper/{name}"))
        n = len(env.atom_names)
        assert _decode(env, obs) == set(oracle.state_atoms())
        goal = {env.atom_names[i] for i in np.flatnonzero(obs[n:])}
        assert goal == set(oracle.goal_status().unsatisfied) | set(oracle.goal_status().satisfied)
        mask = env.action_masks()
        assert {env.action_names[i] for i in np.flatnonzero(mask)} == set(oracle.applicable_names())
    # an action of another problem's objects is reported, not executed
    env.reset(options={"problem": 0})
    foreign = next(i for i, name in enumerate(env.action_names) if name not in
                   set(open_session(*bundled_task("gripper/p01")).task.render_action(a)
                       for a in env.session.task.actions))
    info = env.step(foreign)[4]
    assert info["failure"]["code"] == "UNKNOWN_ACTION" and "does not exist in problem p01" in info["failure"]["message"]
    with pytest.raises(ValueError, match="no problem 'p99'"):
        env.reset(options={"problem": "p99"})


def test_a_list_of_problem_texts_and_the_atoms_observation() -> None:
    domain, problem = bundled_task("blocksworld/p01")
    text = problem.read_text()
    env = pg.PDDLEnv(domain, [text, text.replace("(on a b) (on b c)", "(on c b)")], observation="atoms")
    assert env.problem_names == ["problem-0", "problem-1"]
    obs, _ = env.reset(options={"problem": 1})
    assert obs["goal"] == ("(on c b)",) and "(on c a)" in obs["state"]
    assert obs in env.observation_space


def test_action_costs_as_rewards() -> None:
    env = pg.PDDLEnv(COSTS_DOMAIN, COSTS_PROBLEM, reward="cost", goal_reward=1.0)
    env.reset(seed=0)
    assert env.step("(drive home shop)")[1] == -2.0
    obs, reward, terminated, _, info = env.step("(drive shop work)")
    assert reward == -3.0 + 1.0 and terminated
    env.reset()
    assert env.step("(drive home work)")[1] == -9.0 + 1.0
    unit = pg.PDDLEnv(COSTS_DOMAIN, COSTS_PROBLEM)
    unit.reset()
    assert unit.step("(drive home work)")[1] == -1.0


def test_conditional_costs_are_rewarded_per_firing() -> None:
    """Issue 25 item 1 in the environment: a cost inside when/forall is charged
    per firing (the action's unconditional cost alone used to be the reward);
    rewards along a walk sum to the validator's cost, which VAL's agrees with
    (tests/integration/test_conditional_costs.py)."""
    from adl_cases import COST_DOMAIN, cost_problem

    from pypddlengine import load_task, validate_plan

    # a goal the walk never reaches, so that the episode (which ends at the goal) runs the whole walk
    unreached = cost_problem(2).replace("(:goal (done))", "(:goal (and (done) (not (m i2))))")
    env = pg.PDDLEnv(COST_DOMAIN, unreached, reward="cost", max_steps=None)
    env.reset(seed=0)
    assert env.step("(b)")[1] == -201.0  # 1 + 100 for each of the two marked items
    steps = ["(c)", "(flip i1)", "(toggle)", "(a)", "(toggle)", "(c)"]
    total = 201.0 - sum(env.step(step)[1] for step in steps)
    assert total == validate_plan(load_task(COST_DOMAIN, cost_problem(2)), ["(b)", *steps]).cost == 201 + 17 + 2 + 7 + 13 + 0 + 11


def test_heuristic_and_why_not_feedback_in_info() -> None:
    env = pg.PDDLEnv(task="blocksworld/p01", feedback="full")
    _, info = env.reset(seed=0)
    assert info["heuristic"] == "h_ff" and info["distance"] > 0 and info["dead_end"] is False
    info = env.step("(pick-up a)")[4]
    assert info["failure"]["unsatisfied"] == ("(clear a)",)
    assert any("(unstack c a)" in hint for hint in info["failure"]["hints"])
    info = env.step("(unstack c a)")[4]
    assert info["relaxed_plan"] and info["distance"] > 0
    info = env.step("(put-down c)")[4]
    assert info["distance_change"] is not None
    plain = pg.PDDLEnv(task="blocksworld/p01", feedback="plain")
    assert "goals_satisfied" not in plain.reset()[1]


def test_render_ansi() -> None:
    env = pg.PDDLEnv(task="blocksworld/p01", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("problem p01, step 0\ngoal: (on a b) (on b c)") and "applicable: (pick-up b)" in text
    assert pg.PDDLEnv(task="blocksworld/p01").render() is None


def test_bad_arguments_are_clear_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="unknown observation 'pixels'"):
        pg.PDDLEnv(task="blocksworld/p01", observation="pixels")
    with pytest.raises(ValueError, match="unknown action_mode"):
        pg.PDDLEnv(task="blocksworld/p01", action_mode="continuous")
    with pytest.raises(ValueError, match="unknown reward"):
        pg.PDDLEnv(task="blocksworld/p01", reward="sparse")
    with pytest.raises(ValueError, match="max_steps"):
        pg.PDDLEnv(task="blocksworld/p01", max_steps=0)
    with pytest.raises(TypeError, match="task="):
        pg.PDDLEnv()
    with pytest.raises(TypeError, match="not both"):
        pg.PDDLEnv(*bundled_task("blocksworld/p01"), task="blocksworld/p01")
    with pytest.raises(PDDLError, match="no bundled task"):
        pg.PDDLEnv(task="blocksworld/p99")
    with pytest.raises(PDDLError):
        pg.PDDLEnv("(define (domain d) (:predicates (p))", "(define (problem q) (:domain d) (:goal (p)))")
    with pytest.raises(ValueError, match="holds no .pddl"):
        pg.PDDLEnv(bundled_task("blocksworld/p01")[0], tmp_path)


def test_a_lifted_backend_is_refused_saying_why() -> None:
    """The spaces are the grounded task's atoms and actions: a lifted session
    (backend="lifted") has no such sets, so it is a typed error saying so, not an AttributeError."""
    with pytest.raises(PDDLError, match="a lifted session has no such sets") as err:
        pg.PDDLEnv(task="blocksworld/p01", backend="lifted")
    assert err.value.code == ErrorCode.FEATURE_UNAVAILABLE


def test_a_numeric_task_is_refused_saying_why() -> None:
    """The observation is a vector of atoms: a task whose actions change numbers
    (the bundled fuel-delivery) would lose its values, so it is refused."""
    assert "fuel-delivery" in bundled_domains() and "fuel-delivery" not in CLASSICAL
    from pypddlengine import PDDLError
    from pypddlengine.gym import PDDLEnv

    with pytest.raises(PDDLError, match="numeric fluents") as caught:
        PDDLEnv(task="fuel-delivery/p01")
    assert caught.value.code == "UNSUPPORTED_REQUIREMENT"


# --- rgb_array, pickling, vector environments, dead ends, stepping after the end ---

DEAD_END_DOMAIN = """(define (domain tank) (:predicates (fuel) (ready) (won))
  (:action prepare :parameters () :precondition (fuel) :effect (and (ready) (not (fuel))))
  (:action win :parameters () :precondition (and (fuel) (ready)) :effect (won)))"""
DEAD_END_PROBLEM = "(define (problem t) (:domain tank) (:init (fuel)) (:goal (won)))"


def test_rgb_array_renders_the_state_text_and_passes_the_checker() -> None:
    env = gymnasium.make("pypddlengine/blocksworld-p01-v0", render_mode="rgb_array")
    env.reset(seed=0)
    first = env.render()
    assert first.shape == (576, 768, 3) and first.dtype == np.uint8
    assert set(np.unique(first)) == {0, 255} and (first == 0).any()
    env.step(env.unwrapped.action_index("(unstack c a)"))
    assert not np.array_equal(env.render(), first)  # the step count and the state are drawn
    assert np.array_equal(pg.text_image("(on a b)"), pg.text_image("(ON A B)"))  # one case, as PDDL
    assert not np.array_equal(pg.text_image("(on a b)"), pg.text_image("(on b a)"))
    _checked(gymnasium.make("pypddlengine/blocksworld-p01-v0", render_mode="rgb_array"))


def test_text_lines_wrap_at_spaces_and_mark_a_cut() -> None:
    assert pg.text_lines("aaa bbb ccc", columns=7) == ["aaa bbb", "ccc"]
    assert pg.text_lines("x" * 10, columns=4) == ["xxxx", "xxxx", "xx"]
    lines = pg.text_lines("\n".join(str(k) for k in range(100)), lines=5)
    assert len(lines) == 5 and lines[-1] == "4..."


def _walk(env: gymnasium.Env, actions: list[int]) -> list[tuple[object, float, bool, bool]]:
    return [tuple(np.asarray(x).tolist() if isinstance(x, np.ndarray) else x for x in env.step(a)[:4])
            for a in actions]


@pytest.mark.parametrize("how", ["task", "folder", "text"])
def test_pickled_environment_continues_the_same_episode(how: str) -> None:
    import pickle

    made = {"task": {"task": "blocksworld/p02"}, "folder": _folder("blocksworld"),
            "text": {"domain": COSTS_DOMAIN, "problem": COSTS_PROBLEM, "reward": "cost"}}[how]
    env = pg.PDDLEnv(**made, max_steps=50)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(3):
        if env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))[2]:
            break
    copy = pickle.loads(pickle.dumps(env))
    assert copy.problem_names == env.problem_names and copy.session.plan() == env.session.plan()
    assert np.array_equal(copy._observe(), env._observe()) and np.array_equal(copy.action_masks(), env.action_masks())
    actions = [int(a) for a in rng.integers(0, len(env.action_names), 12)]
    assert _walk(copy, actions) == _walk(env, actions)
    assert copy.reset(seed=5)[1]["problem"] == env.reset(seed=5)[1]["problem"]  # the generator travels too


def test_async_vector_env_in_spawned_processes_as_sb3_asks_for_it() -> None:
    """What Stable-Baselines3's make_vec_env with SubprocVecEnv does: make the
    env with render_mode='rgb_array' in fresh (spawned) processes."""
    envs = gymnasium.make_vec("pypddlengine/blocksworld-p01-v0", num_envs=2, vectorization_mode="async",
                              vector_kwargs={"context": "spawn"}, render_mode="rgb_array")
    try:
        obs, _ = envs.reset(seed=[0, 1])
        assert obs.shape[0] == 2
        obs, reward, terminated, truncated, info = envs.step(np.array([0, 1]))
        assert reward.shape == (2,) and not terminated.any()
        frames = envs.render()
        assert len(frames) == 2 and frames[0].shape == (576, 768, 3)
    finally:
        envs.close()


def test_a_state_without_applicable_actions_ends_the_episode() -> None:
    env = pg.PDDLEnv(DEAD_END_DOMAIN, DEAD_END_PROBLEM, max_steps=10)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step("(prepare)")
    assert info["applied"] and terminated and not truncated and not info["is_success"]
    assert info["termination"] == pg.NO_APPLICABLE_ACTION and not env.action_masks().any()
    env.reset()
    info = env.step("(win)")[4]  # invalid, and the state still has an applicable action: the episode goes on
    assert not info["applied"] and "termination" not in info


def test_stepping_after_terminated_changes_nothing_and_warns_once() -> None:
    env = pg.PDDLEnv(task="blocksworld/p01", goal_reward=10.0)
    env.reset(seed=0)
    plan = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]
    for action in plan:
        obs, reward, terminated, _, info = env.step(action)
    assert terminated and reward == 9.0 and info["termination"] == "goal"
    with pytest.warns(UserWarning, match="after this episode terminated"):
        again = env.step("(unstack a b)")
    assert again[1:4] == (0.0, True, False) and again[4]["after_terminated"] and np.array_equal(again[0], obs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert env.step(0)[1] == 0.0  # warned once
    assert env.session.plan() == plan
    env.reset()
    assert not env.step("(unstack c a)")[2]


def test_gymnasium_make_imports_the_module_named_before_the_colon() -> None:
    """The documented form for a process that has not imported pypddlengine.gym."""
    import os
    import subprocess
    import sys

    code = ("import gymnasium, sys\nassert 'pypddlengine.gym' not in sys.modules\n"
            "env = gymnasium.make('pypddlengine.gym:pypddlengine/blocksworld-p01-v0')\n"
            "print(type(env.unwrapped).__name__, env.unwrapped.problem_names)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "PDDLEnv ['p01']"
