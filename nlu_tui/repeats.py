"""Repeated attempts of a run (``run --repeat N``): how they are stored and read back.

A repeated run is an ordinary suite run (kind ``suite``) whose options say ``repeat: N``. Each
case is sent N times. Attempt #1 of a case is its row in the ``results`` table, so every view,
report, diff and gate reads it as before; attempts #2..#N are rows of the store's ``items``
table, with the item id ``<case id>#<k>``, the full prediction and the scored result.

Which answer is #1: the attempts of a case are numbered in the order their answers arrive,
#2 first, and the **last** answer to arrive becomes #1. So a case's ``results`` row exists
only once all its attempts are stored, the run's ``done`` counter counts complete cases, an
unfinished repeated run is resumable like any other, and a resume sends each case only the
attempts it still lacks (N minus those stored) - never one that was stored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nlu_tui.model import CaseResult, Prediction, ResultType

if TYPE_CHECKING:
    from nlu_tui.scoring.stability import StabilityReport
    from nlu_tui.store.records import RunRecord, StoredItem
    from nlu_tui.store.runstore import RunStore, StoredResult

ATTEMPT_SEP = "#"
MAX_REPEAT = 100
"""Enough to measure flakiness; more is a load test, not a batch test."""


def repeat_of(record: RunRecord) -> int:
    """How many times the run sends each case (1 for an ordinary run)."""
    try:
        return max(1, int(record.options.get("repeat") or 1))
    except (TypeError, ValueError):
        return 1


def attempt_item_id(case_id: str, attempt: int) -> str:
    return f"{case_id}{ATTEMPT_SEP}{attempt}"


def _outcome(result: CaseResult) -> str:
    if result.result is ResultType.ERROR:
        return "error"
    return "passed" if result.result in (ResultType.TP, ResultType.TN) else "failed"


def attempt_item(
    seq: int, attempt: int, prediction: Prediction, result: CaseResult, repeat: int
) -> StoredItem:
    """Attempt #``attempt`` (2..N) of the case at ``seq`` as an item of the store. Its ``seq``
    keeps the attempts of a case together, in suite order."""
    from nlu_tui.store import codec
    from nlu_tui.store.records import StoredItem

    return StoredItem(
        item_id=attempt_item_id(result.case_id, attempt),
        seq=seq * repeat + attempt - 1,
        outcome=_outcome(result),
        latency_ms=result.latency_ms,
        data={
            "case_id": result.case_id,
            "attempt": attempt,
            "prediction": json.loads(codec.dumps(prediction)),
            "result": json.loads(codec.dumps(result)),
        },
    )


def stored_attempts(store: RunStore, run_id: str) -> dict[str, int]:
    """Case id -> how many of its attempts #2..#N are stored (what a resume need not send)."""
    counts: dict[str, int] = {}
    for item_id in store.done_item_ids(run_id):
        case_id, sep, _k = item_id.rpartition(ATTEMPT_SEP)
        if sep:
            counts[case_id] = counts.get(case_id, 0) + 1
    return counts


def load_attempts(
    store: RunStore, run_id: str, *, predictions: bool = True
) -> dict[str, list[tuple[Prediction | None, CaseResult]]]:
    """Case id -> its attempts #2..#N as stored, in attempt order (without decoding the
    engine's answers when ``predictions`` is false: the stability figures need none)."""
    from nlu_tui.gcpause import gc_paused
    from nlu_tui.store import codec

    out: dict[str, list[tuple[int, Prediction | None, CaseResult]]] = {}
    from_dict = codec.from_dict
    with gc_paused(promote=True):
        for item in store.load_items(run_id):
            data: dict[str, Any] = item.data
            if "result" not in data:
                continue
            out.setdefault(str(data["case_id"]), []).append(
                (
                    int(data.get("attempt") or 0),
                    from_dict(Prediction, data.get("prediction") or {}) if predictions else None,
                    from_dict(CaseResult, data["result"]),
                )
            )
    return {cid: [(p, r) for _k, p, r in sorted(v, key=lambda t: t[0])] for cid, v in out.items()}


def run_stability(
    store: RunStore, record: RunRecord, rows: Sequence[StoredResult] | None = None
) -> StabilityReport | None:
    """The stability of a stored repeated run (``None`` for an ordinary run): each case that
    has its ``results`` row (#1) with its stored attempts #2..#N."""
    repeat = repeat_of(record)
    if repeat < 2:
        return None
    from nlu_tui.scoring.stability import stability_report

    if rows is None:
        rows = store.load_results(record.id)
    more = load_attempts(store, record.id, predictions=False)
    return stability_report(
        ((case, [result, *(r for _p, r in more.get(case.id, ()))]) for case, _p, result in rows),
        repeat,
    )
