"""Fixtures of the harness tests: no network but loopback, dummy API keys,
and the IPC-2000 Blocksworld corpus (skipped when absent)."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # for the helper modules harness_scripts and harness_netguard

from harness_netguard import NetworkBlocked, check_address, is_loopback  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def loopback_only() -> Iterator[None]:
    """Refuse every connection and name lookup that is not loopback, and give
    the SDKs keys that are not real (module scope, so that module fixtures
    which run whole experiments are guarded too)."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_create = socket.create_connection
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: object) -> None:
        check_address(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: object) -> int:
        check_address(address)
        return real_connect_ex(self, address)

    def create_connection(address: tuple, *args: object, **kwargs: object) -> socket.socket:
        check_address(address)
        return real_create(address, *args, **kwargs)

    def getaddrinfo(host: object, *args: object, **kwargs: object) -> list:
        if host is not None and not is_loopback(host):
            raise NetworkBlocked(f"tests may not resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", connect)
        mp.setattr(socket.socket, "connect_ex", connect_ex)
        mp.setattr(socket, "create_connection", create_connection)
        mp.setattr(socket, "getaddrinfo", getaddrinfo)
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            mp.delenv(var, raising=False)
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("ANTHROPIC_API_KEY", "test-key-not-real")
        mp.setenv("OPENAI_API_KEY", "test-key-not-real")
        yield


@pytest.fixture(scope="session")
def blocks(corpus: Path) -> Path:
    """The 102-task IPC-2000 Blocksworld folder (typed), with lama-first plans."""
    folder = corpus / "potassco-pddl-instances" / "ipc2000-blocks-strips-typed"
    if not (folder / "domain.pddl").is_file() or not (folder / "plans-lama-first").is_dir():
        pytest.skip(f"the IPC-2000 Blocksworld set is missing from the corpus at {corpus}")
    return folder
