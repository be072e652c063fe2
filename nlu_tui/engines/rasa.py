"""Rasa Open Source over HTTP: ``POST /model/parse`` (see engine-apis.md §1).

Auth is ``?token=`` (server started with ``--auth-token``) or a JWT sent as
``Authorization: Bearer`` (``--jwt-secret``). ``nlu_fallback`` and a null intent name mean no
intent; the fallback's synthetic entry is dropped from the ranking so that the ranking shows
the real candidates, and the whole answer is kept in ``raw``. The intent the fallback replaced
is kept too (``pre_fallback_intent``), since ``rasa test nlu`` scores that one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from nlu_tui.engines.answer_shapes import RASA_PARSE
from nlu_tui.engines.base import (
    Capabilities,
    ParseContext,
    TrainedModel,
    TrainingConfig,
    register,
)
from nlu_tui.engines.httpcall import Endpoint, safe_url
from nlu_tui.engines.rasa_common import FALLBACK_INTENT as FALLBACK_INTENT
from nlu_tui.engines.rasa_common import TRAIN_TIMEOUT as TRAIN_TIMEOUT
from nlu_tui.engines.rasa_common import RasaServer
from nlu_tui.engines.rasa_common import parse_rasa_answer as parse_rasa_answer
from nlu_tui.engines.rasa_training import load_rasa_config, train_on_server
from nlu_tui.engines.transport_errors import EngineUnreachableError
from nlu_tui.errors import EngineError
from nlu_tui.model import Prediction

if TYPE_CHECKING:
    from pathlib import Path

    import httpx

    from nlu_tui.engines.conversation import ActionPrediction, Conversation, DialogueDomain
    from nlu_tui.training import TrainingData


@register("rasa")
class RasaEngine(RasaServer):
    """Settings: ``url`` (base, default http://localhost:5005), ``token``, ``jwt``, ``timeout``."""

    type_name = "rasa"
    answer_shape = RASA_PARSE
    capabilities = Capabilities(entity_order=True, http=True, conversation=True, training=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        self.server_version: str | None = None
        self._parse_endpoint: Endpoint | None = None
        self._listed_entities: list[str] | None = None

    async def open(self, client: httpx.AsyncClient | None) -> None:
        """Probe ``GET /version`` (no auth needed) so an unreachable server fails the run at once."""
        import httpx

        await super().open(client)
        try:
            body, _ = await self.request_json("GET", f"{self.base_url}/version")
        except httpx.TransportError as exc:  # its message is already one clean, redacted line
            raise EngineUnreachableError(f"engine unreachable: {exc}") from None
        except Exception as exc:
            raise EngineError(
                f"Rasa at {safe_url(self.base_url)} is unreachable: {self._redact(str(exc))}"
            ) from None
        if not isinstance(body, dict) or "version" not in body:
            raise EngineError(f"{safe_url(self.base_url)} does not look like a Rasa server")
        self.server_version = str(body["version"])

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        endpoint = self._parse_endpoint
        if endpoint is None or endpoint.client is not self.client:
            # URL, token and headers are merged once per client, not on every case.
            endpoint = self._parse_endpoint = await self.endpoint(
                "POST", f"{self.base_url}/model/parse", params=self._params, headers=self._headers
            )
        body, latency = await self.send_json(endpoint, orjson.dumps({"text": text}))
        prediction = parse_rasa_answer(body, text)
        prediction.latency_ms = latency
        return prediction

    # --- the bot's inventory (coverage) ------------------------------------------------

    async def list_intents(self) -> list[tuple[str, list[str]]] | None:
        """The loaded model's intents (``GET /domain``; Rasa lists no training examples)."""
        from nlu_tui.engines.rasa_dialogue import domain_inventory

        intents, self._listed_entities = await domain_inventory(self)
        return [(name, []) for name in intents]

    async def list_entities(self) -> list[str] | None:
        """The domain's entities, read with :meth:`list_intents` (one ``GET /domain``)."""
        if self._listed_entities is None:
            from nlu_tui.engines.rasa_dialogue import domain_inventory

            _intents, self._listed_entities = await domain_inventory(self)
        return list(self._listed_entities)

    # --- conversations (nlu_tui.engines.conversation), in rasa_dialogue -------------------
    # (imported on first use: a run of NLU cases needs neither it nor the conversation model)

    def conversation(self, sender_id: str) -> Conversation:
        from nlu_tui.engines.rasa_dialogue import RasaConversation

        return RasaConversation(self, sender_id)

    async def dialogue_domain(self) -> DialogueDomain:
        from nlu_tui.engines import rasa_dialogue

        return await rasa_dialogue.dialogue_domain(self)

    async def predict_action(self, events: Sequence[Mapping[str, Any]]) -> ActionPrediction:
        from nlu_tui.engines import rasa_dialogue

        return await rasa_dialogue.predict_action(self, events)

    async def parse_message(self, text: str) -> dict[str, Any]:
        from nlu_tui.engines import rasa_dialogue

        return await rasa_dialogue.parse_message(self, text)

    def load_training_config(self, path: Path | None) -> TrainingConfig:
        """A Rasa ``config.yml``: read and checked for shape here; its components are Rasa's
        to judge (an unknown one fails training with Rasa's own message)."""
        return load_rasa_config(path)

    async def train(
        self,
        data: TrainingData,
        config: TrainingConfig,
        client: httpx.AsyncClient | None = None,
    ) -> TrainedModel:
        """``POST /model/train`` (YAML data and config in one body), then ``PUT /model``; a
        model already trained on the same data and config by this server is only loaded."""
        return await train_on_server(self, data, config, client)

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"type": self.type_name, "url": safe_url(self.base_url)}
        if self.server_version:
            info["server_version"] = self.server_version
        info["auth"] = "token" if self.token else "jwt" if self.jwt else "none"
        return info
