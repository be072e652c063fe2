"""Robustness reports of stored runs: which run of the original suite a run of a perturbed
suite (``nlu-tui perturb``) is compared with, and the comparison (:mod:`nlu_tui.scoring.robustness`).

Two runs are paired, in this order:

1. by link: ``run --robustness`` stores the clean run's id in the perturbed run's options
   (``robustness_of``);
2. by name: a perturbed suite is named ``<original> (perturbed)``, so the newest finished run of
   the other suite on the same engine is taken.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nlu_tui.model import RunStatus

if TYPE_CHECKING:
    from nlu_tui.scoring.robustness import Robustness
    from nlu_tui.store.records import RunRecord
    from nlu_tui.store.runstore import RunStore

PERTURBED_SUFFIX = " (perturbed)"
"""What ``nlu-tui perturb`` appends to a suite's name."""
LINK = "robustness_of"
"""The option of a perturbed run naming its clean run (``run --robustness``)."""
_FINISHED = (RunStatus.SUCCESS, RunStatus.SUCCESS_WITH_WARNING)
_SCAN = 200
"""How many recent runs are looked through for a run linked to a clean one."""


def _newest(store: RunStore, suite: str, engine: str) -> RunRecord | None:
    for run in store.list_runs(suite, limit=_SCAN):
        if (
            run.suite_name == suite
            and run.engine_name == engine
            and run.kind == "suite"
            and run.status in _FINISHED
        ):
            return run
    return None


def paired_runs(store: RunStore, record: RunRecord) -> tuple[RunRecord, RunRecord] | None:
    """(clean run, perturbed run) for ``record`` (either side), or None when none is known."""
    if record.kind != "suite":
        return None
    linked = record.options.get(LINK)
    if isinstance(linked, str) and linked:
        return store.get_run(linked), record
    for run in store.list_runs(limit=_SCAN):
        if run.options.get(LINK) == record.id and run.status in _FINISHED:
            return record, run
    name = record.suite_name
    if name.endswith(PERTURBED_SUFFIX):
        clean = _newest(store, name.removesuffix(PERTURBED_SUFFIX), record.engine_name)
        return (clean, record) if clean is not None else None
    perturbed = _newest(store, name + PERTURBED_SUFFIX, record.engine_name)
    return (record, perturbed) if perturbed is not None else None


def run_robustness(store: RunStore, record: RunRecord) -> Robustness | None:
    """The robustness report of the pair ``record`` belongs to (None when it has none)."""
    pair = paired_runs(store, record)
    if pair is None:
        return None
    from nlu_tui.scoring.robustness import compare_runs

    clean, perturbed = pair
    return compare_runs(
        clean.id, store.load_results(clean.id), perturbed.id, store.load_results(perturbed.id)
    )
