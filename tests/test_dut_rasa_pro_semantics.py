"""``nlu-tui test du`` against Rasa Pro 3.21.0's own semantics (issue 24, divergences D1-D7).

Every expectation here is derived from Rasa Pro's source (``pip download rasa-pro==3.21.0
--no-deps``), named in each test's docstring, not from nlu-tui's code; each test failed on the
``main`` branch before these fixes. Rasa Pro itself cannot run here (it needs a licence, see
``/work/shared/reference/real-peers.md`` §2), so the engines are real servers on 127.0.0.1:
the stand-in Rasa Pro of :mod:`tests.rasa_pro_peer` and a generic HTTP engine.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from nlu_tui.cli.main import run as cli
from nlu_tui.dialogue_understanding.commands import (
    CommandSet,
    CustomCommand,
    command_from_json,
    dedupe,
    parse_commands,
    remember_custom,
)
from nlu_tui.dialogue_understanding.compare import are_command_lists_equal
from nlu_tui.store.runstore import RunStore
from tests.http_handler_server import QuietHandler, serving
from tests.rasa_pro_peer import rasa_pro_server

V2 = CommandSet(version="v2")


def _du(tmp_path: Path, path: Path | str, engine: str) -> tuple[int, dict[str, Any]]:
    return _du_args(tmp_path, str(path), "--engine", engine)


def _du_args(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    code = cli(["test", "du", *args, "--no-output", "--json", str(report)])
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
    return code, data


# --- D1: duplicates as a Python set of Rasa's command objects --------------------------------


def test_d1_set_slot_duplicates_differing_in_case_are_both_kept() -> None:
    """``du_test_runner.py``, ``get_dialogue_understanding_output``: predicted commands are
    ``list(set([Command.command_from_json(c) ...]))``. ``SetSlotCommand.__hash__`` is
    ``hash(self.value) + hash(self.name)`` (case-sensitive) while its ``__eq__`` compares
    ``str(value).lower()``, so ``True`` and ``true`` are two set elements and the step, which
    expects one command, fails (``command_comparison.are_command_lists_equal``: lengths differ).
    Exact duplicates are one element."""
    predicted = [
        command_from_json({"command": "set slot", "name": "x", "value": "True"}),
        command_from_json({"command": "set slot", "name": "x", "value": "true"}),
    ]
    kept = dedupe(c for c in predicted if c is not None)
    assert len(kept) == 2
    expected = parse_commands("set slot x True", V2)
    assert not are_command_lists_equal(expected, kept)
    twice = [command_from_json({"command": "set slot", "name": "x", "value": "True"})] * 2
    assert len(dedupe(c for c in twice if c is not None)) == 1
    # StartFlowCommand.__hash__ is hash(flow), CancelFlowCommand's hash(command()): one each
    flows = [command_from_json({"command": "start flow", "flow": "a"})] * 2
    assert len(dedupe(c for c in flows if c is not None)) == 1


class _Predictor(QuietHandler):
    """Answers each message with the commands scripted for it (JSON at ``out.commands``)."""

    answers: dict[str, list[Any]] = {}

    def do_POST(self) -> None:
        body = self.read_json()
        self.send_json(json.dumps({"out": {"commands": self.answers[body["message"]]}}).encode())


def _http_profile(folder: Path, url: str) -> None:
    (folder / "engines.yaml").write_text(
        "engines:\n  cmds:\n    type: http\n"
        f"    url: {url}/predict\n"
        "    body: {message: '{text}', history: '{conversation}'}\n"
        "    commands: out.commands\n    component: MyGenerator\n",
        encoding="utf-8",
    )


def test_d1_end_to_end_a_step_fails_on_case_duplicates(tmp_path: Path) -> None:
    """The same ``list(set(...))`` through a run: one step, predicted ``set slot x True`` and
    ``set slot x true``, expected ``set slot x True`` → Rasa keeps both, the step fails
    (``DialogueUnderstandingTestStep.has_passed``), exit 1."""
    (tmp_path / "t.yml").write_text(
        "test_cases:\n  - test_case: t\n    steps:\n      - user: yes please\n"
        "        commands: [set slot x True]\n",
        encoding="utf-8",
    )
    _Predictor.answers = {"yes please": ["set slot x True", "set slot x true"]}
    with serving(_Predictor) as url:
        _http_profile(tmp_path, url)
        code, report = _du_args(tmp_path, str(tmp_path / "t.yml"), "--engine", "cmds")
    assert code == 1
    assert report["number_of_failed_user_utterances"] == 1
    assert report["command_metrics"]["set_slot"] == {
        "tp": 1,
        "fp": 0,
        "fn": 0,
        "precision": 1.0,
        "recall": 1.0,
        "f1_score": 1.0,
        "total_count": 1,
    }


# --- D2: custom commands in Rasa's as_dict shape; CancelFlow subclasses ----------------------

CUSTOM = """\
commands:
  - name: SayHello
    command: say hello
    regex: "^say hello to (\\\\w+)$"
    dsl: "say hello to {1}"
    fields: [who]
  - name: CustomCancelFlow
    command: cancel flow
    regex: "^stop everything$"
    dsl: "stop everything"
