"""``nlu-tui compare`` end to end: files written, console summary, exit codes, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from nlu_tui.cli.main import run

EXPECTED = [
    {
        "text": "listen to hip hop",
        "intent": "PlayMusic",
        "entities": [
            {"entityType": "Genre", "matchText": "hip hop", "entityValue": {"genre": "hiphop"}}
        ],
    },
    {"text": "skip this song", "intent": "Skip"},
    {"text": "what time is it", "intent": "None"},
    {
        "text": "play some jazz",
        "intent": "PlayMusic",
        "utteranceId": "jazz-1",
        "entities": [{"entityType": "Genre", "matchText": "jazz"}],
    },
]
ACTUAL = [
    {
        "text": "listen to hip hop",
        "intent": "None",
        "score": 0.4,
        "entities": [
            {
                "entityType": "Genre",
                "matchText": "Hip Hop!",
                "entityValue": {"genre": "hiphop", "x": 1},
            }
        ],
    },
    {"text": "skip this song", "intent": "Skip", "score": 0.9},
    {"text": "what time is it", "intent": "Skip"},
    {
        "text": "play some jazz",
        "intent": "PlayMusic",
        "entities": [
            {"entityType": "Genre", "matchText": "jazz"},
            {"entityType": "number", "matchText": "some"},
        ],
    },
]


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    return {
        "e": write(tmp_path / "expected.json", EXPECTED),
        "a": write(tmp_path / "actual.json", ACTUAL),
        "o": tmp_path / "out",
    }


def compare(files: dict[str, Path], *extra: str) -> int:
    return run(
        ["compare", "-e", str(files["e"]), "-a", str(files["a"]), "-o", str(files["o"]), *extra]
    )


def test_writes_the_three_files_and_summary(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert compare(files) == 0  # no thresholds: nothing can fail
    stats = json.loads((files["o"] / "statistics.json").read_text())
    # without trueNegativeIntent, "None" is an intent like any other
    assert stats["intent"] == [2, 0, 2, 2]
    assert stats["byIntent"] == {
        "PlayMusic": [1, 0, 0, 1],
        "Skip": [1, 0, 1, 0],
        "None": [0, 0, 1, 1],
    }
    assert stats["entity"] == [2, 2, 1, 0]
    assert stats["byEntityType"] == {"Genre": [2, 0, 0, 0], "number": [0, 0, 1, 0]}
    assert stats["entityValue"] == [1, 0, 0, 0]
    metadata = json.loads((files["o"] / "metadata.json").read_text())
    assert len(metadata) == sum(sum(stats[k]) for k in ("text", "intent", "entity", "entityValue"))
    assert {m["utteranceId"] for m in metadata} == {"0", "1", "2", "jazz-1"}
    assert metadata[0]["expectedUtterance"] == EXPECTED[0]
    root = ET.parse(files["o"] / "TestResult.xml").getroot()
    assert root.tag == "test-run"
    assert root.get("total") == str(len(metadata))
    assert root.get("failed") == str(
        sum(1 for m in metadata if m["resultKind"].startswith("false"))
    )
    out = capsys.readouterr().out
    assert "| Intent" in out and "| *" in out
    assert "| None      | Skip   | 1  |\n| PlayMusic | None   | 1  |" in out


def test_settings_true_negative_and_ignore(files: dict[str, Path], tmp_path: Path) -> None:
    settings = tmp_path / "settings.yml"
    settings.write_text("trueNegativeIntent: None\nignoreEntities: [number]\n")
    assert compare(files, "-t", str(settings)) == 0
    stats = json.loads((files["o"] / "statistics.json").read_text())
    # PlayMusic → None: FN only; None → Skip: FP only
    assert stats["intent"] == [2, 0, 1, 1]
    assert stats["entity"] == [2, 2, 0, 0]


def test_thresholds_and_baseline_set_the_exit_code(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = write(
        tmp_path / "baseline.json",
        {
            "intent": [4, 0, 0, 0],
            "entity": [2, 0, 0, 0],
            "byIntent": {"PlayMusic": [2, 0, 0, 0], "Skip": [1, 0, 0, 0]},
        },
    )
    settings = write(
        tmp_path / "t.json",
        {
            "nluTui": {"starGroups": "each"},  # '*' = one gate per intent (upstream: overall)
            "thresholds": [
                {"type": "intent", "threshold": 0.5},  # F1 1.0 → 0.5: passes
                {
                    "type": "intent",
                    "group": "*",
                },  # PlayMusic and Skip drop, None stays 0: 2 failures
                {
                    "type": "entity",
                    "threshold": 0.7,
                    "comparison": "absolute",
                    "metric": "precision",
                },
            ],
        },
    )
    assert compare(files, "-t", str(settings), "-b", str(baseline)) == 3
    out = capsys.readouterr().out
    assert "(-0.500)" in out  # baseline delta of the intent F1
    assert out.count("FAIL") == 3
    settings = write(tmp_path / "t2.json", {"thresholds": [{"type": "intent", "threshold": 0.5}]})
    assert compare(files, "-t", str(settings), "-b", str(baseline)) == 0


def test_unit_test_mode_exit_code_is_failed_tests(files: dict[str, Path]) -> None:
    code = compare(files, "--unit-test")
    metadata = json.loads((files["o"] / "metadata.json").read_text())
    failed = [m for m in metadata if m["resultKind"] in ("falsePositive", "falseNegative")]
    # FN PlayMusic + FP None, FN None + FP Skip; 'number' is not strict in unit-test mode
    assert code == len(failed) == 4
    assert not any(m["group"] == "number" for m in metadata)


def test_object_form_baseline_is_rejected(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline = write(tmp_path / "b.json", {"intent": {"truePositive": 6, "falsePositive": 1}})
    assert compare(files, "-b", str(baseline)) == 2
    err = capsys.readouterr().err
    assert "object form" in err and "[TP, TN, FP, FN]" in err and "b.json" in err
    assert not files["o"].exists()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("expected.json", '[{"text": "a",}]', "invalid JSON"),
        ("expected.json", '{"text": "a"}', "JSON array"),
        ("expected.json", '[{"text": "a", "entities": [{"matchText": "a"}]}]', "entityType"),
        (
            "expected.json",
            '[{"text": "abc", "entities": [{"entity": "x", "startPos": 2, "endPos": 1}]}]',
            "invalid start position",
        ),
        (
            "t.yml",
            "nluTui: {strict: true}\nthresholds:\n  - type: intnet\n",
            "not 'intent' or 'entity'",
        ),
        ("t.yml", "thresholds:\n  - type: intent\n    metric: accuracy\n", "unknown metric"),
        ("t.yml", "thresholds:\n  - {type: intent\n", "invalid YAML"),
        ("t.yml", "nluTui: {strict: true}\nignoredEntities: [x]\n", "unknown settings"),
    ],
)
def test_bad_input_exit_2_and_nothing_written(
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: str,
    message: str,
) -> None:
    (tmp_path / name).write_text(content)
    extra = ["-t", str(tmp_path / name)] if name == "t.yml" else []
    assert compare(files, *extra) == 2
    err = capsys.readouterr().err
    assert message in err and name in err
    assert not files["o"].exists()


def test_length_mismatch(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    write(files["a"], ACTUAL[:3])
    assert compare(files) == 2
    assert "4 utterances" in capsys.readouterr().err
    assert not files["o"].exists()


def test_exit_code_is_capped(tmp_path: Path) -> None:
    n = 300
    files = {
        "e": write(tmp_path / "e.json", [{"text": f"t{i}", "intent": "a"} for i in range(n)]),
        "a": write(tmp_path / "a.json", [{"text": f"t{i}", "intent": "b"} for i in range(n)]),
        "o": tmp_path / "o",
    }
    assert compare(files, "--unit-test") == 100


def test_real_command_line(files: dict[str, Path]) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nlu_tui",
            "compare",
            "-e",
            str(files["e"]),
            "-a",
            str(files["a"]),
            "-o",
            str(files["o"]),
            "-u",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 4, proc.stderr  # four failed tests in unit-test mode
    assert "== Intent results ==" in proc.stdout


def test_hostile_text_stays_well_formed(tmp_path: Path) -> None:
    text = 'a "quoted" <tag> & ]]> \x01 end'
    files = {
        "e": write(tmp_path / "e.json", [{"text": text, "intent": "x<y>"}]),
        "a": write(tmp_path / "a.json", [{"text": text, "intent": 'q"|r'}]),
        "o": tmp_path / "o",
    }
    assert compare(files) == 0
    root = ET.parse(files["o"] / "TestResult.xml").getroot()
    names = [c.get("name") for c in root.iter("test-case")]
    assert names[0] == "FalseNegativeIntent('x<y>', 'q\"|r', 'a \"quoted\" <tag> & ]]>  end')"
    failure = next(root.iter("message")).text
    assert failure == "Expected intent 'x<y>', actual intent 'q\"|r'."
    assert (
        json.loads((files["o"] / "metadata.json").read_text())[0]["expectedUtterance"]["text"]
        == text
    )


def test_metadata_rows_equal_decision_json(tmp_path: Path) -> None:
    from nlu_tui.compare.decisions import compare as decide
    from nlu_tui.compare.outputs import metadata_json
    from nlu_tui.compare.utterances import parse_utterance

    decisions = decide(
        [parse_utterance(e, index=i) for i, e in enumerate(EXPECTED)],
        [parse_utterance(a, index=i) for i, a in enumerate(ACTUAL)],
    )
    assert json.loads(metadata_json(decisions)) == [d.to_json() for d in decisions]
    assert json.loads(metadata_json([])) == []
