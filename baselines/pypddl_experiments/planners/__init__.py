"""Classical baselines: Fast Downward runs, batch experiments, the paper's protocol.

Fast Downward (PyPI ``up-fast-downward``, GPL) is only ever run as a
subprocess.

* :func:`run_fd` one run under a wall-clock budget and a memory limit, in its
  own directory and process group; anytime plans kept with their times; the
  exit code mapped to an :class:`Outcome`; every plan re-validated.
* :func:`run_batch` tasks x configurations in parallel into an append-only,
  resumable JSONL file of ``pypddl.run/1`` records.
* :mod:`.reference` the paper's Tables I and II on the IPC-2000 Blocksworld set,
  :mod:`.readings` how anytime runs' plans are read.
* :mod:`.cli` the ``pypddl solve``, ``generate``, ``batch`` and
  ``reference`` commands.
"""

from pypddl_experiments.runs.tasks import TaskRef, discover

from .batch import BatchSummary, run_batch
from .fd import CONFIGS, FDResult, FoundPlan, PlannerConfig, PlannerUnavailable, resolve_config, run_fd
from .outcomes import Outcome
from .records import RecordWriter, make_record, read_records

__all__ = [
    "CONFIGS",
    "BatchSummary",
    "FDResult",
    "FoundPlan",
    "Outcome",
    "PlannerConfig",
    "PlannerUnavailable",
    "RecordWriter",
    "TaskRef",
    "discover",
    "make_record",
    "read_records",
    "resolve_config",
    "run_batch",
    "run_fd",
]
