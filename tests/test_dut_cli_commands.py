"""``test du``'s sub-commands are argparse sub-commands (own options, own ``--help``), and any
other first word is the PATH of a run: a test file named ``convert-dsl`` runs as
``./convert-dsl``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from nlu_tui.cli.main import build_parser
from nlu_tui.cli.main import run as cli

SAMPLES = Path(__file__).parents[1] / "sample_suites"
DUT = SAMPLES / "contacts.dut.yml"
FLOWS = SAMPLES / "contacts.flows.yml"
NLU = SAMPLES / "contacts.nlu.yml"
SEED_MAPPINGS = Path(__file__).parent / "fixtures" / "dut" / "seed_dsl_mappings.yml"


def test_a_file_named_like_a_sub_command_runs_as_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(DUT, tmp_path / "convert-dsl")
    report = tmp_path / "r.json"
    engine = f"embedded:{NLU}"
    argv = ["test", "du", "./convert-dsl", "--engine", engine, "--flows", str(FLOWS)]
    code = cli([*argv, "--no-output", "--json", str(report)])
    assert code == 1  # the sample's two failing test cases, as tests/test_dut_sample.py
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["number_of_passed_tests"], data["number_of_failed_tests"]) == (3, 2)


def test_options_before_and_after_the_path_both_count() -> None:
    parser = build_parser()
    before = parser.parse_args(["test", "du", "--concurrency", "2", "x.yml", "--retries", "0"])
    assert (before.paths, before.concurrency, before.retries) == (["x.yml"], 2, 0)
    assert before.handler.__name__ == "cmd_du"
    bare = parser.parse_args(["test", "du", "--resume", "R1"])
    assert (bare.paths, bare.resume, bare.handler.__name__) == ([], "R1", "cmd_du")


def test_convert_dsl_is_a_sub_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "dut"
    src.mkdir()
    (src / "a.yml").write_text(
        "test_cases:\n"
        "  - test_case: t\n"
        "    steps:\n"
        "      - user: hi\n"
        "        commands:\n"
        "          - StartFlow(add_contact)\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    argv = ["test", "du", "convert-dsl", "--dut-tests-dir", str(src), "--output-dir", str(out)]
    assert cli([*argv, "--dsl-mappings", str(SEED_MAPPINGS)]) == 0
    data = yaml.safe_load((out / "a.yml").read_text(encoding="utf-8"))
    assert data["test_cases"][0]["steps"] == [{"user": "hi", "commands": ["start add_contact"]}]
    assert "Transformation complete" in capsys.readouterr().out
    # its own options only: a run's option is not one of convert-dsl's
    with pytest.raises(SystemExit) as info:
        cli([*argv, "--dsl-mappings", str(SEED_MAPPINGS), "--concurrency", "2"])
    assert info.value.code == 2
    assert "--concurrency" in capsys.readouterr().err


def test_convert_dsl_without_its_options_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["test", "du", "convert-dsl", "--output-dir", str(tmp_path / "o")]) == 2
    assert "convert-dsl needs --dut-tests-dir, --dsl-mappings" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_each_sub_command_has_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command, option in (("convert-dsl", "--dsl-mappings"), ("convert-e2e", "--output-folder")):
        with pytest.raises(SystemExit) as info:
            cli(["test", "du", command, "--help"])
        assert info.value.code == 0
        text = capsys.readouterr().out
        assert f"nlu-tui test du {command}" in text
        assert option in text
        assert "--concurrency" not in text


def test_convert_e2e_needs_its_path(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli(["test", "du", "convert-e2e", "--engine", "rasa-pro:http://127.0.0.1:9"])
    assert info.value.code == 2
    assert "PATH" in capsys.readouterr().err
