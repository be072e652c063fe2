"""The conversation tests screen: a snapshot of stored results (a failed test case shown turn
by turn, the mismatch beside what was expected), and a run from the screen against the
scripted conversation server with live progress."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from conversation_peer import BotState, handler_for
from http_handler_server import serving
from rich.console import Console
from textual.app import App
from textual.widgets import DataTable, Input, OptionList, Select
from ui_runs_support import wait_for

from nlu_tui.conversation.service import ConversationRequest, open_conversation_run
from nlu_tui.store import RunStore
from nlu_tui.store.records import StoredItem
from nlu_tui.ui.screens.conversation_tests import ConversationScreen
from nlu_tui.views.conversation import MET, MISMATCH, NOT_REACHED, SAID, conversation_rows

SIZE = (120, 35)

CASES = """\
test_cases:
  - test_case: book
    steps:
      - user: book a table
      - utter: utter_ask_cuisine
      - user: chinese
      - slot_was_set:
          - cuisine: italian
      - user: 2 people
      - bot: Booked for 2.
  - test_case: greet
    steps:
      - user: hello
      - bot: Hey!
"""


def _items(tmp_path: Path, *, stable: bool = True) -> list[StoredItem]:
    """A real run of CASES against the scripted server, as the store keeps it (``stable``: the
    file named without its temporary folder, for pictures)."""
    path = tmp_path / "shop.e2e.yml"
    path.write_text(CASES, encoding="utf-8")
    state = BotState()
    with serving(handler_for(state)) as url:
        store = RunStore()
        request = ConversationRequest(kind="e2e", path=path, engine=f"rasa:{url}", concurrency=1)
        run = open_conversation_run(request, store)
        final = asyncio.run(run.execute())
    items = store.load_items(final.id)
    for item in items if stable else ():  # the file's place differs from one test to the next
        item.data["file"] = "shop.e2e.yml"
    return items


def test_rows_show_the_mismatch_beside_the_expectation(tmp_path: Path) -> None:
    book = next(i for i in _items(tmp_path) if i.data["name"] == "book")
    rows = [(r.kind, r.expected, r.actual, r.status) for r in conversation_rows(book.data)]
    assert rows == [
        (
            "user",
            "book a table",
            "intent book_table | slot requested_slot = 'cuisine' | "
            "bot: What food? [utter_ask_cuisine]",
            SAID,
        ),
        ("utter", "utter_ask_cuisine", "", MET),
        (
            "user",
            "chinese",
            "intent inform | slot cuisine = 'chinese' | bot: How many? [utter_ask_people]",
            SAID,
        ),
        ("slot_was_set", "cuisine: italian", "slot_was_set: cuisine: chinese (str)", MISMATCH),
        ("user", "2 people", "", NOT_REACHED),
        ("bot", "Booked for 2.", "", NOT_REACHED),
    ]


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["120x35", "80x24"])
def test_snapshot_failed_test_case_turn_by_turn(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    items = _items(tmp_path)

    class ConvApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(
                ConversationScreen([Path("shop.e2e.yml")], items=items, engine="rasa:URL")
            )

    assert snap_compare(ConvApp(), terminal_size=size)


def test_snapshot_step_editor_on_the_failed_step(snap_compare: Any, tmp_path: Path) -> None:
    items = _items(tmp_path, stable=False)
    path = tmp_path / "shop.e2e.yml"

    class ConvApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ConversationScreen([path], items=items, engine="rasa:URL"))

    async def open_editor(pilot: Any) -> None:
        from nlu_tui.ui.screens.e2e_case_editor import E2ECaseEditor

        await wait_for(pilot, lambda: pilot.app.screen.query_one("#conv-cases", DataTable))
        pilot.app.screen.query_one("#conv-cases", DataTable).focus()
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, E2ECaseEditor))
        await pilot.pause()

    assert snap_compare(ConvApp(), terminal_size=(80, 24), run_before=open_editor)


@pytest.mark.slow
def test_a_run_from_the_screen_fills_the_cases_live(tmp_path: Path) -> None:
    path = tmp_path / "shop.e2e.yml"
    path.write_text(CASES, encoding="utf-8")
    state = BotState()

    async def scenario(url: str) -> None:
        class ConvApp(App[None]):
            run_store: RunStore | None = None  # what store_for() needs of the host app
            run_sessions: dict[str, Any] = {}

            def on_mount(self) -> None:
                self.push_screen(ConversationScreen([path], engine=f"rasa:{url}"))

        app = ConvApp()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await pilot.press("r")
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            await wait_for(pilot, lambda: len(screen.items) == 2 and screen.run is None)
            cases = screen.query_one("#conv-cases", DataTable)
            assert cases.row_count == 2, screen.progress
            assert {i.outcome for i in screen.items} == {"passed", "failed"}
            assert "1 passed, 1 failed" in str(screen.query_one("#conv-header").render())

    with serving(handler_for(state)) as url:
        asyncio.run(scenario(url))


async def test_conversation_suites_are_listed_with_the_others(tmp_path: Path) -> None:
    from ui_support import SAMPLE, make_workspace, settle

    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.ui.widgets.suites_panel import SuitesPanel
    from nlu_tui.workspace import open_workspace

    root = make_workspace(tmp_path, SAMPLE)
    (root / "shop.e2e.yml").write_text(CASES, encoding="utf-8")
    app = NluTuiApp(open_workspace(root), cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(SuitesPanel)
        info = panel.infos[str(root / "shop.e2e.yml")]
        assert (info.kind, info.name, info.case_count) == ("e2e", "shop", 2)
        assert len(panel.infos) == 2
        await pilot.press("f2", "down")
        await settle(pilot)
        assert app.suite is None  # a conversation suite is not opened as utterances
        prompt = panel.query_one("#suite-list", OptionList).get_option_at_index(1).prompt
        lines = Console(width=30, record=True)
        lines.print(prompt)
        assert lines.export_text().splitlines()[:2] == ["⇄ shop", "  2 test cases · e2e"]
        await pilot.press("enter")
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, ConversationScreen)
        assert app.screen.files == [root / "shop.e2e.yml"]
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("f5")  # the suites' run key: the conversation screen, on its engine
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        screen = app.screen
        assert isinstance(screen, ConversationScreen)
        assert screen.files == [root / "shop.e2e.yml"]
        assert screen.focused is screen.query_one("#conv-engine", Input)


def test_enter_in_the_engine_field_runs_and_the_editor_warns_of_unsaved_edits(
    tmp_path: Path,
) -> None:
    from ui_support import settle

    from nlu_tui.ui.screens.e2e_case_editor import E2ECaseEditor

    path = tmp_path / "shop.e2e.yml"
    path.write_text("# kept\n" + CASES, encoding="utf-8")

    async def scenario(url: str) -> None:
        class ConvApp(App[None]):
            run_store: RunStore | None = None
            run_sessions: dict[str, Any] = {}

            def on_mount(self) -> None:
                self.push_screen(ConversationScreen([path], ask_engine=True))

        app = ConvApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            field = screen.query_one("#conv-engine", Input)
            assert screen.focused is field
            field.value = f"rasa:{url}"
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(screen.items) == 2 and screen.run is None)
            assert {i.outcome for i in screen.items} == {"passed", "failed"}
            screen.query_one("#conv-cases", DataTable).focus()
            await pilot.press("f")  # the failed test case, on its failed step
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, E2ECaseEditor))
            await pilot.pause()  # the screen pushed: composed and mounted
            editor = app.screen
            assert isinstance(editor, E2ECaseEditor)
            assert editor.query_one("#ed-steps", DataTable).cursor_row == 3
            await pilot.press("a")  # a new step below the failed one: an utter
            await wait_for(pilot, lambda: editor.focused is editor.query_one("#ed-value", Input))
            assert editor.focused is editor.query_one("#ed-value", Input)
            assert editor.query_one("#ed-kind", Select).value == "user"
            await pilot.press("ctrl+t", "ctrl+t")  # user -> bot -> utter
            await wait_for(pilot, lambda: editor.query_one("#ed-kind", Select).value == "utter")
            assert editor.query_one("#ed-kind", Select).value == "utter"
            editor.query_one("#ed-value", Input).value = "utter_ask_people"
            await pilot.press("enter")
            await pilot.press("escape")  # edits: the first Esc only warns
            assert app.screen is editor
            assert "Unsaved changes" in str(editor.query_one("#ed-message").render())
            await pilot.press("a", "ctrl+t", "ctrl+t", "ctrl+t")  # a slot step...
            editor.query_one("#ed-value", Input).value = "people: 2"
            await pilot.press("ctrl+s")  # ... saved with the rest without Enter
            await settle(pilot)
            await wait_for(pilot, lambda: app.screen is screen)
            assert app.screen is screen, str(editor.query_one("#ed-message").render())

    with serving(handler_for(BotState())) as url:
        asyncio.run(scenario(url))
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# kept\n")
    assert (
        "          - cuisine: italian\n      - utter: utter_ask_people\n"
        "      - slot_was_set:\n          - people: 2\n"
    ) in text


def test_step_editor_from_a_failed_step_edits_reorders_and_saves(tmp_path: Path) -> None:
    from nlu_tui.formats import e2e_cases
    from nlu_tui.ui.screens.e2e_case_editor import E2ECaseEditor

    items = _items(tmp_path, stable=False)
    path = tmp_path / "shop.e2e.yml"

    class ConvApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(ConversationScreen([path], items=items, engine="rasa:URL"))

    async def scenario() -> None:
        app = ConvApp()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            turns = screen.query_one("#conv-turns", DataTable)
            turns.focus()
            turns.move_cursor(row=3)  # the failed slot_was_set step of "book"
            await pilot.press("enter")
            await pilot.pause()
            await wait_for(pilot, lambda: isinstance(app.screen, E2ECaseEditor))
            await pilot.pause()  # the screen pushed: composed and mounted
            editor = app.screen
            assert isinstance(editor, E2ECaseEditor)
            assert editor.case.name == "book"
            table = editor.query_one("#ed-steps", DataTable)
            assert table.cursor_row == 3
            assert editor.query_one("#ed-value", Input).value == "cuisine: italian"
            assert "✗ step 4 failed in the last run" in str(
                editor.query_one("#ed-message").render()
            )
            await pilot.press("enter")  # edit the step: its value field takes the keys
            await wait_for(pilot, lambda: editor.focused is editor.query_one("#ed-value", Input))
            assert editor.focused is editor.query_one("#ed-value", Input)
            editor.query_one("#ed-value", Input).value = "cuisine: chinese"
            await pilot.press("enter")  # the expectation now matches what the bot does
            await wait_for(pilot, lambda: editor.focused is table)
            assert editor.focused is table
            await pilot.press("K")  # ... and is moved above the user message (row 2)
            # the move is said (the message used to stay at the edit's "step 4 changed")
            assert "step 4 moved up to 3" in str(editor.query_one("#ed-message").render())
            await pilot.press("down", "down", "down")
            await pilot.press("d")  # the last step goes
            await pilot.press("ctrl+s")
            await wait_for(
                pilot, lambda: app.screen is screen and "saved shop.e2e.yml" in screen.progress
            )
            assert app.screen is screen and "saved shop.e2e.yml" in screen.progress

    asyncio.run(scenario())
    again = e2e_cases.read(path)
    book = again.test_cases[0]
    assert [(s.kind.value, s.text or s.slot, s.value) for s in book.steps] == [
        ("user", "book a table", None),
        ("utter", "utter_ask_cuisine", None),
        ("slot_was_set", "cuisine", "chinese"),
        ("user", "chinese", None),
        ("user", "2 people", None),
    ]
    assert [s.text for s in again.test_cases[1].steps] == ["hello", "Hey!"]


def test_opening_a_file_shows_its_latest_stored_run(tmp_path: Path) -> None:
    from ui_support import settle

    _items(tmp_path, stable=False)  # one run of the file, stored
    path = tmp_path / "shop.e2e.yml"

    class ConvApp(App[None]):
        run_store: RunStore | None = None
        run_sessions: dict[str, Any] = {}

        def on_mount(self) -> None:
            self.push_screen(ConversationScreen([path]))

    async def scenario() -> None:
        app = ConvApp()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            assert sorted(i.data["name"] for i in screen.items) == ["book", "greet"]
            assert screen.progress.startswith("last run ")
            assert screen.query_one("#conv-cases", DataTable).row_count == 2

    asyncio.run(scenario())


def test_the_suites_panel_says_how_many_test_cases_passed_last(tmp_path: Path) -> None:
    from nlu_tui.ui.widgets.suites_panel import suite_prompt
    from nlu_tui.workspace import Workspace

    _items(tmp_path, stable=False)  # one stored run of the file: 1 of 2 passed
    (info,) = [i for i in Workspace(tmp_path).list_suites() if i.kind == "e2e"]
    assert (info.last_status, info.last_passed) == ("success", (1, 2))
    lines = Console(width=30, record=True)
    lines.print(suite_prompt(info))
    assert lines.export_text().splitlines()[:2] == ["⇄ shop", "  ✔ 1/2 passed · e2e"]


def test_a_run_canceled_on_the_screen_resumes_with_u_without_resending(tmp_path: Path) -> None:
    """c cancels midway, the header offers u, and u finishes the same run: the test cases
    stored before the cancel are not sent again (the screen had no way to resume before)."""
    from ui_support import settle

    path = tmp_path / "many.e2e.yml"
    cases = "".join(
        f"  - test_case: greet_{n}\n    steps:\n      - user: hello\n      - bot: Hey!\n"
        for n in range(20)
    )
    path.write_text("test_cases:\n" + cases, encoding="utf-8")
    state = BotState()
    state.delay = 0.3

    async def scenario(url: str) -> None:
        class ConvApp(App[None]):
            run_store: RunStore | None = None
            run_sessions: dict[str, Any] = {}

            def on_mount(self) -> None:
                self.push_screen(ConversationScreen([path], engine=f"rasa:{url}"))

        app = ConvApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            await pilot.press("r")
            await wait_for(pilot, lambda: bool(screen.items))
            # the footer has no room for c at 80 columns: the header says it while a run goes
            assert "c cancels" in str(screen.query_one("#conv-header").render())
            await pilot.press("c")
            await wait_for(pilot, lambda: screen.run is None)
            header = str(screen.query_one("#conv-header").render())
            assert "canceled" in header and "u resumes" in header, header
            assert "(canceled)" not in header  # the status once, not repeated as its reason
            kept = list(screen.items)
            assert 0 < len(kept) < 20
            run_id = screen.last_run[0] if screen.last_run else ""
            sent_before = len(state.messages)
            await pilot.press("u")
            await wait_for(pilot, lambda: screen.run is None and len(screen.items) == 20)
            assert len(screen.items) == 20
            assert screen.query_one("#conv-cases", DataTable).row_count == 20
            header = str(screen.query_one("#conv-header").render())
            assert f"run {run_id}: success" in header and "u resumes" not in header, header
            later = {s for s, _, _ in state.messages[sent_before:]}
            assert not later & {i.data["sender_id"] for i in kept}
            assert len(RunStore().load_items(run_id)) == 20

    with serving(handler_for(state)) as url:
        asyncio.run(scenario(url))


def test_a_run_canceled_before_any_test_case_leaves_no_earlier_conversation_on_screen(
    tmp_path: Path,
) -> None:
    """The case list empties when a new run starts; the conversation and diff of the earlier
    run's test case went with it (they used to stay, beside an empty list)."""
    from ui_support import settle

    _items(tmp_path, stable=False)
    path = tmp_path / "shop.e2e.yml"

    class ConvApp(App[None]):
        run_store: RunStore | None = None
        run_sessions: dict[str, Any] = {}

        def on_mount(self) -> None:
            self.push_screen(ConversationScreen([path]))

    async def scenario() -> None:
        app = ConvApp()
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            assert screen.query_one("#conv-turns", DataTable).row_count > 0
            screen.items = []
            screen._show_items()
            assert screen.query_one("#conv-turns", DataTable).row_count == 0
            assert str(screen.query_one("#conv-diff").render()) == ""

    asyncio.run(scenario())


