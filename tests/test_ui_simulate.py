"""The workbench's simulated conversations: the palette command lists the simulate runs and
shows the selected one's pass rates and transcripts; a simulation started there shows each
turn as it is taken (loopback bot and scripted loopback LLM, as in test_simulate.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from conversation_peer import BotState, handler_for
from http_handler_server import serving
from llm_peer import LLMPeer
from test_simulate import SCENARIOS, script
from ui_support import make_workspace, new_app, settle

from nlu_tui.cli.main import run as cli
from nlu_tui.ui.screens.simulate_results import SimulateScreen


@pytest.fixture
def peers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[BotState, str, LLMPeer]]:
    state = BotState()
    peer = LLMPeer(script())
    with serving(handler_for(state)) as url, peer.serving() as llm:
        monkeypatch.setenv("NLU_TUI_LLM_BASE_URL", llm)
        monkeypatch.setenv("NLU_TUI_LLM_MODEL", "scripted")
        yield state, url, peer


def _text(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    return str(screen.query_one("#sim-text").render())


async def test_simulate_runs_show_rates_and_transcripts_and_a_run_goes_live(
    tmp_path: Path, peers: tuple[BotState, str, LLMPeer]
) -> None:
    _, url, peer = peers
    root = make_workspace(tmp_path)
    path = root / "scenarios.yml"
    path.write_text(SCENARIOS, encoding="utf-8")
    args = ["simulate", str(path), "--engine", f"rasa:{url}", "--runs", "5"]
    assert await asyncio.to_thread(cli, args) == 1
    app = new_app(root)
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        app.screen.action_simulate()  # type: ignore[attr-defined]
        await settle(pilot)
        assert isinstance(app.screen, SimulateScreen)
        text = _text(app)
        assert "book a table" in text and "60.0%  23.1%–88.2%" in text
        assert "book a table #4: FAILED (assertion)" in text
        assert "user: chinese please" in text and "bot:  How many?" in text
        assert "✓ criterion 'The bot confirms the booking.': 0.90 — it booked" in text
        # a simulation started here: every turn shows as it is taken
        peer.script = script()
        await pilot.press("s")
        app.screen.query_one("#sim-file").value = "scenarios.yml"  # type: ignore[attr-defined]
        app.screen.query_one("#sim-engine").value = f"rasa:{url}"  # type: ignore[attr-defined]
        app.screen.query_one("#sim-count").value = "1"  # type: ignore[attr-defined]
        seen: list[str] = []
        screen = app.screen
        assert isinstance(screen, SimulateScreen)
        original = screen._show

        def spy(lines: list[str]) -> None:
            seen.append("\n".join(lines))
            original(lines)

        screen._show = spy  # type: ignore[method-assign]
        await pilot.click("#sim-go")
        for _ in range(1200):
            await pilot.pause(0.05)
            if len(screen.records) == 2:
                break
        await settle(pilot)
        assert len(screen.records) == 2
        # the conversation grew turn by turn before it was stored
        growing = [s for s in seen if "book a table #1" in s and "[1/2]" not in s]
        assert any("user: I'd like to book a table" in s and "italian" not in s for s in growing)
        assert any("user: italian please" in s for s in growing)
        assert "100.0%" in _text(app)  # the new run's report, once it ended
