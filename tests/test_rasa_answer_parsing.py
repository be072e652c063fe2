"""Reading a Rasa ``/model/parse`` answer (``parse_rasa_answer``), field by field, including
the odd shapes a server or a proxy may send: what is kept, what becomes None, what is refused.
The shape is Rasa's (rasa/nlu/extractors/extractor.py: ``entity``, ``start``, ``end``,
``value``, ``confidence_entity``, ``role``, ``group``, ``extractor``; the ranking as
``intent_ranking``; ``nlu_fallback`` undone as in rasa/nlu/test.py)."""

from __future__ import annotations

from typing import Any

import pytest

from nlu_tui.engines.httpcall import BadResponseError
from nlu_tui.engines.rasa_common import parse_rasa_answer
from nlu_tui.model import IntentScore, PredictedEntity

TEXT = "send 200 dollars to Leonardo"


def test_every_field_of_a_usual_answer() -> None:
    body: dict[str, Any] = {
        "text": TEXT,
        "intent": {"name": "transfer_money", "confidence": 1},
        "intent_ranking": [
            {"name": "transfer_money", "confidence": 1},
            "not an entry",
            {"name": 7, "confidence": 0.5},
            {"name": "greet", "confidence": True},
            {"name": "bye"},
        ],
        "entities": [
            {"entity": "amount", "start": 5, "end": 16, "value": "200 dollars"},
            {
                "entity": "payee",
                "start": 20,
                "end": 28,
                "value": {"name": "Leonardo"},
                "text": "Leo",
                "confidence_entity": 0.75,
                "confidence": 0.1,
                "role": "to",
                "group": 2,
                "extractor": "DIETClassifier",
            },
            {"entity": "when", "start": True, "end": 3.0, "confidence": 1, "role": ["x"]},
        ],
    }
    p = parse_rasa_answer(body, TEXT)
    assert (p.intent, p.confidence) == ("transfer_money", 1.0)
    assert type(p.confidence) is float
    assert p.ranking == [
        IntentScore("transfer_money", 1.0),
        IntentScore("greet", 0.0),  # a boolean is no score
        IntentScore("bye", 0.0),
    ]
    assert p.entities == [
        PredictedEntity("amount", "200 dollars", "200 dollars", 5, 16),
        PredictedEntity(
            "payee", {"name": "Leonardo"}, "Leo", 20, 28, 0.75, "to", None, "DIETClassifier"
        ),
        PredictedEntity("when", None, None, None, None, 1.0),
    ]
    assert p.raw is body


def test_fallback_is_undone_and_its_ranking_entry_dropped() -> None:
    body = {
        "intent": {"name": "nlu_fallback", "confidence": 0.3},
        "intent_ranking": [
            {"name": "nlu_fallback", "confidence": 0.3},
            {"name": "greet", "confidence": 0.25},
        ],
    }
    p = parse_rasa_answer(body, "hi")
    assert p.intent is None and p.confidence == 0.25
    assert (p.pre_fallback_intent, p.pre_fallback_confidence) == ("greet", 0.25)
    assert p.ranking == [IntentScore("greet", 0.25)]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "a JSON list, not an object"),
        ({"intent": "greet"}, "'intent' is not an object"),
        ({"intent": {"name": 3}}, "'intent.name' is not a string"),
        ({"intent_ranking": {"a": 1}}, "'intent_ranking' is not a list"),
        ({"entities": {"a": 1}}, "'entities' is not a list"),
        ({"entities": ["amount"]}, "an entity has no 'entity' name"),
        ({"entities": [{"value": "x"}]}, "an entity has no 'entity' name"),
        ({"entities": [{"entity": 5}]}, "an entity has no 'entity' name"),
    ],
)
def test_answers_that_are_not_a_parse_are_refused(body: Any, message: str) -> None:
    with pytest.raises(BadResponseError, match=message):
        parse_rasa_answer(body, TEXT)
