"""Seeded question sets in ACPBench's schema, for any STRIPS domain and problem.

:func:`make_questions` samples states along random walks from the problem's
initial state (at chosen depths), writes each state as a problem whose
``:init`` is that state, and asks ACPBench's eight questions about it:
generative ones (answered exactly by :func:`pypddlengine.exam_questions.answer_question`),
boolean ones balanced between yes and no, and multiple-choice ones with one
right choice and three wrong by construction. Every question carries the
PDDL, the question in plain language (a generic verbaliser from the
predicate and action names) and, for boolean and multiple-choice questions,
``pddl_query``: the asked items in PDDL, so that they can be answered again.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .exam import TASKS, ExamTask
from .exam_questions import answer_question, query_truth
from .printer import format_problem
from .syntax import parse_problem

__all__ = ["GEN_QUESTIONS", "make_questions", "state_problem", "verbalise"]

GROUP = {"app": "applicable_actions", "prog": "progression", "reach": "reachable_atom", "val": "validation",
         "areach": "reachable_action", "just": "action_justification", "land": "landmarks", "nexta": "goal_closer"}
MCQ_SUFFIX = {"app": "mc", "reach": "mc", "areach": "mc"}  # ACPBench's spelling per task, else "mcq"

GEN_QUESTIONS = {
    "app": "Generate the list of all ground actions that are applicable in this state.",
    "prog": 'Break down the outcomes of performing the action "{action}" into two lists, positive effects and '
            "negative effects. Positive effects are the propositions that are false in the current state but "
            "will become true after performing the action. Negative effects are the propositions that are true "
            "in the current state and will become false after performing the action.",
    "reach": "What proposition can never hold in any potentially reachable state?",
    "val": 'What is the first inapplicable action in the next sequence of actions: "{plan}"?',
    "areach": "What action can never become applicable, in any state reachable from the current state?",
    "just": 'Simplify the plan "{plan}" by removing either a single action or a pair of consecutive actions, '
            "while still maintaining a valid plan. Provide the resulting simplified plan.",
    "land": "Generate a non-trivial fact landmark, one that does not hold in the initial state or goal.",
    "nexta": "What is the next action that takes us towards the goal?",
}


def verbalise(text: str) -> str:
    """A plain-language reading of an atom or action: its name's words, then
    its objects (``(pick-up b1)`` -> ``pick up b1``)."""
    words = text.strip("() ").split()
    if not words:
        return text
    return " ".join([words[0].replace("-", " ").replace("_", " "), *words[1:]])


def _replace_init(problem_text: str, atoms: Sequence[str]) -> str:
    """``problem_text`` whose ``:init`` holds ``atoms`` and the numeric
    values it gave (``(= (len a b) 3)``: the action costs of the state)."""
    start = problem_text.index("(:init")
    depth = 0
    values: list[str] = []
    item = 0
    for i in range(start, len(problem_text)):
        if problem_text[i] == "(":
            depth += 1
            if depth == 2:
                item = i
        elif problem_text[i] == ")":
            depth -= 1
            if depth == 1 and problem_text[item + 1:i].lstrip().startswith("="):
                values.append(problem_text[item:i + 1])
            if depth == 0:
                return f"{problem_text[:start]}(:init {' '.join([*atoms, *values])}){problem_text[i + 1:]}"
    raise ValueError("unbalanced :init")


def state_problem(exam: ExamTask, state: Any, base: str) -> str:
    """The problem text ``base`` with ``:init`` replaced by ``state`` (static atoms kept)."""
    atoms = sorted({exam.atom_text(a) for a in state} | {exam.atom_text(a) for a in exam.task.static_atoms})
    return _replace_init(base, atoms)


def _walk(exam: ExamTask, rng: random.Random, depth: int) -> tuple[Any, list[Any]]:
    state, steps = exam.state, []
    for _ in range(depth):
        options = exam.applicable(state)
        if not options:
            break
        a = rng.choice(options)
        steps.append(a)
        state = a.apply(state)
    return state, steps


def _context(exam: ExamTask) -> str:
    now = ", ".join(verbalise(exam.atom_text(a)) for a in sorted(exam.state, key=exam.atom_text))
    goal = ", ".join(verbalise(exam.lifted.render_key(k)) for k in exam.lifted.goal_pos)
    return f"The domain is {exam.lifted.domain.name}. Currently: {now}. The goal is: {goal}."


def make_questions(domain: str, problem: str, *, seed: int, per_task: int = 2,
                   depths: Sequence[int] = (1, 3, 6), tasks: Sequence[str] = TASKS,
                   formats: Sequence[str] = ("gen", "bool", "mcq")) -> list[dict[str, Any]]:
    """Questions about states sampled from ``problem`` (see the module docstring)."""
    rng = random.Random(seed)
    base = format_problem(parse_problem(problem, filename="PDDL_problem"))
    root = ExamTask(domain, base)  # bad input fails here (parsed and compiled as each question's text is)
    out: list[dict[str, Any]] = []
    for task in tasks:
        made = 0
        for attempt in range(per_task * 8):
            if made >= per_task:
                break
            state, _ = _walk(root, rng, depths[attempt % len(depths)])
            text = state_problem(root, state, base)
            exam = root.at(state)  # the question's task: ``text``'s, without parsing and grounding it again
            for fmt in formats:
                doc = _question(exam, rng, task, fmt, domain, text)
                if doc is not None:
                    doc["id"] = rng.getrandbits(63)
                    out.append(doc)
            made += 1
    return out


def _items(exam: ExamTask, rng: random.Random, task: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Queries for boolean/MCQ questions: ``(yes, no)`` lists of ``pddl_query`` objects."""
    rt = exam.task
    actions = [exam.action_text(a) for a in exam.applicable()]
    typed = list(exam._typed_actions())
    # only app and areach ask about them; the others shuffle as many numbers (the same draws: the same states next)
    every_action: list[Any] = ([exam.lifted.render_action(s, a) for s, a in typed]  # type: ignore[arg-type]
                               if task in ("app", "areach") else list(range(len(typed))))
    rng.shuffle(every_action)
    yes: list[dict[str, Any]] = []
    no: list[dict[str, Any]] = []
    if task == "app":
        yes = [{"action": a} for a in actions]
        no = [{"action": a} for a in every_action[:200] if a not in actions][:20]
    elif task == "prog" and actions:
        act = rng.choice(actions)
        after = exam.action(act).apply(exam.state)  # type: ignore[union-attr]
        atoms = [exam.atom_text(i) for i in range(len(rt.atoms)) if rt.atoms[i][0] in exam.lifted.fluent_predicates]
        yes = [{"action": act, "atom": t} for t in atoms if exam.task.atom_ids[_key(exam, t)] in after]
        no = [{"action": act, "atom": t} for t in atoms if exam.task.atom_ids[_key(exam, t)] not in after]
    elif task in ("reach", "areach"):
        never, undecided = exam.unreachable_atoms() if task == "reach" else exam.unreachable_actions()
        kind = "atom" if task == "reach" else "action"
        pool = ([exam.lifted.render_key((p, *a)) for p, a in exam._typed_atoms()] if task == "reach"
                else every_action)
        no = [{kind: t} for t in never]
        yes = [{kind: t} for t in pool if t not in never and t not in undecided][:50]
    elif task in ("val", "just"):
        plan = exam.any_plan(exam.state) or []
        steps = [exam.action_text(a) for a in plan]
        if task == "val" and steps:
            yes = [{"plan": steps}]
            no = [{"plan": steps[:i] + steps[i + 1:]} for i in range(len(steps))]
            no = [q for q in no if not exam.is_plan(exam.actions(q["plan"]))][:5]
        elif task == "just" and steps:
            padded = steps[:]
            extra = exam.applicable()
            if extra:
                first = exam.action_text(rng.choice(extra))
                padded = [first, *steps]
            for r in exam.removals(padded):
                yes.append({"plan": padded, "remove": [r.index, r.index + 1] if r.pair else [r.index]})
            taken = {tuple(q["remove"]) for q in yes}
            no = [{"plan": padded, "remove": [i]} for i in range(len(padded)) if (i,) not in taken][:10]
    elif task == "land":
        marks = exam.landmark_sample()
        yes = [{"atom": t} for t in marks["yes"]]
        no = [{"atom": t} for t in marks["no"]]
    return yes, no


