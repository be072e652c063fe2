"""Running a suite against an engine: concurrent, paced, retried, cancellable and resumable.

One :class:`Run` owns one shared HTTP client, a fixed set of worker tasks pulling cases, and a
flusher that commits finished results to the store in batches (at most ``flush_interval``
behind) and emits :class:`~nlu_tui.runner.events.ProgressEvent` snapshots. Cancelling stops the
workers at once (in-flight requests are dropped, never recorded as engine errors); what was
finished is kept, and the run can be resumed later with only the missing cases sent.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, Protocol

from nlu_tui.engines.base import Engine, ParseContext
from nlu_tui.model import CaseResult, Prediction, ResultType, RunStatus, Suite, TestCase
from nlu_tui.repeats import attempt_item, repeat_of, stored_attempts
from nlu_tui.runner.events import ProgressEvent, RunPhase
from nlu_tui.runner.options import RunOptions
from nlu_tui.runner.ratelimit import RateLimiter
from nlu_tui.runner.redact import redact, redact_prediction
from nlu_tui.runner.retry import backoff_delay, classify
from nlu_tui.store.codec import cap_raw
from nlu_tui.store.records import RunRecord, StoredItem
from nlu_tui.store.runstore import RunStore

_ATTEMPTS = re.compile(r" \(after \d+ attempts\)$")
"""The note a case's error gets when it failed after retries; the run's "most often" reason
counts the same failure as one, retried or not."""

SYNONYMS_KEY = "entity_synonyms"
"""Where a run's record keeps the entity synonym groups it scores with (to resume with them)."""

log = logging.getLogger(__name__)

ProgressCallback = Callable[[ProgressEvent], None]
Finished = tuple[TestCase, Prediction, CaseResult]


class ResolvedEngineLike(Protocol):
    """What :func:`nlu_tui.engines.profiles.resolve_engine` returns, as the runner uses it."""

    name: str
    engine: Engine
    profile_public: dict[str, Any]


class _Dropped(Exception):
    """An attempt ended because the run was canceled: its outcome is not recorded."""