async def test_a_rasa_projects_e2e_tests_are_listed_and_open_from_the_suites_panel(
    tmp_path: Path,
) -> None:
    """`nlu-tui path/to/rasa-project`: its tests/*.yml with test_cases: are conversation suites
    (the panel used to show "Suites (0)" for the sample bot); test stories and other YAML in
    tests/ are not."""
    from ui_support import settle

    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.ui.widgets.suites_panel import SuitesPanel
    from nlu_tui.workspace import Workspace, open_workspace

    root = tmp_path / "bot"
    (root / "tests").mkdir(parents=True)
    e2e = root / "tests" / "e2e_test_cases.yml"
    e2e.write_text("# the bot's E2E tests\n" + CASES, encoding="utf-8")
    (root / "tests" / "test_stories.yml").write_text(
        "stories:\n- story: s\n  steps:\n  - intent: greet\n  - action: utter_greet\n",
        encoding="utf-8",
    )
    (root / "domain.yml").write_text("test_cases: []\n", encoding="utf-8")  # not in tests/
    infos = Workspace(root).list_suites()
    assert [(i.path, i.kind, i.name, i.case_count) for i in infos] == [
        (e2e, "e2e", "e2e_test_cases", 2)
    ]
    app = NluTuiApp(open_workspace(root), cursor_blink=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        panel = app.screen.query_one(SuitesPanel)
        assert list(panel.infos) == [str(e2e)]
        await pilot.press("f2")
        await settle(pilot)
        assert app.suite is None  # not opened as a suite of utterances
        await pilot.press("enter")
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        assert isinstance(app.screen, ConversationScreen)
        assert app.screen.files == [e2e]


def test_a_file_never_run_lists_its_test_cases_and_opens_them_in_the_editor(
    tmp_path: Path,
) -> None:
    """Opened before its first run, the screen used to be empty (no test case, no step, Enter
    did nothing); now it lists the test cases as not run, their steps unreached, and Enter
    opens the step editor."""
    from ui_support import settle

    from nlu_tui.ui.screens.e2e_case_editor import E2ECaseEditor

    path = tmp_path / "shop.e2e.yml"
    path.write_text(CASES, encoding="utf-8")

    class ConvApp(App[None]):
        run_store: RunStore | None = None
        run_sessions: dict[str, Any] = {}

        def on_mount(self) -> None:
            self.push_screen(ConversationScreen([path]))

    async def scenario() -> None:
        app = ConvApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            cases = screen.query_one("#conv-cases", DataTable)
            assert cases.row_count == 2
            assert [str(cases.get_row_at(r)[0]) for r in range(2)] == ["not run", "not run"]
            header = str(screen.query_one("#conv-header").render())
            assert "2 test cases" in header and "not run yet · r runs it" in header, header
            turns = screen.query_one("#conv-turns", DataTable)
            assert [str(turns.get_row_at(r)[1]) for r in range(turns.row_count)] == ["·"] * 6
            cases.focus()
            await pilot.press("enter")
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, E2ECaseEditor))
            await pilot.pause()  # the screen pushed: composed and mounted
            assert isinstance(app.screen, E2ECaseEditor)
            assert app.screen.query_one("#ed-steps", DataTable).row_count == 6

    asyncio.run(scenario())


