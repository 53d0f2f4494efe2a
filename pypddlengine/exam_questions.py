"""Question files in ACPBench's published JSON schema: read, answer, compare.

A question is a JSON object with ``id``, ``group`` (``applicable_actions_gen``,
``progression_bool``, ...), ``context``, ``question`` and ``answer``;
generative questions (and every question :mod:`pypddlengine.exam_make`
writes) also carry ``PDDL_domain`` and ``PDDL_problem``, whose ``:init`` is
the state asked about. :func:`answer_question` answers from the PDDL with
:class:`pypddlengine.exam.ExamTask`, in the dataset's own shape;
:func:`agrees` says whether an answer agrees with a label, per task (see
docs/exams.md for each task's rule).
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .errors import PDDLError
from .exam import TASKS, ExamTask, normal_text, plan_steps

__all__ = ["GROUPS", "Unanswerable", "agrees", "compare", "query_truth", "answer_question", "format_of", "read_questions", "task_of"]

GROUPS = {
    "applicable_actions": "app", "progression": "prog", "reachable_atom": "reach", "validation": "val",
    "reachable_action": "areach", "action_justification": "just", "landmarks": "land", "goal_closer": "nexta",
}
"""ACPBench's group prefixes and the task each names."""

_FORMATS = {"gen": "gen", "bool": "bool", "mc": "mcq", "mcq": "mcq"}


class Unanswerable(Exception):
    """A question that carries nothing the engine can answer from (no PDDL)."""


def task_of(doc: Mapping[str, Any]) -> str:
    group = str(doc.get("group", ""))
    prefix = group.rpartition("_")[0]
    if prefix in GROUPS:
        return GROUPS[prefix]
    raise Unanswerable(f"unknown question group {group!r}")


def format_of(doc: Mapping[str, Any]) -> str:
    return _FORMATS.get(str(doc.get("group", "")).rpartition("_")[2], "gen")


