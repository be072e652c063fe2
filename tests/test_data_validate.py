"""``nlu-tui data validate`` equal to ``rasa data validate`` (issue 24, item 6).

Semantics from Rasa 3.6's source: ``rasa/validator.py`` (``Validator``: every message and
whether it fails the validation always or only with ``--fail-on-warnings``),
``rasa/cli/utils.py`` (``validate_files``: the order, "Project validation completed with
errors.", exit 1), ``rasa/core/training/story_conflict.py`` (the story structure conflicts),
``rasa/shared/core/training_data/story_reader/yaml_story_reader.py`` (the reader's warning for
a story intent missing from the domain) and the domain schema (a response needs ``text`` or
``custom``).

Oracles: hand-written expectations for the planted project (its README lists the problems),
and the real ``rasa data validate`` (the peer venv of ``tests/peers/setup_rasa.sh``; those tests
are skipped without it) on the sample bot and the planted project: the same findings as sets
of normalised messages and the same exit codes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from nlu_tui.cli.main import run
from tests.rasa_peer import RASA

HERE = Path(__file__).parent
PLANTED = HERE / "fixtures" / "rasa" / "validate_planted"
BOT = HERE / "peers" / "bot"
FORMS = HERE / "fixtures" / "rasa" / "validate_forms"
"""Forms and slot mappings gone wrong: an unknown form in ``active_loop``, a form slot that is
no domain slot, a mapping condition on an unknown form and on a form that does not require the
slot, and ``assistant_id: placeholder_default`` (whose warning Rasa's own filter hides)."""
NO_TEXT = '  utter_no_text:\n    - image: "https://example.com/cat.png"\n'


def _copy(source: Path, work: Path, *, no_text: bool = False, fix_action: bool = False) -> Path:
    for name in ("config.yml", "domain.yml"):
        shutil.copy(source / name, work / name)
    shutil.copytree(source / "data", work / "data")
    if no_text:
        with (work / "domain.yml").open("a") as f:
            f.write(NO_TEXT)
    if fix_action:  # no error left: only warnings
        stories = work / "data" / "stories.yml"
        stories.write_text(stories.read_text().replace("action_unknown_thing", "utter_hours"))
    return work


@contextmanager
def _cwd(path: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _ours(work: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    with _cwd(work):
        code = run(["data", "validate", *args])
    lines = capsys.readouterr().out.splitlines()
    return code, lines


def _conflict_key(message: str) -> str:
    """A conflict with its predictions as a set (Rasa orders them by its tracker order)."""
    head, _, rest = message.partition(":")
    parts = []
    for line in re.split(r";|\n", rest):
        line = " ".join(line.split())
        if not line:
            continue
        action, _, stories = line.partition(" predicted in ")
        names = sorted(re.findall(r"'([^']*)'", stories))
        parts.append(f"{action} <- {names}")
    return head + ": " + " | ".join(sorted(parts))


def _normal(message: str) -> str:
    message = re.sub(r"\s*More info at \S+", "", message)
    if message.startswith("Story structure conflict"):
        return _conflict_key(message)
    return " ".join(message.split())


def _our_findings(lines: list[str]) -> set[str]:
    return {
        _normal(line.split(": ", 1)[1])
        for line in lines
        if line.startswith(("warning: ", "error: "))
    }


# --- without Rasa: the planted project, by hand ---------------------------------------------------


def test_planted_project_findings_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = _copy(PLANTED, tmp_path)
    code, lines = _ours(work, capsys)
    assert code == 1  # the unknown action is an error: the validation fails without flags
    errors = [line for line in lines if line.startswith("error: ")]
    assert errors == [
        "error: The action 'action_unknown_thing' is used in the 'greet path' block, but it is "
        "not listed in the domain file. You should add it to your domain file!"
    ]
    text = "\n".join(lines)
    for expected in (
        "The intent 'unused_intent' is listed in the domain file, but is not found in the NLU",
        "labeled with intent 'not_in_domain'. This intent is not listed in your domain.",
        "The intent 'mystery_intent' is used in your stories, but it is not listed",
        "Found intent 'mystery_intent' in stories which is not part of the domain.",
        "The intent 'unused_intent' is not used in any story or rule.",
        "The example 'bye' was found labeled with multiple different intents",
        "The example is labeled with: goodbye, greet.",
        "The action 'utter_missing' is used in the stories, but is not a valid utterance",
        "Story structure conflict after intent 'ask_hours': utter_hours predicted in 'hours'; "
        "utter_closed predicted in 'hours conflicting'",
        "Story structure conflict after action 'utter_greet': action_unknown_thing predicted "
        "in 'greet path'; action_listen predicted in 'short greet'",
        "The config file is missing the 'assistant_id' mandatory key.",
        "Project validation completed with errors.",
    ):
        assert expected in text, expected
    # the entity and its slot make 'hours on a day' a different state: no conflict with it;
    # rules are not part of the story structure check
    assert "hours on a day" not in text and "say goodbye" not in text
    assert sum("Story structure conflict" in line for line in lines) == 4


def test_warnings_fail_only_with_fail_on_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = _copy(PLANTED, tmp_path, fix_action=True)
    code, lines = _ours(work, capsys)
    assert code == 0 and not any(line.startswith("error: ") for line in lines)
    code, _ = _ours(work, capsys, "--fail-on-warnings")
    assert code == 1


def test_response_without_text_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = _copy(PLANTED, tmp_path, no_text=True)
    code, lines = _ours(work, capsys)
    assert code == 1
    assert any(
        "Missing 'text' or 'custom' key in response" in line and "utter_no_text" in line
        for line in lines
    )
    # Rasa stops at the schema error: nothing else is checked
    assert not any("Story structure" in line for line in lines)


def test_max_history_one_sees_only_the_last_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = _copy(PLANTED, tmp_path)
    code, lines = _ours(work, capsys, "stories", "--max-history", "1")
    assert code == 0  # stories only: conflicts are warnings
    conflicts = [line for line in lines if "Story structure conflict" in line]
    assert len(conflicts) == 4
    assert not any("unused_intent" in line for line in lines)  # no NLU checks here
    assert (
        run(["data", "validate", "--max-history", "0", "--domain", str(work / "domain.yml")]) == 2
    )


# --- against the real Rasa ------------------------------------------------------------------------


def _rasa(work: Path, *args: str) -> tuple[int, set[str]]:
    if not RASA.exists():
        pytest.skip(f"no Rasa peer at {RASA}: run tests/peers/setup_rasa.sh (needs Python 3.10)")
    env = {
        "RASA_TELEMETRY_ENABLED": "false",
        "SQLALCHEMY_SILENCE_UBER_WARNING": "1",
        "HOME": str(work),
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [str(RASA), "data", "validate", *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    text = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + "\n" + done.stderr)
    found = set()
    warning = re.compile(
        r"UserWarning: (.*?)(?=\n\S+\.py:\d+: \w*Warning: |\n\d{4}-\d\d-\d\d |"
        r"\nProject validation|\nProcessed story|\n\s*\n|\Z)",
        re.DOTALL,
    )
    for match in warning.finditer(text):
        found.add(_normal(match.group(1)))
    conflict = re.compile(
        r"WARNING\s+rasa\.validator\s+- (Story structure conflict.*?)(?=\n\S|\Z)", re.DOTALL
    )
    for match in conflict.finditer(text):
        found.add(_normal(match.group(1)))
    schema = re.search(r"YamlValidationException: (.*?)(?=\n\S|\Z)", text, re.DOTALL)
    if schema:
        found.add(_normal(schema.group(1)))
    return done.returncode, found


def _same_schema_error(ours: set[str], theirs: set[str]) -> None:
    for findings in (ours, theirs):
        assert any(
            "Missing 'text' or 'custom' key in response" in f and "utter_no_text" in f
            for f in findings
        ), findings


@pytest.mark.rasa
@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("bot", ()),
        ("bot", ("--fail-on-warnings",)),
        ("planted", ()),
        ("planted", ("--max-history", "1")),
        ("planted-warnings-only", ()),
        ("planted-warnings-only", ("--fail-on-warnings",)),
        ("planted-warnings-only", ("stories", "--max-history", "2")),
        ("planted-no-text", ()),
        ("forms", ()),
    ],
)
def test_same_findings_and_exit_code_as_rasa(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, args: tuple[str, ...]
) -> None:
    source = {"bot": BOT, "forms": FORMS}.get(name, PLANTED)
    dirs = []
    for side in ("rasa", "ours"):
        (tmp_path / side).mkdir()
        dirs.append(
            _copy(
                source,
                tmp_path / side,
                no_text=name.endswith("no-text"),
                fix_action=name.endswith("only"),
            )
        )
    theirs_dir, ours_dir = dirs
    their_code, theirs = _rasa(theirs_dir, *args)
    our_code, lines = _ours(ours_dir, capsys, *args)
    ours = _our_findings(lines)
    assert our_code == their_code, (lines, theirs)
    if name.endswith("no-text"):
        _same_schema_error(ours, theirs)
        return
    assert ours == theirs


def test_form_and_slot_mapping_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work = _copy(FORMS, tmp_path)
    code, lines = _ours(work, capsys)
    assert code == 1
    errors = [line for line in lines if line.startswith("error: ")]
    assert [e.split(" ")[1:3] for e in errors] == [
        ["The", "form"],  # 'phantom_form' is used in the 'unknown form' block
        ["The", "form"],  # slot 'seats' in form 'booking_form'
        ["Slot", "'city'"],  # mapping condition for the unknown 'ghost_form'
        ["Slot", "'date'"],  # 'booking_form' does not require it
    ]
    assert not any("placeholder" in line for line in lines)


def test_a_repeated_warning_is_shown_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``warnings.filterwarnings("once", category=UserWarning)`` (Rasa's ``_filter_warnings``):
    the story reader's warning for the same intent twice in one file comes once."""
    work = _copy(PLANTED, tmp_path)
    stories = work / "data" / "stories.yml"
    stories.write_text(
        stories.read_text()
        + "- story: mystery again\n  steps:\n  - intent: mystery_intent\n  - action: utter_greet\n"
    )
    _, lines = _ours(work, capsys)
    assert sum("Found intent 'mystery_intent' in stories" in line for line in lines) == 1
