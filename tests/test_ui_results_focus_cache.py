"""The results table keeps its rendered cells when only the focus moves (issue 23, fast keys).

textual-fastdatatable drops every render cache on each style update, the focus's included, and
renders every visible cell again: most of ``d`` (focus to the detail pane). The workbench's
table (``fast_table.wide_table_class``) drops only the cells that look different without the
focus (the cursor's row and the header) and everything when a style the cells use changed.

Each check compares what the table shows (the lines it painted, styles included) with what it
shows rendered from nothing (every cache cleared, as fastdatatable itself would after a style
update): equal after focus moves in and out, cursor moves with the focus elsewhere, sorting,
a new view, and theme changes (one that changes only the colour of the row under the mouse,
which no cache key holds).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.geometry import Region
from textual.theme import Theme
from ui_runs_support import PaneApp, predictions_v1, show_run, small_suite, stored_run

from nlu_tui.store import RunStore
from nlu_tui.ui.widgets.results_detail import ResultDetail
from nlu_tui.ui.widgets.results_pane import ResultsPane
from nlu_tui.views.result_columns import ResultFilter

SIZE = (120, 36)


def painted(table: Any) -> list[list[tuple[str, Any]]]:
    """The table's lines as painted last (text and style of every segment)."""
    strips = table.render_lines(Region(0, 0, table.size.width, table.size.height))
    return [[(seg.text, seg.style) for seg in strip] for strip in strips]


def from_nothing(table: Any) -> list[list[tuple[str, Any]]]:
    """The table's lines rendered with every cache cleared."""
    table._clear_caches()
    return painted(table)


def cached_cells(table: Any) -> dict[Any, Any]:
    """The fastdatatable's rendered cells by cache key (row, column, style, cursor, ...)."""
    cache = table._cell_render_cache
    return {key: cache.get(key) for key in list(cache.keys())}


async def same_as_from_nothing(pilot: Any, table: Any, step: str) -> list[Any]:
    await pilot.pause()
    await pilot.pause()
    shown = painted(table)
    fresh = from_nothing(table)
    assert shown == fresh, f"{step}: lines differ: " + str(
        [y for y, (a, b) in enumerate(zip(shown, fresh, strict=True)) if a != b]
    )
    return shown


async def open_run(pilot: Any, app: PaneApp, store: RunStore) -> tuple[Any, Any]:
    pane = app.query_one(ResultsPane)
    await show_run(pilot, pane, stored_run(store, small_suite(), predictions_v1()))
    table = pane.table.data_table
    table.focus()
    await pilot.pause()
    return pane, table


async def test_focus_moves_keep_the_cells_and_show_what_a_fresh_render_shows(
    tmp_path: Path,
) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await open_run(pilot, app, store)
        await pilot.press("down", "down")
        focused = await same_as_from_nothing(pilot, table, "focused, cursor on row 3")
        cells = cached_cells(table)  # what was rendered, focused
        kept = {k: v for k, v in cells.items() if k[0] != -1 and not k[3]}
        assert len(kept) >= 5 * len(table.ordered_columns)

        await pilot.press("d")  # the detail pane takes the focus
        await pilot.pause()
        detail = pane.query_one(ResultDetail)
        assert app.focused is not None and detail in app.focused.ancestors_with_self
        blurred = await same_as_from_nothing(pilot, table, "after d")
        # the cursor's row and the header look different without the focus (Textual's
        # DataTable styles, which apply to the fastdatatable by name): what must be redrawn
        cursor_y = table.cursor_row + 1
        assert blurred[cursor_y] != focused[cursor_y]
        assert blurred[0] != focused[0]
        assert [y for y, (a, b) in enumerate(zip(focused, blurred, strict=True)) if a != b] == [
            0,
            cursor_y,
        ]

    # the same steps again, this time looking at the cache before anything clears it
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await open_run(pilot, app, store)
        await pilot.press("down", "down")
        await pilot.pause()
        await pilot.pause()
        painted(table)
        before = cached_cells(table)
        await pilot.press("d")
        await pilot.pause()
        await pilot.pause()
        painted(table)
        after = cached_cells(table)
        others = {k: v for k, v in before.items() if k[0] != -1 and not k[3]}
        assert others, "nothing was cached"
        # every cell but the cursor's and the header's was reused, not rendered again
        assert all(after.get(k) is v for k, v in others.items())
        assert not [k for k in before if k[3] and after.get(k) is before[k]]  # cursor redrawn