def _truth(exam: ExamTask, task: str, query: dict[str, Any]) -> bool:
    """A made query's truth, for the check that an MCQ has one right choice: a
    land query's from the sample its atoms came from (every atom there proved),
    any other's from :func:`query_truth`."""
    if task == "land":
        marks = exam.landmark_sample()
        assert query["atom"] in marks["yes"] or query["atom"] in marks["no"]
        return query["atom"] in marks["yes"]
    return query_truth(exam, task, query)


def _land_answer(exam: ExamTask) -> dict[str, list[str]]:
    """A generative land question's answer: the atoms proved (not) landmarks by
    :meth:`ExamTask.landmark_sample`, a partial answer as ACPBench's labels are
    (``exam answer`` classifies every atom, and agrees with it)."""
    marks = exam.landmark_sample()
    if not marks["maybe"]:
        del marks["maybe"]
    return marks


def _key(exam: ExamTask, text: str) -> tuple[int, ...]:
    words = text.strip("()").split()
    lifted = exam.lifted
    return (lifted.predicate_index[words[0]], *(lifted.object_index[w] for w in words[1:]))


def _describe(task: str, q: dict[str, Any]) -> str:
    if task in ("app",):
        return f'Is the action "{verbalise(q["action"])}" applicable in this state?'
    if task == "prog":
        return (f'Will the fact "{verbalise(q["atom"])}" hold after performing the action '
                f'"{verbalise(q["action"])}" in the current state?')
    if task == "reach":
        return f'Is it possible to transition to a state where "{verbalise(q["atom"])}" holds?'
    if task == "areach":
        return f'Is it possible to transition to a state where the action "{verbalise(q["action"])}" can be applied?'
    if task == "val":
        return f'Is the sequence of actions "{", ".join(map(verbalise, q["plan"]))}" a plan from this state?'
    if task == "just":
        removed = " and ".join(verbalise(q["plan"][i]) for i in q["remove"])
        return (f'Given the plan "{", ".join(map(verbalise, q["plan"]))}", can the step(s) at position(s) '
                f'{", ".join(str(i) for i in q["remove"])} ({removed}) be removed and the rest still be a plan?')
    return f'Is the fact "{verbalise(q["atom"])}" a landmark (it must hold at some point along any plan) for this state?'


