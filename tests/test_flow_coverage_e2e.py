"""``nlu-tui test e2e --coverage-report`` against a loopback server speaking Rasa Pro's HTTP API
with CALM tracker events (``flow_started`` with ``parent_flow_id``/``parent_step_id``, bot and
action events with ``step_id``/``active_flow`` metadata, as Rasa Pro's flow executor writes
them): after the run each test case's tracker is read, as ``E2ETestRunner.run_tests`` does
with ``coverage=True`` (``rasa/e2e_test/e2e_test_runner.py``), and custom actions are those of
``GET /domain`` (``Domain.is_custom_action``)."""

from __future__ import annotations

import json
import threading
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from nlu_tui.cli.main import run as cli
from tests.http_handler_server import QuietHandler, serving

FLOWS = Path(__file__).parent / "fixtures" / "coverage" / "flows.yml"
LOCK = threading.Lock()
TRACKERS: dict[str, list[dict[str, Any]]] = {}
DOMAIN = {"actions": ["action_check_balance", "action_transfer", {"action_order_card": {}}]}


def meta(flow: str, step: str, **more: str) -> dict[str, Any]:
    return {"active_flow": flow, "step_id": step, **more}


def bot(name: str, flow: str, step: str) -> dict[str, Any]:
    return {"event": "bot", "text": name, "metadata": meta(flow, step, utter_action=name)}


def act(name: str, flow: str, step: str) -> dict[str, Any]:
    return {"event": "action", "name": name, "metadata": meta(flow, step)}


def started(flow: str, parent: str = "", step: str = "") -> dict[str, Any]:
    data = {"parent_flow_id": parent, "parent_step_id": step} if parent else {}
    return {"event": "flow_started", "flow_id": flow, "metadata": data}


T = "transfer_money"
SCRIPT: dict[str, list[dict[str, Any]]] = {
    "send 5 to bob": [
        started(T),
        {"event": "slot", "name": "recipient", "value": "bob"},
        {"event": "slot", "name": "amount", "value": 5},
        act("action_check_balance", T, "transfer_money_2_action_check_balance"),
        bot("utter_ask_confirm_transfer", T, "confirm"),
    ],
    "yes": [
        {"event": "slot", "name": "confirm_transfer", "value": True},
        act("action_transfer", T, "transfer_money_5_action_transfer"),
        bot("utter_transfer_done", T, "transfer_money_6_utter_transfer_done"),
        {"event": "flow_completed", "flow_id": T, "step_id": "END"},
    ],
    "new card": [
        started("replace_card"),
        bot("utter_ask_card_type", "replace_card", "replace_card_0_collect_card_type"),
    ],
    "visa": [
        {"event": "slot", "name": "card_type", "value": "visa"},
        act("action_order_card", "replace_card", "replace_card_1_action_order_card"),
        started("check_balance", "replace_card", "replace_card_2_link_check_balance"),
        started("authenticate", "check_balance", "check_balance_1_call_authenticate"),
        bot("utter_ask_pin", "authenticate", "authenticate_0_collect_pin"),
    ],
}


class CalmBot(QuietHandler):
    def do_GET(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        if path == "/version":
            self.send_json(b'{"version": "3.21.0", "minimum_compatible_version": "3.21.0"}')
        elif path == "/domain":
            self.send_json(json.dumps(DOMAIN).encode())
        elif path.startswith("/conversations/") and path.endswith("/tracker"):
            sender = urllib.parse.unquote(path.split("/")[2])
            with LOCK:
                events = list(TRACKERS.get(sender, []))
            self.send_json(json.dumps({"events": events}).encode())
        else:
            self.send_json(b'{"error": "not found"}', 404)

    def do_POST(self) -> None:
        path = urllib.parse.urlsplit(self.path).path
        body = self.read_json()
        if path == "/webhooks/rest/webhook":
            text, sender = str(body["message"]), str(body["sender"])
            user = {"event": "user", "text": text, "parse_data": {"commands": []}}
            if text == "send 5 to bob":
                user["parse_data"]["commands"] = [
                    {"command": "start flow", "flow": T},
                    {"command": "set slot", "name": "amount", "value": 5},
                ]
            new = [user, *SCRIPT[text], {"event": "action", "name": "action_listen"}]
            with LOCK:
                TRACKERS.setdefault(sender, []).extend(new)
            bots = [{"recipient_id": sender, "text": e["text"]} for e in new if e["event"] == "bot"]
            self.send_json(json.dumps(bots).encode())
        else:
            self.send_json(b"{}")


E2E = """\
test_cases:
  - test_case: transfer
    steps:
      - user: send 5 to bob
      - utter: utter_ask_confirm_transfer
      - user: "yes"
      - utter: utter_transfer_done
  - test_case: card
    steps:
      - user: new card
      - utter: utter_ask_card_type
      - user: visa
      - utter: utter_card_ordered
"""


def _base(tmp_path: Path, url: str) -> list[str]:
    return [
        "test",
        "e2e",
        str(tmp_path / "e2e.yml"),
        "--engine",
        f"rasa:{url}",
        "--coverage-report",
    ]


def test_e2e_coverage_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "e2e.yml").write_text(E2E, encoding="utf-8")
    out = tmp_path / "cov"
    with serving(CalmBot) as url:
        code = cli(
            [*_base(tmp_path, url), "--coverage-output-path", str(out), "--flows", str(FLOWS)]
        )
    assert code == 1, capsys.readouterr()
    passed = (out / "coverage_report_for_passed_tests.csv").read_text().splitlines()
    assert passed[1] == f'{FLOWS}::transfer money,75.0,8,2,"[12-13, 25-27]"'
    assert passed[-1] == "Total,26.09%,23,17,"  # 6 of 23
    failed = (out / "coverage_report_for_failed_tests.csv").read_text().splitlines()
    rows = {line.split(",")[0].split("::")[-1]: line for line in failed[1:]}
    assert rows["replace card"] == f"{FLOWS}::replace card,100.0,3,0,[]"  # link marked
    assert rows["check your balance"].startswith(f"{FLOWS}::check your balance,33.3")
    assert rows["authenticate"].startswith(f"{FLOWS}::authenticate,33.3")
    assert failed[-1] == "Total,21.74%,23,18,"  # 5 of 23
    for status in ("passed", "failed"):
        assert (out / f"commands_histogram_for_{status}_tests.png").read_bytes()[:4] == b"\x89PNG"
    # and the test cases of each status, as Rasa Pro's save_test_cases_to_yaml
    import yaml

    kept = {s: yaml.safe_load((out / s / "e2e.yml").read_text()) for s in ("passed", "failed")}
    assert [c["test_case"] for c in kept["passed"]["test_cases"]] == ["transfer"]
    assert [c["test_case"] for c in kept["failed"]["test_cases"]] == ["card"]
    assert kept["failed"]["test_cases"][0]["steps"][-1] == {"utter": "utter_card_ordered"}