async def test_cursor_moves_sorting_and_new_views_with_the_focus_in_and_out(
    tmp_path: Path,
) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    app = PaneApp(ResultsPane, store)
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await open_run(pilot, app, store)
        results = pane.table
        await same_as_from_nothing(pilot, table, "first paint")
        await pilot.press("d")
        await same_as_from_nothing(pilot, table, "d")
        # the cursor moves while the detail pane has the focus
        assert results.select_case("c4")
        await same_as_from_nothing(pilot, table, "cursor moved, table blurred")
        await pilot.press("escape")  # back to the table
        await pilot.pause()
        assert app.focused is table
        await same_as_from_nothing(pilot, table, "escape: focus back on the table")
        await pilot.press("up", "up")
        await same_as_from_nothing(pilot, table, "cursor moved, table focused")
        await pilot.press("d")
        results.sort_by("utterance", descending=True)
        sorted_lines = await same_as_from_nothing(pilot, table, "sorted, table blurred")
        assert "▼" in "".join(text for text, _ in sorted_lines[0])
        pane.set_filter(ResultFilter(frozenset({"FP", "FN"})))
        filtered = await same_as_from_nothing(pilot, table, "filtered, table blurred")
        assert len([line for line in filtered if "".join(t for t, _ in line).strip()]) == 3
        results.focus_table()
        await same_as_from_nothing(pilot, table, "filtered, focused")
        pane.set_filter(ResultFilter())
        await same_as_from_nothing(pilot, table, "every row again, focused")


async def test_a_theme_that_changes_only_the_hover_colour_redraws_the_hovered_row(
    tmp_path: Path,
) -> None:
    """The hover colour is in no cache key (only whether a cell is hovered is): a theme change
    must still redraw it, as must any style change besides the focus."""
    store = RunStore(tmp_path / "runs.sqlite")
    app = PaneApp(ResultsPane, store)
    base = dict(
        primary="#0178D4",
        secondary="#004578",
        accent="#ffa62b",
        background="#121212",
        surface="#1e1e1e",
        panel="#24292f",
        dark=True,
    )
    app.register_theme(
        Theme(name="hover-a", variables={"block-hover-background": "#aa0000"}, **base)
    )
    app.register_theme(
        Theme(name="hover-b", variables={"block-hover-background": "#00aa00"}, **base)
    )
    app.theme = "hover-a"
    async with app.run_test(size=SIZE) as pilot:
        pane, table = await open_run(pilot, app, store)
        await pilot.hover(table, offset=(4, 4))  # the mouse over the 4th row's first cell
        assert table.hover_coordinate.row == 3
        red = await same_as_from_nothing(pilot, table, "hover, theme a")
        await pilot.press("d")
        await same_as_from_nothing(pilot, table, "hover, theme a, blurred")
        app.theme = "hover-b"
        green = await same_as_from_nothing(pilot, table, "hover, theme b, blurred")
        assert red[4] != green[4]  # the hovered row (header + 3)
        assert red[2] == green[2]  # the theme changes nothing else of a plain row
        app.theme = "textual-dark"
        await same_as_from_nothing(pilot, table, "another theme")
        pane.table.focus_table()
        await same_as_from_nothing(pilot, table, "another theme, focused")


async def test_the_cases_table_too(tmp_path: Path) -> None:
    """The cases table is the same table class, with a focus tint of its own (app.tcss)."""
    from ui_support import cases_view, make_workspace, new_app, settle

    app = new_app(make_workspace(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        table = cases_view(app).table
        assert table is not None
        table.focus()
        await pilot.press("down", "down", "down")
        focused = await same_as_from_nothing(pilot, table, "cases, focused")
        app.screen.focus_next()  # the focus leaves the table
        await pilot.pause()
        assert not table.has_focus
        blurred = await same_as_from_nothing(pilot, table, "cases, blurred")
        assert blurred[table.cursor_row + 1] != focused[table.cursor_row + 1]
        table.focus()
        await pilot.press("up")
        await same_as_from_nothing(pilot, table, "cases, focused again")
