"""Entity value flattening (Kore.ai's conversion table) and comparison rules."""

from __future__ import annotations

from typing import Any

import pytest

from nlu_tui.model import (
    ExpectedEntity,
    ExpectedIntent,
    PredictedEntity,
    Prediction,
    TestCase,
    ValueKind,
)
from nlu_tui.scoring.case import score_case
from nlu_tui.scoring.entities import entity_matches, flatten_value, value_matches

# The "Entity Format Conversions" table of the Kore.ai Batch Testing docs (seeds/000).
KORE_TABLE: list[tuple[Any, str]] = [
    ("P.O. Box 3700 Eureka, CA 95502", "P.O. Box 3700 Eureka, CA 95502"),
    (
        {
            "IATA": "IAD",
            "AirportName": "Washington Dulles International Airport",
            "City": "Washington D.C.",
            "CityLocal": "Washington",
            "ICAO": "KIAD",
            "Latitude": "38.94",
            "Longitude": "-77.46",
        },
        "Washington Dulles International Airport IAD KIAD 38.94 -77.46 Washington D.C. Washington",
    ),
    (
        {
            "alpha3": "IND",
            "alpha2": "IN",
            "localName": "India",
            "shortName": "India",
            "numericalCode": 356,
        },
        "IN IND 356 India India",
    ),
    ([{"code": "USD", "amount": 10}], "10 USD"),
    ({"fromDate": "2018-11-01", "toDate": "2018-11-30"}, "2018-11-01 2018-11-30"),
    (
        {
            "formatted_address": "8529 Southpark Cir #100, Orlando, FL 32819, USA",
            "lat": 28.439148,
            "lng": -81.423733,
        },
        "8529 Southpark Cir #100, Orlando, FL 32819, USA 28.439148 -81.423733",
    ),
    (
        {"unit": "meter", "amount": 16093.4, "type": "length", "source": "10 miles"},
        "16093.4 meter length 10 miles",
    ),
    ("2018-10-24T13:03:03+05:30", "2018-10-24T13:03:03+05:30"),
    (100, "100"),
    (0.25, "0.25"),
    ("+914042528888", "+914042528888"),
    ("T13:15:55+05:30", "T13:15:55+05:30"),
    ("-04:00", "-04:00"),
]


@pytest.mark.parametrize(("value", "flat"), KORE_TABLE)
def test_kore_flat_forms(value: Any, flat: str) -> None:
    assert flatten_value(value) == flat


def test_flatten_other_shapes() -> None:
    assert flatten_value(None) is None
    assert flatten_value(10.0) == "10"  # an engine's float 10.0 is Kore's 10
    assert flatten_value([{"code": "USD", "amount": 10.0}, {"code": "EUR", "amount": 5}]) == (
        "10 USD||5 EUR"
    )
    assert flatten_value({"zeta": 1, "alpha": "x"}) == "x 1"  # unknown: sorted key order
    assert flatten_value({"value": "2024-01-01"}) == "2024-01-01"
    assert flatten_value({"from": "a", "to": "b"}) == "a b"
    assert flatten_value(True) == "true"


def test_plain_regex_multi_composite() -> None:
    auto = ValueKind.AUTO
    assert value_matches("  10 usd ", auto, [{"code": "USD", "amount": 10}])
    assert not value_matches("11 USD", auto, [{"code": "USD", "amount": 10}])
    assert value_matches("Leo.*", auto, "Leonardo")
    assert not value_matches("Leo", auto, "Leonardo")  # a regex must match in full
    assert value_matches("[", auto, "[")  # not a valid regex: plain comparison only
    assert not value_matches("[", auto, "x")
    assert value_matches("apple||banana", auto, ["Banana", "apple"])
    assert value_matches("apple||banana", auto, "banana||apple")
    assert not value_matches("apple||banana", auto, ["apple"])
    assert not value_matches("apple||banana", auto, ["apple", "banana", "kiwi"])
    comp = "city:Paris|date:2024-01-0\\d"
    assert value_matches(comp, auto, {"city": "paris", "date": "2024-01-05", "extra": 1})
    assert value_matches(
        comp, auto, [{"name": "city", "value": "Paris"}, {"name": "date", "value": "2024-01-07"}]
    )
    assert not value_matches(comp, auto, {"city": "Rome", "date": "2024-01-05"})
    assert not value_matches(comp, auto, {"city": "Paris"})
    # a time with a colon is not mistaken for a composite
    assert value_matches("T13:15:55+05:30", auto, "T13:15:55+05:30")
    assert value_matches("T13:15:55+05:30", ValueKind.EXACT, "t13:15:55+05:30")
    # exact never reads the value as a pattern; regex never as plain text with metacharacters
    assert not value_matches("Leo.*", ValueKind.EXACT, "Leonardo")
    assert value_matches("Leo.*", ValueKind.REGEX, "leonardo")
    assert value_matches("a||b", ValueKind.MULTI, ["b", "a"])
    assert value_matches("c1:x|c2:y", ValueKind.COMPOSITE, {"c1": "X", "c2": "y"})
    assert not value_matches("x", auto, None)


