"""The "Successful user utterances" suite from a Kore.ai analytics export.

The fixture holds two saved answers of Kore.ai's Get Analytics API (types successintent and
successtask) in the documented shape (Koredotcom/docs, docs/xo/apis/automation/get-analytics.md,
"Sample Response"; values made up). Expected counts are worked out by hand below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.errors import InputError
from nlu_tui.formats.native import load_suite
from nlu_tui.model import IntentKind
from nlu_tui.successes import TAG
from nlu_tui.successes_kore import kore_successful_suite, read_kore_analytics

FIXTURE = Path(__file__).parent / "fixtures" / "successes" / "kore_get_analytics.json"


def test_intents_found_whose_task_completed_become_cases() -> None:
    records = read_kore_analytics(FIXTURE)
    assert len(records) == 11  # 7 of type successintent (one failed match), 4 successtask
    built = kore_successful_suite(records)
    # kept: balance (sessions 1 and 3), transfer (session 1), opening hours (FAQ, session 3);
    # left out: "send money to mom" (its task never completed), the ambiguous "balance
    # transfer", the failed match "asdfgh"
    got = [(c.utterance, c.intent_names, c.extra["seen"], c.tags) for c in built.suite.cases]
    assert got == [
        ("what's my balance", ["Show Balance"], 2, [TAG]),
        ("transfer 100 dollars to Anna", ["Transfer Money"], 1, [TAG]),
        ("what are your opening hours", ["What are the opening hours?"], 1, [TAG]),
    ]
    assert (built.records, built.found, built.completed, built.skipped) == (11, 6, 4, 3)
    assert built.warnings == []
    kinds = [c.intents[0].kind for c in built.suite.cases]
    assert kinds == [IntentKind.DIALOG, IntentKind.DIALOG, IntentKind.FAQ]
    assert all(c.intents[0].bot is None for c in built.suite.cases)
    paired = kore_successful_suite(records, bot_names=True)
    assert {c.intents[0].bot for c in paired.suite.cases} == {"Banking Bot"}


def test_without_completed_tasks_every_intent_found_counts(tmp_path: Path) -> None:
    answers = json.loads(FIXTURE.read_text(encoding="utf-8"))
    only_found = tmp_path / "found.json"
    only_found.write_text(json.dumps(answers[0]), encoding="utf-8")  # one answer, not a list
    built = kore_successful_suite(read_kore_analytics(only_found))
    assert [c.utterance for c in built.suite.cases] == [
        "what's my balance",
        "transfer 100 dollars to Anna",
        "send money to mom",
        "what are your opening hours",
    ]
    assert built.skipped == 2 and "no completed tasks" in built.warnings[0]
    bare = tmp_path / "records.json"
    bare.write_text(json.dumps(answers[0]["result"][:2]), encoding="utf-8")  # records only
    assert len(kore_successful_suite(read_kore_analytics(bare)).suite.cases) == 2


def test_a_file_that_is_not_an_analytics_answer_is_refused(tmp_path: Path) -> None:
    history = tmp_path / "history.json"  # getMessages: texts without intents
    history.write_text(json.dumps({"total": 1, "moreAvailable": False, "messages": [
        {"type": "incoming", "components": [{"cT": "text", "data": {"text": "hi"}}]}]}),
        encoding="utf-8")  # fmt: skip
    with pytest.raises(InputError, match=r"not a Kore\.ai Get Analytics answer"):
        read_kore_analytics(history)
    broken = tmp_path / "broken.json"
    broken.write_text('{"result": [{"intent": "A"}]}', encoding="utf-8")
    with pytest.raises(InputError, match="record 1 has no 'utterance' text"):
        read_kore_analytics(broken)


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env={**os.environ, "NLU_TUI_DATA_DIR": str(cwd / "data")},
    )


def test_cli_imports_a_kore_export(tmp_path: Path) -> None:
    done = _cli(tmp_path, "data", "successes", str(FIXTURE), "--out", "k.suite.yaml")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "3 successful user utterances from 11 Kore.ai records (6 intents found, 4 tasks "
        "completed, 3 left out)"
    )
    suite = load_suite(tmp_path / "k.suite.yaml")
    assert [c.intent_names for c in suite.cases] == [
        ["Show Balance"],
        ["Transfer Money"],
        ["What are the opening hours?"],
    ]
    assert suite.cases[2].intents[0].kind is IntentKind.FAQ
    missing = _cli(tmp_path, "data", "successes", "nope.json", "--out", "x.suite.yaml")
    assert missing.returncode == 2 and "neither an SQLAlchemy URL" in missing.stderr
    assert not (tmp_path / "x.suite.yaml").exists()
    # again onto the same file: refused, saying how to overwrite it (as `import` does)
    again = _cli(tmp_path, "data", "successes", str(FIXTURE), "--out", "k.suite.yaml")
    assert again.returncode == 2
    assert "k.suite.yaml: already exists; pass --force to overwrite it" in again.stderr
    forced = _cli(tmp_path, "data", "successes", str(FIXTURE), "--out", "k.suite.yaml", "--force")
    assert forced.returncode == 0, forced.stderr
