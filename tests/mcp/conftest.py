"""Fixtures of the MCP tests: a fresh server per test (no global state), an
in-process client through the real SDK, and a ``pypddl serve --http``
subprocess shared by a module."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from mcp import Client
from mcp_support import Tools, http_server

from pypddlengine.mcp_server import build_server


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    return build_server()


@pytest.fixture
async def tools(server) -> AsyncIterator[Tools]:  # type: ignore[no-untyped-def]
    async with Client(server) as client:
        yield Tools(client)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with http_server() as url:
        yield url
