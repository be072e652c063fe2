"""The workbench on a repeated run: the results table's agreement column and its "Flaky only"
filter, the stability line in the header, the attempts in the detail pane, and the Repeat
field of the start dialog. The run is a real one against a loopback engine."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from runner_loopback import LoopbackEngine, LoopbackNlu, Resolved, make_suite
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Input, Select, Static
from textual.widgets.select import InvalidSelectValueError
from ui_runs_support import (
    PaneApp,
    predictions_v1,
    screen_text,
    settle,
    small_suite,
    stored_run,
    wait_for,
)

from nlu_tui.engines.choices import StartChoice
from nlu_tui.runner import RunOptions, run_suite
from nlu_tui.store import RunStore
from nlu_tui.ui.screens.run_start import StartRunDialog
from nlu_tui.ui.widgets.results_pane import FLAKY, ResultsPane
from nlu_tui.views.result_columns import ResultFilter

RANDOM_AT = (1, 4)


def repeated_run(store: RunStore) -> tuple[str, set[str]]:
    """A real run of 8 cases sent 4 times each; the server answers 2 of them at random."""
    suite = make_suite(8)
    randomly = {suite.cases[i].utterance: ("greet", "bye", "pay") for i in RANDOM_AT}

    async def go() -> str:
        with LoopbackNlu(randomly=randomly) as server:
            record = await run_suite(
                suite,
                Resolved(LoopbackEngine(server.url)),
                store,
                options=RunOptions(concurrency=4, repeat=4),
            )
        return record.id

    return asyncio.run(go()), {suite.cases[i].id for i in RANDOM_AT}


def test_agreement_column_flaky_filter_header_and_detail(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run_id, flaky = repeated_run(store)
    plain_id = stored_run(store, small_suite(), predictions_v1())

    async def main() -> None:
        app = PaneApp(ResultsPane, store)
        async with app.run_test(size=(120, 35)) as pilot:
            pane = app.query_one(ResultsPane)
            pane.show_run(run_id)
            await settle(pilot)
            table = pane.table
            assert [k for k, _ in table.columns][:7][-1] == "agreement"
            assert table.view_count == 8
            agreement = dict(
                zip(table.visible_case_ids(), table.column_values("agreement"), strict=True)
            )
            assert {cid for cid, a in agreement.items() if a < 1} == flaky
            assert all(a == 1.0 for cid, a in agreement.items() if cid not in flaky)
            text = screen_text(app)
            assert "Agree" in text
            assert "Stability 75.0% over 4 attempts: 2 flaky of 8 cases" in text

            # "Flaky only" in the result filter, as a user picks it
            select = pane.query_one("#results-type", Select)
            select.value = FLAKY
            await settle(pilot)
            assert set(table.visible_case_ids()) == flaky
            assert table.filter == ResultFilter(flaky=True)
            # the detail pane lists the answers of every attempt of the highlighted case
            table.focus_table()
            await settle(pilot)
            shown = screen_text(app)
            assert "4 attempts" in shown and "agreement" in shown

            # the Per intent tab: each intent's stability (greet and bye have a flaky case each)
            intents = pane.query_one("#results-intents", DataTable)
            labels = [str(c.label).split(" ")[0] for c in intents.columns.values()]
            assert labels[-2:] == ["Stable", "Confused"]
            stable = {
                str(intents.get_row(key)[0]): intents.get_row(key)[-2] for key in intents.rows
            }
            assert stable["greet"] == "50.0%" and stable["bye"] == "50.0%"
            assert (
                stable["pay"] == "100.0%" and stable["(no intent)"] == "100.0%"
            )  # issue 23: one spelling
            pane.sort_intents("stability")
            assert str(intents.get_row_at(0)[0]) in ("bye", "greet")

            # an ordinary run afterwards: no agreement column, no flaky choice
            pane.show_run(plain_id)
            await settle(pilot)
            assert "agreement" not in [k for k, _ in table.columns]
            assert table.view_count == 6 and "Agree" not in screen_text(app)
            with pytest.raises(InvalidSelectValueError):  # no "Flaky only" choice any more
                select.value = FLAKY
            assert "Stable" not in [str(c.label) for c in intents.columns.values()]

    asyncio.run(main())


class DialogApp(App[None]):
    def __init__(self, spec: str = "rasa:http://x") -> None:
        super().__init__()
        self.spec = spec
        self.result: Any = "open"

    def compose(self) -> ComposeResult:
        yield Static("")

    def on_mount(self) -> None:
        def done(choice: StartChoice | None) -> None:
            self.result = choice

        self.push_screen(StartRunDialog("Loop", [(self.spec, "rasa")], None), done)


async def test_start_dialog_repeat_field() -> None:
    # a server that answers: the dialog checks the engine before it starts (issue 23)
    with LoopbackNlu() as server:
        await _repeat_field(f"rasa:{server.url}")


async def _repeat_field(spec: str) -> None:
    app = DialogApp(spec)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await wait_for(pilot, lambda: app.screen.query_one("#start-repeat", Input))
        repeat = app.screen.query_one("#start-repeat", Input)
        assert repeat.value == "1" and repeat.region.bottom <= 24
        repeat.value = "0"
        await pilot.press("ctrl+s")
        await pilot.pause()
        await wait_for(pilot, lambda: app.result == "open" and "from 1 to 100" in screen_text(app))
        assert app.result == "open" and "from 1 to 100" in screen_text(app)
        repeat.value = "5"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.result != "open")
    assert app.result == StartChoice(spec, "development", "", 5)
