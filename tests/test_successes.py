"""The "Successful user utterances" suite from a Rasa tracker store.

The real test serves the sample bot (tests/peers/setup_bot.sh) with the Rasa 3.6 peer and a
SQL tracker store (SQLite), talks to it over its REST channel as a user would, then imports
what Rasa wrote. The unit tests use event lists in the shape Rasa stores them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from nlu_tui.formats.native import load_suite
from nlu_tui.successes import TAG, successful_suite

ROOT = Path(__file__).resolve().parents[1]


def _user(text: str, intent: str | None) -> dict[str, Any]:
    return {
        "event": "user",
        "text": text,
        "parse_data": {"intent": {"name": intent, "confidence": 0.9}, "entities": [], "text": text},
    }


def _action(name: str) -> dict[str, Any]:
    return {"event": "action", "name": name}


def test_successful_turns_become_cases() -> None:
    events = [
        ("a", {"event": "action", "name": "action_session_start"}),
        ("a", _user("hello", "greet")),
        ("b", _user("blorp", "nlu_fallback")),  # no intent
        ("a", _action("utter_greet")),
        ("b", _action("action_default_fallback")),
        ("a", _user("I am feeling very good", "mood_great")),
        ("a", _action("action_default_fallback")),  # the turn fell back
        ("b", _user("hello", "greet")),  # seen twice: one case
        ("b", _action("utter_greet")),
        ("b", _user("book me a table", "book_table")),
        ("b", {"event": "action_execution_rejected", "name": "table_form"}),
        ("a", _user("  bye  ", "goodbye")),  # the last turn, still open: completed
    ]
    suite = successful_suite(events)
    got = [(c.utterance, c.intent_names, c.extra, c.tags) for c in suite.cases]
    assert got == [
        ("hello", ["greet"], {"conversation": "a", "seen": 2}, [TAG]),
        ("bye", ["goodbye"], {"conversation": "a", "seen": 1}, [TAG]),
    ]


def _store_with(path: Path, rows: list[tuple[str, str, dict[str, Any]]]) -> None:
    """An ``events`` table as Rasa 3.6's SQLTrackerStore creates it."""
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE events (id INTEGER NOT NULL PRIMARY KEY, sender_id VARCHAR(255) NOT "
            "NULL, type_name VARCHAR(255) NOT NULL, timestamp FLOAT, intent_name VARCHAR(255), "
            "action_name VARCHAR(255), data TEXT)"
        )
        db.executemany(
            "INSERT INTO events (sender_id, type_name, data) VALUES (?, ?, ?)",
            [(s, t, json.dumps(d)) for s, t, d in rows],
        )


def _cli(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "NLU_TUI_DATA_DIR": str(cwd / "data"), **(env or {})},
    )


def test_cli_imports_a_sqlite_store_and_refuses_bad_input(tmp_path: Path) -> None:
    _store_with(
        tmp_path / "rasa.db",
        [("u", "user", _user("hi", "greet")), ("u", "action", _action("utter_greet"))],
    )
    done = _cli(tmp_path, "data", "successes", "sqlite:///rasa.db", "--out", "s.suite.yaml")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1 successful user utterances from 1 conversations (2 events)"
    suite = load_suite(tmp_path / "s.suite.yaml")
    assert [(c.utterance, c.intent_names) for c in suite.cases] == [("hi", ["greet"])]
    again = _cli(tmp_path, "data", "successes", "sqlite:///rasa.db", "--out", "s.suite.yaml")
    assert again.returncode == 2  # an existing suite is not overwritten without --force
    missing = _cli(tmp_path, "data", "successes", "sqlite:///nope.db", "--out", "t.suite.yaml")
    assert missing.returncode == 2 and "no such tracker store file" in missing.stderr
    secret = _cli(
        tmp_path, "data", "successes", "postgresql://u:${NO_SUCH_PW}@h/db", "--out", "t.yaml"
    )
    assert secret.returncode == 2 and "environment variable NO_SUCH_PW is not set" in secret.stderr
    no_driver = _cli(
        tmp_path,
        "data", "successes", "mysql://u:${PW}@127.0.0.1:1/db", "--out", "t.yaml",
        env={"PW": "s3cret-pw-0042"},
    )  # fmt: skip
    assert no_driver.returncode == 2 and "database driver MySQLdb is not installed" in (
        no_driver.stderr
    )
    assert "s3cret-pw-0042" not in no_driver.stderr + no_driver.stdout
    assert not (tmp_path / "t.suite.yaml").exists()


