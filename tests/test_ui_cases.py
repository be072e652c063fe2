"""Pilot tests of the cases flows: add, edit, filter, sort, bulk delete, undo, untrusted text."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from textual.widgets import Button, Input, TextArea
from ui_runs_support import wait_for
from ui_support import SIZE, cases_view, make_workspace, new_app, settle, utterances_shown

from nlu_tui.formats.native import load_suite
from nlu_tui.ui.screens.case_editor import CaseEditorScreen
from nlu_tui.ui.widgets.entity_row import EntityRowWidget


def _suite_file(root: Path) -> Path:
    return root / "banking_bot.suite.yaml"


async def _open(pilot) -> None:  # type: ignore[no-untyped-def]
    await settle(pilot)
    await pilot.press("f3")
    await settle(pilot)


@pytest.mark.slow
async def test_add_case_with_two_intents_parent_regex_entity_and_order(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        before = len(cases_view(app).suite.cases)
        await pilot.press("a")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, CaseEditorScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        editor = app.screen
        assert isinstance(editor, CaseEditorScreen)
        assert editor.query_one("#save", Button).disabled  # empty form is not valid
        editor.query_one(
            "#utterances", TextArea
        ).text = "pay [bold]Leo[/] 20 dollars\nsend Leo 20 bucks"
        editor.query_one("#intent-1", Input).value = "transfer_money"
        editor.query_one("#intent-2", Input).value = "pay_bill"
        editor.query_one("#parent", Input).value = "check_balance > transfer_money"
        await pilot.press("ctrl+n")
        await pilot.pause()
        row = editor.query_one(EntityRowWidget)
        name, value, _alt = row.query(Input).results()
        name.value = "payee"
        value.value = "Leo(nardo)?"
        from textual.widgets import Select

        row.query_one(Select).value = "regex"
        await pilot.press("ctrl+n")
        await pilot.pause()
        second = list(editor.query(EntityRowWidget))[1]
        n2, v2, _ = second.query(Input).results()
        n2.value = "amount"
        v2.value = "20 dollars"
        await pilot.pause()
        # two intents: an entity order is not allowed, the form says so and Save stays off
        order = editor.query_one("#order", Input)
        assert order.disabled
        order.disabled = False
        order.value = "amount, payee"
        await pilot.pause()
        assert editor.query_one("#save", Button).disabled
        assert "only allowed with exactly one intent" in str(editor.query_one("#problems").render())
        # an invalid regex is an error too
        value.value = "Leo(nardo"
        await pilot.pause()
        assert editor.query_one("#save", Button).disabled
        value.value = "Leo(nardo)?"
        order.value = ""
        await pilot.pause()
        assert not editor.query_one("#save", Button).disabled
        await pilot.press("ctrl+s")
        await settle(pilot)
        await wait_for(pilot, lambda: not isinstance(app.screen, CaseEditorScreen))
        assert not isinstance(app.screen, CaseEditorScreen)
        assert len(cases_view(app).suite.cases) == before + 2

    saved = load_suite(_suite_file(root))
    assert len(saved.cases) == before + 2
    added = saved.cases[-2]
    assert added.utterance == "pay [bold]Leo[/] 20 dollars"
    assert added.intent_names == ["transfer_money", "pay_bill"]
    assert added.parent_intents == ["check_balance", "transfer_money"]
    payee = next(e for e in added.entities if e.name == "payee")
    assert payee.kind == "regex" and payee.value == "Leo(nardo)?"
    assert saved.cases[-1].utterance == "send Leo 20 bucks"
    assert saved.cases[-1].id != added.id


@pytest.mark.slow
async def test_entity_order_with_one_intent_is_saved(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await pilot.press("a")
        await pilot.pause()
        editor = app.screen
        editor.query_one("#utterances", TextArea).text = "send 5 dollars to Ann"
        editor.query_one("#intent-1", Input).value = "transfer_money"
        for name, value in (("amount", "5 dollars"), ("payee", "Ann")):
            await pilot.press("ctrl+n")
            await pilot.pause()
            row = [w for w in editor.query(EntityRowWidget) if w.display][-1]  # hidden: spare rows
            n, v, _ = row.query(Input).results()
            n.value, v.value = name, value
        await pilot.pause()
        await pilot.press("ctrl+o")  # fill the order from the entity list
        await pilot.pause()
        await wait_for(pilot, lambda: editor.query_one("#order", Input).value == "amount, payee")
        assert editor.query_one("#order", Input).value == "amount, payee"
        editor.query_one("#order", Input).value = "payee, amount"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
    case = load_suite(_suite_file(root)).cases[-1]
    assert case.utterance == "send 5 dollars to Ann"
    assert case.entity_order == ["payee", "amount"]


@pytest.mark.slow
async def test_edit_case_and_undo(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        view = cases_view(app)
        first = view.suite.cases[0]
        await pilot.press("e")
        await pilot.pause()
        await wait_for(pilot, lambda: isinstance(app.screen, CaseEditorScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        editor = app.screen
        assert isinstance(editor, CaseEditorScreen)
        assert editor.query_one("#intent-1", Input).value == first.intents[0].name
        editor.query_one("#utterances", TextArea).text = "how much is in checking, edited"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(pilot)
        saved = load_suite(_suite_file(root))
        assert saved.cases[0].utterance == "how much is in checking, edited"
        assert saved.cases[0].id == first.id
        assert saved.cases[0].tags == first.tags
        await pilot.press("z")
        await settle(pilot)
    await wait_for(
        pilot, lambda: load_suite(_suite_file(root)).cases[0].utterance == first.utterance
    )
    assert load_suite(_suite_file(root)).cases[0].utterance == first.utterance


@pytest.mark.slow
async def test_filter_by_text_intent_tag_and_flags(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        suite = cases_view(app).suite
        await pilot.press("slash")
        for ch in "intent:check_balance":
            await pilot.press(ch)
        await settle(pilot)
        shown = utterances_shown(app)
        expected = [c.utterance for c in suite.cases if "check_balance" in c.intent_names]
        assert shown == expected and shown
        filt = app.screen.query_one("#filter", Input)
        filt.value = "tag:smoke has:entities"
        await settle(pilot)
        expected = [c.utterance for c in suite.cases if "smoke" in c.tags and c.entities]
        assert utterances_shown(app) == expected and expected
        filt.value = "dollars"
        await settle(pilot)
        assert utterances_shown(app) == [
            c.utterance for c in suite.cases if "dollars" in c.utterance.lower()
        ]
        filt.value = ""
        await settle(pilot)
        assert len(utterances_shown(app)) == len(suite.cases)


@pytest.mark.slow
async def test_sort_by_columns(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        suite = cases_view(app).suite
        await pilot.press("4")  # Utterance
        await settle(pilot)
        await wait_for(
            pilot, lambda: utterances_shown(app) == sorted(c.utterance for c in suite.cases)
        )
        assert utterances_shown(app) == sorted(c.utterance for c in suite.cases)
        await pilot.press("4")  # again: descending
        await settle(pilot)
        await wait_for(
            pilot,
            lambda: (
                utterances_shown(app) == sorted((c.utterance for c in suite.cases), reverse=True)
            ),
        )
        assert utterances_shown(app) == sorted((c.utterance for c in suite.cases), reverse=True)
        await pilot.press("5")  # Intents
        await settle(pilot)
        view = cases_view(app)
        from nlu_tui.case_form import format_intents

        by_id = {c.id: c for c in suite.cases}
        keys = [format_intents(by_id[i]) for i in view.view_ids]
        assert keys == sorted(keys)


@pytest.mark.slow
async def test_bulk_delete_with_confirmation_and_undo(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        suite = cases_view(app).suite
        total = len(suite.cases)
        doomed = [suite.cases[0].id, suite.cases[1].id, suite.cases[3].id]
        await pilot.press("space", "space", "down", "space")  # marks rows 1, 2 and 4
        await pilot.pause()
        await wait_for(pilot, lambda: cases_view(app).selected == set(doomed))
        assert cases_view(app).selected == set(doomed)
        await pilot.press("delete")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        saved = load_suite(_suite_file(root))
        assert len(saved.cases) == total - 3
        assert not set(doomed) & {c.id for c in saved.cases}
        await pilot.press("ctrl+z")
        await settle(pilot)
    await wait_for(pilot, lambda: len(load_suite(_suite_file(root)).cases) == total)
    assert len(load_suite(_suite_file(root)).cases) == total


@pytest.mark.slow
async def test_bulk_tag(tmp_path: Path) -> None:
    root = make_workspace(tmp_path)
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        await pilot.press("space", "space")
        await pilot.press("t")
        await pilot.pause()
        app.screen.query_one("#value", Input).value = "nightly, triage"
        await pilot.press("enter")
        await settle(pilot)
    cases = load_suite(_suite_file(root)).cases
    assert {"nightly", "triage"} <= set(cases[0].tags) and {"nightly", "triage"} <= set(
        cases[1].tags
    )
    assert "nightly" not in cases[2].tags


async def test_markup_in_utterances_shows_literally(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "evil.suite.yaml").write_text(
        yaml.safe_dump(
            {
                "nlu_tui_suite": 1,
                "name": "[red]evil[/] suite",
                "cases": [
                    {"utterance": "[bold red]x[/]", "intents": ["[link=http://e.x]i[/link]"]},
                    {"utterance": "plain"},
                ],
            }
        ),
        encoding="utf-8",
    )
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await _open(pilot)
        table = cases_view(app).table
        assert table.render_markup is False
        lines = "\n".join(
            "".join(seg.text for seg in table.render_line(y)) for y in range(table.size.height)
        )
        assert "[bold red]x[/]" in lines
        # Intents gives way to the utterance (issue 23): cut, but literally
        assert "[link=http://e.x]i[/link]"[:15] + "…" in lines
        panel_text = app.screen.query_one("#suite-list").render_line(0).text
        assert "[red]evil[/] suite" in panel_text
