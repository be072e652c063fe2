"""What the run commands print and write: progress lines, run tables, summaries and exports.

Kept apart from argument parsing so the formats of ``show`` and the ``--json/--csv/--junit``
files of ``run`` come from one place.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from nlu_tui.model import RunStatus
from nlu_tui.repeats import repeat_of
from nlu_tui.textsafe import inert

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from nlu_tui.reports.common import RunMeta
    from nlu_tui.reports.rasa_report import RasaOptions
    from nlu_tui.runner.events import ProgressEvent
    from nlu_tui.scoring.stability import StabilityReport
    from nlu_tui.scoring.summary import Summary
    from nlu_tui.store.records import RunRecord
    from nlu_tui.store.runstore import StoredResult


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def counts_text(e: ProgressEvent) -> str:
    f1 = f"{e.f1:.3f}" if e.tp + e.tn + e.fp + e.fn else "-"  # nothing scored: no F1 yet
    return f"TP {e.tp} TN {e.tn} FP {e.fp} FN {e.fn} ERR {e.errors} F1 {f1}"


class ProgressView:
    """A Rich progress bar on a terminal; plain lines (every 2 s and at the end) otherwise.

    While the engine opens (trains or is probed) the bar's text, or one plain line, says so
    instead of a progress that seems stuck at 0/N.
    """

    def __init__(self, stream: TextIO | None = None, *, live: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._last_line = 0.0
        self._last_done = -1
        self._opening_shown = False
        self._opening_label: str | None = None
        self._opening_at = 0.0

    def __enter__(self) -> ProgressView:
        if self.live:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn

            self._progress = Progress(
                TextColumn("{task.fields[head]}", markup=False),
                BarColumn(),
                TextColumn("{task.fields[tail]}", markup=False),
                console=Console(file=self.stream),
                auto_refresh=False,
                transient=False,
            )
            self._progress.start()
            self._task = self._progress.add_task("run", total=None, head="starting…", tail="")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.refresh()
            self._progress.stop()

    def __call__(self, e: ProgressEvent) -> None:
        label = e.phase_label
        if self._progress is not None and self._task is not None:
            head = f"{e.done}/{e.total}"
            if label is not None:
                # a resumed run keeps its stored count; the bar pulses until cases flow
                head = f"{head} {label}" if e.done else label
                tail = f"elapsed {_eta(e.elapsed_s)}"
            else:
                tail = (
                    f"{100.0 * e.fraction:>5.1f}% {e.rate:>7.1f}/s ETA {_eta(e.eta_s)} "
                    f"{counts_text(e)}"
                )
            self._progress.update(
                self._task,
                completed=e.done,
                total=None if label is not None else e.total,
                head=head,
                tail=tail,
            )
            self._progress.refresh()
            return
        if label is not None:
            # a new kind of label at once; the same one updated (a remote batch's progress)
            # at most every 2 s
            now = time.monotonic()
            last = self._opening_label
            new_kind = last is None or label.split(":")[0] != last.split(":")[0]
            if label != last and (new_kind or now - self._opening_at >= 2.0):
                self._opening_shown = True
                self._opening_label, self._opening_at = label, now
                where = f"{e.done}/{e.total} ({100.0 * e.fraction:.1f}%) " if e.done else ""
                print(f"{where}{label}", file=self.stream, flush=True)
            return
        now = time.monotonic()
        moved = e.done != self._last_done
        if e.final or (moved and now - self._last_line >= 2.0):
            self._last_line, self._last_done = now, e.done
            pct = 100.0 * e.fraction
            print(
                f"{e.done}/{e.total} ({pct:.1f}%) {e.rate:.1f}/s ETA {_eta(e.eta_s)} "
                f"{counts_text(e)}",
                file=self.stream,
                flush=True,
            )


def f1_text(run: RunRecord) -> str:
    """The run's F1 with three decimals, or ``-`` for a failed run or one that scored nothing."""
    f1 = run.scored_f1
    return "-" if f1 is None else f"{f1:.3f}"


def run_line(run: RunRecord) -> str:
    """One line saying how a run ended (reason escaped by the caller where markup applies)."""
    text = (
        f"run {run.id} {run.status.value}: {run.done}/{run.total} cases, "
        f"TP {run.tp} TN {run.tn} FP {run.fp} FN {run.fn} ERR {run.errors}, F1 {f1_text(run)}"
    )
    if run.reason:
        text += f" ({run.reason})"
    return text


