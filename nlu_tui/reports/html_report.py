"""A scored run as one self-contained HTML page, for people who do not open a terminal.

Everything is inside the file: the styles, a few lines of script that sort the per-intent table
when a header is clicked, and the charts as inline SVG. It loads nothing (its Content Security
Policy forbids any fetch), so it opens from a mail attachment or a CI artefact as it is.

Every text that came from a suite, an engine or a note goes through
:func:`nlu_tui.textsafe.inert_html`; numbers come from the scoring core (the same
:class:`~nlu_tui.reports.prepared.PreparedRun` as every other export).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from nlu_tui.fileio import atomic_write_text
from nlu_tui.model import ResultType
from nlu_tui.reports.common import ResultRow, RunMeta, iso_time
from nlu_tui.reports.prepared import PreparedRun, prepare_run
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions
from nlu_tui.scoring.intent_report import NO_INTENT_LABEL, shown_label
from nlu_tui.textsafe import inert_html as h

FAILED_KINDS = (ResultType.FP, ResultType.FN, ResultType.ERROR)
MAX_CONFUSION_LABELS = 40
"""A confusion matrix with more labels than this is listed as its most frequent errors only."""
MAX_CONFUSION_PAIRS = 50

_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:72em;color:#222;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em} h2{margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0} td,th{border:1px solid #ddd;padding:.25em .6em}
th{background:#f3f3f3;text-align:left} td.n{text-align:right;font-variant-numeric:tabular-nums}
th.sortable{cursor:pointer} th.sortable::after{content:" \\2195";color:#999}
th[aria-sort=ascending]::after{content:" \\25B2";color:#222}
th[aria-sort=descending]::after{content:" \\25BC";color:#222}
.meta td:first-child{font-weight:600} .FP,.FN{color:#b00} .ERROR{color:#a60}
.cm td{min-width:1.6em;text-align:right} .cm td.diag{background:#e6f4ea} .cm td.off{background:#fdecea}
.muted{color:#777} .wide{overflow-x:auto} svg{max-width:100%;height:auto}
.passed{color:#1a7f37} .failed{color:#b00} .error{color:#a60}
pre{background:#f6f8fa;padding:.5em;overflow-x:auto;white-space:pre-wrap}
details{margin:.4em 0} summary{cursor:pointer} td.lines{white-space:pre-line}
"""

_SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('th.sortable').forEach(function(th, col){
    th.addEventListener('click', function(){
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('th').forEach(function(o){ o.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){
        var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
        var nx = parseFloat(x), ny = parseFloat(y), r;
        if (!isNaN(nx) && !isNaN(ny)) { r = nx - ny; } else { r = x < y ? -1 : (x > y ? 1 : 0); }
        return asc ? r : -r;
      });
      rows.forEach(function(row){ body.appendChild(row); });
    });
  });
});
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.2f} %"


def _num(value: float | None, digits: int = 4) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f} ms"


def failed_rows_html(prepared: PreparedRun, meta: RunMeta, lo: int, hi: int) -> str:
    """The rows of the failed-cases table for rows ``lo``..``hi`` (FP, FN and ERROR cases)."""
    out: list[str] = []
    for case, prediction, result in prepared.rows[lo:hi]:
        kind = result.result
        if kind not in FAILED_KINDS:
            continue
        expected = ", ".join(i.name for i in case.intents) or NO_INTENT_LABEL
        matched = shown_label(result.matched_intent, prepared.options)
        wrong_entities = "; ".join(
            f"{e.name}: expected {e.expected!s}, got {e.matched!s}"
            for e in result.entities
            if not e.ok
        )
        answer = result.error or ""
        if not answer and prediction is not None and prediction.ranking:
            answer = ", ".join(f"{s.name} {_num(s.confidence, 3)}" for s in prediction.ranking[:3])
        out.append(
            f'<tr><td>{h(result.case_id)}</td><td class="{kind.value}">{kind.value}</td>'
            f"<td>{h(case.utterance)}</td><td>{h(expected)}</td><td>{h(matched)}</td>"
            f'<td class="n">{_num(result.confidence, 3)}</td><td>{h(wrong_entities)}</td>'
            f"<td>{h(answer)}</td></tr>"
        )
    return "\n".join(out)