"""

CUSTOM_DUT = """\
test_cases:
  - test_case: greets bob
    steps:
      - user: greet bob
        commands: [say hello to bob]
  - test_case: stops
    steps:
      - user: stop it
        commands: [stop everything]
"""


def test_d2_as_dict_custom_command_and_cancel_flow_subclass_match(tmp_path: Path) -> None:
    """``command.py``, ``Command.as_dict`` (``dataclasses.asdict(self)`` plus ``"command"``)
    and ``Command.command_from_json`` (``data["command"]`` resolved over
    ``all_subclasses(Command)``, defaults first): ``{"command": "say hello", "who": "bob"}``
    is a ``SayHello(who="bob")`` and equals the expected ``say hello to bob``;
    ``{"command": "cancel flow"}`` is a ``CancelFlowCommand``, equal to an expected
    ``CustomCancelFlow(CancelFlowCommand)`` because ``CancelFlowCommand.__eq__`` is
    ``isinstance(other, CancelFlowCommand)`` (``cancel_flow_command.py``). Both test cases
    pass; the metric keys are ``command()``: ``say_hello`` and ``cancel_flow``."""
    (tmp_path / "custom.yml").write_text(CUSTOM, encoding="utf-8")
    (tmp_path / "t.yml").write_text(CUSTOM_DUT, encoding="utf-8")
    _Predictor.answers = {
        "greet bob": [{"command": "say hello", "who": "bob"}],
        "stop it": [{"command": "cancel flow"}],
    }
    with serving(_Predictor) as url:
        _http_profile(tmp_path, url)
        code, report = _du_args(
            tmp_path,
            str(tmp_path / "t.yml"),
            "--engine",
            "cmds",
            "--additional-commands",
            str(tmp_path / "custom.yml"),
        )
    assert code == 0, report.get("failed_test_steps")
    assert report["number_of_passed_tests"] == 2
    assert {k: (v["tp"], v["fp"], v["fn"]) for k, v in report["command_metrics"].items()} == {
        "say_hello": (1, 0, 0),
        "cancel_flow": (1, 0, 0),
    }


def test_d2_http_engine_parses_custom_dsl_strings(tmp_path: Path) -> None:
    """Rasa's generators parse their LLM output with ``command_parser.parse_commands(...,
    additional_commands=...)``, custom commands included (``_parse_custom_commands``): an
    engine answering the DSL string ``say hello to bob`` predicts ``SayHello(who="bob")``, and
    ``stop everything`` a ``CustomCancelFlow``."""
    (tmp_path / "custom.yml").write_text(CUSTOM, encoding="utf-8")
    (tmp_path / "t.yml").write_text(CUSTOM_DUT, encoding="utf-8")
    _Predictor.answers = {"greet bob": ["say hello to bob"], "stop it": ["stop everything"]}
    with serving(_Predictor) as url:
        _http_profile(tmp_path, url)
        code, report = _du_args(
            tmp_path,
            str(tmp_path / "t.yml"),
            "--engine",
            "cmds",
            "--additional-commands",
            str(tmp_path / "custom.yml"),
        )
    assert code == 0, report.get("failed_test_steps")
    assert report["accuracy"]["user_utterances"] == 1.0


def test_d2_rasa_pro_tracker_custom_command_matches() -> None:
    """The ``rasa-pro:`` engine reads ``parse_data.predicted_commands`` with the same
    ``command_from_json`` (``du_test_runner.py``, ``get_dialogue_understanding_output``)."""
    from nlu_tui.engines.rasa_pro import parse_user_event

    say_hello = CustomCommand(
        "SayHello",
        "say hello",
        {"v2": r"^say hello to (\w+)$"},
        {"v2": "say hello to {1}"},
        ("who",),
    )
    remember_custom([say_hello])
    try:
        output = parse_user_event(
            {"parse_data": {"predicted_commands": {"G": [{"command": "say hello", "who": "bob"}]}}}
        )
        expected = parse_commands("say hello to bob", CommandSet(version="v2", custom=(say_hello,)))
        assert are_command_lists_equal(expected, output.all_commands())
        (command,) = output.all_commands()
        assert command.as_json() == {"who": "bob", "command": "say hello"}
    finally:
        remember_custom([])


# --- D3: --remove-default-commands CancelFlow -------------------------------------------------


def test_d3_cancel_flow_short_name_is_accepted_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``generator/command_parser.py``, ``_create_default_commands``: a default command is
    removed when the list holds the class or its ``__name__`` (``CancelFlowCommand``), so
    Rasa 3.21 removes nothing for ``CancelFlow`` (seed 003's spelling). nlu-tui removes it as
    the seed means, and warns that Rasa Pro needs ``CancelFlowCommand``."""
    (tmp_path / "t.yml").write_text(
        "test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n"
        "        commands: [offtopic reply]\n",
        encoding="utf-8",
    )
    _Predictor.answers = {"hi": ["offtopic reply"]}
    with serving(_Predictor) as url:
        _http_profile(tmp_path, url)
        code, _ = _du_args(
            tmp_path,
            str(tmp_path / "t.yml"),
            "--engine",
            "cmds",
            "--remove-default-commands",
            "CancelFlow",
        )
        err = capsys.readouterr().err
        assert code == 0
        assert "warning:" in err and "CancelFlowCommand" in err
        code, _ = _du_args(
            tmp_path,
            str(tmp_path / "t.yml"),
            "--engine",
            "cmds",
            "--remove-default-commands",
            "CancelFlowCommand",
        )
        assert code == 0
        assert "warning:" not in capsys.readouterr().err