def test_e2e_coverage_bad_output_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "e2e.yml").write_text(E2E, encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    with LOCK:
        TRACKERS.clear()
    with serving(CalmBot) as url:
        code = cli(
            [*_base(tmp_path, url), "--coverage-output-path", str(blocker), "--flows", str(FLOWS)]
        )
    assert code == 2
    assert TRACKERS == {}  # nothing was sent


def _two_runs(tmp_path: Path) -> Path:
    """Two runs of the same file with --coverage-report; the second fixes the card test case."""
    path = tmp_path / "e2e.yml"
    path.write_text(E2E, encoding="utf-8")
    fixed = bot("utter_card_ordered", "replace_card", "replace_card_1_action_order_card")
    with serving(CalmBot) as url:
        args = [*_base(tmp_path, url), "--flows", str(FLOWS), "--coverage-output-path"]
        assert cli([*args, str(tmp_path / "c1")]) == 1
        SCRIPT["visa"].append(fixed)
        try:
            assert cli([*args, str(tmp_path / "c2")]) == 0
        finally:
            SCRIPT["visa"].remove(fixed)
    return path


def test_workbench_coverage_tab_shows_steps_and_change(tmp_path: Path) -> None:
    """The conversation screen's Coverage tab (``v`` switches to it and back) marks each step
    of the latest run and shows ``+`` for the card steps now visited by a passed test case."""
    import asyncio

    from textual.app import App
    from textual.widgets import Static, TabbedContent

    from nlu_tui.store import RunStore
    from nlu_tui.ui.screens.conversation_tests import (
        CASES_TAB,
        COVERAGE_TAB,
        ConversationScreen,
    )

    path = _two_runs(tmp_path)

    async def scenario() -> str:
        class ConvApp(App[None]):
            run_store: RunStore | None = None
            run_sessions: dict[str, Any] = {}

            def on_mount(self) -> None:
                self.push_screen(ConversationScreen([path], engine="rasa:http://127.0.0.1:9"))

        app = ConvApp()
        async with app.run_test(size=(120, 60)) as pilot:
            screen = app.screen
            assert isinstance(screen, ConversationScreen)
            coverage = screen.query_one("#conv-coverage", Static)
            for _ in range(100):
                await pilot.pause(0.05)
                if "Passed tests" in str(coverage.content):
                    break
            tabs = screen.query_one("#conv-tabs", TabbedContent)
            assert tabs.active == CASES_TAB
            await pilot.press("v")
            await pilot.pause()
            assert tabs.active == COVERAGE_TAB and coverage.region.height > 0
            await pilot.press("v")
            await pilot.pause()
            assert tabs.active == CASES_TAB
            content = coverage.content
            return content.plain if hasattr(content, "plain") else str(content)

    text = asyncio.run(scenario())
    passed = text.split("Failed tests")[0]
    assert "Passed tests  47.83%" in passed  # 11 of 23
    assert "✓ replace_card_0_collect_card_type  lines 55-55  +" in passed
    assert "✗ transfer_money_3_utter_insufficient_funds  lines 12-13\n" in passed
    assert "✓ confirm  lines 15-27\n" in passed  # visited in both runs: no change
    assert "Failed tests\n  no flow step visited" in text


@pytest.mark.parametrize("size", [(120, 35), (80, 24)], ids=["120x35", "80x24"])
def test_snapshot_coverage_tab(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    """The Coverage tab of the second run: the figures kept with both runs, as stored."""
    from textual.app import App

    from nlu_tui.coverage_reports import SUMMARY_KEY
    from nlu_tui.store import RunStore
    from nlu_tui.ui.screens.conversation_tests import ConversationScreen

    _two_runs(tmp_path)
    with RunStore() as store:
        latest, earlier = store.list_runs()[:2]
        items = store.load_items(latest.id)
    for item in items:  # the file's place differs from one test to the next
        item.data["file"] = "e2e.yml"
    coverage = (latest.summary[SUMMARY_KEY], earlier.summary[SUMMARY_KEY])

    class ConvApp(App[None]):
        def on_mount(self) -> None:
            self.push_screen(
                ConversationScreen(
                    [Path("e2e.yml")], items=items, engine="rasa:URL", coverage=coverage
                )
            )

    async def show_coverage(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("v")
        await pilot.pause()

    assert snap_compare(ConvApp(), terminal_size=size, run_before=show_coverage)
