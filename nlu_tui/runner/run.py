"""The kind of run that sends every case of an NLU suite to one engine (kind ``suite``).

:class:`SuiteKind` is the suite's strategy for the run kernel (:mod:`nlu_tui.runner.kernel`):
its items are the suite's cases (their ids are the cases' ids), one request each; it scores
each answer as it arrives, writes results (and a repeated run's attempts #2..#N, see
:mod:`nlu_tui.repeats`) to the store, stops early when too many cases errored and emits
:class:`~nlu_tui.runner.events.ProgressEvent` snapshots. :class:`Run` is the handle both faces
use: ``prepare()`` then ``await execute()``, ``cancel()`` from anywhere.
"""

from __future__ import annotations

import asyncio
import collections
import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from nlu_tui.engines.base import Engine, ParseContext
from nlu_tui.engines.redact import redact, redact_prediction
from nlu_tui.model import CaseResult, Prediction, ResultType, RunStatus, Suite, TestCase
from nlu_tui.repeats import attempt_item, repeat_of, stored_attempts
from nlu_tui.run_kinds import RunKindInfo
from nlu_tui.runner.answer_cache import AnswerCache
from nlu_tui.runner.events import ProgressEvent
from nlu_tui.runner.kernel import Ending, Halt, Kernel, KernelRun, KernelState, Sender, Work
from nlu_tui.runner.options import RunOptions
from nlu_tui.runner.shards import Shard
from nlu_tui.store.codec import cap_raw, dumps, prediction_from_json
from nlu_tui.store.records import RunRecord, StoredItem
from nlu_tui.store.runstore import RunStore

_ATTEMPTS = re.compile(r" \(after \d+ attempts\)$")
"""The note a case's error gets when it failed after retries; the run's "most often" reason
counts the same failure as one, retried or not."""

SYNONYMS_KEY = "entity_synonyms"
"""Where a run's record keeps the entity synonym groups it scores with (to resume with them)."""

SUITE_KIND = "suite"

ProgressCallback = Callable[[ProgressEvent], None]
Finished = tuple[TestCase, Prediction, CaseResult]


class ResolvedEngineLike(Protocol):
    """What :func:`nlu_tui.engines.profiles.resolve_engine` returns, as the runner uses it."""

    name: str
    engine: Engine
    profile_public: dict[str, Any]