# --- D4: what Rasa's DUT schema refuses; nothing tested is not a pass --------------------------


@pytest.mark.parametrize(
    ("step", "field", "line"),
    [
        ("      - user: hi\n", "commands", 6),
        ("      - user: hi\n        commands: []\n", "commands", 6),
        ("      - user: hi\n        commands:\n", "commands", 6),
        (
            "      - user: hi\n        commands: [offtopic reply]\n"
            "        assertions:\n          - flow_started: f\n",
            "assertions",
            6,
        ),
        ("      - slot_was_set:\n          - x: 1\n", "slot_was_set", 6),
    ],
)
def test_d4_schema_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], step: str, field: str, line: int
) -> None:
    """``dialogue_understanding_test/du_test_schema.yml`` (validated by
    ``io.read_test_suite`` with ``validate_yaml_content_using_schema``): a step is a map of
    ``user`` (required) with ``commands`` (``type: seq``, ``required: True``) and optional
    ``metadata``, or ``utter``, or ``bot``. So a user step without ``commands``, with an
    empty or null list, with ``assertions``, or a ``slot_was_set`` step is refused: exit 2,
    naming the file, line and field, and nothing is stored."""
    path = tmp_path / "t.yml"
    path.write_text(
        "test_cases:\n  - test_case: t\n    steps:\n      - user: hello\n"
        "        commands: [offtopic reply]\n" + step,
        encoding="utf-8",
    )
    code = cli(["test", "du", str(path), "--engine", "rasa-pro:http://127.0.0.1:9", "--no-output"])
    assert code == 2
    err = capsys.readouterr().err
    assert f"{path}, line {line}, field '{field}'" in err, err
    with RunStore() as store:
        assert store.list_runs() == []