def merged_line(parent: str, merged: Summary, total: int) -> str:
    """The line a rerun ends with: its parent's passes and its answers, as the suite now scores."""
    return (
        f"merged with run {parent}: {merged.cases}/{total} cases, TP {merged.tp} TN {merged.tn} "
        f"FP {merged.fp} FN {merged.fn} ERR {merged.errors}, F1 {merged.f1:.3f} "
        "(what the suite now scores)"
    )


def merged_lines(parent: str, s: Summary) -> list[str]:
    """``show`` of a rerun: which run it reran, and the merged figures."""
    return [
        f"rerun of   {parent} (only its failed and errored cases were sent)",
        f"merged     {s.cases} cases: {parent}'s passes and this run's answers",
        f"  TP/TN/FP/FN {s.tp}/{s.tn}/{s.fp}/{s.fn}, errors {s.errors}",
        f"  precision {s.precision:.4f}  recall {s.recall:.4f}  F1 {s.f1:.4f}",
    ]


def shown_text(shown: int, total: int) -> str:
    """The line under a cut run list: ``showing 50 of 10000 (--all for every run)``."""
    return f"showing {shown} of {total} (--all for every run)"


def runs_json(runs: list[RunRecord]) -> list[dict[str, Any]]:
    out = []
    for run in runs:
        data = run.to_json()
        f1 = run.scored_f1
        data["f1"] = None if f1 is None else round(f1, 6)
        repeat = repeat_of(run)
        if repeat > 1:  # a repeated run: how often, and its stability headline once it ended
            data["repeat"] = repeat
            data["stability"] = run.summary.get("stability")
        out.append(data)
    return out


RUN_COLUMNS = (
    "run", "started", "suite", "engine", "version", "status", "done",
    "TP", "TN", "FP", "FN", "ERR", "F1", "user", "host", "note",
)  # fmt: skip
_RIGHT = frozenset({"TP", "TN", "FP", "FN", "ERR", "F1"})


def run_row(r: RunRecord) -> list[str]:
    """One run as the cells of :data:`RUN_COLUMNS`, untrusted text made inert."""
    from nlu_tui.store.records import iso

    note = r.note if len(r.note) <= 40 else r.note[:39] + "…"
    if r.kind != "suite":  # conversations, DUT, ...: no TP/TN/FP/FN, passed of done instead
        return [
            r.id,
            (iso(r.started_at) or "").replace("T", " ").rstrip("Z"),
            inert(f"{r.suite_name} ({r.kind})", newlines=False),
            inert(r.engine_name, newlines=False),
            inert(r.stage, newlines=False),
            r.status.value,
            f"{r.done}/{r.total}",
            "-",
            "-",
            "-",
            "-",
            str(r.errors),
            f"{r.passed} passed",
            *who_cells(r),
            inert(note, newlines=False),
        ]
    return [
        r.id,
        (iso(r.started_at) or "").replace("T", " ").rstrip("Z"),
        inert(r.suite_name, newlines=False),
        inert(r.engine_name, newlines=False),
        inert(r.stage, newlines=False),
        r.status.value,
        f"{r.done}/{r.total}" + (f"×{repeat_of(r)}" if repeat_of(r) > 1 else ""),
        str(r.tp),
        str(r.tn),
        str(r.fp),
        str(r.fn),
        str(r.errors),
        f1_text(r),
        *who_cells(r),
        inert(note, newlines=False),
    ]


def who_cells(r: RunRecord) -> list[str]:
    """Who started the run and on which host (``-`` when the store did not record it)."""
    return [inert(r.started_by or "-", newlines=False), inert(r.started_on or "-", newlines=False)]


