"""DUT against a loopback Rasa Pro built from its documented tracker shapes: commands per
component from ``parse_data``, the LLM output and prompt tokens, each step evaluated after the
earlier messages of its test case (also after a failed step)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from nlu_tui.cli.main import run as cli
from tests.rasa_pro_peer import rasa_pro_server

DUT = """\
test_cases:
  - test_case: user_adds_contact_to_their_list
    steps:
      - user: I want to add someone to my contact list
        commands:
          - start flow add_contact
      - bot: "What's the handle of the user you want to add?"
      - user: it's @barts
        commands:
          - set slot handle @barts
      - utter: utter_ask_name
      - user: just Bart
        commands:
          - set slot name Bart
  - test_case: clarify and confirm
    steps:
      - user: which flows?
        commands:
          - disambiguate flows
      - utter: utter_clarify
      - user: "yes"
        commands:
          - set slot confirm true
"""


def test_dut_against_rasa_pro(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tests = tmp_path / "dut.yml"
    tests.write_text(DUT, encoding="utf-8")
    out_json = tmp_path / "report.json"
    with rasa_pro_server() as (url, state):
        code = cli(
            [
                "test",
                "du",
                str(tests),
                "--engine",
                f"rasa-pro:{url}",
                "--output-file",
                str(tmp_path / "r.yml"),
                "--json",
                str(out_json),
                "--junit",
                str(tmp_path / "j.xml"),
                "--concurrency",
                "2",
            ]
        )
    assert code == 1
    report = json.loads(out_json.read_text(encoding="utf-8"))
    assert report == yaml.safe_load((tmp_path / "r.yml").read_text(encoding="utf-8"))
    assert report["accuracy"] == {"test_cases": 0.5, "user_utterances": 0.8}
    metrics = {
        k: (v["total_count"], v["tp"], v["fp"], v["fn"])
        for k, v in report["command_metrics"].items()
    }
    assert metrics == {
        "start_flow": (1, 1, 0, 0),
        "set_slot": (3, 2, 1, 1),
        "clarify": (1, 1, 0, 0),
    }
    assert report["f1_score"]["macro"] == pytest.approx(0.888888889)
    assert report["f1_score"]["micro"] == pytest.approx(0.8)
    assert report["f1_score"]["weighted_average"] == pytest.approx(0.8)
    # prompt tokens grow with the replayed history: 100, 110, 120 and 100, 110
    assert report["prompt_token"]["CompactLLMCommandGenerator"]["p50"] == 110.0
    assert report["latency"]["CompactLLMCommandGenerator"]["p50"] == 12.5
    (failed,) = report["failed_test_steps"]
    assert failed["failed_user_utterance"] == "it's @barts"
    assert failed["expected_commands"] == ["set slot handle @barts"]
    assert failed["predicted_commands"] == [
        {"component": "CompactLLMCommandGenerator", "commands": ["set slot name @barts"]}
    ]
    assert failed["prompts"]["CompactLLMCommandGenerator"][0]["choices"] == "set slot name @barts"
    assert "user_prompt" not in failed["prompts"]["CompactLLMCommandGenerator"][0]
    # each test case's conversation is simulated once (its earlier messages), and every step
    # is sent from a tracker holding the events just before it, as Rasa Pro's DUT runner does
    by_sender: dict[str, list[str]] = {}
    for sender, text in state.messages:
        by_sender.setdefault(sender, []).append(text)
    simulated = sorted(v for k, v in by_sender.items() if k.endswith("-sim"))
    assert simulated == [
        ["I want to add someone to my contact list", "it's @barts"],
        ["which flows?"],
    ]
    steps = sorted(v[0] for k, v in by_sender.items() if not k.endswith("-sim"))
    assert steps == sorted(
        [
            "I want to add someone to my contact list",
            "it's @barts",
            "just Bart",
            "which flows?",
            "yes",
        ]
    )
    assert sorted(n for _sender, n in state.replaced) == [0, 0, 3, 3, 7]
    text = capsys.readouterr().out
    assert "set slot handle @barts | set slot name @barts" in text
    assert "-- LLM ouptut for CompactLLMCommandGenerator --" in text
    assert "set_slot (3 commands in total):" in text
    assert "1 failed test cases, 1 passed test cases (accuracy:  0.5000)" in text
    assert "<failure" in (tmp_path / "j.xml").read_text(encoding="utf-8")


def test_output_prompt_and_plain_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests = tmp_path / "dut.yml"
    tests.write_text(DUT, encoding="utf-8")
    out_json = tmp_path / "report.json"
    with rasa_pro_server() as (url, _state):
        cli(
            [
                "test",
                "du",
                str(tests),
                "--engine",
                f"rasa-pro:{url}",
                "--no-output",
                "--json",
                str(out_json),
                "--output-prompt",
            ]
        )
    report = json.loads(out_json.read_text(encoding="utf-8"))
    prompt = report["failed_test_steps"][0]["prompts"]["CompactLLMCommandGenerator"][0]
    assert prompt["user_prompt"].startswith("conversation so far:")
    assert "user prompt      : conversation so far:" in capsys.readouterr().out
    # a server that does not record predicted_commands: parse_data.commands is read instead
    with rasa_pro_server(record=False) as (url, _state):
        cli(
            [
                "test",
                "du",
                str(tests),
                "--engine",
                f"rasa-pro:{url}",
                "--no-output",
                "--json",
                str(out_json),
            ]
        )
    report = json.loads(out_json.read_text(encoding="utf-8"))
    assert (
        report["failed_test_steps"][0]["predicted_commands"][0]["component"] == "CommandGenerator"
    )
    assert report["prompt_token"] == {}


def test_cancel_keeps_finished_cases_and_resume_completes(tmp_path: Path) -> None:
    import asyncio

    from nlu_tui.dut.runner import DutRunSettings
    from nlu_tui.dut.service import DutRequest, run_dut
    from nlu_tui.model import RunStatus
    from nlu_tui.store.runstore import RunStore

    tests = tmp_path / "dut.yml"
    tests.write_text(DUT, encoding="utf-8")
    with rasa_pro_server() as (url, state):
        state.slow = {"just Bart"}

        async def cancel_after_first() -> object:
            request = DutRequest(tests, f"rasa-pro:{url}", settings=DutRunSettings(concurrency=2))
            task = asyncio.create_task(run_dut(request))
            for _ in range(200):
                await asyncio.sleep(0.02)
                with RunStore() as store:
                    runs = store.list_runs()
                    if runs and store.load_items(runs[0].id):
                        break
            task.cancel()
            return await task

        outcome = asyncio.run(cancel_after_first())
        assert outcome.canceled  # type: ignore[attr-defined]
        with RunStore() as store:
            (run,) = store.list_runs()
            assert run.status is RunStatus.CANCELED
            assert [i.item_id.rsplit(":", 1)[1] for i in store.load_items(run.id)] == [
                "clarify and confirm"
            ]
        sent_before = len(state.messages)
        state.slow = set()
        resumed = asyncio.run(run_dut(DutRequest(tests, resume=run.id)))
    assert not resumed.canceled
    assert resumed.run.status is RunStatus.SUCCESS
    assert resumed.report["number_of_failed_tests"] == 1
    assert resumed.report["number_of_passed_tests"] == 1
    # the stored test case was not sent again: only the first test case's 2 simulated
    # messages and its 3 steps
    assert len(state.messages) - sent_before == 5


def test_resume_with_the_path_spelled_otherwise_sends_no_stored_case_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run as `test du dut.yml` from its folder, resumed as `test du /abs/dut.yml --resume`:
    the test cases' ids once held the path as typed, so the stored one was sent again."""
    import asyncio

    from nlu_tui.dut.runner import DutRunSettings
    from nlu_tui.dut.service import DutRequest, run_dut
    from nlu_tui.model import RunStatus
    from nlu_tui.store.runstore import RunStore

    tests = tmp_path / "dut.yml"
    tests.write_text(DUT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with rasa_pro_server() as (url, state):
        state.slow = {"just Bart"}

        async def cancel_after_first() -> object:
            request = DutRequest(
                Path("dut.yml"), f"rasa-pro:{url}", settings=DutRunSettings(concurrency=2)
            )
            task = asyncio.create_task(run_dut(request))
            for _ in range(200):
                await asyncio.sleep(0.02)
                with RunStore() as store:
                    runs = store.list_runs()
                    if runs and store.load_items(runs[0].id):
                        break
            task.cancel()
            return await task

        outcome = asyncio.run(cancel_after_first())
        assert outcome.canceled  # type: ignore[attr-defined]
        with RunStore() as store:
            (run,) = store.list_runs()
            assert len(store.load_items(run.id)) == 1
        sent_before = len(state.messages)
        state.slow = set()
        resumed = asyncio.run(run_dut(DutRequest(tests.resolve(), resume=run.id)))
    assert resumed.run.status is RunStatus.SUCCESS
    assert resumed.report["number_of_failed_tests"] + resumed.report["number_of_passed_tests"] == 2
    with RunStore() as store:
        assert len(store.load_items(run.id)) == 2
    assert len(state.messages) - sent_before == 5  # the stored test case was not sent again


def test_cli_resume_without_a_path_uses_the_runs_own_test_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`nlu-tui test du --resume RUN`, as the cancel message says, from anywhere: it used to
    look for the default dialogue_understanding_tests/ folder and exit 2."""
    import asyncio

    from nlu_tui.dut.runner import DutRunSettings
    from nlu_tui.dut.service import DutRequest, run_dut
    from nlu_tui.model import RunStatus
    from nlu_tui.store.runstore import RunStore

    tests = tmp_path / "dut.yml"
    tests.write_text(DUT, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with rasa_pro_server() as (url, state):
        state.slow = {"just Bart"}

        async def cancel_after_first() -> object:
            request = DutRequest(tests, f"rasa-pro:{url}", settings=DutRunSettings(concurrency=2))
            task = asyncio.create_task(run_dut(request))
            for _ in range(200):
                await asyncio.sleep(0.02)
                with RunStore() as store:
                    runs = store.list_runs()
                    if runs and store.load_items(runs[0].id):
                        break
            task.cancel()
            return await task

        assert asyncio.run(cancel_after_first()).canceled  # type: ignore[attr-defined]
        with RunStore() as store:
            (run,) = store.list_runs()
        state.slow = set()
        sent_before = len(state.messages)
        code = cli(["test", "du", "--resume", run.id, "--no-output"])
    err = capsys.readouterr().err
    assert code == 1, err  # one of its two test cases fails, as written
    with RunStore() as store:
        assert store.get_run(run.id).status is RunStatus.SUCCESS
        assert len(store.load_items(run.id)) == 2
    assert len(state.messages) - sent_before == 5


def test_a_simulation_that_fails_half_way_starts_again(tmp_path: Path) -> None:
    """The server processed a replayed message but its answer was lost (502): the step is
    retried on a new simulation, so no simulated tracker holds a message twice and the
    results are those of an undisturbed run."""
    tests = tmp_path / "dut.yml"
    tests.write_text(DUT, encoding="utf-8")
    out_json = tmp_path / "report.json"
    with rasa_pro_server() as (url, state):
        state.lose_answer_once = {"it's @barts"}
        code = cli(
            [
                "test",
                "du",
                str(tests),
                "--engine",
                f"rasa-pro:{url}",
                "--no-output",
                "--json",
                str(out_json),
                "--concurrency",
                "1",
            ]
        )
    assert code == 1
    report = json.loads(out_json.read_text(encoding="utf-8"))
    assert report["accuracy"] == {"test_cases": 0.5, "user_utterances": 0.8}
    by_sender: dict[str, list[str]] = {}
    for sender, text in state.messages:
        by_sender.setdefault(sender, []).append(text)
    for sender, texts in by_sender.items():
        if sender.endswith("-sim"):
            assert len(texts) == len(set(texts)), (sender, texts)
    assert any("-retry1-sim" in sender for sender in by_sender)