def _summary(prepared: PreparedRun) -> str:
    s = prepared.summary
    cells = [
        ("cases", str(s.cases)),
        ("errors", str(s.errors)),
        ("TP / TN / FP / FN", f"{s.tp} / {s.tn} / {s.fp} / {s.fn}"),
        ("precision", _num(s.precision)),
        ("recall", _num(s.recall)),
        ("F1", _num(s.f1)),
        ("intent success", _pct(s.intent_success)),
        ("entity success", _pct(s.entity_success)),
        *([("raw checks passed", f"{s.raw_checks_ok} / {s.raw_checks}")] if s.raw_checks else []),
        (
            "latency p50 / p90 / p99",
            f"{_ms(s.latency_p50)} / {_ms(s.latency_p90)} / {_ms(s.latency_p99)}",
        ),
    ]
    rows = "".join(f'<tr><th>{k}</th><td class="n">{v}</td></tr>' for k, v in cells)
    return f'<h2 id="summary">Summary</h2><table class="summary">{rows}</table>'


def _meta_table(meta: RunMeta) -> str:
    return meta_table(
        [
            ("run", meta.id),
            ("suite", meta.suite),
            ("engine", meta.engine),
            ("version", meta.version or ""),
            ("status", meta.status or ""),
            ("reason", meta.reason or ""),
            ("started", iso_time(meta.started_at) or ""),
            ("finished", iso_time(meta.finished_at) or ""),
            ("note", meta.note),
            *(("warning", w) for w in meta.warnings),
        ]
    )


def _intent_table(prepared: PreparedRun) -> str:
    report = prepared.report
    head = "".join(
        f'<th class="sortable">{name}</th>'
        for name in ("intent", "precision", "recall", "F1", "support")
    )
    body: list[str] = []
    for label, row in report.items():
        if not isinstance(row, dict) or label in (
            "accuracy",
            "macro avg",
            "weighted avg",
            "micro avg",
        ):
            continue
        values = (row.get("precision"), row.get("recall"), row.get("f1-score"))
        support = int(row.get("support", 0))
        cells = "".join(f'<td class="n" data-v="{v:.6f}">{v:.4f}</td>' for v in values)
        name = shown_label(label, prepared.options)
        body.append(
            f'<tr><td data-v="{h(name)}">{h(name)}</td>{cells}'
            f'<td class="n" data-v="{support}">{support}</td></tr>'
        )
    averages: list[str] = []
    for label in ("micro avg", "macro avg", "weighted avg"):
        row = report.get(label)
        if isinstance(row, dict):
            cells = "".join(
                f'<td class="n">{row.get(k, 0.0):.4f}</td>'
                for k in ("precision", "recall", "f1-score")
            )
            averages.append(
                f'<tr><th>{label}</th>{cells}<td class="n">{int(row.get("support", 0))}</td></tr>'
            )
    accuracy = report.get("accuracy")
    if isinstance(accuracy, float):
        averages.insert(
            0, f'<tr><th>accuracy</th><td class="n" colspan="4">{accuracy:.4f}</td></tr>'
        )
    return (
        '<h2 id="intents">Per intent</h2>'
        '<p class="muted">scikit-learn\'s classification_report of the scored cases; '
        "click a header to sort.</p>"
        f'<table class="sortable intents"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody><tfoot>{''.join(averages)}</tfoot></table>"
    )


MAX_RAW_CHECK_ROWS = 500
"""The raw-checks table lists at most this many failed checks (the JSON report has them all)."""


def _raw_checks(prepared: PreparedRun) -> str:
    """The ``raw:`` checks: how many held, and each one that failed with what its path found."""
    s = prepared.summary
    if not s.raw_checks:
        return ""
    rows: list[str] = []
    for case, _prediction, result in prepared.rows:
        for check in result.raw_checks:
            if check.ok or len(rows) >= MAX_RAW_CHECK_ROWS:
                continue
            rows.append(
                f"<tr><td>{h(result.case_id)}</td><td>{h(case.utterance)}</td>"
                f"<td>{h(check.check)}</td><td>{h(check.actual or '')}</td>"
                f"<td>{h(check.reason or '')}</td></tr>"
            )
    table = (
        "<table><thead><tr><th>case</th><th>utterance</th><th>check</th><th>found</th>"
        f"<th>why</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        if rows
        else ""
    )
    return (
        f'<h2 id="raw-checks">Raw checks</h2><p>{s.raw_checks_ok} of {s.raw_checks} '
        f"checks on the engine's raw answers held.</p>{table}"
    )