TALK = {
    "alice": ["hello", "I am feeling very good", "bye"],
    "bob": ["hi", "are you a bot?"],
    "carol": ["wonderful"],
}
"""What the users say to the real Rasa; carol's lone "wonderful" (mood_great with no
greeting: no story) falls back in Rasa."""
EXPECTED = {
    "hello": ["greet"],
    "I am feeling very good": ["mood_great"],
    "bye": ["goodbye"],
    "hi": ["greet"],
    "are you a bot?": ["bot_challenge"],
}


def _talk_to_real_rasa(tmp_path: Path, tracker_store: str) -> None:
    """Serve the sample bot with the real Rasa 3.6 and ``tracker_store`` (endpoints.yml
    YAML), and send :data:`TALK` over its REST channel as users would."""
    from rasa_peer import RASA, served

    if not RASA.exists():
        pytest.skip(f"no Rasa peer at {RASA}: run tests/peers/setup_rasa.sh (needs Python 3.10)")
    setup = subprocess.run(
        ["bash", str(ROOT / "tests" / "peers" / "setup_bot.sh")],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert setup.returncode == 0, setup.stdout + setup.stderr
    model = setup.stdout.strip().splitlines()[-1]
    (tmp_path / "endpoints.yml").write_text(tracker_store, encoding="utf-8")
    (tmp_path / "credentials.yml").write_text("rest:\n", encoding="utf-8")
    env = {
        **os.environ,
        "RASA_TELEMETRY_ENABLED": "false",
        "SQLALCHEMY_SILENCE_UBER_WARNING": "1",
        "HOME": str(tmp_path),
    }
    with served(
        tmp_path,
        env,
        model,
        args=("--endpoints", "endpoints.yml", "--credentials", "credentials.yml"),
    ) as url:
        for sender, messages in TALK.items():
            for text in messages:
                answer = httpx.post(
                    f"{url}/webhooks/rest/webhook",
                    json={"sender": sender, "message": text},
                    timeout=60,
                )
                assert answer.status_code == 200, answer.text


@pytest.mark.rasa
@pytest.mark.slow
def test_import_from_a_tracker_store_written_by_real_rasa(tmp_path: Path) -> None:
    db = tmp_path / "tracker.db"
    _talk_to_real_rasa(tmp_path, f"tracker_store:\n  type: SQL\n  dialect: sqlite\n  db: {db}\n")
    assert db.is_file()
    done = _cli(tmp_path, "data", "successes", f"sqlite:///{db}", "--out", "ok.suite.yaml")
    assert done.returncode == 0, done.stderr
    suite = load_suite(tmp_path / "ok.suite.yaml")
    got = {c.utterance: c.intent_names for c in suite.cases}
    with sqlite3.connect(db) as con:
        fell_back = con.execute(
            "SELECT DISTINCT sender_id FROM events WHERE action_name = 'action_default_fallback'"
        ).fetchall()
    assert fell_back == [("carol",)]
    assert got == EXPECTED
    assert done.stdout.strip().startswith("5 successful user utterances from 3 conversations")


@pytest.mark.rasa
@pytest.mark.slow
def test_import_from_a_postgresql_tracker_store_written_by_real_rasa(tmp_path: Path) -> None:
    """Rasa 3.6's SQLTrackerStore on a real PostgreSQL server (it creates the database ``rasa``
    through ``login_db``), read back through an SQLAlchemy URL whose password comes from the
    environment and is never shown."""
    from postgres_peer import PASSWORD, postgres_server

    with postgres_server() as (host, port):
        _talk_to_real_rasa(
            tmp_path,
            "tracker_store:\n  type: SQL\n  dialect: postgresql\n"
            f"  url: {host}\n  port: {port}\n  username: postgres\n  password: {PASSWORD}\n"
            "  db: rasa\n  login_db: postgres\n",
        )
        url = f"postgresql://postgres:${{TRACKER_PW}}@{host}:{port}/rasa"
        done = _cli(tmp_path, "data", "successes", url, "--out", "pg.suite.yaml",
                    env={"TRACKER_PW": PASSWORD})  # fmt: skip
        wrong = _cli(tmp_path, "data", "successes", url, "--out", "no.suite.yaml",
                     env={"TRACKER_PW": "not-the-pw-0000"})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("5 successful user utterances from 3 conversations")
    suite = load_suite(tmp_path / "pg.suite.yaml")
    assert {c.utterance: c.intent_names for c in suite.cases} == EXPECTED
    assert wrong.returncode == 2 and "cannot read the tracker store" in wrong.stderr
    assert "not-the-pw-0000" not in wrong.stderr and PASSWORD not in done.stderr + done.stdout
    assert not (tmp_path / "no.suite.yaml").exists()
