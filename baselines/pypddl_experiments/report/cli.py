"""``pypddl experiment report``: the paper's tables, statistics and figure from
run records (see :mod:`.report`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

__all__ = ["report"]


@click.command("report")
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="Folder for report.md, CSVs and the figure.")
@click.option("--replicate", type=int, default=0, show_default=True, help="Which replicate the tables use.")
@click.option("--join", type=click.Choice(["auto", "id", "sha256"]), default="auto", show_default=True,
              help="Match instances across sources by instance id or by problem file SHA-256.")
@click.option("--lama-plans", type=click.Path(file_okay=False, exists=True),
              help="Folder of lama-first <instance>.plan files, for the difficulty order when no fd-lama-first "
                   "records are given.")
@click.option("--difficulty", "difficulty_file", type=click.Path(dir_okay=False, exists=True),
              help="A difficulty.json (from 'pypddl reference') giving the order instead.")
@click.option("--label", "labels", multiple=True, help="Rename an approach: METHOD=LABEL or SOURCE:METHOD=LABEL.")
@click.option("--order", type=click.Choice(["benchmark", "lama"]), default="benchmark", show_default=True,
              help="Difficulty order of the blocks: the benchmark order (the paper's) or by lama-first plan length "
                   "(unsolved last).")
@click.option("--family", "families", multiple=True,
              help="Approach labels, comma-separated, whose pairwise McNemar tests are Holm-adjusted together "
                   "(repeatable, one family each), e.g. the feedback contrasts.")
@click.option("--seq-reading", default="best", show_default=True, metavar="best|first|first-if-exited|at:SECONDS",
              help="Which plan of each FD seq-sat-lama-2011 run counts: the best within the budget (what the planner "
              "returns), the first it found, the first when the planner ended by itself and the best when it was "
              "stopped at the budget, or the best found within SECONDS of the start (a shorter budget read "
              "from the same run).")
@click.option("--contaminated", type=click.Choice(["exclude", "refuse"]), default="exclude", show_default=True,
              help="Runs a rate limit or overload cut into: left out of every table and listed, or refuse to report.")
def report(sources: tuple[str, ...], out: str, replicate: int, join: str, lama_plans: str | None,
           difficulty_file: str | None, labels: tuple[str, ...], order: str, families: tuple[str, ...],
           seq_reading: str, contaminated: str) -> None:
    """Tables I, II and III, tokens, McNemar tests and the per-instance figure
    from the records of any set of approaches (Fast Downward's included).

    The sources' settings are listed; differing budgets and sources that
    share no task are warned about (also on stderr).

    \b
    Examples:
      pypddl experiment report results/reference results/direct results/agentic --out report/
      pypddl experiment report results/agentic-paper results/agentic-heuristic --out report-fb/ \\
          --family "Agentic LLM (agentic-paper),Agentic LLM (agentic-heuristic)"
    """
    from pypddl_experiments.planners.readings import parse_reading

    from .report import ContaminatedRuns, build_report, load_approaches, write_report

    try:
        reading = parse_reading(seq_reading)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--seq-reading") from None
    names = {}
    for item in labels:
        key, sep, value = item.partition("=")
        if not sep:
            raise click.UsageError(f"--label wants METHOD=LABEL, got {item!r}")
        names[key.strip()] = value.strip()
    try:
        approaches, used = load_approaches(list(sources), replicate=replicate, labels=names, join=join,
                                           seq_reading=reading)
    except (FileNotFoundError, ValueError) as err:
        raise click.UsageError(str(err)) from None
    family_lists = [[x.strip() for x in f.split(",") if x.strip()] for f in families]
    try:
        rep = build_report(approaches, join=used, lama_plans=Path(lama_plans) if lama_plans else None,
                           difficulty_file=Path(difficulty_file) if difficulty_file else None, order=order,
                           families=family_lists, contaminated=contaminated)
    except ContaminatedRuns as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(2)
    except ValueError as err:
        raise click.UsageError(str(err)) from None
    for warning in rep.warnings:
        click.echo(f"warning: {warning}", err=True)
    files = write_report(rep, out)
    click.echo(f"order: {rep.order_text}")
    for row in rep.outcomes:
        excluded = f", {row['excluded']} contaminated left out" if row["excluded"] else ""
        click.echo(f"{row['approach']}: {row['solved']}/{row['n']} solved "
                   f"[{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}] %, {row['timeout']} timeout, "
                   f"{row['early_exit']} early exit, {row['error']} error{excluded}")
    if "figure" not in files:
        click.echo("note: figure skipped: matplotlib is not installed (pip install 'pypddlengine[report]')")
    click.echo(f"report: {files['report']}")