class SuiteKind:
    """The suite strategy: cases sent one request each, scored by the scoring core."""

    kind = SUITE_KIND
    ended_by_another_shard = False
    """A shard whose run was ended by another shard (the last ones raced): it writes no reports
    and checks no gates, the one that ended the run does."""

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
        resume_run_id: str | None = None,
        shard: Shard | None = None,
        shared_run_id: str | None = None,
    ) -> None:
        self.suite = suite
        self.shard = shard
        """With a shard: this process sends only that shard's cases of the shared run
        ``shared_run_id`` (created by the first shard), or of ``resume_run_id``."""
        self.shared_run_id = shared_run_id
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
        self.resume_run_id = resume_run_id
        self.record: RunRecord | None = None
        self._cases: list[TestCase] = []
        self._pending: list[tuple[int, TestCase]] = []
        self._buffer: list[tuple[int, Prediction, CaseResult]] = []
        self._attempt_buffer: list[StoredItem] = []
        self._repeat = 1
        self._arrived: dict[str, int] = {}
        """Per case: attempts #2..#N stored or arrived (a repeated run, see nlu_tui.repeats)."""
        self._latest: list[Finished] = []
        self._reasons: collections.Counter[str] = collections.Counter()
        self._counts: Any = None
        self._scoring: Any = None
        self._session_done = 0
        self._samples: collections.deque[tuple[float, int]] = collections.deque()

    # --- set-up -----------------------------------------------------------------------------

    def prepare(self) -> RunRecord:
        """Create (or reopen, for a resume) the run in the store; the run id is known after."""
        if self.record is not None:
            return self.record
        from nlu_tui.scoring.case import ScoringOptions, synonyms_from_json, synonyms_json
        from nlu_tui.scoring.summary import LiveCounts

        self._counts = LiveCounts()
        if self.shard is not None or (self.resume_run_id and self.shared_run_id):
            self.record = self._open_shared()
        if self.resume_run_id or self.record is not None:
            if self.record is None:
                self.record = self.store.resume_run(self.resume_run_id or "")
            self._cases = self.store.load_cases(self.record.id)
            for _case, _pred, result in self.store.load_results(self.record.id):
                self._counts.add(result)
            done = self.store.done_case_ids(self.record.id)
            self._pending = [
                (i, c)
                for i, c in enumerate(self._cases)
                if c.id not in done and (self.shard is None or self.shard.owns(c.id))
            ]
            if self.shard is None and self.shared_run_id:  # --finish: nothing to send
                self._pending = []
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

    def _open_shared(self) -> RunRecord:
        """The sharded run: created by the first shard, joined (or set running again after a
        kill) by the others."""
        from nlu_tui.errors import InputError
        from nlu_tui.runner.shards import SHARDS_KEY

        run_id = self.resume_run_id or self.shared_run_id
        assert run_id is not None
        existing = self.store.find_run(run_id)
        if existing is None:
            if self.resume_run_id or self.shard is None:
                raise InputError(f"no run with id {run_id!r} (see `nlu-tui runs`)")
            from nlu_tui.scoring.case import ScoringOptions, synonyms_json

            options = self.options.public()
            options[SHARDS_KEY] = self.shard.count
            synonyms = ScoringOptions().for_suite(self.suite).entity_synonyms
            if synonyms:
                options[SYNONYMS_KEY] = synonyms_json(synonyms)
            created = self.store.create_run(
                self.suite,
                engine_name=self.resolved.name,
                engine_profile=dict(self.resolved.profile_public),
                stage=self.stage,
                note=self.note,
                options=options,
                run_id=run_id,
            )
            existing = created
        count = existing.options.get(SHARDS_KEY)
        if count is None:
            raise InputError(f"run {existing.id} is not a sharded run", field="--shard")
        if self.shard is not None and self.shard.count != count:
            raise InputError(
                f"run {existing.id} is split in {count} shards, not {self.shard.count}",
                field="--shard",
            )
        if self.shard is not None and not self.resume_run_id:
            from nlu_tui.store.runstore import suite_digest

            if existing.suite_hash != suite_digest(self.suite):
                raise InputError(
                    f"run {existing.id} was started on another version of the suite "
                    f"({existing.suite_name}); every shard must run the same file",
                    field="--run-id",
                )
        if existing.status in (RunStatus.SUCCESS, RunStatus.SUCCESS_WITH_WARNING):
            if self.shard is not None:
                raise InputError(f"run {existing.id} is finished ({existing.status.value})")
            return existing
        return self.store.rejoin_shared_run(existing.id)

    def total(self) -> int:
        return len(self._cases)

    def work(self) -> list[Work]:
        """Each pending case once, or (repeated run) as many times as it still lacks
        attempts, one case after the other so cases complete in suite order."""
        if self._repeat < 2:
            return [Work(seq, case.id, case) for seq, case in self._pending]
        return [
            Work(seq, case.id, case)
            for seq, case in self._pending
            for _ in range(max(1, self._repeat - self._arrived.get(case.id, 0)))
        ]

    async def open(self, client: Any) -> None:
        await self.engine.open(client)

    async def close(self) -> None:
        await self.engine.close()

    # --- one case ---------------------------------------------------------------------------

    async def send(self, work: Work, sender: Sender) -> Prediction:
        case: TestCase = work.item
        opts = self.options
        context = ParseContext(
            parent_intents=list(case.parent_intents), case_id=case.id, stage=self.stage
        )
        began = time.perf_counter()
        prediction = await sender.request(lambda: self.engine.parse(case.utterance, context))
        if prediction.latency_ms is None:
            prediction.latency_ms = (time.perf_counter() - began) * 1000.0
        if opts.secrets:
            redact_prediction(prediction, opts.secrets)
        if prediction.error:
            prediction.error = redact(prediction.error, opts.secrets)
        # The full answer goes on to scoring (``raw:`` checks read any field of it);
        # :meth:`arrive` caps it before it is stored.
        return prediction

    def failed(self, work: Work, reason: str, latency_ms: float) -> Prediction:
        return Prediction(error=reason, latency_ms=latency_ms)

    # --- the answer cache (nlu_tui.runner.answer_cache) -------------------------------------

    def cache_request(self, work: Work) -> dict[str, Any] | None:
        """What the engine is asked: the utterance, its parent intents and the version."""
        case: TestCase = work.item
        return {
            "text": case.utterance,
            "parent_intents": list(case.parent_intents),
            "stage": self.stage,
        }

    def cache_answer(self, answer: Prediction) -> str | None:
        if answer.error or answer.cached:
            return None
        return dumps(answer)

    def cached_answer(self, text: str) -> Prediction:
        prediction = prediction_from_json(text)
        prediction.latency_ms = None  # never counted in latency figures
        prediction.cached = True
        return prediction

    def arrive(self, work: Work, answer: Prediction) -> tuple[Halt, str | None] | None:
        from nlu_tui.scoring.case import score_case

        case: TestCase = work.item
        result = score_case(case, answer, self._scoring)
        # Scored from the full answer; a huge answer is stored cut.
        answer.raw = cap_raw(answer.raw, self.options.max_raw_bytes)
        result.cached = answer.cached
        if answer.error and result.result is not ResultType.ERROR:
            result.result = ResultType.ERROR
            result.error = answer.error
        return self._record(work.seq, case, answer, result)

    def _record(
        self, seq: int, case: TestCase, prediction: Prediction, result: CaseResult
    ) -> tuple[Halt, str | None] | None:
        if self._repeat > 1:
            arrived = self._arrived.get(case.id, 0)
            if arrived < self._repeat - 1:  # not the case's last answer: attempt #2..#N
                self._arrived[case.id] = arrived + 1
                self._attempt_buffer.append(
                    attempt_item(seq, arrived + 2, prediction, result, self._repeat)
                )
                return None
        self._buffer.append((seq, prediction, result))
        self._latest.append((case, prediction, result))
        self._counts.add(result)
        self._session_done += 1
        if result.result is ResultType.ERROR:
            self._reasons[_ATTEMPTS.sub("", result.error or "") or "unknown error"] += 1
            done, errors = self._counts.done, self._counts.errors
            opts = self.options
            too_many = errors / done > opts.max_error_rate
            if done >= opts.min_cases_for_error_rate and too_many:
                return (
                    Halt.FAIL,
                    f"stopped early: {errors} of {done} cases errored "
                    f"(over the {opts.max_error_rate:.0%} limit); "
                    f"most often: {self._top_reason()}",
                )
        return None

    def _top_reason(self) -> str:
        if not self._reasons:
            return "unknown error"
        reason, n = self._reasons.most_common(1)[0]
        return f"{reason} (×{n})"

    # --- store and progress -----------------------------------------------------------------

    def take_writes(self) -> Callable[[], object] | None:
        """Attempts before results: a case's results row (its last answer) is never stored
        before its other attempts, so a resume always knows what the case still lacks. The
        rows are encoded here; only SQLite's part runs in the kernel's thread."""
        if not self._buffer and not self._attempt_buffer:
            return None
        assert self.record is not None
        run_id, store = self.record.id, self.store
        attempts, self._attempt_buffer = self._attempt_buffer, []
        batch, self._buffer = self._buffer, []
        rows = store.result_rows(run_id, batch) if batch else []

        def write() -> object:
            if attempts:
                store.add_items(run_id, attempts)
            if rows:
                store.insert_result_rows(run_id, rows)
            return None

        return write

    def _finish_shared(self) -> RunRecord:
        """A shard whose cases are all in: the run ends when every shard's are, judged on the
        stored counters (all shards' results); otherwise it stays running for the others."""
        assert self.record is not None
        run = self.store.get_run(self.record.id)
        if run.done < run.total:
            return run
        if run.status in (RunStatus.SUCCESS, RunStatus.SUCCESS_WITH_WARNING):
            # ended already: by another shard (that one wrote the reports), or asked again with
            # --finish (which writes them again)
            self.ended_by_another_shard = self.shard is not None
            return run
        if run.done and run.errors / run.done > self.options.max_error_rate:
            status = RunStatus.FAILED
            reason = (
                f"{run.errors} of {run.total} cases errored "
                f"(over the {self.options.max_error_rate:.0%} limit)"
            )
        elif run.errors:
            status, reason = (
                RunStatus.SUCCESS_WITH_WARNING,
                f"{run.errors} of {run.total} cases errored",
            )
        else:
            status, reason = RunStatus.SUCCESS, None
        if not self.store.claim_finish(run.id, status, reason):
            # the last shards end at once: one of them ends the run (and writes its reports)
            self.ended_by_another_shard = self.shard is not None
        return self.store.get_run(run.id)

    def finish(self, ending: Ending) -> RunRecord:
        assert self.record is not None
        counts = self._counts
        total = len(self._cases)
        sharded = self.shard is not None or self.shared_run_id
        if sharded and (self.shard is None or not (ending.failed_reason or ending.canceled)):
            return self._finish_shared()  # --finish needs no engine: it sends nothing
        if ending.failed_reason:
            status, reason = RunStatus.FAILED, ending.failed_reason
        elif ending.canceled:
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
        if sharded:  # a shard failed or was canceled: never over a run another shard ended
            self.store.claim_finish(self.record.id, status, reason)
            return self.store.get_run(self.record.id)
        return self.store.finish_run(self.record.id, status, reason)

    def _rate(self, now: float, parse_started: float | None) -> float:
        """Cases per second over the last ~5 s of this session."""
        self._samples.append((now, self._session_done))
        while len(self._samples) > 2 and now - self._samples[0][0] > 5.0:
            self._samples.popleft()
        t0, d0 = self._samples[0]
        if now - t0 >= 0.5:
            return (self._session_done - d0) / (now - t0)
        elapsed = now - (parse_started or now)
        return self._session_done / elapsed if elapsed > 0 else 0.0

    def emit(self, state: KernelState, *, final: bool, record: RunRecord | None) -> None:
        if self.on_progress is None or self.record is None:
            self._latest = []
            return
        now = time.monotonic()
        counts = self._counts
        total = len(self._cases)
        if state.parse_started is None:  # the rate counts answers, not training or probing
            self._samples.clear()
            rate = 0.0
        else:
            rate = self._rate(now, state.parse_started)
        remaining = total - counts.done
        latest, self._latest = self._latest, []
        event = ProgressEvent.of_counts(
            self.record.id,
            counts,
            total,
            rate=rate,
            eta_s=(remaining / rate) if rate > 0 else (0.0 if not remaining else None),
            elapsed_s=state.elapsed(now),
            latest=latest,
            status=record.status if record else RunStatus.RUNNING,
            reason=record.reason if record else None,
            final=final,
            phase=state.phase,
            # an HTTP engine that can train (Rasa) trains only when asked, never in open
            trains=self.engine.capabilities.training and not self.engine.capabilities.http,
        )
        self.on_progress(event)


class Run(SuiteKind, KernelRun):
    """One run of a suite (new, or a resumed one): the suite kind on the run kernel.
    ``prepare`` then ``await execute()``; ``cancel()`` is thread-safe."""

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
        cache: AnswerCache | None = None,
        shard: Shard | None = None,
        shared_run_id: str | None = None,
    ) -> None:
        super().__init__(
            suite,
            resolved,
            store,
            stage=stage,
            note=note,
            options=options,
            on_progress=on_progress,
            resume_run_id=resume_run_id,
            shard=shard,
            shared_run_id=shared_run_id,
        )
        self.kernel = Kernel(self, cancel=cancel, cache=cache)


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


SUITE_RUN_KIND = RunKindInfo(
    SUITE_KIND, "NLU suite: one utterance per case", SuiteKind, "nlu-tui run"
)
"""The suite kind in the run-kinds registry (:mod:`nlu_tui.run_kinds`)."""