def test_the_expected_column_fits_the_shown_test_case_not_the_longest_seen(
    tmp_path: Path,
) -> None:
    """Moving from a test case with a long step to a short one: Expected shrinks back, so what
    the bot did (Actual) gets the room (its width used to only grow)."""
    from ui_support import settle

    items = _items(tmp_path)

    class ConvApp(App[None]):
        run_store: RunStore | None = None
        run_sessions: dict[str, Any] = {}

        def on_mount(self) -> None:
            self.push_screen(ConversationScreen([tmp_path / "shop.e2e.yml"], items=items))

    def expected_width(screen: ConversationScreen) -> int:
        turns = screen.query_one("#conv-turns", DataTable)
        (column,) = [c for c in turns.columns.values() if str(c.label) == "Expected"]
        # the width it is drawn at (fitted widths are fixed: content_width is not what shows)
        return column.get_render_width(turns) - 2 * turns.cell_padding

    async def scenario() -> None:
        app = ConvApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            book, greet = sorted(screen.items, key=lambda i: i.seq)
            screen._show_turns(book)
            await settle(pilot)
            assert expected_width(screen) == len("slot_was_set: cuisine: italian")
            screen._show_turns(greet)
            await settle(pilot)
            assert expected_width(screen) == len("user: hello")

    asyncio.run(scenario())


