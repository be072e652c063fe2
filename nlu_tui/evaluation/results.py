"""An evaluation's report files read back for display: which report directories it wrote
(one for a held-out test or a cross-validation, one per run, percentage and configuration for
a comparison), the per-intent rows of each ``intent_report.json`` and the matrix of its
``intent_confusion.json``. The workbench shows these; the numbers are the files' own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nlu_tui.scoring.rasa_charts import ConfusionChart

REPORT = "intent_report.json"
CONFUSION = "intent_confusion.json"
AVERAGES = ("accuracy", "micro avg", "macro avg", "weighted avg")


@dataclass(frozen=True)
class IntentRow:
    """One row of an intent report (an intent, or an average at the end)."""

    name: str
    precision: float
    recall: float
    f1: float
    support: int
    confused_with: str = ""
    average: bool = False


def report_dirs(files: Iterable[Path], out: Path | None) -> list[tuple[str, Path]]:
    """(label, directory) of every written ``intent_report.json``, in a stable order; the label
    is the directory relative to ``out`` (``run_1 · 25%_exclusion · words_report``)."""
    dirs = sorted({p.parent for p in files if p.name == REPORT})
    out_dir = Path(out) if out is not None else None
    labelled = []
    for directory in dirs:
        try:
            parts = directory.relative_to(out_dir).parts if out_dir is not None else ()
        except ValueError:
            parts = (directory.name,)
        labelled.append((" · ".join(parts) or "all test examples", directory))
    return labelled


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def intent_rows(directory: Path) -> list[IntentRow]:
    """The intents of the report, by name, then its averages ([] without a report; the bare
    ``accuracy`` number is left to the figures)."""
    report = _read(Path(directory) / REPORT)
    if not isinstance(report, dict):
        return []
    rows = []
    for name, row in sorted(report.items()):
        if not isinstance(row, dict) or name in AVERAGES:
            continue
        confused = ", ".join(
            f"{k or '(no intent)'} ({v})" for k, v in (row.get("confused_with") or {}).items()
        )
        rows.append(
            IntentRow(
                name,
                float(row.get("precision", 0.0)),
                float(row.get("recall", 0.0)),
                float(row.get("f1-score", 0.0)),
                int(row.get("support", 0)),
                confused,
            )
        )
    for name in AVERAGES:
        row = report.get(name)
        if isinstance(row, dict):
            rows.append(
                IntentRow(
                    name,
                    float(row["precision"]),
                    float(row["recall"]),
                    float(row["f1-score"]),
                    int(row["support"]),
                    average=True,
                )
            )
    return rows


def confusion_of(directory: Path) -> ConfusionChart | None:
    """The intent confusion matrix written beside the report (None without one)."""
    data = _read(Path(directory) / CONFUSION)
    if not isinstance(data, dict):
        return None
    labels = [str(label) for label in data.get("labels") or []]
    matrix = [[int(v) for v in row] for row in data.get("matrix") or []]
    return ConfusionChart("Intent Confusion matrix", labels, matrix)
