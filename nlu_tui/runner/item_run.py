"""Runs of stored items: the bookkeeping E2E, stories, simulated-user and DUT runs share.

A run whose answers are rows of the store's ``items`` table (a conversation, a test story, a
simulated conversation, a DUT test case) is an :class:`ItemRun` on the run kernel
(:mod:`nlu_tui.runner.kernel`). The base does, once for every such kind:

- **prepare**: create the run in the store (:meth:`ItemRun.new_run` says with what), or reopen
  it for a resume; count what the store holds and ask the kind which items are still missing
  (:meth:`ItemRun.pending`); a resume repeats as the run was started
  (:class:`~nlu_tui.repeats.ItemAttempts`);
- **work**: each missing item, once per attempt it still lacks (``repeat``);
- **arrive**: place the row (attempt #1 is the item's own row, #2..#N apart), buffer it for
  the kernel's writer, count its outcome and hand the faces a progress snapshot;
- **finish**: the kind's summary (:meth:`ItemRun.summary`), then the status: ``failed``,
  ``canceled`` (unless the kind stopped early on purpose: ``--fail-fast``),
  ``success_with_warning`` when some items ended in an error, else ``success``.

:func:`run_to_resume` is the one check of a ``--resume RUN`` for these kinds.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.model import RunStatus, Suite
from nlu_tui.repeats import ItemAttempts, is_attempt, repeat_of, stability_summary
from nlu_tui.runner.events import RunPhase
from nlu_tui.runner.kernel import Ending, Halt, KernelRun, KernelState, StoredItemWrites, Work
from nlu_tui.runner.options import RunOptions
from nlu_tui.store.records import RunRecord, StoredItem
from nlu_tui.store.runstore import RunStore

RESUMABLE = (RunStatus.CANCELED, RunStatus.INTERRUPTED, RunStatus.FAILED)
"""What a run of items may be resumed from."""


def run_to_resume(
    store: RunStore, run_id: str, kind: str, *, field: str = "--resume", any_ended: bool = False
) -> RunRecord:
    """The stored run ``run_id`` to resume as a run of ``kind``; InputError if it is of
    another kind, or still running, or (unless ``any_ended``) not canceled, interrupted or
    failed."""
    previous = store.get_run(run_id)
    if previous.kind != kind:
        raise InputError(f"run {previous.id} is a {previous.kind} run, not {kind}", field=field)
    if any_ended:
        if previous.status is RunStatus.RUNNING:
            raise InputError(f"run {previous.id} is still running", field=field)
    elif previous.status not in RESUMABLE:
        raise InputError(
            f"run {previous.id} is {previous.status.value}; only a canceled, interrupted or "
            "failed run can be resumed",
            field=field,
        )
    return previous


@dataclass
class ItemProgress:
    """A snapshot for the faces: counts so far, the item that just finished (``last``) and,
    for kinds that show a conversation as it goes, the turn just taken (``live``)."""

    total: int
    done: int
    passed: int
    failed: int
    errors: int
    last: StoredItem | None = None
    final: bool = False
    live: dict[str, Any] | None = None


@dataclass
class ItemCounts:
    """The items stored so far, by outcome (``error`` and anything else count as errors)."""

    done: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0

    def add(self, outcome: str) -> None:
        self.done += 1
        if outcome == "passed":
            self.passed += 1
        elif outcome == "failed":
            self.failed += 1
        else:
            self.errors += 1


@dataclass(frozen=True)
class NewRun:
    """What a new run of items is stored with (its kind and total come from the run)."""

    path: Path
    engine_name: str
    engine_profile: dict[str, Any]
    note: str
    options: dict[str, Any]
    digest: str
    name: str = ""
    """The run's name (default: the file's name, or the folder's)."""