def test_a_canceled_runs_unsent_test_cases_are_listed_as_not_run(tmp_path: Path) -> None:
    """The file's latest run was canceled after one test case: the screen lists that one and
    the rest as `not run` (what `u` will send); it used to list only the stored one."""
    from ui_support import settle

    path = tmp_path / "shop.e2e.yml"
    path.write_text(CASES, encoding="utf-8")
    state = BotState()
    state.delay = 0.05
    with serving(handler_for(state)) as url:
        request = ConversationRequest(kind="e2e", path=path, engine=f"rasa:{url}", concurrency=1)
        run = open_conversation_run(request, RunStore())

        def on_progress(p: Any) -> None:
            if p.done == 1:
                run.cancel()

        run.on_progress = on_progress
        final = asyncio.run(run.execute())
    assert final.status.value == "canceled" and len(RunStore().load_items(final.id)) == 1

    class ConvApp(App[None]):
        run_store: RunStore | None = None
        run_sessions: dict[str, Any] = {}

        def on_mount(self) -> None:
            self.push_screen(ConversationScreen([path]))

    async def scenario() -> None:
        app = ConvApp()
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            cases = screen.query_one("#conv-cases", DataTable)
            statuses = sorted(str(cases.get_row_at(r)[0]) for r in range(cases.row_count))
            assert statuses == ["FAILED", "not run"]  # "book" ran (and failed), "greet" did not
            assert "u resumes" in str(screen.query_one("#conv-header").render())

    asyncio.run(scenario())


def test_deleting_a_rasa_projects_e2e_file_and_undoing_puts_it_back_in_tests(
    tmp_path: Path,
) -> None:
    """Delete + undo of tests/e2e_test_cases.yml: it went back to the workspace's top folder,
    where a plain .yml is not a suite, so it vanished from the panel."""
    from nlu_tui.workspace import Workspace

    root = tmp_path / "bot"
    (root / "tests").mkdir(parents=True)
    e2e = root / "tests" / "e2e_test_cases.yml"
    e2e.write_text(CASES, encoding="utf-8")
    ws = Workspace(root)
    trashed = ws.delete(e2e)
    assert not e2e.exists() and ws.list_suites() == []
    assert ws.restore(trashed) == e2e
    assert [i.path for i in ws.list_suites()] == [e2e]
    e2e2 = root / "shop.e2e.yml"
    e2e2.write_text(CASES, encoding="utf-8")
    trashed = ws.delete(e2e2)
    e2e2.write_text(CASES, encoding="utf-8")  # the name was taken meanwhile
    again = ws.restore(trashed)
    assert again == root / "shop-2.e2e.yml"  # still a conversation suite, not a .suite.yaml
    assert {i.path for i in ws.list_suites()} == {e2e, e2e2, again}
