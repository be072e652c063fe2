"""The files ``rasa test e2e --coverage-report`` writes, under Rasa Pro 3.21's names.

From Rasa Pro 3.21.0's source (read, not copied): ``rasa/e2e_test/utils/io.py``,
``_save_coverage_report`` and ``_save_tested_commands_histogram``, called by
``rasa/cli/e2e_test.py`` for the passed, then the failed tests:

- ``coverage_report_for_{passed,failed}_tests.csv``: pandas' ``to_csv(index=False)`` of the
  report frame: columns ``Flow Name,Coverage,Num Steps,Missing Steps,Line Numbers for Missing
  Steps``; a flow's ``Coverage`` is the float as Python prints it (``86.95652173913044``,
  ``100.0``), the ``Total`` row's is a string with two decimals and ``%`` (empty when there
  is no step), its line-numbers cell empty; a flow's missing lines are ``[a-b, c-d]`` (quoted,
  as it holds a comma); an empty report is the header alone. Lines end with ``\\n``.
- ``commands_histogram_for_{passed,failed}_tests.png``: a 10 x 6 inch bar chart of the command
  counts sorted by name, blue bars with their counts above them, ``Commands`` / ``Counts``,
  title ``Command histogram for {status} tests``, names rotated 45 degrees.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from nlu_tui.extras import need
from nlu_tui.fileio import atomic_write_bytes, atomic_write_text
from nlu_tui.scoring.flow_coverage import CoverageReport

COLUMNS = (
    "Flow Name",
    "Coverage",
    "Num Steps",
    "Missing Steps",
    "Line Numbers for Missing Steps",
)
STATUSES = ("passed", "failed")


def csv_name(status: str) -> str:
    return f"coverage_report_for_{status}_tests.csv"


def histogram_name(status: str) -> str:
    return f"commands_histogram_for_{status}_tests.png"


def coverage_csv(report: CoverageReport | None) -> str:
    """The CSV text of one group's report, as Rasa Pro writes it."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    if report is None:
        return out.getvalue()
    for row in report.rows:
        lines = "[" + ", ".join(row.missing_lines) + "]"
        writer.writerow([row.flow, repr(row.coverage), row.steps, row.missing, lines])
    total = report.total_coverage
    if not report.rows:  # pandas sums the empty columns as floats
        writer.writerow(["Total", "", "0.0", "0.0", ""])
        return out.getvalue()
    writer.writerow(["Total", f"{total:.2f}%", report.total_steps, report.total_missing, ""])
    return out.getvalue()


def histogram_png(counts: dict[str, int], status: str) -> bytes:
    """The command histogram as PNG bytes (matplotlib's Agg canvas, no display needed)."""
    need("matplotlib", "the command histogram's PNG")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ordered = dict(sorted(counts.items()))
    fig = Figure(figsize=(10, 6))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    bars = ax.bar(list(ordered), list(ordered.values()), color="blue")
    ax.set_xlabel("Commands")
    ax.set_ylabel("Counts")
    ax.set_title(f"Command histogram for {status} tests")
    ax.set_xticks(range(len(ordered)), list(ordered), rotation=45, ha="right")
    fig.tight_layout()
    for bar in bars:
        height = bar.get_height()
        ax.text(
            bar.get_x() + bar.get_width() / 2,
            height + 0.5,
            str(int(height)),
            ha="center",
            va="bottom",
        )
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def check_output_dir(path: Path) -> str | None:
    """Why ``path`` cannot take the reports (None when it can): it must be a folder or not
    exist yet, below a folder that exists or can be made."""
    if path.exists() and not path.is_dir():
        return "is a file, not a folder"
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else f"{parent} is a file, not a folder"
    return None


def write_coverage_files(
    folder: Path,
    reports: dict[str, CoverageReport | None],
    histograms: dict[str, dict[str, int]],
) -> list[Path]:
    """Write the CSV and PNG of each status (passed, then failed); return the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for status in STATUSES:
        target = folder / csv_name(status)
        atomic_write_text(target, coverage_csv(reports.get(status)))
        written.append(target)
        image = folder / histogram_name(status)
        atomic_write_bytes(image, histogram_png(histograms.get(status, {}), status))
        written.append(image)
    return written
