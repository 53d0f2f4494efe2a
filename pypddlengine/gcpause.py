"""Pausing the cyclic garbage collector around bulk, acyclic allocation.

A leaf module (no imports from the package) so that any layer can use it.
"""

from __future__ import annotations

import _thread
import contextlib
import gc
from collections.abc import Iterator

__all__ = ["FULL_COLLECTION_SHARE", "paused_gc"]

FULL_COLLECTION_SHARE = 0.25
"""A full collection runs once the objects moved to the oldest generation by
:func:`paused_gc` since the last one exceed this share of the objects that
survived it (CPython's own rule for the oldest generation), or 100,000."""

_MIN_MOVED = 100_000

_lock = _thread.allocate_lock()
_active = 0  # paused_gc blocks running now, in any thread
_enable_after = False  # whether the collector was on when the first of them started
_moved = 0  # objects unfrozen into the oldest generation since the last full collection
_survivors = 0  # objects tracked after that collection


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large acyclic data.

    Grounding (and parsing long plans) allocates hundreds of thousands of
    tuples and actions and no reference cycles; the collector's repeated scans
    of that growing heap cost about half of the grounding time on large tasks.
    Afterwards everything allocated meanwhile is moved to the oldest generation
    (``freeze`` then ``unfreeze``) instead of being scanned by the next
    young-generation collection, which on Blocksworld-200 saves another ~15 %:
    the task is long-lived anyway.

    Objects moved that way are not counted by CPython towards its next full
    collection, so garbage among them (a closed session's cycles) would stay
    until one happens: a full collection runs when a block starts and the
    objects moved since the last one exceed :data:`FULL_COLLECTION_SHARE` of
    its survivors. (At the start, not the end: at the end the block's own
    temporaries, a grounder's indexes, are still alive and would be scanned.)

    Blocks may nest and run in several threads at once: the collector is off
    while any runs and is switched back on (if it was on before the first) when
    the last one ends, also by an exception or a cancellation."""
    global _active, _enable_after
    with _lock:
        if _active == 0:
            _collect_if_due()
            _enable_after = gc.isenabled()
            gc.disable()
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0:
                _settle()


def _settle() -> None:
    """The last block ended (under the lock): move its objects to the oldest
    generation and switch the collector back on."""
    global _moved
    _moved += gc.get_count()[0]  # tracked objects allocated (net) since the young generation was last collected
    gc.freeze()
    gc.unfreeze()
    if _enable_after:
        gc.enable()


def _collect_if_due() -> None:
    global _moved, _survivors
    if _moved > max(_MIN_MOVED, FULL_COLLECTION_SHARE * _survivors):
        gc.collect()
        _moved = 0
        _survivors = len(gc.get_objects(generation=2))
