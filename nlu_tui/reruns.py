"""Rerunning what failed: a child run that sends only a run's failed and errored cases.

``nlu-tui run --rerun-failed RUN`` stores a *child* run whose cases are the cases of ``RUN``
that ended FP, FN or ERROR (a case the engine got wrong, or could not answer). The child's
record names its parent in its options (``rerun_of``); what the suite now scores is the
**merged** result: the parent's results with each rerun case's answer replaced by the
child's. A rerun of a rerun merges down the chain (the grandchild's parent is itself a merged
result), so ``--rerun-failed CHILD`` sends what still fails.

The figures come from the scoring core (:func:`nlu_tui.scoring.summary.summarize`) over the
merged rows, so the merged summary of a rerun equals the summary of a clean run whose answers
are the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.errors import InputError
from nlu_tui.model import ResultType, RunStatus, Suite, TestCase

if TYPE_CHECKING:
    from nlu_tui.scoring.summary import Summary
    from nlu_tui.store.records import RunRecord, StoredItem
    from nlu_tui.store.runstore import RunStore, StoredResult

RERUN_OF = "rerun_of"
"""The key of a child run's options that holds its parent's id."""

MERGED = "merged"
"""The key of a child run's summary that holds the merged figures (:func:`merged_figures`)."""

FAILED_RESULTS = (ResultType.FP, ResultType.FN, ResultType.ERROR)
"""What a rerun sends again: a wrong answer (FP, FN) or none (ERROR)."""

MAX_CHAIN = 1000
"""A rerun chain longer than this is refused (a store edited by hand could loop)."""


def parent_of(run: RunRecord) -> str | None:
    """The id of the run ``run`` reran, or None for an ordinary run."""
    value = run.options.get(RERUN_OF)
    return str(value) if value else None


def _chain(store: RunStore, run: RunRecord) -> list[RunRecord]:
    """``run`` and its ancestors, oldest first."""
    chain = [run]
    seen = {run.id}
    parent = parent_of(run)
    while parent is not None:
        record = store.get_run(parent)
        if record.id in seen or len(chain) > MAX_CHAIN:
            raise InputError(f"run {run.id}: its rerun chain loops through run {record.id}")
        seen.add(record.id)
        chain.append(record)
        parent = parent_of(record)
    chain.reverse()
    return chain


def merged_results(store: RunStore, run: RunRecord) -> list[StoredResult]:
    """The results the suite now scores: the chain's root run's results, each replaced by the
    newest rerun's answer for its case; in the root run's order. An ordinary run: its own."""
    chain = _chain(store, run)
    rows = store.load_results(chain[0].id)
    if len(chain) == 1:
        return rows
    place = {case.id: i for i, (case, _p, _r) in enumerate(rows)}
    for child in chain[1:]:
        for row in store.load_results(child.id):
            i = place.get(row[0].id)
            if i is not None:
                rows[i] = row
    return rows


def merged_summary(store: RunStore, run: RunRecord) -> Summary:
    """The scoring core's figures of :func:`merged_results`."""
    from nlu_tui.scoring.summary import summarize

    return summarize(r for _c, _p, r in merged_results(store, run))


def merged_figures(summary: Summary, total: int) -> dict[str, Any]:
    """What a child run keeps in its summary (``show`` and ``runs --json`` read it)."""
    return {
        "cases": summary.cases,
        "total": total,
        "tp": summary.tp,
        "tn": summary.tn,
        "fp": summary.fp,
        "fn": summary.fn,
        "errors": summary.errors,
        "precision": summary.precision,
        "recall": summary.recall,
        "f1": summary.f1,
    }


def failed_cases(store: RunStore, run: RunRecord) -> list[TestCase]:
    """The cases of ``run``'s merged result that ended FP, FN or ERROR, in suite order."""
    return [c for c, _p, r in merged_results(store, run) if ResultType(r.result) in FAILED_RESULTS]


def rerun_suite(store: RunStore, run_id: str) -> tuple[RunRecord, Suite]:
    """The run to rerun and the suite of its failed cases (its own stored copies, the entity
    synonyms it scored with); bad input raises before anything is stored."""
    parent = store.get_run(run_id)
    if parent.kind != "suite":
        raise InputError(
            f"run {parent.id} is a {parent.kind} run; rerun it with its own command "
            f"(nlu-tui test {'du' if parent.kind == 'dut' else parent.kind} --rerun-failed "
            f"{parent.id})",
            field="--rerun-failed",
        )
    if parent.status is RunStatus.RUNNING:
        raise InputError(f"run {parent.id} is still running", field="--rerun-failed")
    if parent.evaluation is not None:
        raise InputError(
            f"run {parent.id} is a `test nlu` {parent.evaluation} run: its cases were tested "
            "on models trained for it; run the evaluation again",
            field="--rerun-failed",
        )
    cases = failed_cases(store, parent)
    if not cases:
        raise InputError(
            f"run {parent.id} has no failed or errored case: nothing to rerun",
            field="--rerun-failed",
        )
    groups = parent.options.get("entity_synonyms")
    training: dict[str, Any] = {}
    if isinstance(groups, list):
        training["synonyms"] = {
            str(g[0]): [str(v) for v in g[1:]] for g in groups if isinstance(g, list) and g
        }
    path = Path(parent.suite_path) if parent.suite_path else None
    suite = Suite(name=parent.suite_name, cases=cases, training=training, path=path)
    return parent, suite


