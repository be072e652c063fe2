"""The summary header of a run: status, engine, counts, P/R/F1, success rates, latency.

Numbers come from the scoring core (a ``Summary`` for a finished run, the runner's
``ProgressEvent`` for a live one); this module only formats them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from nlu_tui.model import RunStatus
from nlu_tui.textsafe import inert
from nlu_tui.views.counts import counted

if TYPE_CHECKING:
    from nlu_tui.runner.events import ProgressEvent
    from nlu_tui.scoring.stability import StabilityReport
    from nlu_tui.scoring.summary import Summary
    from nlu_tui.store.records import RunRecord

STATUS_ICON = {
    RunStatus.RUNNING: ("▶", "bold cyan"),
    RunStatus.SUCCESS: ("✔", "bold green"),
    RunStatus.SUCCESS_WITH_WARNING: ("⚠", "bold yellow"),
    RunStatus.FAILED: ("✖", "bold red"),
    RunStatus.CANCELED: ("⚠", "bold dark_orange"),
    RunStatus.INTERRUPTED: ("⏸", "bold dark_orange"),
}
"""Kore.ai's convention: canceled is an orange warning, failed a red one."""

STATUS_LABEL = {
    RunStatus.RUNNING: "running",
    RunStatus.SUCCESS: "success",
    RunStatus.SUCCESS_WITH_WARNING: "success with warning",
    RunStatus.FAILED: "failed",
    RunStatus.CANCELED: "canceled",
    RunStatus.INTERRUPTED: "interrupted",
}


def status_text(status: RunStatus | str, with_label: bool = True) -> Text:
    status = RunStatus(status)
    icon, style = STATUS_ICON[status]
    return Text(f"{icon} {STATUS_LABEL[status]}" if with_label else icon, style=style)


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = max(seconds, 0.0)
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours}h{minutes:02d}m{secs:02d}s"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{seconds:.1f}s"


def run_title(record: RunRecord) -> Text:
    """ "✔ success  Banking · embedded (development) · run 1a2b3c…" with the reason when any."""
    text = status_text(record.status)
    text.append("  ")
    text.append(inert(record.suite_name, newlines=False), style="bold")
    text.append(inert(f" · {record.engine_name} ({record.stage}) · run {record.id}"))
    if record.reason:
        style = "red" if record.status is RunStatus.FAILED else "dark_orange"
        text.append("\nReason: ", style="bold " + style)
        text.append(inert(record.reason), style=style)
    return text


def summary_text(
    record: RunRecord, summary: Summary, stability: StabilityReport | None = None
) -> Text:
    """The header of a finished (or stopped) run; a repeated run's stability line with it; a
    ``test nlu`` run's mode (a comparison's F1 table instead of case counts it does not have)."""
    from nlu_tui.evaluation.text import comparison_compact_lines, stored_title

    text = run_title(record)
    text.append("\n")
    if record.kind == "nlu-comparison":
        title = stored_title(record) or "comparison"
        text.append(inert("\n".join([title, *comparison_compact_lines(record)])))
        text.append(
            f"\n{record.done}/{counted(record.total, 'model')} trained and tested; no cases to list"
        )
        return text
    evaluation = stored_title(record)
    if evaluation is not None:
        text.append(inert(evaluation, newlines=False) + "\n", style="bold")
    text.append(
        f"Cases {summary.cases}/{record.total}  TP {summary.tp}  TN {summary.tn}  "
        f"FP {summary.fp}  FN {summary.fn}  Errors {summary.errors}\n"
    )
    text.append("F1 ", style="bold")
    text.append(num(summary.f1), style="bold")
    text.append(
        f"  Precision {num(summary.precision)}  Recall {num(summary.recall)}  "
        f"Intent {pct(summary.intent_success)}  Entity {pct(summary.entity_success)}  "
        f"Duration {duration(record.duration_s)}\n"
    )
    text.append(
        f"Latency ms  p50 {ms(summary.latency_p50)}  p90 {ms(summary.latency_p90)}  "
        f"p99 {ms(summary.latency_p99)}  mean {ms(summary.latency_mean)}  "
        f"max {ms(summary.latency_max)}"
    )
    if stability is not None:
        from nlu_tui.scoring.stability import headline

        o = stability.overall
        text.append("\nStability ", style="bold")
        text.append(
            headline(stability).removeprefix("stability "),
            style="bold yellow" if o.flaky else "",
        )
    if record.note:
        text.append("\nNote: ", style="bold")
        text.append(inert(record.note.splitlines()[0][:200], newlines=False))
    return text


def progress_text(event: ProgressEvent) -> Text:
    """The live lines under the progress bar: how far (:func:`progress_rate_text`), then the
    live counts (:func:`progress_counts_text`)."""
    text = progress_rate_text(event)
    text.append("\n")
    text.append_text(progress_counts_text(event))
    return text


def progress_rate_text(event: ProgressEvent) -> Text:
    """How far a live run is, on one line: done/total, rate, ETA and elapsed; while the engine
    opens, what it is doing (a resumed run keeps its stored count in front)."""
    text = Text()
    label = event.phase_label
    if label is not None:
        if event.done:
            text.append(f"{event.done}/{event.total}  ", style="bold")
        text.append(label, style="bold cyan")
        text.append(f"  elapsed {duration(event.elapsed_s)}")
    else:
        text.append(f"{event.done}/{event.total}", style="bold")
        eta = "-" if event.eta_s is None else duration(event.eta_s)
        text.append(f"  {event.rate:.1f}/s  ETA {eta}  elapsed {duration(event.elapsed_s)}")
    return text


