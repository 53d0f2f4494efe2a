"""pypddlengine.up: the engine behind unified-planning's SequentialSimulator and
PlanValidator, compared with UP's own simulator and validator.

On every UP example problem inside the declared fragment: applicable actions,
the value of every fluent, goal tests and (in)applicability of random ground
actions agree along seeded random walks; UP's validator and ours agree on the
example plans and on corrupted ones (truncated, a step dropped, two steps
swapped, random walks)."""

from __future__ import annotations

import itertools
import random
import warnings
from pathlib import Path

import pytest

pytest.importorskip("unified_planning", reason="the up extra (unified-planning) is not installed")

import unified_planning.model as upm
import unified_planning.test
from unified_planning.engines import FailedValidationReason, ValidationResultStatus
from unified_planning.exceptions import UPUsageError
from unified_planning.io import PDDLReader
from unified_planning.model.fluent import get_all_fluent_exp
from unified_planning.plans import ActionInstance, SequentialPlan
from unified_planning.shortcuts import PlanValidator, SequentialSimulator, get_environment
from unified_planning.test.examples import get_example_problems

import pypddlengine.up as pup
from pypddlengine import PDDLError

get_environment().credits_stream = None
EXAMPLES = get_example_problems()
UP_PDDL = Path(unified_planning.test.__file__).parent / "pddl"
"""UP's bundled PDDL examples (read with UP's reader, written back by its writer for the engine)."""
PROBLEMS = {n: e.problem for n, e in EXAMPLES.items() if type(e.problem) is upm.Problem}
for folder in sorted(p for p in UP_PDDL.iterdir() if (p / "domain.pddl").is_file() and (p / "problem.pddl").is_file()):
    PROBLEMS[f"pddl/{folder.name}"] = PDDLReader().parse_problem(str(folder / "domain.pddl"), str(folder / "problem.pddl"))
FRAGMENT = sorted(n for n, p in PROBLEMS.items() if p.kind <= pup.PypddlEngine.simulator_kind())
"""The problems both the simulator and the validator take."""
VALIDATED = sorted(n for n, p in PROBLEMS.items() if pup.PypddlEngine.supports(p.kind))
"""The problems the validator takes: the fragment and numeric ones."""
OUTSIDE = sorted(set(PROBLEMS) - set(VALIDATED))
SEQUENTIAL = [n for n in VALIDATED if "CONTINUOUS_TIME" not in PROBLEMS[n].kind.features]
"""The validated problems whose plans are sequential (temporal ones: tests/adapters/test_up_time.py)."""
STEPS = 30


def _simulators(problem):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a supported problem passes the kind check without a warning
        return SequentialSimulator(problem, name="pypddlengine"), SequentialSimulator(problem, name="sequential_simulator")


def test_the_fragment_is_declared_honestly() -> None:
    """Every example UP calls in our fragment loads; the ones outside are numeric, temporal,
    with undefined initial values, object fluents, non-object parameters or trajectory constraints."""
    assert len(FRAGMENT) >= 25, FRAGMENT
    assert {"basic", "basic_conditional", "basic_exists", "basic_forall", "safe_road", "robot_loader_adv",
            "hierarchical_blocks_world", "basic_with_costs", "locations_connected_cost_minimize",
            "pddl/citycar", "pddl/depot", "pddl/miconic", "pddl/safe_road"} <= set(FRAGMENT)
    for name in ("basic_undef_bool", "counter", "robot", "robot_fluent_of_user_type",
                 "basic_bool_fluent_param", "robot_loader_weak_bridge", "basic_oversubscription", "pddl/tpp_metric"):
        assert name in OUTSIDE
    # numeric problems are the validator's (without bounded integer types: UP checks bounds, PDDL has none)
    assert {"basic_numeric", "pddl/counters", "pddl/sailing"} <= set(VALIDATED) - set(FRAGMENT)
    assert "matchcellar" in set(VALIDATED) - set(FRAGMENT)  # temporal: time-triggered plans (tests/adapters/test_up_time)
    assert set(FRAGMENT) <= set(VALIDATED)
    for name in FRAGMENT:
        ours, _ = _simulators(PROBLEMS[name])
        assert isinstance(ours, pup.PypddlEngine) and ours.name == "pypddlengine"


