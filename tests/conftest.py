"""Shared fixtures: the corpus in ../shared/benchmarks (read by path, never
copied), the ``--runslow`` switch and the ``slow`` marker.

Constants that test modules import live in plain modules (``corpus``,
``oracles``, ...), never here: conftest modules in subfolders share the name
``conftest``, so importing from it would pick an arbitrary one."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # for the helper module ``oracles``

from corpus import CORPUS, CORPUS_REASON  # noqa: E402  (tests/ is on sys.path now)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow test: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "index.json").is_file():
        pytest.skip(CORPUS_REASON)
    return CORPUS


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    """A local Ray instance for one test module (``ray_support.TEST_CPUS``
    CPUs), stopped after it unless something else had started Ray."""
    from ray_support import TEST_CPUS

    from pypddl_experiments.runs.executors import connect_ray

    started = connect_ray(None, local_cpus=TEST_CPUS)
    import ray

    yield ray
    if started:
        ray.shutdown()
