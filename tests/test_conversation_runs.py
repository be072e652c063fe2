"""``nlu-tui test e2e`` against a scripted conversation server over real HTTP: every step
type passing and failing (diffs written by hand in Rasa Pro's style), fixtures, metadata,
--fail-fast, retries under a new sender id, cancel, resume after SIGKILL, exit codes."""

from __future__ import annotations

import asyncio
import difflib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from child_runs import start_cli, wait_for_items
from conversation_peer import BotState

from nlu_tui.cli.main import run as cli
from nlu_tui.conversation.service import ConversationRequest, open_conversation_run
from nlu_tui.model import RunStatus
from nlu_tui.store import RunStore

CASES = """\
fixtures:
  - member:
      - logged_in: true
metadata:
  - web:
      channel: web
test_cases:
  - test_case: greet_new
    steps:
      - user: hello
      - bot: Hey!
      - utter: utter_greet
  - test_case: greet_member
    fixtures: [member]
    metadata: web
    steps:
      - user: hello
        metadata: web
      - bot: Welcome back!
  - test_case: book
    steps:
      - user: book a table
      - slot_was_set:
          - requested_slot
      - slot_was_not_set:
          - cuisine
      - user: italian
      - slot_was_set:
          - cuisine: italian
      - user: 2 people
      - slot_was_set:
          - people: 2
      - bot: Booked for 2.
  - test_case: wrong_text
    steps:
      - user: hello
      - bot: Hello!
      - user: never sent
  - test_case: wrong_utter
    steps:
      - user: hello
      - utter: utter_goodbye
  - test_case: wrong_slot_value
    steps:
      - user: chinese
      - slot_was_set:
          - cuisine: italian
  - test_case: slot_set_but_should_not
    steps:
      - user: italian
      - slot_was_not_set:
          - cuisine
  - test_case: missing_slot
    steps:
      - user: hello
      - slot_was_set:
          - cuisine
  - test_case: no_answer
    steps:
      - user: silence
      - bot: Anyone?
"""

PASSING = {"greet_new", "greet_member", "book"}


def _write(tmp_path: Path, text: str = CASES) -> Path:
    path = tmp_path / "e2e.yml"
    path.write_text(text, encoding="utf-8")
    return path


