"""Progress events: what any front end needs to draw a running run."""

from __future__ import annotations

from dataclasses import dataclass, field

from nlu_tui.model import CaseResult, Prediction, RunStatus, TestCase


@dataclass
class ProgressEvent:
    """A snapshot of a run, emitted at most ~10 times a second and once more at the end.

    ``latest`` holds the results finished since the previous event (so a table can append them);
    ``rate`` is cases per second over the last few seconds of this session.
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

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0