TEMPLATE_E2E = {
    # modelled on rasa/cli/project_templates/default/e2e_tests/happy_paths/
    # user_adds_contact_to_their_list.yml (rasa-pro 3.21.0 wheel)
    "happy_paths/user_adds_contact_to_their_list.yml": """\
test_cases:
  - test_case: user adds a contact to their list
    steps:
      - user: I want to add someone to my contact list
      - utter: utter_ask_add_contact_handle
      - user: it's @barts
      - slot_was_set:
          - add_contact_handle: "@barts"
      - utter: utter_ask_add_contact_name
      - user: just Bart
      - utter: utter_ask_add_contact_confirmation
      - user: Yes
      - utter: utter_contact_added
""",
    # modelled on rasa/cli/project_templates/finance/tests/e2e_test_cases/without_stub/
    # general/hello.yml (assertions, Rasa Pro >= 3.12)
    "general/hello.yml": """\
test_cases:
  - test_case: hello
    steps:
    - user: "hello"
      assertions:
        - flow_started: "hello"
        - bot_uttered:
            utter_name: "utter_hello"
""",
}


def test_d4_a_template_e2e_folder_is_nothing_tested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rasa's template E2E tests (``rasa/cli/project_templates/default/e2e_tests``, the
    finance template's ``tests/e2e_test_cases``) have no ``commands:``: Rasa's schema refuses
    them for ``rasa test du``, and nlu-tui printed "8 passed test cases" there with nothing
    evaluated (``iterate_over_user_steps`` yields only steps with commands). Exit 2, "no user
    step has commands", never 0."""
    folder = tmp_path / "e2e_tests"
    for name, text in TEMPLATE_E2E.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    code = cli(
        ["test", "du", str(folder), "--engine", "rasa-pro:http://127.0.0.1:9", "--no-output"]
    )
    assert code == 2
    assert "no user step has commands" in capsys.readouterr().err


# --- D5: Rasa's file names in the report ------------------------------------------------------


def test_d5_file_names_as_rasa_reads_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``rasa.shared.data.get_data_files`` (called by ``io.read_test_suite``) names a file
    argument ``os.path.abspath(path)`` and the files of a folder argument
    ``os.path.join(root, name)`` from ``os.walk(folder)``; ``full_name()`` is
    ``f"{file}::{name}"`` and ``FailedTestStep.file`` the same file."""
    folder = tmp_path / "dut"
    folder.mkdir()
    (folder / "t.yml").write_text(
        "test_cases:\n  - test_case: t\n    steps:\n      - user: hi\n"
        "        commands: [offtopic reply]\n",
        encoding="utf-8",
    )
    _Predictor.answers = {"hi": ["cancel flow"]}
    monkeypatch.chdir(tmp_path)
    with serving(_Predictor) as url:
        _http_profile(tmp_path, url)
        code, report = _du_args(tmp_path, os.path.join("dut", "t.yml"), "--engine", "cmds")
        assert code == 1
        absolute = os.path.abspath(os.path.join("dut", "t.yml"))
        assert report["names_of_failed_tests"] == [f"{absolute}::t"]
        assert report["failed_test_steps"][0]["file"] == absolute
        code, report = _du_args(tmp_path, "dut", "--engine", "cmds")
        assert report["names_of_failed_tests"] == [f"{os.path.join('dut', 't.yml')}::t"]


# --- D7: the rasa-pro engine replays the test case as Rasa's TestCaseTrackerSimulator --------

STOPS = """\
test_cases:
  - test_case: bot answers otherwise
    steps:
      - user: I want to add someone to my contact list
        commands: [start flow add_contact]
      - utter: utter_ask_add_contact_handle
      - user: it's @barts
        commands: [set slot handle @barts]