class ItemRun(KernelRun, StoredItemWrites):
    """A kind of run whose answers are stored items (see the module docstring). A subclass
    calls :meth:`_init_items` in its ``__init__``, sets :attr:`kind` and :attr:`kernel`, and
    gives :meth:`new_run`, :meth:`pending`, :meth:`total`, ``open``/``close``/``send``/
    ``failed``; it may override :meth:`stored_item`, :meth:`arrived`, :meth:`summary` and
    :meth:`error_reason`."""

    kind: str
    options: RunOptions
    previous: RunRecord | None
    """The stored run being resumed (None for a new run)."""
    on_progress: Callable[[ItemProgress], None] | None
    counts: ItemCounts
    ending: Ending | None
    """How the kernel saw the run end (set by :meth:`finish`)."""
    stopped_early: bool
    """The kind stopped the run on purpose (``--fail-fast``): not ``canceled``."""
    _pending: list[Work]
    _attempts: ItemAttempts

    def _init_items(self, store: RunStore, options: RunOptions, previous: RunRecord | None) -> None:
        self.store = store
        self.options = options
        self.previous = previous
        self.record = None
        self.on_progress = None
        self.counts = ItemCounts()
        self.ending = None
        self.stopped_early = False
        self._buffer = []
        self._pending = []
        self._attempts = ItemAttempts(1)

    # --- what a kind gives ------------------------------------------------------------------

    def new_run(self) -> NewRun:
        """What a new run is stored with."""
        raise NotImplementedError

    def pending(self, stored: list[StoredItem]) -> list[Work]:
        """The items still to send, given the item rows the store holds (a resume)."""
        raise NotImplementedError

    def total(self) -> int:
        raise NotImplementedError

    def stored_item(self, work: Work, answer: Any) -> StoredItem:
        """The row an answer is stored as (default: the answer is the row)."""
        row: StoredItem = answer
        return row

    def arrived(self, work: Work, answer: Any, item: StoredItem) -> tuple[Halt, str | None] | None:
        """An item's own row arrived (counted, buffered): tell the faces; may halt the run."""
        self.progress(item)
        return None

    def summary(self) -> dict[str, Any] | None:
        """The run's summary, stored before its status (None: the service writes it)."""
        return None

    def error_reason(self, errors: int) -> str:
        return f"{errors} test case(s) could not be run (engine errors)"

    # --- the strategy -----------------------------------------------------------------------

    def prepare(self) -> RunRecord:
        if self.record is not None:
            return self.record
        if self.previous is not None:
            self.record = self.store.resume_run(self.previous.id)
            stored = self.store.load_items(self.record.id, attempts=True)
        else:
            new = self.new_run()
            name = new.name or (new.path.name if new.path.is_file() else new.path.resolve().name)
            self.record = self.store.create_run(
                Suite(name=name, path=new.path, cases=[]),
                engine_name=new.engine_name,
                engine_profile=new.engine_profile,
                note=new.note,
                options=new.options,
                cases=[],
                kind=self.kind,
                total=self.total(),
                digest=new.digest,
            )
            stored = []
        # A resume repeats as the run was started, whatever the options say now.
        self._attempts = ItemAttempts(repeat_of(self.record), stored)
        own = [item for item in stored if not is_attempt(item)]
        for item in own:
            self.counts.add(item.outcome)
        self._pending = self.pending(own)
        return self.record

    def work(self) -> list[Work]:
        return [w for w in self._pending for _ in range(self._attempts.times(w.item_id))]

    def arrive(self, work: Work, answer: Any) -> tuple[Halt, str | None] | None:
        item = self.stored_item(work, answer)
        placed = self._attempts.place(item)
        self._buffer.append(placed)
        if placed is not item:
            return None  # an attempt #2..#N of a repeated run
        self.counts.add(item.outcome)
        return self.arrived(work, answer, item)

    def emit(self, state: KernelState, *, final: bool, record: RunRecord | None) -> None:
        if final or state.phase is RunPhase.RUNNING:
            self.progress(None, final=final)

    def progress(
        self, item: StoredItem | None, *, final: bool = False, live: dict[str, Any] | None = None
    ) -> None:
        """Hand the faces a snapshot (a face's failure never stops the run)."""
        if self.on_progress is None:
            return
        c = self.counts
        snapshot = ItemProgress(
            self.total(), c.done, c.passed, c.failed, c.errors, item, final, live
        )
        with contextlib.suppress(Exception):
            self.on_progress(snapshot)

    def stability(self) -> dict[str, Any] | None:
        """Per-item stability of a repeated run (None for an ordinary run)."""
        if self._attempts.repeat < 2 or self.record is None:
            return None
        every = self.store.load_items(self.record.id, attempts=True)
        return stability_summary(every, self._attempts.repeat)

    @property
    def repeat(self) -> int:
        return self._attempts.repeat

    def finish(self, ending: Ending) -> RunRecord:
        assert self.record is not None
        self.ending = ending
        summary = self.summary()
        if summary is not None:
            with contextlib.suppress(Exception):
                self.store.set_summary(self.record.id, summary)
        run_id = self.record.id
        if ending.failed_reason:
            return self.store.finish_run(run_id, RunStatus.FAILED, ending.failed_reason)
        if ending.canceled and not self.stopped_early:
            return self.store.finish_run(run_id, RunStatus.CANCELED, "canceled")
        if self.counts.errors:
            reason = self.error_reason(self.counts.errors)
            return self.store.finish_run(run_id, RunStatus.SUCCESS_WITH_WARNING, reason)
        return self.store.finish_run(run_id, RunStatus.SUCCESS)
