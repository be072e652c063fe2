"""``nlu-tui import / export / validate`` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.cli.main import run
from nlu_tui.formats.native import load_suite

FORMATS = Path(__file__).parent / "fixtures" / "formats"
VALIDATION = Path(__file__).parent / "fixtures" / "validation" / "all_problems.suite.yaml"


def nlu_tui(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_import_kore_csv_then_export_json_then_validate(tmp_path: Path) -> None:
    out = tmp_path / "bank.suite.yaml"
    proc = nlu_tui("import", FORMATS / "seed_kore.csv", "-o", out, "--name", "Bank")
    assert proc.returncode == 0, proc.stderr
    assert "imported 5 cases" in proc.stdout and "(kore-csv)" in proc.stdout
    suite = load_suite(out)
    assert suite.name == "Bank" and len(suite.cases) == 5

    exported = tmp_path / "bank.json"
    proc = nlu_tui("export", out, "--format", "kore-json", "-o", exported)
    assert proc.returncode == 0, proc.stderr
    assert "case ids are not kept" in proc.stderr
    assert len(json.loads(exported.read_text(encoding="utf-8"))["testCases"]) == 5

    assert nlu_tui("validate", out).returncode == 0


def test_import_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    out = tmp_path / "s.suite.yaml"
    out.write_text("precious", encoding="utf-8")
    assert run(["import", str(FORMATS / "seed_kore.json"), "-o", str(out)]) == 2
    assert out.read_text(encoding="utf-8") == "precious"
    assert run(["import", str(FORMATS / "seed_kore.json"), "-o", str(out), "--force"]) == 0
    assert len(load_suite(out).cases) == 21
    assert (tmp_path / "s.suite.yaml.bak").read_text(encoding="utf-8") == "precious"


def test_import_default_output_name(tmp_path: Path) -> None:
    source = tmp_path / "seed.csv"
    source.write_bytes((FORMATS / "seed_kore.csv").read_bytes())
    assert run(["import", str(source)]) == 0
    assert (tmp_path / "seed.suite.yaml").is_file()


MALFORMED = {
    "bad.json": ('{"testCases": [\n {"input": "a", "intent": "b"\n {"input": "c"}\n]}', "line 3"),
    "unclosed.csv": (
        'input,intent\nhello,Greet\n"Send money,Transfer\nbye,Leave\n',
        "row 3, field 'input'",
    ),
    "long.csv": ("input,intent\nok,I\n" + "a" * 3001 + ",I\n", "row 3, field 'input'"),
    "tab.suite.yaml": ("name: x\ncases:\n  - utterance: a\n\tintents: [b]\n", "line 4"),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_file_gives_one_clear_error_exit_2_and_no_output(
    tmp_path: Path, name: str
) -> None:
    text, where = MALFORMED[name]
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "out.suite.yaml"
    proc = nlu_tui("import", source, "-o", out)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"nlu-tui: error: {source}, {where}")
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_validate_exit_codes_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["validate", str(VALIDATION)]) == 2
    captured = capsys.readouterr()
    assert f"{VALIDATION}:22: error: [too-many-intents] case manyintents1:" in captured.out
    assert "7 errors, 6 warnings in 1 file" in captured.err

    warn_only = tmp_path / "w.suite.yaml"
    warn_only.write_text(
        "name: w\ncases:\n  - {id: a, utterance: hi, intents: [greet]}\n"
        "  - {id: b, utterance: hi, intents: [greet]}\n",
        encoding="utf-8",
    )
    assert run(["validate", str(warn_only)]) == 0
    assert run(["validate", str(warn_only), "--fail-on-warnings"]) == 1
    capsys.readouterr()
    assert run(["validate", "--json", str(warn_only)]) == 0
    problems = json.loads(capsys.readouterr().out)
    assert problems == [
        {
            "severity": "warning",
            "code": "duplicate-case",
            "message": "duplicate of case a at line 3",
            "path": str(warn_only),
            "case_id": "b",
            "line": 4,
        }
    ]


def test_validate_reports_unreadable_files_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.suite.yaml"
    bad.write_text("cases:\n  - utterance: a\n    intens: [b]\n", encoding="utf-8")
    good = tmp_path / "good.suite.yaml"
    good.write_text("cases:\n  - utterance: a\n", encoding="utf-8")
    assert run(["validate", str(bad), str(good)]) == 2
    out = capsys.readouterr().out
    assert f"{bad}:3: error: [unreadable]" in out and "intens" in out


def test_validate_other_formats_and_export_format_inference(tmp_path: Path) -> None:
    assert run(["validate", str(FORMATS / "seed_kore.json")]) == 0
    out = tmp_path / "x.csv"
    assert run(["export", str(FORMATS / "seed_kore.json"), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("input,intent,parentIntent")
    assert run(["export", str(FORMATS / "seed_kore.csv"), "-o", str(tmp_path / "x.json")]) == 2
    assert not (tmp_path / "x.json").exists()
