"""The sections every page of a run of items shares (E2E, stories, DUT, simulate: ``show RUN
-f html``, ``-f markdown``, ``--json``): the facts table, the Markdown heading, a Markdown list
cut at a limit and the head of the JSON report. Text from the test files and the engine goes through
:func:`nlu_tui.textsafe.inert_markdown` here; the pages escape what they add."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlu_tui.reports.common import iso_time
from nlu_tui.store.records import RunRecord, StoredItem
from nlu_tui.textsafe import inert_markdown as md


def run_facts(run: RunRecord, kind: str) -> list[tuple[str, str]]:
    """The facts table of a run's page (``kind``: what its tests are, in words)."""
    return [
        ("run", run.id),
        ("kind", kind),
        ("tests", run.suite_name),
        ("engine", run.engine_name),
        ("status", run.status.value),
        ("reason", run.reason or ""),
        ("started", iso_time(run.started_at) or ""),
        ("finished", iso_time(run.finished_at) or ""),
        ("note", run.note),
    ]


def markdown_heading(run: RunRecord, what: str) -> list[str]:
    """The first lines of a run's pull-request summary: its id, its status unless it is
    ``success``, and ``what`` (its tests, in words) on which engine."""
    status = f" ({md(run.status.value)})" if run.status.value != "success" else ""
    return [
        f"### nlu-tui run `{md(run.id)}`{status}",
        "",
        f"{what} **{md(run.suite_name)}** on engine **{md(run.engine_name)}**",
        "",
    ]


def markdown_listed(
    title: str, header: Sequence[str], rows: Sequence[Sequence[str]], limit: int
) -> list[str]:
    """A titled Markdown table of the first ``limit`` rows (cells already made inert), and a
    last row saying how many more there are; nothing when there are no rows."""
    if not rows:
        return []
    lines = [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows[:limit]]
    if len(rows) > limit:
        lines.append(f"| … | {len(rows) - limit} more |" + " |" * (len(header) - 2))
    lines.append("")
    return lines


def run_payload(run: RunRecord, items: Sequence[StoredItem]) -> dict[str, Any]:
    """The head of a run's JSON report: the run, its kind, engine and status, and its items
    counted by outcome."""
    return {
        "run": run.id,
        "kind": run.kind,
        "engine": run.engine_name,
        "status": run.status.value,
        "total": run.total,
        "passed": sum(1 for i in items if i.outcome == "passed"),
        "failed": sum(1 for i in items if i.outcome == "failed"),
        "errors": sum(1 for i in items if i.outcome == "error"),
    }
