"""Export formats of a scored run by name, for the CLI (``--format``) and the TUI's export menu."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from nlu_tui.errors import InputError
from nlu_tui.gcpause import gc_paused
from nlu_tui.reports.common import ResultRow, RunMeta
from nlu_tui.reports.json_report import write_json_report
from nlu_tui.reports.junit import write_junit
from nlu_tui.reports.kore_csv import write_kore_csv
from nlu_tui.reports.prepared import PreparedRun, prepare_run
from nlu_tui.reports.rasa_report import write_rasa_report
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions


class Writer(Protocol):
    """An exporter: writes ``rows`` to ``path``, reusing ``prepared`` figures when given."""

    def __call__(
        self,
        path: Path,
        meta: RunMeta,
        rows: Sequence[ResultRow],
        options: ScoringOptions = ...,
        *,
        prepared: PreparedRun | None = None,
    ) -> list[Path]: ...


@dataclass(frozen=True)
class ReportFormat:
    """``directory``: the target is a folder (Rasa writes two files), otherwise a file."""

    name: str
    description: str
    extension: str
    directory: bool
    write: Writer


REPORT_FORMATS: dict[str, ReportFormat] = {
    f.name: f
    for f in (
        ReportFormat("json", "JSON report (schema_version 1)", ".json", False, write_json_report),
        ReportFormat("csv", "Kore.ai Batch Testing CSV report", ".csv", False, write_kore_csv),
        ReportFormat("junit", "JUnit XML, one test case per utterance", ".xml", False, write_junit),
        ReportFormat(
            "rasa", "Rasa intent_report.json + intent_errors.json", "", True, write_rasa_report
        ),
    )
}


def report_format(name: str) -> ReportFormat:
    try:
        return REPORT_FORMATS[name]
    except KeyError:
        known = ", ".join(REPORT_FORMATS)
        raise InputError(
            f"unknown report format {name!r} (known: {known})", field="format"
        ) from None


def write_report(
    fmt: str,
    path: Path,
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    prepared: PreparedRun | None = None,
) -> list[Path]:
    """Export a scored run as ``fmt`` to ``path`` (a folder for ``rasa``); returns files written.

    ``prepared`` (from :func:`prepare_run` on the same rows and options) saves recomputing
    the summary and labels when several formats are written.
    """
    writer = report_format(fmt).write
    with gc_paused():
        return writer(Path(path), meta, rows, options, prepared=prepared)


def write_reports(
    targets: Mapping[str, Path],
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    prepared: PreparedRun | None = None,
) -> list[Path]:
    """Export a run in several formats ({format: path}), summarising and labelling it once."""
    writers = {fmt: report_format(fmt).write for fmt in targets}  # bad names fail first
    written: list[Path] = []
    with gc_paused():
        if prepared is None:
            prepared = prepare_run(rows, options)
        for fmt, path in targets.items():
            written += writers[fmt](Path(path), meta, rows, options, prepared=prepared)
    return written