"""


def test_d7_simulation_stops_where_the_bot_responses_differ(tmp_path: Path) -> None:
    """``test_case_tracker_simulator.py``, ``simulate_test_case``: after each simulated user
    message the bot's responses are checked (``_do_bot_responses_match``: the stand-in says
    ``utter_ask_handle``, the test ``utter_ask_add_contact_handle``); on a mismatch the
    simulation stops, and ``du_test_runner.run_test_case`` evaluates no later user step and
    returns ``passed`` as computed so far. So the test case passes (its only evaluated step
    passed), the unevaluated step is a failed user utterance (``has_passed`` with no output),
    and the passed case counts all its expected commands as tp
    (``command_metric_calculation.calculate_command_metrics``). The step after the mismatch
    is never sent."""
    path = tmp_path / "t.yml"
    path.write_text(STOPS, encoding="utf-8")
    with rasa_pro_server() as (url, state):
        code, report = _du(tmp_path, path, f"rasa-pro:{url}")
    assert report["number_of_passed_tests"] == 1
    assert report["accuracy"] == {"test_cases": 1.0, "user_utterances": 0.5}
    assert report["failed_test_steps"] == []
    assert report["command_metrics"]["set_slot"]["tp"] == 1
    assert code == 0
    assert "it's @barts" not in [text for _sender, text in state.messages]


FAILS_THEN_STOPS = """\
test_cases:
  - test_case: fails then stops
    steps:
      - user: it's @barts
        commands: [set slot handle @barts]
      - utter: utter_ask_handle
      - user: just Bart
        commands: [set slot name Bart]
"""


def test_d7_a_failing_case_lists_its_unevaluated_steps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failed test case lists every user step that did not pass, evaluated or not
    (``du_test_result._create_failed_steps_from_results`` over
    ``DialogueUnderstandingTestCase.failed_user_steps``), and in the command metrics an
    unevaluated step's expected commands are false negatives (no predicted commands,
    ``_update_metrics_true_positive_and_false_negative``): set_slot total 2, tp 0, fp 1 (the
    bot's ``set slot name @barts``), fn 2."""
    path = tmp_path / "t.yml"
    path.write_text(FAILS_THEN_STOPS, encoding="utf-8")
    with rasa_pro_server() as (url, _state):
        code, report = _du(tmp_path, path, f"rasa-pro:{url}")
    assert code == 1
    metrics = report["command_metrics"]["set_slot"]
    assert (metrics["total_count"], metrics["tp"], metrics["fp"], metrics["fn"]) == (2, 0, 1, 2)
    first, second = report["failed_test_steps"]
    assert first["failed_user_utterance"] == "it's @barts" and "not_evaluated" not in first
    assert second["failed_user_utterance"] == "just Bart"
    assert second["predicted_commands"] == []
    assert "it's @barts" in second["not_evaluated"]
    assert "-- NOT EVALUATED -- " in capsys.readouterr().out


HISTORY = """\
test_cases:
  - test_case: history follows the test
    steps:
      - user: I want to add someone to my contact list
        commands: [start flow add_contact]
      - bot: "What's the handle of the user you want to add?"
      - user: it's @barts
        commands: [set slot handle @barts]
      - utter: utter_ask_name
      - user: just Bart
        commands: [set slot name Bart]
"""


