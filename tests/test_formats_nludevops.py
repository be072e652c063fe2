"""NLU.DevOps generic utterances and LUIS batch test files: import, export, round trips."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import dataset
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from nlu_tui.errors import InputError
from nlu_tui.formats import luis_batch, nludevops
from nlu_tui.formats.luis_positions import luis_match
from nlu_tui.formats.native import dump_suite, parse_suite
from nlu_tui.formats.registry import detect_format, export_suite, import_suite
from nlu_tui.model import ExpectedEntity, ExpectedIntent, IntentKind, Suite, TestCase, ValueKind


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# --- generic utterances: import ----------------------------------------------------------------


def test_reads_generic_utterances_with_aliases_and_extras(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "tests.json",
        [
            {
                "text": "play rock music",
                "intent": "PlayMusic",
                "utteranceId": "u1",
                "strictEntities": ["celebrity"],
                "speechFile": "a.wav",
                "entities": [
                    {"entityType": "genre", "matchText": "rock", "entityValue": {"id": 7}}
                ],
            },
            {
                "query": "play the song again and again",
                "intent": None,
                "entities": [
                    {
                        "entity": "word",
                        "matchText": "again",
                        "matchIndex": 1,
                        "entityValue": "again",
                    },
                    {"entity": "song", "startPos": 9, "endPos": 12},
                ],
            },
            {"text": "hello"},
        ],
    )
    result = import_suite(path, "nludevops")
    first, second, third = result.suite.cases
    assert first.id == "u1" and first.intent_names == ["PlayMusic"]
    assert first.extra == {"strictEntities": ["celebrity"], "speechFile": "a.wav"}
    genre = first.entities[0]
    assert (genre.name, genre.text, genre.match_index) == ("genre", "rock", None)
    assert genre.json_value == {"id": 7} and genre.value == '{"id":7}'
    assert second.utterance == "play the song again and again"
    assert second.intents == [] and second.extra == {"intent": None}
    word, song = second.entities
    assert (word.name, word.text, word.match_index, word.value) == ("word", "again", 1, "again")
    assert word.json_value == "again"  # explicit value equal to the text is kept explicit
    assert (song.text, song.start, song.end, song.match_index, song.value) == (
        "song",
        9,
        13,
        0,
        "song",
    )
    assert third.intents == [] and third.extra == {}
    assert result.suite.name == "tests"


def test_detection_tells_generic_from_luis(tmp_path: Path) -> None:
    generic = write_json(tmp_path / "a.json", [{"text": "hi", "intent": "greet"}])
    luis = write_json(
        tmp_path / "b.json",
        [
            {
                "text": "hi",
                "intent": "greet",
                "entities": [{"entity": "x", "startPos": 0, "endPos": 1}],
            }
        ],
    )
    assert detect_format(generic) == "nludevops"
    assert detect_format(luis) == "luis"


@pytest.mark.parametrize(
    ("data", "message", "case"),
    [
        ({"text": "x"}, "JSON array", None),
        ([{"text": "ok"}, {"intent": "a"}], "'text' (or 'query') must be a string", 2),
        ([{"text": "a", "intent": 3}], "'intent' must be a string", 1),
        ([{"text": "a", "entities": [{"matchText": "a"}]}], "entityType", 1),
        ([{"text": "a", "entities": [{"entityType": "t", "matchIndex": -1}]}], "matchIndex", 1),
        (
            [{"text": "abc", "entities": [{"entityType": "t", "startPos": 1, "endPos": 3}]}],
            "invalid start position",
            1,
        ),
    ],
)
def test_generic_errors_name_file_and_case(
    tmp_path: Path, data: Any, message: str, case: int | None
) -> None:
    path = write_json(tmp_path / "bad.json", data)
    with pytest.raises(InputError) as err:
        nludevops.read(path)
    assert message in str(err.value) and "bad.json" in str(err.value)
    if case is not None:
        assert f"case {case}" in str(err.value)


def test_bad_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[\n  {"text": "a"},\n  {"text": }\n]')
    with pytest.raises(InputError, match="line 3"):
        nludevops.read(path)


# --- generic utterances: export --------------------------------------------------------------


def test_writes_what_nludevops_reads_and_keeps_the_rest_aside(tmp_path: Path) -> None:
    case = TestCase(
        utterance="Send 200 dollars to Leonardo",
        intents=[ExpectedIntent("transfer", IntentKind.DIALOG), ExpectedIntent("pay")],
        traits=["urgent"],
        entities=[
            ExpectedEntity("amount", "200 USD", text="200 dollars"),
            ExpectedEntity("payee", "Leo.*", kind=ValueKind.REGEX, start=20, end=28),
        ],
        entity_order=["amount", "payee"],
        id="abc123",
        extra={"speechFile": "x.wav"},
    )
    path = tmp_path / "out.json"
    warnings = export_suite(Suite("s", cases=[case]), path, "nludevops")
    data = json.loads(path.read_text())
    assert data[0]["text"] == case.utterance and data[0]["intent"] == "transfer"
    assert data[0]["utteranceId"] == "abc123" and data[0]["speechFile"] == "x.wav"
    assert data[0]["entities"][0] == {
        "entityType": "amount",
        "matchText": "200 dollars",
        "entityValue": "200 USD",
    }
    assert data[0]["entities"][1]["matchText"] == "Leonardo"
    assert data[0]["entities"][1]["matchIndex"] == 0
    assert data[0]["nluTui"]["intents"][1] == {"name": "pay"}
    assert any("first of 2 intents" in w for w in warnings)
    assert any("regex" in w for w in warnings)
    again = nludevops.read(path).suite.cases[0]
    assert again.intents == case.intents and again.traits == ["urgent"]
    assert again.entity_order == ["amount", "payee"]


# --- LUIS batch ----------------------------------------------------------------------------------


def test_luis_import_converts_inclusive_positions(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "batch.json",
        [
            {
                "text": "book a flight to Paris and Paris",
                "intent": "BookFlight",
                "entities": [
                    {"entity": "city", "startPos": 27, "endPos": 31},
                    {"entity": "city", "startPos": 17, "endPos": 21},
                ],
            },
            {"text": "nothing here", "intent": "None", "entities": []},
        ],
    )
    suite = luis_batch.read(path).suite
    first, second = suite.cases
    late, early = first.entities
    assert (late.text, late.start, late.end, late.match_index) == ("Paris", 27, 32, 1)
    assert (early.text, early.match_index) == ("Paris", 0)
    assert second.intents == []  # LUIS's None intent means "no intent expected"


@pytest.mark.parametrize(
    ("text", "start", "end", "expected"),
    [
        ("a b a b", 4, 6, ("a b", 1)),
        ("aaa", 1, 2, ("aa", 2)),  # the converter's own loop: overlapping text counts twice
        ("abc", 0, 0, ("a", 0)),
    ],
)
def test_luis_match_follows_the_converter(
    text: str, start: int, end: int, expected: tuple[str, int]
) -> None:
    assert luis_match(text, start, end) == expected


@pytest.mark.parametrize(("start", "end"), [(3, 2), (0, 5), (-1, 1), (5, 5)])
def test_luis_positions_out_of_range_are_errors(tmp_path: Path, start: int, end: int) -> None:
    path = write_json(
        tmp_path / "batch.json",
        [
            {
                "text": "hello",
                "intent": "x",
                "entities": [{"entity": "e", "startPos": start, "endPos": end}],
            },
        ],
    )
    with pytest.raises(InputError, match=r"case 1.*entities\[0\].*invalid start position"):
        luis_batch.read(path)


def test_luis_export_places_entities_and_warns_on_losses(tmp_path: Path) -> None:
    case = TestCase(
        utterance="fly from Rome to Rome",
        intents=[ExpectedIntent("Book"), ExpectedIntent("Fly")],
        entities=[
            ExpectedEntity("to", "Rome", text="Rome", match_index=1),
            ExpectedEntity("when", "tomorrow", text="tomorrow"),
        ],
    )
    path = tmp_path / "b.json"
    warnings = luis_batch.write(Suite("s", cases=[case]), path)
    data = json.loads(path.read_text())
    assert data == [
        {
            "text": "fly from Rome to Rome",
            "intent": "Book",
            "entities": [{"entity": "to", "startPos": 17, "endPos": 20}],
        }
    ]
    assert any("'when' has no place" in w for w in warnings)
    assert any("1 alternative intent" in w for w in warnings)


# --- round trips: native -> X -> native ------------------------------------------------------

text_st = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff"),
    max_size=12,
)
name_st = text_st.filter(lambda s: s.strip() != "")
json_st = st.recursive(
    st.booleans() | st.integers(-1000, 1000) | st.text(max_size=4),
    lambda c: st.lists(c, max_size=2) | st.dictionaries(st.text(max_size=3), c, max_size=2),
    max_leaves=4,
).filter(lambda v: not isinstance(v, str))


@st.composite
def generic_entity(draw: st.DrawFn, utterance: str) -> ExpectedEntity:
    """An entity the generic format can hold: a consistent span if any, a value it can tell apart."""
    entity = ExpectedEntity(
        name=draw(name_st),
        kind=draw(st.sampled_from(list(ValueKind))),
        alternatives=draw(st.lists(text_st, max_size=2)),
        role=draw(st.none() | text_st),
        group=draw(st.none() | text_st),
    )
    where = draw(st.sampled_from(["none", "text", "span"]))
    if where == "text":
        entity.text = draw(text_st)
        entity.match_index = draw(st.none() | st.integers(0, 4))
    elif where == "span" and utterance:
        start = draw(st.integers(0, len(utterance) - 1))
        end = draw(st.integers(start + 1, len(utterance)))
        entity.text, entity.match_index = luis_match(utterance, start, end - 1)
        entity.start, entity.end = start, end
    value = draw(st.sampled_from(["plain", "json", "text"]))
    if value == "json":
        entity.json_value = draw(json_st)
        entity.value = json.dumps(entity.json_value, separators=(",", ":"), ensure_ascii=False)
    elif value == "text" and entity.text is not None:
        entity.value = entity.text
        entity.json_value = draw(st.sampled_from([None, entity.text]))
    else:
        entity.value = draw(text_st)
    return entity


@st.composite
def generic_case(draw: st.DrawFn) -> TestCase:
    utterance = draw(name_st)
    intents = draw(
        st.lists(
            st.builds(
                ExpectedIntent,
                name=name_st,
                kind=st.none() | st.sampled_from(list(IntentKind)),
                bot=st.none() | name_st,
            ),
            max_size=3,
        )
    )
    extra = draw(
        st.dictionaries(
            st.sampled_from(["speechFile", "strictEntities", "ignoreEntities", "score", "note"]),
            st.integers() | st.text(max_size=5) | st.lists(st.text(max_size=3), max_size=2),
            max_size=2,
        )
    )
    if not intents and draw(st.booleans()):
        extra["intent"] = None
    return TestCase(
        utterance=utterance,
        intents=intents,
        traits=draw(st.lists(name_st, max_size=2)),
        parent_intents=draw(st.lists(name_st, max_size=2)),
        entities=draw(st.lists(generic_entity(utterance), max_size=3)),
        entity_order=draw(st.lists(name_st, max_size=2)),
        tags=draw(st.lists(name_st, max_size=2)),
        id=draw(st.text(alphabet="0123456789abcdef", min_size=12, max_size=12)),
        extra=extra,
    )


def _through_native(suite: Suite) -> Suite:
    return parse_suite(dump_suite(suite))


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(generic_case(), max_size=4))
def test_generic_round_trip_keeps_everything(tmp_path: Path, cases: list[TestCase]) -> None:
    assume(len({c.id for c in cases}) == len(cases))
    original = _through_native(Suite("s", cases=cases))
    path = tmp_path / "rt.json"
    nludevops.write(original, path)
    again = nludevops.read(path).suite
    assert again.cases == original.cases
    assert _through_native(again).cases == original.cases


@st.composite
def luis_case(draw: st.DrawFn) -> TestCase:
    utterance = draw(name_st)
    entities = []
    for _ in range(draw(st.integers(0, 3))):
        start = draw(st.integers(0, len(utterance) - 1))
        end = draw(st.integers(start + 1, len(utterance)))
        text, index = luis_match(utterance, start, end - 1)
        entities.append(
            ExpectedEntity(draw(name_st), text, text=text, start=start, end=end, match_index=index)
        )
    intent = draw(st.none() | name_st.filter(lambda s: s != "None"))
    return TestCase(
        utterance, intents=[ExpectedIntent(intent)] if intent else [], entities=entities
    )


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(luis_case(), max_size=4))
def test_luis_round_trip_keeps_what_luis_can_express(tmp_path: Path, cases: list[TestCase]) -> None:
    original = _through_native(Suite("s", cases=cases))
    path = tmp_path / "rt.json"
    assert luis_batch.write(original, path) == []
    again = luis_batch.read(path).suite

    def view(c: TestCase) -> tuple[Any, ...]:
        return (
            c.utterance,
            c.intent_names,
            [(e.name, e.value, e.text, e.start, e.end, e.match_index) for e in c.entities],
        )

    assert [view(c) for c in again.cases] == [view(c) for c in original.cases]
    # and a LUIS file read through the generic reader gives the same entities
    generic = nludevops.read(path).suite
    assert [
        [(e.text, e.start, e.end, e.match_index) for e in c.entities] for c in generic.cases
    ] == [[(e.text, e.start, e.end, e.match_index) for e in c.entities] for c in original.cases]


# --- a real dataset ----------------------------------------------------------------------------


def test_rasa_demo_through_generic_and_luis_compares_perfectly_with_itself(tmp_path: Path) -> None:
    from nlu_tui.compare.decisions import compare
    from nlu_tui.compare.statistics import Statistics
    from nlu_tui.compare.utterances import load_utterances

    suite = import_suite(dataset("rasa-financial-demo", "nlu.yml"), "rasa").suite
    with_entities = [c for c in suite.cases if c.entities]
    assert len(with_entities) > 20
    generic = tmp_path / "expected.json"
    nludevops.write(suite, generic)
    luis = tmp_path / "batch.json"
    luis_batch.write(suite, luis)
    # The LUIS file read as actual results: same intents and entity places as the generic file.
    utterances = load_utterances(generic)
    stats = Statistics.from_decisions(compare(utterances, load_utterances(luis)))
    n_entities = sum(len(c.entities) for c in suite.cases)
    assert stats.entity.tp == n_entities and stats.entity.fp == stats.entity.fn == 0
    assert stats.intent.fp == stats.intent.fn == 0
    assert stats.intent.tp == sum(1 for c in suite.cases if c.intents)
