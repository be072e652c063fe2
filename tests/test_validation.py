"""Suite validation: each problem kind, where it points, and the single-case check the editor uses."""

from __future__ import annotations

from pathlib import Path

from nlu_tui.formats.native import load_suite
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase, ValueKind
from nlu_tui.validation import CODES, Problem, count, validate_case, validate_suite

FIXTURE = Path(__file__).parent / "fixtures" / "validation" / "all_problems.suite.yaml"


def test_fixture_has_every_problem_kind_at_its_case_and_line() -> None:
    suite = load_suite(FIXTURE)
    found = {(p.code, p.case_id, p.line, p.severity) for p in validate_suite(suite)}
    assert found == {
        ("duplicate-case", "dup000000001", 12, "warning"),
        ("conflicting-intents", "conflict0001", 19, "warning"),
        ("too-many-intents", "manyintents1", 22, "error"),
        ("order-unknown-entity", "orderunknown", 25, "warning"),
        ("order-with-several-intents", "ordermulti01", 31, "warning"),
        ("empty-utterance", "emptyutter01", 38, "error"),
        ("invalid-regex", "badregex0001", 41, "error"),
        ("suspicious-regex", "oddregex0001", 46, "warning"),
        ("traits-and-intents", "traitintent1", 52, "warning"),
        ("long-utterance", "longutter001", 56, "error"),
        ("empty-name", "emptyname001", 59, "error"),
        ("duplicate-id", "clean0000001", 64, "error"),
    }
    assert {code for code, *_ in found} == set(CODES)
    assert all(p.path == FIXTURE for p in validate_suite(suite))


def test_plain_values_that_happen_not_to_compile_are_fine() -> None:
    case = TestCase(
        "I code in C++ for $5 (approx",
        [ExpectedIntent("job")],
        entities=[
            ExpectedEntity("language", "C++"),
            ExpectedEntity("price", "$5 (approx"),
            ExpectedEntity("fruit", "Apples||Grapes"),
            ExpectedEntity("trip", "City:Hyderabad|Date:2018-07-06"),
        ],
    )
    assert validate_case(case) == []
    bad_item = TestCase("x", [ExpectedIntent("i")], entities=[ExpectedEntity("f", "a||[0-9")])
    assert [p.code for p in validate_case(bad_item)] == ["suspicious-regex"]
    alt = TestCase(
        "x", [ExpectedIntent("i")], entities=[ExpectedEntity("f", "a.*", ValueKind.REGEX, ["(b"])]
    )
    assert [p.code for p in validate_case(alt)] == ["invalid-regex"]


def test_same_utterance_under_another_parent_is_not_a_conflict() -> None:
    suite = Suite(
        "s",
        cases=[
            TestCase(
                "What else can you do?",
                [ExpectedIntent("What else can you do?")],
                parent_intents=["A", "B"],
            ),
            TestCase("What else can you do?", [ExpectedIntent("What else")]),
        ],
    )
    assert validate_suite(suite) == []


def test_validate_case_checks_one_case_against_its_suite() -> None:
    first = TestCase("hello", [ExpectedIntent("greet")], id="a")
    suite = Suite("s", cases=[first, TestCase("bye", [ExpectedIntent("leave")], id="b")])
    editing = TestCase("Hello", [ExpectedIntent("leave")], id="b")
    codes = sorted(p.code for p in validate_case(editing, suite))
    assert codes == ["conflicting-intents", "duplicate-id"]
    assert validate_case(suite.cases[1], suite) == []
    assert validate_case(TestCase(" ", id="z")) == [
        Problem("error", "empty-utterance", "the utterance is empty", None, "z", None)
    ]


def test_large_clean_suite_has_no_problems() -> None:
    suite = Suite(
        "big", cases=[TestCase(f"utterance {i}", [ExpectedIntent("i")]) for i in range(10_000)]
    )
    assert validate_case(suite.cases[5000], suite) == []
    assert count(validate_suite(suite)) == (0, 0)


def test_problem_text_names_file_line_and_case() -> None:
    problem = validate_suite(load_suite(FIXTURE))[0]
    assert str(problem).startswith(f"{FIXTURE}:12: warning: [duplicate-case] case dup000000001:")
    assert problem.to_dict()["path"] == str(FIXTURE)
