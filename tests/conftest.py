"""Shared fixtures: the corpus in ../shared/benchmarks (read by path, never
copied), the ``--runslow`` switch and the ``slow`` marker."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # for the helper module ``oracles``

CORPUS = Path(os.environ.get("PYPDDL_CORPUS", HERE.parent.parent / "shared" / "benchmarks")).resolve()
CORPUS_REASON = f"benchmark corpus not found at {CORPUS} (set PYPDDL_CORPUS to its path)"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow test: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def corpus_index() -> list[dict]:
    index = CORPUS / "index.json"
    if not index.is_file():
        return []
    return json.loads(index.read_text())


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "index.json").is_file():
        pytest.skip(CORPUS_REASON)
    return CORPUS


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