class Run:
    """One run of a suite (new, or a resumed one). ``prepare`` then ``await execute()``."""

    def __init__(
        self,
        suite: Suite,
        resolved: ResolvedEngineLike,
        store: RunStore,
        *,
        stage: str = "development",
        note: str = "",
        options: RunOptions | None = None,
        on_progress: ProgressCallback | None = None,
        cancel: asyncio.Event | None = None,
        resume_run_id: str | None = None,
    ) -> None:
        self.suite = suite
        self.resolved = resolved
        self.engine = resolved.engine
        self.store = store
        self.stage = str(stage)
        self.note = note
        settings = getattr(resolved, "settings", None)
        base = options or RunOptions()
        self.options = (
            base if options is not None or settings is None else base.with_settings(settings)
        )
        secrets = tuple(getattr(resolved, "secrets", None) or ())
        if secrets:
            self.options = replace(self.options, secrets=(*self.options.secrets, *secrets))
        self.on_progress = on_progress
        self._own_timeout = not self.engine.capabilities.http
        self._external_cancel = cancel
        self.resume_run_id = resume_run_id
        self.record: RunRecord | None = None
        self._cases: list[TestCase] = []
        self._pending: list[tuple[int, TestCase]] = []
        self._buffer: list[tuple[int, Prediction, CaseResult]] = []
        self._attempt_buffer: list[StoredItem] = []
        self._arrivals: collections.deque[tuple[int, TestCase, Prediction]] = collections.deque()
        """Answers not yet scored: see :meth:`_arrive`."""
        self._drain_scheduled = False
        self._writing: asyncio.Future[int] | None = None
        """The results write running in a thread, if any (see :meth:`_flush_in_thread`)."""
        self._repeat = 1
        self._arrived: dict[str, int] = {}
        """Per case: attempts #2..#N stored or arrived (a repeated run, see nlu_tui.repeats)."""
        self._latest: list[Finished] = []
        self._reasons: collections.Counter[str] = collections.Counter()
        self._cancel_requested = False
        self._failed_reason: str | None = None
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None
        self._counts: Any = None
        self._scoring: Any = None
        self._started = 0.0
        self._parse_started: float | None = None
        self._session_done = 0
        self._samples: collections.deque[tuple[float, int]] = collections.deque()
        self._phase = RunPhase.OPENING

    # --- set-up -----------------------------------------------------------------------------

    @property
    def run_id(self) -> str:
        if self.record is None:
            raise RuntimeError("call prepare() first")
        return self.record.id

    def prepare(self) -> RunRecord:
        """Create (or reopen, for a resume) the run in the store; the run id is known after."""
        if self.record is not None:
            return self.record
        from nlu_tui.scoring.case import ScoringOptions, synonyms_from_json, synonyms_json
        from nlu_tui.scoring.summary import LiveCounts

        self._counts = LiveCounts()
        if self.resume_run_id:
            self.record = self.store.resume_run(self.resume_run_id)
            self._cases = self.store.load_cases(self.record.id)
            for _case, _pred, result in self.store.load_results(self.record.id):
                self._counts.add(result)
            done = self.store.done_case_ids(self.record.id)
            self._pending = [(i, c) for i, c in enumerate(self._cases) if c.id not in done]
            # A resume repeats as the run was started, whatever the options say now.
            self._repeat = repeat_of(self.record)
            if self._repeat > 1:
                self._arrived = stored_attempts(self.store, self.record.id)
            # the synonyms the run started with (the suite's training data is not stored)
            synonyms = synonyms_from_json(self.record.options.get(SYNONYMS_KEY))
            self._scoring = ScoringOptions(entity_synonyms=synonyms).for_suite(
                Suite(name=self.record.suite_name, cases=self._cases)
            )
        else:
            self._cases = list(self.suite.cases)
            self._scoring = ScoringOptions().for_suite(self.suite)
            options = self.options.public()
            if self._scoring.entity_synonyms:
                options[SYNONYMS_KEY] = synonyms_json(self._scoring.entity_synonyms)
            self.record = self.store.create_run(
                self.suite,
                engine_name=self.resolved.name,
                engine_profile=dict(self.resolved.profile_public),
                stage=self.stage,
                note=self.note,
                options=options,
            )
            self._pending = list(enumerate(self._cases))
            self._repeat = repeat_of(self.record)
        return self.record

    def cancel(self) -> None:
        """Stop the run within a second, keeping every finished result (thread-safe)."""
        self._cancel_requested = True
        loop, stop = self._loop, self._stop
        if loop is None or stop is None:
            return
        if threading.get_ident() == self._thread:
            stop.set()
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)

    # --- the run ----------------------------------------------------------------------------

    async def execute(self) -> RunRecord:
        """Run the pending cases and record how it ended; returns the final stored record."""
        self.prepare()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._stop = asyncio.Event()
        if self._cancel_requested:
            self._stop.set()
        self._started = time.monotonic()
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
            self._flush()
            final = self._finish()
            self._emit(final=True, record=final)
        if outer_cancel:
            raise asyncio.CancelledError
        return final

    def _attempts(self) -> list[tuple[int, TestCase]]:
        """What to send: each pending case once, or (repeated run) as many times as it still
        lacks attempts, one case after the other so cases complete in suite order."""
        if self._repeat < 2:
            return self._pending
        return [
            (seq, case)
            for seq, case in self._pending
            for _ in range(max(1, self._repeat - self._arrived.get(case.id, 0)))
        ]

    async def _watch_external(self, event: asyncio.Event) -> None:
        await event.wait()
        self.cancel()

    async def _main(self) -> None:
        from nlu_tui.runner.client import make_client

        assert self._stop is not None
        opts = self.options
        client = make_client(concurrency=opts.concurrency, timeout=opts.timeout)
        try:
            self._emit()  # the opening phase: training or probing may take a while
            if not await self._open(client):
                return
            self._samples.clear()  # the rate counts answers, not training or probing
            self._parse_started = time.monotonic()
            self._phase = RunPhase.RUNNING
            self._emit()
            if not self._pending:
                return
            limiter = RateLimiter(opts.rate_limit)
            work = self._attempts()
            queue: Iterator[tuple[int, TestCase]] = iter(work)
            workers = [
                asyncio.create_task(self._worker(queue, limiter))
                for _ in range(max(1, min(opts.concurrency, len(work))))
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
                    self._failed_reason = self._failed_reason or redact(
                        f"internal error: {type(outcome).__name__}: {outcome}", opts.secrets
                    )
        finally:
            with contextlib.suppress(Exception):
                await self.engine.close()
            with contextlib.suppress(Exception):
                await client.aclose()

    async def _open(self, client: Any) -> bool:
        """Let the engine train or probe; False (run failed or canceled) when it cannot start."""
        assert self._stop is not None
        opener = asyncio.create_task(self.engine.open(client))
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

            if isinstance(exc, EngineUnreachableError):  # already says so, in one clean line
                reason = str(exc)
            else:
                detail = classify(exc).reason if not _is_engine_error(exc) else str(exc)
                reason = f"engine unreachable: {detail}"
            self._failed_reason = redact(reason, self.options.secrets)
            return False
        return True

    async def _worker(self, queue: Iterator[tuple[int, TestCase]], limiter: RateLimiter) -> None:
        for seq, case in queue:
            if self._cancel_requested or self._failed_reason:
                return
            try:
                prediction = await self._parse(case, limiter)
            except _Dropped:
                return
            self._arrive(seq, case, prediction)

    def _arrive(self, seq: int, case: TestCase, prediction: Prediction) -> None:
        """Queue an answer for scoring and let the worker send its next case first.

        At concurrency 50 answers arrive in bursts; scoring and recording each one before the
        worker's next request went out delayed every later request of the burst by that work
        (bench/bench_runner_throughput.py). Scoring runs in one callback right after, in
        arrival order, and :meth:`_drain` runs again before every flush and at the end, so no
        answer is ever left unscored.
        """
        self._arrivals.append((seq, case, prediction))
        if not self._drain_scheduled:
            self._drain_scheduled = True
            asyncio.get_running_loop().call_soon(self._drain)

    def _drain(self) -> None:
        """Score and record every queued answer (a scoring bug fails the run, as a crashed
        worker did)."""
        from nlu_tui.scoring.case import score_case

        self._drain_scheduled = False
        scoring, arrivals = self._scoring, self._arrivals
        while arrivals:
            seq, case, prediction = arrivals.popleft()
            try:
                result = score_case(case, prediction, scoring)
                if prediction.error and result.result is not ResultType.ERROR:
                    result.result = ResultType.ERROR
                    result.error = prediction.error
                self._record(seq, case, prediction, result)
            except Exception as exc:
                log.error("scoring crashed", exc_info=exc)
                self._failed_reason = self._failed_reason or redact(
                    f"internal error: {type(exc).__name__}: {exc}", self.options.secrets
                )
                if self._stop is not None:
                    self._stop.set()

    async def _parse(self, case: TestCase, limiter: RateLimiter) -> Prediction:
        opts = self.options
        context = ParseContext(
            parent_intents=list(case.parent_intents), case_id=case.id, stage=self.stage
        )
        attempt = 0
        while True:
            if limiter.interval:
                await limiter.wait()
            began = time.perf_counter()
            try:
                if self._own_timeout:
                    async with asyncio.timeout(opts.timeout):
                        prediction = await self.engine.parse(case.utterance, context)
                else:  # the shared client enforces the same timeout, at no extra cost per case
                    prediction = await self.engine.parse(case.utterance, context)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                # httpx may turn a cancel into ConnectError (encode/httpx#2381): never record it.
                if self._cancel_requested or self._failed_reason:
                    raise _Dropped from exc
                failure = classify(exc)
                if failure.retryable and attempt < opts.retries:
                    if failure.retry_after is not None:
                        delay = min(failure.retry_after, opts.retry_after_max)
                    else:
                        delay = backoff_delay(attempt, opts.backoff_base, opts.backoff_max)
                    attempt += 1
                    log.debug(
                        "case %s: %s; retry %d in %.2fs",
                        case.id,
                        redact(failure.reason, opts.secrets),
                        attempt,
                        delay,
                    )
                    await asyncio.sleep(delay)
                    continue
                reason = failure.reason
                if attempt:
                    reason += f" (after {attempt + 1} attempts)"
                return Prediction(
                    error=redact(reason, opts.secrets),
                    latency_ms=(time.perf_counter() - began) * 1000.0,
                )
            if prediction.latency_ms is None:
                prediction.latency_ms = (time.perf_counter() - began) * 1000.0
            if opts.secrets:
                redact_prediction(prediction, opts.secrets)
            if prediction.error:
                prediction.error = redact(prediction.error, opts.secrets)
            # Scoring has what it needs (intent, entities); a huge answer is stored cut.
            prediction.raw = cap_raw(prediction.raw, opts.max_raw_bytes)
            return prediction

    def _record(self, seq: int, case: TestCase, prediction: Prediction, result: CaseResult) -> None:
        if self._repeat > 1:
            arrived = self._arrived.get(case.id, 0)
            if arrived < self._repeat - 1:  # not the case's last answer: attempt #2..#N
                self._arrived[case.id] = arrived + 1
                self._attempt_buffer.append(
                    attempt_item(seq, arrived + 2, prediction, result, self._repeat)
                )
                return
        self._buffer.append((seq, prediction, result))
        self._latest.append((case, prediction, result))
        self._counts.add(result)
        self._session_done += 1
        if result.result is ResultType.ERROR:
            self._reasons[_ATTEMPTS.sub("", result.error or "") or "unknown error"] += 1
            done, errors = self._counts.done, self._counts.errors
            opts = self.options
            too_many = errors / done > opts.max_error_rate
            if done >= opts.min_cases_for_error_rate and too_many and not self._failed_reason:
                self._failed_reason = (
                    f"stopped early: {errors} of {done} cases errored "
                    f"(over the {opts.max_error_rate:.0%} limit); "
                    f"most often: {self._top_reason()}"
                )
                assert self._stop is not None
                self._stop.set()

    def _top_reason(self) -> str:
        if not self._reasons:
            return "unknown error"
        reason, n = self._reasons.most_common(1)[0]
        return f"{reason} (×{n})"

    # --- store and progress -----------------------------------------------------------------

    async def _flush_loop(self) -> None:
        opts = self.options
        last_progress = 0.0
        last_beat = time.monotonic()
        while True:
            await asyncio.sleep(opts.flush_interval)
            now = time.monotonic()
            if self._buffer or self._attempt_buffer or self._arrivals:
                await self._flush_in_thread()
                last_beat = now
            elif now - last_beat >= opts.heartbeat_interval:
                self.store.heartbeat(self.run_id)
                last_beat = now
            if now - last_progress >= opts.progress_interval:
                self._emit()
                last_progress = now

    async def _flush_in_thread(self) -> None:
        """:meth:`_flush` with SQLite's part (about 60 % of it) in a thread, so answers keep
        being read and the next requests sent meanwhile (bench/bench_runner_throughput.py:
        0.3 s of a 20,000-case run's event loop). One write at a time; :meth:`execute` waits
        for the last before its final flush, so results are stored in the order they came."""
        self._drain()
        if self._attempt_buffer or not self._buffer:
            self._flush()  # repeated runs: attempts before their results, in one place
            return
        batch, self._buffer = self._buffer, []
        rows = self.store.result_rows(self.run_id, batch)
        self._writing = asyncio.ensure_future(
            asyncio.to_thread(self.store.insert_result_rows, self.run_id, rows)
        )
        await asyncio.shield(self._writing)

    async def _written(self) -> None:
        """Wait for a write :meth:`_flush_in_thread` started (even if the flusher was canceled
        meanwhile); its failure is the flusher's, as a failed flush always was."""
        if self._writing is not None:
            await asyncio.gather(self._writing, return_exceptions=True)
            self._writing = None

    def _flush(self) -> None:
        self._drain()
        if self._attempt_buffer:
            # Attempts before results: a case's results row (its last answer) is never stored
            # before its other attempts, so a resume always knows what the case still lacks.
            attempts, self._attempt_buffer = self._attempt_buffer, []
            self.store.add_items(self.run_id, attempts)
        if not self._buffer:
            return
        batch, self._buffer = self._buffer, []
        self.store.add_results(self.run_id, batch)

    def _finish(self) -> RunRecord:
        counts = self._counts
        total = len(self._cases)
        if self._failed_reason:
            status, reason = RunStatus.FAILED, self._failed_reason
        elif self._cancel_requested:
            status = RunStatus.CANCELED
            reason = f"canceled after {counts.done} of {total} cases"
        elif counts.done < total:
            status = RunStatus.FAILED
            reason = f"only {counts.done} of {total} cases finished"
        elif counts.done and counts.errors / counts.done > self.options.max_error_rate:
            # A run too small for the early stop (min_cases_for_error_rate) is still judged by
            # the limit when it ends: five cases that all errored are a failed run, not a warning.
            status = RunStatus.FAILED
            reason = (
                f"{counts.errors} of {total} cases errored "
                f"(over the {self.options.max_error_rate:.0%} limit); "
                f"most often: {self._top_reason()}"
            )
        elif counts.errors:
            status = RunStatus.SUCCESS_WITH_WARNING
            reason = f"{counts.errors} of {total} cases errored; most often: {self._top_reason()}"
        else:
            status, reason = RunStatus.SUCCESS, None
        return self.store.finish_run(self.run_id, status, reason)

    def _rate(self, now: float) -> float:
        """Cases per second over the last ~5 s of this session."""
        self._samples.append((now, self._session_done))
        while len(self._samples) > 2 and now - self._samples[0][0] > 5.0:
            self._samples.popleft()
        t0, d0 = self._samples[0]
        if now - t0 >= 0.5:
            return (self._session_done - d0) / (now - t0)
        elapsed = now - (self._parse_started or now)
        return self._session_done / elapsed if elapsed > 0 else 0.0

    def _emit(self, *, final: bool = False, record: RunRecord | None = None) -> None:
        if self.on_progress is None or self.record is None:
            self._latest = []
            return
        now = time.monotonic()
        counts = self._counts
        total = len(self._cases)
        rate = self._rate(now)
        remaining = total - counts.done
        latest, self._latest = self._latest, []
        event = ProgressEvent.of_counts(
            self.run_id,
            counts,
            total,
            rate=rate,
            eta_s=(remaining / rate) if rate > 0 else (0.0 if not remaining else None),
            elapsed_s=now - self._started,
            latest=latest,
            status=record.status if record else RunStatus.RUNNING,
            reason=record.reason if record else None,
            final=final,
            phase=self._phase,
            # an HTTP engine that can train (Rasa) trains only when asked, never in open
            trains=self.engine.capabilities.training and not self.engine.capabilities.http,
        )
        try:
            self.on_progress(event)
        except Exception:
            log.exception("progress callback failed")


def _is_engine_error(exc: BaseException) -> bool:
    from nlu_tui.errors import NluTuiError

    return isinstance(exc, NluTuiError)


async def run_suite(
    suite: Suite,
    resolved: ResolvedEngineLike,
    store: RunStore,
    *,
    stage: str = "development",
    note: str = "",
    options: RunOptions | None = None,
    on_progress: ProgressCallback | None = None,
    cancel: asyncio.Event | None = None,
    resume_run_id: str | None = None,
) -> RunRecord:
    """Run ``suite`` (or resume ``resume_run_id``) and return the stored record of how it ended."""
    run = Run(
        suite,
        resolved,
        store,
        stage=stage,
        note=note,
        options=options,
        on_progress=on_progress,
        cancel=cancel,
        resume_run_id=resume_run_id,
    )
    return await run.execute()
