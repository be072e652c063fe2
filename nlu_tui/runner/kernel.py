"""The run kernel: one loop that runs the items of any kind of run with one set of guarantees.

A kind of run (an NLU suite, E2E conversations, test stories, DUT test cases, ...) is a
:class:`RunKind` strategy: it lists the items still to send with stable ids, sends one item
through its engine, scores and buffers what came back, writes its buffers to the store, says
how the run ended and what a progress event looks like. The :class:`Kernel` does the rest,
the same way for every kind:

- **concurrency and pace**: ``concurrency`` workers pull items; every request to the engine
  takes one of ``concurrency`` slots and waits for the rate limiter (``rate_limit``);
- **an attempt deadline**: every request runs under ``asyncio.timeout(timeout)``, so connect,
  send and every byte of the answer fit in ``timeout`` seconds (an engine that sends its
  headers then trickles the body is cut and the attempt counts as "timed out");
- **retries**: a transient failure (connection, timeout, 429, 5xx) is retried up to
  ``retries`` times, after the server's ``Retry-After`` capped by ``retry_after_max`` or an
  exponential backoff with jitter; a kind retries a whole item (:meth:`Sender.request`
  failures end the item's attempt) or each request on its own (:meth:`Sender.retrying`);
- **cancel**: :meth:`Kernel.cancel` (thread-safe) or the ``cancel`` event stops the workers
  within a second; in-flight requests are dropped, never recorded as engine errors;
- **persist as it arrives**: answers are scored right after they arrive and written in
  batches by a flusher (at most ``flush_interval`` behind, SQLite's part in a thread), so a
  killed process loses only what was in flight; a resume (the kind lists what is missing)
  sends only that;
- **a store that goes away**: a write the store's server cannot take now
  (:class:`~nlu_tui.store.backend.StoreUnavailableError`: a lost or refused connection) is kept
  in memory, in order, and tried again with a backoff (0.5 s doubling up to 5 s) while no new
  item is sent; every write is idempotent (a row already stored is kept), so one that reached
  the server before its answer was lost is never counted twice. When the store is back the
  run goes on; after ``store_retry`` seconds without it the run ends ``interrupted`` and its
  resume sends what was not written;
- **progress**: the kind's event at most every ``progress_interval`` and once at the end.

The kernel imports no kind, no face and no Textual.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from nlu_tui.engines.redact import redact
from nlu_tui.model import RunStatus
from nlu_tui.runner.events import RunPhase
from nlu_tui.runner.options import RunOptions
from nlu_tui.runner.ratelimit import RateLimiter
from nlu_tui.runner.retry import Failure, backoff_delay, classify
from nlu_tui.store.backend import StoreError, StoreUnavailableError
from nlu_tui.store.records import RunRecord

if TYPE_CHECKING:
    from nlu_tui.runner.answer_cache import AnswerCache
    from nlu_tui.store.records import StoredItem
    from nlu_tui.store.runstore import RunStore

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class Work:
    """One item to send: its place in the run (``seq``), its stable id and the kind's item."""

    seq: int
    item_id: str
    item: Any


class Halt(Enum):
    """What an arrived answer asks of the run."""

    FAIL = "fail"
    """Stop: the run failed (the kind's :meth:`RunKind.arrive` returned a reason)."""
    STOP = "stop"
    """Stop sending, without failing (E2E ``--fail-fast``)."""


@dataclass
class Ending:
    """How the kernel saw the run end; the kind turns it into a status (:meth:`RunKind.finish`)."""

    failed_reason: str | None
    canceled: bool
    stopped: bool
    """The kind asked to stop (Halt.STOP)."""


class Dropped(Exception):
    """An attempt ended because the run is stopping: its outcome is not recorded."""