def progress_counts_text(event: ProgressEvent) -> Text:
    """A live run's counts and figures so far, on one line."""
    text = Text()
    text.append(f"TP {event.tp}  ", style="green")
    text.append(f"TN {event.tn}  ", style="green")
    text.append(f"FP {event.fp}  ", style="red")
    text.append(f"FN {event.fn}  ", style="yellow")
    text.append(f"Errors {event.errors}  ", style="magenta")
    text.append(f"F1 {event.f1:.4f}", style="bold")
    text.append(f"  P {event.precision:.4f}  R {event.recall:.4f}")
    return text


HEADER_LINES = 3
"""The most lines a finished run's header takes in the Results tab (80×24 keeps 12 rows)."""
ENGINE_WIDTH = 32
"""The longest engine label the header shows; the full spec is the header's tooltip."""


def short_engine(spec: str, width: int = ENGINE_WIDTH) -> str:
    """An engine as the header names it: a profile name as it is, a ``type:path`` spec by its
    file name (``embedded:/home/me/bot/x.nlu.yml`` -> ``embedded:x.nlu.yml``), and anything
    still longer than ``width`` cut in the middle with "…"."""
    kind, sep, rest = spec.partition(":")
    if sep and "://" not in spec and ("/" in rest or "\\" in rest):
        spec = f"{kind}:{rest.replace(chr(92), '/').rstrip('/').rsplit('/', 1)[-1]}"
    if len(spec) <= width:
        return spec
    keep = max(width - 1, 2)
    return spec[: keep - keep // 2] + "…" + spec[len(spec) - keep // 2 :]


def _chunks(record: RunRecord, summary: Summary, stability: StabilityReport | None) -> list[Text]:
    """The pieces of a finished run's header, most wanted first."""
    from nlu_tui.evaluation.text import stored_title

    head = status_text(record.status)
    head.append("  ")
    head.append(inert(record.suite_name, newlines=False), style="bold")
    parts = [
        head,
        Text(inert(f"{short_engine(record.engine_name)} ({record.stage})", newlines=False)),
        Text(f"run {record.id}"),
    ]
    if record.reason:
        style = "red" if record.status is RunStatus.FAILED else "dark_orange"
        reason = Text("Reason: ", style="bold " + style)
        reason.append(inert(record.reason.splitlines()[0][:200], newlines=False), style=style)
        parts.append(reason)
    evaluation = stored_title(record)
    if evaluation is not None:
        parts.append(Text(inert(evaluation, newlines=False), style="bold"))
    f1 = Text("F1 ", style="bold")
    f1.append(num(summary.f1), style="bold")
    parts += [
        f1,
        Text(f"P {num(summary.precision)}  R {num(summary.recall)}"),
    ]
    if stability is not None:  # a repeated run: how stable it was comes before the rest
        from nlu_tui.scoring.stability import headline

        line = Text("Stability ", style="bold")
        line.append(
            headline(stability).removeprefix("stability "),
            style="bold yellow" if stability.overall.flaky else "",
        )
        parts.append(line)
    parts += [
        Text(
            f"Cases {summary.cases}/{record.total}  TP {summary.tp}  TN {summary.tn}  "
            f"FP {summary.fp}  FN {summary.fn}  Errors {summary.errors}"
        ),
    ]
    parts += [
        Text(f"Intent {pct(summary.intent_success)}  Entity {pct(summary.entity_success)}"),
        Text(f"Duration {duration(record.duration_s)}"),
        Text(
            f"Latency ms p50 {ms(summary.latency_p50)} p90 {ms(summary.latency_p90)} "
            f"max {ms(summary.latency_max)}"
        ),
    ]
    if record.note:
        note = Text("Note: ", style="bold")
        note.append(inert(record.note.splitlines()[0][:200], newlines=False))
        parts.append(note)
    return parts


def compact_summary_text(
    record: RunRecord,
    summary: Summary,
    stability: StabilityReport | None = None,
    width: int = 80,
    lines: int = HEADER_LINES,
) -> Text:
    """A finished run's header in at most ``lines`` lines of ``width`` cells, none wrapping.

    The pieces (status and suite, engine by profile name or file name, run id, reason, F1,
    precision and recall, counts, stability, success rates, duration, latency, note) are laid
    out in that order, two spaces apart; a piece that does not fit on the last line is left
    out (a reason or note is cut with "…" instead). :func:`summary_text` has everything."""
    if record.kind == "nlu-comparison":
        return summary_text(record, summary, stability)
    width = max(width, 20)
    rows: list[Text] = [Text()]
    for part in _chunks(record, summary, stability):
        row = rows[-1]
        gap = 2 if row.cell_len else 0
        if row.cell_len + gap + part.cell_len <= width:
            if gap:
                row.append("  ")
            row.append_text(part)
            continue
        cuttable = part.plain.startswith(("Reason: ", "Note: "))
        if len(rows) < lines and (cuttable or part.cell_len <= width):
            if part.cell_len > width:
                part.truncate(width - 1)
                part.append("…")
            rows.append(part.copy())
            continue
        room = width - row.cell_len - gap
        if cuttable and room >= 12:
            part.truncate(room - 1)
            part.append("…")
            row.append("  ")
            row.append_text(part)
    out = Text("\n").join(rows)
    out.no_wrap = True
    out.overflow = "ellipsis"
    return out
