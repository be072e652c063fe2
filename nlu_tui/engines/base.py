"""The engine contract and the registry that finds engines by type name.

An engine turns one utterance into a :class:`~nlu_tui.model.Prediction`. It may also train,
and later keep a conversation or return commands: those are capabilities the faces read.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nlu_tui.errors import EngineError
from nlu_tui.model import Prediction

if TYPE_CHECKING:
    from pathlib import Path

    import httpx

    from nlu_tui.training import TrainingData


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do beyond parsing a lone utterance."""

    parent_intent_context: bool = False
    entity_order: bool = False
    training: bool = False
    conversation: bool = False
    http: bool = False
    commands: bool = False
    """Predicts dialogue-understanding commands (:mod:`nlu_tui.engines.command_api`)."""


@dataclass
class ParseContext:
    """What a case tells the engine besides its text."""

    parent_intents: list[str] = field(default_factory=list)
    case_id: str | None = None
    stage: str = "development"


@dataclass(frozen=True)
class TrainingConfig:
    """A named, checked training configuration (a ``config.yml``), as the engine will use it.

    ``name`` is the file's stem (Rasa names compared models so), ``text`` its exact bytes as
    text (part of the trained-model cache key), ``settings`` what the engine parsed from it.
    """

    name: str
    text: str
    path: Path | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)


def config_name(path: Path) -> str:
    """A configuration's name as Rasa names compared models: the file name without its last
    extension (``config_1.yml`` → ``config_1``)."""
    import os

    return os.path.splitext(os.path.basename(str(path)))[0]


class TrainedModel(abc.ABC):
    """What training returns: answers ``parse`` until released."""

    @abc.abstractmethod
    async def parse(self, text: str, context: ParseContext) -> Prediction:
        """Answer one utterance with the trained model."""

    async def parse_many(self, texts: list[str]) -> list[Prediction]:
        """Answer many utterances (an engine may batch them); the default asks one by one."""
        return [await self.parse(text, ParseContext()) for text in texts]

    async def release(self) -> None:
        """Free what the model holds (memory, a loaded server model)."""

    def describe(self) -> dict[str, Any]:
        return {}


class Engine(abc.ABC):
    """Base of every engine. ``open`` receives the run's shared HTTP client (None if unused)."""

    type_name: str = ""
    inventory_note: str = ""
    """Why :meth:`list_intents` cannot list the bot's intents, for coverage's message."""
    capabilities: Capabilities = Capabilities()

    async def open(self, client: httpx.AsyncClient | None) -> None:
        """Prepare for a run: train, load a model or probe the server (EngineError if unusable)."""

    async def close(self) -> None:
        """Release what ``open`` took."""

    @abc.abstractmethod
    async def parse(self, text: str, context: ParseContext) -> Prediction:
        """Answer one utterance. Transport failures raise; the runner retries and records them."""

    def describe(self) -> dict[str, Any]:
        """The engine's settings without secrets, as stored with a run."""
        return {"type": self.type_name}

    def training_suite_source(self) -> str | None:
        """Path of training data this engine learns from, for the developer-defined suite."""
        return None

    async def list_intents(self) -> list[tuple[str, list[str]]] | None:
        """The bot's intents as the vendor lists them, each with its training phrases where
        the vendor gives them (coverage's inventory); None when the engine cannot list them.
        Called between ``open`` and ``close``."""
        return None

    async def list_entities(self) -> list[str] | None:
        """The bot's entities as the engine lists them (coverage's inventory); None when it
        cannot list them. Called between ``open`` and ``close``, after :meth:`list_intents`."""
        return None

    def load_training_config(self, path: Path | None) -> TrainingConfig:
        """Read and check a training configuration (None: the engine's default) before any
        training starts. InputError naming file, line and field when it is bad; EngineError
        when the engine cannot train at all."""
        raise EngineError(
            f"the {self.type_name or type(self).__name__} engine cannot train "
            "(engines that can: embedded, rasa)"
        )

    async def train(
        self,
        data: TrainingData,
        config: TrainingConfig,
        client: httpx.AsyncClient | None = None,
    ) -> TrainedModel:
        """Train on ``data`` with ``config``; the caller releases the returned model.
        EngineError (with the engine's own message) when training fails."""
        raise EngineError(f"the {self.type_name or type(self).__name__} engine cannot train")


EngineFactory = Callable[[Mapping[str, Any]], Engine]
_REGISTRY: dict[str, EngineFactory] = {}


def register(type_name: str) -> Callable[[EngineFactory], EngineFactory]:
    """Class or function decorator: ``@register("rasa")`` makes profiles of that type buildable."""

    def wrap(factory: EngineFactory) -> EngineFactory:
        _REGISTRY[type_name] = factory
        return factory

    return wrap


_BUILTIN_MODULES = {
    "embedded": "nlu_tui.engines.embedded",
    "rasa": "nlu_tui.engines.rasa",
    "rasa-pro": "nlu_tui.engines.rasa_pro",
    "http": "nlu_tui.engines.http_generic",
    "wit": "nlu_tui.engines.wit",
    "luis": "nlu_tui.engines.luis",
    "clu": "nlu_tui.engines.clu",
    "lex": "nlu_tui.engines.lex",
    "kore": "nlu_tui.engines.kore",
    "dialogflow-es": "nlu_tui.engines.dialogflow_es",
    "dialogflow-cx": "nlu_tui.engines.dialogflow_cx",
    "llm": "nlu_tui.engines.llm",
    "llm-commands": "nlu_tui.engines.llm_commands",
}


def engine_types() -> list[str]:
    return sorted(set(_REGISTRY) | set(_BUILTIN_MODULES))


def create_engine(type_name: str, settings: Mapping[str, Any]) -> Engine:
    """Build an engine from a resolved profile (secrets already substituted)."""
    if type_name not in _REGISTRY and type_name in _BUILTIN_MODULES:
        import importlib

        importlib.import_module(_BUILTIN_MODULES[type_name])
    try:
        factory = _REGISTRY[type_name]
    except KeyError:
        from nlu_tui.errors import EngineError

        raise EngineError(
            f"unknown engine type {type_name!r}; known: {', '.join(engine_types())}"
        ) from None
    return factory(settings)
