"""``pypddl exam``: answer, make and score questions about action and change.

\b
  pypddl exam answer FILE... [--compare]
  pypddl exam make DOMAIN PROBLEM... --seed N [--out FILE]
  pypddl exam score QUESTIONS ANSWERS
"""

from __future__ import annotations

import json
import sys
from collections import Counter

import click

OK, DIFFERENT, BAD_INPUT = 0, 1, 2
VERDICTS = ("agree", "deviation", "undecided", "differ", "unanswered")


@click.group("exam")
def exam() -> None:
    """Questions about action and change (ACPBench's eight tasks), answered and scored exactly."""


@exam.command("answer")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--compare", is_flag=True, help="Add whether each answer agrees with the file's label; "
              "a summary per task and format goes to stderr.")
@click.option("--state-limit", type=click.IntRange(1, None), default=None,
              help="States one search may store before the answer is left undecided.")
@click.option("--pddl-from", "pddl_from", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="A generative question file whose PDDL_domain serves the plain-language questions of its "
                   "domain (repeatable; default: the *.gen.json files beside FILE and in its sibling folders).")
def answer(files: tuple[str, ...], compare: bool, state_limit: int | None, pddl_from: tuple[str, ...]) -> None:
    """Print one JSON line {"id", "answer"} per question of FILES (.json or .json.gz in ACPBench's schema).

    A boolean or multiple-choice question without PDDL (ACPBench's published
    ones) is read from its plain language; one that cannot be read gets
    "answer": null and an "error" saying why."""
    from .exam_questions import compare as compare_label
    from .exam_questions import format_of, iter_answers, task_of

    summary: Counter[tuple[str, str, str]] = Counter()
    for doc, value, error in iter_answers(list(files), state_limit=state_limit,
                                          pddl_from=list(pddl_from) if pddl_from else None):
        line: dict[str, object] = {"id": doc.get("id"), "answer": value}
        if error:
            line["error"] = error
        if compare:
            verdict, note = ("unanswered", "") if error else compare_label(doc, value)
            line["agrees"] = None if error else verdict == "agree"
            line["verdict"] = verdict
            if note:
                line["note"] = note
            try:
                summary[(task_of(doc), format_of(doc), verdict)] += 1
            except Exception:  # an unknown group: counted under its own name
                summary[(str(doc.get("group")), "?", verdict)] += 1
        click.echo(json.dumps(line))
    if compare:
        keys = sorted({(t, f) for t, f, _ in summary})
        for t, f in keys:
            parts = ", ".join(f"{v} {summary[(t, f, v)]}" for v in VERDICTS
                              if summary[(t, f, v)])
            click.echo(f"{t:7} {f:5} {parts}", err=True)
    sys.exit(OK)


@exam.command("make")
@click.argument("domain", type=click.Path(exists=True, dir_okay=False))
@click.argument("problems", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--per-task", type=click.IntRange(1, None), default=2, show_default=True,
              help="Sampled states per task and problem (each gives one question per format).")
@click.option("--depths", default="1,3,6", show_default=True, help="Random-walk depths of the sampled states.")
@click.option("--tasks", default=",".join(("app", "prog", "reach", "val", "areach", "just", "land", "nexta")),
              show_default=True)
@click.option("--formats", default="gen,bool,mcq", show_default=True)
@click.option("--relabel", "relabel_seed", type=int, default=None,
              help="Ask about a consistently renamed copy of the domain (names drawn with this seed).")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write a JSON list here (else stdout).")
def make(domain: str, problems: tuple[str, ...], seed: int, per_task: int, depths: str, tasks: str, formats: str,
         relabel_seed: int | None, out: str | None) -> None:
    """Write seeded question sets about DOMAIN and PROBLEMS in ACPBench's schema."""
    from pathlib import Path

    from .errors import PDDLError
    from .exam_make import make_questions

    try:
        domain_text = Path(domain).read_text()
        problem_texts = [Path(p).read_text() for p in problems]
        if relabel_seed is not None:
            from .printer import format_domain, format_problem
            from .relabel import relabel
            from .syntax import parse_domain, parse_problem

            new_domain, new_problems, _ = relabel(parse_domain(domain_text, filename=domain),
                                                  [parse_problem(t, filename=p) for t, p in zip(problem_texts, problems)],
                                                  relabel_seed)
            domain_text = format_domain(new_domain)
            problem_texts = [format_problem(p) for p in new_problems]
        docs = []
        for i, text in enumerate(problem_texts):
            docs += make_questions(domain_text, text, seed=seed + i, per_task=per_task,
                                   depths=[int(d) for d in depths.split(",")], tasks=tasks.split(","),
                                   formats=formats.split(","))
    except PDDLError as err:
        click.echo(str(err), err=True)
        sys.exit(BAD_INPUT)
    text = json.dumps(docs, indent=1)
    if out:
        Path(out).write_text(text)
        click.echo(f"{len(docs)} questions -> {out}", err=True)
    else:
        click.echo(text)


@exam.command("score")
@click.argument("questions", type=click.Path(exists=True, dir_okay=False))
@click.argument("answers", type=click.Path(exists=True, dir_okay=False))
def score(questions: str, answers: str) -> None:
    """Score model ANSWERS (JSON lines {"id", "answer"}, free text or structured) against QUESTIONS.

    Prints one JSON line {"id", "correct"} per answer and, on stderr, the accuracy per task and format."""
    from .errors import PDDLError
    from .exam_questions import Unanswerable, format_of, read_questions, score_answer, task_of

    by_id = {str(d.get("id")): d for d in read_questions(questions)}
    totals: Counter[tuple[str, str, bool]] = Counter()
    for given in read_questions(answers):
        doc = by_id.get(str(given.get("id")))
        if doc is None:
            click.echo(json.dumps({"id": given.get("id"), "correct": None, "error": "no such question"}))
            continue
        try:
            correct = score_answer(doc, given.get("answer"))
        except (PDDLError, Unanswerable) as err:
            click.echo(json.dumps({"id": given.get("id"), "correct": None, "error": str(err)}))
            continue
        totals[(task_of(doc), format_of(doc), correct)] += 1
        click.echo(json.dumps({"id": given.get("id"), "correct": correct}))
    for t, f in sorted({(t, f) for t, f, _ in totals}):
        right, n = totals[(t, f, True)], totals[(t, f, True)] + totals[(t, f, False)]
        click.echo(f"{t:7} {f:5} {right}/{n} correct", err=True)