def test_d7_earlier_messages_carry_the_expected_commands(tmp_path: Path) -> None:
    """``TestCaseTrackerSimulator._create_user_message``: every earlier user message goes in
    with ``parse_data = {"intent": {}, "entities": [], "commands": [c.as_dict() for c in
    user_step.commands]}`` (``SetSlotCommand.as_dict`` has ``name``, ``value``, ``extractor``
    ``LLM`` and ``command``), so the tracker a later step is sent from
    (``create_tracker_for_user_step``) holds the test's commands at ``it's @barts``, not the
    bot's ``set slot name @barts``. The last user message is never simulated."""
    path = tmp_path / "t.yml"
    path.write_text(HISTORY, encoding="utf-8")
    with rasa_pro_server() as (url, state):
        _du(tmp_path, path, f"rasa-pro:{url}")
    simulated = [t for s, t in state.messages if s.endswith("-sim")]
    assert simulated == ["I want to add someone to my contact list", "it's @barts"]
    (last_step,) = [
        body
        for body in state.tracker_bodies.values()
        if sum(e.get("event") == "user" for e in body) == 2
    ]
    users = [e for e in last_step if e.get("event") == "user"]
    assert [u["parse_data"] for u in users] == [
        {
            "intent": {},
            "entities": [],
            "commands": [{"command": "start flow", "flow": "add_contact"}],
        },
        {
            "intent": {},
            "entities": [],
            "commands": [
                {"command": "set slot", "name": "handle", "value": "@barts", "extractor": "LLM"}
            ],
        },
    ]
    puts = [(m, p) for m, p, _ in state.requests if m == "PUT"]
    assert len(puts) == 3 and all(p.endswith("/tracker/events") for _, p in puts)


def test_d7_a_history_that_differs_from_rasas_is_said(tmp_path: Path) -> None:
    """Where nlu-tui cannot build Rasa's history over HTTP (the server ran its own commands
    at ``it's @barts`` and its slots hold ``name``, while Rasa's runner would have executed
    ``set slot handle @barts``), the step that follows says so in the report
    (``history_note``); the bot's responses matched, so Rasa would go on, and so does this."""
    path = tmp_path / "t.yml"
    path.write_text(HISTORY.replace("just Bart", "and his name?"), encoding="utf-8")
    with rasa_pro_server() as (url, _state):
        code, report = _du(tmp_path, path, f"rasa-pro:{url}")
    assert code == 1
    notes = [s.get("history_note") for s in report["failed_test_steps"]]
    assert notes[0] is None
    assert "it's @barts" in notes[1]


def test_d7_bot_response_matching_rules() -> None:
    """``_do_bot_responses_match`` / ``_does_template_match`` / ``_does_text_match``: the bot
    events after the latest user event, same count as the bot steps; an ``utter`` matches a
    response of that name, any response without ``utter_action`` metadata, or
    ``placeholder_generated_answer``; a ``bot`` text matches a response of that text. Bot steps
    before the first user step count with it (``get_next_user_and_bot_steps``)."""
    from nlu_tui.engines.command_api import Turn
    from nlu_tui.engines.rasa_pro import bot_responses_match, user_and_bot_steps

    events = [
        {"event": "user", "text": "hi"},
        {"event": "action", "name": "utter_greet"},
        {"event": "bot", "text": "Hello!", "metadata": {"utter_action": "utter_greet"}},
    ]
    assert bot_responses_match(events, [Turn("bot", template="utter_greet")])
    assert bot_responses_match(events, [Turn("bot", template="placeholder_generated_answer")])
    assert bot_responses_match(events, [Turn("bot", text="Hello!")])
    assert not bot_responses_match(events, [Turn("bot", template="utter_other")])
    assert not bot_responses_match(events, [Turn("bot", text="Hi!")])
    assert not bot_responses_match(events, [])
    free = [{"event": "user"}, {"event": "bot", "text": "generated", "metadata": {}}]
    assert bot_responses_match(free, [Turn("bot", template="utter_anything")])
    turns = [Turn("bot", text="welcome"), Turn("user", text="a"), Turn("bot", text="b")]
    assert user_and_bot_steps(turns) == [
        (Turn("user", text="a"), [Turn("bot", text="welcome"), Turn("bot", text="b")])
    ]


