"""Pilot tests of the Cases tab's "Generate…" dialog against the loopback LLM: generate,
reject one, edit one inline, generate more (no repeats), add; and the no-endpoint message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Button, Input, OptionList, Select, Static
from ui_runs_support import wait_for
from ui_support import SIZE, cases_view, make_workspace, new_app, settle

from nlu_tui.formats.native import load_suite
from nlu_tui.ui.screens.generate_dialog import GenerateScreen
from tests.llm_peer import LLMPeer, Reply

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
ROUND_1 = ["how much cash is in savings rn", "check my balance", "balance for my joint acct pls"]
ROUND_2 = ["how much cash is in savings rn", "what do i have left in checking"]


def _workspace(tmp_path: Path) -> Path:
    return make_workspace(
        tmp_path, SAMPLES / "banking_bot.suite.yaml", SAMPLES / "banking_bot.nlu.yml"
    )


def _text(widget: Static) -> str:
    return str(widget.render())


@pytest.mark.slow
async def test_generate_review_more_and_add(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _workspace(tmp_path)
    peer = LLMPeer([Reply(json.dumps(ROUND_1)), Reply(json.dumps(ROUND_2))])
    with peer.serving() as url:
        monkeypatch.setenv("NLU_TUI_LLM_BASE_URL", url)
        monkeypatch.setenv("NLU_TUI_LLM_MODEL", "loop-model")
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("f3")
            await settle(pilot)
            before = len(cases_view(app).suite.cases)
            await pilot.press("G")
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, GenerateScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            dialog = app.screen
            assert isinstance(dialog, GenerateScreen)
            dialog.query_one("#gen-intent", Select).value = "check_balance"
            dialog.query_one("#gen-count", Input).value = "3"
            await pilot.click("#gen-more")
            await settle(pilot)
            listing = dialog.query_one("#gen-list", OptionList)
            assert listing.option_count == 3
            listing.focus()
            listing.highlighted = 1  # "check my balance": leakage
            await pilot.pause()
            notes = _text(dialog.query_one("#gen-notes", Static))
            assert "leakage: identical to training example 'check my balance'" in notes
            await pilot.press("space")  # reject it
            listing.highlighted = 2
            await pilot.press("e")
            await pilot.pause()
            edit = dialog.query_one("#gen-edit", Input)
            assert edit.value == ROUND_1[2]
            edit.value = "balance for my joint account please"
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press("g")  # generate more
            await settle(pilot)
            await wait_for(pilot, lambda: listing.option_count == 4)
            assert listing.option_count == 4  # the repeat was dropped
            second = peer.requests[1].messages[1]["content"]
            assert "- check my balance\n" in second  # the rejected one is not asked again
            status = _text(dialog.query_one("#gen-status", Static))
            assert "model loop-model" in status and "banking_bot.nlu.yml" in status
            assert "4 shown, 3 to add" in status
            await pilot.press("ctrl+s")
            await settle(pilot)
            await wait_for(pilot, lambda: not isinstance(app.screen, GenerateScreen))
            assert not isinstance(app.screen, GenerateScreen)
            assert len(cases_view(app).suite.cases) == before + 3
    saved = [c.utterance for c in load_suite(root / "banking_bot.suite.yaml").cases]
    assert saved[-3:] == [
        "how much cash is in savings rn",
        "balance for my joint account please",
        "what do i have left in checking",
    ]
    assert "check my balance" not in saved[-3:]


@pytest.mark.slow
async def test_without_endpoint_the_dialog_says_how_to_configure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _workspace(tmp_path)
    monkeypatch.delenv("NLU_TUI_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("NLU_TUI_CONFIG_DIR", str(tmp_path / "config"))
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f3")
        await settle(pilot)
        await pilot.press("G")
        await settle(pilot)
        await wait_for(pilot, lambda: isinstance(app.screen, GenerateScreen))
        await pilot.pause()  # the screen pushed: composed and mounted
        dialog = app.screen
        assert isinstance(dialog, GenerateScreen)
        error = _text(dialog.query_one("#gen-error", Static))
        assert "no LLM endpoint is configured" in error and "base_url" in error
        # the status line sits above the help: it points down to it, not "above"
        status = _text(dialog.query_one("#gen-status", Static))
        assert "No LLM endpoint" in status and "below" in status and "above" not in status
        assert dialog.query_one("#gen-more", Button).disabled
        await pilot.press("escape")
        await pilot.pause()
        await wait_for(pilot, lambda: not isinstance(app.screen, GenerateScreen))
        assert not isinstance(app.screen, GenerateScreen)


@pytest.mark.slow
async def test_a_malformed_answer_is_shown_and_nothing_is_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _workspace(tmp_path)
    before = (root / "banking_bot.suite.yaml").read_bytes()
    peer = LLMPeer([Reply("Sure! Here are some utterances: 1. hi")])
    with peer.serving() as url:
        monkeypatch.setenv("NLU_TUI_LLM_BASE_URL", url)
        monkeypatch.setenv("NLU_TUI_LLM_MODEL", "loop-model")
        app = new_app(root)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("f3")
            await settle(pilot)
            await pilot.press("G")
            await settle(pilot)
            await wait_for(pilot, lambda: isinstance(app.screen, GenerateScreen))
            await pilot.pause()  # the screen pushed: composed and mounted
            dialog = app.screen
            assert isinstance(dialog, GenerateScreen)
            await pilot.press("g")
            await settle(pilot)
            error = _text(dialog.query_one("#gen-error", Static))
            assert "not a JSON array of utterances (starts 'Sure! Here are" in error
            assert dialog.query_one("#gen-list", OptionList).option_count == 0
            await pilot.press("ctrl+s")
            await wait_for(
                pilot,
                lambda: (
                    "generate some proposals first" in _text(dialog.query_one("#gen-error", Static))
                ),
            )
            assert "generate some proposals first" in _text(dialog.query_one("#gen-error", Static))
            await pilot.press("escape")
            await pilot.pause()
    assert (root / "banking_bot.suite.yaml").read_bytes() == before


async def test_the_palette_opens_generate_from_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "the Cases tab's Generate… (`G`, or the palette)". `G` needs the Cases table's
    focus; the palette entry (there was none) opens the dialog from the suites panel too."""
    root = _workspace(tmp_path)
    monkeypatch.delenv("NLU_TUI_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("NLU_TUI_CONFIG_DIR", str(tmp_path / "config"))
    app = new_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        commands = {c.name: c for c in app.palette_commands()}
        assert "cases: Generate…" in commands
        commands["cases: Generate…"].callback()
        await settle(pilot)
        assert isinstance(app.screen, GenerateScreen)
