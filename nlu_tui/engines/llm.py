"""An LLM as an NLU engine: zero- or few-shot intent and entity classification over any
OpenAI-compatible chat endpoint, so a suite can batch-test an LLM classifier against a trained
model.

::

    engines:
      gpt-classifier:
        type: llm
        nlu: data/nlu.yml              # intents, descriptions and examples come from here
        base_url: http://127.0.0.1:11434/v1   # omitted: the llm: entry of the user settings
        model: llama3.1
        api_key: ${OPENAI_API_KEY}
        examples: 5                    # few-shot examples per intent (0: zero-shot)

The system prompt lists every intent (name, ``description`` from the intent metadata, up to
``examples`` training examples) and entity type, and asks for one JSON object:
``{"intent": NAME|null, "confidence": 0..1, "entities": [{"entity", "value", "text"}]}``. An
answer naming an unknown intent, or not JSON at all, is a case error ("malformed answer: ...").

Parent-intent context (a case's ``parent_intents``, for follow-up intents): the system prompt
marks each follow-up intent ``(follow-up of PARENT)`` (intent metadata ``parent:``), and a case
with a context path gets a second system message between the instructions and the utterance
(:func:`context_message`), naming the path and the innermost parent's follow-up intents. The
user message is always the bare utterance.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nlu_tui.engines.base import Capabilities, Engine, ParseContext, register
from nlu_tui.engines.httpcall import BadResponseError
from nlu_tui.engines.llm_answer_json import found, loose_json
from nlu_tui.engines.llm_client import ChatClient
from nlu_tui.engines.llm_config import LLMConfig, LLMError, llm_config_from_mapping, load_llm_config
from nlu_tui.errors import EngineError, InputError
from nlu_tui.model import IntentScore, PredictedEntity, Prediction

if TYPE_CHECKING:
    import httpx

    from nlu_tui.training import TrainingData

NO_INTENT = ("none", "null", "nlu_fallback", "out_of_scope_unknown")


def build_system_prompt(data: TrainingData, examples: int) -> str:
    """The classification instructions: every intent with its description and examples."""
    lines = [
        "You are an intent classifier for a chatbot. Classify the user's message into exactly "
        "one of the intents below, or null if none fits, and extract the entities it mentions.",
        "",
        "Intents:",
    ]
    by_intent: dict[str, list[str]] = {}
    for example in data.examples:
        by_intent.setdefault(example.intent, []).append(example.text)
    for intent in data.intents:
        description = data.intent_metadata.get(intent, {}).get("description")
        parent = data.intent_metadata.get(intent, {}).get("parent")
        head = f"- {intent}"
        if isinstance(parent, str) and parent:
            head += f" (follow-up of {parent})"
        head += f": {description}" if isinstance(description, str) else ""
        lines.append(head)
        for text in by_intent.get(intent, [])[:examples]:
            lines.append(f"    e.g. {json.dumps(text, ensure_ascii=False)}")
    entity_names = data.entity_names
    if entity_names:
        lines += ["", "Entity types: " + ", ".join(entity_names)]
    if any(data.intent_metadata.get(i, {}).get("parent") for i in data.intents):
        lines += [
            "",
            "A follow-up intent is expected only when the conversation context names its parent.",
        ]
    lines += [
        "",
        "Answer with one JSON object and nothing else:",
        '{"intent": "<intent name or null>", "confidence": <0..1>, '
        '"entities": [{"entity": "<type>", "value": "<normalised value>", '
        '"text": "<exact words from the message>"}]}',
    ]
    return "\n".join(lines)


def context_message(data: TrainingData, parents: list[str]) -> str:
    """The system message telling the model the case's parent-intent path (outermost first)."""
    inner = parents[-1]
    lines = [
        f"Conversation context: the user is answering inside the intent {inner!r} "
        f"(context path: {' > '.join(parents)})."
    ]
    follow_ups = [i for i in data.follow_ups(inner) if i in data.intents]
    if follow_ups:
        lines.append(
            f"Follow-up intents of {inner!r}: {', '.join(follow_ups)}. Prefer one of them when "
            "the message fits it; otherwise classify the message as usual."
        )
    else:
        lines.append(f"{inner!r} has no follow-up intents: classify the message as usual.")
    return "\n".join(lines)


def _json_object(text: str) -> Any:
    """The JSON the model answered, tolerating a ```json fence around it."""
    from nlu_tui.engines.llm_answer_json import AnswerTooDeep

    try:
        value = loose_json(text, "{}")
    except AnswerTooDeep as exc:
        raise BadResponseError(f"the model's answer is not a JSON object: {exc}") from None
    if found(value):
        return value
    snippet = text.strip().replace("\n", " ")[:80]
    raise BadResponseError(f"the model's answer is not a JSON object: {snippet!r}")


