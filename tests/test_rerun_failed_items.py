"""``--rerun-failed RUN`` for runs of items: E2E conversations (``test e2e``) and dialogue
understanding tests (``test du``), also reached through ``nlu-tui run --rerun-failed RUN``.

Real engines over real HTTP on 127.0.0.1 that fail a known set of test cases once (an HTTP
error, a wrong answer), a real SQLite store: the child run sends exactly that set, and its
merged result (the parent's passes and the child's outcomes) equals a clean run's.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path

import pytest
from conversation_peer import BotState
from http_handler_server import serving

from nlu_tui.cli.main import run as cli
from nlu_tui.reruns import merged_item_figures, merged_items
from nlu_tui.store import RunStore
from tests.http_handler_server import QuietHandler

E2E = """\
test_cases:
  - test_case: greet_new
    steps:
      - user: hello
      - bot: Hey!
  - test_case: greet_member
    fixtures: [member]
    steps:
      - user: hello
      - bot: Welcome back!
  - test_case: book
    steps:
      - user: book a table
      - slot_was_set:
          - requested_slot
  - test_case: wrong_text
    steps:
      - user: hello
      - bot: Hello!
fixtures:
  - member:
      - logged_in: true
"""


def _last_run(store: RunStore) -> str:
    return store.list_runs(limit=1)[0].id


def _outcomes(store: RunStore, run_id: str) -> list[tuple[str, str]]:
    return [(i.item_id, i.outcome) for i in merged_items(store, store.get_run(run_id))]


def test_e2e_rerun_holds_exactly_the_failed_conversations_and_merges_to_a_clean_run(
    tmp_path: Path, bot: tuple[BotState, str], capsys: pytest.CaptureFixture[str]
) -> None:
    state, url = bot
    path = tmp_path / "e2e.yml"
    path.write_text(E2E, encoding="utf-8")
    engine = f"rasa:{url}"
    # the first run: the bot greets "Hi!" (greet_new fails), "book a table" answers 503 once
    # (book errors, no retry); wrong_text fails whatever the bot says
    state.greeting = "Hi!"
    state.fail_once.add("book a table")
    assert cli(["test", "e2e", str(path), "--engine", engine, "--retries", "0"]) == 3
    store = RunStore()
    parent = _last_run(store)
    assert Counter(i.outcome for i in store.load_items(parent)) == Counter(
        {"passed": 1, "failed": 2, "error": 1}
    )
    state.greeting = "Hey!"  # the bot is fixed
    before = len(state.messages)
    capsys.readouterr()

    code = cli(["run", "--rerun-failed", parent])  # through `nlu-tui run`
    out = capsys.readouterr().out
    assert code == 1, out  # wrong_text still fails: the merged result judges the exit code
    child = _last_run(store)
    assert child != parent and store.get_run(child).options["rerun_of"] == parent
    assert f"rerun of {parent}: 3 failed and errored test cases" in out
    # exactly the failed and errored test cases were held again, once each
    sent = state.messages[before:]
    senders = {s for s, _t, _m in sent}
    assert len(senders) == 3
    assert sorted(t for _s, t, _m in sent) == ["book a table", "hello", "hello"]
    assert {i.item_id.split(":")[-1] for i in store.load_items(child)} == {
        "greet_new",
        "book",
        "wrong_text",
    }
    merged = merged_item_figures(merged_items(store, store.get_run(child)))
    assert f"merged with run {parent}: 4 test cases, 3 passed, 1 failed, 0 errors" in out
    assert store.get_run(child).summary["merged"] == merged

    assert cli(["test", "e2e", str(path), "--engine", engine]) == 1  # a clean run
    clean = _last_run(store)
    assert merged == merged_item_figures(store.load_items(clean))
    assert _outcomes(store, child) == _outcomes(store, clean)

    # a rerun of the rerun holds what still fails; bad input is one line, exit 2
    capsys.readouterr()
    assert cli(["test", "e2e", "--rerun-failed", child, "--engine", engine]) == 1
    grandchild = _last_run(store)
    assert [i.item_id.split(":")[-1] for i in store.load_items(grandchild)] == ["wrong_text"]
    assert cli(["test", "stories", "--rerun-failed", child]) == 2
    assert "is a e2e run, not stories" in capsys.readouterr().err
    path.write_text(E2E.replace("Hello!", "Hello!!"), encoding="utf-8")
    assert cli(["test", "e2e", "--rerun-failed", child]) == 2
    assert "test files changed" in capsys.readouterr().err


DUT = """\
test_cases:
  - test_case: ok_one
    steps:
      - user: start one
        commands: [start flow one]
  - test_case: flaky_error
    steps:
      - user: start two
        commands: [start flow two]
  - test_case: wrong_once
    steps:
      - user: start three
        commands: [start flow three]
  - test_case: always_wrong
    steps:
      - user: start four
        commands: [start flow five]
  - test_case: ok_six
    steps:
      - user: start six
        commands: [start flow six]
