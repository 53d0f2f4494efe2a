"""Which network destinations the harness tests may reach: loopback only."""

from __future__ import annotations

import ipaddress


class NetworkBlocked(RuntimeError):
    """A test tried to reach a destination other than loopback."""


def is_loopback(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if not isinstance(host, str):
        return False
    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def check_address(address: object) -> None:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return
    if isinstance(address, tuple) and address and is_loopback(address[0]):
        return
    raise NetworkBlocked(f"tests may only connect to loopback, not {address!r}")
