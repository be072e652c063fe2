"""A trained embedded model: the intent classifier, the entity extractor and the intent tree.

``EmbeddedModel.parse`` is pure and synchronous (the engine runs it inline: a prediction takes
well under a millisecond); training is what the engine pushes to a thread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nlu_tui.engines.embedded.classifier import ClassifierConfig, IntentClassifier
from nlu_tui.engines.embedded.entities import EntityExtractor
from nlu_tui.model import EMBEDDED_DEFAULT_THRESHOLD as DEFAULT_THRESHOLD
from nlu_tui.model import IntentScore, Prediction

if TYPE_CHECKING:
    from nlu_tui.engines.embedded.config import EntityOptions
    from nlu_tui.training import TrainingData

NO_INTENT_NAMES = frozenset({"None", "nlu_fallback"})
"""Training intents that mean "no intent" (LUIS's None, Rasa's fallback): predicted as None."""


DEFAULT_PARENT_BOOST = 4.0
"""Factor applied to a parent's follow-up intents when the case gives that parent as context."""

RANKING_LENGTH = 10

NO_TRAIT = "__no_trait__"
"""The trait classifier's label for examples of ordinary intents: no trait."""

DEFAULT_TRAIT_THRESHOLD = 0.5
"""A trait is returned when the trait classifier gives it at least this probability."""


def trait_names(data: TrainingData) -> set[str]:
    """Intents the training data marks as traits (``metadata: {kind: trait}``)."""
    return {
        name
        for name, meta in data.intent_metadata.items()
        if isinstance(meta, dict) and str(meta.get("kind", "")).strip() == "trait"
    }


@dataclass
class EmbeddedModel:
    classifier: IntentClassifier
    extractor: EntityExtractor
    parents: dict[str, str] = field(default_factory=dict)  # follow-up intent -> parent intent
    digest: str = ""
    examples: int = 0
    train_seconds: float = 0.0
    traits: IntentClassifier | None = None
    """Trait examples (Kore.ai's traits: ``metadata: {kind: trait}``) are kept out of the
    intent classifier and learnt by this one, against every other example as "no trait"."""

    @classmethod
    def train(
        cls,
        data: TrainingData,
        config: ClassifierConfig | None = None,
        digest: str = "",
        entities: EntityOptions | None = None,
    ) -> EmbeddedModel:
        """Fit on ``data``; ``entities`` (default: all on) picks the extractor's sources."""
        import time

        started = time.perf_counter()
        marked = trait_names(data)
        texts = [ex.text for ex in data.examples if ex.intent not in marked]
        intents = [ex.intent for ex in data.examples if ex.intent not in marked]
        classifier = IntentClassifier.train(texts, intents, config)
        traits = None
        if marked:
            traits = IntentClassifier.train(
                [ex.text for ex in data.examples],
                [ex.intent if ex.intent in marked else NO_TRAIT for ex in data.examples],
                config,
            )
        annotated = entities is None or entities.annotated
        extractor = EntityExtractor.build(
            ((ex.text, ex.entities if annotated else []) for ex in data.examples),
            data.synonyms,
            data.regexes if entities is None or entities.regexes else {},
            data.lookups if entities is None or entities.lookups else {},
            source=str(data.path) if data.path else None,
        )
        parents = {
            intent: str(meta["parent"])
            for intent, meta in data.intent_metadata.items()
            if isinstance(meta, dict) and meta.get("parent")
        }
        return cls(
            classifier=classifier,
            extractor=extractor,
            parents=parents,
            digest=digest,
            examples=len(data.examples),
            train_seconds=time.perf_counter() - started,
            traits=traits,
        )

    @property
    def intents(self) -> list[str]:
        return list(self.classifier.labels)

    def followups(self, parent: str) -> set[str]:
        return {child for child, p in self.parents.items() if p == parent}

    def rank(
        self,
        text: str,
        parent_intents: Sequence[str] = (),
        parent_boost: float = DEFAULT_PARENT_BOOST,
    ) -> list[tuple[str, float]]:
        """Intent probabilities, best first, after preferring the context parent's follow-ups."""
        pairs = self.classifier.predict_proba(text)
        return self.scope(pairs, parent_intents, parent_boost)

    def scope(
        self,
        pairs: list[tuple[str, float]],
        parent_intents: Sequence[str],
        parent_boost: float = DEFAULT_PARENT_BOOST,
    ) -> list[tuple[str, float]]:
        """Re-weight follow-ups of the innermost parent by ``parent_boost`` and renormalise.

        A follow-up is preferred but not forced: a clearly different top-level intent still wins.
        """
        if not parent_intents:
            return pairs
        preferred = self.followups(parent_intents[-1])
        if not preferred:
            return pairs
        weighted = [(name, p * parent_boost if name in preferred else p) for name, p in pairs]
        total = sum(p for _, p in weighted) or 1.0
        out = [(name, p / total) for name, p in weighted]
        out.sort(key=lambda pair: (-pair[1], pair[0]))
        return out

    def predict(
        self,
        text: str,
        parent_intents: Sequence[str] = (),
        threshold: float = DEFAULT_THRESHOLD,
        parent_boost: float = DEFAULT_PARENT_BOOST,
        ranked: list[tuple[str, float]] | None = None,
        trait_pairs: list[tuple[str, float]] | None = None,
        trait_threshold: float = DEFAULT_TRAIT_THRESHOLD,
    ) -> Prediction:
        pairs = ranked if ranked is not None else self.rank(text, parent_intents, parent_boost)
        if trait_pairs is None and self.traits is not None:
            trait_pairs = self.traits.predict_proba(text)
        traits = [
            name for name, p in trait_pairs or () if name != NO_TRAIT and p >= trait_threshold
        ]
        top_name, top_conf = pairs[0]
        intent: str | None = top_name
        if top_conf < threshold or top_name in NO_INTENT_NAMES:
            intent = None
        entities = self.extractor.extract(text)
        ranking = [IntentScore(name, round(p, 6)) for name, p in pairs[:RANKING_LENGTH]]
        raw: dict[str, Any] = {
            "text": text,
            "intent": {"name": intent, "confidence": round(top_conf, 6)},
            "intent_ranking": [{"name": s.name, "confidence": s.confidence} for s in ranking],
            "entities": [
                {
                    k: v
                    for k, v in {
                        "entity": e.name,
                        "start": e.start,
                        "end": e.end,
                        "value": e.value,
                        "role": e.role,
                        "group": e.group,
                        "confidence_entity": e.confidence,
                        "extractor": e.extractor,
                    }.items()
                    if v is not None
                }
                for e in entities
            ],
        }
        if traits:
            raw["traits"] = traits
        return Prediction(
            intent=intent,
            confidence=round(top_conf, 6),
            ranking=ranking,
            entities=entities,
            traits=traits,
            raw=raw,
        )
