"""An optional pace for runs against engines with quotas (Kore.ai: 60 requests a minute)."""

from __future__ import annotations

import asyncio
import time


class RateLimiter:
    """Spaces request starts evenly at ``rate`` per second across all workers of a run."""

    def __init__(self, rate: float | None) -> None:
        self.interval = 1.0 / rate if rate and rate > 0 else 0.0
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        async with self._lock:
            now = time.monotonic()
            start = max(self._next, now)
            self._next = start + self.interval
        delay = start - now
        if delay > 0:
            await asyncio.sleep(delay)
