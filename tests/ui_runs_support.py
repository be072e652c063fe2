"""Helpers for the run/results/diff Pilot tests (tests/test_ui_runs_*.py)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from textual.app import App, ComposeResult
from ui_support import settle as settle  # one settle for every Pilot test

from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    IntentScore,
    PredictedEntity,
    Prediction,
    RunStatus,
    Suite,
    TestCase,
)
from nlu_tui.scoring import score_case
from nlu_tui.store import RunStore


def screen_text(app: App[Any]) -> str:
    """What the terminal shows, as plain text (one line per row)."""
    from textual.strip import Strip

    update = app.screen._compositor.render_full_update(simplify=True)
    return "\n".join(Strip.join(s).text.rstrip() for s in update.strips)


def small_suite() -> Suite:
    """Six cases with every result type, an entity, and an utterance full of markup."""
    return Suite(
        name="Small",
        cases=[
            TestCase("check my balance", [ExpectedIntent("balance")], id="c1"),
            TestCase(
                "send 20 dollars to Leo",
                [ExpectedIntent("transfer")],
                entities=[ExpectedEntity("amount", "20")],
                id="c2",
            ),
            TestCase("[bold red]x[/] pay my bill", [ExpectedIntent("pay_bill")], id="c3"),
            TestCase("hello there", [ExpectedIntent("greet")], id="c4"),
            TestCase("what is the weather", [], id="c5"),
            TestCase("block my card", [ExpectedIntent("block_card")], id="c6"),
        ],
    )


def predictions_v1() -> list[Prediction]:
    return [
        Prediction(
            "balance",
            0.95,
            [IntentScore("balance", 0.95), IntentScore("greet", 0.03)],
            raw={"intent": {"name": "balance"}, "text": "[link=http://x]y[/link]"},
            latency_ms=12.0,
        ),
        Prediction(
            "transfer",
            0.81,
            [IntentScore("transfer", 0.81)],
            entities=[PredictedEntity("amount", "20")],
            latency_ms=30.0,
        ),
        Prediction("balance", 0.55, [IntentScore("balance", 0.55)], latency_ms=8.0),  # FP
        Prediction(None, None, latency_ms=5.0),  # FN
        Prediction(None, None, latency_ms=4.0),  # TN
        Prediction(error="HTTP 500", latency_ms=100.0),  # ERROR
    ]


def predictions_v2() -> list[Prediction]:
    """v1 with one case fixed (c3), one broken (c1) and one confidence moved (c2)."""
    p = predictions_v1()
    p[0] = Prediction("greet", 0.6, [IntentScore("greet", 0.6)], latency_ms=10.0)
    p[1] = Prediction(
        "transfer",
        0.41,
        [IntentScore("transfer", 0.41)],
        entities=[PredictedEntity("amount", "20")],
        latency_ms=31.0,
    )
    p[2] = Prediction("pay_bill", 0.7, [IntentScore("pay_bill", 0.7)], latency_ms=9.0)
    return p


def stored_run(
    store: RunStore,
    suite: Suite,
    predictions: Sequence[Prediction],
    *,
    engine: str = "test-engine",
    status: RunStatus = RunStatus.SUCCESS,
    note: str = "",
) -> str:
    """A finished run in the store, scored by the scoring core; returns its id."""
    record = store.create_run(suite, engine_name=engine, note=note)
    items = [
        (i, pred, score_case(case, pred))
        for i, (case, pred) in enumerate(zip(suite.cases, predictions, strict=False))
    ]
    store.add_results(record.id, items)
    store.finish_run(record.id, status, None if status is RunStatus.SUCCESS else "some reason")
    return record.id


class PaneApp(App[None]):
    """A tiny app holding one widget, with the store the widget looks for."""

    def __init__(self, widget_factory: Any, store: RunStore) -> None:
        super().__init__()
        self._factory = widget_factory
        self.run_store: RunStore | None = store
        self.run_sessions: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        yield self._factory()


async def wait_for(pilot: Any, predicate: Any, timeout: float = 60.0) -> None:
    """Poll the app until ``predicate()`` holds; past ``timeout`` seconds, fail showing the
    screen (a generous deadline: these tests run on a loaded machine). A widget the predicate
    queries that is not there yet (``NoMatches``, ``WrongType``) counts as not yet."""
    from textual.css.query import QueryError

    def holds() -> bool:
        try:
            return bool(predicate())
        except QueryError:  # what it looks at is not mounted yet
            return False

    deadline = time.monotonic() + timeout
    while not holds():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for the app:\n{screen_text(pilot.app)}")
        await pilot.pause(0.05)


async def open_runs_tab(pilot: Any) -> Any:
    """Switch the workbench to its Runs tab and focus the run history; returns the RunsPane."""
    from nlu_tui.ui.widgets.runs_pane import RunsPane

    app = pilot.app
    await settle(pilot)
    app.screen.query_one("#main-tabs").active = "tab-runs"
    await pilot.pause()
    await wait_for(pilot, lambda: bool(app.screen_stack[1].query(RunsPane)))
    pane = app.screen_stack[1].query_one(RunsPane)
    pane.query_one("#runs-table").focus()
    await pilot.pause()
    await wait_for(pilot, lambda: app.focused is pane.query_one("#runs-table"))
    return pane


def suite_of(app: Any) -> Suite:
    """:func:`small_suite` named as the workbench's open suite, so its runs list under it."""
    suite = small_suite()
    suite.name = app.suite.name if app.suite else suite.name
    return suite


async def history_shows(pilot: Any, pane: Any, runs: int) -> None:
    """Reload the Runs tab's history and wait until it lists ``runs`` runs."""
    pane.reload()
    await settle(pilot)
    await wait_for(pilot, lambda: len(pane.history) == runs)


async def show_run(pilot: Any, pane: Any, run_id: str) -> None:
    """Open ``run_id`` in a Results pane and wait for its workers and their callbacks."""
    pane.show_run(run_id)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
