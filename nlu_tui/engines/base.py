"""The engine contract and the registry that finds engines by type name.

An engine turns one utterance into a :class:`~nlu_tui.model.Prediction`. It may also train,
and later keep a conversation or return commands: those are capabilities the faces read.
"""

from __future__ import annotations

import abc
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nlu_tui import plugins
from nlu_tui.errors import EngineError, NluTuiError
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
    """What training returns: answers ``parse`` until released.

    ``in_process``: the model answers inside nlu-tui (no request can fail, stall or be
    rate-limited), so an evaluation asks it with :meth:`parse_many` in one batch; a model
    served elsewhere (a Rasa server) is asked case by case through the run kernel instead.
    """

    in_process: bool = False

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
    profile_keys: frozenset[str] | None = None
    """The settings a profile of this type may hold, for a plug-in (built-ins are listed in
    :mod:`nlu_tui.engines.profile_keys`); None: the profile's keys are not checked."""
    answer_shape: Any = None
    """What the engine's raw answer looks like (:mod:`nlu_tui.engines.answer_shapes`), so a
    ``raw:`` check whose path can never match it is a warning; None: not declared, not checked."""
    adhoc_setting: str | None = None
    """For a plug-in: the setting that ``--engine TYPE:VALUE`` fills with VALUE (e.g. ``url``);
    None: the type is used through an ``engines.yaml`` profile only."""

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
"""What builds an engine from a resolved profile: an :class:`Engine` subclass, or a function."""
_REGISTRY: dict[str, EngineFactory] = {}
ENGINE_GROUP = "nlu_tui.engines"
"""The entry-point group of engine types (``docs/development/plugins.md``)."""


def register(type_name: str) -> Callable[[EngineFactory], EngineFactory]:
    """Class or function decorator: ``@register("rasa")`` makes profiles of that type buildable
    in this process. Installed plug-ins use the ``nlu_tui.engines`` entry points instead."""

    def wrap(factory: EngineFactory) -> EngineFactory:
        _REGISTRY[type_name] = factory
        return factory

    return wrap


BUILTIN_ENGINES = {
    "embedded": "nlu_tui.engines.embedded.engine:EmbeddedEngine",
    "rasa": "nlu_tui.engines.rasa:RasaEngine",
    "rasa-pro": "nlu_tui.engines.rasa_pro:RasaProEngine",
    "http": "nlu_tui.engines.http_generic:GenericHttpEngine",
    "wit": "nlu_tui.engines.wit:WitEngine",
    "luis": "nlu_tui.engines.luis:LuisEngine",
    "clu": "nlu_tui.engines.clu:CluEngine",
    "lex": "nlu_tui.engines.lex:LexEngine",
    "kore": "nlu_tui.engines.kore:KoreEngine",
    "dialogflow-es": "nlu_tui.engines.dialogflow_es:DialogflowEsEngine",
    "dialogflow-cx": "nlu_tui.engines.dialogflow_cx:DialogflowCxEngine",
    "llm": "nlu_tui.engines.llm:LLMEngine",
    "llm-commands": "nlu_tui.engines.llm_commands:LLMCommandGenerator",
}
"""The built-in engine types, as declared in pyproject.toml's ``nlu_tui.engines`` entry points
(tests/test_plugins.py keeps the two equal). Kept in code too: a checkout run from source, or an
install whose metadata is older than an engine, still finds every built-in."""


def engine_plugins() -> dict[str, plugins.Plugin]:
    """Every engine type's plug-in entry, built-ins first (imports none)."""
    return plugins.load_group(ENGINE_GROUP, BUILTIN_ENGINES)


def engine_types() -> list[str]:
    """Every engine type: the built-ins, installed plug-ins and types registered in-process.
    Reads names only; no engine module is imported."""
    return sorted(set(_REGISTRY) | set(engine_plugins()))


def builtin_engine_type(type_name: str) -> bool:
    return type_name in BUILTIN_ENGINES


def known_engine_type(type_name: str) -> bool:
    """Whether ``type_name`` is an engine type; discovers plug-ins only for a non-built-in."""
    return type_name in BUILTIN_ENGINES or type_name in _REGISTRY or type_name in engine_plugins()


def _engine_plugin(type_name: str) -> plugins.Plugin | None:
    """The plug-in entry of ``type_name``: a built-in's from the table in code, without
    discovery (a run on a built-in engine never reads the installed distributions' metadata);
    any other name's from discovery."""
    found = plugins.builtin_plugin(ENGINE_GROUP, type_name, BUILTIN_ENGINES)
    return found if found is not None else engine_plugins().get(type_name)


def _engine_problem(found: Any) -> str | None:
    """What keeps ``found`` from being an engine factory (None: nothing)."""
    if isinstance(found, type):
        if not issubclass(found, Engine):
            return "is a class but not a subclass of nlu_tui.engines.base.Engine"
        if inspect.isabstract(found):
            missing = ", ".join(sorted(getattr(found, "__abstractmethods__", ())))
            return f"is abstract (it does not define {missing})"
        return None
    if not callable(found):
        return f"is a {type(found).__name__}, not an Engine subclass or a factory function"
    return None


def engine_factory(type_name: str) -> EngineFactory:
    """The factory of ``type_name``, importing its module on first use.

    EngineError for an unknown type; PluginError (one line, naming the plug-in and its
    distribution) when a plug-in fails to import or is not an engine factory.
    """
    plugin = _engine_plugin(type_name)
    if plugin is not None:
        factory: EngineFactory = plugin.load(_engine_problem)
        return factory
    if type_name in _REGISTRY:
        return _REGISTRY[type_name]
    raise EngineError(f"unknown engine type {type_name!r}; known: {', '.join(engine_types())}")


def loaded_engine_factory(type_name: str) -> EngineFactory | None:
    """The factory of ``type_name`` if it is already imported (imports nothing), else None."""
    plugin = _engine_plugin(type_name)
    if plugin is not None:
        loaded: EngineFactory | None = plugin.loaded
        return loaded
    return _REGISTRY.get(type_name)


def create_engine(type_name: str, settings: Mapping[str, Any]) -> Engine:
    """Build an engine from a resolved profile (secrets already substituted)."""
    factory = engine_factory(type_name)
    plugin = _engine_plugin(type_name)
    if plugin is None or plugin.builtin:
        return factory(settings)
    try:
        engine = factory(settings)
    except NluTuiError:
        raise
    except Exception as exc:  # a plug-in's own bug: one line naming it, not a traceback
        raise plugins.PluginError(
            f"{plugin.describe()} failed to build an engine: {type(exc).__name__}: "
            f"{' '.join(str(exc).split())}"
        ) from exc
    if not isinstance(engine, Engine):
        raise plugins.PluginError(
            f"{plugin.describe()} returned a {type(engine).__name__}, "
            "not an nlu_tui.engines.base.Engine"
        )
    return engine
