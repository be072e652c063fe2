"""What the workbench shows of a simulate run: the list of runs, the per-scenario table (the
core's figures, :mod:`nlu_tui.conversation.simulate_report`) and each conversation with its
transcript, assertions and judged criteria. Plain text lines; the screen makes them inert."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nlu_tui.conversation.simulate_report import (
    failure_detail,
    scenario_summary,
    text_report,
    transcript_lines,
)
from nlu_tui.store.records import RunRecord, StoredItem

RUN_COLUMNS = ("run", "scenarios", "engine", "status", "done", "passed", "failed", "errors")


def run_row(run: RunRecord) -> tuple[str, ...]:
    return (
        run.id,
        run.suite_name,
        run.engine_name,
        run.status.value,
        f"{run.done}/{run.total}",
        str(run.passed),
        str(run.failed),
        str(run.errors),
    )


def _label(item: StoredItem) -> str:
    if item.outcome == "passed":
        return "PASSED"
    if item.outcome == "failed":
        return (
            "FAILED (judge only)" if item.data.get("failure") == "judge" else "FAILED (assertion)"
        )
    return "ERROR"


def conversation_lines(item: StoredItem) -> list[str]:
    d: dict[str, Any] = item.data
    lines = [f"{d.get('name')} #{d.get('repeat')}: {_label(item)}  (sender {d.get('sender_id')})"]
    if d.get("reset"):
        lines.append(f"  {d['reset']}")
    lines += [f"  {line}" for line in transcript_lines(d).splitlines()]
    if d.get("stopped"):
        lines.append(f"  (ended: {d['stopped']})")
    for a in d.get("assertions") or []:
        mark = "✓" if a.get("passed") else "✗"
        lines.append(f"  {mark} assertion {a.get('type')} {a.get('message', '')}".rstrip())
    for c in d.get("criteria") or []:
        mark = "✓" if c.get("passed") else "✗"
        lines.append(
            f"  {mark} criterion {c.get('criterion')!r}: {float(c.get('score', 0)):.2f} "
            f"— {c.get('reason', '')}".rstrip()
        )
    if item.outcome == "error":
        lines.append(f"  error: {failure_detail(d)}")
    return lines


def run_lines(items: Sequence[StoredItem]) -> list[str]:
    """The scenario table, then every conversation in run order."""
    ordered = sorted(items, key=lambda i: i.seq)
    if not ordered:
        return ["No conversation stored yet."]
    lines = text_report(scenario_summary(ordered)).rstrip("\n").splitlines()
    for item in ordered:
        lines.append("")
        lines += conversation_lines(item)
    return lines


def live_lines(live: dict[str, Any]) -> list[str]:
    """One turn as it happens (scenario, repeat, what the user said, what the bot answered)."""
    out = [f"{live.get('scenario')} #{live.get('repeat')}", f"  user: {live.get('user')}"]
    out += [f"  bot:  {text}" for text in live.get("bot") or []]
    return out
