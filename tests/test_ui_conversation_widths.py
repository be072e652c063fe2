"""The conversation tests screen shows what the user said (issue 23, item 1): in the turns
table the user messages (the Expected column) take the free width first, as the utterance does
in the cases and results tables, and what the bot did gives way down to a floor instead of
leaving the screen. At 80×24 a long user message shows at least 28 characters, at 120×35 at
least 45, and the bot's answer stays in the row. Read from the rendered screen; snapshots at
both sizes keep the pictures."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from conversation_peer import BotState, handler_for
from http_handler_server import serving
from textual.app import App
from ui_runs_support import screen_text

from nlu_tui.conversation.service import ConversationRequest, open_conversation_run
from nlu_tui.store import RunStore
from nlu_tui.store.records import StoredItem
from nlu_tui.ui.screens.conversation_tests import ConversationScreen

LONG_MESSAGE = (
    "hello there, I would like to know whether the restaurant on the corner is open tonight"
)
LONG_ANSWER = (
    "Good evening and welcome to the booking assistant of the finest restaurants in town, "
    "how may I help"
)
CASES = f"""\
test_cases:
  - test_case: long greeting
    steps:
      - user: {LONG_MESSAGE}
      - bot: Hey!
"""
SHOWN = {(80, 24): 28, (120, 35): 45}
SIZES = [pytest.param(size, id=f"{size[0]}x{size[1]}") for size in SHOWN]


def stored_items(tmp_path: Path) -> list[StoredItem]:
    """A real run of CASES against the scripted server, whose greeting is LONG_ANSWER (the
    test case fails: it expected "Hey!")."""
    path = tmp_path / "long.e2e.yml"
    path.write_text(CASES, encoding="utf-8")
    state = BotState()
    state.greeting = LONG_ANSWER
    with serving(handler_for(state)) as url:
        store = RunStore()
        request = ConversationRequest(kind="e2e", path=path, engine=f"rasa:{url}", concurrency=1)
        final = asyncio.run(open_conversation_run(request, store).execute())
    items = store.load_items(final.id)
    for item in items:  # the same picture wherever the test runs
        item.data["file"] = "long.e2e.yml"
    return items


class ConvApp(App[None]):
    run_store: RunStore | None = None
    run_sessions: dict[str, Any] = {}

    def __init__(self, items: list[StoredItem]) -> None:
        super().__init__()
        self.items = items

    def on_mount(self) -> None:
        self.push_screen(ConversationScreen([Path("long.e2e.yml")], items=self.items))


def longest_shown(text: str, whole: str) -> int:
    """The most characters of ``whole``, from its start, on one line of ``text``."""
    best = 0
    for line in text.splitlines():
        size = len(whole)
        while size > best and whole[:size] not in line:
            size -= 1
        best = max(best, size)
    return best


async def settle_turns(pilot: Any) -> None:
    from ui_support import settle

    await settle(pilot)
    for _ in range(4):  # the fit runs after the first layout
        await pilot.pause()


def check_turns(app: App[Any], size: tuple[int, int]) -> None:
    text = screen_text(app)
    said = longest_shown(text, f"user: {LONG_MESSAGE}") - len("user: ")
    assert said >= SHOWN[size], text
    # the bot's answer still has a place in the row (its start, cut with "…")
    answer = next(line for line in text.splitlines() if "user: " in line)
    assert "intent greet" in answer and "…" in answer, text


@pytest.mark.parametrize("size", SIZES)
def test_the_user_message_takes_the_free_width_first(tmp_path: Path, size: tuple[int, int]) -> None:
    items = stored_items(tmp_path)

    async def scenario() -> None:
        app = ConvApp(items)
        async with app.run_test(size=size) as pilot:
            await settle_turns(pilot)
            check_turns(app, size)

    asyncio.run(scenario())


@pytest.mark.parametrize("size", SIZES)
def test_snapshot_turns_widths(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    items = stored_items(tmp_path)
    for item in items:  # the server's port is in the engine's answer: a fixed picture
        item.data.pop("sender_id", None)

    async def before(pilot: Any) -> None:
        await settle_turns(pilot)
        check_turns(pilot.app, size)

    assert snap_compare(ConvApp(items), terminal_size=size, run_before=before)
