"""The answer cache (a profile's ``cache: true``) for conversation tests: a test case whose test
files and engine are unchanged is answered from the run store, not held again.

A scripted conversation server over real HTTP on 127.0.0.1 counts the messages it receives;
a real SQLite store holds the cache.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conversation_peer import BotState
from http_handler_server import serving
from test_rerun_failed_items import E2E

from nlu_tui.cli.main import run as cli
from nlu_tui.store import RunStore


def test_a_cached_profile_holds_no_conversation_twice(
    tmp_path: Path, bot: tuple[BotState, str], capsys: pytest.CaptureFixture[str]
) -> None:
    state, url = bot
    path = tmp_path / "e2e.yml"
    path.write_text(E2E, encoding="utf-8")
    (tmp_path / "engines.yaml").write_text(
        f"engines:\n  paid:\n    type: rasa\n    url: {url}\n    cache: true\n", encoding="utf-8"
    )
    assert cli(["test", "e2e", str(path), "--engine", "paid"]) == 1  # wrong_text fails
    sent = len(state.messages)
    assert sent == 4  # one message per test case: hello (3 of them), book a table
    assert "answer cache (paid): 0 answered from it, 4 sent" in capsys.readouterr().out
    store = RunStore()
    first = store.list_runs(limit=1)[0].id

    assert cli(["test", "e2e", str(path), "--engine", "paid"]) == 1
    assert len(state.messages) == sent  # nothing was held again
    assert "answer cache (paid): 4 answered from it, 0 sent" in capsys.readouterr().out
    second = store.list_runs(limit=1)[0].id
    outcomes = {i.item_id: i.outcome for i in store.load_items(first)}
    cached = store.load_items(second)
    assert {i.item_id: i.outcome for i in cached} == outcomes
    assert all(i.data.get("cached") and i.latency_ms is None for i in cached)

    # --no-cache holds every conversation; a rerun of failures asks the engine again
    assert cli(["test", "e2e", str(path), "--engine", "paid", "--no-cache"]) == 1
    assert len(state.messages) == 2 * sent
    assert cli(["test", "e2e", "--rerun-failed", second]) == 1
    assert len(state.messages) == 2 * sent + 1  # wrong_text only, its one message
    # a changed test file is another request: held again
    path.write_text(E2E.replace("Hello!", "Hello!!"), encoding="utf-8")
    capsys.readouterr()
    assert cli(["test", "e2e", str(path), "--engine", "paid"]) == 1
    assert "answer cache (paid): 0 answered from it, 4 sent" in capsys.readouterr().out


def test_dut_answers_come_from_the_cache_except_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DUT test case's answers are kept whole; an errored one is never kept (sent again)."""
    from collections import Counter

    from test_rerun_failed_items import DUT, _Commands

    _Commands.seen = Counter()
    tests = tmp_path / "t.yml"
    tests.write_text(DUT, encoding="utf-8")
    with serving(_Commands) as url:
        (tmp_path / "engines.yaml").write_text(
            f"engines:\n  cmds:\n    type: http\n    url: {url}/predict\n"
            "    body: {message: '{text}'}\n    commands: commands\n    cache: true\n",
            encoding="utf-8",
        )
        run = ["test", "du", str(tests), "--engine", "cmds", "--no-output", "--retries", "0"]
        assert cli(run) == 1
        assert "answer cache (cmds): 0 answered from it, 5 sent" in capsys.readouterr().out
        store = RunStore()
        first = store.list_runs(limit=1)[0].id
        before = Counter(_Commands.seen)
        assert cli(run) == 1
        assert "answer cache (cmds): 4 answered from it, 1 sent" in capsys.readouterr().out
        sent = {t: n - before[t] for t, n in _Commands.seen.items() if n - before[t]}
        assert sent == {"start two": 1}  # the test case that errored, not kept
        second = store.list_runs(limit=1)[0].id
        items = {i.item_id: i for i in store.load_items(second)}
        firsts = {i.item_id: i.outcome for i in store.load_items(first)}
        # the cached wrong answer of "start three" is what the engine said then
        assert {k: i.outcome for k, i in items.items() if k in firsts} == {
            k: ("passed" if o == "error" else o) for k, o in firsts.items()
        }
        assert sum(1 for i in items.values() if i.data.get("cached")) == 4
        assert all(i.latency_ms is None for i in items.values() if i.data.get("cached"))
        before = Counter(_Commands.seen)
        assert cli([*run, "--no-cache"]) == 1
        assert sum(_Commands.seen.values()) - sum(before.values()) == 5