class RunKind(Protocol):
    """A kind of run, as the kernel drives it (see ``docs/development/run-kernel.md``)."""

    kind: str
    options: RunOptions
    record: RunRecord | None

    def prepare(self) -> RunRecord:
        """Create the run in the store (or reopen it, for a resume); set :attr:`record`."""
        ...

    def work(self) -> list[Work]:
        """The items still to send (after :meth:`prepare`): all of them, or what a resume
        lacks; a repeated run lists an item once per attempt it still lacks."""
        ...

    def total(self) -> int:
        """How many items the run has in all (progress and ``done of total``)."""
        ...

    async def open(self, client: Any) -> None:
        """Let the engine train or probe (a failure here fails the run: engine unreachable)."""
        ...

    async def close(self) -> None: ...

    async def send(self, work: Work, sender: Sender) -> Any:
        """Send one item through the engine and return its answer. Every request goes
        through ``sender``; a failure that escapes ends the attempt (retried if transient)."""
        ...

    def failed(self, work: Work, reason: str, latency_ms: float) -> Any:
        """The answer recorded for an item whose attempts all failed with ``reason``."""
        ...

    def arrive(self, work: Work, answer: Any) -> tuple[Halt, str | None] | None:
        """Score an answer and buffer it for the store (called in arrival order, on the
        event loop); ``(Halt.FAIL, reason)`` fails the run, ``(Halt.STOP, None)`` stops it."""
        ...

    def take_writes(self) -> Callable[[], object] | None:
        """What is buffered, as one store write (run in a thread, one at a time, in order);
        None when nothing is buffered."""
        ...

    def finish(self, ending: Ending) -> RunRecord:
        """Record how the run ended (status, reason, summary) and return the final record."""
        ...

    def emit(self, state: KernelState, *, final: bool, record: RunRecord | None) -> None:
        """Hand the faces a progress event (the kind's own type)."""
        ...


class CachingKind(Protocol):
    """What a kind adds to be answered from the answer cache (:mod:`nlu_tui.runner.answer_cache`);
    a kind without these methods is always sent."""

    def cache_request(self, work: Work) -> dict[str, Any] | None:
        """The item's request as the engine sees it (text, parent context), or None: never
        cached."""
        ...

    def cache_answer(self, answer: Any) -> str | None:
        """The answer as cached (JSON), or None: not worth keeping (an error)."""
        ...

    def cached_answer(self, text: str) -> Any:
        """A cached answer read back, marked as a cache hit and without a latency."""
        ...


@dataclass
class KernelState:
    """What the kernel knows that a progress event may show."""

    phase: RunPhase
    started: float
    parse_started: float | None

    def elapsed(self, now: float) -> float:
        return now - self.started


class Sender:
    """How a kind sends requests: a slot, the pace, the attempt deadline and the retry policy."""

    def __init__(self, kernel: Kernel) -> None:
        self._kernel = kernel
        opts = kernel.options
        self._slots = asyncio.Semaphore(max(1, opts.concurrency))
        self._limiter = RateLimiter(opts.rate_limit)
        self._timeout = opts.timeout

    async def request(self, call: Callable[[], Awaitable[T]]) -> T:
        """One request under the attempt deadline: connect, send and the whole answer must
        fit in ``timeout`` seconds (a trickling answer raises TimeoutError)."""
        async with self._slots:
            if self._limiter.interval:
                await self._limiter.wait()
            async with asyncio.timeout(self._timeout):
                return await call()

    async def retrying(self, call: Callable[[], Awaitable[T]], label: str = "") -> T | Failure:
        """:meth:`request` with the retry policy, for kinds whose requests stand alone (a
        DUT step): the answer, or the :class:`Failure` of the last attempt (its reason notes
        the attempts). Raises :class:`Dropped` when the run is stopping."""
        kernel = self._kernel
        attempt = 0
        while True:
            try:
                return await self.request(call)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if kernel.stopping:
                    raise Dropped from exc
                failure = classify(exc)
                delay = kernel.retry_delay(failure, attempt)
                if delay is None:
                    reason = failure.reason
                    if attempt:
                        reason += f" (after {attempt + 1} attempts)"
                    return Failure(redact(reason, kernel.options.secrets), False)
                attempt += 1
                log.debug("%s: %s; retry %d in %.2fs", label, failure.reason, attempt, delay)
                await asyncio.sleep(delay)