def _all_groundings(problem):  # type: ignore[no-untyped-def]
    em = problem.environment.expression_manager
    out = []
    for action in problem.actions:
        domains = [[em.ObjectExp(o) for o in problem.objects(p.type)] for p in action.parameters]
        out += [(action, tuple(ps)) for ps in itertools.product(*domains)]
    return out


def _agree(problem, ours, theirs, s_ours, s_theirs, fluents, rng, groundings) -> set:  # type: ignore[no-untyped-def]
    for f in fluents:
        assert s_ours.get_value(f) is s_theirs.get_value(f), f
    assert ours.is_goal(s_ours) == theirs.is_goal(s_theirs)
    assert ours.get_unsatisfied_goals(s_ours) == theirs.get_unsatisfied_goals(s_theirs)
    mine = list(ours.get_applicable_actions(s_ours))
    assert len(mine) == len(set(mine))
    applicable = set(theirs.get_applicable_actions(s_theirs))
    assert set(mine) == applicable
    for action, params in rng.sample(groundings, min(20, len(groundings))):
        assert ours.is_applicable(s_ours, action, params) == ((action, params) in applicable)
        assert (ours.apply(s_ours, action, params) is None) == ((action, params) not in applicable)
    return applicable


@pytest.mark.parametrize("name", FRAGMENT)
def test_simulators_agree_along_seeded_random_walks(name: str) -> None:
    problem = PROBLEMS[name]
    ours, theirs = _simulators(problem)
    fluents = [fe for f in problem.fluents if f.type.is_bool_type() for fe in get_all_fluent_exp(problem, f)]
    groundings = _all_groundings(problem)
    for walk in range(1 if name.startswith("pddl/") else 3):  # UP's simulator is slow on the larger PDDL ones
        rng = random.Random(f"{name}:{walk}")
        s_ours, s_theirs = ours.get_initial_state(), theirs.get_initial_state()
        visited = [s_ours]
        for _ in range(STEPS):
            applicable = _agree(problem, ours, theirs, s_ours, s_theirs, fluents, rng, groundings)
            if not applicable:
                break
            action, params = rng.choice(sorted(applicable, key=str))
            s_ours, s_theirs = ours.apply(s_ours, action, params), theirs.apply(s_theirs, action, params)
            visited.append(s_ours)
        assert len(set(visited)) == len({frozenset(s.true_atoms()) for s in visited})  # hash/eq follow the atoms


