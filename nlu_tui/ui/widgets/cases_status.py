"""The status line under the cases table: counts, marks, problems, sort, unsaved, loading."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from textual.widgets import Label

from nlu_tui.textsafe import inert
from nlu_tui.views.cases import COLUMNS
from nlu_tui.views.counts import counted


@dataclass
class CasesStatusFacts:
    """What the status line reports (the cases view gathers it)."""

    total: int
    shown: int
    marked: int = 0
    with_problems: int = 0
    sort: tuple[str, bool] | None = None
    read_only: bool = False
    unsaved: bool = False
    previewing: bool = False
    cursor_problems: list[str] = field(default_factory=list)


def loading_text(path: Path, fraction: float, shown: int) -> str:
    return inert(
        f"loading {path.name} {fraction:.0%}… · {counted(shown, 'case')} so far · editing once loaded",
        newlines=False,
    )


def status_text(facts: CasesStatusFacts) -> str:
    if facts.previewing:  # the first rows are drawn; the table is on its way
        return counted(facts.total, "case")
    parts = [f"{facts.shown} of {counted(facts.total, 'case')}"]
    if facts.marked:
        parts.append(f"{facts.marked} marked")
    if facts.with_problems:
        parts.append(f"{facts.with_problems} with problems")
    if facts.sort:
        label = next(lbl for k, lbl, _ in COLUMNS if k == facts.sort[0])
        parts.append(f"sorted by {label} {'▼' if facts.sort[1] else '▲'}")
    if facts.read_only:
        parts.append("read-only")
    if facts.unsaved:
        parts.insert(0, "⚠ NOT SAVED (Ctrl+S saves again)")
    if facts.cursor_problems:
        parts.append("⚠ " + inert(facts.cursor_problems[0], newlines=False))
    return " · ".join(parts)


class CasesStatus(Label):
    """One line (id ``cases-status``), never markup: it quotes problems from the suite file."""

    def __init__(self) -> None:
        super().__init__("", id="cases-status", markup=False)
