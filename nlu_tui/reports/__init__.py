"""Exports of a scored run: JSON (versioned schema), Kore.ai CSV, JUnit XML and Rasa reports."""

from nlu_tui.reports.common import ResultRow, RunMeta
from nlu_tui.reports.registry import REPORT_FORMATS, ReportFormat, report_format, write_report

__all__ = [
    "REPORT_FORMATS",
    "ReportFormat",
    "ResultRow",
    "RunMeta",
    "report_format",
    "write_report",
]