class Kernel:
    """One run of one kind. ``prepare()`` then ``await execute()``; ``cancel()`` from anywhere."""

    def __init__(
        self,
        strategy: RunKind,
        *,
        cancel: asyncio.Event | None = None,
        width: int | None = None,
        cache: AnswerCache | None = None,
    ) -> None:
        self.strategy = strategy
        self.options = strategy.options
        self.cache = cache if callable(getattr(strategy, "cache_request", None)) else None
        """The answer cache (a profile's ``cache: true``), asked before every item is sent."""
        self._width = width
        """Workers (default: the concurrency); E2E ``--fail-fast`` runs one at a time."""
        self._external_cancel = cancel
        self._cancel_requested = False
        self._failed_reason: str | None = None
        self._halted = False
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None
        self._arrivals: deque[tuple[Work, Any]] = deque()
        self._drain_scheduled = False
        self._writing: asyncio.Future[object] | None = None
        self._pending: deque[Callable[[], object]] = deque()
        """Writes not yet in the store, oldest first (more than one only while it is away)."""
        self._store_down: float | None = None
        """Since when (monotonic) the store has refused writes; None while it takes them."""
        self._store_tries = 0
        self._store_retry_at = 0.0
        self._store_up: asyncio.Event | None = None
        self.store_lost: str | None = None
        """Why the run ended ``interrupted``: the store stayed away longer than
        ``store_retry`` (None otherwise)."""
        self.state = KernelState(RunPhase.OPENING, time.monotonic(), None)

    # --- control ----------------------------------------------------------------------------

    @property
    def stopping(self) -> bool:
        return (
            self._cancel_requested
            or self._failed_reason is not None
            or self._halted
            or self.store_lost is not None
        )

    def prepare(self) -> RunRecord:
        if self.strategy.record is not None:
            return self.strategy.record
        return self.strategy.prepare()

    @property
    def run_id(self) -> str:
        if self.strategy.record is None:
            raise RuntimeError("call prepare() first")
        return self.strategy.record.id

    def cancel(self) -> None:
        """Stop the run within a second, keeping every finished item (thread-safe)."""
        self._cancel_requested = True
        loop, stop = self._loop, self._stop
        if loop is None or stop is None:
            return
        if threading.get_ident() == self._thread:
            stop.set()
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)

    def fail(self, reason: str) -> None:
        """Fail the run (first reason wins) and stop the workers."""
        self._failed_reason = self._failed_reason or redact(reason, self.options.secrets)
        if self._stop is not None:
            self._stop.set()

    def retry_delay(self, failure: Failure, attempt: int) -> float | None:
        """How long to wait before attempt ``attempt + 2``, or None: give up. The server's
        ``Retry-After`` wins, capped by ``retry_after_max`` (an hour asked is not an hour slept)."""
        opts = self.options
        if not failure.retryable or attempt >= opts.retries:
            return None
        if failure.retry_after is not None:
            return min(failure.retry_after, opts.retry_after_max)
        return backoff_delay(attempt, opts.backoff_base, opts.backoff_max)

    # --- the run ----------------------------------------------------------------------------

    async def execute(self) -> RunRecord:
        """Run what is pending and record how it ended; returns the final stored record."""
        self.prepare()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._stop = asyncio.Event()
        self._store_up = asyncio.Event()
        self._store_up.set()
        if self._cancel_requested:
            self._stop.set()
        self.state.started = time.monotonic()
        watcher = None
        if self._external_cancel is not None:
            watcher = asyncio.create_task(self._watch_external(self._external_cancel))
        flusher = asyncio.create_task(self._flush_loop())
        outer_cancel = False
        try:
            try:
                await self._main()
            except asyncio.CancelledError:
                outer_cancel = True
                self._cancel_requested = True
        finally:
            flusher.cancel()
            if watcher is not None:
                watcher.cancel()
            await asyncio.gather(flusher, return_exceptions=True)
            await self._written()
            if watcher is not None:
                await asyncio.gather(watcher, return_exceptions=True)
            final = await self._end()
            self._emit(final=True, record=final)
        if outer_cancel:
            raise asyncio.CancelledError
        return final

    async def _end(self) -> RunRecord:
        """Write what is left and record how the run ended, retrying while the store is away
        (within ``store_retry``); an ``interrupted`` record when it stayed away."""
        self._drain()
        self._queue_writes()
        ending = Ending(self._failed_reason, self._cancel_requested, self._halted)
        finished: list[RunRecord] = []
        while self.store_lost is None:
            try:
                self._write_pending_now()
                finished.append(self.strategy.finish(ending))
                return finished[0]
            except StoreUnavailableError as exc:
                self._store_away(exc)
                if self.store_lost is None:
                    await asyncio.sleep(max(self._store_retry_at - time.monotonic(), 0.0))
        return self._interrupted(self.store_lost)

    def _interrupted(self, reason: str) -> RunRecord:
        """The run's record, ended ``interrupted`` by a store that stayed away: written if the
        store took it after all, else as this process last knew it (the store still says
        ``running``; the next start-up marks it interrupted, and ``--resume`` finishes it)."""
        store = getattr(self.strategy, "store", None)
        record = self.strategy.record
        assert record is not None
        if store is not None:
            with contextlib.suppress(StoreError):  # one last try: the store may be back
                self._write_pending_now()
                written: RunRecord = store.finish_run(record.id, RunStatus.INTERRUPTED, reason)
                return written
        return dataclasses.replace(
            record, status=RunStatus.INTERRUPTED, reason=reason, finished_at=time.time()
        )

    async def _watch_external(self, event: asyncio.Event) -> None:
        await event.wait()
        self.cancel()

    async def _main(self) -> None:
        from nlu_tui.runner.client import make_client  # the HTTP stack: only when a run starts

        assert self._stop is not None
        opts = self.options
        client = make_client(concurrency=opts.concurrency, timeout=opts.timeout)
        try:
            self._emit()  # the opening phase: training or probing may take a while
            if not await self._open(client):
                return
            self.state.parse_started = time.monotonic()
            self.state.phase = RunPhase.RUNNING
            self._emit()
            work = self.strategy.work()
            if not work:
                return
            sender = Sender(self)
            queue: Iterator[Work] = iter(work)
            width = self._width or opts.concurrency
            workers = [
                asyncio.create_task(self._worker(queue, sender))
                for _ in range(max(1, min(width, len(work))))
            ]
            stopper = asyncio.create_task(self._stop.wait())
            try:
                await asyncio.wait([*workers, stopper], return_when=asyncio.FIRST_COMPLETED)
                while not stopper.done() and not all(w.done() for w in workers):
                    await asyncio.wait([*workers, stopper], return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in [*workers, stopper]:
                    task.cancel()
                outcomes = await asyncio.gather(*workers, return_exceptions=True)
                await asyncio.gather(stopper, return_exceptions=True)
            for outcome in outcomes:
                if isinstance(outcome, Exception):
                    log.error("worker crashed", exc_info=outcome)
                    self.fail(f"internal error: {type(outcome).__name__}: {outcome}")
        finally:
            with contextlib.suppress(Exception):
                await self.strategy.close()
            with contextlib.suppress(Exception):
                await client.aclose()

    async def _open(self, client: Any) -> bool:
        """Let the engine train or probe; False (run failed or canceled) when it cannot start."""
        assert self._stop is not None
        opener = asyncio.create_task(self.strategy.open(client))
        stopper = asyncio.create_task(self._stop.wait())
        try:
            await asyncio.wait([opener, stopper], return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopper.cancel()
            if not opener.done():
                opener.cancel()
            await asyncio.gather(opener, stopper, return_exceptions=True)
        if self._cancel_requested or opener.cancelled():
            return False
        exc = opener.exception()
        if exc is not None:
            from nlu_tui.engines.transport_errors import EngineUnreachableError
            from nlu_tui.errors import NluTuiError

            if isinstance(exc, EngineUnreachableError):  # already says so, in one clean line
                reason = str(exc)
            else:
                detail = str(exc) if isinstance(exc, NluTuiError) else classify(exc).reason
                reason = (
                    detail
                    if detail.startswith("engine unreachable")
                    else f"engine unreachable: {detail}"
                )
            self.fail(reason)
            return False
        return True

    async def _worker(self, queue: Iterator[Work], sender: Sender) -> None:
        for work in queue:
            if self._store_up is not None and not self._store_up.is_set():
                await self._store_up.wait()  # the store is away: send nothing meanwhile
            if self.stopping:
                return
            try:
                answer = await self._attempts(work, sender)
            except Dropped:
                return
            self._arrive(work, answer)

    async def _attempts(self, work: Work, sender: Sender) -> Any:
        """Answer one item from the answer cache, or send it, retrying it whole after a
        transient failure; the kind's failed answer once the attempts are spent. Raises
        :class:`Dropped` when the run is stopping."""
        key = None
        caching = cast("CachingKind", self.strategy)
        if self.cache is not None:
            request = caching.cache_request(work)
            if request is not None:
                key = self.cache.key(request)
                try:
                    hit = await self.cache.get(key)
                except StoreError:  # the store is away: a miss (the answer is sent)
                    hit = None
                if hit is not None:
                    return caching.cached_answer(hit)
        answer = await self._send(work, sender)
        if key is not None and self.cache is not None:
            text = caching.cache_answer(answer)
            if text is not None:
                self.cache.put(key, text)
        return answer

    async def _send(self, work: Work, sender: Sender) -> Any:
        attempt = 0
        while True:
            began = time.perf_counter()
            try:
                return await self.strategy.send(work, sender)
            except asyncio.CancelledError:
                raise
            except Dropped:
                raise
            except Exception as exc:
                # httpx may turn a cancel into ConnectError (encode/httpx#2381): never record it.
                if self.stopping:
                    raise Dropped from exc
                failure = classify(exc)
                delay = self.retry_delay(failure, attempt)
                if delay is not None:
                    attempt += 1
                    log.debug(
                        "item %s: %s; retry %d in %.2fs",
                        work.item_id,
                        redact(failure.reason, self.options.secrets),
                        attempt,
                        delay,
                    )
                    await asyncio.sleep(delay)
                    continue
                reason = failure.reason
                if attempt:
                    reason += f" (after {attempt + 1} attempts)"
                latency = (time.perf_counter() - began) * 1000.0
                return self.strategy.failed(work, redact(reason, self.options.secrets), latency)

    def _arrive(self, work: Work, answer: Any) -> None:
        """Queue an answer for scoring and let the worker send its next item first.

        At concurrency 50 answers arrive in bursts; scoring and recording each one before the
        worker's next request went out delayed every later request of the burst by that work
        (bench/bench_runner_throughput.py). Scoring runs in one callback right after, in
        arrival order, and :meth:`_drain` runs again before every flush and at the end, so no
        answer is ever left unscored.
        """
        self._arrivals.append((work, answer))
        if not self._drain_scheduled:
            self._drain_scheduled = True
            asyncio.get_running_loop().call_soon(self._drain)

    def _drain(self) -> None:
        """Score and buffer every queued answer (a scoring bug fails the run, as a crashed
        worker does)."""
        self._drain_scheduled = False
        arrivals = self._arrivals
        while arrivals:
            work, answer = arrivals.popleft()
            try:
                halt = self.strategy.arrive(work, answer)
            except Exception as exc:
                log.error("scoring crashed", exc_info=exc)
                self.fail(f"internal error: {type(exc).__name__}: {exc}")
                continue
            if halt is not None:
                what, reason = halt
                if what is Halt.FAIL:
                    self.fail(reason or "stopped")
                else:
                    self._halted = True
                    if self._stop is not None:
                        self._stop.set()

    # --- store and progress -----------------------------------------------------------------

    async def _flush_loop(self) -> None:
        opts = self.options
        last_progress = 0.0
        last_beat = time.monotonic()
        while True:
            await asyncio.sleep(opts.flush_interval)
            now = time.monotonic()
            self._drain()
            self._queue_writes()
            beat = now - last_beat >= opts.heartbeat_interval
            if not self._pending and beat and self.strategy.record is not None:
                self._pending.append(self._heartbeat)
            if self._pending:
                if now >= self._store_retry_at:
                    await self._write_pending()
                last_beat = now
            if now - last_progress >= opts.progress_interval:
                self._emit()
                last_progress = now

    def _heartbeat(self) -> None:
        store = getattr(self.strategy, "store", None)
        if store is not None:
            store.heartbeat(self.run_id)

    def _queue_writes(self) -> None:
        write = self._take_writes()
        if write is not None:
            self._pending.append(write)

    async def _write_pending(self) -> None:
        """The pending writes, oldest first, each in a thread (SQLite's part, so answers keep
        being read and the next requests sent meanwhile: bench/bench_runner_throughput.py),
        one at a time: stored in order. A store that is away keeps them for a retry."""
        while self._pending:
            write = self._pending[0]
            self._writing = asyncio.ensure_future(asyncio.to_thread(write))
            try:
                await asyncio.shield(self._writing)
            except StoreUnavailableError as exc:
                self._writing = None
                self._store_away(exc)
                return
            except BaseException:
                if self._writing.done():  # the write itself failed: the flusher's failure
                    self._writing = None
                    self._pending.popleft()
                raise
            self._writing = None
            self._pending.popleft()
        self._store_back()

    def _write_pending_now(self) -> None:
        """:meth:`_write_pending` in this thread (the end of the run)."""
        while self._pending:
            self._pending[0]()
            self._pending.popleft()
        self._store_back()

    def _store_away(self, exc: StoreUnavailableError) -> None:
        """A write found the store away: retry later with a backoff, or give up (the run
        ends interrupted) after ``store_retry`` seconds."""
        now = time.monotonic()
        if self._store_down is None:
            self._store_down, self._store_tries = now, 0
            log.warning("the run store is away (%s); keeping the results to write", exc)
            if self._store_up is not None:
                self._store_up.clear()
        self._store_tries += 1
        away = now - self._store_down
        if away >= self.options.store_retry:
            self.store_lost = f"lost the run store for {away:.0f} s ({exc})"
            if self._stop is not None:
                self._stop.set()
            return
        self._store_retry_at = now + backoff_delay(self._store_tries - 1, 0.5, 5.0)

    def _store_back(self) -> None:
        if self._store_down is not None:
            log.warning("the run store is back")
            self._store_down, self._store_retry_at = None, 0.0
            if self._store_up is not None:
                self._store_up.set()

    async def _written(self) -> None:
        """Wait for a write the flusher started (even if it was canceled meanwhile); its
        failure is the flusher's, as a failed flush always was. A write that went through
        leaves the pending list; one the store could not take stays for :meth:`_end`."""
        writing = self._writing
        if writing is not None:
            await asyncio.gather(writing, return_exceptions=True)
            self._writing = None
            if writing.cancelled():
                return  # kept: writing it again stores nothing twice
            if not isinstance(writing.exception(), StoreUnavailableError) and self._pending:
                self._pending.popleft()

    def _take_writes(self) -> Callable[[], object] | None:
        """The kind's buffered rows, then the answers to cache, as one write."""
        write = self.strategy.take_writes()
        cached = self.cache.take_writes() if self.cache is not None else None
        if cached is None or write is None:
            return write or cached
        kind_write = write

        def both() -> object:
            kind_write()
            return cached()

        return both

    def _emit(self, *, final: bool = False, record: RunRecord | None = None) -> None:
        try:
            self.strategy.emit(self.state, final=final, record=record)
        except Exception:
            log.exception("progress callback failed")


class KernelRun:
    """The faces' handle on a run of any kind: its id, and ``execute``/``cancel`` through the
    :class:`Kernel` the kind's strategy set up as :attr:`kernel`."""

    record: RunRecord | None
    kernel: Kernel

    @property
    def run_id(self) -> str:
        if self.record is None:
            raise RuntimeError("call prepare() first")
        return self.record.id

    async def execute(self) -> RunRecord:
        """Run what is pending and record how it ended; returns the final stored record."""
        return await self.kernel.execute()

    def cancel(self) -> None:
        """Stop the run within a second, keeping what finished (thread-safe)."""
        self.kernel.cancel()


class StoredItemWrites:
    """For a kind whose answers are stored items: the rows gathered since the last flush
    (``_buffer``), handed to the kernel's writer as one ``add_items`` call."""

    record: RunRecord | None
    store: RunStore
    _buffer: list[StoredItem]

    def take_writes(self) -> Callable[[], object] | None:
        if not self._buffer:
            return None
        assert self.record is not None
        batch, self._buffer = self._buffer, []
        run_id, store = self.record.id, self.store
        return lambda: store.add_items(run_id, batch)