def _confusion(prepared: PreparedRun) -> str:
    from nlu_tui.scoring.confusion import confusion_table

    table = confusion_table(prepared.rows, prepared.options, labels=prepared.labels)
    labels = table.labels
    shown = {label: shown_label(label, prepared.options) for label in labels}
    parts = ['<h2 id="confusion">Confusion</h2>']
    errors = table.errors()
    if not errors:
        parts.append("<p>No confusion: every scored case matched its expected intent.</p>")
    if labels and len(labels) <= MAX_CONFUSION_LABELS:
        head = "".join(f"<th>{h(shown[label])}</th>" for label in labels)
        rows: list[str] = []
        for expected in labels:
            cells: list[str] = []
            for matched in labels:
                n = table.count(expected, matched)
                cls = "diag" if expected == matched and n else ("off" if n else "")
                cells.append(f'<td class="{cls}">{n or ""}</td>')
            rows.append(f"<tr><th>{h(shown[expected])}</th>{''.join(cells)}</tr>")
        parts.append(
            '<p class="muted">Rows: expected intent; columns: matched intent.</p>'
            f'<div class="wide"><table class="cm"><thead><tr><th></th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>"
        )
    if errors:
        items = "".join(
            f"<tr><td>{h(shown_label(c.expected, prepared.options))}</td>"
            f"<td>{h(shown_label(c.matched, prepared.options))}</td>"
            f'<td class="n">{c.count}</td></tr>'
            for c in errors[:MAX_CONFUSION_PAIRS]
        )
        more = len(errors) - MAX_CONFUSION_PAIRS
        tail = f'<p class="muted">and {more} more pairs</p>' if more > 0 else ""
        parts.append(
            "<h3>Most frequent confusions</h3><table><thead><tr><th>expected</th>"
            f"<th>matched</th><th>cases</th></tr></thead><tbody>{items}</tbody></table>{tail}"
        )
    return "".join(parts)


def histogram_svg(prepared: PreparedRun) -> str:
    """The confidence histogram (hits above the axis, misses below), as inline SVG."""
    from nlu_tui.scoring.histogram import confidence_histogram

    hist = confidence_histogram(prepared.results)
    rows = hist.rows()
    width, height, left, top, bottom = 640, 300, 50, 30, 40
    plot_w, half = width - left - 20, (height - top - bottom) / 2
    peak = max([1, *(max(hits, misses) for _lo, _hi, hits, misses in rows)])
    bar = plot_w / len(rows)
    axis = top + half
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" role="img" '
        'aria-label="confidence histogram">',
        f'<text x="{left}" y="16" font-size="13">Confidence: hits (TP, TN) above, misses (FP, FN) below</text>',
        f'<line x1="{left}" y1="{axis}" x2="{left + plot_w}" y2="{axis}" stroke="#333"/>',
    ]
    for i, (lo, _hi, hits, misses) in enumerate(rows):
        x = left + i * bar
        up = half * hits / peak
        down = half * misses / peak
        if hits:
            out.append(
                f'<rect x="{x + 1:.1f}" y="{axis - up:.1f}" width="{bar - 2:.1f}" '
                f'height="{up:.1f}" fill="#2ca02c"><title>{lo:.2f}: {hits} hits</title></rect>'
            )
        if misses:
            out.append(
                f'<rect x="{x + 1:.1f}" y="{axis:.1f}" width="{bar - 2:.1f}" '
                f'height="{down:.1f}" fill="#d62728"><title>{lo:.2f}: {misses} misses</title></rect>'
            )
        if i % 4 == 0:
            out.append(f'<text x="{x:.1f}" y="{height - bottom + 25}">{lo:.1f}</text>')
    out.append(f'<text x="{left + plot_w - 10}" y="{height - bottom + 25}">1.0</text>')
    out.append(
        f'<text x="4" y="{top + 10}">{peak}</text><text x="4" y="{height - bottom}">{peak}</text>'
    )
    out.append("</svg>")
    extra = []
    if hist.above_one_hits or hist.above_one_misses:
        extra.append(
            f"{hist.above_one_hits + hist.above_one_misses} cases scored above 1 (engine points) "
            "are not drawn"
        )
    if hist.no_confidence_hits or hist.no_confidence_misses:
        extra.append(
            f"{hist.no_confidence_hits + hist.no_confidence_misses} cases have no confidence"
        )
    note = f'<p class="muted">{"; ".join(extra)}.</p>' if extra else ""
    return "\n".join(out) + note


