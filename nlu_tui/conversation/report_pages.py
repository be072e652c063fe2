"""A conversation run (E2E or stories) as a page people open: ``show RUN -f html`` and
``-f markdown``.

The HTML page is self-contained like a batch-test run's (:func:`nlu_tui.reports.html_report.
html_document`): the run's facts, the summary, every test case with its outcome (a table sorted
by clicking a header), and each failed test case with the difference Rasa Pro prints, the
assertion that failed and the conversation as the bot answered it. The Markdown is the short
summary for a pull-request comment (with ``--diff-with``: what broke and was fixed).

The figures are the ones :mod:`nlu_tui.conversation.reports` computes for the console; every
text from a test file or an engine goes through :func:`nlu_tui.textsafe.inert_html` or
:func:`~nlu_tui.textsafe.inert_markdown`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlu_tui.conversation.reports import assertion_accuracy, story_figures
from nlu_tui.reports.html_report import html_document, meta_table
from nlu_tui.reports.item_diff import ItemDiff, item_diff_markdown
from nlu_tui.reports.item_pages import markdown_heading, markdown_listed, run_facts
from nlu_tui.store.records import RunRecord, StoredItem
from nlu_tui.textsafe import inert_html as h
from nlu_tui.textsafe import inert_markdown as md

LISTED = 20
"""At most this many test cases per list of the Markdown summary."""


def _facts(run: RunRecord) -> list[tuple[str, str]]:
    return run_facts(run, {"e2e": "E2E tests", "stories": "test stories"}.get(run.kind, run.kind))


def _counts(items: Sequence[StoredItem]) -> tuple[int, int, int]:
    passed = sum(1 for i in items if i.outcome == "passed")
    failed = sum(1 for i in items if i.outcome == "failed")
    errors = sum(1 for i in items if i.outcome == "error")
    return passed, failed, errors


def _where(item: StoredItem) -> str:
    d = item.data
    return f"{d.get('file', '')}:{d.get('line', '')}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f} ms"


# --- HTML -----------------------------------------------------------------------------------------


def conversation_html(run: RunRecord, items: Sequence[StoredItem]) -> str:
    """The page of an E2E or stories run."""
    passed, failed, errors = _counts(items)
    total = len(items)
    rows = [
        ("test cases", str(total)),
        ("passed", str(passed)),
        ("failed", str(failed)),
        ("errors", str(errors)),
    ]
    if run.kind == "stories":
        f = story_figures(items)
        rows += [
            ("conversation accuracy", f"{f.conversation_accuracy:.3f} ({f.correct} / {f.total})"),
            ("actions correct", f"{f.actions_correct} / {f.actions}"),
            ("action F1 (weighted)", f"{f.f1:.3f}"),
            ("action precision (weighted)", f"{f.precision:.3f}"),
            ("action accuracy", f"{f.accuracy:.3f}"),
        ]
    summary = "".join(f'<tr><th>{k}</th><td class="n">{h(v)}</td></tr>' for k, v in rows)
    parts = [
        f"<h1>Run {h(run.id)}</h1>",
        meta_table(_facts(run)),
        f'<h2 id="summary">Summary</h2><table class="summary">{summary}</table>',
    ]
    accuracy = assertion_accuracy(items)
    if accuracy:
        parts.append(_accuracy_table(accuracy))
    parts.append(_results_table(items))
    parts.append(_failures(run, items))
    parts.append(
        '<p class="muted">Written by nlu-tui. Outcomes and differences as Rasa Pro\'s '
        "<code>rasa test e2e</code> and Rasa's <code>rasa test core</code> report them.</p>"
    )
    return html_document(f"nlu-tui run {run.id}: {run.suite_name}", "".join(parts))


def _accuracy_table(rows: Sequence[dict[str, Any]]) -> str:
    names = ("assertion type", "accuracy", "passed", "failed", "not run")
    head = "".join(f"<th>{name}</th>" for name in names)
    body = "".join(
        f"<tr><td>{h(r['type'])}</td>"
        f'<td class="n">{float(r["accuracy"]):.2%}</td>'
        f'<td class="n">{int(r["passed"])}</td>'
        f'<td class="n">{int(r["failed"])}</td>'
        f'<td class="n">{int(r["not_run"])}</td></tr>'
        for r in rows
    )
    return (
        '<h2 id="assertions">Accuracy by assertion type</h2>'
        '<p class="muted">Accuracy as Rasa Pro counts it; passed, failed and not run as they '
        "happened.</p>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _results_table(items: Sequence[StoredItem]) -> str:
    head = "".join(
        f'<th class="sortable">{name}</th>'
        for name in ("#", "test case", "file:line", "outcome", "latency")
    )
    body: list[str] = []
    for n, item in enumerate(items, 1):
        d = item.data
        latency = item.latency_ms
        body.append(
            f'<tr><td class="n" data-v="{n}">{n}</td>'
            f'<td data-v="{h(d.get("name", ""))}">{h(d.get("name", ""))}</td>'
            f'<td data-v="{h(_where(item))}">{h(_where(item))}</td>'
            f'<td class="{h(item.outcome)}" data-v="{h(item.outcome)}">{h(item.outcome)}</td>'
            f'<td class="n" data-v="{latency if latency is not None else -1}">{_ms(latency)}</td>'
            "</tr>"
        )
    return (
        '<h2 id="results">Test cases</h2><p class="muted">Click a header to sort.</p>'
        f'<table class="sortable results"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _failures(run: RunRecord, items: Sequence[StoredItem]) -> str:
    bad = [i for i in items if i.outcome in ("failed", "error")]
    if not bad:
        return '<h2 id="failed">Failed test cases</h2><p>No test case failed.</p>'
    out = [f'<h2 id="failed">Failed test cases</h2><p>{len(bad)} of {len(items)} failed.</p>']
    for item in bad:
        d = item.data
        out.append(
            f'<h3><span class="{h(item.outcome)}">{h(item.outcome.upper())}</span> '
            f'{h(d.get("name", ""))} <span class="muted">{h(_where(item))}</span></h3>'
        )
        if d.get("error"):
            out.append(f"<p>Engine error: {h(d['error'])}</p>")
        if run.kind == "stories":
            out.append(_story_failure(d))
        else:
            out.append(_e2e_failure(d))
    return "".join(out)


def _e2e_failure(d: dict[str, Any]) -> str:
    out: list[str] = []
    if d.get("error_line") is not None:
        out.append(f"<p>Mismatch starting at line {h(d['error_line'])}:</p>")
    difference = [str(line).rstrip("\n") for line in d.get("difference") or []]
    if difference:
        out.append(f"<pre>{h(chr(10).join(difference))}</pre>")
    failure = d.get("assertion_failure")
    if isinstance(failure, dict):
        kind = (failure.get("assertion") or {}).get("type", "")
        out.append(
            f"<p>Assertion <code>{h(kind)}</code> failed: {h(failure.get('error_message', ''))}</p>"
        )
        transcript = failure.get("actual_events_transcript") or []
        if transcript:
            out.append(f"<pre>{h(chr(10).join(str(t) for t in transcript))}</pre>")
    turns = d.get("turns") or []
    if turns:
        out.append(
            "<details open><summary>The conversation as the bot answered</summary>"
            f"{_turns_table(turns)}</details>"
        )
    return "".join(out)


def _turns_table(turns: Sequence[dict[str, Any]]) -> str:
    rows: list[str] = []
    for turn in turns:
        user = turn.get("user")
        intent = turn.get("intent")
        confidence = turn.get("confidence")
        said = [
            _event_line(e)
            for e in turn.get("events") or []
            if e.get("kind") in ("bot", "action", "slot") and e.get("name") != "action_listen"
        ]
        understood = (
            f"{intent} {confidence:.2f}"
            if isinstance(confidence, int | float) and intent
            else (intent or "")
        )
        rows.append(
            f"<tr><td>{h(user if user is not None else '(start)')}</td><td>{h(understood)}</td>"
            f'<td class="lines">{h(chr(10).join(said))}</td></tr>'
        )
    return (
        "<table><thead><tr><th>user</th><th>understood</th><th>bot (actions, slots, answers)</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _event_line(event: dict[str, Any]) -> str:
    """One event the bot produced: an action, a slot set (with its value), an answer."""
    kind = event.get("kind")
    if kind == "slot":
        return f"slot: {event.get('name')} = {event.get('value')!r}"
    if kind == "bot" and event.get("text") is not None:
        return f"bot: {event.get('text')}"
    return f"{kind}: {event.get('name', '')}"


def _story_failure(d: dict[str, Any]) -> str:
    out: list[str] = []
    if d.get("first_failure"):
        where = d.get("first_failure_line") or d.get("line")
        out.append(f"<p>First wrong prediction (line {h(where)}): {h(d['first_failure'])}</p>")
    written = d.get("written") or []
    if written:
        lines = []
        for w in written:
            line = str(w.get("event", ""))
            if w.get("comment"):
                line += f"  # {w['comment']}"
            lines.append(line)
        out.append(
            "<details open><summary>The story with the predictions</summary>"
            f"<pre>{h(chr(10).join(lines))}</pre></details>"
        )
    return "".join(out)


# --- Markdown -------------------------------------------------------------------------------------


def conversation_markdown(
    run: RunRecord,
    items: Sequence[StoredItem],
    *,
    diff: ItemDiff | None = None,
    baseline: str | None = None,
) -> str:
    """The pull-request summary of an E2E or stories run."""
    passed, failed, errors = _counts(items)
    kind = "E2E tests" if run.kind == "e2e" else "test stories"
    lines = [
        *markdown_heading(run, kind),
        "| test cases | passed | failed | errors |",
        "|---:|---:|---:|---:|",
        f"| {len(items)} | {passed} | {failed} | {errors} |",
        "",
    ]
    if run.kind == "stories":
        f = story_figures(items)
        lines += [
            "| conversation accuracy | action F1 | action precision | action accuracy |",
            "|---:|---:|---:|---:|",
            f"| {f.conversation_accuracy:.3f} | {f.f1:.3f} | {f.precision:.3f} | {f.accuracy:.3f} |",
            "",
        ]
    if run.note:
        lines += [f"> {md(run.note)}", ""]
    bad = [
        [md(item.data.get("name", "")), md(_where(item)), item.outcome]
        for item in items
        if item.outcome in ("failed", "error")
    ]
    lines += markdown_listed("Failed", ("test case", "where", "outcome"), bad, LISTED)
    if diff is not None:
        lines += item_diff_markdown(diff, baseline)
    return "\n".join(lines)