def test_alternatives_accept_either_value() -> None:
    e = ExpectedEntity("payee", "Leonardo", alternatives=["Leo"])
    assert entity_matches(e, "leo")
    assert entity_matches(e, "Leonardo ")
    assert not entity_matches(e, "Leon")


def _case(entities: list[ExpectedEntity], order: list[str] | None = None) -> TestCase:
    return TestCase(
        "book", intents=[ExpectedIntent("book")], entities=entities, entity_order=order or []
    )


def test_entities_matched_by_name_preferring_matching_values() -> None:
    case = _case([ExpectedEntity("city", "Berlin"), ExpectedEntity("city", "Paris")])
    pred = Prediction(
        "book",
        entities=[
            PredictedEntity("city", "Paris", start=10),
            PredictedEntity("city", "Berlin", start=20),
        ],
    )
    r = score_case(case, pred)
    assert [(e.name, e.expected, e.matched, e.ok) for e in r.entities] == [
        ("city", "Berlin", "Berlin", True),
        ("city", "Paris", "Paris", True),
    ]


def test_entity_missing_wrong_and_role() -> None:
    case = _case(
        [
            ExpectedEntity("city", "Berlin", role="origin"),
            ExpectedEntity("city", "Paris", role="destination"),
            ExpectedEntity("date", "2024-01-01"),
        ]
    )
    pred = Prediction(
        "book",
        entities=[
            PredictedEntity("city", "Paris", role="origin"),
            PredictedEntity("city", "Berlin", role="destination"),
        ],
    )
    r = score_case(case, pred)
    assert [(e.matched, e.ok) for e in r.entities] == [
        ("Paris", False),
        ("Berlin", False),
        (None, False),
    ]


def test_entity_value_falls_back_to_text() -> None:
    case = _case([ExpectedEntity("color", "blue")])
    r = score_case(case, Prediction("book", entities=[PredictedEntity("color", None, text="Blue")]))
    assert r.entities[0].ok and r.entities[0].matched == "Blue"


def test_entity_order() -> None:
    ents = [ExpectedEntity("a", "1"), ExpectedEntity("b", "2"), ExpectedEntity("c", "3")]
    pred = Prediction(
        "book",
        entities=[
            PredictedEntity("c", "3", start=0),
            PredictedEntity("a", "1", start=5),
            PredictedEntity("b", "2", start=9),
        ],
    )
    # full order given and agreeing
    r = score_case(_case(ents, ["c", "a", "b"]), pred)
    assert r.expected_entity_order == ["c", "a", "b"]
    assert r.actual_entity_order == ["c", "a", "b"] and r.entity_order_ok is True
    # partial order: the actual order is the engine's, by start offset
    r = score_case(_case(ents, ["b"]), pred)
    assert r.actual_entity_order == ["c", "a", "b"] and r.entity_order_ok is True
    # disagreeing order: the engine's order is shown as it is, not the expected one
    r = score_case(_case(ents, ["a", "c"]), pred)
    assert r.actual_entity_order == ["c", "a", "b"] and r.entity_order_ok is False
    # no order given: the system's order, nothing checked
    r = score_case(_case(ents), pred)
    assert r.actual_entity_order == ["c", "a", "b"] and r.entity_order_ok is None
    # an ordered entity the engine did not return is not in the actual order
    missing = Prediction("book", entities=[PredictedEntity("a", "1", start=0)])
    r = score_case(_case(ents, ["a", "b"]), missing)
    assert r.actual_entity_order == ["a"] and r.entity_order_ok is False
