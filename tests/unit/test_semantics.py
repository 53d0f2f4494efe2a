"""PDDL semantics, one rule per test, checked through the session and the
validator (which must agree) and against the brute-force grounder."""

from __future__ import annotations

from pypddlengine import (
    Session,
    compile_task,
    ground,
    ground_brute_force,
    parse_domain,
    parse_problem,
    validate_plan,
)


def make(domain: str, problem: str, **kw) -> Session:
    lifted = compile_task(parse_domain(domain), parse_problem(problem))
    task = ground(lifted)
    assert {(a.schema.id, a.args) for a in task.actions} == ground_brute_force(lifted)
    return Session(task, **kw)


TOGGLE = """(define (domain toggle) (:requirements :strips :negative-preconditions)
  (:predicates (p) (q) (r))
  (:action both :parameters () :precondition (q) :effect (and (p) (not (p))))
  (:action both2 :parameters () :precondition (r) :effect (and (not (p)) (p)))
  (:action del :parameters () :precondition (p) :effect (not (p)))
  (:action idle :parameters () :precondition (and) :effect (and))
  (:action needs-not-p :parameters () :precondition (not (p)) :effect (r)))"""


def test_delete_then_add_leaves_the_atom_true() -> None:
    s = make(TOGGLE, "(define (problem t) (:domain toggle) (:init (q)) (:goal (p)))")
    r = s.execute("(both)")
    assert r.success and r.goal_reached and "(p)" in s.state_atoms()
    assert s.execute("(del)").success and "(p)" not in s.state_atoms()
    assert s.execute("(needs-not-p)").success
    assert s.execute("(both2)").success and "(p)" in s.state_atoms()
    assert validate_plan(s.lifted, ["(both)", "(del)", "(needs-not-p)", "(both2)"]).valid


def test_zero_arity_and_no_effect_actions() -> None:
    s = make(TOGGLE, "(define (problem t) (:domain toggle) (:init (q)) (:goal (p)))")
    assert "(idle)" in s.applicable_names()
    before = s.state
    r = s.execute("idle")
    assert r.success and s.state == before and len(s.history) == 1


def test_negative_precondition_and_negative_goal() -> None:
    s = make(TOGGLE, "(define (problem t) (:domain toggle) (:init (p) (q)) (:goal (and (r) (not (p)))))")
    r = s.execute("(needs-not-p)")
    assert not r.success and r.failure.code == "INAPPLICABLE_ACTION"
    assert r.failure.unsatisfied == ("(not (p))",)
    assert s.execute("(del)").success
    assert not s.is_goal()
    assert s.execute("(needs-not-p)").goal_reached
    report = s.validate()
    assert report.valid and report.length == 2


EQ = """(define (domain eq) (:requirements :typing :equality)
  (:types item)
  (:constants hub - item)
  (:predicates (link ?a - item ?b - item) (seen ?a - item))
  (:action connect :parameters (?a - item ?b - item)
     :precondition (not (= ?a ?b)) :effect (link ?a ?b))
  (:action self :parameters (?a - item) :precondition (= ?a ?a) :effect (seen ?a))
  (:action to-hub :parameters (?a - item) :precondition (not (= ?a hub)) :effect (link ?a hub)))"""


def test_equality_and_constants() -> None:
    s = make(EQ, "(define (problem e) (:domain eq) (:objects x y - item) (:init) (:goal (link x hub)))")
    names = s.applicable_names()
    assert "(connect x x)" not in names and "(connect x y)" in names
    assert "(to-hub hub)" not in names and "(to-hub x)" in names
    r = s.execute("(connect y y)")
    assert not r.success and r.failure.unsatisfied == ("(not (= y y))",)
    assert s.execute("(to-hub x)").goal_reached


EITHER = """(define (domain either) (:requirements :typing)
  (:types cat dog bird)
  (:predicates (fed ?x - (either cat dog)))
  (:action feed :parameters (?x - (either cat dog)) :precondition () :effect (fed ?x)))"""


def test_either_types() -> None:
    s = make(EITHER, "(define (problem f) (:domain either) (:objects tom - cat rex - dog tweety - bird)"
                     " (:init) (:goal (and (fed tom) (fed rex))))")
    assert s.applicable_names() == ["(feed rex)", "(feed tom)"]
    r = s.execute("(feed tweety)")
    assert r.failure.code == "TYPE_MISMATCH" and "bird" in r.failure.message