def _results(path: Path) -> dict[str, dict[str, object]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {r["name"]: r for r in data["test_results"]}


def test_every_step_type_passes_and_fails_as_written(
    tmp_path: Path, bot: tuple[BotState, str], capsys: pytest.CaptureFixture[str]
) -> None:
    state, url = bot
    path = _write(tmp_path)
    out = tmp_path / "results.yml"
    code = cli(["test", "e2e", str(path), "--engine", f"rasa:{url}", "-o", str(out)])
    printed = capsys.readouterr().out
    assert code == 1
    results = _results(out)
    assert {n for n, r in results.items() if r["pass_status"]} == PASSING
    f = str(path)
    # (actual transcript, expected transcript) written by hand; the diff is difflib's ndiff
    # of the two, as in Rasa Pro's human_readable_diff
    transcripts = {
        "wrong_text": (["user: hello", "bot: Hey!"], ["user: hello", "bot: Hello!"]),
        "wrong_utter": (["user: hello", "bot: utter_greet"], ["user: hello", "bot: utter_goodbye"]),
        "wrong_slot_value": (
            ["user: chinese", "slot_was_set: cuisine: chinese (str)"],
            ["user: chinese", "slot_was_set: cuisine: italian (str)"],
        ),
        "slot_set_but_should_not": (
            ["user: italian", "slot_was_set: cuisine: italian (str)"],
            ["user: italian", "slot_was_not_set: cuisine"],
        ),
        "missing_slot": (
            ["user: hello", "* No Slot Set *"],
            ["user: hello", "slot_was_set: cuisine"],
        ),
        "no_answer": (["user: silence", "* No Bot Response *"], ["user: silence", "bot: Anyone?"]),
    }
    for name, (actual, expected) in transcripts.items():
        diff = results[name]["difference"]
        assert diff == list(difflib.ndiff(actual, expected)), name
        assert [d for d in diff if d[0] in "+-"] == [
            f"- {actual[-1]}",
            f"+ {expected[-1]}",
        ], name
    assert results["wrong_text"]["error_path"] == f"{f}:37"
    assert results["no_answer"]["error_path"] == f"{f}:61"
    # the test case stops at its first unmet expectation: the next user step is never sent
    assert not state.senders_saying("never sent")
    # fixtures are slot events set before the first message; metadata goes with it
    (member_sender,) = [
        s
        for s, evs in state.posted
        if evs == [{"event": "slot", "name": "logged_in", "value": True}]
    ]
    (said,) = [m for m in state.messages if m[0] == member_sender]
    assert said[2] == {"channel": "web"}
    # the pytest-style summary names each failed test case with its file
    assert f"FAILED {f}::wrong_utter" in printed
    assert "Mismatch starting at " + f + ":37: " in printed
    assert printed.rstrip().endswith("6 failed, 3 passed " + "=" * 30)


def test_fail_fast_stops_after_the_first_failed_test_case(
    tmp_path: Path, bot: tuple[BotState, str], capsys: pytest.CaptureFixture[str]
) -> None:
    state, url = bot
    path = _write(tmp_path)
    code = cli(
        [
            "test",
            "e2e",
            str(path),
            "--engine",
            f"rasa:{url}",
            "--fail-fast",
            "--json",
            str(tmp_path / "r.json"),
        ]
    )
    printed = capsys.readouterr().out
    assert code == 1
    assert "stopping after 1 failure" in printed
    # in file order, one at a time: the three passing ones, then wrong_text, then nothing
    run = RunStore().list_runs()[0]
    items = RunStore().load_items(run.id)
    assert [i.data["name"] for i in items] == ["greet_new", "greet_member", "book", "wrong_text"]
    assert len({s for s, _, _ in state.messages}) == 4


def test_a_failed_request_retries_the_whole_test_case_under_a_new_sender(
    tmp_path: Path, bot: tuple[BotState, str]
) -> None:
    state, url = bot
    state.fail_once.add("2 people")
    path = _write(tmp_path)
    code = cli(["test", "e2e", str(path), "--engine", f"rasa:{url}", "-o", str(tmp_path / "o.yml")])
    assert code == 1
    assert {n for n, r in _results(tmp_path / "o.yml").items() if r["pass_status"]} == PASSING
    senders_of_book = {s for s, t, _ in state.messages if t == "book a table"}
    assert len(senders_of_book) == 2  # the first conversation broke off; the retry started anew


def test_engine_down_exits_3_and_bad_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path)
    assert cli(["test", "e2e", str(path), "--engine", "rasa:http://127.0.0.1:9"]) == 3
    assert "engine unreachable" in capsys.readouterr().err
    # assertions are read (Rasa Pro >= 3.12); one Rasa's schema refuses is bad input
    # (pykwalify_extensions.require_assertion_keys: "The 'bot_uttered' assertion is an empty
    # dictionary.")
    assertions = _write(
        tmp_path,
        "test_cases:\n  - test_case: x\n    steps:\n      - user: hi\n        assertions:\n"
        "          - bot_uttered: {}\n",
    )
    assert cli(["test", "e2e", str(assertions), "--engine", "rasa:http://127.0.0.1:9"]) == 2
    assert "line 6, field 'bot_uttered'" in capsys.readouterr().err
    bad = _write(tmp_path, "test_cases:\n  - test_case: x\n    steps:\n      - usr: hi\n")
    runs_before = len(RunStore().list_runs())
    assert cli(["test", "e2e", str(bad), "--engine", "rasa:http://127.0.0.1:9"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}, line 4, field 'usr'" in err
    assert len(RunStore().list_runs()) == runs_before


def test_cancel_keeps_finished_test_cases_and_resume_sends_only_the_rest(
    tmp_path: Path, bot: tuple[BotState, str]
) -> None:
    state, url = bot
    state.delay = 0.05
    path = _write(tmp_path)
    store = RunStore()
    request = ConversationRequest(kind="e2e", path=path, engine=f"rasa:{url}", concurrency=1)
    run = open_conversation_run(request, store)

    def on_progress(p: object) -> None:
        if getattr(p, "done", 0) == 2:
            run.cancel()

    run.on_progress = on_progress
    final = asyncio.run(run.execute())
    assert final.status == RunStatus.CANCELED
    kept = store.load_items(final.id)
    assert len(kept) == 2
    first_senders = {i.data["sender_id"] for i in kept}
    sent_before = len(state.messages)

    resumed = open_conversation_run(ConversationRequest(kind="e2e", resume=final.id), store)
    done = asyncio.run(resumed.execute())
    assert done.status == RunStatus.SUCCESS and done.done == 9
    items = store.load_items(final.id)
    assert len(items) == 9 and sum(i.outcome == "passed" for i in items) == 3
    later = {s for s, _, _ in state.messages[sent_before:]}
    assert not later & first_senders
    assert len(later) == 9 - 2  # one conversation per test case not stored, no more


def test_a_run_given_a_relative_path_resumes_without_resending_stored_test_cases(
    tmp_path: Path, bot: tuple[BotState, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cd bot && nlu-tui test e2e` (the default tests/e2e_test_cases.yml), Ctrl-C, then
    --resume: the resumed run reads the stored absolute path, and the test cases' ids once
    depended on that spelling, so every test case was sent again (done 9/7)."""
    state, url = bot
    state.delay = 0.05
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "e2e_test_cases.yml").write_text(CASES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    store = RunStore()
    request = ConversationRequest(
        kind="e2e", path=Path("tests/e2e_test_cases.yml"), engine=f"rasa:{url}", concurrency=1
    )
    run = open_conversation_run(request, store)

    def on_progress(p: object) -> None:
        if getattr(p, "done", 0) == 2:
            run.cancel()

    run.on_progress = on_progress
    final = asyncio.run(run.execute())
    assert final.status == RunStatus.CANCELED
    kept = store.load_items(final.id)
    assert len(kept) == 2
    sent_before = len(state.messages)
    monkeypatch.chdir(tmp_path / "tests")  # resumed from elsewhere: the stored path is used
    resumed = open_conversation_run(ConversationRequest(kind="e2e", resume=final.id), store)
    done = asyncio.run(resumed.execute())
    assert done.status == RunStatus.SUCCESS and done.done == 9
    assert len(store.load_items(final.id)) == 9
    later = {s for s, _, _ in state.messages[sent_before:]}
    assert len(later) == 9 - 2


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_never_repeats_a_stored_conversation(
    tmp_path: Path, bot: tuple[BotState, str]
) -> None:
    state, url = bot
    state.delay = 0.1
    path = _write(tmp_path)
    store_path = Path(os.environ["NLU_TUI_DATA_DIR"]) / "runs.sqlite3"
    child = start_cli("test", "e2e", str(path), "--engine", f"rasa:{url}", "--concurrency", "2")
    wait_for_items(child, store_path, 3, timeout=30)
    child.send_signal(signal.SIGKILL)
    child.wait(10)
    time.sleep(0.3)
    store = RunStore(store_path)
    store.mark_interrupted()
    (run,) = store.list_runs()
    assert run.status == RunStatus.INTERRUPTED
    kept = store.load_items(run.id)
    kept_senders = {i.data["sender_id"] for i in kept}
    sent_before = len(state.messages)
    resumed = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "test", "e2e", "--resume", run.id],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert resumed.returncode == 1, resumed.stderr + resumed.stdout
    final = RunStore(store_path).get_run(run.id)
    assert final.status == RunStatus.SUCCESS and final.done == 9 and final.passed == 3
    later_senders = {s for s, _, _ in state.messages[sent_before:]}
    assert not later_senders & kept_senders
    # the resume held exactly one conversation per test case not stored before the kill
    assert len(later_senders) == 9 - len(kept)
    kept_by_case = {i.item_id: i.data["sender_id"] for i in kept}
    after = {i.item_id: i.data["sender_id"] for i in RunStore(store_path).load_items(run.id)}
    assert {k: after[k] for k in kept_by_case} == kept_by_case
    # every stored test case was run in exactly one conversation before the kill
    resumed_items = RunStore(store_path).load_items(run.id)
    assert {i.data["sender_id"] for i in resumed_items} >= kept_senders
    assert len(resumed_items) == 9


def test_resume_refuses_changed_test_files(tmp_path: Path, bot: tuple[BotState, str]) -> None:
    _, url = bot
    path = _write(tmp_path)
    store = RunStore()
    run = open_conversation_run(
        ConversationRequest(kind="e2e", path=path, engine=f"rasa:{url}"), store
    )
    run.cancel()
    final = asyncio.run(run.execute())
    assert final.status == RunStatus.CANCELED
    path.write_text(CASES.replace("Hey!", "Hi!"), encoding="utf-8")
    with pytest.raises(Exception, match="changed since run"):
        open_conversation_run(ConversationRequest(kind="e2e", resume=final.id), store)


def test_diff_with_an_earlier_run_lists_what_broke_and_what_got_fixed(
    tmp_path: Path, bot: tuple[BotState, str], capsys: pytest.CaptureFixture[str]
) -> None:
    state, url = bot
    path = _write(tmp_path)
    assert cli(["test", "e2e", str(path), "--engine", f"rasa:{url}"]) == 1
    first = RunStore().list_runs()[0].id
    capsys.readouterr()
    state.greeting = "Hello!"  # greet_new now fails, wrong_text now passes
    assert cli(["test", "e2e", str(path), "--engine", f"rasa:{url}", "--diff-with", first]) == 1
    out = capsys.readouterr().out
    tail = out[out.index(f"since run {first}:") :].splitlines()[1:]
    assert f"  broke         greet_new ({path}:8)" in tail
    assert f"  fixed         wrong_text ({path}:34)" in tail
    assert f"  still failing wrong_utter ({path}:39)" in tail


def test_show_prints_a_stored_conversation_run_again(
    tmp_path: Path, bot: tuple[BotState, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, url = bot
    path = _write(tmp_path)
    assert cli(["test", "e2e", str(path), "--engine", f"rasa:{url}"]) == 1
    first = capsys.readouterr().out
    run_id = RunStore().list_runs()[0].id
    assert cli(["show", run_id]) == 0
    shown = capsys.readouterr().out
    report = first[first.index("=== FAILURES") - 1 :]
    assert shown.startswith(f"run {run_id}: e2e.yml (e2e) on rasa:{url}, success")
    assert report.strip() in shown


def test_diff_pairs_test_cases_of_a_run_stored_with_the_path_as_typed() -> None:
    """Runs stored before item ids named the file relative to the run's folder have ids like
    `tests/e2e.yml:3:greet`; a new run's `e2e.yml:3:greet` is the same test case (it used to
    come out as one test case new and one gone)."""
    from nlu_tui.reports.item_diff import diff_items
    from nlu_tui.store.records import StoredItem

    def item(item_id: str, outcome: str, file: str) -> StoredItem:
        return StoredItem(item_id, 0, outcome, data={"name": "greet", "file": file, "line": 3})

    before = [item("tests/e2e.yml:3:greet", "failed", "tests/e2e.yml")]
    after = [item("e2e.yml:3:greet", "passed", "/bot/tests/e2e.yml")]
    diff = diff_items(before, after)
    assert diff.fixed == ["greet (/bot/tests/e2e.yml:3)"]
    assert diff.added == [] and diff.removed == []