# --- runs of items (conversation tests, DUT) ------------------------------------------------------

FAILED_ITEMS = ("failed", "error")
"""What a rerun of a conversation or DUT run sends again: a test case that failed, or that the
engine could not run."""


def merged_items(store: RunStore, run: RunRecord) -> list[StoredItem]:
    """:func:`merged_results` for runs of items (E2E, stories, DUT): the chain's root run's
    items, each replaced by the newest rerun's, in the root run's order."""
    chain = _chain(store, run)
    items = store.load_items(chain[0].id)
    if len(chain) == 1:
        return items
    place = {item.item_id: i for i, item in enumerate(items)}
    for child in chain[1:]:
        for item in store.load_items(child.id):
            i = place.get(item.item_id)
            if i is not None:
                items[i] = item
    return items


def failed_item_ids(store: RunStore, run: RunRecord) -> set[str]:
    """The items of ``run``'s merged result that failed or errored."""
    return {i.item_id for i in merged_items(store, run) if i.outcome in FAILED_ITEMS}


def merged_item_figures(items: list[StoredItem]) -> dict[str, int]:
    """What a child run of items keeps in its summary under :data:`MERGED`."""
    outcomes = [i.outcome for i in items]
    return {
        "total": len(items),
        "passed": outcomes.count("passed"),
        "failed": outcomes.count("failed"),
        "errors": sum(1 for o in outcomes if o not in ("passed", "failed")),
    }


def merged_item_line(parent: str, figures: dict[str, int]) -> str:
    """The line the faces print after a rerun of items: what the tests now score."""
    return (
        f"merged with run {parent}: {figures['total']} test cases, {figures['passed']} passed, "
        f"{figures['failed']} failed, {figures['errors']} errors"
    )


def rerun_items(store: RunStore, run_id: str, kinds: tuple[str, ...]) -> tuple[RunRecord, set[str]]:
    """The run of items to rerun and the ids of its failed and errored test cases; bad input
    (another kind, still running, a repeated run, nothing failed) raises before anything is
    stored."""
    parent = store.get_run(run_id)
    if parent.kind not in kinds:
        command = "nlu-tui run" if parent.kind == "suite" else f"nlu-tui test {parent.kind}"
        raise InputError(
            f"run {parent.id} is a {parent.kind} run, not {' or '.join(kinds)}; rerun it with "
            f"{command} --rerun-failed {parent.id}",
            field="--rerun-failed",
        )
    if parent.status is RunStatus.RUNNING:
        raise InputError(f"run {parent.id} is still running", field="--rerun-failed")
    from nlu_tui.repeats import repeat_of

    if repeat_of(parent) > 1:
        raise InputError(
            f"run {parent.id} was repeated (--repeat): run it again instead of rerunning "
            "its failed test cases",
            field="--rerun-failed",
        )
    failed = failed_item_ids(store, parent)
    if not failed:
        raise InputError(
            f"run {parent.id} has no failed or errored test case: nothing to rerun",
            field="--rerun-failed",
        )
    return parent, failed


def rerun_scope(store: RunStore, run: RunRecord) -> set[str] | None:
    """A resumed child run of items still sends only its parent's failed test cases: their
    ids (None for a run that is not a rerun)."""
    parent = parent_of(run)
    return None if parent is None else failed_item_ids(store, store.get_run(parent))


@dataclass(frozen=True)
class ItemRunOrigin:
    """Where a run of items starts from: a stored run it resumes, or one whose failed and
    errored test cases it sends again (its parent), or neither (a new run)."""

    previous: RunRecord | None = None
    """The run resumed (``--resume``)."""
    parent: RunRecord | None = None
    """The run whose failed test cases this run (or the resumed child run) sends again."""
    scope: set[str] | None = None
    """The ids of those test cases (None: every test case)."""

    @property
    def source(self) -> RunRecord | None:
        """The stored run whose test files and engine this run uses unless given."""
        return self.previous or self.parent


def item_run_origin(
    store: RunStore,
    kind: str,
    *,
    rerun_failed: str | None,
    resume: str | None,
    field_prefix: str = "--",
    any_ended: bool = False,
) -> ItemRunOrigin:
    """The one check of ``--rerun-failed RUN`` and ``--resume RUN`` for a run of items of
    ``kind`` (E2E, stories, DUT): bad input raises InputError before anything is stored. A
    resumed child run still sends only its parent's failed test cases."""
    from nlu_tui.runner.item_run import run_to_resume  # the run kernel: only when a run starts

    if rerun_failed:
        if resume:
            raise InputError(
                "give --rerun-failed RUN or --resume RUN, not both", field=f"{field_prefix}resume"
            )
        parent, scope = rerun_items(store, rerun_failed, (kind,))
        return ItemRunOrigin(parent=parent, scope=scope)
    if resume:
        previous = run_to_resume(
            store, resume, kind, field=f"{field_prefix}resume", any_ended=any_ended
        )
        kept = rerun_scope(store, previous)
        of = store.get_run(str(parent_of(previous))) if kept is not None else None
        return ItemRunOrigin(previous=previous, parent=of, scope=kept)
    return ItemRunOrigin()
