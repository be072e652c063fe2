"""Compare two runs of a suite: what broke, what got fixed, what moved.

Core (no Textual): the diff screen, and anything headless that wants the same answer, call
:func:`diff_runs`. Cases are paired by id, so a run is compared with another run of the same
suite even when cases were added or removed in between (those are listed apart). Per-intent F1
comes from the scoring core's per-intent report; this module only subtracts, it never scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.model import CaseResult, Prediction, TestCase

if TYPE_CHECKING:
    from nlu_tui.compare.thresholds import GateResult
    from nlu_tui.reports.run_data import RunData
    from nlu_tui.store.runstore import RunStore

DEFAULT_CONFIDENCE_THRESHOLD = 0.1
"""A confidence change at least this large (absolute, 0..1) is reported."""


class ChangeKind(StrEnum):
    """Why a case appears in a diff; each case gets the first kind that applies, in this order."""

    BROKE = "broke"
    FIXED = "fixed"
    INTENT_CHANGED = "intent_changed"
    CONFIDENCE_CHANGED = "confidence_changed"


@dataclass(frozen=True)
class CaseChange:
    """One case whose outcome differs between the two runs."""

    case_id: str
    utterance: str
    kind: ChangeKind
    before: CaseResult
    after: CaseResult

    @property
    def confidence_delta(self) -> float | None:
        if self.before.confidence is None or self.after.confidence is None:
            return None
        return self.after.confidence - self.before.confidence


@dataclass(frozen=True)
class IntentDelta:
    """An intent's F1 in each run (None when the intent has no row in that run's report)."""

    intent: str
    f1_before: float | None
    f1_after: float | None

    @property
    def delta(self) -> float | None:
        if self.f1_before is None or self.f1_after is None:
            return None
        return self.f1_after - self.f1_before


@dataclass
class RunDiff:
    """Everything the diff screen shows, computed once."""

    changes: list[CaseChange] = field(default_factory=list)
    only_before: list[str] = field(default_factory=list)
    only_after: list[str] = field(default_factory=list)
    intent_deltas: list[IntentDelta] = field(default_factory=list)
    threshold: float = DEFAULT_CONFIDENCE_THRESHOLD

    def of_kind(self, kind: ChangeKind) -> list[CaseChange]:
        return [c for c in self.changes if c.kind is kind]

    @property
    def broke(self) -> list[CaseChange]:
        return self.of_kind(ChangeKind.BROKE)

    @property
    def fixed(self) -> list[CaseChange]:
        return self.of_kind(ChangeKind.FIXED)

    @property
    def intent_changed(self) -> list[CaseChange]:
        return self.of_kind(ChangeKind.INTENT_CHANGED)

    @property
    def confidence_changed(self) -> list[CaseChange]:
        return self.of_kind(ChangeKind.CONFIDENCE_CHANGED)

    def counts(self) -> dict[str, int]:
        """Number of cases per change kind (every kind present, zero included)."""
        return {k.value: len(self.of_kind(k)) for k in ChangeKind}

    @property
    def unchanged(self) -> bool:
        """No case changed (at this confidence threshold), none was added or removed: the
        faces say "no changes" rather than show an empty table."""
        return not self.changes and not self.only_before and not self.only_after


NO_CHANGES = "no changes: every case has the same outcome in both runs"
"""What every face says of a diff with nothing in it (:attr:`RunDiff.unchanged`)."""


def classify_change(
    before: CaseResult, after: CaseResult, threshold: float = DEFAULT_CONFIDENCE_THRESHOLD
) -> ChangeKind | None:
    """The kind of change between two results of the same case, or None when it held steady.

    An errored case counts as not ok, so an engine outage in the newer run shows as broken
    cases (the diff must not hide it). The threshold is inclusive, with a little slack for
    floating-point noise (0.3 - 0.2 is 0.09999999999999998).
    """
    if before.intent_ok and not after.intent_ok:
        return ChangeKind.BROKE
    if after.intent_ok and not before.intent_ok:
        return ChangeKind.FIXED
    if before.matched_intent != after.matched_intent:
        return ChangeKind.INTENT_CHANGED
    if (
        before.confidence is not None
        and after.confidence is not None
        and abs(after.confidence - before.confidence) >= threshold - 1e-9
    ):
        return ChangeKind.CONFIDENCE_CHANGED
    return None


def intent_f1_deltas(before: Mapping[str, float], after: Mapping[str, float]) -> list[IntentDelta]:
    """Per-intent F1 in both runs, largest drop first, then intents only in one run, by name."""
    names = sorted(set(before) | set(after))
    deltas = [IntentDelta(n, before.get(n), after.get(n)) for n in names]

    def order(d: IntentDelta) -> tuple[int, float, str]:
        value = d.delta
        return (0, value, d.intent) if value is not None else (1, 0.0, d.intent)

    return sorted(deltas, key=order)


def diff_runs(
    before: Iterable[CaseResult],
    after: Iterable[CaseResult],
    *,
    cases: Sequence[TestCase] = (),
    threshold: float = DEFAULT_CONFIDENCE_THRESHOLD,
    f1_before: Mapping[str, float] | None = None,
    f1_after: Mapping[str, float] | None = None,
) -> RunDiff:
    """Pair the results of two runs by case id and list what changed.

    ``cases`` supplies utterances (the newer run's copy first, then the older one's, when both
    are passed); ``f1_before``/``f1_after`` are per-intent F1 maps from the scoring core's
    report. Changes keep the newer run's case order.
    """
    if threshold < 0:
        raise ValueError("threshold must not be negative")
    old = {r.case_id: r for r in before}
    new = {r.case_id: r for r in after}
    texts: dict[str, str] = {}
    for case in cases:
        texts.setdefault(case.id, case.utterance)
    diff = RunDiff(threshold=threshold)
    for case_id, result in new.items():
        previous = old.get(case_id)
        if previous is None:
            diff.only_after.append(case_id)
            continue
        kind = classify_change(previous, result, threshold)
        if kind is not None:
            diff.changes.append(CaseChange(case_id, texts.get(case_id, ""), kind, previous, result))
    diff.only_before = [cid for cid in old if cid not in new]
    if f1_before is not None and f1_after is not None:
        diff.intent_deltas = intent_f1_deltas(f1_before, f1_after)
    return diff


def check_run_gates(
    before: Sequence[tuple[TestCase, Prediction | None]],
    after: Sequence[tuple[TestCase, Prediction | None]],
    thresholds_path: Path,
) -> list[GateResult]:
    """The CLI's regression gates (``--thresholds``), with the older run as the baseline.

    Both runs become NLU.DevOps statistics through the compare bridge, so a thresholds file
    gates a diff exactly as it gates ``nlu-tui run --baseline``.
    """
    from nlu_tui.compare.bridge import check_gates, load_settings, statistics_from_run

    settings = load_settings(Path(thresholds_path))
    baseline = statistics_from_run([c for c, _ in before], [p for _, p in before], settings)
    current = statistics_from_run([c for c, _ in after], [p for _, p in after], settings)
    return check_gates(current, baseline, list(settings.thresholds))


THRESHOLD_FILES = ("thresholds.yml", "thresholds.yaml", "nlu-thresholds.yml")


@dataclass
class DiffResult:
    """Two loaded runs, their diff and the gates checked between them (or why not)."""

    before: RunData
    after: RunData
    diff: RunDiff
    gates: list[Any] | None
    gates_error: str | None


def default_thresholds(suite_path: str | None, workspace: Path | None) -> Path | None:
    """A thresholds file beside the suite or in the workspace, when there is one."""
    folders = [Path(suite_path).parent] if suite_path else []
    if workspace is not None:
        folders.append(Path(workspace))
    for folder in folders:
        for name in THRESHOLD_FILES:
            if (folder / name).is_file():
                return folder / name
    return None


def compute_diff(
    store: RunStore, before_id: str, after_id: str, threshold: float, thresholds: Path | None
) -> DiffResult:
    """Load both runs and diff them: what the diff screen's worker runs, off the UI thread."""
    from nlu_tui.reports.run_data import RunData

    before = RunData.load(store, before_id)
    after = RunData.load(store, after_id)
    cases = [c for c, _, _ in after.rows] + [c for c, _, _ in before.rows]
    diff = diff_runs(
        (r for _, _, r in before.rows),
        (r for _, _, r in after.rows),
        cases=cases,
        threshold=threshold,
        f1_before=before.intent_f1(),
        f1_after=after.intent_f1(),
    )
    gates = None
    error = None
    if thresholds is not None:
        try:
            gates = check_run_gates(
                [(c, p) for c, p, _ in before.rows], [(c, p) for c, p, _ in after.rows], thresholds
            )
        except Exception as exc:
            error = str(exc)
    return DiffResult(before, after, diff, gates, error)


# --- the diff ``D`` shows, computed ahead of the key (the workbench's Runs tab, in a thread) --


@dataclass(frozen=True)
class ComputedDiff:
    """A diff computed ahead for a pair of runs, valid while ``key`` still holds."""

    key: tuple[object, ...]
    result: DiffResult
    thresholds: Path | None


def thresholds_stamp(path: Path | None) -> tuple[str, int] | None:
    """What a thresholds file is now (its path and modification time), None when none."""
    if path is None:
        return None
    try:
        return (str(path), path.stat().st_mtime_ns)
    except OSError:
        return (str(path), -1)


def diff_ahead(
    store: RunStore, key: tuple[object, ...], before_id: str, after_id: str, workspace: Path | None
) -> ComputedDiff:
    """Compute what ``D`` shows for ``before_id``/``after_id`` at the default threshold, with
    the thresholds file found beside the suite or in the workspace (blocking: for a thread)."""
    record = store.get_run(after_id)
    thresholds = default_thresholds(record.suite_path, workspace)
    result = compute_diff(store, before_id, after_id, DEFAULT_CONFIDENCE_THRESHOLD, thresholds)
    return ComputedDiff(key, result, thresholds)
