"""Running conversation tests (E2E test cases, test stories) on the run kernel.

Both faces call :func:`open_conversation_run` then ``await run.execute()``. The run is the run
kernel's (:mod:`nlu_tui.runner.kernel`) with :class:`ConversationRun` as its strategy: every
request to the engine runs under the attempt deadline (``timeout``). A run:

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

import contextlib
import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nlu_tui.conversation_model import E2EFile, StoryFile, Turn
from nlu_tui.engines.conversation import Conversation
from nlu_tui.errors import InputError
from nlu_tui.repeats import MAX_REPEAT
from nlu_tui.run_kinds import RunKindInfo
from nlu_tui.runner.answer_cache import AnswerCache
from nlu_tui.runner.item_run import ItemProgress, ItemRun, ids_base, unit_id
from nlu_tui.runner.kernel import Halt, Kernel, Sender, Work
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
    repeat: int | None = None
    """Hold each conversation this many times; pass/fail that differs is flaky."""
    e2e: bool = False
    """Stories: evaluate the user messages' intents and entities too (``rasa test``)."""
    rerun_failed: str | None = None
    """The id of a run of this kind whose failed and errored test cases a child run holds
    again (:mod:`nlu_tui.reruns`); its test files and engine unless given here."""
    no_cache: bool = False
    """Neither read nor write the profile's answer cache (``cache: true``) in this run."""


Progress = ItemProgress
"""A snapshot for the faces: counts so far and the test case that just finished."""


@dataclass
class Units:
    """The test cases or stories of a run, in order, with their item ids."""

    kind: str
    e2e: E2EFile | None = None
    stories: StoryFile | None = None
    order: list[Any] = field(default_factory=list)
    base: Path | None = None
    """The folder the test files are named from in item ids (the run's folder, or its file's)."""
    notes: list[str] = field(default_factory=list)
    """What reading the files noticed for the user (a story file Rasa would skip, by its name)."""

    def item_id(self, unit: Any) -> str:
        """A unit's id in the run's store: its file relative to :attr:`base`, line and name."""
        return unit_id(unit.file, unit.line, unit.name, self.base)

    @property
    def digest(self) -> str:
        data = self.e2e if self.e2e is not None else self.stories
        assert data is not None
        return data.digest


def load_units(kind: str, path: Path, *, e2e: bool = False) -> Units:
    """Read the test files of ``kind`` (InputError naming file, line and field if bad)."""
    if kind == E2E_RUN:
        from nlu_tui.formats import e2e_cases

        data = e2e_cases.read_path(path)
        if not data.test_cases:
            raise InputError("no test cases found", path=path, field="test_cases")
        return Units(kind, e2e=data, order=list(data.test_cases), base=ids_base(path))
    if kind == STORIES_RUN:
        from nlu_tui.conversation.checkpoints import expand
        from nlu_tui.formats import rasa_stories

        notes: list[str] = []
        stories = rasa_stories.read_path(path, e2e=e2e, notes=notes)  # --e2e: test_* files
        order = expand(stories.stories)
        if not order:
            raise InputError("no test stories found", path=path, field="stories")
        return Units(kind, stories=stories, order=order, base=ids_base(path), notes=notes)
    raise InputError(f"unknown conversation test kind {kind!r}", field="kind")


class DeadlinedConversation(Conversation):
    """A conversation whose every request runs under the kernel's attempt deadline."""

    def __init__(self, conversation: Conversation, sender: Sender) -> None:
        self._conversation = conversation
        self._sender = sender
        self.sender_id = conversation.sender_id

    async def begin(self, slots: Mapping[str, Any] | None = None) -> Turn:
        return await self._sender.request(lambda: self._conversation.begin(slots))

    async def send(self, text: str, metadata: Mapping[str, Any] | None = None) -> Turn:
        return await self._sender.request(lambda: self._conversation.send(text, metadata))


class _DeadlinedProbe:
    """A dialogue probe whose every request runs under the kernel's attempt deadline."""

    def __init__(self, probe: Any, sender: Sender) -> None:
        self._probe = probe
        self._sender = sender

    async def dialogue_domain(self) -> Any:
        return await self._sender.request(self._probe.dialogue_domain)

    async def predict_action(self, events: Sequence[Mapping[str, Any]]) -> Any:
        return await self._sender.request(lambda: self._probe.predict_action(events))

    async def parse_message(self, text: str) -> dict[str, Any]:
        parsed: dict[str, Any] = await self._sender.request(lambda: self._probe.parse_message(text))
        return parsed


