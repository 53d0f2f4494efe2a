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
def answer(files: tuple[str, ...], compare: bool, state_limit: int | None) -> None:
    """Print one JSON line {"id", "answer"} per question of FILES (.json or .json.gz in ACPBench's schema).

    A question without PDDL (ACPBench's published boolean and multiple-choice
    files) gets "answer": null and an "error" saying so."""
    from .exam_questions import compare as compare_label
    from .exam_questions import format_of, iter_answers, task_of

    summary: Counter[tuple[str, str, str]] = Counter()
    for doc, value, error in iter_answers(list(files), state_limit=state_limit):
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
