"""Talk to the bot, save the chat as an E2E test case, and run it with ``test e2e``.

The bot is the scripted conversation server (tests/conversation_peer.py) over real HTTP, speaking
Rasa's REST channel and tracker API; the saved test cases are then run by ``nlu-tui test e2e``
against it, so what is checked is that a recording replays, and that a change of the bot's
wording fails it unless the changed part was marked volatile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from nlu_tui.cli.main import run as cli
from nlu_tui.conversation.recorder import Recorder
from nlu_tui.formats import e2e_cases
from nlu_tui.formats.e2e_splice import append_test_case
from tests.conversation_peer import BotState, handler_for, reply
from tests.http_handler_server import serving

EXISTING = """\
# the team's booking tests
test_cases:
  - test_case: greets   # kept as written
    steps:
      - user: hi
      - bot: Hey!
"""


@pytest.fixture
def bot() -> Iterator[tuple[str, BotState]]:
    state = BotState()
    with serving(handler_for(state)) as url:
        yield url, state


def record(
    url: str, messages: list[str], volatile: tuple[tuple[int, int, str], ...] = ()
) -> Recorder:
    recorder = Recorder(f"rasa:{url}")

    async def chat() -> None:
        await recorder.start()
        try:
            for text in messages:
                await recorder.say(text)
        finally:
            await recorder.close()

    asyncio.run(chat())
    for turn, message, part in volatile:
        recorder.mark_volatile(turn, message, part)
    return recorder


def e2e(path: Path, url: str, out: Path) -> tuple[int, dict[str, Any]]:
    code = cli(["test", "e2e", str(path), "--engine", f"rasa:{url}", "--e2e-results", str(out)])
    passed = yaml.safe_load((out / "e2e_results_passed.yml").read_text(encoding="utf-8"))
    return code, passed


def test_a_recorded_chat_is_appended_in_the_files_layout_and_replays(
    tmp_path: Path, bot: tuple[str, BotState]
) -> None:
    url, _state = bot
    recorder = record(url, ["hello", "book a table", "italian"])
    case = recorder.test_case("books italian")
    assert case["steps"] == [
        {"user": "hello"},
        {"bot": "Hey!"},
        {"user": "book a table"},
        {"bot": "What food?"},  # requested_slot, Rasa's own, is not a step
        {"user": "italian"},
        {"slot_was_set": [{"cuisine": "italian"}]},
        {"bot": "How many?"},
    ]
    path = tmp_path / "tests.yml"
    path.write_text(EXISTING, encoding="utf-8")
    saved = append_test_case(path, case)
    assert saved.notes == []
    text = path.read_text(encoding="utf-8")
    assert text.startswith(EXISTING)  # every byte before it kept, comments included
    assert "\n  - test_case: books italian\n    steps:\n" in text  # the file's column
    names = [c.name for c in e2e_cases.read(path).test_cases]
    assert names == ["greets", "books italian"]
    code, passed = e2e(path, url, tmp_path / "out")
    assert code == 0 and [r["name"] for r in passed["test_results"]] == names


def test_a_volatile_part_of_a_named_response_is_checked_by_its_name(
    tmp_path: Path, bot: tuple[str, BotState]
) -> None:
    url, state = bot
    plain = record(url, ["hi"]).test_case("plain")
    marked = record(url, ["hi"], ((0, 0, "Hey"),)).test_case("marked")
    assert marked["steps"] == [{"user": "hi"}, {"utter": "utter_greet"}]
    path = tmp_path / "new.yml"  # a file that does not exist yet is created
    append_test_case(path, plain)
    append_test_case(path, marked)
    state.greeting = "Hello there!"  # the bot's wording changes
    code = cli(
        ["test", "e2e", str(path), "--engine", f"rasa:{url}", "--e2e-results", str(tmp_path)]
    )
    failed = yaml.safe_load((tmp_path / "e2e_results_failed.yml").read_text(encoding="utf-8"))
    passed = yaml.safe_load((tmp_path / "e2e_results_passed.yml").read_text(encoding="utf-8"))
    assert code == 1
    assert [r["name"] for r in failed["test_results"]] == ["plain"]
    assert [r["name"] for r in passed["test_results"]] == ["marked"]


def test_a_volatile_text_without_a_response_name_becomes_assertions(
    tmp_path: Path, bot: tuple[str, BotState]
) -> None:
    url, state = bot
    counter = {"n": 41}

    def numbered(events: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
        if "order" not in text:
            return reply(events, text)
        counter["n"] += 1  # a custom action's text: no response name, a new number each time
        return [
            {"event": "user", "text": text, "parse_data": {"intent": {"name": "order"}}},
            {"event": "slot", "name": "order_id", "value": counter["n"]},
            {"event": "bot", "text": f"Your order number is {counter['n']}."},
            {"event": "action", "name": "action_listen"},
        ]

    state.reply = numbered
    case = record(url, ["place an order"], ((0, 0, "42"),)).test_case("orders")
    assert case["steps"] == [
        {
            "user": "place an order",
            "assertions": [
                {"bot_uttered": {"text_matches": "^Your\\ order\\ number\\ is\\ .*\\.$"}},
                {"slot_was_set": [{"name": "order_id", "value": 42}]},
            ],
        }
    ]
    # the slot's value changes too: keep the text assertion only, as a tester would
    case["steps"][0]["assertions"].pop()
    path = tmp_path / "orders.yml"
    append_test_case(path, case)
    code, passed = e2e(path, url, tmp_path / "out")  # the bot now says 43
    assert code == 0 and [r["name"] for r in passed["test_results"]] == ["orders"]


def test_bad_input_is_refused_and_writes_nothing(tmp_path: Path, bot: tuple[str, BotState]) -> None:
    from nlu_tui.errors import InputError

    url, _state = bot
    recorder = record(url, ["hi"])
    with pytest.raises(InputError, match="not part of the bot's text"):
        recorder.mark_volatile(0, 0, "nope")
    with pytest.raises(InputError, match="name"):
        recorder.test_case(" ")
    with pytest.raises(InputError, match="cannot hold a conversation"):
        Recorder("embedded:" + str(Path(__file__).parents[1] / "sample_suites/banking_bot.nlu.yml"))
    path = tmp_path / "t.yml"
    with pytest.raises(InputError):
        append_test_case(path, {"test_case": "x", "steps": [{"usr": "typo"}]})
    assert not path.exists()


def test_the_workbench_records_a_three_turn_chat_that_test_e2e_passes(
    tmp_path: Path, bot: tuple[str, BotState]
) -> None:
    """Palette "conversation: Talk to the bot": engine, three messages, a volatile part, Ctrl+S
    with a name and the workspace's test file; then `test e2e` on that file."""
    from textual.widgets import Input, RichLog

    from nlu_tui.ui.app import NluTuiApp
    from nlu_tui.ui.screens.talk import TalkScreen
    from nlu_tui.workspace import open_workspace
    from tests.ui_support import settle

    url, _state = bot
    root = tmp_path / "ws"
    (root / "tests").mkdir(parents=True)
    target = root / "tests" / "booking.yml"
    target.write_text(EXISTING, encoding="utf-8")

    async def scenario() -> None:
        app = NluTuiApp(open_workspace(root), cursor_blink=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            app.action_talk()
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, TalkScreen)
            engine = screen.query_one("#talk-engine", Input)
            engine.value = f"rasa:{url}"
            await pilot.press("enter")
            for _ in range(100):
                await pilot.pause(0.05)
                if screen.recorder is not None:
                    break
            for count, message in enumerate(("hi", "book a table", "italian"), start=1):
                await pilot.press(*message, "enter")  # typed into the focused message field
                for _ in range(100):
                    await pilot.pause(0.05)
                    if screen.recorder is not None and len(screen.recorder.turns) == count:
                        break
            assert screen.recorder is not None and len(screen.recorder.turns) == 3
            shown = "\n".join(
                str(line.text) for line in screen.query_one("#talk-log", RichLog).lines
            )
            assert "bot: How many?" in shown and "you: italian" in shown
            await pilot.press("ctrl+o")  # "How many?" -> mark "many" volatile
            await settle(pilot)
            field = app.screen.query_one("#value", Input)
            field.value = "many"
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("ctrl+s")
            await settle(pilot)
            await pilot.press(*"books italian", "enter")
            await settle(pilot)
            assert app.screen.query_one("#value", Input).value == str(target)
            await pilot.press("enter")
            await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)

    asyncio.run(scenario())
    added = e2e_cases.read(target).test_cases[-1]
    assert added.name == "books italian"
    assert e2e_cases.case_to_data(added)["steps"][-1] == {"utter": "utter_ask_people"}
    assert target.read_text(encoding="utf-8").startswith(EXISTING)
    code, passed = e2e(target, url, tmp_path / "out")
    assert code == 0
    assert [r["name"] for r in passed["test_results"]] == ["greets", "books italian"]
