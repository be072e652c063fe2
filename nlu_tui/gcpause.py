"""Pause Python's cyclic garbage collector while building many small acyclic objects.

Loading a big suite, deciding 300,000 compare rows or creating 100,000 results allocates
millions of dicts and lists; the collector would rescan that only-growing heap over and over
(more than half the time of ``bench/bench_compare.py``, ~70% of a big suite's load time).
Nothing built under the pause forms cycles, so pausing changes nothing but the time.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


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
            # (not when objects are frozen already, by the workbench's start-up: unfreeze
            # would put them all back under the collector)
            if promote and not _anything_frozen():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


_frozen_seen = False
"""Objects were seen frozen: nothing in nlu-tui unfreezes what it did not freeze itself, so
they stay frozen for the life of the process."""


def _anything_frozen() -> bool:
    """Whether objects are frozen (``gc.freeze``), asked of CPython once they are.

    ``gc.get_freeze_count()`` counts the frozen objects one by one: 40–90 ms, holding the
    interpreter lock, once the workbench has frozen what its start-up built. Asked on every
    suite load and every run opened (its cases), it stalled the UI thread that long on each
    (issue 23: ``u`` in the Runs tab); the answer cannot go back to "none" (see above)."""
    global _frozen_seen
    if not _frozen_seen and gc.get_freeze_count() > 0:
        _frozen_seen = True
    return _frozen_seen
