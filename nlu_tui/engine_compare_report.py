"""A comparison of engines as text, JSON, CSV or one HTML page (``nlu-tui show CMP -f ...``).

Every figure comes from :class:`nlu_tui.engine_compare.EngineComparison`; this module only lays
it out. Text from a suite or an engine is made inert here for the plain-text table and the HTML
page (:mod:`nlu_tui.textsafe`); JSON and CSV keep the data exact (the CLI escapes them on the
way to a terminal).
"""

from __future__ import annotations

import csv
import io
import json

from nlu_tui.engine_compare import EngineColumn, EngineComparison
from nlu_tui.textsafe import inert
from nlu_tui.textsafe import inert_html as h

FORMATS = ("summary", "json", "csv", "html")
"""What ``show COMPARISON -f`` writes."""

MAX_LISTED = 50
"""The plain-text table lists this many disagreements; JSON, CSV and HTML list them all."""


def _f(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _cost(column: EngineColumn) -> str:
    return "-" if column.cost is None else f"{column.cost:.4f}"


def metric_rows(comparison: EngineComparison) -> list[tuple[str, list[str]]]:
    """The table's head rows: each a name and one cell per engine (every face shows these)."""
    cols = comparison.engines
    return [
        ("run", [c.run_id for c in cols]),
        ("status", [c.status for c in cols]),
        ("cases", [str(c.cases) for c in cols]),
        ("errors", [str(c.errors) for c in cols]),
        ("precision", [_f(c.precision) for c in cols]),
        ("recall", [_f(c.recall) for c in cols]),
        ("F1", [_f(c.f1) for c in cols]),
        ("latency p50 ms", [_ms(c.latency_p50) for c in cols]),
        ("latency p95 ms", [_ms(c.latency_p95) for c in cols]),
        ("cost", [_cost(c) for c in cols]),
    ]


def intent_rows(comparison: EngineComparison) -> list[tuple[str, list[str]]]:
    """Per intent, each engine's F1 (``-``: the intent is not in that engine's run)."""
    return [(intent, [_f(v) for v in comparison.f1_of(intent)]) for intent in comparison.intents]


def title(comparison: EngineComparison) -> str:
    name = f"comparison {comparison.id}" if comparison.id else "comparison"
    return f"{name}: {comparison.suite_name} on {len(comparison.engines)} engines"


def disagreement_line(comparison: EngineComparison) -> str:
    return f"engines disagree on {len(comparison.disagreements)} of {comparison.compared} cases"


def render_text(comparison: EngineComparison, *, listed: int = MAX_LISTED) -> str:
    """The plain-text table ``nlu-tui run --engine a --engine b`` and ``show CMP`` print: the
    engines numbered [1], [2]... (named once above the table), a column each."""
    keys = [f"[{i}]" for i in range(1, len(comparison.engines) + 1)]
    rows = [
        ("", keys),
        *metric_rows(comparison),
        ("intent F1", ["" for _ in keys]),
        *[(f"  {name}", cells) for name, cells in intent_rows(comparison)],
    ]
    rows = [
        (inert(name, newlines=False), [inert(c, newlines=False) for c in cells])
        for name, cells in rows
    ]
    first = max(len(name) for name, _ in rows)
    widths = [max(len(cells[i]) for _n, cells in rows) for i in range(len(keys))]
    lines = [inert(title(comparison), newlines=False)]
    lines += [
        inert(f"  {key} {column.label}", newlines=False)
        for key, column in zip(keys, comparison.engines, strict=True)
    ]
    for name, cells in rows:
        line = name.ljust(first) + "".join(
            "  " + cell.rjust(widths[i]) for i, cell in enumerate(cells)
        )
        lines.append(line.rstrip())
    if comparison.missing_runs:
        lines.append("deleted runs: " + ", ".join(comparison.missing_runs))
    lines.append(disagreement_line(comparison))
    for d in comparison.disagreements[:listed]:
        answers = "  ".join(f"{key} {answer}" for key, answer in zip(keys, d.answers, strict=True))
        expected = "|".join(d.expected) or "-"
        lines.append(
            inert(f"  {d.case_id}  {d.utterance!r}  expected {expected}  {answers}", newlines=False)
        )
    if len(comparison.disagreements) > listed:
        lines.append(
            f"  ... {len(comparison.disagreements) - listed} more (show the comparison "
            "with -f json, csv or html for all)"
        )
    return "\n".join(lines) + "\n"


def render_json(comparison: EngineComparison) -> str:
    return json.dumps(comparison.as_dict(), ensure_ascii=False, indent=2) + "\n"


def render_csv(comparison: EngineComparison) -> str:
    """One table: ``section,name,utterance,expected`` then one column per engine. Sections:
    ``metric`` (the head rows), ``intent_f1`` (name = intent), ``disagreement`` (name = case
    id, the cells the engines' answers)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["section", "name", "utterance", "expected", *(c.label for c in comparison.engines)]
    )
    for name, cells in metric_rows(comparison):
        writer.writerow(["metric", name, "", "", *cells])
    for name, cells in intent_rows(comparison):
        writer.writerow(["intent_f1", name, "", "", *cells])
    for d in comparison.disagreements:
        writer.writerow(["disagreement", d.case_id, d.utterance, "|".join(d.expected), *d.answers])
    return out.getvalue()


_STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:80em;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0} td,th{border:1px solid #ddd;padding:.25em .6em}
th{background:#f3f3f3;text-align:left} td.n{text-align:right;font-variant-numeric:tabular-nums}
td.best{background:#e6f4ea} .muted{color:#777}
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'"


def _table(head: list[str], rows: list[list[str]], numeric_from: int) -> str:
    header = "".join(f"<th>{h(x)}</th>" for x in head)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{h(cell)}</td>' if i >= numeric_from else f"<td>{h(cell)}</td>"
            for i, cell in enumerate(row)
        )
        + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{header}</tr></thead><tbody>{body}</tbody></table>"


def render_html(comparison: EngineComparison) -> str:
    """One self-contained page (no script, nothing fetched): the matrix and the disagreements."""
    labels = [c.label for c in comparison.engines]
    head = _table(["", *labels], [[n, *c] for n, c in metric_rows(comparison)], 1)
    intents = _table(["intent", *labels], [[n, *c] for n, c in intent_rows(comparison)], 1)
    disagreements = _table(
        ["case", "utterance", "expected", *labels],
        [
            [d.case_id, d.utterance, "|".join(d.expected), *d.answers]
            for d in comparison.disagreements
        ],
        99,
    )
    missing = (
        f"<p>Deleted runs: {h(', '.join(comparison.missing_runs))}</p>"
        if comparison.missing_runs
        else ""
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        f"<title>{h(title(comparison))}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{h(title(comparison))}</h1>{head}{missing}"
        f"<h2>F1 per intent</h2>{intents}"
        f"<h2>Disagreements</h2><p>{h(disagreement_line(comparison))}</p>{disagreements}"
        '<p class="muted">Written by nlu-tui. F1 per intent as scikit-learn\'s classification '
        "report; latency percentiles by nearest rank, answers from the answer cache left out; "
        "cost = the profile's price_per_request times the requests sent.</p>"
        "</body></html>\n"
    )


def render(fmt: str, comparison: EngineComparison) -> str:
    if fmt == "json":
        return render_json(comparison)
    if fmt == "csv":
        return render_csv(comparison)
    if fmt == "html":
        return render_html(comparison)
    return render_text(comparison)