def read_questions(path: str | Path) -> list[dict[str, Any]]:
    """The questions of a ``.json`` (a list, or one object per line) or ``.json.gz`` file."""
    p = Path(path)
    raw = gzip.decompress(p.read_bytes()) if p.name.endswith(".gz") else p.read_bytes()
    text = raw.decode("utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        return list(json.loads(text))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _quoted(question: str) -> str:
    """The text between the first and the last double quote."""
    first, last = question.find('"'), question.rfind('"')
    return question[first + 1:last] if 0 <= first < last else question


def _words(text: str) -> list[str]:
    return re.findall(r"[\w\-]+", text.lower())


def match_action(exam: ExamTask, text: str) -> Any:
    """The applicable action a plain-language (or PDDL) phrase names: its
    objects must all be words of the phrase; ties go to the action whose
    name shares most words with the phrase, then whose arguments appear in
    the phrase's order. ``None`` when nothing fits."""
    if text.strip().startswith("("):
        try:
            return exam.action(text)
        except PDDLError:
            pass
    words = _words(text)
    best: tuple[tuple[int, int], Any] | None = None
    for action in exam.applicable():
        args = [exam.lifted.object_display[o].lower() for o in action.args]
        if not all(words.count(a) >= args.count(a) for a in args):
            continue
        name_words = set(re.split(r"[\-_]", action.schema.name.lower()))
        shared = len(name_words & set(words))
        positions = [words.index(a) for a in args]
        ordered = int(positions == sorted(positions))
        score = (shared, ordered)
        if best is None or score > best[0]:
            best = (score, action)
    return None if best is None else best[1]


def answer_question(doc: Mapping[str, Any], *, state_limit: int | None = None, exam: ExamTask | None = None,
                    sources: Mapping[str, str] | None = None) -> Any:
    """The exact answer to ``doc`` in the dataset's shape; raises
    :class:`Unanswerable` for a question it cannot read and :class:`PDDLError`
    for bad PDDL. ``exam``: the task of ``doc``'s PDDL when already built (its
    answers are reused). A boolean or multiple-choice question without PDDL
    (ACPBench's published ones) is read from its plain language
    (:mod:`pypddlengine.exam_nl`), its domain's PDDL taken from ``sources``
    (``{domain: PDDL text}``, see :func:`pypddlengine.exam_nl.domain_sources`)."""
    task = task_of(doc)
    if "PDDL_domain" not in doc or "PDDL_problem" not in doc:
        if format_of(doc) != "gen" and sources is not None:
            from .exam_nl import NotRead, Undecided, answer_nl

            try:
                return answer_nl(doc, task, format_of(doc), sources, state_limit=state_limit)
            except NotRead as err:
                raise Unanswerable(f"not read: {err}") from err
            except Undecided as err:
                raise Unanswerable(f"undecided: {err}") from err
        raise Unanswerable("the question carries no PDDL_domain/PDDL_problem (only a natural-language context)")
    if exam is None:
        kwargs = {} if state_limit is None else {"state_limit": state_limit}
        exam = ExamTask(str(doc["PDDL_domain"]), str(doc["PDDL_problem"]), **kwargs)
    fmt = format_of(doc)
    query = doc.get("pddl_query")
    if fmt != "gen":
        if not isinstance(query, Mapping):
            raise Unanswerable("a boolean or multiple-choice question needs its pddl_query to be answered")
        if fmt == "bool":
            return "yes" if query_truth(exam, task, query) else "no"
        right = [i for i, q in enumerate(query["choices"]) if query_truth(exam, task, q)]
        if len(right) != 1:
            raise Unanswerable(f"{len(right)} of the choices are true")
        return "ABCDEFGH"[right[0]]
    question = str(doc.get("question", ""))
    if task == "app":
        return [exam.action_text(a) for a in exam.applicable()]
    if task == "prog":
        action = match_action(exam, _quoted(question))
        if action is None:
            raise Unanswerable("no applicable action fits the action the question names")
        pos, neg = exam.progression(action)
        return {"pos": pos, "neg": neg}
    if task == "val":
        index, _ = exam.run(exam.actions(plan_steps(_quoted(question))))
        return index
    if task == "reach":
        never, undecided = exam.unreachable_atoms()
        return [t.strip("()") for t in never]
    if task == "areach":
        never, undecided = exam.unreachable_actions()
        return never
    if task == "just":
        steps = plan_steps(_quoted(question))
        out: list[list[str]] = []
        for r in exam.removals(steps):
            # a single step with its 0-based index (ACPBench writes another number there, see docs/exams.md)
            out.append([*r.steps, "-1"] if r.pair else [r.steps[0], str(r.index)])
        return out
    if task == "land":
        answer = exam.landmarks()
        if not answer["maybe"]:
            del answer["maybe"]
        return answer
    assert task == "nexta" and task in TASKS
    result = exam.next_actions()
    opt = result["opt"]
    return {**result, "opt": None if opt is None else str(opt)}


def query_truth(exam: ExamTask, task: str, q: Mapping[str, Any]) -> bool:
    """The truth of one boolean query (a ``pddl_query``, see :mod:`pypddlengine.exam_make`)."""
    if task == "app":
        action = exam.action(q["action"])
        return action is not None and action.applicable(exam.state)
    if task == "prog":
        action = exam.action(q["action"])
        pos, neg = exam.progression(action) if action is not None else ([], [])
        atom = normal_text(q["atom"])
        holds_now = atom in {normal_text(exam.atom_text(a)) for a in exam.state}
        return atom in _set(pos) or (holds_now and atom not in _set(neg))
    if task == "reach":
        never, undecided = exam.unreachable_atoms()
        if normal_text(q["atom"]) in _set(undecided):
            raise Unanswerable("undecided within the state limit")
        return normal_text(q["atom"]) not in _set(never)
    if task == "areach":
        never, undecided = exam.unreachable_actions()
        if normal_text(q["action"]) in _set(undecided):
            raise Unanswerable("undecided within the state limit")
        return normal_text(q["action"]) not in _set(never)
    if task == "val":
        return exam.is_plan(exam.actions(q["plan"]))
    if task == "just":
        rest = [s for i, s in enumerate(q["plan"]) if i not in set(q["remove"])]
        return exam.is_plan(exam.actions(rest))
    if task == "land":
        marks = exam.landmarks()
        if normal_text(q["atom"]) in _set(marks.get("maybe", [])):
            raise Unanswerable("undecided within the state limit")
        return normal_text(q["atom"]) in _set(marks["yes"])
    raise Unanswerable(f"no boolean form of {task}")


def _set(items: Any) -> set[str]:
    return {normal_text(str(x)) for x in items}


def compare(doc: Mapping[str, Any], answer: Any) -> tuple[str, str]:
    """``(verdict, note)``: ``"agree"``; ``"deviation"``, a documented
    difference of definition (docs/exams.md), with the note naming it;
    ``"undecided"`` when the answer left part of the question to a search
    that hit its limit; else ``"differ"``. Rules per task:

    ``app``, ``prog``, ``val``: equality. ``just``: the same multiset of
    removable steps and pairs (the number after a single step is not
    compared; an answer with more removals than the label is a deviation). ``reach``/``areach``: every labelled item is in the answer and
    the label is empty exactly when the answer is (the label lists some
    items, "none" when empty). ``land``: the labelled ``yes`` within the
    answer's ``yes``, the labelled ``no`` within its ``no``. ``nexta``: the
    labelled ``yes`` and ``no`` within the answer's, equal ``opt`` (the label
    leaves the rest ``maybe``). Boolean and multiple-choice: equality."""
    label: Any = doc.get("answer")
    task, fmt = task_of(doc), format_of(doc)
    if fmt != "gen":
        return ("agree" if str(answer).strip().lower() == str(label).strip().lower() else "differ"), ""
    if task == "app":
        ok = _set(answer) == _set(label)
    elif task == "prog":
        ok = _set(answer["pos"]) == _set(label["pos"]) and _set(answer["neg"]) == _set(label["neg"])
    elif task == "val":
        ok = int(answer) == int(label)
    elif task in ("reach", "areach"):
        ours, theirs = _set(answer), _set(label)
        if theirs <= ours and (not theirs) == (not ours):
            return "agree", ""
        if not theirs:
            return "deviation", f"label 'none', but {sorted(ours)[0]} never holds"
        return "differ", f"not proved: {sorted(theirs - ours)[:3]}"
    elif task == "just":
        def entries(xs: Any) -> list[tuple[str, ...]]:  # the steps, without the number of a single step
            return sorted(tuple(normal_text(a) for a in x if a.strip().startswith("(")) for x in xs)
        mine, given = Counter(entries(answer)), Counter(entries(label))
        if mine == given:
            return "agree", ""
        if not given - mine:
            return "deviation", f"also removable: {sorted((mine - given).elements())[:2]}"
        return "differ", f"not removable: {sorted((given - mine).elements())[:2]}"
    elif task == "land":
        ly, ln = _set(label["yes"]), _set(label["no"])
        oy, on = _set(answer["yes"]), _set(answer["no"])
        if not (ly <= oy):
            return "differ", f"labelled landmarks not proved: {sorted(ly - oy)[:3]}"
        if ln <= on:
            return "agree", ""
        if ln - on <= oy:
            return "deviation", f"labelled 'no' but a landmark by definition: {sorted(ln - on)[:3]}"
        return "undecided", f"{sorted(ln - on - oy)[:3]}"
    else:
        ok = (_set(label["yes"]) <= _set(answer["yes"]) and _set(label["no"]) <= _set(answer["no"])
              and str(answer["opt"]) == str(label.get("opt")))
        if not ok and answer.get("maybe"):
            return "undecided", "an optimal search hit its state limit"
    return ("agree" if ok else "differ"), ""


def agrees(doc: Mapping[str, Any], answer: Any) -> bool:
    """Whether :func:`compare` finds ``answer`` to agree with the label."""
    return compare(doc, answer)[0] == "agree"


def iter_answers(paths: list[str], *, state_limit: int | None = None,
                 pddl_from: list[str] | None = None) -> Iterator[tuple[dict[str, Any], Any, str]]:
    """``(question, answer, error)`` for every question of ``paths``; ``error``
    is empty when the answer is an answer. ``pddl_from``: generative question
    files whose ``PDDL_domain`` serves the plain-language questions of the
    same domain (default: the ``*.gen.json`` files beside each file and in the
    folders beside its folder, ACPBench's layout)."""
    from .exam_nl import domain_sources, sibling_sources

    def sources_of(files: list[str]) -> dict[str, str]:
        return domain_sources(doc for f in files for doc in read_questions(f))

    fixed = sources_of(pddl_from) if pddl_from is not None else None
    for path in paths:
        sources: dict[str, str] | None = fixed
        for doc in read_questions(path):
            if sources is None and "PDDL_domain" not in doc and format_of(doc) != "gen":
                sources = sources_of(sibling_sources(path))
            try:
                yield doc, answer_question(doc, state_limit=state_limit, sources=sources), ""
            except (Unanswerable, PDDLError) as err:
                yield doc, None, str(err)


__all__ += ["iter_answers", "match_action"]


# ---------------------------------------------------------------------- scoring model answers


def _atoms_in(text: str) -> list[str]:
    """The parenthesised items of a free-text answer, normalised (text outside parentheses is ignored)."""
    return [normal_text(s) for s in plan_steps(text.lower())]


def _first_word(text: str, words: tuple[str, ...]) -> str | None:
    found = re.findall(r"\b(" + "|".join(words) + r")\b", text.strip().lower())
    return found[0] if found else None


def _choice(text: str) -> str | None:
    m = re.search(r"\b([A-D])\b", text.strip())
    return m.group(1) if m else None


def score_answer(doc: Mapping[str, Any], given: Any, *, state_limit: int | None = None) -> bool:
    """Whether a model's answer ``given`` (free text, or the structured shape
    of :func:`answer_question`) is right, by the task's definition:
    ``app`` exactly the applicable actions; ``prog`` exactly the positive and
    negative effects (free text: items before the word "negative" are
    positive); ``val`` the first inapplicable index (``none``: every step
    applies); ``reach``/``areach`` an atom/action that never holds/applies, or
    ``none`` when there is none; ``just`` a strictly shorter subsequence of the
    plan that is still a plan; ``land`` a landmark that holds neither now nor
    in the goal, or ``none``; ``nexta`` an applicable action that starts an
    optimal plan. Boolean: the first yes/no word; MCQ: the first letter A-D."""
    task, fmt = task_of(doc), format_of(doc)
    if fmt == "bool":
        return _first_word(str(given), ("yes", "no")) == str(doc.get("answer")).strip().lower()
    if fmt == "mcq":
        return _choice(str(given)) == str(doc.get("answer")).strip().upper()
    text = given if isinstance(given, str) else json.dumps(given)
    if "PDDL_domain" not in doc:
        raise Unanswerable("the question carries no PDDL")
    kwargs = {} if state_limit is None else {"state_limit": state_limit}
    exam = ExamTask(str(doc["PDDL_domain"]), str(doc["PDDL_problem"]), **kwargs)
    items = _atoms_in(text)
    none = _first_word(text, ("none",)) is not None and not items
    question = str(doc.get("question", ""))
    if task == "app":
        return set(items) == _set(exam.action_text(a) for a in exam.applicable())
    if task == "prog":
        truth = answer_question(doc, state_limit=state_limit)
        if isinstance(given, Mapping):
            pos, neg = _set(given.get("pos", [])), _set(given.get("neg", []))
        else:
            cut = text.lower().find("neg")
            pos, neg = set(_atoms_in(text[:cut] if cut >= 0 else text)), set(_atoms_in(text[cut:]) if cut >= 0 else [])
        return pos == _set(truth["pos"]) and neg == _set(truth["neg"])
    if task == "val":
        index, _ = exam.run(exam.actions(plan_steps(_quoted(question))))
        numbers = re.findall(r"-?\d+", text)
        if index == -1 and none:
            return True
        return bool(numbers) and int(numbers[0]) == index
    if task in ("reach", "areach"):
        never, _ = exam.unreachable_atoms() if task == "reach" else exam.unreachable_actions()
        if none:
            return not never
        return len(items) == 1 and items[0] in _set(never)
    if task == "just":
        plan = [normal_text(s) for s in plan_steps(_quoted(question))]
        if not items or len(items) >= len(plan):
            return False
        it = iter(plan)
        if not all(step in it for step in items):  # a subsequence
            return False
        try:
            return exam.is_plan(exam.actions(items))
        except PDDLError:
            return False
    if task == "land":
        marks = exam.landmarks()
        if none:
            return not marks["yes"]
        return len(items) == 1 and items[0] in _set(marks["yes"])
    result = exam.next_actions()
    return len(items) == 1 and items[0] in _set(result["yes"])  # type: ignore[arg-type]


__all__ += ["score_answer"]