METADATA = """\
metadata:
  - device: {channel: phone}
  - first: {step: one}
  - second: {step: two}
test_cases:
  - test_case: each message its metadata
    metadata: device
    steps:
      - user: I want to add someone to my contact list
        metadata: first
        commands: [start flow add_contact]
      - bot: "What's the handle of the user you want to add?"
      - user: it's @barts
        metadata: second
        commands: [set slot handle @barts]
"""


def test_d7_replayed_messages_carry_their_own_metadata(tmp_path: Path) -> None:
    """``TestCaseTrackerSimulator._create_user_message`` sends each simulated message with
    ``filter_metadata(self.test_case, user_step, ...)`` (``dialogue_understanding_test/
    utils.py``): the test case's metadata merged with *that* step's, not the metadata of the
    step being evaluated."""
    path = tmp_path / "t.yml"
    path.write_text(METADATA, encoding="utf-8")
    with rasa_pro_server() as (url, state):
        _du(tmp_path, path, f"rasa-pro:{url}")
    replayed = [m for s, _t, m in state.metadata if s.endswith("-sim")]
    assert replayed == [{"channel": "phone", "step": "one"}]
    sent = {t: m for s, t, m in state.metadata if not s.endswith("-sim")}
    assert sent["it's @barts"] == {"channel": "phone", "step": "two"}


D7_EXCHANGE = """\
fixtures:
  - known:
      - handle: "@old"
metadata:
  - device:
      channel: web
test_cases:
  - test_case: history follows the test
    fixtures: [known]
    metadata: device
    steps:
      - user: I want to add someone to my contact list
        commands: [start flow add_contact]
      - bot: "What's the handle of the user you want to add?"
      - user: it's @barts
        commands: [set slot handle @barts]
"""


def test_d7_the_http_exchange_of_one_test_case(tmp_path: Path) -> None:
    """Every request the ``rasa-pro:`` engine sends for a test case, in order, with its body
    (the page ``docs/reference/commands/test-du.md``, "How a test case is replayed on Rasa
    Pro", shows this exchange). From Rasa Pro 3.21's ``TestCaseTrackerSimulator``: the
    fixture slots go into the simulated tracker first; the first step is evaluated from a
    tracker holding only them; the earlier user message is then simulated (its own metadata,
    ``filter_metadata``) and its user event carries ``_create_user_message``'s ``parse_data``
    with the **expected** commands; the second step is evaluated from the simulated events
    before its own user message (``create_tracker_for_user_step``), the bot's reply
    included. The last user message is never simulated."""
    path = tmp_path / "t.yml"
    path.write_text(D7_EXCHANGE, encoding="utf-8")
    with rasa_pro_server() as (url, state):
        _du_args(tmp_path, str(path), "--engine", f"rasa-pro:{url}", "--concurrency", "1")

    def who(sender: str) -> str:
        """``<run>-<random>-<case>-sim``: the simulation; ``...-<step index>``: a step's own."""
        last = sender.rsplit("-", 1)[1]
        return "sim" if last == "sim" else f"step{last}"

    exchange = []
    for method, where, body in state.requests:
        if where.startswith("/conversations/"):
            sender = where.split("/")[2]
            where = where.replace(sender, who(sender))
        if isinstance(body, dict) and "sender" in body:
            body = {**body, "sender": who(body["sender"])}
        if method != "GET":
            exchange.append((method, where, body))
    fixture = {"event": "slot", "name": "handle", "value": "@old"}
    first, second = "I want to add someone to my contact list", "it's @barts"
    meta = {"channel": "web"}
    assert exchange == [
        ("POST", "/conversations/sim/tracker/events", [fixture]),
        ("PUT", "/conversations/step0/tracker/events", [fixture]),
        ("POST", "/webhooks/rest/webhook", {"sender": "step0", "message": first, "metadata": meta}),
        ("POST", "/webhooks/rest/webhook", {"sender": "sim", "message": first, "metadata": meta}),
        (
            "PUT",
            "/conversations/step2/tracker/events",
            [
                fixture,
                {
                    "event": "user",
                    "text": first,
                    "parse_data": {
                        "intent": {},
                        "entities": [],
                        "commands": [{"command": "start flow", "flow": "add_contact"}],
                    },
                },
                {"event": "action", "name": "utter_ask_handle"},
                {
                    "event": "bot",
                    "text": "What's the handle of the user you want to add?",
                    "metadata": {"utter_action": "utter_ask_handle"},
                },
            ],
        ),
        (
            "POST",
            "/webhooks/rest/webhook",
            {"sender": "step2", "message": second, "metadata": meta},
        ),
    ]