"""


class _Commands(QuietHandler):
    """Answers ``start flow X`` to ``start X``; the first "start two" gets HTTP 500 and the
    first "start three" a wrong command (a known set that fails once)."""

    lock = threading.Lock()
    seen: Counter[str] = Counter()

    def do_POST(self) -> None:
        text = str(self.read_json()["message"])
        with self.lock:
            self.seen[text] += 1
            first = self.seen[text] == 1
        if text == "start two" and first:
            self.send_json(b'{"error": "busy"}', 500)
            return
        flow = "wrong" if text == "start three" and first else text.split()[-1]
        self.send_json(json.dumps({"commands": [f"start flow {flow}"]}).encode())


def test_dut_rerun_sends_exactly_the_failed_test_cases_and_merges_to_a_clean_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _Commands.seen = Counter()
    tests = tmp_path / "t.yml"
    tests.write_text(DUT, encoding="utf-8")
    with serving(_Commands) as url:
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  cmds:\n    type: http\n    url: {url}/predict\n"
            "    body: {message: '{text}'}\n    commands: commands\n",
            encoding="utf-8",
        )
        common = ["--no-output", "--retries", "0"]
        assert cli(["test", "du", str(tests), "--engine", "cmds", *common]) == 1
        store = RunStore()
        parent = _last_run(store)
        assert Counter(i.outcome for i in store.load_items(parent)) == Counter(
            {"passed": 2, "failed": 2, "error": 1}
        )
        sent_before = Counter(_Commands.seen)
        capsys.readouterr()
        assert cli(["test", "du", "--rerun-failed", parent, *common, "--fail-on", "f1<0.5"]) == 1
        out = capsys.readouterr().out
        child = _last_run(store)
        sent = {t: n - sent_before[t] for t, n in _Commands.seen.items() if n - sent_before[t]}
        assert sent == {"start two": 1, "start three": 1, "start four": 1}
        record = store.get_run(child)
        assert record.options["rerun_of"] == parent and record.total == 3
        assert f"merged with run {parent}: 5 test cases, 4 passed, 1 failed, 0 errors" in out

        assert cli(["test", "du", str(tests), "--engine", "cmds", *common]) == 1  # clean
        clean = _last_run(store)
        assert _outcomes(store, child) == _outcomes(store, clean)
        assert store.get_run(child).summary["merged"] == merged_item_figures(
            store.load_items(clean)
        )
        nothing_failed = cli(["test", "du", "--rerun-failed", clean, "--resume", clean])
        assert nothing_failed == 2


def test_stories_rerun_asks_the_policy_only_about_the_failed_story(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``test stories --rerun-failed``: the scripted policy server of the stories test answers
    ``utter_happy`` after ``goodbye`` (story "bye" fails); fixed, the rerun asks only about
    that story, and the merged result is a clean run's."""
    from test_conversation_stories_cli import REPLIES, STORIES, PolicyHandler

    asked: list[set[str]] = []

    class Counting(PolicyHandler):
        def do_POST(self) -> None:
            events = self.read_json()
            asked.append(
                {e["parse_data"]["intent"]["name"] for e in events if e.get("event") == "user"}
            )
            self.read_json = lambda: events  # type: ignore[method-assign]
            super().do_POST()

    path = tmp_path / "test_stories.yml"
    path.write_text(STORIES, encoding="utf-8")
    out = ["--out", str(tmp_path / "results"), "--no-plot"]
    with serving(Counting) as url:
        assert cli(["test", "stories", str(path), "--engine", f"rasa:{url}", *out]) == 1
        store = RunStore()
        parent = _last_run(store)
        REPLIES["goodbye"] = "utter_goodbye"  # the policy is fixed
        try:
            asked.clear()
            capsys.readouterr()
            assert cli(["run", "--rerun-failed", parent]) == 0
            assert asked and all(intents == {"goodbye"} for intents in asked)
            assert f"merged with run {parent}: 2 test cases, 2 passed" in capsys.readouterr().out
            child = _last_run(store)
            assert cli(["test", "stories", str(path), "--engine", f"rasa:{url}", *out]) == 0
        finally:
            REPLIES["goodbye"] = "utter_happy"
    clean = _last_run(store)
    assert _outcomes(store, child) == _outcomes(store, clean)
