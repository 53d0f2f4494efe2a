"""The harness tests cannot reach the network: only loopback."""

from __future__ import annotations

import socket

import pytest
from harness_netguard import NetworkBlocked


@pytest.mark.parametrize("address", [("192.0.2.1", 443), ("8.8.8.8", 53), ("2001:db8::1", 443, 0, 0)])
def test_non_loopback_connections_are_refused(address: tuple) -> None:
    family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock, pytest.raises(NetworkBlocked):
        sock.connect(address)
    with pytest.raises(NetworkBlocked):
        socket.create_connection(address[:2], timeout=0.1)


def test_name_lookups_are_refused() -> None:
    with pytest.raises(NetworkBlocked):
        socket.getaddrinfo("api.anthropic.com", 443)


def test_loopback_is_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
        assert socket.getaddrinfo("localhost", port)