class ConversationRun(ItemRun):
    """One run (new or resumed) of E2E test cases or test stories: the strategy the run
    kernel drives (:mod:`nlu_tui.runner.kernel`, with the bookkeeping of
    :class:`~nlu_tui.runner.item_run.ItemRun`), and the handle the faces hold.
    ``prepare()`` registers it; ``await execute()`` runs it; ``cancel()`` from anywhere."""

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
        cache: AnswerCache | None = None,
    ) -> None:
        self._init_items(store, options, previous)
        self.kind = units.kind
        self.request = request
        self.units = units
        self.resolved = resolved
        self.engine = resolved.engine
        self.path = path
        self.note = request.note
        self.width = 1 if request.fail_fast else None
        """--fail-fast: one conversation at a time, in file order."""
        self._domain: Any = None
        self._seq_of: dict[str, int] = {}
        self.kernel = Kernel(self, width=self.width, cache=cache)

    # --- the strategy -----------------------------------------------------------------------

    def digest(self) -> str:
        return self.units.digest

    def stored_options(self) -> dict[str, Any]:
        return {"fail_fast": self.request.fail_fast, "e2e": self.request.e2e}

    def pending(self, stored: list[StoredItem]) -> list[Work]:
        done = {i.item_id for i in stored}
        pending = [
            (i, u)
            for i, u in enumerate(self.units.order)
            # str(u.item_id): the ids of runs stored before ids were made relative
            if self.units.item_id(u) not in done and str(u.item_id) not in done
        ]
        self._seq_of = {self.units.item_id(u): i for i, u in pending}
        return [Work(seq, self.units.item_id(unit), unit) for seq, unit in pending]

    def total(self) -> int:
        return len(self.units.order)

    # --- the answer cache (a profile's cache: true): a whole test case's outcome -------------

    def cache_request(self, work: Work) -> dict[str, Any] | None:
        """A test case is one request as far as the cache goes: the test files' content (their
        digest: fixtures, metadata and steps) and the test case's id."""
        return {
            "kind": self.units.kind,
            "tests": self.units.digest,
            "item": work.item_id,
            "e2e": self.request.e2e,
        }

    def cache_answer(self, answer: StoredItem) -> str | None:
        if answer.outcome == "error" or answer.data.get("cached"):
            return None  # an engine error is never kept
        import json

        payload = {"item_id": answer.item_id, "outcome": answer.outcome, "data": answer.data}
        return json.dumps(payload, ensure_ascii=False, default=str)

    def cached_answer(self, text: str) -> StoredItem:
        """The stored outcome, marked ``cached`` and without a latency."""
        import json

        found = json.loads(text)
        item_id = str(found["item_id"])
        data = {**found["data"], "cached": True}
        return StoredItem(item_id, self._seq_of.get(item_id, 0), str(found["outcome"]), None, data)

    async def open(self, client: Any) -> None:
        await self.engine.open(client)
        if self.units.kind == STORIES_RUN:
            self._domain = await self.engine.dialogue_domain()

    async def close(self) -> None:
        await self.engine.close()

    async def send(self, work: Work, sender: Sender) -> StoredItem:
        """Hold one conversation (every request under the attempt deadline); a failure
        escapes, and the kernel retries the whole test case under a new sender id."""
        seq, unit = work.seq, work.item
        assert self.record is not None
        sender_id = f"nlu-tui-{self.record.id[:8]}-{seq}-{uuid.uuid4().hex[:8]}"
        if self.units.kind == E2E_RUN:
            from nlu_tui.conversation.e2e_run import run_case

            assert self.units.e2e is not None
            conversation = DeadlinedConversation(self.engine.conversation(sender_id), sender)
            result = await run_case(conversation, self.units.e2e, unit)
            data = result.as_dict()
            data.update(
                file=unit.file,
                line=unit.line,
                sender_id=sender_id,
                turns=[t.as_dict() for t in result.turns],
                failed_steps=[f.position for f in result.failures],
                error_line=result.error_line,
            )
            outcome = "passed" if result.pass_status else "failed"
            return StoredItem(work.item_id, seq, outcome, result.latency_ms, data)
        from nlu_tui.conversation.story_eval import evaluate_story

        began = time.perf_counter()
        probe = _DeadlinedProbe(self.engine, sender)
        story_result = await evaluate_story(unit, probe, self._domain, e2e=self.request.e2e)
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
            "policy_entities": story_result.policy_entities,
            "written": [
                {"event": w.event, "comment": w.comment, "plain": w.plain_action}
                for w in story_result.written
            ],
        }
        outcome = "passed" if story_result.passed else "failed"
        return StoredItem(work.item_id, seq, outcome, (time.perf_counter() - began) * 1000.0, data)

    def failed(self, work: Work, reason: str, latency_ms: float) -> StoredItem:
        unit = work.item
        return StoredItem(
            item_id=work.item_id,
            seq=work.seq,
            outcome="error",
            latency_ms=latency_ms,
            data={"name": unit.name, "file": unit.file, "line": unit.line, "error": reason},
        )

    def arrived(self, work: Work, answer: Any, item: StoredItem) -> tuple[Halt, str | None] | None:
        self.progress(item)
        if self.request.fail_fast and item.outcome != "passed":
            self.stopped_early = True
            return (Halt.STOP, None)
        return None

    def summary(self) -> dict[str, Any]:
        assert self.record is not None
        summary: dict[str, Any] = {
            **self.figures(),
            "fail_fast_stopped": self.stopped_early,
        }
        if self.repeat > 1:
            with contextlib.suppress(Exception):
                summary["stability"] = self.stability()
                if self.units.kind == E2E_RUN:  # generative assertions: the judge's agreement
                    from nlu_tui.conversation.judge_agreement import judge_agreement

                    every = self.store.load_items(self.record.id, attempts=True)
                    agreement = judge_agreement(every, self.repeat)
                    if agreement is not None:
                        summary["judge_agreement"] = agreement
        if self.options.rerun_of:  # what the tests now score: the parent's passes + ours
            from nlu_tui.reruns import MERGED, merged_item_figures, merged_items

            with contextlib.suppress(Exception):
                summary[MERGED] = merged_item_figures(merged_items(self.store, self.record))
        return summary


