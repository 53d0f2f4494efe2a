"""The ``pypddl`` commands of the experiment side, registered with the engine's
command line through the entry-point group ``pypddl.commands`` (see
``pyproject.toml``; a checkout's ``cli.py`` registers this table itself).

Each entry: command name -> (``module:attribute`` of the click command, its
one-line help). The modules are imported only when their command runs, so
``pypddl validate`` never loads them.
"""

from __future__ import annotations

__all__ = ["COMMANDS"]

COMMANDS: dict[str, tuple[str, str]] = {
    "solve": ("pypddl_experiments.planners.cli:solve",
              "Solve a task with Fast Downward; print the validated plan."),
    "batch": ("pypddl_experiments.planners.cli:batch",
              "Run planners over many tasks in parallel; append JSONL records."),
    "reference": ("pypddl_experiments.planners.cli:reference",
                  "The paper's Fast Downward protocol on the 102 IPC-2000 Blocksworld tasks."),
    "generate": ("pypddl_experiments.planners.cli:generate",
                 "Generate seeded benchmark tasks (Blocksworld, gripper, ...)."),
    "benchmark": ("pypddl_experiments.planners.cli:benchmark",
                  "Download the paper's 102 IPC-2000 Blocksworld tasks and check every file's SHA-256."),
    "experiment": ("pypddl_experiments.cli:experiment",
                   "Run and report LLM planning experiments (direct, agentic)."),
    "exam-llm": ("pypddl_experiments.report.exam_runs:exam_llm",
                 "Ask models exam questions (pypddl exam make / ACPBench) and report accuracy."),
}
