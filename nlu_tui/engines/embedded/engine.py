"""The embedded engine: the default, needing nothing but nlu-tui and a Rasa ``nlu.yml``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.engines.answer_shapes import EMBEDDED
from nlu_tui.engines.base import (
    Capabilities,
    Engine,
    ParseContext,
    TrainedModel,
    TrainingConfig,
    config_name,
    register,
)
from nlu_tui.engines.embedded.classifier import ClassifierConfig
from nlu_tui.engines.embedded.model import DEFAULT_PARENT_BOOST, RANKING_LENGTH, EmbeddedModel
from nlu_tui.errors import EngineError
from nlu_tui.model import EMBEDDED_DEFAULT_THRESHOLD as DEFAULT_THRESHOLD
from nlu_tui.model import Prediction

if TYPE_CHECKING:
    import httpx

    from nlu_tui.engines.embedded.config import EmbeddedConfig
    from nlu_tui.training import TrainingData

_PATH_KEYS = ("nlu", "path", "training_data")


def _number(settings: Mapping[str, Any], key: str, default: float) -> float:
    value = settings.get(key, default)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise EngineError(f"embedded engine: {key} must be a number, got {value!r}") from None
    return number


@register("embedded")
class EmbeddedEngine(Engine):
    """Trains (or loads from the cache) in ``open``, off the event loop; parses in-process.

    Settings: ``nlu`` (the training file), ``threshold`` (no intent below it, default 0.3),
    ``parent_boost`` (weight of a context parent's follow-ups, default 4), ``cache`` (default true).
    """

    type_name = "embedded"
    answer_shape = EMBEDDED
    capabilities = Capabilities(parent_intent_context=True, entity_order=True, training=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        raw_path = next((settings[k] for k in _PATH_KEYS if settings.get(k)), None)
        if raw_path is None:
            raise EngineError("embedded engine: set 'nlu' to a Rasa NLU YAML training file")
        self.path = Path(str(raw_path)).expanduser()
        self.threshold = _number(settings, "threshold", DEFAULT_THRESHOLD)
        if not 0.0 <= self.threshold <= 1.0:
            raise EngineError(
                f"embedded engine: threshold must be within 0..1, got {self.threshold}"
            )
        self.parent_boost = _number(settings, "parent_boost", DEFAULT_PARENT_BOOST)
        self.use_cache = bool(settings.get("cache", True))
        self.config = ClassifierConfig()
        self.model: EmbeddedModel | None = None
        self.from_cache = False
        self._pending: list[tuple[str, list[str], asyncio.Future[Prediction], float]] = []

    async def open(self, client: httpx.AsyncClient | None = None) -> None:
        if self.model is not None:
            return
        if not self.path.is_file():
            raise EngineError(f"embedded engine: training data not found: {self.path}")
        from nlu_tui.engines.embedded.cache import load_or_train

        self.model, self.from_cache = await asyncio.to_thread(
            load_or_train, self.path, self.config, use_disk=self.use_cache
        )

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        """Queue the utterance; every utterance queued in the same loop turn is classified in
        one batch (scikit-learn's per-call overhead dominates a single prediction: a batch is
        about 50 times faster per utterance than one at a time)."""
        if self.model is None:
            await self.open(None)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Prediction] = loop.create_future()
        self._pending.append((text, list(context.parent_intents), future, time.perf_counter()))
        if len(self._pending) == 1:
            loop.call_soon(self._flush)
        return await future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        live = [item for item in batch if not item[2].done()]  # skip canceled callers
        if not live or self.model is None:
            return
        model = self.model
        try:
            texts = [item[0] for item in live]
            ranked = model.classifier.predict_many(texts)
            traits = model.traits.predict_many(texts) if model.traits is not None else None
        except Exception as exc:
            for item in live:
                item[2].set_exception(exc)
            return
        for k, ((text, parents, future, started), pairs) in enumerate(
            zip(live, ranked, strict=True)
        ):
            try:
                prediction = model.predict(
                    text,
                    parents,
                    threshold=self.threshold,
                    parent_boost=self.parent_boost,
                    ranked=model.scope(pairs, parents, self.parent_boost),
                    trait_pairs=traits[k] if traits is not None else None,
                )
            except Exception as exc:
                future.set_exception(exc)
                continue
            prediction.latency_ms = (time.perf_counter() - started) * 1000.0
            future.set_result(prediction)

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "type": self.type_name,
            "nlu": str(self.path),
            "threshold": self.threshold,
            "parent_boost": self.parent_boost,
        }
        if self.model is not None:
            info["model"] = self.model.digest
        return info

    def training_suite_source(self) -> str | None:
        return str(self.path)

    def load_training_config(self, path: Path | None) -> TrainingConfig:
        from nlu_tui.engines.embedded.config import load_embedded_config

        config, text = load_embedded_config(path)
        name = config_name(path) if path is not None else "default"
        return TrainingConfig(name=name, text=text, path=path, settings={"config": config})

    async def train(
        self,
        data: TrainingData,
        config: TrainingConfig,
        client: httpx.AsyncClient | None = None,
    ) -> TrainedModel:
        from nlu_tui.engines.embedded.cache import train_cached

        parsed = config.settings["config"]
        model, cached = await asyncio.to_thread(train_cached, data, parsed, use_disk=self.use_cache)
        return EmbeddedTrained(model, parsed, cached)


class EmbeddedTrained(TrainedModel):
    in_process = True

    """A trained embedded model with its configuration's threshold; parses in-process."""

    def __init__(self, model: EmbeddedModel, config: EmbeddedConfig, cached: bool = False) -> None:
        self.model = model
        self.config = config
        self.cached = cached

    def predict_many(self, texts: list[str]) -> list[Prediction]:
        """Batch prediction (one scikit-learn call for all texts)."""
        model = self.model
        out = []
        started = time.perf_counter()
        ranked = model.classifier.predict_many(texts, top=RANKING_LENGTH) if texts else []
        for text, pairs in zip(texts, ranked, strict=True):
            prediction = model.predict(text, threshold=self.config.threshold, ranked=pairs)
            out.append(prediction)
        per_text = (time.perf_counter() - started) * 1000.0 / max(1, len(texts))
        for prediction in out:
            prediction.latency_ms = per_text
        return out

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        return self.predict_many([text])[0]

    async def parse_many(self, texts: list[str]) -> list[Prediction]:
        return self.predict_many(texts)

    def describe(self) -> dict[str, Any]:
        return {"model": self.model.digest, "cached": self.cached}
