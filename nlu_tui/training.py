"""Training data as engines learn from it: examples, synonyms, regexes, lookups, intent metadata.

Kept apart from any file format so that an engine can train from a Rasa file or from a suite
alike. Parent/follow-up intents and intent kinds are our convention on top of Rasa's free-form
intent ``metadata``: ``{parent: transfer_money, kind: faq|small_talk|dialog}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.model import ExpectedEntity, IntentKind

RETRIEVAL_SEPARATOR = "/"
"""Rasa's retrieval intents read ``faq/ask_fees``; they default to kind FAQ."""


@dataclass
class TrainingExample:
    """One annotated utterance: ``text`` is the plain text, entity spans index into it."""

    text: str
    intent: str
    entities: list[ExpectedEntity] = field(default_factory=list)
    line: int | None = None
    metadata: Any = None


@dataclass
class TrainingData:
    """Everything a training file teaches.

    ``synonyms`` maps a canonical value to its variants, merging ``synonym:`` blocks with the
    inline values of annotations (``[credit card]{"entity": "account_type", "value": "credit"}``),
    as Rasa does; ``synonym_blocks`` holds only the declared blocks, for faithful round trips.
    """

    examples: list[TrainingExample] = field(default_factory=list)
    synonyms: dict[str, list[str]] = field(default_factory=dict)
    regexes: dict[str, list[str]] = field(default_factory=dict)
    lookups: dict[str, list[str]] = field(default_factory=dict)
    intent_metadata: dict[str, dict[str, Any]] = field(default_factory=dict)
    path: Path | None = None
    digest: str | None = None
    synonym_blocks: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    entity_synonyms: dict[str, str] = field(default_factory=dict)
    """Rasa's own ``entity_synonyms``: variant -> value in the order Rasa's reader meets them
    (inline annotations and ``synonym:`` blocks interleaved as in the files), which is the
    order Rasa writes them back in."""

    @property
    def intents(self) -> list[str]:
        """Intent names in order of first appearance (examples first, then metadata-only)."""
        seen: dict[str, None] = {}
        for example in self.examples:
            seen.setdefault(example.intent, None)
        for name in self.intent_metadata:
            seen.setdefault(name, None)
        return list(seen)

    @property
    def entity_names(self) -> list[str]:
        """Entity types annotated in examples, sorted."""
        return sorted({e.name for ex in self.examples for e in ex.entities})

    def intent_kind(self, intent: str) -> IntentKind | None:
        """The kind from metadata; retrieval intents (``a/b``) default to FAQ."""
        kind = self.intent_metadata.get(intent, {}).get("kind")
        if kind:
            return IntentKind(kind)
        if RETRIEVAL_SEPARATOR in intent:
            return IntentKind.FAQ
        return None

    def parent_path(self, intent: str) -> list[str]:
        """The chain of parents of ``intent``, outermost first (empty for a top-level intent)."""
        path: list[str] = []
        current = self.intent_metadata.get(intent, {}).get("parent")
        while current and current not in path and current != intent:
            path.append(current)
            current = self.intent_metadata.get(current, {}).get("parent")
        path.reverse()
        return path

    def follow_ups(self, parent: str) -> list[str]:
        """Intents whose direct parent is ``parent``."""
        return [name for name, meta in self.intent_metadata.items() if meta.get("parent") == parent]

    def synonym_lookup(self) -> dict[str, str]:
        """Variant (lower-cased) to canonical value, for normalising extracted entities."""
        table: dict[str, str] = {}
        for canonical, variants in self.synonyms.items():
            for variant in variants:
                table.setdefault(variant.lower(), canonical)
        return table
