"""What the store tells about a run: one row of history, ready for a table or JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from nlu_tui.model import RunStatus

if TYPE_CHECKING:
    from nlu_tui.scoring.summary import LiveCounts


def iso(ts: float | None) -> str | None:
    """An epoch time as ISO 8601 in UTC (what JSON output and exports show)."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass
class RunRecord:
    """One run as stored: identity, engine, version, status and the live counters.

    ``engine_profile`` never holds secrets (profiles give them as ``${ENV}`` and the public
    profile drops them). The counters are kept exact as results are added, so listing many
    runs never reads their results.
    """

    id: str
    suite_name: str
    suite_path: str | None
    suite_hash: str
    engine_name: str
    engine_profile: dict[str, Any]
    stage: str
    status: RunStatus
    reason: str | None
    note: str
    total: int
    done: int
    tp: int
    tn: int
    fp: int
    fn: int
    errors: int
    started_at: float
    finished_at: float | None
    pid: int | None = None
    host: str | None = None
    heartbeat_at: float | None = None
    options: dict[str, Any] = field(default_factory=dict)
    kind: str = "suite"
    """What the run tested: ``suite`` (one utterance per case, results with TP/TN/FP/FN) or a
    kind whose units of work are :class:`StoredItem` rows (conversations, DUT, ...)."""
    passed: int = 0
    failed: int = 0
    summary: dict[str, Any] = field(default_factory=dict)
    """Kind-specific figures set when the run finishes (e.g. per-command F1, fold table)."""
    started_by: str | None = None
    """Who started the run (the login name), None in a store older than schema 6."""
    started_on: str | None = None
    """The host it was started on (:attr:`host` is the one running it now, for liveness)."""

    @property
    def missing(self) -> int:
        return max(self.total - self.done, 0)

    @property
    def duration_s(self) -> float | None:
        end = self.finished_at if self.finished_at is not None else self.heartbeat_at
        return None if end is None else max(end - self.started_at, 0.0)

    def counts(self) -> LiveCounts:
        """The stored counters, with the scoring core's F1, precision, recall and success."""
        from nlu_tui.scoring.summary import LiveCounts

        return LiveCounts(
            done=self.done, tp=self.tp, tn=self.tn, fp=self.fp, fn=self.fn, errors=self.errors
        )

    @property
    def scored_f1(self) -> float | None:
        """The run's F1, or None when there is none to show: the run failed, or no case was
        scored (a failed run is listed with ``-``, not with an F1 of 0.000 it never measured)."""
        if self.status is RunStatus.FAILED or not (self.tp + self.tn + self.fp + self.fn):
            return None
        return self.counts().f1

    @property
    def merged_f1(self) -> float | None:
        """A rerun's merged F1 (its parent's passes and its own answers: what the suite
        scored after it), kept in its summary by the run service when it ended; None for an
        ordinary run, or a rerun that has not ended (:mod:`nlu_tui.reruns`)."""
        if not self.options.get("rerun_of"):
            return None
        merged = self.summary.get("merged")
        if isinstance(merged, dict) and isinstance(merged.get("f1"), int | float):
            return float(merged["f1"])
        return None

    @property
    def evaluation(self) -> str | None:
        """The ``test nlu`` mode that made this run (``held-out``, ``cross-validation``,
        ``comparison``), None for an ordinary run. Its cases were tested on models trained
        for it (per fold, per split), so only that evaluation can add to it."""
        mode = self.engine_profile.get("evaluation") if self.engine_profile else None
        return str(mode) if mode else None

    @property
    def resumable(self) -> bool:
        """Whether sending the missing cases finishes it: an unfinished canceled, interrupted
        or failed run, but never an evaluation's (the engine as it is now would test the
        missing folds on a model that learned them: start the evaluation again instead, its
        trained folds are cached)."""
        return (
            self.status in (RunStatus.CANCELED, RunStatus.INTERRUPTED, RunStatus.FAILED)
            and self.done < self.total
            and self.evaluation is None
        )

    def to_json(self) -> dict[str, Any]:
        """The run as ``nlu-tui runs --json`` lists it."""
        return {
            "id": self.id,
            "suite": self.suite_name,
            "suite_path": self.suite_path,
            "suite_hash": self.suite_hash,
            "engine": self.engine_name,
            "engine_profile": self.engine_profile,
            "version": self.stage,
            "status": self.status.value,
            "reason": self.reason,
            "note": self.note,
            "user": self.started_by,
            "host": self.started_on,
            "total": self.total,
            "done": self.done,
            "counts": {
                "tp": self.tp,
                "tn": self.tn,
                "fp": self.fp,
                "fn": self.fn,
                "errors": self.errors,
            },
            **(
                {}
                if self.kind == "suite"
                else {
                    "kind": self.kind,
                    "passed": self.passed,
                    "failed": self.failed,
                    "summary": self.summary,
                }
            ),
            **(
                {"rerun_of": self.options["rerun_of"], "merged": self.summary.get("merged")}
                if self.options.get("rerun_of")
                else {}
            ),
            "started_at": iso(self.started_at),
            "finished_at": iso(self.finished_at),
            "duration_s": None if self.duration_s is None else round(self.duration_s, 3),
        }


ITEM_OUTCOMES = ("passed", "failed", "error")
"""What a unit of work of an item-kind run can end as."""


@dataclass
class StoredItem:
    """One unit of work of a run that is not one utterance per case: a conversation test case,
    a DUT test case, a repeated attempt. ``data`` is the kind's own JSON payload."""

    item_id: str
    seq: int
    outcome: str
    latency_ms: float | None = None
    data: dict[str, Any] = field(default_factory=dict)
