"""Exports of a scored run: JSON (versioned schema), Kore.ai CSV, JUnit XML and Rasa reports."""

from nlu_tui.reports.common import ResultRow, RunMeta
from nlu_tui.reports.prepared import PreparedRun, prepare_run
from nlu_tui.reports.registry import (
    REPORT_FORMATS,
    ReportFormat,
    check_targets,
    report_format,
    write_report,
    write_reports,
)

__all__ = [
    "REPORT_FORMATS",
    "PreparedRun",
    "ReportFormat",
    "ResultRow",
    "RunMeta",
    "check_targets",
    "prepare_run",
    "report_format",
    "write_report",
    "write_reports",
]
