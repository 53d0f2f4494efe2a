"""LLM runs on exam question sets (issue 32) and their report.

``pypddl exam-llm run QUESTIONS --provider P --model M --out RECORDS.jsonl``
asks every question of a set (ACPBench's files or ``pypddl exam make``'s)
through a provider of the harness (``anthropic``, ``openai``, or offline:
``oracle``, the engine's exact answers written as a model would, and
``naive``, which says yes, A, or the first applicable action), scores each
reply with :func:`pypddlengine.exam_questions.score_answer` and appends one
record per question; a rerun skips the questions already recorded (resumable).

``pypddl exam-llm report RECORDS.jsonl...`` prints accuracy per model, task
and format with Wilson 95 % intervals, and each pair of models compared on
the questions both answered (exact McNemar, Holm-adjusted).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import click

from pypddlengine.errors import PDDLError
from pypddlengine.exam_questions import Unanswerable, answer_question, format_of, read_questions, score_answer, task_of

from ..llm.provider_offline import ScriptedProvider
from ..llm.providers import PROVIDERS, create_provider
from ..llm.types import CallParams, Msg, ProviderError, Turn
from .stats import holm, mcnemar_exact, wilson

__all__ = ["exam_llm", "offline_provider", "prompt", "report_rows", "run_exam"]

OFFLINE = ("oracle", "naive")

_INSTRUCTION = {
    "gen": "Answer with the PDDL atoms or actions in parentheses, e.g. (pick-up a); write none if there is none.",
    "bool": "Answer yes or no.",
    "mcq": "Answer with the letter of the right choice.",
}


def prompt(doc: dict[str, Any]) -> str:
    """The user message for one question: context, PDDL when the question has it, question, answer format."""
    parts = [str(doc.get("context", ""))]
    if "PDDL_domain" in doc:
        parts.append(f"Domain:\n{doc['PDDL_domain']}\nProblem (its :init is the current state):\n{doc['PDDL_problem']}")
    parts.append(f"Question {doc.get('id')}: {doc.get('question', '')}")
    parts.append(_INSTRUCTION[format_of(doc)])
    return "\n\n".join(parts)


def _as_text(answer: Any, task: str) -> str:
    if isinstance(answer, dict) and "pos" in answer:
        return f"Positive effects: {' '.join(answer['pos'])}. Negative effects: {' '.join(answer['neg'])}"
    if isinstance(answer, dict) and "yes" in answer:
        return answer["yes"][0] if answer["yes"] else "none"
    if isinstance(answer, list):
        if answer and isinstance(answer[0], list):  # just: the plan without the first removal
            return "none"
        if task in ("reach", "areach"):  # one item that never holds/applies
            return f"({answer[0].strip('()')})" if answer else "none"
        return " ".join(answer) if answer else "none"
    return str(answer)


def offline_provider(kind: str, docs: Sequence[dict[str, Any]]) -> ScriptedProvider:
    """An offline stand-in for a model: ``oracle`` answers with the label (or
    the engine's answer), ``naive`` answers yes / A / the first item it sees."""
    by_id = {str(d.get("id")): d for d in docs}

    def reply(conversation: list[Msg], tools: Any, params: CallParams) -> Turn:
        text = conversation[-1].text
        qid = text.split("Question ", 1)[1].split(":", 1)[0] if "Question " in text else ""
        doc = by_id.get(qid, {})
        fmt = format_of(doc) if doc else "gen"
        if kind == "naive":
            return Turn(text={"bool": "yes", "mcq": "A"}.get(fmt, "none"))
        if fmt != "gen":
            return Turn(text=str(doc.get("answer")))
        task = task_of(doc)
        if task == "just":
            from pypddlengine.exam import ExamTask, plan_steps
            question = str(doc["question"])
            steps = plan_steps(question[question.find('"') + 1:question.rfind('"')])
            removals = ExamTask(doc["PDDL_domain"], doc["PDDL_problem"]).removals(steps)
            if removals:
                r = removals[0]
                drop = {r.index, r.index + 1} if r.pair else {r.index}
                return Turn(text=" ".join(s for i, s in enumerate(steps) if i not in drop))
            return Turn(text="none")
        try:
            return Turn(text=_as_text(answer_question(doc), task))
        except (PDDLError, Unanswerable):
            return Turn(text="none")

    return ScriptedProvider(reply, model=kind)


async def run_exam(docs: Sequence[dict[str, Any]], provider: Any, out: Path, *, params: CallParams,
                   timeout_s: float = 120.0, on_record: Callable[[dict[str, Any]], None] | None = None) -> int:
    """Ask every question this model has not answered in ``out`` yet; append
    one record each. Returns how many were asked."""
    done: set[str] = set()
    if out.exists():
        for line in out.read_text().splitlines():
            if line.strip() and json.loads(line).get("model") == provider.model:
                done.add(str(json.loads(line)["id"]))
    asked = 0
    with out.open("a") as sink:
        for doc in docs:
            if str(doc.get("id")) in done:
                continue
            started = time.monotonic()
            record: dict[str, Any] = {"id": doc.get("id"), "task": task_of(doc), "format": format_of(doc),
                                      "model": provider.model, "provider": provider.name}
            try:
                turn = await provider.complete([Msg("user", prompt(doc))], [], params, timeout_s)
                record["reply"] = turn.text
                record["correct"] = score_answer(doc, turn.text)
            except ProviderError as err:
                record.update(error=f"{err.kind}: {err}", correct=None)
            except (PDDLError, Unanswerable) as err:
                record.update(error=str(err), correct=None)
            record["latency_s"] = round(time.monotonic() - started, 3)
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            asked += 1
            if on_record is not None:
                on_record(record)
    return asked


def report_rows(records: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(accuracy rows, model comparisons)`` of scored records."""
    scored = [r for r in records if r.get("correct") is not None]
    groups: dict[tuple[str, str, str], list[bool]] = {}
    for r in scored:
        for key in ((r["model"], r["task"], r["format"]), (r["model"], "all", "all")):
            groups.setdefault(key, []).append(bool(r["correct"]))
    rows = []
    for (model, task, fmt), values in sorted(groups.items()):
        k, n = sum(values), len(values)
        lo, hi = wilson(k, n)
        rows.append({"model": model, "task": task, "format": fmt, "correct": k, "n": n,
                     "accuracy": k / n, "ci95": [round(lo, 4), round(hi, 4)]})
    by_model: dict[str, dict[str, bool]] = {}
    for r in scored:
        by_model.setdefault(r["model"], {})[str(r["id"])] = bool(r["correct"])
    pairs: list[dict[str, Any]] = []
    for a, b in combinations(sorted(by_model), 2):
        common = by_model[a].keys() & by_model[b].keys()
        only_a = sum(by_model[a][i] and not by_model[b][i] for i in common)
        only_b = sum(by_model[b][i] and not by_model[a][i] for i in common)
        pairs.append({"models": [a, b], "paired": len(common), "only_first": only_a, "only_second": only_b,
                      "p": mcnemar_exact(only_a, only_b)})
    for pair, adjusted in zip(pairs, holm([float(p["p"]) for p in pairs]), strict=True):
        pair["p_holm"] = adjusted
    return rows, pairs


@click.group("exam-llm")
def exam_llm() -> None:
    """Ask models exam questions (pypddl exam make / ACPBench files) and report their accuracy."""


@exam_llm.command("run")
@click.argument("questions", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--provider", type=click.Choice([*PROVIDERS, *OFFLINE]), required=True)
@click.option("--model", default="", help="The model name (for oracle/naive: ignored).")
@click.option("--base-url", default=None)
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="Records (JSON lines), appended.")
@click.option("--timeout", "timeout_s", type=float, default=120.0, show_default=True)
def run(questions: tuple[str, ...], provider: str, model: str, base_url: str | None, out: str,
        timeout_s: float) -> None:
    """Ask every question of QUESTIONS not yet recorded in --out."""
    docs = [d for q in questions for d in read_questions(q)]
    chosen = offline_provider(provider, docs) if provider in OFFLINE else create_provider(
        provider, model, base_url=base_url)
    asked = asyncio.run(run_exam(docs, chosen, Path(out), params=CallParams(model=chosen.model), timeout_s=timeout_s))
    click.echo(f"{asked} questions asked -> {out}", err=True)


@exam_llm.command("report")
@click.argument("records", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
def report(records: tuple[str, ...], as_json: bool) -> None:
    """Accuracy per model, task and format (Wilson 95 %), and models compared (McNemar, Holm)."""
    rows_in = [json.loads(line) for r in records for line in Path(r).read_text().splitlines() if line.strip()]
    rows, pairs = report_rows(rows_in)
    if as_json:
        click.echo(json.dumps({"accuracy": rows, "comparisons": pairs}, indent=1))
        return
    click.echo(f"{'model':16} {'task':7} {'format':6} {'correct':>9} {'accuracy':>8}  95% CI")
    for r in rows:
        click.echo(f"{r['model']:16} {r['task']:7} {r['format']:6} {r['correct']:>4}/{r['n']:<4} "
                   f"{r['accuracy']:8.3f}  [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]")
    for p in pairs:
        click.echo(f"{p['models'][0]} vs {p['models'][1]}: {p['paired']} paired, {p['only_first']} right only for "
                   f"the first, {p['only_second']} only for the second, McNemar p={p['p']:.4g} "
                   f"(Holm {p['p_holm']:.4g})")
