"""No escape sequence from a suite file or an engine answer reaches the terminal from the
workbench: every screen's rendered segments are checked for raw control characters.

The suite's name, description, utterances, intents and entities carry OSC 52 (set the
clipboard), ``ESC[2J`` (clear the screen), a one-byte C1 CSI and a bidi override; so do the
stored runs' engine name, note, reason, intent names, entity values, errors and raw answers.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual.widgets import DataTable, TabbedContent
from ui_runs_support import stored_run, wait_for
from ui_support import new_app, settle

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
from nlu_tui.runsessions import store_for

SIZE = (240, 50)
"""Wide enough that the cases and results tables show the whole hostile text (at 120 columns
they cut long cells with "…", which would hide the stand-ins this test looks for)."""
HOSTILE = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\x9b31m\u202eevil"
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _unsafe(char: str) -> bool:
    code = ord(char)
    return code < 0x20 or 0x7F <= code <= 0x9F or char in _BIDI or 0xD800 <= code <= 0xDFFF


def rendered(app: Any) -> str:
    """Every segment the current screen renders, with its raw characters checked."""
    from textual.strip import Strip

    update = app.screen._compositor.render_full_update(simplify=True)
    lines = []
    for chops in update.strips:
        text = "".join(segment.text for segment in Strip.join(chops) if not segment.control)
        bad = [c for c in text if _unsafe(c)]
        assert not bad, f"raw control characters {bad!r} on screen {app.screen!r}: {text!r}"
        lines.append(text)
    return "\n".join(lines)


def hostile_suite() -> Suite:
    return Suite(
        name=f"evil{HOSTILE}",
        description=f"about {HOSTILE}",
        cases=[
            TestCase(
                f"pay {HOSTILE} now",
                [ExpectedIntent(f"pay{HOSTILE}")],
                entities=[ExpectedEntity("amount", f"20{HOSTILE}")],
                tags=[f"t{HOSTILE}"],
                id="c1",
            ),
            TestCase(f"hello {HOSTILE}", [ExpectedIntent("greet")], id="c2"),
            TestCase("plain words", [ExpectedIntent("greet")], id="c3"),
        ],
    )


def hostile_answers(second: bool = False) -> list[Prediction]:
    return [
        Prediction(
            f"pay{HOSTILE}",
            0.9 if not second else 0.2,
            [IntentScore(f"pay{HOSTILE}", 0.9), IntentScore(f"other{HOSTILE}", 0.1)],
            entities=[PredictedEntity("amount", f"20{HOSTILE}")],
            raw={"answer": HOSTILE, f"key{HOSTILE}": [HOSTILE]},
            latency_ms=5.0,
        ),
        Prediction(f"other{HOSTILE}" if second else "greet", 0.7, raw=HOSTILE, latency_ms=4.0),
        Prediction(error=f"HTTP 500: {HOSTILE}", latency_ms=3.0),
    ]


async def _wait_for(pilot: Any, predicate: Any, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the app"
        await pilot.pause(0.05)


async def test_every_screen_renders_hostile_text_inert(tmp_path: Path) -> None:
    from nlu_tui.formats.native import dump_suite
    from nlu_tui.ui.screens.case_editor import CaseEditorScreen
    from nlu_tui.ui.screens.run_diff import DiffScreen
    from nlu_tui.ui.widgets.cases_view import CasesView
    from nlu_tui.ui.widgets.results_pane import ResultsPane
    from nlu_tui.ui.widgets.runs_pane import RunsPane

    root = tmp_path / "ws"
    root.mkdir()
    (root / "evil.suite.yaml").write_text(dump_suite(hostile_suite()), encoding="utf-8")
    (root / "name\x1b[2J\u202e.csv").write_text("x\n", encoding="utf-8")
    app = new_app(root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert app.suite is not None
        main = app.screen
        screens = 0

        # the suites panel and the cases table
        await _wait_for(pilot, lambda: "␛]52" in rendered(app))
        assert "\\x9b31m" in rendered(app) and "\\u202e" in rendered(app)
        screens += 1

        # the case editor (its fields hold the suite's text)
        view = main.query_one(CasesView)
        view.focus_table() if hasattr(view, "focus_table") else None
        await pilot.pause()
        view.action_edit()
        await settle(pilot)
        assert isinstance(app.screen, CaseEditorScreen)
        assert "pay ␛]52" in rendered(app)
        # shown inert, held exact: saving untouched fields keeps the suite's text as it is
        from textual.widgets import Input, TextArea

        assert app.screen.query_one("#utterances", TextArea).text == f"pay {HOSTILE} now"
        assert app.screen.query_one("#intent-1", Input).value == f"pay{HOSTILE}"
        screens += 1
        app.screen.dismiss(None)
        await settle(pilot)

        # the import dialog's file tree (file names are untrusted too)
        from nlu_tui.ui.screens.import_dialog import ImportScreen

        await app.push_screen(ImportScreen(start=root))
        await settle(pilot)
        await _wait_for(pilot, lambda: "name␛[2J" in rendered(app))
        screens += 1
        app.screen.dismiss(None)
        await settle(pilot)

        # a toast quoting a file
        app.notify(f"Cannot open {HOSTILE}", title=f"title {HOSTILE}")
        await _wait_for(pilot, lambda: "Cannot open ␛" in rendered(app))

        # two runs whose engine answered with hostile text
        store = store_for(app)
        stored_run(
            store, app.suite, hostile_answers(), engine=f"eng{HOSTILE}", note=f"note {HOSTILE}"
        )
        time.sleep(0.01)
        stored_run(
            store,
            app.suite,
            hostile_answers(second=True),
            engine=f"eng{HOSTILE}",
            status=RunStatus.SUCCESS_WITH_WARNING,
            note=f"note {HOSTILE}",
        )
        runs = main.query_one(RunsPane)
        runs.reload()
        await settle(pilot)
        await _wait_for(pilot, lambda: len(runs.history) == 2)
        main.query_one("#main-tabs", TabbedContent).active = "tab-runs"
        await settle(pilot)
        table = runs.query_one("#runs-table", DataTable)
        table.focus()
        table.move_cursor(row=0)
        await pilot.pause()
        await _wait_for(pilot, lambda: "note ␛]52" in rendered(app))
        assert "note ␛]52" in rendered(app)
        screens += 1

        # the results pane and each of its tabs
        results = main.query_one(ResultsPane)
        results.show_run(runs.history[0].record.id)
        main.query_one("#main-tabs", TabbedContent).active = "tab-results"
        await settle(pilot)
        await _wait_for(pilot, lambda: results.data is not None)
        await settle(pilot)
        tabs = results.query_one("#results-tabs", TabbedContent)
        for tab in ("tab-res-cases", "tab-res-intents", "tab-res-confusion", "tab-res-charts"):
            tabs.active = tab
            await settle(pilot)
            text = rendered(app)
            screens += 1
            if tab == "tab-res-cases":
                assert "pay ␛]52" in text  # the table's utterance cell
                # the detail pane of each row: ranking, entities, error, raw answer
                for row in range(3):
                    results.table.data_table.move_cursor(row=row)
                    await settle(pilot)
                    rendered(app)
        confusion = results.query_one("#results-confusion", DataTable)
        confusion.focus()
        confusion.move_cursor(row=1, column=1)
        await pilot.press("enter")
        await settle(pilot)
        rendered(app)

        # the diff screen
        main.query_one("#main-tabs", TabbedContent).active = "tab-runs"
        await settle(pilot)
        table.focus()
        runs.marked.clear()
        for row in (0, 1):
            table.move_cursor(row=row)
            await pilot.press("space")
        await pilot.press("D")
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, DiffScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        screen = app.screen
        assert isinstance(screen, DiffScreen)
        await _wait_for(pilot, lambda: screen.result is not None)
        await settle(pilot)
        assert "␛" in rendered(app)
        screens += 1
    assert screens == 9