def _thresholds(prepared: PreparedRun, meta: RunMeta) -> str:
    from nlu_tui.reports.threshold_svg import thresholds_svg
    from nlu_tui.scoring.thresholds import analyze

    analysis = analyze(prepared.rows, options=prepared.options)
    if analysis.candidates == 0:
        return (
            '<h2 id="thresholds">Threshold</h2><p>No case has a confidence between 0 and 1 to '
            "sweep a threshold over.</p>"
        )
    best = analysis.best
    said = (
        f"Best F1 {best.f1:.4f} at threshold {best.threshold:.3g}."
        if best is not None and best.threshold is not None
        else ""
    )
    svg = thresholds_svg(meta.id, analysis)
    svg = svg[svg.index("<svg") :]  # inline: no XML declaration inside HTML
    return f'<h2 id="thresholds">Threshold</h2><p>{said}</p>{svg}'


def render_html(
    meta: RunMeta,
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    prepared: PreparedRun | None = None,
) -> str:
    """The whole page for a scored run."""
    if prepared is None:
        prepared = prepare_run(rows, options)
    return html_page(prepared, meta, [failed_rows_html(prepared, meta, 0, len(prepared.rows))])


def html_page(prepared: PreparedRun, meta: RunMeta, parts: Sequence[str]) -> str:
    """The page from the failed-case rows rendered in consecutive ranges (``parts``)."""
    failed = "\n".join(p for p in parts if p)
    s = prepared.summary
    n_failed = s.fp + s.fn + s.errors
    failed_section = '<h2 id="failed">Failed cases</h2>' + (
        f"<p>{n_failed} of {s.cases} cases failed (FP, FN or ERROR).</p>"
        "<table><thead><tr><th>case</th><th>result</th><th>utterance</th><th>expected</th>"
        "<th>matched</th><th>confidence</th><th>wrong entities</th><th>answer / error</th>"
        f"</tr></thead><tbody>{failed}</tbody></table>"
        if failed
        else "<p>No case failed.</p>"
    )
    title = f"nlu-tui run {meta.id}: {meta.suite}"
    return html_document(
        title,
        f"<h1>Run {h(meta.id)}</h1>{_meta_table(meta)}"
        f"{_summary(prepared)}{_intent_table(prepared)}{_confusion(prepared)}"
        f'<h2 id="confidence">Confidence</h2>{histogram_svg(prepared)}'
        f"{_thresholds(prepared, meta)}{_raw_checks(prepared)}{failed_section}"
        '<p class="muted">Written by nlu-tui. Kore.ai Batch Testing semantics '
        "(TP/TN/FP/FN per case); the per-intent table follows scikit-learn.</p>",
    )


def html_document(title: str, body: str) -> str:
    """One self-contained page: ``body`` (HTML whose untrusted text is already escaped) with
    the report's styles, its sorting script (for ``table.sortable``) and a Content Security
    Policy that lets it load nothing. ``title`` is escaped here."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{h(title)}</title><style>{_STYLE}</style></head><body>"
        f"{body}<script>{_SCRIPT}</script></body></html>\n"
    )


def meta_table(rows: Sequence[tuple[str, str]]) -> str:
    """A run's facts (label, untrusted value) as the page's head table; empty values left out."""
    cells = "".join(f"<tr><td>{h(k)}</td><td>{h(v)}</td></tr>" for k, v in rows if v)
    return f'<table class="meta">{cells}</table>'


def write_html_parts(
    path: Path, prepared: PreparedRun, meta: RunMeta, parts: Sequence[str]
) -> list[Path]:
    """Write the page from :func:`failed_rows_html` parts, atomically."""
    atomic_write_text(Path(path), html_page(prepared, meta, parts))
    return [Path(path)]
