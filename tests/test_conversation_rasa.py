"""Conversation tests against the real Rasa 3.6 and our sample bot (tests/peers/bot, trained
once by tests/peers/setup_bot.sh and cached by content hash):

- ``nlu-tui test stories`` reports the same failed stories as ``rasa test core --stories`` on
  the same model: ``failed_test_stories.yml`` identical, ``story_report.json`` equal;
- the E2E file's passes and failures are exactly those its test case names say, each failure
  at the line written here by hand.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from rasa_peer import RASA, rasa, served

from nlu_tui.cli.main import run as cli

pytestmark = [pytest.mark.rasa, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent
BOT = ROOT / "peers" / "bot"
STORIES = BOT / "tests" / "test_stories.yml"
E2E = BOT / "tests" / "e2e_test_cases.yml"


def _env(work: Path) -> dict[str, str]:
    return {
        **os.environ,
        "RASA_TELEMETRY_ENABLED": "false",
        "SQLALCHEMY_SILENCE_UBER_WARNING": "1",
        "HOME": str(work),
    }


@pytest.fixture(scope="module")
def bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, Path]]:
    """(work dir, URL of `rasa run --enable-api` on the bot's model, the model)."""
    if not RASA.exists():
        pytest.skip(f"no Rasa peer at {RASA}: run tests/peers/setup_rasa.sh (needs Python 3.10)")
    done = subprocess.run(
        ["bash", str(ROOT / "peers" / "setup_bot.sh")], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    model = Path(done.stdout.strip().splitlines()[-1])
    assert model.is_file(), done.stdout
    work = tmp_path_factory.mktemp("bot")
    with served(work, _env(work), str(model)) as url:
        yield work, url, model


@pytest.fixture(scope="module")
def rasa_core_out(bot: tuple[Path, str, Path]) -> Path:
    """``rasa test core --stories`` on the same model and stories (run once)."""
    work, _, model = bot
    out = work / "rasa-results"
    rasa(
        work,
        _env(work),
        "test",
        "core",
        "--stories",
        str(STORIES),
        "-m",
        str(model),
        "--out",
        str(out),
    )
    return out


@pytest.fixture(scope="module")
def rasa_core_e2e_out(bot: tuple[Path, str, Path]) -> tuple[Path, str]:
    """``rasa test core --stories --e2e`` (user messages through the NLU too) and its log."""
    work, _, model = bot
    out = work / "rasa-results-e2e"
    done = subprocess.run(
        [
            str(RASA),
            "test",
            "core",
            "--stories",
            str(STORIES),
            "-m",
            str(model),
            "--out",
            str(out),
            "--e2e",
        ],
        cwd=work,
        env=_env(work),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return out, done.stdout + done.stderr


def test_stories_e2e_mode_matches_rasa_test_core_e2e(
    bot: tuple[Path, str, Path],
    rasa_core_e2e_out: tuple[Path, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, url, _ = bot
    rasa_out, rasa_log = rasa_core_e2e_out
    out = tmp_path / "ours"
    code = cli(
        ["test", "stories", str(STORIES), "--engine", f"rasa:{url}", "--out", str(out), "--e2e"]
    )
    printed = capsys.readouterr().out
    assert code == 1
    assert (out / "failed_test_stories.yml").read_text() == (
        rasa_out / "failed_test_stories.yml"
    ).read_text()
    mine = json.loads((out / "story_report.json").read_text())
    rasas = json.loads((rasa_out / "story_report.json").read_text())
    assert mine.keys() == rasas.keys()  # entity labels such as "[three](people)" included
    for label, row in rasas.items():
        assert mine[label] == pytest.approx(row), label
    # the figures Rasa logs, line for line
    for name in ("Correct:", "F1-Score:", "Precision:", "Accuracy:"):
        theirs = [line.split(name, 1)[1].strip() for line in rasa_log.splitlines() if name in line]
        ours = [line.split(name, 1)[1].strip() for line in printed.splitlines() if name in line]
        assert ours == theirs, name


def test_stories_report_the_failed_stories_of_rasa_test_core(
    bot: tuple[Path, str, Path],
    rasa_core_out: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, url, _ = bot
    out = tmp_path / "ours"
    code = cli(["test", "stories", str(STORIES), "--engine", f"rasa:{url}", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 1
    theirs = (rasa_core_out / "failed_test_stories.yml").read_text(encoding="utf-8")
    ours = (out / "failed_test_stories.yml").read_text(encoding="utf-8")
    assert ours == theirs
    # the names say which stories fail on purpose (the NLU-only one passes in core mode)
    failed = {s["story"].split(" (")[0] for s in yaml.safe_load(ours)["stories"]}
    assert failed == {
        "fails, sad user answered as a happy one",
        "fails, goodbye expected after a bot challenge",
        "fails, the form is expected to end after one answer",
    }
    assert (out / "stories_with_warnings.yml").read_text() == (
        rasa_core_out / "stories_with_warnings.yml"
    ).read_text()
    mine = json.loads((out / "story_report.json").read_text())
    rasas = json.loads((rasa_core_out / "story_report.json").read_text())
    assert mine.keys() == rasas.keys()
    for label, row in rasas.items():
        assert mine[label] == pytest.approx(row), label
    assert "Correct:          4 / 7" in printed
    # the story confusion matrix, drawn as Rasa draws it (20 x 20 inches, tight box)
    ours_size = _png_size(out / "story_confusion_matrix.png")
    rasa_size = _png_size(rasa_core_out / "story_confusion_matrix.png")
    for mine_px, theirs_px in zip(ours_size, rasa_size, strict=True):
        assert abs(mine_px - theirs_px) <= 0.1 * theirs_px, (ours_size, rasa_size)


@pytest.mark.parametrize("e2e", [False, True], ids=["core", "core-e2e"])
def test_stories_write_the_tedpolicy_entity_files_of_rasa_test_core(
    bot: tuple[Path, str, Path],
    rasa_core_out: Path,
    rasa_core_e2e_out: tuple[Path, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    e2e: bool,
) -> None:
    """``rasa test core`` writes ``evaluate_entities(entity_results,
    POLICIES_THAT_EXTRACT_ENTITIES)`` (``rasa/core/test.py``): ``TEDPolicy_report.json``,
    ``TEDPolicy_errors.json`` and ``TEDPolicy_confusion_matrix.png``, though the bot has no
    TEDPolicy; the four user messages with entities are its errors (no policy predicts one)."""
    _, url, _ = bot
    rasa_out = rasa_core_e2e_out[0] if e2e else rasa_core_out
    out = tmp_path / "ours"
    args = ["test", "stories", str(STORIES), "--engine", f"rasa:{url}", "--out", str(out)]
    assert cli([*args, "--e2e"] if e2e else args) == 1
    capsys.readouterr()
    name = "TEDPolicy_errors.json"
    assert (out / name).read_text(encoding="utf-8") == (rasa_out / name).read_text(encoding="utf-8")
    assert len(json.loads((out / name).read_text(encoding="utf-8"))) == 4
    mine = json.loads((out / "TEDPolicy_report.json").read_text(encoding="utf-8"))
    rasas = json.loads((rasa_out / "TEDPolicy_report.json").read_text(encoding="utf-8"))
    assert mine.keys() == rasas.keys()  # Rasa's row order is a set's: compared as mappings
    for label, row in rasas.items():
        if isinstance(row, dict):  # approx takes no nested mapping: confused_with apart
            theirs, ours = dict(row), dict(mine[label])
            assert ours.pop("confused_with", None) == theirs.pop("confused_with", None), label
            assert ours == pytest.approx(theirs), label
        else:
            assert mine[label] == pytest.approx(row), label
    ours_size = _png_size(out / "TEDPolicy_confusion_matrix.png")
    rasa_size = _png_size(rasa_out / "TEDPolicy_confusion_matrix.png")
    for mine_px, theirs_px in zip(ours_size, rasa_size, strict=True):
        assert abs(mine_px - theirs_px) <= 0.1 * theirs_px, (ours_size, rasa_size)


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_e2e_passes_and_failures_are_those_written(
    bot: tuple[Path, str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, url, _ = bot
    results = tmp_path / "e2e_results.yml"
    junit = tmp_path / "junit.xml"
    code = cli(
        [
            "test",
            "e2e",
            str(E2E),
            "--engine",
            f"rasa:{url}",
            "-o",
            str(results),
            "--junit",
            str(junit),
        ]
    )
    printed = capsys.readouterr().out
    assert code == 1
    data = yaml.safe_load(results.read_text(encoding="utf-8"))["test_results"]
    status = {r["name"]: r["pass_status"] for r in data}
    assert status == {name: name.startswith("passes_") for name in status}
    assert len(status) == 7
    lines = {r["name"]: r.get("error_path") for r in data if not r["pass_status"]}
    assert lines == {
        "fails_wrong_bot_text": f"{E2E}:59",
        "fails_wrong_slot_value": f"{E2E}:67",
        "fails_slot_that_should_not_be_set": f"{E2E}:74",
        "fails_wrong_response_name": f"{E2E}:82",
    }
    by_name = {r["name"]: r for r in data}
    assert by_name["fails_wrong_bot_text"]["difference"][-2:] == [
        "- bot: Here is something to cheer you up: a picture of a kitten.",
        "+ bot: Great, carry on!",
    ]
    assert [d for d in by_name["fails_wrong_slot_value"]["difference"] if d[0] in "+-"] == [
        "- slot_was_set: cuisine: chinese (str)",
        "+ slot_was_set: cuisine: thai (str)",
    ]
    assert f"FAILED {E2E}::fails_wrong_response_name" in printed
    assert 'failures="4"' in junit.read_text()


CHECKPOINT_STORIES = """\
version: "3.1"
stories:
- story: greet first
  steps:
  - intent: greet
  - action: utter_greet
  - checkpoint: greeted
- story: then sad, wrongly answered
  steps:
  - checkpoint: greeted
  - intent: mood_unhappy
  - action: utter_happy
- story: then a bot challenge
  steps:
  - checkpoint: greeted
  - intent: bot_challenge
  - action: utter_goodbye
"""


def test_stories_joined_by_checkpoints_fail_as_in_rasa(
    bot: tuple[Path, str, Path], tmp_path: Path
) -> None:
    work, url, model = bot
    stories = tmp_path / "checkpoints.yml"
    stories.write_text(CHECKPOINT_STORIES, encoding="utf-8")
    rasa(
        work,
        _env(work),
        "test",
        "core",
        "--stories",
        str(stories),
        "-m",
        str(model),
        "--out",
        str(tmp_path / "rasa"),
    )
    code = cli(
        [
            "test",
            "stories",
            str(stories),
            "--engine",
            f"rasa:{url}",
            "--out",
            str(tmp_path / "ours"),
        ]
    )
    assert code == 1
    theirs = (tmp_path / "rasa" / "failed_test_stories.yml").read_text()
    assert "greet first > then a bot challenge" in theirs
    assert (tmp_path / "ours" / "failed_test_stories.yml").read_text() == theirs


ASSERTIONS = ROOT / "fixtures" / "e2e_assertions" / "sample_bot_assertions.yml"


def test_the_e2e_cases_rewritten_with_assertions_split_as_the_step_style_file(
    bot: tuple[Path, str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same seven test cases written with Rasa Pro assertions (action_executed,
    bot_uttered, slot_was_set, slot_was_not_set) pass and fail as the step-style file does
    against the real Rasa 3.6, each failure at the assertion written for it (Rasa Pro's
    run_assertions: error_line is the failed assertion's line, a slot's own line for slot
    assertions)."""
    _, url, _ = bot
    out = tmp_path / "results"
    code = cli(
        ["test", "e2e", str(ASSERTIONS), "--engine", f"rasa:{url}", "--e2e-results", str(out)]
    )
    printed = capsys.readouterr().out
    assert code == 1
    passed = yaml.safe_load((out / "e2e_results_passed.yml").read_text(encoding="utf-8"))
    failed = yaml.safe_load((out / "e2e_results_failed.yml").read_text(encoding="utf-8"))
    assert {r["name"] for r in passed["test_results"]} == {
        "passes_happy_path",
        "passes_member_books_a_table",
        "passes_guest_is_greeted_as_new",
    }
    paths = {r["name"]: r["error_path"] for r in failed["test_results"]}
    assert paths == {
        "fails_wrong_bot_text": f"{ASSERTIONS}:85",
        "fails_wrong_slot_value": f"{ASSERTIONS}:99",
        "fails_slot_that_should_not_be_set": f"{ASSERTIONS}:108",
        "fails_wrong_response_name": f"{ASSERTIONS}:116",
    }
    messages = {r["name"]: r["assertion_failure"]["error_message"] for r in failed["test_results"]}
    assert messages["fails_wrong_slot_value"] == (
        "Slot 'cuisine' was set to a different value 'chinese' than the expected 'thai' value."
    )
    assert messages["fails_slot_that_should_not_be_set"] == (
        "Slot 'cuisine' was set to 'mexican' but it should not have been set."
    )
    assert messages["fails_wrong_response_name"] == "Bot did not utter 'utter_goodbye' response."
    assert "Accuracy By Assertion Type" in printed


ENTITY_ONLY = """version: "3.1"
stories:
- story: the number read as a cuisine
  steps:
  - user: |
      book me a table for [four](cuisine)
    intent: book_table
  - action: table_form
  - active_loop: table_form
- story: the cuisine missed
  steps:
  - user: |
      I want to book a table for [dinner](cuisine)
    intent: book_table
  - action: table_form
  - active_loop: table_form
"""


def test_entity_only_wrong_comment_on_the_entity_line_as_rasa(
    bot: tuple[Path, str, Path], tmp_path: Path
) -> None:
    """Only the entity type is wrong: Rasa 3.6's YAMLStoryWriter puts ``# predicted:`` on the
    entity line, not on the intent line (``process_user_utterance`` with
    ``inline_comment_for_entity``); ``failed_test_stories.yml`` must be identical."""
    work, url, model = bot
    stories = tmp_path / "test_entity_only.yml"
    stories.write_text(ENTITY_ONLY)
    theirs = tmp_path / "rasa"
    rasa(
        work, _env(work), "test", "core", "--stories", str(stories), "-m", str(model),
        "--out", str(theirs), "--e2e",
    )  # fmt: skip
    ours = tmp_path / "ours"
    code = cli(
        ["test", "stories", str(stories), "--engine", f"rasa:{url}", "--out", str(ours), "--e2e"]
    )
    assert code == 1
    rasa_text = (theirs / "failed_test_stories.yml").read_text(encoding="utf-8")
    assert "    - cuisine: four  # predicted: people: four" in rasa_text  # the case is exercised
    assert (ours / "failed_test_stories.yml").read_text(encoding="utf-8") == rasa_text


def test_a_chat_recorded_with_the_real_bot_replays_with_test_e2e(
    bot: tuple[Path, str, Path], tmp_path: Path
) -> None:
    """Issue 26 item 3 on the real Rasa 3.6 sample bot: three messages through the recorder
    (the workbench's "talk to the bot" face is tested against the scripted bot in
    tests/test_recorder.py), saved as a test case, then `test e2e` on the saved file passes."""
    import asyncio

    from nlu_tui.cli.main import run as cli
    from nlu_tui.conversation.recorder import Recorder
    from nlu_tui.formats.e2e_splice import append_test_case

    _work, url, _model = bot
    recorder = Recorder(f"rasa:{url}")

    async def chat() -> None:
        await recorder.start()
        try:
            for text in ("hello", "I want to book a table", "italian"):
                await recorder.say(text)
        finally:
            await recorder.close()

    asyncio.run(chat())
    case = recorder.test_case("recorded_booking")
    assert {"slot_was_set": [{"cuisine": "italian"}]} in case["steps"]
    path = tmp_path / "recorded.yml"
    append_test_case(path, case)
    out = tmp_path / "out"
    code = cli(["test", "e2e", str(path), "--engine", f"rasa:{url}", "--e2e-results", str(out)])
    assert code == 0, (out / "e2e_results_failed.yml").read_text(encoding="utf-8")
