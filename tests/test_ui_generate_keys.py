"""``G`` (issue 23, item 5: fast keys): the built-ahead Generate dialog reads the LLM settings
and training data once it is drawn, not while; a ``g`` typed right behind ``G``, before they
are read, still generates (it used to say "no LLM endpoint is configured")."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from textual import events
from textual.widgets import OptionList, Static
from ui_support import SIZE, make_workspace, new_app, settle

from nlu_tui.ui.reuse import spare
from nlu_tui.ui.screens.generate_dialog import GenerateScreen
from tests.llm_peer import LLMPeer, Reply

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"
ANSWER = ["how much is left on my card", "what is my balance right now"]


@pytest.mark.slow
async def test_g_typed_right_behind_capital_g_generates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_workspace(
        tmp_path, SAMPLES / "banking_bot.suite.yaml", SAMPLES / "banking_bot.nlu.yml"
    )
    peer = LLMPeer([Reply(json.dumps(ANSWER))])
    with peer.serving() as url:
        monkeypatch.setenv("NLU_TUI_LLM_BASE_URL", url)
        monkeypatch.setenv("NLU_TUI_LLM_MODEL", "loop-model")
        app = new_app(root, prebuild=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("f3")
            deadline = time.monotonic() + 60
            while spare(app, GenerateScreen) is None:
                assert time.monotonic() < deadline, "the generate dialog was not built ahead"
                await asyncio.sleep(0.02)
            await settle(pilot)
            built = spare(app, GenerateScreen)
            # both keys at once, as a fast typist's terminal delivers them
            app.post_message(events.Key("G", "G"))
            app.post_message(events.Key("g", "g"))
            deadline = time.monotonic() + 60
            while not peer.requests or app.screen is not built:
                assert time.monotonic() < deadline, (
                    "g behind G generated nothing: "
                    + str(built.query_one("#gen-error", Static).render())  # type: ignore[union-attr]
                )
                await pilot.pause(0.05)
            await settle(pilot)
            assert app.screen is built
            assert built is not None and built.loaded
            assert str(built.query_one("#gen-error", Static).render()) == ""
            listing = built.query_one("#gen-list", OptionList)
            assert listing.option_count == len(ANSWER)
            assert len(peer.requests) == 1
