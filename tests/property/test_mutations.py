"""Mutated corpus files (deleted or inserted characters, swapped or repeated
tokens, garbage bytes) only ever raise PDDLError subclasses: never another
exception, a crash or a hang. Grounding runs under small limits so that a
mutation that explodes the task ends in GroundingLimitError."""

from __future__ import annotations

import contextlib
import re

import pytest
from corpus import CORPUS, CORPUS_REASON
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pypddlengine import PDDLError, Session, compile_task, ground, parse_domain, parse_plan, parse_problem
from pypddlengine.grounding import GroundingOptions

pytestmark = pytest.mark.skipif(not (CORPUS / "index.json").is_file(), reason=CORPUS_REASON)

FILES = [
    ("potassco-pddl-instances/ipc2000-blocks-strips-typed/domain.pddl",
     "potassco-pddl-instances/ipc2000-blocks-strips-typed/instance-4.pddl"),
    ("downward-benchmarks/tidybot-sat11-strips/domain.pddl", "downward-benchmarks/tidybot-sat11-strips/p01.pddl"),
    ("downward-benchmarks/elevators-sat08-strips/domain.pddl", "downward-benchmarks/elevators-sat08-strips/p01.pddl"),
    ("downward-benchmarks/childsnack-sat14-strips/domain.pddl",
     "downward-benchmarks/childsnack-sat14-strips/child-snack_pfile05.pddl"),
    ("downward-benchmarks/miconic-simpleadl/domain.pddl", "downward-benchmarks/miconic-simpleadl/s1-0.pddl"),
]
LIMITS = GroundingOptions(max_actions=20_000, max_atoms=20_000)
TOKEN = re.compile(r"\(|\)|[^\s()]+")


def _texts() -> list[tuple[str, str]]:
    return [((CORPUS / d).read_text(errors="replace"), (CORPUS / p).read_text(errors="replace")) for d, p in FILES]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, str, bool]:
    domain, problem = draw(st.sampled_from(_texts()))
    target_domain = draw(st.booleans())
    text = domain if target_domain else problem
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "insert", "swap", "repeat", "garbage", "truncate"]))
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        if kind == "delete":
            j = min(len(text), i + draw(st.integers(1, 20)))
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(["(", ")", "?", "-", ":", " and ", "(not ", "\x00", "é", ";"])) + text[i:]
        elif kind in ("swap", "repeat"):
            tokens = TOKEN.findall(text)
            if len(tokens) > 2:
                a = draw(st.integers(0, len(tokens) - 1))
                b = draw(st.integers(0, len(tokens) - 1))
                if kind == "swap":
                    tokens[a], tokens[b] = tokens[b], tokens[a]
                else:
                    tokens.insert(a, tokens[b])
                text = " ".join(tokens)
        elif kind == "garbage":
            text = text[:i] + "".join(map(chr, draw(st.lists(st.integers(1, 0x2FF), max_size=12)))) + text[i:]
        else:
            text = text[:i]
    return (text, problem, True) if target_domain else (domain, text, False)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=mutated())
def test_mutated_files_raise_only_pddl_errors(case: tuple[str, str, bool]) -> None:
    domain_text, problem_text, _ = case
    try:
        task = ground(compile_task(parse_domain(domain_text), parse_problem(problem_text)), LIMITS)
        session = Session(task)
        for name in session.applicable_names()[:3]:
            session.execute(name)
        session.validate()
    except PDDLError as err:
        assert err.code and err.message
        str(err)  # rendering never fails either


@settings(max_examples=150, deadline=None, derandomize=True)
@given(text=st.text(max_size=200))
def test_random_plan_and_action_text(text: str) -> None:
    session = Session.from_pddl(*_texts()[0])
    with contextlib.suppress(PDDLError):
        parse_plan(text)
    result = session.execute(text)
    assert result.success or result.failure is not None
    assert session.validate([text]).valid in (True, False)
