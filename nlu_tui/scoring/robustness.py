"""Robustness: how a run of a perturbed suite (``nlu-tui perturb``) compares with a run of the
original, per intent.

- **F1 per intent** is the per-intent F1 of each run's intent report (scikit-learn's
  ``classification_report`` over the scored cases, :mod:`nlu_tui.scoring.intent_report`), the
  same figures the Intents tab and the JSON report show; the delta is perturbed − clean.
- A **flip** pairs a perturbed case with its original (the perturbed case's ``origin``): it
  *broke* when the original's intent result was right (TP/TN) and the perturbed one's is not,
  it was *fixed* the other way round. A pair with an ERROR on either side is not counted. A
  flip is counted under the original's expected intent (its intent-report label).
- The overall line is each run's summary F1 (Kore.ai's definitions, :func:`summarize`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.model import CaseResult, ResultType, TestCase
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions
from nlu_tui.scoring.intent_report import classification_report, intent_labels, label_sequences
from nlu_tui.scoring.summary import summarize

Row = tuple[TestCase, Any, CaseResult]
_AVERAGES = ("accuracy", "macro avg", "weighted avg", "micro avg")


@dataclass
class IntentDelta:
    intent: str
    support: int
    """Scored cases of the original run expecting this intent."""
    clean_f1: float
    perturbed_f1: float
    broke: int = 0
    fixed: int = 0

    @property
    def delta(self) -> float:
        return self.perturbed_f1 - self.clean_f1

    def as_dict(self) -> dict[str, Any]:
        return {
            "intent": self.intent,
            "support": self.support,
            "clean_f1": self.clean_f1,
            "perturbed_f1": self.perturbed_f1,
            "delta": self.delta,
            "broke": self.broke,
            "fixed": self.fixed,
        }


@dataclass
class Robustness:
    clean_run: str
    perturbed_run: str
    clean_f1: float
    perturbed_f1: float
    intents: list[IntentDelta] = field(default_factory=list)
    pairs: int = 0
    """Perturbed cases paired with a scored original (both without ERROR)."""
    broke: list[tuple[str, str]] = field(default_factory=list)
    """(original id, perturbed id) of each pair that went from right to wrong."""
    fixed: list[tuple[str, str]] = field(default_factory=list)
    unpaired: int = 0
    """Perturbed cases whose original is not in the clean run."""

    @property
    def delta(self) -> float:
        return self.perturbed_f1 - self.clean_f1

    def as_dict(self) -> dict[str, Any]:
        return {
            "clean_run": self.clean_run,
            "perturbed_run": self.perturbed_run,
            "clean_f1": self.clean_f1,
            "perturbed_f1": self.perturbed_f1,
            "delta": self.delta,
            "pairs": self.pairs,
            "unpaired": self.unpaired,
            "broke": [list(p) for p in self.broke],
            "fixed": [list(p) for p in self.fixed],
            "intents": [i.as_dict() for i in self.intents],
        }


def _f1_by_label(
    rows: Sequence[Row], options: ScoringOptions
) -> tuple[dict[str, float], dict[str, int]]:
    y_true, y_pred = label_sequences([(c, r) for c, _p, r in rows], options)
    report = classification_report(y_true, y_pred)
    f1: dict[str, float] = {}
    support: dict[str, int] = {}
    for label, row in report.items():
        if label in _AVERAGES or not isinstance(row, dict):
            continue
        f1[label] = float(row.get("f1-score", 0.0))
        support[label] = int(row.get("support", 0))
    return f1, support


def compare_runs(
    clean_run: str,
    clean: Sequence[Row],
    perturbed_run: str,
    perturbed: Sequence[Row],
    options: ScoringOptions = DEFAULT_OPTIONS,
) -> Robustness:
    """The robustness report of ``perturbed`` (cases with ``origin``) against ``clean``."""
    clean_f1, clean_support = _f1_by_label(clean, options)
    pert_f1, _support = _f1_by_label(perturbed, options)
    out = Robustness(
        clean_run,
        perturbed_run,
        summarize(r for _c, _p, r in clean).f1,
        summarize(r for _c, _p, r in perturbed).f1,
    )
    by_label = {
        label: IntentDelta(
            label, clean_support.get(label, 0), clean_f1.get(label, 0.0), pert_f1.get(label, 0.0)
        )
        for label in sorted(set(clean_f1) | set(pert_f1))
    }
    originals = {c.id: (c, r) for c, _p, r in clean}
    for case, _p, result in perturbed:
        if case.origin is None or case.origin not in originals:
            out.unpaired += 1
            continue
        original, before = originals[case.origin]
        if ResultType.ERROR in (before.result, result.result):
            continue
        out.pairs += 1
        label = intent_labels(original, before, options)[0]
        if before.intent_ok and not result.intent_ok:
            out.broke.append((original.id, case.id))
            by_label[label].broke += 1
        elif result.intent_ok and not before.intent_ok:
            out.fixed.append((original.id, case.id))
            by_label[label].fixed += 1
    out.intents = sorted(by_label.values(), key=lambda d: (d.delta, d.intent))
    return out


def robustness_lines(report: Robustness) -> list[str]:
    """The report as text: the overall F1 change, then one line per intent, worst first."""
    lines = [
        f"robustness: run {report.perturbed_run} (perturbed) against {report.clean_run} (clean)",
        f"  F1 {report.clean_f1:.4f} -> {report.perturbed_f1:.4f} ({report.delta:+.4f}); "
        f"{len(report.broke)} of {report.pairs} cases broke, {len(report.fixed)} fixed"
        + (f"; {report.unpaired} without their original" if report.unpaired else ""),
        f"  {'intent':<28} {'support':>7} {'clean F1':>8} {'perturbed':>9} {'delta':>8} "
        f"{'broke':>5} {'fixed':>5}",
    ]
    for d in report.intents:
        lines.append(
            f"  {d.intent[:28]:<28} {d.support:>7} {d.clean_f1:>8.4f} {d.perturbed_f1:>9.4f} "
            f"{d.delta:>+8.4f} {d.broke:>5} {d.fixed:>5}"
        )
    return lines