def print_runs_table(runs: list[RunRecord], stream: TextIO | None = None) -> None:
    """The runs as aligned columns, two spaces apart (plain text: ``runs --all`` over 10,000
    runs prints in a fraction of a second, where a Rich table took seconds)."""
    from rich.cells import cell_len

    rows = [list(RUN_COLUMNS), *(run_row(r) for r in runs)]
    widths = [max(cell_len(row[i]) for row in rows) for i in range(len(RUN_COLUMNS))]
    out = stream or sys.stdout
    lines = []
    for row in rows:
        cells = []
        for name, cell, width in zip(RUN_COLUMNS, row, widths, strict=True):
            pad = " " * (width - cell_len(cell))
            cells.append(pad + cell if name in _RIGHT else cell + pad)
        lines.append("  ".join(cells).rstrip())
    out.write("\n".join(lines) + "\n")
    out.flush()


MAX_ORDER_LINES = 20
"""Wrong entity orders listed one by one in ``show -f summary`` (the JSON report has them all)."""


def _order_lines(checked: int, right: int, rows: list[StoredResult]) -> list[str]:
    """The entity-order verdict: how many given orders the engine kept, and each wrong one with
    the engine's actual order next to the expected one."""
    if not checked:
        return []
    lines = [f"order      {right}/{checked} entity orders right"]
    wrong = [r for _c, _p, r in rows if r.entity_order_ok is False]
    for r in wrong[:MAX_ORDER_LINES]:
        expected = ">".join(r.expected_entity_order)
        actual = ">".join(r.actual_entity_order) or "(none returned)"
        lines.append(
            inert(
                f"  wrong order in {r.case_id}: expected {expected}, actual {actual}",
                newlines=False,
            )
        )
    if len(wrong) > MAX_ORDER_LINES:
        lines.append(f"  … {len(wrong) - MAX_ORDER_LINES} more (see -f json)")
    return lines


def metric_line(run: RunRecord) -> str:
    """Which definitions the summary's figures follow, and the settings that shaped them."""
    from nlu_tui.reports.metric_spec import KORE

    groups = run.options.get("entity_synonyms")
    synonyms = f", {len(groups)} entity synonym groups" if isinstance(groups, list) else ""
    return (
        f"{KORE} (a wrong intent is FP; negative intent None; nlu_fallback = no intent; "
        f"entity values compared as Kore.ai flat values{synonyms})"
    )


def header_lines(run: RunRecord, reason: str = ": {}") -> list[str]:
    """The lines that open ``show``: run, suite, engine, status (with ``reason`` formatting
    why it ended, if it says), started and finished."""
    from nlu_tui.store.records import iso

    why = reason.format(run.reason) if run.reason else ""
    return [
        f"run        {run.id}",
        f"suite      {run.suite_name}" + (f" ({run.suite_path})" if run.suite_path else ""),
        f"engine     {run.engine_name} [{run.stage}]",
        f"status     {run.status.value}{why}",
        f"started    {iso(run.started_at)}",
        f"finished   {iso(run.finished_at) or '-'}",
    ]


def summary_text(
    run: RunRecord, rows: list[StoredResult], stability: StabilityReport | None = None
) -> str:
    from nlu_tui.scoring.summary import summarize

    s = summarize([r for _c, _p, r in rows])
    # A failed run, or one that scored nothing, has no figures: "-", not 0.0000.
    measured = run.status is not RunStatus.FAILED and s.cases - s.errors > 0

    def figure(value: float, fmt: str) -> str:
        return format(value, fmt) if measured else "-"

    lines = [
        *header_lines(run),
        f"cases      {s.cases} of {run.total} (errors {s.errors})",
        f"TP/TN/FP/FN {s.tp}/{s.tn}/{s.fp}/{s.fn}",
        f"metrics    {metric_line(run)}",
        f"precision  {figure(s.precision, '.4f')}",
        f"recall     {figure(s.recall, '.4f')}",
        f"F1         {figure(s.f1, '.4f')}",
        f"intent     {figure(100 * s.intent_success, '.2f')}{'%' if measured else ''}",
        "entities   "
        + ("-" if s.entity_success is None or not measured else f"{100 * s.entity_success:.2f}%"),
    ]
    lines.extend(_order_lines(s.order_checked, s.order_ok, rows))
    if s.latency_mean is not None:
        lines.append(f"latency    mean {s.latency_mean:.1f} ms, max {s.latency_max or 0:.1f} ms")
    cached = sum(1 for _c, _p, r in rows if r.cached)
    if cached:
        lines.append(f"cached     {cached} answers from the answer cache (not in the latency)")
    if run.note:
        lines.append(f"note       {run.note}")
    from nlu_tui.scoring.slices import slice_lines, slices

    lines.extend(slice_lines(slices(rows)))
    if stability is not None:
        from nlu_tui.scoring.stability import stability_lines

        lines.extend(stability_lines(stability, {c.id: c.utterance for c, _p, _r in rows}))
    return "\n".join(lines) + "\n"


