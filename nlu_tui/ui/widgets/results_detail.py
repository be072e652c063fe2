"""The detail pane of one result: ranking, entities, entity order, latency and the raw answer.

Everything here comes from files or engines, so it is built as Rich ``Text``/``Table`` objects
(never parsed as markup): an utterance reading ``[link=...]`` shows as typed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Static

from nlu_tui.model import CaseResult, Prediction, ResultType, TestCase
from nlu_tui.scoring.intent_report import NO_INTENT_LABEL
from nlu_tui.textsafe import inert
from nlu_tui.ui.messages import EditCaseRequested
from nlu_tui.views.counts import counted

if TYPE_CHECKING:
    from nlu_tui.scoring.stability import CaseStability

RESULT_STYLE = {
    ResultType.TP: "bold green",
    ResultType.TN: "bold green",
    ResultType.FP: "bold red",
    ResultType.FN: "bold yellow",
    ResultType.ERROR: "bold magenta",
}

RAW_LIMIT = 20_000
"""Characters of the raw answer shown; a huge answer would make the pane crawl."""


def _field(label: str, value: str, style: str = "") -> Text:
    text = Text(f"{label}: ", style="bold")
    text.append(inert(value), style=style)
    return text


def pretty_raw(raw: Any) -> str:
    """The engine's raw answer as indented JSON (or its text when it is not JSON-able)."""
    if raw is None:
        return "(no raw response stored)"
    if isinstance(raw, str):
        text_raw: str = raw
        try:
            raw = json.loads(text_raw)
        except ValueError:
            if len(text_raw) <= RAW_LIMIT:
                return text_raw
            # an answer stored cut ends with its marker: keep that in sight
            mark = text_raw.rfind("…[truncated: ")
            tail = text_raw[mark:] if mark >= 0 else ""
            more = len(text_raw) - RAW_LIMIT - len(tail)
            return f"{text_raw[:RAW_LIMIT]}\n… ({more} more characters){tail}"
    try:
        text = json.dumps(raw, indent=2, ensure_ascii=False, sort_keys=False, default=str)
    except (TypeError, ValueError):
        text = repr(raw)
    if len(text) > RAW_LIMIT:
        text = text[:RAW_LIMIT] + f"\n… ({len(text) - RAW_LIMIT} more characters)"
    return text


def detail_renderable(
    case: TestCase | None,
    prediction: Prediction | None,
    result: CaseResult,
    stability: CaseStability | None = None,
) -> RenderableType:
    """Everything about one result, as a Rich renderable with no markup parsing; with
    ``stability`` (a repeated run) the answers of all the case's attempts."""
    parts: list[RenderableType] = []
    kind = ResultType(result.result)
    head = Text(kind.value, style=RESULT_STYLE[kind])
    head.append("  ")
    head.append(inert(case.utterance if case else result.case_id))
    parts.append(head)
    if case is not None:
        expected = " | ".join(case.intent_names) or NO_INTENT_LABEL
        parts.append(_field("Expected", expected))
        if case.traits:
            parts.append(_field("Traits", ", ".join(case.traits)))
        if case.parent_intents:
            parts.append(_field("Parent path", " > ".join(case.parent_intents)))
    parts.append(_field("Matched", result.matched_intent or NO_INTENT_LABEL))
    conf = "-" if result.confidence is None else f"{result.confidence:.4f}"
    parts.append(_field("Confidence", conf))
    lat = "-" if result.latency_ms is None else f"{result.latency_ms:.1f} ms"
    parts.append(_field("Latency", lat))
    if result.error:
        parts.append(_field("Error", result.error, "bold red"))
    parts.append(_field("Case id", result.case_id, "dim"))
    if stability is not None:
        from nlu_tui.scoring.stability import answers_text, pct

        spread = (
            "-" if stability.confidence_spread is None else f"{stability.confidence_spread:.3f}"
        )
        errors = f", {stability.errors} errored" if stability.errors else ""
        parts.append(
            _field(
                counted(stability.attempts, "attempt"),
                f"{answers_text(stability)}{errors} (agreement {pct(stability.agreement)}, "
                f"confidence spread {spread})",
                "bold yellow" if stability.flaky else "",
            )
        )

    if prediction is not None and prediction.ranking:
        ranking = Table(title="Ranking", title_justify="left", expand=False, box=None)
        ranking.add_column("#", justify="right")
        ranking.add_column("Intent")
        ranking.add_column("Score", justify="right")
        for i, score in enumerate(prediction.ranking, 1):
            style = "bold" if score.name == result.matched_intent else ""
            name = Text(inert(score.name, newlines=False), style=style)
            ranking.add_row(str(i), name, Text(f"{score.confidence:.4f}"))
        parts.append(ranking)

    if result.entities:
        ents = Table(title="Entities", title_justify="left", expand=False, box=None)
        ents.add_column("Entity")
        ents.add_column("Expected")
        ents.add_column("Matched")
        ents.add_column("OK")
        for e in result.entities:
            ents.add_row(
                Text(inert(e.name, newlines=False)),
                Text(inert(e.expected, newlines=False)),
                Text(inert(e.matched, newlines=False) if e.matched is not None else "(missing)"),
                Text("yes" if e.ok else "no", style="green" if e.ok else "red"),
            )
        parts.append(ents)

    if result.expected_entity_order or result.actual_entity_order:
        ok = result.entity_order_ok
        verdict = "" if ok is None else (" (ok)" if ok else " (wrong)")
        parts.append(Text("Entity order" + verdict, style="bold"))
        parts.append(_field("  expected", " > ".join(result.expected_entity_order) or "-"))
        parts.append(_field("  actual", " > ".join(result.actual_entity_order) or "-"))

    parts.append(Text("Raw response", style="bold"))
    parts.append(Text(inert(pretty_raw(prediction.raw if prediction else None))))
    return Group(*parts)


class ResultDetail(VerticalScroll):
    """Shows one result; "Edit this case" posts :class:`EditCaseRequested` for the editor."""

    BINDINGS = [
        Binding(
            "escape",
            "back",
            "Table",
            id="results.detail-back",
            tooltip="Move the focus back to the results table.",
        ),
    ]

    DEFAULT_CSS = """
    ResultDetail { height: 1fr; border-left: solid $primary; padding: 0 1; }
    ResultDetail:focus { background: $boost; }
    ResultDetail > Horizontal { height: auto; }
    ResultDetail #detail-edit { margin: 0; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.case_id: str | None = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Button("Edit this case", id="detail-edit", compact=True, disabled=True)
        yield Static(Text("Select a result to see its details."), id="detail-body")

    def show(
        self,
        case: TestCase | None,
        prediction: Prediction | None,
        result: CaseResult | None,
        stability: CaseStability | None = None,
    ) -> None:
        body = self.query_one("#detail-body", Static)
        button = self.query_one("#detail-edit", Button)
        if result is None:
            self.case_id = None
            body.update(Text("No result selected."))
            button.disabled = True
            return
        self.case_id = result.case_id
        body.update(detail_renderable(case, prediction, result, stability))
        button.disabled = case is None

    def action_back(self) -> None:
        from textual.widget import Widget

        from nlu_tui.ui.widgets.results_table import ResultsTable

        for node in self.ancestors:  # shown over the table (a small terminal): hide it again
            if isinstance(node, Widget) and node.has_class("detail-open"):
                node.remove_class("detail-open")
        for table in self.screen.query(ResultsTable):
            if self.parent is table.parent:
                self.call_after_refresh(table.focus_table)
                return

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "detail-edit":
            event.stop()
            self.post_message(EditCaseRequested(self.case_id))
