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
        for item in store.load_items(run_id, attempts=True):
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


# --- runs whose units are items (E2E, stories, DUT): repeated like suites -------------------------

REPEAT_OF = "repeat_of"
"""In an attempt item (#2..#N) of an item kind, the id of the item it repeats."""


class ItemAttempts:
    """The attempts of a repeated run of an item kind (``test e2e|stories|du --repeat N``).

    As for suites, attempt #1 of an item is its ordinary item row (the last answer to arrive),
    so history, ``show``, diff and gates read it as before; attempts #2..#N are rows with the
    id ``<item id>#<k>`` whose data carries :data:`REPEAT_OF` (the store's counters leave them
    out). A resume sends each item only the attempts it still lacks.
    """

    def __init__(self, repeat: int, stored: Sequence[StoredItem] = ()) -> None:
        self.repeat = max(1, repeat)
        self.arrived: dict[str, int] = {}
        for item in stored:
            of = item.data.get(REPEAT_OF) if isinstance(item.data, dict) else None
            if of is not None:
                self.arrived[str(of)] = self.arrived.get(str(of), 0) + 1

    def times(self, item_id: str) -> int:
        """How many times a pending item is still to be sent."""
        return max(1, self.repeat - self.arrived.get(item_id, 0))

    def place(self, item: StoredItem) -> StoredItem:
        """The item as stored: an attempt #2..#N while the item lacks some, else itself (#1)."""
        if self.repeat < 2:
            return item
        arrived = self.arrived.get(item.item_id, 0)
        if arrived >= self.repeat - 1:
            return item
        from nlu_tui.store.records import StoredItem

        self.arrived[item.item_id] = arrived + 1
        k = arrived + 2
        data = dict(item.data)
        data.update({REPEAT_OF: item.item_id, "attempt": k})
        return StoredItem(
            attempt_item_id(item.item_id, k),
            item.seq * self.repeat + k - 1,
            item.outcome,
            item.latency_ms,
            data,
        )


def is_attempt(item: StoredItem) -> bool:
    """An attempt #2..#N of a repeated item run (not the item's own row)."""
    return isinstance(item.data, dict) and REPEAT_OF in item.data


class ItemStability:
    """Pass/fail of each attempt of one item: flaky when they differ (errors count apart)."""

    def __init__(self, item_id: str, name: str, outcomes: list[str]) -> None:
        self.item_id = item_id
        self.name = name
        self.outcomes = outcomes

    @property
    def passed(self) -> int:
        return self.outcomes.count("passed")

    @property
    def failed(self) -> int:
        return self.outcomes.count("failed")

    @property
    def errors(self) -> int:
        return self.outcomes.count("error")

    @property
    def flaky(self) -> bool:
        """Measured (two answered attempts or more) and not all passed or all failed."""
        return self.passed > 0 and self.failed > 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "name": self.name,
            "attempts": len(self.outcomes),
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "flaky": self.flaky,
            "outcomes": list(self.outcomes),
        }


def item_stability(items: Sequence[StoredItem]) -> list[ItemStability]:
    """Per item (in run order): the outcomes of its attempts, #1 first."""
    attempts: dict[str, list[tuple[int, str]]] = {}
    for item in items:
        if is_attempt(item):
            of = str(item.data[REPEAT_OF])
            attempts.setdefault(of, []).append((int(item.data.get("attempt") or 0), item.outcome))
    out = []
    for item in items:
        if is_attempt(item):
            continue
        more = [o for _k, o in sorted(attempts.get(item.item_id, []))]
        name = str(item.data.get("name") or item.item_id) if isinstance(item.data, dict) else ""
        out.append(ItemStability(item.item_id, name, [item.outcome, *more]))
    return out


def stability_summary(items: Sequence[StoredItem], repeat: int) -> dict[str, Any]:
    """What a repeated item run stores in its summary and the faces show."""
    cases = item_stability(items)
    measured = [c for c in cases if c.passed + c.failed >= 2]
    flaky = [c for c in measured if c.flaky]
    return {
        "repeat": repeat,
        "measured": len(measured),
        "flaky": [c.name for c in flaky],
        "stability": (len(measured) - len(flaky)) / len(measured) if measured else None,
        "cases": [c.as_dict() for c in cases],
    }


def flaky_ids(stability: dict[str, Any] | None) -> set[str]:
    """The item ids of the flaky items of a repeated item run's stability summary."""
    if not stability:
        return set()
    return {str(c["item_id"]) for c in stability.get("cases", []) if c.get("flaky")}


def item_stability_lines(stability: dict[str, Any]) -> list[str]:
    """What the CLI prints for a repeated item run: the headline, then each item's
    pass/fail counts across its attempts, flaky ones marked."""
    from nlu_tui.textsafe import inert

    cases = stability.get("cases", [])
    repeat = stability.get("repeat")
    value = stability.get("stability")
    share = "n/a" if value is None else f"{value:.0%}"
    flaky = [c for c in cases if c.get("flaky")]
    lines = [
        f"stability over {repeat} attempts: {share} of {stability.get('measured', 0)} measured "
        f"test cases stable, {len(flaky)} flaky"
    ]
    for c in cases:
        mark = "  FLAKY" if c.get("flaky") else ""
        errors = f", {c['errors']} errored" if c.get("errors") else ""
        lines.append(
            f"  {inert(str(c.get('name')))}: passed {c['passed']}/{c['attempts']}{errors}{mark}"
        )
    return lines