def _meta(run: RunRecord, stability: StabilityReport | None) -> RunMeta:
    from nlu_tui.reports.common import RunMeta

    meta = RunMeta.from_record(run)
    if stability is not None:
        meta.stability = stability.as_dict()
    return meta


def render(
    fmt: str, run: RunRecord, rows: list[StoredResult], stability: StabilityReport | None = None
) -> str:
    """A stored run as ``summary``, ``json``, ``csv``, ``junit`` or ``rasa`` (its intent report);
    a repeated run's ``stability`` goes into the summary and the JSON report."""
    meta = _meta(run, stability)
    if fmt == "summary":
        return summary_text(run, rows, stability)
    if fmt == "json":
        from nlu_tui.reports.json_report import render_json_report

        return render_json_report(meta, list(rows)) + "\n"
    if fmt == "csv":
        from nlu_tui.reports.kore_csv import render_kore_csv

        return render_kore_csv(meta, list(rows))
    if fmt == "junit":
        from nlu_tui.reports.junit import render_junit

        return render_junit(meta, list(rows))
    if fmt == "nludevops":
        from nlu_tui.reports.nludevops_results import render_nludevops_results

        return render_nludevops_results(list(rows))
    if fmt == "html":
        from nlu_tui.reports.html_report import render_html

        return render_html(meta, list(rows))
    if fmt == "rasa":
        import json

        from nlu_tui.reports.rasa_report import rasa_examples, rasa_intent_report

        examples = rasa_examples(list(rows))
        report = rasa_intent_report([e[1] for e in examples], [e[2] for e in examples])
        return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
    raise ValueError(fmt)


def print_charts(run: RunRecord, rows: list[StoredResult], stream: TextIO | None = None) -> None:
    """The images of the run's Rasa export, drawn as terminal charts (colours on a terminal)."""
    import shutil

    from rich.console import Console

    from nlu_tui.reports.common import RunMeta
    from nlu_tui.reports.rasa_report import run_charts
    from nlu_tui.scoring.rasa_charts import ConfusionChart
    from nlu_tui.views.rasa_charts_text import confusion_text, paired_histogram_text

    out = stream or sys.stdout
    width = min(shutil.get_terminal_size((100, 24)).columns, 160)
    console = Console(file=out, width=width, highlight=False, soft_wrap=True)
    charts = run_charts(RunMeta.from_record(run), list(rows))
    if not charts:
        console.print("no chart: the run has no scored example with an intent")
    for name, chart in charts:
        console.print(f"{name.removesuffix('.png')}", style="dim")
        if isinstance(chart, ConfusionChart):
            console.print(confusion_text(chart, width))
        else:
            console.print(paired_histogram_text(chart, width))


def write(
    fmt: str,
    run: RunRecord,
    rows: list[StoredResult],
    path: Path,
    rasa: RasaOptions | None = None,
    stability: StabilityReport | None = None,
) -> list[Path]:
    """Write a stored run to ``path`` (a folder for ``rasa``); returns the files written."""
    if fmt == "summary":
        from nlu_tui.fileio import atomic_write_text

        atomic_write_text(path, summary_text(run, rows, stability))
        return [path]
    return write_many(run, rows, {fmt: path}, rasa, stability)


def write_many(
    run: RunRecord,
    rows: list[StoredResult],
    targets: dict[str, Path],
    rasa: RasaOptions | None = None,
    stability: StabilityReport | None = None,
) -> list[Path]:
    """Write a stored run in several report formats at once ({format: path}): one summary,
    the rows rendered on every core worth using (``nlu_tui.reports.write_reports``)."""
    from nlu_tui.reports import write_reports
    from nlu_tui.reports.rasa_report import DEFAULT_RASA_OPTIONS

    return write_reports(
        targets, _meta(run, stability), list(rows), rasa=rasa or DEFAULT_RASA_OPTIONS
    )
