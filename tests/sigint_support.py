"""Tests that send Ctrl-C (SIGINT) to a child process need it to reach the child.

A test run started with SIGINT ignored (``nohup python -m pytest ... &``, or
a background job of a non-interactive shell) passes that on: every child
process starts with SIGINT ignored, Python then installs no
KeyboardInterrupt handler, and the signal does nothing. Such tests skip then,
saying why, instead of failing with confusing messages."""

from __future__ import annotations

import signal

import pytest

SIGINT_IGNORED = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
"""Whether this test process started with SIGINT ignored (read when first imported, at collection)."""

SIGINT_REASON = ("this test run was started with SIGINT ignored (as 'nohup ... &' or a background job of a "
                 "non-interactive shell does); the child processes inherit that, so Ctrl-C cannot reach them. "
                 "Run the suite from a foreground shell to include this test")

needs_sigint = pytest.mark.skipif(SIGINT_IGNORED, reason=SIGINT_REASON)
"""Mark for a test that sends SIGINT to a child process."""
