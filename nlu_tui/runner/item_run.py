"""Runs of stored items: the bookkeeping E2E, stories, simulated-user and DUT runs share.

A run whose answers are rows of the store's ``items`` table (a conversation, a test story, a
simulated conversation, a DUT test case) is an :class:`ItemRun` on the run kernel
(:mod:`nlu_tui.runner.kernel`). The base does, once for every such kind:

- **prepare**: create the run in the store (its engine, note, options and the digest of its
  test files), or reopen it for a resume; count what the store holds and ask the kind which
  items are still missing (:meth:`ItemRun.pending`); a resume repeats as the run was started
  (:class:`~nlu_tui.repeats.ItemAttempts`);
- **work**: each missing item, once per attempt it still lacks (``repeat``);
- **arrive**: place the row (attempt #1 is the item's own row, #2..#N apart), buffer it for
  the kernel's writer, count its outcome and hand the faces a progress snapshot;
- **finish**: the kind's summary (:meth:`ItemRun.summary`), then the status: ``failed``,
  ``canceled`` (unless the kind stopped early on purpose: ``--fail-fast``),
  ``success_with_warning`` when some items ended in an error, else ``success``.

:func:`run_to_resume` is the one check of a ``--resume RUN`` for these kinds; :func:`unit_id`
the one way their items are named.
"""

from __future__ import annotations

import contextlib
from collections import Counter
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


def ids_base(path: Path) -> Path | None:
    """The folder item ids name their files from: the run's folder, or its file's."""
    with contextlib.suppress(OSError):
        resolved = path.resolve()
        return resolved if resolved.is_dir() else resolved.parent
    return None


def unit_id(file: object, line: object, name: str, base: Path | None) -> str:
    """An item's id in the run's store: its file relative to ``base``, line and name. It must
    not depend on how the path was spelled: a run of ``tests/x.yml`` is resumed from its stored
    absolute path, and ids that differed sent every test case again."""
    text = str(file or "")
    if text and base is not None:
        with contextlib.suppress(ValueError, OSError):
            text = Path(text).resolve().relative_to(base).as_posix()
    return f"{text}:{line}:{name}"


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


class ItemCounts(Counter[str]):
    """The items stored so far by outcome: ``passed``, ``failed`` and ``errors`` (an ``error``
    or any other outcome); :attr:`done` is their sum."""

    def add(self, outcome: str) -> None:
        self[outcome if outcome in ("passed", "failed") else "errors"] += 1

    @property
    def done(self) -> int:
        return self.total()


class ItemRun(KernelRun, StoredItemWrites):
    """A kind of run whose answers are stored items (see the module docstring). A subclass
    calls :meth:`_init_items` in its ``__init__``, sets :attr:`kind`, :attr:`path`,
    :attr:`resolved`, :attr:`note` and :attr:`kernel`, and gives :meth:`digest`,
    :meth:`pending`, :meth:`total`, ``open``/``close``/``send``/``failed``; it may override
    :meth:`stored_options`, :meth:`run_name`, :meth:`stored_item`, :meth:`arrived`,
    :meth:`summary` and :meth:`error_reason`."""

    kind: str
    options: RunOptions
    path: Path
    """The test file or folder."""
    resolved: Any
    """The resolved engine (:class:`~nlu_tui.engines.profiles.ResolvedEngine`)."""
    note: str
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

    def digest(self) -> str:
        """The digest of the test files (a resume refuses files changed since)."""
        raise NotImplementedError

    def stored_options(self) -> dict[str, Any]:
        """What a new run stores in its options besides the kernel's (:meth:`RunOptions.public`)."""
        return {}

    def run_name(self) -> str:
        """A new run's name: the test file's name, or the folder's."""
        return self.path.name if self.path.is_file() else self.path.resolve().name

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
            options = self.options.public()
            options.update(self.stored_options())
            self.record = self.store.create_run(
                Suite(name=self.run_name(), path=self.path, cases=[]),
                engine_name=self.resolved.name,
                engine_profile=dict(self.resolved.profile_public),
                note=self.note,
                options=options,
                cases=[],
                kind=self.kind,
                total=self.total(),
                digest=self.digest(),
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
            self.total(), c.done, c["passed"], c["failed"], c["errors"], item, final, live
        )
        with contextlib.suppress(Exception):
            self.on_progress(snapshot)

    def figures(self) -> dict[str, int]:
        """The head of the run's summary: its items in all, and those stored by outcome."""
        c = self.counts
        return {
            "total": self.total(),
            "passed": c["passed"],
            "failed": c["failed"],
            "errors": c["errors"],
        }

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
        if self.counts["errors"]:
            reason = self.error_reason(self.counts["errors"])
            return self.store.finish_run(run_id, RunStatus.SUCCESS_WITH_WARNING, reason)
        return self.store.finish_run(run_id, RunStatus.SUCCESS)