def test_d7_unevaluated_steps_have_no_latency() -> None:
    """A step after the simulation stopped gets no ``dialogue_understanding_output``
    (``du_test_runner.run_test_case`` returns first), so it adds nothing to the latency
    percentiles (``DialogueUnderstandingTestSuiteResult.get_latency_metrics``)."""
    from nlu_tui.dut.model import DutCase, DutCaseResult, DutStep, StepPrediction
    from nlu_tui.dut.result import summarise
    from nlu_tui.engines.command_api import CommandOutput

    hi = parse_commands("offtopic reply", V2)
    case = DutCase("t", [DutStep("user", "a", commands=hi), DutStep("user", "b", commands=hi)])
    result = DutCaseResult(
        case,
        {
            0: StepPrediction(CommandOutput({"G": hi}, latency_ms=10.0)),
            1: StepPrediction(CommandOutput(latency_ms=5000.0, not_evaluated="stopped")),
        },
    )
    report = summarise([result], "v2")
    assert report["latency"]["total"]["p99"] == pytest.approx(0.01)
    assert report["number_of_passed_tests"] == 1
    assert report["number_of_failed_user_utterances"] == 1


def test_d7_embedded_generator_follows_the_expected_commands() -> None:
    """Rasa's DUT history follows the test's expected commands whatever the bot predicted
    (``TestCaseTrackerSimulator._create_user_message``). The embedded command generator's
    active flow before a step comes from the earlier steps' expected commands: here the
    classifier reads the earlier message as ``remove_contact``, the test says ``start flow
    add_contact``, so ``add_contact`` is active and asking for it again starts nothing."""
    import asyncio

    from nlu_tui.dialogue_understanding.commands import start_flow
    from nlu_tui.dialogue_understanding.flows import load_flows
    from nlu_tui.engines.base import ParseContext
    from nlu_tui.engines.command_api import CommandRequest, Turn
    from nlu_tui.engines.command_nlu import NluCommandGenerator
    from nlu_tui.engines.embedded.engine import EmbeddedEngine

    samples = Path(__file__).parents[1] / "sample_suites"
    flows = load_flows(samples / "contacts.flows.yml")
    gen = NluCommandGenerator(EmbeddedEngine({"nlu": str(samples / "contacts.nlu.yml")}), flows)
    earlier = "remove someone from my contacts"

    async def go() -> tuple[str | None, list[Any]]:
        await gen.open(None)
        classified = (await gen.parse(earlier, ParseContext())).intent
        turn = Turn("user", earlier, commands=(start_flow("add_contact"),))
        output = await gen.predict_commands(CommandRequest("add a new contact", (turn,)))
        return classified, output.all_commands()

    classified, commands = asyncio.run(go())
    assert classified == "remove_contact"
    assert commands == []
