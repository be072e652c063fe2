"""The workbench's first screen: the first suite's rows are drawn before Arrow is loaded, exactly
as the cases table then draws them, and the Runs and Results panes come after that screen.

(How fast that screen is, is measured by bench/bench_startup.py, not here.)
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.widgets import Label, TabbedContent
from ui_support import SAMPLE as SAMPLE_SUITE
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.formats import suite_cache
from nlu_tui.formats.native import dump_suite
from nlu_tui.model import ExpectedIntent, Suite, TestCase
from nlu_tui.ui.screens import main as main_screen
from nlu_tui.ui.widgets.cases_view import CasesView
from nlu_tui.ui.widgets.runs_pane import RunsPane
from nlu_tui.ui.widgets.table_preview import TablePreview


def _cells(strip: Any, width: int) -> list[tuple[str, tuple[Any, ...]]]:
    """Each of the first ``width`` cells of a rendered line: its character and how it looks
    (colours and attributes; the table's mouse metadata left out)."""
    out: list[tuple[str, tuple[Any, ...]]] = []
    for segment in strip.crop(0, width):
        style: Style = segment.style or Style()
        look = (
            style.color,
            style.bgcolor,
            bool(style.bold),
            bool(style.italic),
            bool(style.underline),
            bool(style.reverse),
        )
        out.extend((char, look) for char in segment.text)
    return out


async def _wait_for(pilot: Any, predicate: Any, timeout: float = 60.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await pilot.pause(0.01)


class HeldBuild:
    """Holds the cases table's first build until released, so a test can look at the preview
    (normally replaced within a tenth of a second)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.views: list[CasesView] = []

        def hold(view: CasesView) -> None:
            self.views.append(view)

        monkeypatch.setattr(CasesView, "_rebuild_validated", hold)

    def release(self) -> None:
        for view in self.views:
            view.rebuild(validate=True)


@pytest.mark.parametrize(
    ("theme", "size"),
    [("nlu-dark", SIZE), ("textual-light", SIZE), ("nlu-dark", (80, 24))],
)
async def test_the_first_rows_are_drawn_as_the_table_then_draws_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str, size: tuple[int, int]
) -> None:
    held = HeldBuild(monkeypatch)
    app = new_app(make_workspace(tmp_path))
    assert theme in app.available_themes
    app.theme = theme
    async with app.run_test(size=size) as pilot:
        view = app.screen.query_one(CasesView)
        await _wait_for(pilot, lambda: held.views and view.query(TablePreview))
        await pilot.pause()
        preview = view.query_one(TablePreview)
        assert view.table is None  # nothing to act on yet: the preview is read-only
        assert not preview.can_focus
        status = str(view.query_one("#cases-status", Label).content)
        assert status == "54 cases"
        width = preview.cells_width()
        rows = preview.size.height
        scrolls_right = preview.scrolls_right()
        drawn = [_cells(preview.render_line(y), width) for y in range(rows)]
        assert "how much money is in" in "".join(c for c, _ in drawn[1])

        held.release()
        await _wait_for(pilot, lambda: view.table is not None and view.views_shown > 0)
        await settle(pilot)
        table = view.table
        assert not view.query(TablePreview)
        # the same cells: the preview left the scrollbars' places free
        assert table.scrollable_content_region.width == width
        # ... and the horizontal scrollbar's line, when the columns are wider than that
        assert table.show_horizontal_scrollbar == scrolls_right
        table_rows = table.scrollable_content_region.height
        assert table_rows == rows - (1 if scrolls_right else 0)
        for y in range(table_rows):
            assert _cells(table.render_line(y), width) == drawn[y], f"line {y} differs"
        for line in drawn[table_rows:]:
            assert {char for char, _ in line} == {" "}
        assert str(view.query_one("#cases-status", Label).content).startswith("54 of 54 cases")


async def test_the_runs_and_results_panes_follow_the_cases_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    panes_at_preview: list[bool] = []
    original = TablePreview.on_mount if hasattr(TablePreview, "on_mount") else None

    def on_mount(self: TablePreview) -> None:
        panes_at_preview.append(bool(self.screen.query(RunsPane)))
        if original is not None:
            original(self)

    monkeypatch.setattr(TablePreview, "on_mount", on_mount, raising=False)
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await _wait_for(pilot, lambda: bool(panes_at_preview))
        assert panes_at_preview == [False]  # the first screen did not wait for them ...
        await _wait_for(pilot, lambda: bool(app.screen.query(RunsPane)))  # ... they follow
        await settle(pilot)
        assert app.screen.query("ResultsPane")


async def test_a_key_pressed_before_the_panes_are_there_mounts_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an empty workspace shows no rows, so only the fallback timer (made long here) or the key
    monkeypatch.setattr(main_screen, "EXTRA_PANES_AT_LATEST", 60.0)
    root = tmp_path / "ws"
    root.mkdir()
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.screen.query(RunsPane)
        await pilot.press("f4")
        await _wait_for(pilot, lambda: bool(app.screen.query(RunsPane)))
        tabs = app.screen.query_one("#main-tabs", TabbedContent)
        assert tabs.active == "tab-runs"


async def test_a_big_suite_is_previewed_before_its_first_chunk_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(CasesView, "chunk_size", 500)
    monkeypatch.setattr(suite_cache, "MIN_BYTES", 1 << 40)  # read in chunks, not from the cache
    root = tmp_path / "ws"
    root.mkdir()
    cases = [
        TestCase(utterance=f"case {i}", intents=[ExpectedIntent("x")], id=f"c{i:05d}")
        for i in range(3000)
    ]
    (root / "big.suite.yaml").write_text(dump_suite(Suite(name="Big", cases=cases)), "utf-8")
    seen: list[tuple[int, bool, int]] = []

    def on_mount(self: TablePreview) -> None:
        view = self.screen.query_one(CasesView)
        seen.append((view.partial_views, view.loading_path is not None, self.total_rows))

    monkeypatch.setattr(TablePreview, "on_mount", on_mount, raising=False)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _wait_for(pilot, lambda: app.suite is not None)  # type: ignore[attr-defined]
        await settle(pilot)
        view = app.screen.query_one(CasesView)
        # drawn while the suite was still being read, before any Arrow table of it; the rows
        # beyond the first chunk are known to exist (the preview leaves the scrollbar's place)
        assert seen == [(0, True, 501)]
        assert view.table.row_count == 3000
        assert not view.query(TablePreview)


async def test_reopened_on_the_runs_tab_it_shows_that_tab_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nlu_tui import ui_state
    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.workspace import open_workspace

    root = make_workspace(tmp_path)
    ui_state.remember_workspace(root, suite="banking_bot.suite.yaml", tab="tab-runs")
    tab_at_preview: list[str] = []

    def on_mount(self: TablePreview) -> None:
        tab_at_preview.append(str(self.screen.query_one("#main-tabs", TabbedContent).active))

    monkeypatch.setattr(TablePreview, "on_mount", on_mount, raising=False)
    app = NluTuiApp(open_workspace(root), cursor_blink=False)  # reads the remembered state
    async with app.run_test(size=SIZE) as pilot:
        await _wait_for(pilot, lambda: bool(tab_at_preview))
        # not the Cases tab first and a jump to Runs once the cases table is built
        assert tab_at_preview == ["tab-runs"]
        await settle(pilot)
        assert app.screen.query_one("#main-tabs", TabbedContent).active == "tab-runs"


async def test_the_preview_shows_untrusted_text_inert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = HeldBuild(monkeypatch)
    root = tmp_path / "ws"
    root.mkdir()
    cases = [
        TestCase(
            utterance="[bold red]x[/] \x1b]52;c;ZXZpbA==\x07 \x1b[2J",
            intents=[ExpectedIntent("[link=http://example.com]click[/link]")],
            id="c00001",
        )
    ]
    (root / "hostile.suite.yaml").write_text(
        dump_suite(Suite(name="Hostile", cases=cases)), "utf-8"
    )
    app = new_app(root)
    async with app.run_test(size=(160, 24)) as pilot:
        view = app.screen.query_one(CasesView)
        await _wait_for(pilot, lambda: held.views and view.query(TablePreview))
        await pilot.pause()
        line = view.query_one(TablePreview).render_line(1)
        text = line.text
        assert "\x1b" not in text and "\x07" not in text
        assert "[bold red]x[/] ␛]52;c;ZXZpbA==␇ ␛[2J" in text  # literally, made visible
        # the cell is cut (Intents gives way to the utterance, issue 23), but literally
        assert "[link=http://ex…" in text and "click" not in text
        assert all(not segment.style or not segment.style.link for segment in line)


async def test_f5_pressed_before_the_panes_are_there_opens_the_start_dialog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """F5 as soon as the suite is loaded, before the Runs pane exists: the pane is mounted and
    the start dialog opens (the dialog used to be asked of a pane not composed yet, and the
    key was lost: tests/test_e2e_tmux_repeat.py failed whenever F5 came that early)."""
    from nlu_tui.ui.screens.run_start import StartRunDialog
    from nlu_tui.ui.state import workbench

    monkeypatch.setattr(main_screen, "EXTRA_PANES_AT_LATEST", 60.0)
    original = main_screen.MainScreen.ensure_extra_panes
    keys: list[str] = []

    def only_for_a_key(self: main_screen.MainScreen) -> Any:
        return original(self) if keys else []  # the first-screen mount never comes

    monkeypatch.setattr(main_screen.MainScreen, "ensure_extra_panes", only_for_a_key)
    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await _wait_for(pilot, lambda: workbench(app).suite is not None)
        await pilot.pause(0.2)
        assert not app.screen.query(RunsPane)
        keys.append("f5")
        await pilot.press("f5")
        await _wait_for(pilot, lambda: isinstance(app.screen, StartRunDialog))


PLAIN_VALUES: list[Any] = [
    None,
    0,
    7,
    -12,
    123456,
    "",
    " ",
    "a",
    "how much money is in my account",
    "trailing space ",
    "  leading",
    "ends with dot.",
    "x" * 40,
    "two\nlines",
    "tab\there",
    "bell\x07 and cr\r",
    "café au lait",
    "日本語のテキスト",
    "emoji 🙂 text",
    "combining e\u0301",
    "[bold]not markup[/] :smile:",
    "␛]52;c;ZXZpbA==␇",
]
"""Cell values of every kind the preview meets: numbers, empty cells, plain text of every
length, and what only Rich lays out right (tabs, control characters, wide and combining
characters, markup-like and inerted text)."""


async def test_the_preview_lays_plain_cells_out_as_rich_does(tmp_path: Path) -> None:
    """The preview draws plain ASCII cells without Rich's layout (the first screen's rows):
    each cell, at every width, in the header and in the rows, with the cursor's colours on
    top, is what Rich draws (the cases table's own renderer, pinned against the preview by
    the test above); anything else is left to Rich."""
    from rich.segment import Segment
    from textual.strip import Strip

    from nlu_tui.ui.widgets.table_preview import plain_cell, rich_cell

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE):
        console = app.console
        styles = [
            (Style(color="white", bgcolor="black"), Style.null()),
            (Style(color="red", bgcolor="blue", bold=True), Style(color="yellow")),
        ]
        fast = 0
        for value in PLAIN_VALUES:
            for header in (False, True):
                for content in range(1, 14):
                    for style, post in styles:
                        want = _cells(
                            Strip(rich_cell(console, value, content, header, style, post)), 99
                        )
                        text = plain_cell(value, content, header=header)
                        if text is None:
                            continue
                        fast += 1
                        got = _cells(Strip([Segment(text, style + post)]), 99)
                        assert got == want, (value, content, header)
        assert fast > 500  # most cells take the plain path
        for value in ("tab\there", "bell\x07", "日本語", "emoji 🙂", "e\u0301", 123456):
            assert plain_cell(value, 3, header=False) is None  # Rich's


async def test_training_files_and_last_runs_follow_the_first_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The suites panel's first listing reads the suites only: the developer utterances of the
    training files (a parse of their training data each) and the last runs (the run store) come
    once the first screen is up, the training file's entry after the suites as in any listing."""
    from nlu_tui import workspace as workspace_module
    from nlu_tui.store import RunStore
    from nlu_tui.store_location import configured
    from nlu_tui.ui.widgets.cases_shown import CasesShown
    from nlu_tui.ui.widgets.suites_panel import SuitesPanel

    root = make_workspace(tmp_path, SAMPLE_SUITE, SAMPLE_SUITE.with_name("banking_bot.nlu.yml"))
    with RunStore(configured().url):  # a run store (empty): the panel reads its last runs
        pass
    events: list[str] = []
    info = workspace_module.Workspace.info
    last_runs = workspace_module.last_runs_by_suite
    preview = CasesShown.show_preview

    def read_info(self: Any, path: Path, runs: Any = None) -> Any:
        events.append(f"info {path.name}")
        return info(self, path, runs)

    def read_runs() -> Any:
        events.append("runs")
        return last_runs()

    def show_preview(self: Any, *args: Any) -> None:
        events.append("preview")
        preview(self, *args)

    monkeypatch.setattr(workspace_module.Workspace, "info", read_info)
    monkeypatch.setattr(workspace_module, "last_runs_by_suite", read_runs)
    monkeypatch.setattr(CasesShown, "show_preview", show_preview)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.screen.query_one(SuitesPanel)
        await _wait_for(pilot, lambda: len(panel.infos) == 2, timeout=60)
        await settle(pilot)
        assert events.index("info banking_bot.suite.yaml") < events.index("preview")
        assert events.index("preview") < events.index("info banking_bot.nlu.yml")
        assert events.index("preview") < events.index("runs")
        assert [Path(key).name for key in panel.infos] == [
            "banking_bot.suite.yaml",
            "banking_bot.nlu.yml",
        ]
        developer = panel.infos[str(root / "banking_bot.nlu.yml")]
        assert developer.read_only and developer.case_count > 0
        assert panel.border_title == "Suites (2)"
        options = panel.query_one("#suite-list")
        assert options.option_count == 2  # type: ignore[attr-defined]
        assert options.highlighted == 0  # type: ignore[attr-defined]


async def test_a_sentence_replaces_the_sentence_on_show_in_place(tmp_path: Path) -> None:
    """ "No suite" then "Loading …" (the first screen) change the sentence's text in place: no
    widget removed and mounted (a new layout and a full repaint before the first rows), the
    text shown literally, and the swap announced as any swap is."""
    from textual.message import Message
    from textual.widgets import Static

    from nlu_tui.ui.widgets.cases_area import CasesArea

    root = tmp_path / "empty"
    root.mkdir()
    app = new_app(root)
    swaps: list[tuple[bool, bool]] = []
    seen: set[int] = set()

    def hook(message: Message) -> None:  # each message once (it is seen at every bubble)
        if isinstance(message, CasesArea.Swapped) and id(message) not in seen:
            seen.add(id(message))
            swaps.append((message.table, message.final))

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        area = app.screen.query_one(CasesArea)
        await settle(pilot)
        before = area.children[0]
        assert isinstance(before, Static) and before.has_class("placeholder")
        swaps.clear()
        area.show_text("Loading [b]x[/b].suite.yaml…", loading=True)
        await _wait_for(pilot, lambda: len(swaps) == 1)
        assert area.children[0] is before and before.has_class("loading")
        assert str(before.render()) == "Loading [b]x[/b].suite.yaml…"
        area.show_text("x.suite.yaml: cannot read")
        await _wait_for(pilot, lambda: len(swaps) == 2)
        assert area.children[0] is before and not before.has_class("loading")
        assert str(before.render()) == "x.suite.yaml: cannot read"
        assert swaps == [(False, False), (False, True)]


async def test_a_remembered_training_file_is_listed_and_opened_at_once(tmp_path: Path) -> None:
    """When the suite to reopen is a training file's developer utterances, the first listing
    reads the training files too (it would otherwise have nothing to select)."""
    from nlu_tui import ui_state
    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.ui.widgets.suites_panel import SuitesPanel
    from nlu_tui.workspace import open_workspace

    root = make_workspace(tmp_path, SAMPLE_SUITE, SAMPLE_SUITE.with_name("banking_bot.nlu.yml"))
    ui_state.remember_workspace(root, suite="banking_bot.nlu.yml")
    app = NluTuiApp(open_workspace(root), cursor_blink=False, user_themes=True)
    app.prebuild_after = None
    async with app.run_test(size=SIZE) as pilot:
        panel = app.screen.query_one(SuitesPanel)
        await _wait_for(pilot, lambda: app.suite is not None, timeout=60)
        assert app.suite is not None and app.suite.read_only  # the developer utterances
        assert panel.selected_path == root / "banking_bot.nlu.yml"
        assert len(panel.infos) == 2
        # the Runs pane follows the first screen: let it finish mounting before quitting
        await _wait_for(pilot, lambda: bool(app.screen.query("#runs-table")), timeout=60)
        await settle(pilot)
