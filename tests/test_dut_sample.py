"""The sample DUT suite on the embedded command generator (what the README shows), the reader
per DSL, custom commands, placeholder_generated_answer, bad input, and runs in the store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nlu_tui.cli.main import run as cli
from nlu_tui.dialogue_understanding.commands import CommandSpec, CustomCommand, set_slot, start_flow
from nlu_tui.dut.reader import load_custom_commands, read_dut
from nlu_tui.store.runstore import RunStore

SAMPLES = Path(__file__).parents[1] / "sample_suites"
DUT = SAMPLES / "contacts.dut.yml"
NLU = SAMPLES / "contacts.nlu.yml"


def test_sample_suite_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report_path = tmp_path / "r.json"
    code = cli(
        [
            "test",
            "du",
            str(DUT),
            "--engine",
            f"embedded:{NLU}",
            "--no-output",
            "--json",
            str(report_path),
        ]
    )
    assert code == 1  # two test cases fail on purpose
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert (report["number_of_passed_tests"], report["number_of_failed_tests"]) == (3, 2)
    assert (
        report["number_of_passed_user_utterances"],
        report["number_of_failed_user_utterances"],
    ) == (10, 2)
    counts = {
        k: (v["total_count"], v["tp"], v["fp"], v["fn"])
        for k, v in report["command_metrics"].items()
    }
    assert counts == {
        "start_flow": (5, 5, 0, 0),
        "set_slot": (6, 4, 1, 2),
        "knowledge": (1, 1, 0, 0),
        "cancel_flow": (1, 1, 0, 0),
        "chitchat": (1, 1, 0, 0),
    }
    # by hand: set_slot P=4/5 R=4/6 F1=8/11; macro=(4+8/11)/5; micro tp=12 fp=1 fn=2 -> 24/27;
    # weighted=(5+6*8/11+3)/14
    assert report["f1_score"]["macro"] == pytest.approx((4 + 8 / 11) / 5)
    assert report["f1_score"]["micro"] == pytest.approx(24 / 27)
    assert report["f1_score"]["weighted_average"] == pytest.approx((8 + 48 / 11) / 14)
    failed = {(s["test_case"], s["failed_user_utterance"]) for s in report["failed_test_steps"]}
    assert failed == {
        ("user_adds_contact_to_their_list", "just Bart"),
        ("user asks a knowledge question during flow", "yes"),
    }
    # the step after placeholder_generated_answer was evaluated with that conversation
    out = capsys.readouterr().out
    assert "utter: placeholder_generated_answer" in out
    with RunStore() as store:
        (run,) = store.list_runs()
        assert (run.kind, run.total, run.passed, run.failed) == ("dut", 5, 3, 2)
        assert run.summary["f1_score"] == report["f1_score"]


def test_gate_on_per_command_f1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["test", "du", str(DUT), "--engine", f"embedded:{NLU}", "--no-output"]
    assert cli([*base, "--fail-on", "set_slot.f1<0.9,start_flow.f1<1,macro<0.5"]) == 1
    err = capsys.readouterr().err
    assert "gate failed: set_slot.f1 0.7273 < 0.9" in err
    assert "start_flow" not in err and "macro" not in err
    with RunStore() as store:
        (run,) = store.list_runs()
        assert run.summary["gate_failures"] == ["set_slot.f1 0.7273 < 0.9"]
    assert cli([*base, "--fail-on", "nonsense<1"]) == 2


def test_resume_sends_no_stored_test_case_again(tmp_path: Path) -> None:
    from nlu_tui.model import RunStatus

    base = ["test", "du", str(DUT), "--engine", f"embedded:{NLU}", "--no-output"]
    assert cli(base) == 1
    with RunStore() as store:
        (run,) = store.list_runs()
        items = store.load_items(run.id)
        # pretend the run was interrupted after two test cases
        with store._tx() as conn:  # the store's connection is behind its backend seam now
            conn.execute("DELETE FROM items WHERE run_id = ? AND seq >= 2", (run.id,))
            conn.execute(
                "UPDATE runs SET done = 2, passed = ?, failed = ? WHERE id = ?",
                (
                    sum(i.outcome == "passed" for i in items[:2]),
                    sum(i.outcome == "failed" for i in items[:2]),
                    run.id,
                ),
            )
        store.finish_run(run.id, RunStatus.INTERRUPTED, "killed")
    json_path = tmp_path / "r.json"
    assert (
        cli(["test", "du", str(DUT), "--resume", run.id, "--no-output", "--json", str(json_path)])
        == 1
    )
    report = json.loads(json_path.read_text(encoding="utf-8"))
    assert report["number_of_passed_tests"] + report["number_of_failed_tests"] == 5
    with RunStore() as store:
        again = store.get_run(run.id)
        assert (again.status, again.done, again.passed, again.failed) == (
            RunStatus.SUCCESS,
            5,
            3,
            2,
        )
        assert [i.item_id for i in store.load_items(run.id)] == [i.item_id for i in items]


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "t.yml"
    path.write_text(body, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("commands", "dsl"),
    [
        (["StartFlow(add_contact)", "SetSlot(handle, @barts)"], "v1"),
        (["start flow add_contact", "set slot handle @barts"], "v2"),
        (["start flow add_contact", "set slot handle @barts", "search and reply"], "v3"),
    ],
)
def test_reader_per_dsl(tmp_path: Path, commands: list[str], dsl: str) -> None:
    lines = "\n".join(f"          - {c}" for c in commands)
    path = _write(
        tmp_path,
        f"test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n        commands:\n{lines}\n"
        "      - utter: placeholder_generated_answer\n",
    )
    suite = read_dut(path, CommandSpec())
    assert suite.versions == {str(path): dsl}
    (case,) = suite.cases
    assert case.steps[0].commands[:2] == [start_flow("add_contact"), set_slot("handle", "@barts")]
    assert case.steps[1].template == "placeholder_generated_answer"
    assert case.evaluated_steps() == [0]


def test_bad_command_names_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(
        tmp_path,
        "test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n        commands:\n"
        "          - start flow nope_flow\n          - fly to the moon\n",
    )
    code = cli(
        [
            "test",
            "du",
            str(path),
            "--engine",
            f"embedded:{NLU}",
            "--flows",
            str(SAMPLES / "contacts.flows.yml"),
            "--no-output",
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert f"{path}, line 4, field 'commands'" in err and "start flow nope_flow" in err
    with RunStore() as store:
        assert store.list_runs() == []


def test_custom_commands_file(tmp_path: Path) -> None:
    custom = tmp_path / "custom.yml"
    custom.write_text(
        "commands:\n  - name: CustomCancelFlow\n    command: cancel flow\n"
        "    regex: '^stop it all$'\n    dsl: stop it all\n",
        encoding="utf-8",
    )
    (declared,) = load_custom_commands(custom)
    assert isinstance(declared, CustomCommand)
    path = _write(
        tmp_path,
        "test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n        commands:\n"
        "          - stop it all\n",
    )
    suite = read_dut(path, CommandSpec("v2", ["CancelFlow"], [declared]))
    (command,) = suite.cases[0].steps[0].commands
    assert (command.name, command.custom, command.to_dsl("v2")) == (
        "cancel flow",
        "CustomCancelFlow",
        "stop it all",
    )


def test_show_a_dut_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["test", "du", str(DUT), "--engine", f"embedded:{NLU}", "--no-output"]) == 1
    with RunStore() as store:
        (run,) = store.list_runs()
    capsys.readouterr()
    assert cli(["show", run.id]) == 0
    out = capsys.readouterr().out
    assert "set slot name Bart | " in out
    assert "2 failed test cases, 3 passed test cases (accuracy:  0.6000)" in out
    assert cli(["show", run.id, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["f1_score"]["micro"] == pytest.approx(24 / 27)
