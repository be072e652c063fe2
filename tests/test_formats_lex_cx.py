"""Amazon Lex V2 Test Workbench test sets (CSV) and Dialogflow CX test cases (ImportTestCases
JSON): import and export, round trips of the vendors' documented examples, and a warning naming
what our cases cannot hold (issue 26, item 5)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.formats.native import dump_suite
from nlu_tui.formats.registry import detect_format, export_suite, import_suite
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase, ValueKind

SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"

# The single-input example of "Creating a test set from a CSV file for Test Workbench" (Amazon
# Lex V2 developer guide), rows as printed there, and a conversation written by the same page's
# rules (Conversation # shared by its rows; Agent rows hold the bot's prompts) with the prompts
# of the guide's MakeAppointment example bot.
LEX_DOC_EXAMPLE = (
    "Line #,Conversation #,Source,Input,Expected Output Intent,Expected Output Slot 1,"
    "Expected Output Slot 2\r\n"
    "1,,User,book a cleaning appointment tomorrow,MakeAppointment,AppointmentType = cleaning,"
    "Date = tomorrow\r\n"
    "2,N/A,User,book a cleaning appointment on April 15th,MakeAppointment,"
    "AppointmentType = cleaning,Date = 4/15/23\r\n"
    "3,N/A,User,book appointment for December first,MakeAppointment,Date = December first,\r\n"
    "4,N/A,User,book a cleaning appointment,MakeAppointment,AppointmentType = cleaning,\r\n"
    "1,1,User,Can you help me book an appointment?,MakeAppointment,,\r\n"
    "2,1,Agent,What type of appointment would you like to schedule?,,,\r\n"
    "3,1,User,cleaning,MakeAppointment,AppointmentType = cleaning,\r\n"
    "4,1,Agent,When should I schedule your appointment?,,,\r\n"
    "5,1,User,tomorrow,MakeAppointment,AppointmentType = cleaning,Date = tomorrow\r\n"
)

# The other columns of "Test set columns supported by Test Workbench" (alternative names too),
# a multi-value slot and a composite slot as "Tips for creating a successful test set" writes them.
LEX_COLUMNS_EXAMPLE = (
    "Line Number,Conversation Number,Conversation Participant,Input,Session Attribute,"
    "Input Context Tag,Expected Output Intent,Expected Output Slot 1,Expected Output Slot 2\r\n"
    "1,-,User,send roses and lilies to my mom,customer=gold,flowers,OrderFlowers,"
    '"FlowerType = roses, lilies",Car.Color = red\r\n'
)

# The google_dialogflow_cx_test_case example of the Google provider's documentation (its
# "basic_test_case": tags, notes, test config, one turn with injected parameters, the triggered
# intent, page and text response), in the API's JSON (REST reference, TestCase and
# ConversationTurn), and a two-turn test case in the same shape.
CX_DOC_EXAMPLE = [
    {
        "name": "projects/p/locations/global/agents/a/testCases/t1",
        "tags": ["#tag1"],
        "displayName": "MyTestCase",
        "notes": "demonstrates a simple training phrase response",
        "testConfig": {
            "trackingParameters": ["some_param"],
            "page": "projects/p/locations/global/agents/a/flows/f/pages/pg",
        },
        "testCaseConversationTurns": [
            {
                "userInput": {
                    "input": {"languageCode": "en", "text": {"text": "training phrase"}},
                    "injectedParameters": {"some_param": "1"},
                    "isWebhookEnabled": True,
                    "enableSentimentAnalysis": True,
                },
                "virtualAgentOutput": {
                    "sessionParameters": {"some_param": "1"},
                    "triggeredIntent": {
                        "name": "projects/p/locations/global/agents/a/intents/i",
                        "displayName": "MyIntent",
                    },
                    "currentPage": {
                        "name": "projects/p/locations/global/agents/a/flows/f/pages/pg",
                        "displayName": "MyPage",
                    },
                    "textResponses": [{"text": ["Training phrase response"]}],
                },
            }
        ],
        "creationTime": "2024-05-01T10:00:00Z",
    },
    {
        "displayName": "Book a flight to Paris",
        "testCaseConversationTurns": [
            {
                "userInput": {"input": {"languageCode": "en", "text": {"text": "book a flight"}}},
                "virtualAgentOutput": {
                    "sessionParameters": {},
                    "triggeredIntent": {"displayName": "flight.book"},
                    "currentPage": {"displayName": "Destination"},
                    "textResponses": [{"text": ["Where to?"]}],
                },
            },
            {
                "userInput": {
                    "input": {"languageCode": "en", "text": {"text": "to Paris, 2 seats"}}
                },
                "virtualAgentOutput": {
                    "sessionParameters": {
                        "destination": "Paris",
                        "seats": 2,
                        "when": {"year": 2024, "month": 5, "day": 1},
                    },
                    "currentPage": {"displayName": "Confirm"},
                },
            },
            {
                "userInput": {"input": {"languageCode": "en", "event": {"event": "welcome"}}},
                "virtualAgentOutput": {"currentPage": {"displayName": "Start"}},
            },
        ],
    },
]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nlu_tui", *args], capture_output=True, text=True, timeout=120
    )


def test_lex_documented_example_round_trips_through_a_suite_file(tmp_path: Path) -> None:
    source = tmp_path / "appointments.csv"
    source.write_bytes(LEX_DOC_EXAMPLE.encode())
    assert detect_format(source) == "lex-csv"
    result = import_suite(source)
    cases = result.suite.cases
    assert [c.utterance for c in cases][:4] == [
        "book a cleaning appointment tomorrow",
        "book a cleaning appointment on April 15th",
        "book appointment for December first",
        "book a cleaning appointment",
    ]
    assert len(cases) == 7  # the Agent rows are not cases
    assert all(c.intent_names == ["MakeAppointment"] for c in cases)
    assert [(e.name, e.value) for e in cases[1].entities] == [
        ("AppointmentType", "cleaning"),
        ("Date", "4/15/23"),
    ]
    assert any("1 conversation(s) imported one case per user turn" in w for w in result.warnings)
    assert any("Agent rows (bot prompts) are kept" in w for w in result.warnings)
    # CLI: import into a suite file, export it again: the same bytes.
    suite_file = tmp_path / "appointments.suite.yaml"
    ran = _cli("import", str(source), "-o", str(suite_file), "--no-run")
    assert ran.returncode == 0, ran.stderr
    out = tmp_path / "again.lex.csv"  # the name says the format (a plain .csv is Kore.ai's)
    ran = _cli("export", str(suite_file), "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    assert out.read_bytes() == source.read_bytes()


def test_lex_other_columns_multi_value_and_composite_slots_round_trip(tmp_path: Path) -> None:
    source = tmp_path / "flowers.csv"
    source.write_bytes(LEX_COLUMNS_EXAMPLE.encode())
    result = import_suite(source, "lex-csv")
    (case,) = result.suite.cases
    flowers, color = case.entities
    assert (flowers.name, flowers.value, flowers.kind) == (
        "FlowerType",
        "roses||lilies",
        ValueKind.MULTI,
    )
    assert (color.name, color.value) == ("Car.Color", "red")
    assert case.extra["lex"]["columns"] == {
        "Session Attribute": "customer=gold",
        "Input Context Tag": "flowers",
    }
    assert any("Input Context Tag, Session Attribute are kept" in w for w in result.warnings)
    out = tmp_path / "out.csv"
    assert export_suite(result.suite, out, "lex-csv") == []
    assert out.read_bytes() == source.read_bytes()


def test_lex_bad_slot_is_one_line_with_row_and_field(tmp_path: Path) -> None:
    source = tmp_path / "bad.csv"
    source.write_text(
        "Line #,Source,Input,Expected Output Intent,Expected Output Slot 1\r\n"
        "1,User,hello,Greet,no equals sign\r\n",
        encoding="utf-8",
    )
    ran = _cli("import", str(source), "-o", str(tmp_path / "x.suite.yaml"), "--no-run")
    assert ran.returncode == 2
    assert ran.stderr.strip().splitlines() == [
        f"nlu-tui: error: {source}, row 2, field 'Expected Output Slot 1': a slot is written "
        "'SlotName = value', not 'no equals sign'"
    ]
    assert not (tmp_path / "x.suite.yaml").exists()


def test_cx_documented_example_round_trips(tmp_path: Path) -> None:
    source = tmp_path / "tests.json"
    source.write_text(json.dumps(CX_DOC_EXAMPLE, indent=2), encoding="utf-8")
    assert detect_format(source) == "dialogflow-cx"
    result = import_suite(source)
    first, book, paris = result.suite.cases
    assert (first.utterance, first.intent_names, first.tags) == (
        "training phrase",
        ["MyIntent"],
        ["#tag1"],
    )
    assert first.entities == []  # some_param was injected by the test, not read from the text
    assert (book.intent_names, book.entities) == (["flight.book"], [])
    assert paris.intent_names == []  # a turn that fills parameters triggers no intent
    assert [(e.name, e.value, e.json_value) for e in paris.entities] == [
        ("destination", "Paris", None),
        ("seats", "2", 2),
        ("when", '{"day": 1, "month": 5, "year": 2024}', {"year": 2024, "month": 5, "day": 1}),
    ]
    said = "\n".join(result.warnings)
    assert "turn 3: its input is not text" in said
    assert "1 multi-turn test case(s) imported one case per turn" in said
    assert "expected page of 3 turn(s) is kept but not checked" in said
    assert "agent responses of 2 turn(s) are kept but not checked" in said
    # Through a suite file and back: the same test cases, but the event turn that no case holds.
    suite_file = tmp_path / "tests.suite.yaml"
    assert _cli("import", str(source), "-o", str(suite_file), "--no-run").returncode == 0
    out = tmp_path / "again.json"
    ran = _cli("export", str(suite_file), "--format", "dialogflow-cx", "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    expected = json.loads(json.dumps(CX_DOC_EXAMPLE))
    del expected[1]["testCaseConversationTurns"][2]
    assert json.loads(out.read_text(encoding="utf-8")) == expected


def test_exports_name_what_they_cannot_hold(tmp_path: Path) -> None:
    suite = Suite(
        "s",
        cases=[
            TestCase(
                "send 20 dollars to Leo",
                [ExpectedIntent("transfer"), ExpectedIntent("pay")],
                entities=[ExpectedEntity("payee", "Le.*", kind=ValueKind.REGEX)],
                traits=["Urgent"],
                raw_checks=["$.intent.confidence >= 0.5"],
                id="c1",
            ),
            TestCase("hello", [ExpectedIntent("greet")], id="c2"),
        ],
    )
    cx = export_suite(suite, tmp_path / "s.json", "dialogflow-cx")
    assert cx == [
        "case c1: a CX test case cannot hold 1 alternative intent(s), traits, raw checks, the "
        "value kind/alternatives of 'payee' (written as its text)"
    ]
    back = import_suite(tmp_path / "s.json").suite
    assert [(c.utterance, c.intent_names) for c in back.cases] == [
        ("send 20 dollars to Leo", ["transfer"]),
        ("hello", ["greet"]),
    ]
    lex = export_suite(suite, tmp_path / "s.csv", "lex-csv")
    assert lex == [
        "case c1: a Lex test set cannot hold 1 alternative intent(s), traits, raw checks, the "
        "value kind/alternatives of 'payee'"
    ]
    back = import_suite(tmp_path / "s.csv").suite
    assert [(c.utterance, c.intent_names) for c in back.cases] == [
        ("send 20 dollars to Leo", ["transfer"]),
        ("hello", ["greet"]),
    ]


@pytest.mark.parametrize("fmt", ["lex-csv", "dialogflow-cx"])
def test_the_sample_suite_exports_and_imports_its_intents(tmp_path: Path, fmt: str) -> None:
    suite = import_suite(SAMPLES / "banking_bot.suite.yaml", "native").suite
    out = tmp_path / ("s.csv" if fmt == "lex-csv" else "s.json")
    export_suite(suite, out, fmt)
    back = import_suite(out).suite
    assert [c.utterance for c in back.cases] == [c.utterance for c in suite.cases]
    assert [c.intent_names[:1] for c in back.cases] == [c.intent_names[:1] for c in suite.cases]


def test_lex_repeated_column_names_each_keep_their_cells(tmp_path: Path) -> None:
    source = tmp_path / "repeated.csv"
    source.write_bytes(
        b"Line #,Source,Input,Expected Output Intent,Expected Output Slot,Expected Output Slot,"
        b"Session Attribute,Session Attribute\r\n"
        b"1,User,book a cleaning tomorrow,MakeAppointment,AppointmentType = cleaning,"
        b"Date = tomorrow,a=1,b=2\r\n"
    )
    result = import_suite(source, "lex-csv")
    (case,) = result.suite.cases
    assert [(e.name, e.value) for e in case.entities] == [
        ("AppointmentType", "cleaning"),
        ("Date", "tomorrow"),
    ]
    assert sorted(case.extra["lex"]["columns"].values()) == ["a=1", "b=2"]
    out = tmp_path / "out.csv"
    export_suite(result.suite, out, "lex-csv")
    assert out.read_bytes() == source.read_bytes()


def test_lex_slot_values_with_equals_signs_read_back(tmp_path: Path) -> None:
    # A slot cell is "SlotName = value", read up to its first '=' ("Creating a test set from a
    # CSV file for Test Workbench"): an '=' in the value stays in the value.
    values = ["x=y", "=", "= =", "a = b = c"]
    suite = Suite(
        "s",
        cases=[
            TestCase("u", entities=[ExpectedEntity("Expr", v)], id=f"c{n}")
            for n, v in enumerate(values)
        ],
    )
    out = tmp_path / "s.lex.csv"
    assert export_suite(suite, out, "lex-csv") == []
    back = import_suite(out, "lex-csv").suite
    assert [[(e.name, e.value) for e in c.entities] for c in back.cases] == [
        [("Expr", v)] for v in values
    ]


def test_lex_export_names_the_spaces_around_a_slot_value_it_loses(tmp_path: Path) -> None:
    suite = Suite("s", cases=[TestCase("u", entities=[ExpectedEntity("Expr", "= = ")], id="c1")])
    out = tmp_path / "s.lex.csv"
    assert export_suite(suite, out, "lex-csv") == [
        "case c1: a Lex test set cannot hold the spaces around the name or value of 'Expr'"
    ]
    (case,) = import_suite(out, "lex-csv").suite.cases
    assert [(e.name, e.value) for e in case.entities] == [("Expr", "= =")]


def test_lex_export_refuses_a_slot_name_with_an_equals_sign(tmp_path: Path) -> None:
    # Lex slot names are letters, digits, '_' and '-' (UserTurnSlotOutput's key pattern, Lex V2
    # API reference) and a slot cell has no escape for '=': "a=b = c" would read back as slot
    # 'a'. The export is refused, naming the case and the field, and writes nothing.
    suite = tmp_path / "s.suite.yaml"
    cases = [
        TestCase("hello", [ExpectedIntent("greet")], id="c1"),
        TestCase("x", entities=[ExpectedEntity("a=b", "c")], id="c2"),
    ]
    suite.write_text(dump_suite(Suite("s", cases=cases)), encoding="utf-8")
    out = tmp_path / "s.lex.csv"
    ran = _cli("export", str(suite), "--format", "lex-csv", "-o", str(out))
    assert ran.returncode == 2
    assert ran.stderr.strip().splitlines() == [
        "nlu-tui: error: field 'entities.name': case c2: the slot name 'a=b' holds '=', which a "
        "Lex test set cannot hold (a slot is written 'SlotName = value'); nothing written"
    ]
    assert not out.exists()


def test_flat_exports_name_every_case_field_they_cannot_hold_in_one_order(tmp_path: Path) -> None:
    # The same words, in the same order, from each writer (nlu_tui/formats/case_losses.py); a CX
    # test case holds tags (its "tags" list), the others do not.
    case = TestCase(
        "hello",
        [ExpectedIntent("greet"), ExpectedIntent("hi"), ExpectedIntent("hey")],
        traits=["Polite"],
        parent_intents=["smalltalk"],
        entity_order=["a"],
        tags=["smoke"],
        raw_checks=["$.intent.confidence >= 0.5"],
        id="c1",
    )
    everything = "2 alternative intent(s), traits, parent intents, entity order"
    said = {
        fmt: export_suite(Suite("s", cases=[case]), tmp_path / name, fmt)
        for fmt, name in (("lex-csv", "s.lex.csv"), ("dialogflow-cx", "s.json"), ("luis", "l.json"))
    }
    assert said == {
        "lex-csv": [f"case c1: a Lex test set cannot hold {everything}, tags, raw checks"],
        "dialogflow-cx": [f"case c1: a CX test case cannot hold {everything}, raw checks"],
        "luis": [f"case c1: LUIS batch files cannot hold {everything}, tags, raw checks"],
    }
