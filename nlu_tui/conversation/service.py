"""Running conversation tests (E2E test cases, test stories) with the runner's guarantees.

Both faces call :func:`open_conversation_run` then ``await run.execute()``. A run:

- checks its input first (test files read, engine resolved and able to converse): bad input
  raises before anything is stored;
- holds at most ``concurrency`` conversations at once, each under its own sender id;
- retries a test case whose engine call failed (transport error, timeout, 429/5xx) from the
  start, under a new sender id, with backoff; gives up after ``retries`` extra attempts and
  records the test case as an ``error``;
- stores every test case as soon as it finishes (``RunStore.add_items``), so a killed process
  loses only the conversations in flight; ``resume`` sends only the test cases not stored
  (never a finished conversation twice) and refuses test files changed since;
- stops within a second when canceled, keeping what finished (status ``canceled``);
- with ``fail_fast`` (E2E), stops after the first failed test case, as ``rasa test e2e
  --fail-fast`` (one conversation at a time then, in file order).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nlu_tui.conversation.model import E2EFile, StoryFile
from nlu_tui.errors import EngineError, InputError
from nlu_tui.model import RunStatus, Suite
from nlu_tui.runner.options import RunOptions
from nlu_tui.store.records import RunRecord, StoredItem
from nlu_tui.store.runstore import RunStore

log = logging.getLogger(__name__)

E2E_RUN = "e2e"
STORIES_RUN = "stories"
KINDS = (E2E_RUN, STORIES_RUN)


@dataclass(frozen=True)
class ConversationRequest:
    """What a face asks for: a kind, test files and an engine (or a run id to resume)."""

    kind: str
    path: Path | None = None
    engine: str | None = None
    note: str = ""
    resume: str | None = None
    workspace: Path | None = None
    concurrency: int | None = None
    timeout: float | None = None
    retries: int | None = None
    fail_fast: bool = False
    e2e: bool = False
    """Stories: evaluate the user messages' intents and entities too (``rasa test``)."""


@dataclass
class Progress:
    """A snapshot for the faces: counts so far and the item that just finished."""

    total: int
    done: int
    passed: int
    failed: int
    errors: int
    last: StoredItem | None = None
    final: bool = False


@dataclass
class Units:
    """The test cases or stories of a run, in order, with their item ids."""

    kind: str
    e2e: E2EFile | None = None
    stories: StoryFile | None = None
    order: list[Any] = field(default_factory=list)
    base: Path | None = None
    """The folder the test files are named from in item ids (the run's folder, or its file's)."""

    def item_id(self, unit: Any) -> str:
        """A unit's id in the run's store: its file relative to :attr:`base`, line and name.
        It must not depend on how the path was spelled: a run of ``tests/x.yml`` is resumed
        from its stored absolute path, and ids that differed sent every test case again."""
        file = str(unit.file or "")
        if file and self.base is not None:
            with contextlib.suppress(ValueError, OSError):
                file = Path(file).resolve().relative_to(self.base).as_posix()
        return f"{file}:{unit.line}:{unit.name}"

    @property
    def digest(self) -> str:
        data = self.e2e if self.e2e is not None else self.stories
        assert data is not None
        return data.digest


def load_units(kind: str, path: Path) -> Units:
    """Read the test files of ``kind`` (InputError naming file, line and field if bad)."""
    if kind == E2E_RUN:
        from nlu_tui.formats import e2e_cases

        data = e2e_cases.read_path(path)
        if not data.test_cases:
            raise InputError("no test cases found", path=path, field="test_cases")
        for case in data.test_cases:
            for step in case.steps:
                if "assertions" in step.extra:  # scored otherwise: a pass would be false
                    raise InputError(
                        "E2E assertions (Rasa Pro's assertions: steps) are not supported; "
                        "write the expectations as bot/utter/slot steps",
                        path=case.file,
                        line=step.line,
                        field="assertions",
                    )
        return Units(kind, e2e=data, order=list(data.test_cases), base=_base(path))
    if kind == STORIES_RUN:
        from nlu_tui.conversation.checkpoints import expand
        from nlu_tui.formats import rasa_stories

        stories = rasa_stories.read_path(path)
        order = expand(stories.stories)
        if not order:
            raise InputError("no test stories found", path=path, field="stories")
        return Units(kind, stories=stories, order=order, base=_base(path))
    raise InputError(f"unknown conversation test kind {kind!r}", field="kind")


