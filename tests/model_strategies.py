"""Hypothesis strategies for the model's intents and test cases, shared by the property tests
of the suite readers and writers; each test passes the texts, entities and sizes it wants."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from nlu_tui.model import ExpectedEntity, ExpectedIntent, IntentKind, TestCase


def intents(
    name: st.SearchStrategy[str], bot: st.SearchStrategy[str]
) -> st.SearchStrategy[ExpectedIntent]:
    """An expected intent of any kind, maybe with a bot."""
    return st.builds(
        ExpectedIntent,
        name=name,
        kind=st.none() | st.sampled_from(list(IntentKind)),
        bot=st.none() | bot,
    )


def cases(
    utterance: st.SearchStrategy[str],
    words: st.SearchStrategy[str],
    intent: st.SearchStrategy[ExpectedIntent],
    entity: st.SearchStrategy[ExpectedEntity],
    ids: st.SearchStrategy[str],
    *,
    max_intents: int,
    max_entity_order: int,
    max_tags: int,
    **more: st.SearchStrategy[Any],
) -> st.SearchStrategy[TestCase]:
    """A test case: traits, parent intents, entity order and tags from ``words``, up to three
    entities; ``more`` for other fields."""
    return st.builds(
        TestCase,
        utterance=utterance,
        intents=st.lists(intent, max_size=max_intents),
        traits=st.lists(words, max_size=2),
        parent_intents=st.lists(words, max_size=2),
        entities=st.lists(entity, max_size=3),
        entity_order=st.lists(words, max_size=max_entity_order),
        tags=st.lists(words, max_size=max_tags),
        id=ids,
        **more,
    )
