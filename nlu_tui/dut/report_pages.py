"""A dialogue understanding test run as a page people open: ``show RUN -f html`` and
``-f markdown``.

The figures are the run's stored report (Rasa Pro's ``rasa test du`` report, computed once by
:mod:`nlu_tui.dut.result` when the run ended): accuracy, command F1, the metrics per command,
latency, each test case's outcome and every failed step with its conversation, the expected
and predicted commands. Text from the test files and the engine goes through
:func:`nlu_tui.textsafe.inert_html` or :func:`~nlu_tui.textsafe.inert_markdown`.
"""

from __future__ import annotations

from typing import Any

from nlu_tui.reports.html_report import html_document, meta_table
from nlu_tui.reports.item_diff import ItemDiff, item_diff_markdown
from nlu_tui.reports.item_pages import markdown_heading, markdown_listed, run_facts
from nlu_tui.store.records import RunRecord
from nlu_tui.textsafe import inert_html as h
from nlu_tui.textsafe import inert_markdown as md

LISTED = 20


def _f(value: Any, digits: int = 4) -> str:
    return f"{value:.{digits}f}" if isinstance(value, int | float) else "–"


def _pct(value: Any) -> str:
    return f"{value:.2%}" if isinstance(value, int | float) else "–"


def _facts(run: RunRecord) -> list[tuple[str, str]]:
    return run_facts(run, "dialogue understanding tests")


def dut_html(run: RunRecord) -> str:
    """The page of a DUT run (a run that stored no report yet says so)."""
    report = run.summary
    parts = [f"<h1>Run {h(run.id)}</h1>", meta_table(_facts(run))]
    if "command_metrics" not in report:
        parts.append("<p>No figures stored: the run ended before any test case finished.</p>")
        return html_document(f"nlu-tui run {run.id}: {run.suite_name}", "".join(parts))
    accuracy = report.get("accuracy") or {}
    f1 = report.get("f1_score") or {}
    rows = [
        ("test cases passed", str(report.get("number_of_passed_tests", 0))),
        ("test cases failed", str(report.get("number_of_failed_tests", 0))),
        ("test case accuracy", _pct(accuracy.get("test_cases"))),
        ("user utterances passed", str(report.get("number_of_passed_user_utterances", 0))),
        ("user utterances failed", str(report.get("number_of_failed_user_utterances", 0))),
        ("user utterance accuracy", _pct(accuracy.get("user_utterances"))),
        ("command F1 macro", _f(f1.get("macro"))),
        ("command F1 micro", _f(f1.get("micro"))),
        ("command F1 weighted", _f(f1.get("weighted_average"))),
    ]
    cells = "".join(f'<tr><th>{k}</th><td class="n">{v}</td></tr>' for k, v in rows)
    parts.append(f'<h2 id="summary">Summary</h2><table class="summary">{cells}</table>')
    parts.append(_commands(report.get("command_metrics") or {}))
    parts.append(_latency(report.get("latency") or {}))
    parts.append(_tests(report))
    parts.append(_failed_steps(report.get("failed_test_steps") or []))
    parts.append(
        '<p class="muted">Written by nlu-tui. Figures as Rasa Pro\'s <code>rasa test du</code> '
        "reports them.</p>"
    )
    return html_document(f"nlu-tui run {run.id}: {run.suite_name}", "".join(parts))


