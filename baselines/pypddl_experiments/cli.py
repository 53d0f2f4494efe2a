"""``pypddl experiment``: the group of the LLM experiment commands, ``run`` and
``replay`` (:mod:`.llm.cli`) and ``report`` (:mod:`.report.cli`)."""

from __future__ import annotations

import click

from .llm.cli import replay, run
from .report.cli import report

__all__ = ["experiment"]


@click.group("experiment", context_settings={"help_option_names": ["-h", "--help"]})
def experiment() -> None:
    """Run and report LLM planning experiments (direct and agentic).

    \b
    Example (the paper's agentic approach on the 102 IPC-2000 Blocksworld tasks):
      pypddl experiment run --method agentic --provider anthropic \\
          --model claude-haiku-4-5-20251001 --tasks path/to/ipc2000-blocks-strips-typed \\
          --budget 180 --out results/agentic
      pypddl experiment report results/reference results/agentic --out report/
    """


experiment.add_command(run)
experiment.add_command(report)
experiment.add_command(replay)
