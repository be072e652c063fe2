"""The answer cache: a paid engine's answers kept in the run store and reused by later runs.

A profile opts in (``cache: true``, optionally ``cache_ttl: SECONDS``). The run kernel asks the
cache before it sends an item (:meth:`nlu_tui.runner.kernel.Kernel` — one place, for every
engine): the key is a SHA-256 digest of the engine's identity (type, endpoint, model, version,
stage and the other settings that shape an answer, never a secret:
:meth:`nlu_tui.engines.profiles.ResolvedEngine.cache_identity`) and of the kind's request (the
text and the parent context). A hit is the stored answer, marked ``cached`` and without a
latency (so it never counts in latency figures); a miss is sent, and its answer (not an error)
is written with the run's own writes, in the flusher's thread.

A repeated run (``--repeat N``) measures how stable the engine's answers are, so it never
reads the cache unless asked (``--cache-repeats``); it still writes what it received.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nlu_tui.store.runstore import RunStore


class AnswerCache:
    """The cache of one run: one engine identity, one TTL, read or write-only."""

    def __init__(
        self,
        store: RunStore,
        profile: str,
        identity: dict[str, Any],
        *,
        ttl: float | None = None,
        read: bool = True,
    ) -> None:
        self.store = store
        self.profile = profile
        self.ttl = ttl
        self.read = read
        self._engine = json.dumps(identity, sort_keys=True, ensure_ascii=False, default=str)
        self._pending: list[tuple[str, str]] = []
        self.hits = 0
        """Items answered from the cache."""
        self.misses = 0
        """Items the cache did not answer (sent to the engine)."""

    @classmethod
    def of_profile(
        cls, store: RunStore, resolved: Any, *, off: bool = False, read: bool = True
    ) -> AnswerCache | None:
        """The answer cache of the resolved engine's profile (``cache: true``, ``cache_ttl``),
        or None when it has none or the run turns it ``off`` (``--no-cache``)."""
        settings = resolved.settings
        if off or not getattr(settings, "cache", False):
            return None
        return cls(
            store, resolved.name, resolved.cache_identity(), ttl=settings.cache_ttl, read=read
        )

    def key(self, request: dict[str, Any]) -> str:
        """The digest of the engine's identity and the request (its text and context)."""
        text = json.dumps(
            {"engine": self._engine, "request": request},
            sort_keys=True,
            ensure_ascii=False,
            default=str,
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    async def get(self, key: str) -> str | None:
        """The cached answer (JSON) under ``key`` if reading and younger than the TTL."""
        if not self.read:
            self.misses += 1
            return None
        found = await asyncio.to_thread(self.store.cached_answer, key, max_age=self.ttl)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def put(self, key: str, answer: str) -> None:
        """Keep an answer to write with the run's next flush."""
        self._pending.append((key, answer))

    def take_writes(self) -> Callable[[], object] | None:
        """The answers kept since the last flush, as one store write (None: nothing kept)."""
        if not self._pending:
            return None
        pending, self._pending = self._pending, []
        store, profile = self.store, self.profile

        def write() -> object:
            store.cache_answers(profile, pending)
            return None

        return write
