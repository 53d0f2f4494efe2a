"""Issue 30: mutation fuzzing of the numeric corpus finds no traceback.

Numbers of IPC numeric tasks are replaced by huge literals (thousands of
digits, long decimals, values just past what a double holds), nested deeply,
negated, zeroed or squared, and initial values are repeated (identically or
not); then the task is opened, walked, explained and validated. Only typed
PDDLError may come out (a mutation is allowed to make the task wrong, never to
crash the engine). A bounded sample runs by default; ``--runslow`` runs every
task of the corpus."""

from __future__ import annotations

import random
import re

import pytest
from numeric_cases import NUMERIC_CORPUS_REASON, numeric_tasks

from pypddlengine import PDDLError, open_session
from pypddlengine.grounding import GroundingOptions

TASKS = numeric_tasks()
FIRST = sorted({t[1]: t for t in reversed(TASKS)}.values())
LIMITS = GroundingOptions(max_actions=20_000, max_atoms=50_000, max_seconds=10)
NUMBER = re.compile(r"(?<![\w?-])-?\d+(?:\.\d+)?(?![\w-])")
INIT_VALUE = re.compile(r"\(\s*=\s*\([^()]*\)\s*-?\d+(?:\.\d+)?\s*\)")

HUGE = ["9" * 4301, "1" + "0" * 400, "0." + "0" * 5000 + "1", "1" + "0" * 400 + ".5", "9" * 361,
        "0." + "0" * 323 + "49406564584124654", "179769313486231570814527423731704356798070567525844996598917476803157"
        "2607800285387605895586327668781715404589535143824642343213268894641827684675467035375169860499105765512"
        "8207624549009038932894407586850845513394230458323690322294816580855933212334827479782620414472316873817"
        "7180919299881250404026184124858368", "0", "-1", "2"]


def mutate(domain: str, problem: str, rng: random.Random) -> tuple[str, str]:
    """One to three mutations of the numbers, the nesting or the initial values."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["number", "number", "square", "nest", "duplicate", "duplicate-different"])
        target = rng.choice(["domain", "problem"])
        text = domain if target == "domain" else problem
        if kind == "number":
            spots = list(NUMBER.finditer(text))
            if spots:
                m = rng.choice(spots)
                text = text[:m.start()] + rng.choice(HUGE) + text[m.end():]
        elif kind == "square":  # effects that grow fast: scale-up by itself
            text = text.replace("(increase ", "(scale-up ", rng.randint(1, 3)).replace(" 1)", " 1000000)", 2)
        elif kind == "nest":
            spots = [m.start() for m in re.finditer(r"\(and ", text)]
            if spots:
                at = rng.choice(spots)
                depth = rng.choice([50, 199, 250, 2000])
                text = text[:at] + "(and " * depth + text[at:].replace(")", ")" + ")" * depth, 1)
        else:
            facts = list(INIT_VALUE.finditer(problem))
            if facts:
                fact = rng.choice(facts).group()
                if kind == "duplicate-different":
                    fact = NUMBER.sub("12345", fact)
                problem = problem.replace("(:init", "(:init " + fact, 1)
            continue
        if target == "domain":
            domain = text
        else:
            problem = text
    return domain, problem


def exercise(domain: str, problem: str, seed: int) -> str:
    """Open, walk, explain and validate; the code of the PDDLError that stopped it, or ``ok``."""
    rng = random.Random(seed)
    try:
        session = open_session(domain, problem, text=True, backend=rng.choice(["auto", "lifted"]),
                               options=LIMITS)
        for _ in range(6):
            listed = session.applicable_names()
            if not listed:
                break
            choice = rng.choice(listed)
            session.explain(choice)
            result = session.execute(choice)
            assert result.success, (choice, result.failure)  # what is listed executes
            session.state_values()
        session.validate(max_seconds=10)
        return "ok"
    except PDDLError as err:
        err.render()
        return err.code


def _run(task: tuple, seeds: range) -> set[str]:  # type: ignore[type-arg]
    domain, problem = task[1].read_text(errors="replace"), task[2].read_text(errors="replace")
    codes = set()
    for seed in seeds:
        d, p = mutate(domain, problem, random.Random(seed))
        codes.add(exercise(d, p, seed))
    return codes


@pytest.mark.skipif(not TASKS, reason=NUMERIC_CORPUS_REASON)
@pytest.mark.parametrize("task", FIRST[::3], ids=[t[0] for t in FIRST[::3]])
def test_mutated_numeric_tasks_raise_only_typed_errors(task: tuple) -> None:  # type: ignore[type-arg]
    _run(task, range(4))


def test_the_mutations_reach_the_bounds() -> None:
    """The fuzz run is not vacuous: its mutations meet the new limits."""
    if not TASKS:
        pytest.skip(NUMERIC_CORPUS_REASON)
    codes = _run(FIRST[0], range(40))
    assert "NUMERIC_OVERFLOW" in codes and len(codes) >= 2, codes


@pytest.mark.slow
@pytest.mark.skipif(not TASKS, reason=NUMERIC_CORPUS_REASON)
@pytest.mark.parametrize("task", TASKS, ids=[t[0] for t in TASKS])
def test_every_mutated_numeric_task_raises_only_typed_errors(task: tuple) -> None:  # type: ignore[type-arg]
    _run(task, range(16))