COSTS = """(define (domain roads) (:requirements :typing :action-costs)
  (:types city)
  (:predicates (at ?c - city) (road ?a - city ?b - city))
  (:functions (total-cost) - number (len ?a - city ?b - city) - number)
  (:action drive :parameters (?a - city ?b - city)
     :precondition (and (at ?a) (road ?a ?b))
     :effect (and (not (at ?a)) (at ?b) (increase (total-cost) (len ?a ?b))))
  (:action wait :parameters (?a - city) :precondition (at ?a) :effect (increase (total-cost) 2)))"""

COST_PROBLEM = """(define (problem r) (:domain roads) (:objects a b c - city)
  (:init (at a) (road a b) (road b c) (= (len a b) 5) (= (len b c) 7) (= (total-cost) 0))
  (:goal (at c)) (:metric minimize (total-cost)))"""


def test_action_costs_and_statics() -> None:
    s = make(COSTS, COST_PROBLEM)
    task = s.task
    drive_ab = next(a for a in task.actions if task.render_action(a) == "(drive a b)")
    assert drive_ab.cost == 5
    # the static road atom is checked at grounding time, not at run time ...
    assert all(task.atoms[i][0] != s.lifted.predicate_index["road"] for i in drive_ab.pre)
    # ... but stays visible in the state
    assert "(road a b)" in s.state_atoms()
    assert "(road a b)" not in s.state_atoms(include_static=False)
    assert s.execute("(drive a b)").success and s.execute("(wait b)").success
    assert s.execute("(drive b c)").goal_reached
    report = s.validate()
    assert report.valid and report.cost == 14 and not report.unit_cost and report.length == 3


def test_missing_cost_value_is_an_error_where_the_action_executes() -> None:
    """The grounded backend as the lifted one (issue 30): a task with an action
    whose cost has no value loads; the action is not listed as applicable, and
    executing it is UNDEFINED_FUNCTION_VALUE (VAL rejects a plan there)."""
    problem = COST_PROBLEM.replace("(= (len b c) 7)", "")
    session = make(COSTS, problem)
    assert session.execute("(drive a b)").success
    assert session.applicable_names() == ["(wait b)"]
    refused = session.execute("(drive b c)")
    assert not refused.success and refused.failure.code == "UNDEFINED_FUNCTION_VALUE"
    assert "(len b c)" in refused.failure.message and session.plan() == ["(drive a b)"]


def test_missing_cost_value_fails_the_step_that_executes_it_not_before() -> None:
    """The validator instantiates actions on demand: an action whose cost is
    undefined is inapplicable like any other while its preconditions fail,
    and an error (UNDEFINED_FUNCTION_VALUE) only when it would execute."""
    from pypddlengine import compile_task, parse_domain, parse_problem, validate_plan

    problem = COST_PROBLEM.replace("(= (len b c) 7)", "")
    lifted = compile_task(parse_domain(COSTS), parse_problem(problem))
    early = validate_plan(lifted, ["(drive b c)"])
    assert early.failure is not None and early.failure.code == "INAPPLICABLE_ACTION"
    late = validate_plan(lifted, ["(drive a b)", "(drive b c)"])
    assert late.failure is not None and late.failure.step == 2
    assert late.failure.code == "UNDEFINED_FUNCTION_VALUE" and "(len b c)" in late.failure.message
    assert late.cost == 5


def test_unreachable_goal_is_a_proven_dead_end() -> None:
    s = make(COSTS, COST_PROBLEM.replace("(road b c)", ""))
    assert s.task.unreachable_goals
    analysis = s.analysis()
    assert analysis.dead_end and analysis.h_ff is None


def test_untyped_domain_typed_objects_are_read_as_object() -> None:
    domain = "(define (domain u) (:predicates (p ?x)) (:action a :parameters (?x) :precondition (p ?x) :effect (not (p ?x))))"
    s = make(domain, "(define (problem u1) (:domain u) (:objects k - thing) (:init (p k)) (:goal (not (p k))))")
    assert s.applicable_names() == ["(a k)"]
