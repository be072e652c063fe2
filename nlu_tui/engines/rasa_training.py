"""Training a real Rasa over its HTTP API (``POST /model/train``, ``PUT /model``).

Rasa's server takes one YAML body holding both the training data and the config; it answers
with the model file, which it also keeps in its ``models/`` folder (relative to where it runs),
so ``PUT /model {"model_file": "models/NAME"}`` loads it. A server holds one loaded model at a
time: an evaluation trains and tests its folds against one server one after another.

Trained models are remembered by (server, data, config) hash in ``rasa-models.json`` of the
models folder: the same evaluation again only loads them (``PUT /model``), and trains anew if
the server no longer has the file.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from nlu_tui.engines.base import ParseContext, TrainedModel, TrainingConfig, config_name
from nlu_tui.engines.httpcall import safe_url
from nlu_tui.engines.rasa_common import TRAIN_TIMEOUT, RasaServer, parse_rasa_answer
from nlu_tui.errors import EngineError, InputError
from nlu_tui.model import Prediction

if TYPE_CHECKING:
    import httpx

    from nlu_tui.training import TrainingData

INDEX_FILE = "rasa-models.json"


def load_rasa_config(path: Path | None) -> TrainingConfig:
    """Read a Rasa ``config.yml`` and check its shape (a mapping whose ``pipeline`` is a list
    of components, each with a ``name``). Rasa judges the components when it trains."""
    import yaml

    if path is None:
        raise InputError("training a Rasa needs a Rasa config.yml", field="--config")
    path = Path(path)
    if not path.is_file():
        raise InputError("no such configuration file", path=path)
    text = path.read_text(encoding="utf-8")
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise InputError(
            f"not valid YAML: {getattr(exc, 'problem', None) or exc}",
            path=path,
            line=mark.line + 1 if mark else None,
        ) from None
    if not isinstance(raw, dict):
        raise InputError("a Rasa config is a mapping (recipe, language, pipeline, ...)", path=path)
    pipeline = raw.get("pipeline")
    if not isinstance(pipeline, list) or not pipeline:
        raise InputError("needs a non-empty list of components", path=path, field="pipeline")
    for i, component in enumerate(pipeline):
        if not isinstance(component, dict) or not isinstance(component.get("name"), str):
            raise InputError(
                "every component is a mapping with a 'name'", path=path, field=f"pipeline[{i}]"
            )
    if raw.get("engine") not in (None, "rasa"):
        raise InputError(
            f"this configuration is for engine {raw['engine']!r}", path=path, field="engine"
        )
    raw.pop("version", None)
    return TrainingConfig(name=config_name(path), text=text, path=path, settings={"config": raw})


def training_body(data: TrainingData, config: TrainingConfig) -> str:
    """The one YAML document ``POST /model/train`` takes: NLU data, then the config's keys."""
    import yaml

    from nlu_tui.formats.rasa_yaml import training_yaml

    settings = {k: v for k, v in dict(config.settings["config"]).items() if k != "engine"}
    return training_yaml(data) + yaml.safe_dump(settings, sort_keys=False, allow_unicode=True)


def _index_path() -> Path:
    from nlu_tui import paths

    return paths.models_cache_dir() / INDEX_FILE


def _read_index() -> dict[str, str]:
    try:
        loaded = json.loads(_index_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}


def _remember(key: str, filename: str) -> None:
    from nlu_tui.fileio import atomic_write_text

    index = _read_index()
    index[key] = filename
    atomic_write_text(_index_path(), json.dumps(index, indent=1, sort_keys=True))


class RasaTrained(TrainedModel):
    """The model a Rasa server loaded for us; parses over ``POST /model/parse``."""

    def __init__(
        self, engine: RasaServer, client: httpx.AsyncClient, own: bool, model: str, cached: bool
    ) -> None:
        self.engine = engine
        self.client = client
        self.own = own
        self.model = model
        self.cached = cached

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        engine = self.engine
        started = time.perf_counter()
        response = await self.client.post(
            f"{engine.base_url}/model/parse",
            params=engine._params,
            headers=engine._headers,
            content=orjson.dumps({"text": text}),
        )
        response.raise_for_status()
        prediction = parse_rasa_answer(response.json(), text)
        prediction.latency_ms = (time.perf_counter() - started) * 1000.0
        return prediction

    async def parse_many(self, texts: list[str]) -> list[Prediction]:
        import asyncio

        semaphore = asyncio.Semaphore(8)

        async def one(text: str) -> Prediction:
            async with semaphore:
                return await self.parse(text, ParseContext())

        return list(await asyncio.gather(*(one(t) for t in texts)))

    async def release(self) -> None:
        if self.own:
            await self.client.aclose()

    def describe(self) -> dict[str, Any]:
        return {"model": self.model, "cached": self.cached}


async def _load(engine: RasaServer, client: httpx.AsyncClient, model_file: str) -> str | None:
    """``PUT /model``; the server's complaint when it cannot load the file, else None."""
    response = await client.put(
        f"{engine.base_url}/model",
        params=engine._params,
        headers=engine._headers,
        content=orjson.dumps({"model_file": model_file}),
        timeout=TRAIN_LOAD_TIMEOUT,
    )
    if response.status_code >= 400:
        return _server_message(response)
    return None


TRAIN_LOAD_TIMEOUT = 300.0


def _server_message(response: httpx.Response) -> str:
    from nlu_tui.textsafe import inert

    try:
        body = response.json()
        message = body.get("message") if isinstance(body, dict) else None
    except ValueError:
        message = None
    text = str(message or response.text[:500] or f"HTTP {response.status_code}")
    return inert(text, newlines=False)


async def train_on_server(
    engine: RasaServer,
    data: TrainingData,
    config: TrainingConfig,
    client: httpx.AsyncClient | None = None,
) -> RasaTrained:
    """Train (or reload the model trained before on the same data and config) and load it."""
    import httpx

    body = training_body(data, config)
    key = hashlib.sha256(f"{engine.base_url}\0{body}".encode()).hexdigest()[:32]
    own = client is None
    http = client or httpx.AsyncClient(timeout=TRAIN_TIMEOUT)
    where = safe_url(engine.base_url)
    try:
        known = _read_index().get(key)
        if known is not None and await _load(engine, http, f"models/{known}") is None:
            return RasaTrained(engine, http, own, known, True)
        try:
            response = await http.post(
                f"{engine.base_url}/model/train",
                params=engine._params,
                headers={**engine._headers, "Content-Type": "application/x-yaml"},
                content=body.encode("utf-8"),
                timeout=TRAIN_TIMEOUT,
            )
        except httpx.TransportError as exc:
            raise EngineError(f"Rasa at {where}: training request failed: {exc}") from None
        if response.status_code >= 400:
            raise EngineError(
                f"Rasa at {where} could not train with {config.name}: {_server_message(response)}"
            )
        filename = response.headers.get("filename")
        if not filename:
            raise EngineError(f"Rasa at {where} trained but named no model file")
        problem = await _load(engine, http, f"models/{filename}")
        if problem is not None:
            raise EngineError(f"Rasa at {where} could not load its trained model: {problem}")
        _remember(key, filename)
        return RasaTrained(engine, http, own, filename, False)
    except BaseException:
        if own:
            await http.aclose()
        raise
