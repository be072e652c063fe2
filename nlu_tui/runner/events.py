"""Progress events: what any front end needs to draw a running run."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from nlu_tui.model import CaseResult, Prediction, RunStatus, TestCase

if TYPE_CHECKING:
    from nlu_tui.scoring.summary import LiveCounts


class RunPhase(StrEnum):
    """Where a run is: opening its engine (training or probing it), or sending cases."""

    OPENING = "opening"
    RUNNING = "running"


@dataclass
class ProgressEvent:
    """A snapshot of a run, emitted at most ~10 times a second and once more at the end.

    ``latest`` holds the results finished since the previous event (so a table can append them);
    ``rate`` is cases per second over the last few seconds of this session. While ``phase`` is
    ``OPENING`` the engine is still training (``trains``) or being connected to, and no case has
    been sent in this session: :attr:`phase_label` says so for the faces to show.
    """

    run_id: str
    done: int
    total: int
    rate: float
    eta_s: float | None
    elapsed_s: float
    tp: int
    tn: int
    fp: int
    fn: int
    errors: int
    f1: float
    precision: float
    recall: float
    latest: list[tuple[TestCase, Prediction, CaseResult]] = field(default_factory=list)
    status: RunStatus = RunStatus.RUNNING
    reason: str | None = None
    final: bool = False
    phase: RunPhase = RunPhase.RUNNING
    trains: bool = False
    remote: str | None = None
    """What a remote batch run is doing (Kore.ai's own batch test: "400/1000 utterances")."""

    @classmethod
    def of_counts(cls, run_id: str, counts: LiveCounts, total: int, **rest: Any) -> ProgressEvent:
        """An event whose counts and metrics are ``counts`` (the core's, never recomputed)."""
        return cls(
            run_id=run_id,
            done=counts.done,
            total=total,
            tp=counts.tp,
            tn=counts.tn,
            fp=counts.fp,
            fn=counts.fn,
            errors=counts.errors,
            f1=counts.f1,
            precision=counts.precision,
            recall=counts.recall,
            **rest,
        )

    @property
    def opening(self) -> bool:
        """The engine is not ready yet (a final event is never opening: it says how it ended)."""
        return self.phase is RunPhase.OPENING and not self.final

    @property
    def phase_label(self) -> str | None:
        """What the run is doing while it opens ("training the engine…"), else None."""
        if not self.opening:
            return None
        if self.remote:
            return self.remote
        return "training the engine…" if self.trains else "connecting to the engine…"

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0