def parse_llm_answer(text: str, utterance: str, intents: list[str]) -> Prediction:
    """The model's JSON as a Prediction (BadResponseError naming what is wrong)."""
    body = _json_object(text)
    if not isinstance(body, dict):
        raise BadResponseError(f"the model answered a JSON {type(body).__name__}, not an object")
    if "intent" not in body:
        raise BadResponseError("the model's answer has no 'intent'")
    intent = body.get("intent")
    if isinstance(intent, str) and intent.strip().lower() in NO_INTENT:
        intent = None
    if intent is not None and not isinstance(intent, str):
        raise BadResponseError(f"the model's 'intent' is not a name: {intent!r}")
    if intent is not None and intent not in intents:
        raise BadResponseError(f"the model answered an intent not in the training data: {intent!r}")
    confidence = body.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        confidence = None
    elif not 0.0 <= float(confidence) <= 1.0:
        raise BadResponseError(f"the model's confidence is outside 0..1: {confidence!r}")
    entities: list[PredictedEntity] = []
    raw_entities = body.get("entities") or []
    if not isinstance(raw_entities, list):
        raise BadResponseError("the model's 'entities' is not a list")
    for item in raw_entities:
        if not isinstance(item, dict) or not isinstance(item.get("entity"), str):
            raise BadResponseError(f"an entity in the model's answer has no 'entity': {item!r}")
        surface = item.get("text")
        value = item.get("value", surface)
        start = end = None
        if isinstance(surface, str) and surface:
            found = utterance.lower().find(surface.lower())
            if found >= 0:
                start, end = found, found + len(surface)
                surface = utterance[start:end]
        entities.append(
            PredictedEntity(
                name=item["entity"],
                value=value,
                text=surface if isinstance(surface, str) else None,
                start=start,
                end=end,
            )
        )
    entities.sort(key=lambda e: (e.start is None, e.start or 0))
    score = float(confidence) if confidence is not None else None
    return Prediction(
        intent=intent,
        confidence=score,
        ranking=[IntentScore(intent, score if score is not None else 1.0)] if intent else [],
        entities=entities,
        raw=body,
    )


@register("llm")
class LLMEngine(Engine):
    """Settings: ``nlu`` (training data, required), the endpoint (``base_url``, ``model``,
    ``api_key``, ``temperature``, ``max_tokens``, ``headers``; default: the user settings'
    ``llm:`` entry), ``examples`` per intent (default 5)."""

    type_name = "llm"
    capabilities = Capabilities(parent_intent_context=True, entity_order=True, http=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        raw_path = settings.get("nlu") or settings.get("training_data")
        if not raw_path:
            raise EngineError("llm engine: set 'nlu' to the training data (Rasa NLU YAML)")
        self.path = Path(str(raw_path)).expanduser()
        examples = settings.get("examples", 5)
        if not isinstance(examples, int) or isinstance(examples, bool) or examples < 0:
            raise EngineError(f"llm engine: examples must be a whole number ≥ 0, got {examples!r}")
        self.examples = examples
        self.llm = endpoint_config(settings, "llm engine")
        self.data: TrainingData | None = None
        self.system_prompt = ""
        self._client: ChatClient | None = None

    @property
    def secrets(self) -> list[str]:
        return self.llm.secrets

    async def open(self, client: httpx.AsyncClient | None) -> None:
        if self.data is None:
            from nlu_tui.formats.rasa_yaml import load_training_data

            if not self.path.exists():
                raise EngineError(f"llm engine: training data not found: {self.path}")
            try:
                self.data = await asyncio.to_thread(load_training_data, self.path)
            except InputError as exc:
                raise EngineError(f"llm engine: {exc}") from None
            if not self.data.intents:
                raise EngineError(f"llm engine: no intents in {self.path}")
            self.system_prompt = build_system_prompt(self.data, self.examples)
        if self._client is None:
            self._client = ChatClient(self.llm)

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def messages(self, text: str, parents: list[str] | None = None) -> list[dict[str, str]]:
        """The chat messages for one utterance; with a parent-intent path, a context message
        sits between the instructions and the utterance."""
        out = [{"role": "system", "content": self.system_prompt}]
        if parents and self.data is not None:
            out.append({"role": "system", "content": context_message(self.data, list(parents))})
        out.append({"role": "user", "content": text})
        return out

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        if self._client is None or self.data is None:
            await self.open(None)
        assert self._client is not None and self.data is not None
        reply = await self._client.chat(self.messages(text, context.parent_intents))
        prediction = parse_llm_answer(reply.text, text, self.data.intents)
        prediction.latency_ms = reply.latency_ms
        return prediction

    def training_suite_source(self) -> str | None:
        return str(self.path)

    def describe(self) -> dict[str, Any]:
        return {"type": self.type_name, **self.llm.describe(), "examples": self.examples}


def endpoint_config(settings: Mapping[str, Any], who: str) -> LLMConfig:
    """The profile's endpoint, or the user settings' ``llm:`` entry when it names none
    (shared by the ``llm`` engine and the ``llm-commands`` DUT command generator)."""
    keys = ("base_url", "model", "temperature", "max_tokens", "headers", "timeout")
    own = {k: settings[k] for k in keys if settings.get(k) is not None}
    try:
        if "base_url" in own:
            config = llm_config_from_mapping({**own, "retries": 2}, who)
            key = settings.get("api_key")  # already resolved from ${ENV} by the profile reader
            config = replace(config, api_key=str(key) if key else None)
        else:
            config = load_llm_config()
            over = {k: own[k] for k in ("model", "temperature", "max_tokens") if k in own}
            config = replace(config, **over)
    except LLMError as exc:
        raise EngineError(f"{who}: {exc}") from None
    if config.temperature is None:
        config = replace(config, temperature=0.0)
    return config
