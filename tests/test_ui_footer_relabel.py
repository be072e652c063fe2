"""The footer relabels its keys in place when a focus move changes them but not their number
(issue 23, fast keys: ``d`` recomposed the footer, about a sixth of the key), and what it
shows is what a recompose shows."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from nlu_tui.ui.widgets.footer import BudgetFooter


class _Keyed(Input):
    def action_noop(self) -> None:
        """Never pressed: the bindings only have to show in the footer."""


class _Edit(_Keyed):
    BINDINGS = [Binding("ctrl+e", "noop", "Edit"), Binding("ctrl+r", "noop2", "Rename")]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "noop2" else True  # shown, disabled

    def action_noop2(self) -> None:
        """Never pressed."""


class _Detail(_Keyed):
    BINDINGS = [
        Binding("ctrl+b", "noop", "Back to the table", tooltip="Go back"),
        Binding("ctrl+w", "wrap", "Wrap"),
    ]

    def action_wrap(self) -> None:
        """Never pressed."""


class _Single(_Keyed):
    BINDINGS = [Binding("ctrl+o", "noop", "Only")]


class _Panes(App[None]):
    BINDINGS = [Binding("f1", "help", "Help", id="app.help"), Binding("ctrl+q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield _Edit(id="edit")
        yield _Detail(id="detail")
        yield _Single(id="single")
        yield BudgetFooter()

    def action_help(self) -> None:
        """Never pressed."""


def shown(footer: BudgetFooter) -> list[tuple[Any, ...]]:
    return [
        (
            k.key,
            k.key_display,
            k.description,
            k.action,
            k._disabled,
            k.has_class("-disabled"),
            k.tooltip,
        )
        for k in footer.query(FooterKey)
    ]


async def focus_and_settle(app: _Panes, pilot: Any, widget_id: str) -> None:
    app.query_one(f"#{widget_id}").focus()
    for _ in range(4):
        await pilot.pause()


async def test_same_number_of_keys_relabels_them_as_a_recompose_would() -> None:
    app = _Panes()
    async with app.run_test(size=(100, 8)) as pilot:
        await focus_and_settle(app, pilot, "edit")
        footer = app.query_one(BudgetFooter)
        widgets = list(footer.query(FooterKey))
        before = shown(footer)
        assert ("ctrl+r", "^r", "Rename", "noop2", True, True) in [k[:6] for k in before]
        await focus_and_settle(app, pilot, "detail")
        assert list(footer.query(FooterKey)) == widgets  # the same widgets, relabelled
        relabelled = shown(footer)
        text = app.export_screenshot()
        assert "Back&#160;to&#160;the&#160;table" in text and "Rename" not in text
        assert ("ctrl+b", "^b", "Back to the table", "noop", False, False) in [
            k[:6] for k in relabelled
        ]
        regions = [(w.description, w.region) for w in widgets]
        assert regions[1][0] == "Back to the table" and regions[1][1].width > len(regions[1][0])
        footer.refresh(recompose=True)  # what a recompose shows: the same keys and picture
        await pilot.pause()
        await pilot.pause()
        assert list(footer.query(FooterKey)) != widgets
        assert shown(footer) == relabelled
        assert [(w.description, w.region) for w in footer.query(FooterKey)] == regions
        assert app.export_screenshot() == text


async def test_another_number_of_keys_recomposes() -> None:
    app = _Panes()
    async with app.run_test(size=(100, 8)) as pilot:
        await focus_and_settle(app, pilot, "edit")
        footer = app.query_one(BudgetFooter)
        widgets = list(footer.query(FooterKey))
        await focus_and_settle(app, pilot, "single")
        descriptions = [k.description for k in footer.query(FooterKey)]
        assert "Only" in descriptions and "Edit" not in descriptions
        assert not set(footer.query(FooterKey)) & set(widgets)
