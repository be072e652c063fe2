"""Export formats of a scored run by name, for the CLI (``--format``) and the TUI's export menu."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.gcpause import gc_paused
from nlu_tui.reports.common import ResultRow, RunMeta
from nlu_tui.reports.html_report import failed_rows_html, write_html_parts
from nlu_tui.reports.json_report import json_rows, write_json_parts
from nlu_tui.reports.junit import junit_rows, write_junit_parts
from nlu_tui.reports.kore_csv import csv_rows, write_csv_parts
from nlu_tui.reports.markdown_report import markdown_rows, write_markdown_parts
from nlu_tui.reports.nludevops_results import nludevops_rows, write_nludevops_parts
from nlu_tui.reports.parallel import default_processes, map_ranges
from nlu_tui.reports.prepared import PreparedRun, prepare_run
from nlu_tui.reports.rasa_report import (
    DEFAULT_RASA_OPTIONS,
    RasaOptions,
    rasa_rows,
    write_rasa_parts,
)
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions


@dataclass(frozen=True)
class ReportFormat:
    """An export format. ``directory``: the target is a folder (Rasa writes two files).

    ``render_rows(prepared, meta, lo, hi)`` renders a range of rows, in any process (its
    result must pickle); ``write_parts(path, prepared, meta, parts)`` writes the file(s)
    from the parts of consecutive ranges covering every row (:func:`write_reports` does
    both; ``processes=1`` keeps it in this process).
    """

    name: str
    description: str
    extension: str
    directory: bool
    render_rows: Callable[[PreparedRun, RunMeta, int, int], Any]
    write_parts: Callable[[Path, PreparedRun, RunMeta, Sequence[Any]], list[Path]]
    labelled: bool
    """Whether it needs the intent labels and report (computed before any child forks)."""


REPORT_FORMATS: dict[str, ReportFormat] = {
    f.name: f
    for f in (
        ReportFormat(
            "json",
            "JSON report (schema_version 1)",
            ".json",
            False,
            json_rows,
            write_json_parts,
            True,
        ),
        ReportFormat(
            "csv",
            "Kore.ai Batch Testing CSV report",
            ".csv",
            False,
            csv_rows,
            write_csv_parts,
            False,
        ),
        ReportFormat(
            "junit",
            "JUnit XML, one test case per utterance",
            ".xml",
            False,
            junit_rows,
            write_junit_parts,
            False,
        ),
        ReportFormat(
            "rasa",
            "Rasa `rasa test nlu` folder: intent, entity, response reports and plots",
            "",
            True,
            rasa_rows,
            write_rasa_parts,
            True,
        ),
        ReportFormat(
            "nludevops",
            "NLU.DevOps generic utterances (the actual file of `compare`)",
            ".nludevops.json",
            False,
            nludevops_rows,
            write_nludevops_parts,
            False,
        ),
        ReportFormat(
            "html",
            "one self-contained HTML page: summary, per-intent table, charts, failed cases",
            ".html",
            False,
            failed_rows_html,
            write_html_parts,
            True,
        ),
        ReportFormat(
            "markdown",
            "a short Markdown summary for a pull-request comment",
            ".md",
            False,
            markdown_rows,
            write_markdown_parts,
            True,
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


def check_targets(targets: Mapping[str, Path], names: Mapping[str, str] | None = None) -> None:
    """Refuse export targets that cannot all be written, before any work (or any run) starts:
    an unknown format, two formats on one path, a file format aimed at a folder or the Rasa
    folder at a file. ``names`` says how the user called each format (``--json``)."""
    seen: dict[Path, str] = {}
    for fmt, target in targets.items():
        spec = report_format(fmt)
        name = (names or {}).get(fmt, fmt)
        path = Path(target).resolve()
        if path in seen:
            raise InputError(f"{seen[path]} and {name} would both write {target}", field=name)
        seen[path] = name
        if spec.directory and path.is_file():
            raise InputError(f"{target} is a file; {name} writes a folder", field=name)
        if not spec.directory and path.is_dir():
            raise InputError(f"{target} is a folder; {name} writes a file", field=name)


def write_report(
    fmt: str,
    path: Path,
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    prepared: PreparedRun | None = None,
    processes: int | None = None,
) -> list[Path]:
    """Export a scored run as ``fmt`` to ``path`` (a folder for ``rasa``); returns files written.

    ``prepared`` (from :func:`prepare_run` on the same rows and options) saves recomputing
    the summary and labels when several formats are written. ``processes`` as in
    :func:`write_reports`.
    """
    return write_reports({fmt: path}, meta, rows, options, prepared=prepared, processes=processes)


def write_reports(
    targets: Mapping[str, Path],
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    prepared: PreparedRun | None = None,
    processes: int | None = None,
    rasa: RasaOptions = DEFAULT_RASA_OPTIONS,
) -> list[Path]:
    """Export a run in several formats ({format: path}), summarising and labelling it once.

    ``rasa`` holds the ``rasa test nlu`` switches (``--successes``, ``--no-errors``).

    The rows are rendered in ``processes`` ranges at once (default: as many as
    :func:`~nlu_tui.reports.parallel.default_processes` finds worthwhile and safe), then
    every file is written here, atomically. The bytes do not depend on ``processes``.
    """
    formats = {fmt: report_format(fmt) for fmt in targets}  # bad input fails first
    check_targets(targets)
    written: list[Path] = []
    with gc_paused():
        if prepared is None:
            prepared = prepare_run(rows, options)
        ready = prepared
        if any(f.labelled for f in formats.values()):
            ready.report  # noqa: B018 - labels and report once, before the children fork

        def render(lo: int, hi: int) -> dict[str, Any]:
            return {fmt: f.render_rows(ready, meta, lo, hi) for fmt, f in formats.items()}

        n = len(ready.rows)
        count = default_processes(n) if processes is None else processes
        parts = map_ranges(render, n, count, meanwhile=partial(_warm_up, formats))
        jobs = [
            partial(
                partial(write_rasa_parts, options=rasa)
                if fmt == "rasa"
                else formats[fmt].write_parts,
                Path(path),
                ready,
                meta,
                [p[fmt] for p in parts],
            )
            for fmt, path in targets.items()
        ]
        if len(jobs) == 1:
            return jobs[0]()
        # Writing is mostly the kernel copying and fsyncing, without the GIL: the files are
        # written at once, beside the Python work of assembling them (the threads end here).
        # Every format is attempted; the first failure, in the order given, is raised.
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            futures = [pool.submit(job) for job in jobs]
        for done in futures:
            written += done.result()
    return written


def _warm_up(formats: Mapping[str, ReportFormat]) -> None:
    """Load the lazily imported modules the writers need, while the children still render."""
    if "rasa" in formats:
        import nlu_tui.scoring.numpy_argsort  # noqa: F401 - Rasa's confused_with
