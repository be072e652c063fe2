"""Pause Python's cyclic garbage collector while building many small acyclic objects.

Loading a big suite, deciding 300,000 compare rows or creating 100,000 results allocates
millions of dicts and lists; the collector would rescan that only-growing heap over and over
(more than half the time of ``bench/bench_compare.py``, ~70% of a big suite's load time).
Nothing built under the pause forms cycles, so pausing changes nothing but the time.

Processes that live long after building what they keep (the workbench after its start-up, a
CLI run after reading its suite) park those objects outside the collector with
``park_long_lived`` (``gc.freeze``). This module remembers that it did: asking Python instead
(``gc.get_freeze_count``) walks every parked object, ~25 ms per million, on every suite read.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_parked = False
"""Whether ``park_long_lived`` froze objects that ``gc_paused`` must not put back under the
collector (its ``promote`` splice would unfreeze them)."""


def park_long_lived() -> None:
    """Move every object tracked now out of the collector's reach for good (``gc.freeze``):
    they live as long as the process, and no collection needs to walk them again."""
    global _parked
    gc.freeze()
    _parked = True


def release_parked() -> None:
    """Undo ``park_long_lived`` (and any other freeze): for tests and embedders that go on."""
    global _parked
    gc.unfreeze()
    _parked = False


def is_parked() -> bool:
    return _parked


_start_up_paused = False


def pause_for_start_up() -> None:
    """Turn the collector off while a long-lived process builds what it keeps (the workbench's
    modules, styles and widgets); ``end_start_up_pause`` turns it back on."""
    global _start_up_paused
    gc.disable()
    _start_up_paused = True


def end_start_up_pause() -> bool:
    """Park what start-up built and turn the collector back on; a no-op, False, when start-up
    did not pause it (tests, embedding). Asked of this module, not of ``gc.isenabled()``: Textual
    turns the collector off during smooth scrolls too, and that is not start-up's pause."""
    global _start_up_paused
    if not _start_up_paused:
        return False
    _start_up_paused = False
    park_long_lived()
    gc.enable()
    return True


@contextmanager
def gc_paused(*, promote: bool = False) -> Iterator[None]:
    """Disable the cyclic GC for the block; re-enable it afterwards if it was enabled.

    ``promote=True`` (suite loading) also moves everything that survived straight to the
    oldest generation on the way out (``freeze`` + ``unfreeze``, two list splices), so the
    next young collection does not walk a million fresh case objects either; they are still
    collected as usual by refcounting, and by full collections should they ever form cycles.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # (not when start-up's objects are parked: unfreeze would put them all back under
            # the collector)
            if promote and not _parked:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
