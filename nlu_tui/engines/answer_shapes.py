"""What each engine type's raw answer looks like, for ``raw:`` checks that can never match.

Shapes are written in :mod:`nlu_tui.raw_checks`' terms: a mapping of the keys the answer may
hold (closed unless it has :data:`~nlu_tui.raw_checks.OPEN`), a one-item list for an array,
:data:`~nlu_tui.raw_checks.SCALAR` for a leaf and :data:`~nlu_tui.raw_checks.ANY` where
anything may follow. An engine type without a declared shape (``Engine.answer_shape`` is
``ANY``) is not checked.
"""

from __future__ import annotations

from typing import Any

from nlu_tui.raw_checks import ANY, OPEN, SCALAR

_INTENT = {"name": SCALAR, "confidence": SCALAR, "id": SCALAR, "full_retrieval_intent_name": SCALAR}

_RASA_ENTITY = {
    "entity": SCALAR,
    "start": SCALAR,
    "end": SCALAR,
    "value": ANY,  # Duckling values may be structured
    "text": SCALAR,
    "confidence": SCALAR,
    "confidence_entity": SCALAR,
    "role": SCALAR,
    "confidence_role": SCALAR,
    "group": SCALAR,
    "confidence_group": SCALAR,
    "extractor": SCALAR,
    "processors": [SCALAR],
    "additional_info": ANY,
}

_RESPONSE_SELECTOR = {
    "all_retrieval_intents": [SCALAR],
    OPEN: {  # one entry per retrieval intent (``faq``, ``chitchat``) or ``default``
        "response": {
            "id": SCALAR,
            "responses": ANY,
            "response_templates": ANY,
            "confidence": SCALAR,
            "intent_response_key": SCALAR,
            "utter_action": SCALAR,
            "template_name": SCALAR,
        },
        "ranking": [{"id": SCALAR, "confidence": SCALAR, "intent_response_key": SCALAR}],
    },
}

RASA_PARSE: dict[str, Any] = {
    "text": SCALAR,
    "intent": _INTENT,
    "intent_ranking": [_INTENT],
    "entities": [_RASA_ENTITY],
    "response_selector": _RESPONSE_SELECTOR,
    "text_tokens": ANY,
}
"""Rasa's ``POST /model/parse`` answer: the keys of ``_parse_message_with_graph``'s defaults and
``Message.as_dict`` (shared/reference/engine-apis.md, "Response"; ``text_tokens`` with
``emulation_mode``-free 3.x servers that return tokens)."""

RASA_PRO_PARSE: dict[str, Any] = {
    **RASA_PARSE,
    "commands": ANY,
    "flows_from_semantic_search": ANY,
    "flows_in_prompt": ANY,
}
"""Rasa Pro's parse answer adds the CALM command generator's output."""

EMBEDDED: dict[str, Any] = {
    "text": SCALAR,
    "intent": {"name": SCALAR, "confidence": SCALAR},
    "intent_ranking": [{"name": SCALAR, "confidence": SCALAR}],
    "entities": [
        {
            "entity": SCALAR,
            "start": SCALAR,
            "end": SCALAR,
            "value": ANY,
            "role": SCALAR,
            "group": SCALAR,
            "confidence_entity": SCALAR,
            "extractor": SCALAR,
        }
    ],
    "traits": [SCALAR],
}
"""The embedded engine's answer (``nlu_tui.engines.embedded.model``: Rasa's parse keys)."""
