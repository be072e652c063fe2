"""Comparing two runs of the same test files, stored as items (E2E test cases, stories, DUT
test cases): which broke, which got fixed, which still fail and which were added or removed.
Items are paired by their id (file, line and name), as suite runs pair cases by id.

Below the conversation and DUT services, so both kinds compare (and write the Markdown's
broke/fixed section, :func:`item_diff_markdown`) with the same functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from nlu_tui.store.records import StoredItem
from nlu_tui.textsafe import inert_markdown as md

LISTED = 20
"""At most this many test cases per list of the Markdown section."""


@dataclass
class ItemDiff:
    broke: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    still_failing: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out: list[str] = []
        for title, names in (
            ("broke", self.broke),
            ("fixed", self.fixed),
            ("still failing", self.still_failing),
            ("new", self.added),
            ("gone", self.removed),
        ):
            out.extend(f"  {title:<13} {name}" for name in names)
        return out


def _name(item: StoredItem) -> str:
    d = item.data
    return f"{d.get('name')} ({d.get('file')}:{d.get('line')})"


def _loose(item: StoredItem) -> tuple[str, str, str]:
    d = item.data
    return (Path(str(d.get("file") or "")).name, str(d.get("line")), str(d.get("name")))


def diff_items(before: list[StoredItem], after: list[StoredItem]) -> ItemDiff:
    """``before`` → ``after``; an item that errored counts as not passing."""
    old = {i.item_id: i for i in before}
    new = {i.item_id: i for i in after}
    # runs stored before item ids named the file relative to the run's folder held the path as
    # typed: those are matched by file name, line and test case name
    loose = {_loose(i): k for k, i in old.items()}
    for item_id, item in new.items():
        was = loose.get(_loose(item))
        if item_id not in old and was is not None and was in old and was not in new:
            old[item_id] = old.pop(was)
    diff = ItemDiff()
    for item_id, item in new.items():
        prior = old.get(item_id)
        if prior is None:
            diff.added.append(_name(item))
        elif prior.outcome == "passed" and item.outcome != "passed":
            diff.broke.append(_name(item))
        elif prior.outcome != "passed" and item.outcome == "passed":
            diff.fixed.append(_name(item))
        elif item.outcome != "passed":
            diff.still_failing.append(_name(item))
    diff.removed = [_name(i) for k, i in old.items() if k not in new]
    return diff


def item_diff_markdown(diff: ItemDiff, baseline: str | None) -> list[str]:
    """The Markdown summary's section against ``baseline``: what broke and was fixed, and the
    test cases only in one of the runs (for a pull-request comment)."""
    lines = [f"#### Against run `{md(baseline or '?')}`", ""]
    if not (diff.broke or diff.fixed or diff.added or diff.removed):
        lines += ["No changes: every test case has the same outcome.", ""]
    for title, names in (("Broke", diff.broke), ("Fixed", diff.fixed)):
        lines += [f"**{title}: {len(names)}**", ""]
        lines += [f"- {md(name)}" for name in names[:LISTED]]
        if len(names) > LISTED:
            lines.append(f"- … {len(names) - LISTED} more")
        if names:
            lines.append("")
    if diff.added or diff.removed:
        lines += [
            f"{len(diff.added)} test cases only in this run, "
            f"{len(diff.removed)} only in the baseline.",
            "",
        ]
    return lines