def _base(path: Path) -> Path | None:
    with contextlib.suppress(OSError):
        resolved = path.resolve()
        return resolved if resolved.is_dir() else resolved.parent
    return None


class ConversationRun:
    """One run (new or resumed). ``prepare()`` registers it; ``await execute()`` runs it."""

    def __init__(
        self,
        request: ConversationRequest,
        units: Units,
        resolved: Any,
        store: RunStore,
        options: RunOptions,
        *,
        previous: RunRecord | None = None,
        path: Path,
    ) -> None:
        self.request = request
        self.units = units
        self.resolved = resolved
        self.engine = resolved.engine
        self.store = store
        self.options = options
        self.previous = previous
        self.path = path
        self.record: RunRecord | None = None
        self.on_progress: Callable[[Progress], None] | None = None
        self._pending: list[tuple[int, Any]] = []
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None
        self._cancel_requested = False
        self._failed_reason: str | None = None
        self._fail_fast_hit = False
        self._counts = {"done": 0, "passed": 0, "failed": 0, "errors": 0}
        self._domain: Any = None

    # --- set-up -----------------------------------------------------------------------------

    @property
    def run_id(self) -> str:
        if self.record is None:
            raise RuntimeError("call prepare() first")
        return self.record.id

    def prepare(self) -> RunRecord:
        if self.record is not None:
            return self.record
        units = self.units.order
        if self.previous is not None:
            self.record = self.store.resume_run(self.previous.id)
            done = self.store.done_item_ids(self.record.id)
            for item in self.store.load_items(self.record.id):
                self._count(item.outcome)
        else:
            name = self.path.name if self.path.is_file() else self.path.resolve().name
            options = self.options.public()
            options.update(fail_fast=self.request.fail_fast, e2e=self.request.e2e)
            self.record = self.store.create_run(
                Suite(name=name, path=self.path, cases=[]),
                engine_name=self.resolved.name,
                engine_profile=dict(self.resolved.profile_public),
                note=self.request.note,
                options=options,
                cases=[],
                kind=self.units.kind,
                total=len(units),
                digest=self.units.digest,
            )
            done = set()
        self._pending = [
            (i, u)
            for i, u in enumerate(units)
            # str(u.item_id): the ids of runs stored before ids were made relative
            if self.units.item_id(u) not in done and str(u.item_id) not in done
        ]
        return self.record

    def _count(self, outcome: str) -> None:
        self._counts["done"] += 1
        key = {"passed": "passed", "failed": "failed"}.get(outcome, "errors")
        self._counts[key] += 1

    def cancel(self) -> None:
        """Stop within a second, keeping what finished (thread-safe)."""
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
        self.prepare()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._stop = asyncio.Event()
        if self._cancel_requested:
            self._stop.set()
        beat = asyncio.create_task(self._heartbeat())
        outer_cancel = False
        try:
            await self._main()
        except asyncio.CancelledError:
            outer_cancel = True
            self._cancel_requested = True
        finally:
            beat.cancel()
            await asyncio.gather(beat, return_exceptions=True)
            final = self._finish()
            self._emit(None, final=True)
        if outer_cancel:
            raise asyncio.CancelledError
        return final

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.options.heartbeat_interval)
            with contextlib.suppress(Exception):
                self.store.heartbeat(self.run_id)

    async def _main(self) -> None:
        from nlu_tui.runner.client import make_client

        assert self._stop is not None
        opts = self.options
        client = make_client(concurrency=opts.concurrency, timeout=opts.timeout)
        try:
            try:
                await self.engine.open(client)
                if self.units.kind == STORIES_RUN:
                    self._domain = await self.engine.dialogue_domain()
            except Exception as exc:
                from nlu_tui.runner.retry import classify

                reason = str(exc) if isinstance(exc, EngineError) else classify(exc).reason
                if not reason.startswith("engine unreachable"):
                    reason = f"engine unreachable: {reason}"
                self._failed_reason = self.resolved.redact(reason)
                return
            self._emit(None)
            if not self._pending:
                return
            width = 1 if self.request.fail_fast else max(1, opts.concurrency)
            queue = iter(self._pending)
            workers = [
                asyncio.create_task(self._worker(queue))
                for _ in range(min(width, len(self._pending)))
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
                    self._failed_reason = self._failed_reason or self.resolved.redact(
                        f"internal error: {type(outcome).__name__}: {outcome}"
                    )
        finally:
            with contextlib.suppress(Exception):
                await self.engine.close()
            with contextlib.suppress(Exception):
                await client.aclose()

    async def _worker(self, queue: Any) -> None:
        for seq, unit in queue:
            if self._cancel_requested or self._failed_reason or self._fail_fast_hit:
                return
            item = await self._attempts(seq, unit)
            if item is None:
                return
            self.store.add_items(self.run_id, [item])
            self._count(item.outcome)
            self._emit(item)
            if self.request.fail_fast and item.outcome != "passed":
                self._fail_fast_hit = True
                assert self._stop is not None
                self._stop.set()

    async def _attempts(self, seq: int, unit: Any) -> StoredItem | None:
        """Run one unit, retrying it whole; None when the run was canceled meanwhile."""
        from nlu_tui.runner.retry import backoff_delay, classify

        opts = self.options
        attempt = 0
        while True:
            began = time.perf_counter()
            sender = f"nlu-tui-{self.run_id[:8]}-{seq}-{uuid.uuid4().hex[:8]}"
            try:
                async with asyncio.timeout(opts.timeout * max(4, _size(unit))):
                    return await self._run_unit(seq, unit, sender)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self._cancel_requested or self._failed_reason:
                    return None
                failure = classify(exc)
                if failure.retryable and attempt < opts.retries:
                    delay = (
                        min(failure.retry_after, opts.retry_after_max)
                        if failure.retry_after is not None
                        else backoff_delay(attempt, opts.backoff_base, opts.backoff_max)
                    )
                    attempt += 1
                    await asyncio.sleep(delay)
                    continue
                reason = failure.reason + (f" (after {attempt + 1} attempts)" if attempt else "")
                return StoredItem(
                    item_id=self.units.item_id(unit),
                    seq=seq,
                    outcome="error",
                    latency_ms=(time.perf_counter() - began) * 1000.0,
                    data={
                        "name": unit.name,
                        "file": unit.file,
                        "line": unit.line,
                        "error": self.resolved.redact(reason),
                        "sender_id": sender,
                    },
                )

    async def _run_unit(self, seq: int, unit: Any, sender: str) -> StoredItem:
        if self.units.kind == E2E_RUN:
            from nlu_tui.conversation.e2e_run import run_case

            assert self.units.e2e is not None
            result = await run_case(self.engine.conversation(sender), self.units.e2e, unit)
            data = result.as_dict()
            data.update(
                file=unit.file,
                line=unit.line,
                sender_id=sender,
                turns=[t.as_dict() for t in result.turns],
                failed_steps=[f.position for f in result.failures],
                error_line=result.error_line,
            )
            outcome = "passed" if result.pass_status else "failed"
            return StoredItem(self.units.item_id(unit), seq, outcome, result.latency_ms, data)
        from nlu_tui.conversation.story_eval import evaluate_story

        began = time.perf_counter()
        story_result = await evaluate_story(unit, self.engine, self._domain, e2e=self.request.e2e)
        data = {
            "name": unit.name,
            "file": unit.file,
            "line": unit.line,
            "passed": story_result.passed,
            "warning": story_result.warning,
            "first_failure": story_result.first_failure,
            "first_failure_line": story_result.first_failure_line,
            "actions": [
                [p.expected, p.predicted, p.policy, p.confidence] for p in story_result.actions
            ],
            "intents": [list(p) for p in story_result.intents],
            "entity_targets": story_result.entity_targets,
            "entity_predictions": story_result.entity_predictions,
            "written": [
                {"event": w.event, "comment": w.comment, "plain": w.plain_action}
                for w in story_result.written
            ],
        }
        outcome = "passed" if story_result.passed else "failed"
        return StoredItem(
            self.units.item_id(unit), seq, outcome, (time.perf_counter() - began) * 1000.0, data
        )

    def _emit(self, item: StoredItem | None, *, final: bool = False) -> None:
        if self.on_progress is None:
            return
        c = self._counts
        total = len(self.units.order)
        with contextlib.suppress(Exception):
            self.on_progress(
                Progress(total, c["done"], c["passed"], c["failed"], c["errors"], item, final)
            )

    def _finish(self) -> RunRecord:
        c = self._counts
        summary = {
            "total": len(self.units.order),
            "passed": c["passed"],
            "failed": c["failed"],
            "errors": c["errors"],
            "fail_fast_stopped": self._fail_fast_hit,
        }
        with contextlib.suppress(Exception):
            self.store.set_summary(self.run_id, summary)
        if self._failed_reason:
            return self.store.finish_run(self.run_id, RunStatus.FAILED, self._failed_reason)
        if self._cancel_requested and not self._fail_fast_hit:
            return self.store.finish_run(self.run_id, RunStatus.CANCELED, "canceled")
        if c["errors"]:
            reason = f"{c['errors']} test case(s) could not be run (engine errors)"
            return self.store.finish_run(self.run_id, RunStatus.SUCCESS_WITH_WARNING, reason)
        return self.store.finish_run(self.run_id, RunStatus.SUCCESS)


def _size(unit: Any) -> int:
    return len(getattr(unit, "steps", []) or [])


def open_conversation_run(
    request: ConversationRequest, store: RunStore, *, options: RunOptions | None = None
) -> ConversationRun:
    """Check the request, read the test files, resolve the engine: a run ready to execute.
    Bad input raises InputError before anything is stored."""
    from nlu_tui.engines.conversation import ConversationEngine, DialogueProbe
    from nlu_tui.engines.profiles import resolve_engine

    if request.kind not in KINDS:
        raise InputError(f"unknown conversation test kind {request.kind!r}", field="kind")
    previous: RunRecord | None = None
    path = request.path
    engine_spec = request.engine
    if request.resume:
        previous = store.get_run(request.resume)
        if previous.kind != request.kind:
            raise InputError(
                f"run {previous.id} is a {previous.kind} run, not {request.kind}", field="--resume"
            )
        if previous.status not in (RunStatus.CANCELED, RunStatus.INTERRUPTED, RunStatus.FAILED):
            raise InputError(
                f"run {previous.id} is {previous.status.value}; only a canceled, interrupted or "
                "failed run can be resumed",
                field="--resume",
            )
        path = path or (Path(previous.suite_path) if previous.suite_path else None)
        engine_spec = engine_spec or previous.engine_name
    if path is None:
        raise InputError("give the test file or folder", field="PATH")
    if not engine_spec:
        raise InputError("give an engine (--engine)", field="--engine")
    if request.concurrency is not None and request.concurrency < 1:
        raise InputError("must be at least 1", field="--concurrency")
    units = load_units(request.kind, path)
    if previous is not None and previous.suite_hash != units.digest:
        raise InputError(
            f"the test files changed since run {previous.id}; start a new run instead",
            path=path,
            field="--resume",
        )
    resolved = resolve_engine(
        engine_spec, path if path.is_file() else None, workspace=request.workspace
    )
    engine = resolved.engine
    if not engine.capabilities.conversation or not isinstance(engine, ConversationEngine):
        raise InputError(
            f"engine {resolved.name!r} ({engine.type_name}) cannot hold a conversation",
            field="--engine",
        )
    if request.kind == STORIES_RUN and not isinstance(engine, DialogueProbe):
        raise InputError(
            f"engine {resolved.name!r} cannot predict dialogue actions for test stories",
            field="--engine",
        )
    base = options or RunOptions()
    base = base.with_settings(resolved.settings) if options is None else base
    changes: dict[str, Any] = {}
    for name in ("concurrency", "timeout", "retries"):
        value = getattr(request, name)
        if value is not None:
            changes[name] = value
    secrets = tuple(getattr(resolved, "secrets", None) or ())
    opts = replace(base, secrets=(*base.secrets, *secrets), **changes)
    run = ConversationRun(request, units, resolved, store, opts, previous=previous, path=path)
    return run