def _corruptions(problem, plan, rng):  # type: ignore[no-untyped-def]
    """Plans near ``plan``: truncated, a step dropped, two steps swapped, and random walks."""
    steps = list(plan.actions)
    out = [steps]
    if steps:
        out += [steps[:-1], steps[: len(steps) // 2]]
        k = rng.randrange(len(steps))
        out.append(steps[:k] + steps[k + 1:])
    if len(steps) > 1:
        k = rng.randrange(len(steps) - 1)
        out.append(steps[:k] + [steps[k + 1], steps[k]] + steps[k + 2:])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = SequentialSimulator(problem, name="sequential_simulator")
    for _ in range(3):
        state, walk = sim.get_initial_state(), []
        for _ in range(rng.randrange(1, 8)):
            applicable = sorted(sim.get_applicable_actions(state), key=str)
            if not applicable:
                break
            action, params = rng.choice(applicable)
            walk.append(ActionInstance(action, params))
            state = sim.apply(state, action, params)
        out.append(walk)
    groundings = _all_groundings(problem)
    if groundings:  # a random ground action inserted: often inapplicable
        action, params = rng.choice(groundings)
        k = rng.randrange(len(steps) + 1)
        out.append(steps[:k] + [ActionInstance(action, params)] + steps[k:])
    return [SequentialPlan(s) for s in out]


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_validators_agree_on_example_and_corrupted_plans(name: str) -> None:
    problem = PROBLEMS[name]
    rng = random.Random(name)
    example = EXAMPLES.get(name)
    valid = list(example.valid_plans) if example else []
    plans = [p for p in (*valid, *(example.invalid_plans if example else ())) if isinstance(p, SequentialPlan)]
    plans = plans or [SequentialPlan([])]  # a PDDL example without plans: random walks and empty plans
    with PlanValidator(name="pypddlengine") as ours, PlanValidator(name="sequential_plan_validator") as theirs, \
            warnings.catch_warnings():
        warnings.filterwarnings("error", message="We cannot establish")  # the kind check passes, numeric too
        verdicts = set()
        for plan in plans:
            for candidate in _corruptions(problem, plan, rng):
                mine, reference = ours.validate(problem, candidate), theirs.validate(problem, candidate)
                assert mine.status == reference.status, (candidate, mine.log_messages, reference.log_messages)
                assert mine.reason == reference.reason
                assert mine.inapplicable_action is reference.inapplicable_action
                assert mine.metric_evaluations == reference.metric_evaluations
                assert mine.engine_name == "pypddlengine" and mine.log_messages
                verdicts.add(mine.status)
        for plan in valid:
            assert ours.validate(problem, plan).status == ValidationResultStatus.VALID
    assert ValidationResultStatus.INVALID in verdicts or not problem.goals  # pddl/safe_road has an empty goal


def test_a_failed_validation_explains_the_step_and_the_preconditions() -> None:
    example = EXAMPLES["robot_loader_adv"]
    plan = example.valid_plans[0]
    swapped = SequentialPlan([plan.actions[1], plan.actions[0], *plan.actions[2:]])
    with PlanValidator(name="pypddlengine") as validator:
        result = validator.validate(example.problem, swapped)
        assert result.reason == FailedValidationReason.INAPPLICABLE_ACTION
        assert result.inapplicable_action is plan.actions[1]
        message = result.log_messages[0].message
        assert message.startswith("invalid plan: step 1 ") and "unsatisfied: (" in message
        short = validator.validate(example.problem, SequentialPlan(plan.actions[:-1]))
        assert short.reason == FailedValidationReason.UNSATISFIED_GOALS
        assert "the goal is not reached; unsatisfied: (" in short.log_messages[0].message


def test_registration_and_preferences() -> None:
    factory = get_environment().factory
    assert "pypddlengine" in factory.engines
    pup.register()
    assert factory.engines.count("pypddlengine") == 1
    problem = EXAMPLES["basic"].problem
    assert SequentialSimulator(problem).name == "sequential_simulator"  # UP's own stays the default
    assert isinstance(SequentialSimulator(problem, name="pypddlengine"), pup.PypddlEngine)
    assert pup.PypddlEngine.supports_plan(SequentialPlan([]).kind)


def test_misuse_gets_clear_errors() -> None:
    problem = EXAMPLES["robot_loader"].problem
    ours, theirs = _simulators(problem)
    with pytest.raises(UPUsageError, match="takes the states it made"):
        list(ours.get_applicable_actions(theirs.get_initial_state()))
    other, _ = _simulators(EXAMPLES["robot_loader_mod"].problem)
    with pytest.raises(UPUsageError, match="takes the states it made"):
        ours.is_goal(other.get_initial_state())
    foreign = EXAMPLES["basic"].problem.actions[0]
    with pytest.raises(UPUsageError, match="does not belong"):
        ours.is_applicable(ours.get_initial_state(), foreign, ())
    state = ours.get_initial_state()
    with pytest.raises(UPUsageError, match="not a fluent expression"):
        state.get_value(problem.environment.expression_manager.TRUE())
    with pytest.raises(UPUsageError, match="takes no options"):
        SequentialSimulator(problem, name="pypddlengine", params={"speed": "high"})


def test_static_cost_fluents_and_problems_outside_the_fragment() -> None:
    problem = EXAMPLES["locations_connected_cost_minimize"].problem
    ours, theirs = _simulators(problem)
    distance = next(f for f in problem.fluents if not f.type.is_bool_type())
    for fe in get_all_fluent_exp(problem, distance):
        assert ours.get_initial_state().get_value(fe) == theirs.get_initial_state().get_value(fe)
    numeric = EXAMPLES["counter"].problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # UP warns that the kind is not supported, then the engine says why
        # the simulator's states are sets of atoms: a task whose actions change numbers is refused, saying why
        with pytest.raises(PDDLError, match="numeric fluents") as caught:
            SequentialSimulator(numeric, name="pypddlengine")
        assert caught.value.code == "UNSUPPORTED_REQUIREMENT"
        # the validator reads numeric tasks (issue 20): it agrees with UP's own on the example's plans
        with PlanValidator(name="pypddlengine") as validator, PlanValidator(name="sequential_plan_validator") as up:
            for plan in EXAMPLES["counter"].valid_plans + EXAMPLES["counter"].invalid_plans:
                ours, theirs = validator.validate(numeric, plan), up.validate(numeric, plan)
                assert ours.status == theirs.status, (str(plan), ours.log_messages)


@pytest.mark.parametrize(("name", "feature"), [("basic_with_default_values", "OBJECT_FLUENTS"),
                                               ("robot_fluent_of_user_type", "OBJECT_FLUENTS"),
                                               ("basic_oversubscription", "OVERSUBSCRIPTION"),
                                               ("basic_bool_fluent_param", "BOOL_FLUENT_PARAMETERS")])
def test_what_up_cannot_write_as_pddl_is_unknown_naming_the_feature(name: str, feature: str) -> None:
    """Object fluents, oversubscription, non-object parameters: UP's PDDL writer
    raises (a type error, or an empty NotImplementedError); the validator says
    UNKNOWN and the simulator refuses, each naming the feature."""
    example = EXAMPLES[name]
    assert not pup.PypddlEngine.supports(example.problem.kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # UP's own kind check warns first
        with PlanValidator(name="pypddlengine") as validator:
            result = validator.validate(example.problem, example.valid_plans[0])
        assert result.status == ValidationResultStatus.UNKNOWN
        assert feature in result.log_messages[0].message and "PDDL writer" in result.log_messages[0].message
        with pytest.raises(PDDLError, match=feature) as caught:
            SequentialSimulator(example.problem, name="pypddlengine")
    assert caught.value.code == "UNSUPPORTED_REQUIREMENT"


def test_bounded_integer_fluents_stay_outside_the_declared_kind() -> None:
    """UP checks an integer fluent's bounds as a state invariant; the PDDL its
    writer gives the engine has none. So the kind leaves bounded types out, and
    UP warns: here a plan past the bound, which the engine alone calls valid."""
    from unified_planning.shortcuts import GE, Fluent, InstantaneousAction, IntType, Problem

    counter = Fluent("counter", IntType(0, 3))
    inc = InstantaneousAction("inc")
    inc.add_increase_effect(counter, 1)
    problem = Problem("bounded")
    problem.add_fluent(counter)
    problem.add_action(inc)
    problem.set_initial_value(counter, 0)
    problem.add_goal(GE(counter, 2))
    assert not pup.PypddlEngine.supports(problem.kind)
    with PlanValidator(name="sequential_plan_validator") as up_validator:
        assert up_validator.validate(problem, SequentialPlan([ActionInstance(inc)] * 5)).status == \
            ValidationResultStatus.INVALID
    with PlanValidator(name="pypddlengine") as validator, pytest.warns(UserWarning, match="cannot establish"):
        validator.validate(problem, SequentialPlan([ActionInstance(inc)] * 2))
