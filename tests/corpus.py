"""The benchmark corpus (read by path, never copied): where it is, which tasks
are supported, and the smallest task of each domain."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pypddlengine.features import SUPPORTED_FEATURES

HERE = Path(__file__).resolve().parent
CORPUS = Path(os.environ.get("PYPDDL_CORPUS", HERE.parent.parent / "shared" / "benchmarks")).resolve()
CORPUS_REASON = f"benchmark corpus not found at {CORPUS} (set PYPDDL_CORPUS to its path)"


def corpus_index() -> list[dict]:
    index = CORPUS / "index.json"
    if not index.is_file():
        return []
    return json.loads(index.read_text())

# the corpus index names features as the engine does; "problem:" ones are problem-level
_SUPPORTED = SUPPORTED_FEATURES | {"constants", "negated-equality", "problem:negative-goal", "problem:metric",
                                   "problem:numeric-init", "problem:universal-goal", "disjunctive-derived",
                                   "existential-derived", "negative-derived", "universal-derived",
                                   "negative-effect-condition", "existential-effect-condition",
                                   "negated-complex-effect-condition", "negated-complex-preconditions"}


def supported(entry: dict) -> bool:
    features = set(entry["features_detected"])
    # The index's README: "numeric-fluents" only means functions other than
    # total-cost are declared; without numeric effects they are static cost
    # tables, which :action-costs allows (elevators, transport, woodworking).
    if "numeric-fluents" in features and "action-costs" in features and "numeric-effects" not in features:
        features.discard("numeric-fluents")
    return features <= _SUPPORTED


def entries() -> list[dict]:
    return corpus_index()


def task_paths(entry: dict, limit: int | None = None) -> list[tuple[str, Path, Path]]:
    probs = entry["problems"] if limit is None else entry["problems"][:limit]
    return [(p, CORPUS / entry["domain_file"], CORPUS / p) for p in probs]


def smallest_task(entry: dict) -> tuple[str, Path, Path]:
    stats = entry.get("problem_stats") or []
    if stats:
        best = min(stats, key=lambda s: s.get("bytes", 0))
        rel = str(Path(entry["problems"][0]).parent / best["file"])
    else:
        rel = min(entry["problems"], key=lambda p: (CORPUS / p).stat().st_size)
    return rel, CORPUS / entry["domain_file"], CORPUS / rel


def tasks_by_size(entry: dict) -> list[str]:
    """The problems of ``entry``, smallest file first (ties by name)."""
    stats = entry.get("problem_stats") or []
    folder = entry["problems"][0].rsplit("/", 1)[0]
    if stats:
        return [f"{folder}/{s['file']}" for s in sorted(stats, key=lambda s: (s.get("bytes", 0), s["file"]))]
    return sorted(entry["problems"], key=lambda p: ((CORPUS / p).stat().st_size, p))


def smallest_cases(per_domain: int) -> list[tuple[str, str]]:
    """``(domain file, problem)`` of the ``per_domain`` smallest tasks of every supported domain."""
    return [(e["domain_file"], p) for e in entries() if supported(e) for p in tasks_by_size(e)[:per_domain]]