E2E_RUN_KIND = RunKindInfo(
    E2E_RUN, "E2E test cases: conversations", ConversationRun, "nlu-tui test e2e"
)
STORIES_RUN_KIND = RunKindInfo(
    STORIES_RUN, "test stories: dialogue policy", ConversationRun, "nlu-tui test stories"
)
"""The conversation kinds in the run-kinds registry (:mod:`nlu_tui.run_kinds`)."""


def open_conversation_run(
    request: ConversationRequest, store: RunStore, *, options: RunOptions | None = None
) -> ConversationRun:
    """Check the request, read the test files, resolve the engine: a run ready to execute.
    Bad input raises InputError before anything is stored."""
    from nlu_tui.engines.conversation import ConversationEngine, DialogueProbe
    from nlu_tui.engines.profiles import resolve_engine

    if request.kind not in KINDS:
        raise InputError(f"unknown conversation test kind {request.kind!r}", field="kind")
    from nlu_tui.reruns import item_run_origin

    origin = item_run_origin(
        store, request.kind, rerun_failed=request.rerun_failed, resume=request.resume
    )
    previous, parent, scope = origin.previous, origin.parent, origin.scope
    path = request.path
    engine_spec = request.engine
    if origin.source is not None:
        source = origin.source
        path = path or (Path(source.suite_path) if source.suite_path else None)
        engine_spec = engine_spec or source.engine_name
    if previous is None and parent is not None and parent.options.get("e2e"):
        request = replace(request, e2e=True)  # stories scored with --e2e are rerun so
    if path is None:
        raise InputError("give the test file or folder", field="PATH")
    if not engine_spec:
        raise InputError("give an engine (--engine)", field="--engine")
    if request.concurrency is not None and request.concurrency < 1:
        raise InputError("must be at least 1", field="--concurrency")
    units = load_units(request.kind, path, e2e=request.e2e)
    if previous is not None and previous.suite_hash != units.digest:
        raise InputError(
            f"the test files changed since run {previous.id}; start a new run instead",
            path=path,
            field="--resume",
        )
    if parent is not None and scope is not None:
        if parent.suite_hash != units.digest:
            raise InputError(
                f"the test files changed since run {parent.id}; run them all again instead",
                path=path,
                field="--rerun-failed",
            )
        units = replace(
            units,
            order=[u for u in units.order if units.item_id(u) in scope or str(u.item_id) in scope],
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
    if request.repeat is not None and not 1 <= request.repeat <= MAX_REPEAT:
        raise InputError(f"must be between 1 and {MAX_REPEAT}", field="--repeat")
    for name in ("concurrency", "timeout", "retries", "repeat"):
        value = getattr(request, name)
        if value is not None:
            changes[name] = value
    secrets = tuple(getattr(resolved, "secrets", None) or ())
    if parent is not None:
        changes["rerun_of"] = parent.id
    opts = replace(base, secrets=(*base.secrets, *secrets), **changes)
    # a repeated run and a rerun of failures ask the engine again (they only write the cache)
    cache = AnswerCache.of_profile(
        store, resolved, off=request.no_cache, read=opts.repeat < 2 and parent is None
    )
    return ConversationRun(
        request, units, resolved, store, opts, previous=previous, path=path, cache=cache
    )