def _commands(metrics: dict[str, dict[str, Any]]) -> str:
    names = ("command", "total", "TP", "FP", "FN", "precision", "recall", "F1")
    head = "".join(f'<th class="sortable">{n}</th>' for n in names)
    body: list[str] = []
    for name, m in metrics.items():
        counts = "".join(
            f'<td class="n" data-v="{int(m.get(k, 0))}">{int(m.get(k, 0))}</td>'
            for k in ("total_count", "tp", "fp", "fn")
        )
        ratios = "".join(
            f'<td class="n" data-v="{_f(m.get(k), 6)}">{_f(m.get(k))}</td>'
            for k in ("precision", "recall", "f1_score")
        )
        body.append(f'<tr><td data-v="{h(name)}">{h(name)}</td>{counts}{ratios}</tr>')
    return (
        '<h2 id="commands">Command metrics</h2><p class="muted">Click a header to sort.</p>'
        f'<table class="sortable commands"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _latency(latency: dict[str, dict[str, Any]]) -> str:
    if not latency:
        return ""
    rows = "".join(
        f"<tr><td>{h(component)}</td>"
        + "".join(f'<td class="n">{_f(values.get(p), 4)}</td>' for p in ("p50", "p90", "p99"))
        + "</tr>"
        for component, values in latency.items()
    )
    return (
        '<h2 id="latency">Latency (seconds)</h2><table><thead><tr><th>component</th>'
        f"<th>p50</th><th>p90</th><th>p99</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _tests(report: dict[str, Any]) -> str:
    rows = [("passed", name) for name in report.get("names_of_passed_tests") or []]
    rows += [("failed", name) for name in report.get("names_of_failed_tests") or []]
    head = "".join(f'<th class="sortable">{n}</th>' for n in ("test case", "outcome"))
    body = "".join(
        f'<tr><td data-v="{h(name)}">{h(name)}</td>'
        f'<td class="{outcome}" data-v="{outcome}">{outcome}</td></tr>'
        for outcome, name in rows
    )
    return (
        '<h2 id="results">Test cases</h2>'
        f'<table class="sortable results"><thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def _failed_steps(steps: list[dict[str, Any]]) -> str:
    if not steps:
        return '<h2 id="failed">Failed steps</h2><p>No step failed.</p>'
    out = [f'<h2 id="failed">Failed steps</h2><p>{len(steps)} failed steps.</p>']
    for step in steps:
        out.append(
            f"<h3>{h(step.get('test_case', ''))} "
            f'<span class="muted">{h(step.get("file", ""))}:{h(step.get("error_line", ""))}</span>'
            "</h3>"
            f"<p>Failure at the user message “{h(step.get('failed_user_utterance', ''))}”</p>"
        )
        expected = "\n".join(str(c) for c in step.get("expected_commands") or [])
        predicted = "\n".join(
            f"{p.get('component', '')}: {c}"
            for p in step.get("predicted_commands") or []
            for c in p.get("commands") or []
        )
        out.append(
            "<table><thead><tr><th>expected commands</th><th>predicted commands</th></tr>"
            f"</thead><tbody><tr><td><pre>{h(expected)}</pre></td>"
            f"<td><pre>{h(predicted or '(none)')}</pre></td></tr></tbody></table>"
        )
        conversation = "\n".join(str(line) for line in step.get("conversation") or [])
        out.append(
            "<details open><summary>The conversation up to the failure</summary>"
            f"<pre>{h(conversation)}</pre></details>"
        )
        for key, label in (
            ("error", "Error"),
            ("not_evaluated", "Not evaluated"),
            ("history_note", "History"),
        ):
            if step.get(key):
                out.append(f"<p>{label}: {h(step[key])}</p>")
    return "".join(out)


def dut_markdown(
    run: RunRecord, *, diff: ItemDiff | None = None, baseline: str | None = None
) -> str:
    """The pull-request summary of a DUT run; with ``diff`` (this run's test cases against
    ``baseline``'s, :func:`nlu_tui.reports.item_diff.diff_items`), what broke and was fixed."""
    report = run.summary
    lines = markdown_heading(run, "Dialogue understanding tests")
    if "command_metrics" not in report:
        lines += ["No figures stored: the run ended before any test case.", ""]
        if diff is not None:
            lines += item_diff_markdown(diff, baseline)
        return "\n".join(lines)
    accuracy = report.get("accuracy") or {}
    f1 = report.get("f1_score") or {}
    lines += [
        "| passed | failed | test case accuracy | utterance accuracy | F1 macro | F1 micro "
        "| F1 weighted |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        f"| {report.get('number_of_passed_tests', 0)} | {report.get('number_of_failed_tests', 0)} "
        f"| {_pct(accuracy.get('test_cases'))} | {_pct(accuracy.get('user_utterances'))} "
        f"| {_f(f1.get('macro'))} | {_f(f1.get('micro'))} | {_f(f1.get('weighted_average'))} |",
        "",
    ]
    if run.note:
        lines += [f"> {md(run.note)}", ""]
    weak = sorted(
        (m.get("f1_score", 0.0), name)
        for name, m in (report.get("command_metrics") or {}).items()
        if m.get("f1_score", 0.0) < 1.0
    )
    if weak:
        lines += ["**Weakest commands**", "", "| command | F1 | total |", "|---|---:|---:|"]
        metrics = report["command_metrics"]
        for score, name in weak[:5]:
            lines.append(f"| {md(name)} | {_f(score)} | {metrics[name].get('total_count', 0)} |")
        lines.append("")
    steps = [
        [md(step.get("test_case", "")), md(step.get("failed_user_utterance", ""))]
        for step in report.get("failed_test_steps") or []
    ]
    lines += markdown_listed("Failed steps", ("test case", "user message"), steps, LISTED)
    if diff is not None:
        lines += item_diff_markdown(diff, baseline)
    return "\n".join(lines)
