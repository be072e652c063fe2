"""Pause Python's cyclic garbage collector while building many small acyclic objects.

Reading 100,000 utterances and deciding 300,000 rows allocates millions of dicts and lists;
the collector rescans them over and over and took more than half the time of
``bench/bench_compare.py``. Nothing built here forms cycles, so pausing is safe.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