def _question(exam: ExamTask, rng: random.Random, task: str, fmt: str, domain: str,
              problem: str) -> dict[str, Any] | None:
    doc: dict[str, Any] = {"group": f"{GROUP[task]}_{fmt if fmt != 'mcq' else MCQ_SUFFIX.get(task, 'mcq')}",
                           "context": _context(exam), "PDDL_domain": domain, "PDDL_problem": problem}
    if fmt == "gen":
        fields: dict[str, str] = {}
        if task == "prog":
            acts = exam.applicable()
            if not acts:
                return None
            fields["action"] = exam.action_text(rng.choice(acts))
        if task in ("val", "just"):
            plan = exam.any_plan(exam.state)
            if not plan:
                return None
            steps = [exam.action_text(a) for a in plan]
            if task == "just":
                steps = [exam.action_text(exam.applicable()[0]), *steps] if exam.applicable() else steps
            else:
                steps = steps[: max(1, len(steps) - 1)] + [steps[0]] if len(steps) > 1 else steps
            fields["plan"] = " ".join(steps)
        if task == "nexta" and exam.task.is_goal(exam.state):
            return None
        doc["question"] = GEN_QUESTIONS[task].format(**fields)
        doc["answer"] = _land_answer(exam) if task == "land" else answer_question(doc, exam=exam)
        return doc
    yes, no = _items(exam, rng, task)
    if fmt == "bool":
        pool = [(q, "yes") for q in yes] if rng.random() < 0.5 else [(q, "no") for q in no]
        if not pool:
            return None
        query, label = rng.choice(pool)
        doc.update(question=_describe(task, query), pddl_query=query, answer=label)
        return doc
    if not yes or len(no) < 3:
        return None
    right = rng.choice(yes)
    choices = [right, *rng.sample(no, 3)]
    rng.shuffle(choices)
    letters = ["A", "B", "C", "D"]
    texts = [_describe(task, q) for q in choices]
    doc.update(question="Which of the following is true? " + " ".join(f"{x}. {t}" for x, t in zip(letters, texts)),
               choices={"text": texts, "label": letters}, pddl_query={"choices": choices},
               answer=letters[choices.index(right)])
    assert all(_truth(exam, task, q) == (q is right) for q in choices)
    return doc
