"""A generic HTTP engine: any in-house NLU service, described by settings instead of code.

Settings (defaults fit a Rasa-shaped answer, so ``http:URL`` works against ``nlu-tui serve``)::

    url: https://nlu.example.com/parse
    method: POST                     # or GET
    headers: {Authorization: "Bearer ${NLU_TOKEN}"}
    query: {lang: en, q: "{text}"}   # query parameters; placeholders allowed
    body: '{"text": "{text}", "context": {parent}}'   # a string template or a YAML mapping
    intent: intent.name
    confidence: intent.confidence
    ranking: {path: intent_ranking, name: name, score: confidence}
    entities: {path: entities, name: entity, value: value, start: start, end: end}
    no_intent: [None, nlu_fallback]
    traits: traits[*].name           # optional: every string found is a trait (a list of
                                     #   strings too: ``traits: traits``)
    bot: answer.bot                  # optional: the universal bot's child bot that answered
    commands: result.commands        # optional: commands for DUT (strings in commands_dsl,
    commands_dsl: v2                 #   or Rasa-shaped {"command": ...} mappings)
    component: MyCommandGenerator    # optional: who predicted them (default: http)
    llm_output: result.raw           # optional: the LLM's answer, shown in failed-step diffs
    usage: {path: usage, prompt: prompt_tokens, completion: completion_tokens}  # token counts

In a string body, ``{text}`` and ``{parent}`` (the innermost context intent, or null) become
JSON literals, quoted or not in the template (``"{text}"`` and ``{text}`` both work);
``{parents}`` becomes the whole path as a JSON list. For DUT, ``{conversation}`` is the
conversation so far (a list of ``{"actor", "text", "template"}``) and ``{sender}`` an id
unique to the step. In a mapping body and in query parameters
they are substituted into the strings.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from nlu_tui.engines.base import Capabilities, ParseContext, register
from nlu_tui.engines.command_api import CommandEngine, CommandOutput, CommandRequest
from nlu_tui.engines.httpcall import BadResponseError, HttpEngine, safe_url
from nlu_tui.engines.jsonpath import JsonPath, PathError
from nlu_tui.errors import EngineError
from nlu_tui.model import IntentScore, PredictedEntity, Prediction

DEFAULT_BODY = '{"text": "{text}"}'
DEFAULT_RANKING = {"path": "intent_ranking", "name": "name", "score": "confidence"}
DEFAULT_ENTITIES = {
    "path": "entities",
    "name": "entity",
    "value": "value",
    "start": "start",
    "end": "end",
    "text": "text",
    "confidence": "confidence_entity",
    "role": "role",
    "group": "group",
}
DEFAULT_NO_INTENT = ("None", "nlu_fallback")
_NAMES = "text|parent|parents|conversation|sender"
_PLACEHOLDER = re.compile(rf'"\{{({_NAMES})\}}"|\{{({_NAMES})\}}')
_ENTITY_FIELDS = ("name", "value", "start", "end", "text", "confidence", "role", "group")


def _path(value: Any, field: str) -> JsonPath | None:
    if value is None or value == "":
        return None
    try:
        return JsonPath.parse(str(value))
    except PathError as exc:
        raise EngineError(f"http engine: {field}: {exc}") from None


def _subpaths(
    value: Any, defaults: Mapping[str, str], fields: tuple[str, ...], field: str
) -> dict[str, JsonPath | None]:
    if value is None:
        value = dict(defaults)
    if isinstance(value, str):
        value = {**defaults, "path": value}
    if not isinstance(value, Mapping):
        raise EngineError(f"http engine: {field} must be a mapping with 'path' and sub-paths")
    unknown = set(value) - {"path", *fields}
    if unknown:
        raise EngineError(f"http engine: {field}: unknown key(s) {', '.join(sorted(unknown))}")
    return {key: _path(value.get(key), f"{field}.{key}") for key in ("path", *fields)}


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


@register("http")
class GenericHttpEngine(HttpEngine, CommandEngine):
    """Sends one request per utterance as the settings describe and reads the answer by path."""

    type_name = "http"
    capabilities = Capabilities(parent_intent_context=True, entity_order=True, http=True)

    def __init__(self, settings: Mapping[str, Any]) -> None:
        super().__init__(settings)
        url = str(settings.get("url") or "").strip()
        if not url.startswith(("http://", "https://")):
            raise EngineError(f"http engine: url must start with http:// or https://, got {url!r}")
        self.url = url
        self.method = str(settings.get("method") or "POST").upper()
        if self.method not in ("GET", "POST", "PUT"):
            raise EngineError(f"http engine: method must be GET, POST or PUT, not {self.method}")
        headers = settings.get("headers") or {}
        query = settings.get("query") or {}
        if not isinstance(headers, Mapping) or not isinstance(query, Mapping):
            raise EngineError("http engine: headers and query must be mappings")
        self.headers = {str(k): str(v) for k, v in headers.items()}
        self.query = {str(k): str(v) for k, v in query.items()}
        body = settings.get("body", None if self.method == "GET" else DEFAULT_BODY)
        if body is not None and not isinstance(body, str | Mapping | list):
            raise EngineError("http engine: body must be a string template or a mapping")
        self.body = body
        self.intent_path = _path(settings.get("intent", "intent.name"), "intent")
        self.confidence_path = _path(settings.get("confidence", "intent.confidence"), "confidence")
        self.ranking = _subpaths(
            settings.get("ranking"), DEFAULT_RANKING, ("name", "score"), "ranking"
        )
        self.entity_paths = _subpaths(
            settings.get("entities"), DEFAULT_ENTITIES, _ENTITY_FIELDS, "entities"
        )
        self.traits_path = _path(settings.get("traits"), "traits")
        self.bot_path = _path(settings.get("bot"), "bot")
        no_intent = settings.get("no_intent", list(DEFAULT_NO_INTENT))
        if isinstance(no_intent, str):
            no_intent = [no_intent]
        self.no_intent = {str(n) for n in no_intent or []}
        self.commands_path = _path(settings.get("commands"), "commands")
        self.commands_dsl = str(settings.get("commands_dsl") or "v2")
        if self.commands_dsl not in ("v1", "v2", "v3"):
            raise EngineError("http engine: commands_dsl must be v1, v2 or v3")
        self.component = str(settings.get("component") or "http")
        self.llm_output_path = _path(settings.get("llm_output"), "llm_output")
        self.usage = (
            _subpaths(settings.get("usage"), {}, ("prompt", "completion"), "usage")
            if settings.get("usage") is not None
            else None
        )
        if self.commands_path is not None:
            self.capabilities = Capabilities(
                parent_intent_context=True, entity_order=True, http=True, commands=True
            )

    # --- request -------------------------------------------------------------------------------

    @staticmethod
    def _values(
        text: str, context: ParseContext, extra: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        parents = list(context.parent_intents)
        values: dict[str, Any] = {
            "text": text,
            "parent": parents[-1] if parents else None,
            "parents": parents,
            "conversation": [],
            "sender": None,
        }
        values.update(extra or {})
        return values

    def render_body(
        self, text: str, context: ParseContext, extra: Mapping[str, Any] | None = None
    ) -> bytes | None:
        """The request body: a JSON document with the placeholders filled in."""
        if self.body is None:
            return None
        values = self._values(text, context, extra)
        if isinstance(self.body, str):

            def fill(match: re.Match[str]) -> str:
                return json.dumps(values[match.group(1) or match.group(2)], ensure_ascii=False)

            return _PLACEHOLDER.sub(fill, self.body).encode("utf-8")
        return json.dumps(_fill_structure(self.body, values), ensure_ascii=False).encode("utf-8")

    async def _send(
        self, text: str, context: ParseContext, extra: Mapping[str, Any] | None = None
    ) -> tuple[Any, float]:
        values = self._values(text, context, extra)
        params = {k: _query_value(_fill_string(v, values)) for k, v in self.query.items()}
        content = self.render_body(text, context, extra)
        headers = dict(self.headers)
        if content is not None:
            headers.setdefault("Content-Type", "application/json")
        return await self.request_json(
            self.method, self.url, params=params or None, headers=headers, content=content
        )

    async def parse(self, text: str, context: ParseContext) -> Prediction:
        body, latency = await self._send(text, context)
        prediction = self.read_answer(body, text)
        prediction.latency_ms = latency
        return prediction

    async def predict_commands(self, request: CommandRequest) -> CommandOutput:
        """DUT: one request with the conversation so far; commands read at ``commands``."""
        from nlu_tui.dialogue_understanding.commands import (
            command_from_json,
            command_syntax,
            parse_commands,
        )

        if self.commands_path is None:
            raise EngineError("http engine: set 'commands' (a JSON path) to run DUT")
        conversation = [
            {"actor": t.actor, "text": t.text, "template": t.template} for t in request.conversation
        ]
        extra = {"conversation": conversation, "sender": request.conversation_id}
        body, latency = await self._send(request.text, ParseContext(), extra)
        found = self.commands_path.find(body)
        if found is None:
            found = []
        if not isinstance(found, list):
            found = [found]
        syntax = command_syntax(self.commands_dsl)  # the run's custom commands included
        commands = []
        for item in found:
            if isinstance(item, str):
                commands.extend(parse_commands(item, syntax))
            elif isinstance(item, dict) and (command := command_from_json(item)) is not None:
                commands.append(command)
            else:
                raise BadResponseError(f"a command at {self.commands_path.text!r} is not usable")
        meta: dict[str, Any] = {}
        if self.llm_output_path is not None and (raw := self.llm_output_path.find(body)):
            meta["choices"] = [str(raw)]
        usage = {}
        if self.usage is not None and self.usage["path"] is not None:
            found_usage = self.usage["path"].find(body)
            for key, sub in (("prompt_tokens", "prompt"), ("completion_tokens", "completion")):
                path = self.usage[sub]
                value = _number(path.find_in_item(found_usage)) if path is not None else None
                if value is not None:
                    usage[key] = value
        if usage:
            meta["usage"] = usage
        prompts = (
            [
                {
                    "component_name": self.component,
                    "prompt_name": "http",
                    "user_prompt": None,
                    "llm_response_metadata": meta,
                }
            ]
            if meta
            else []
        )
        return CommandOutput({self.component: commands}, prompts, latency)

    # --- answer --------------------------------------------------------------------------------

    def read_answer(self, body: Any, text: str) -> Prediction:
        if not isinstance(body, dict | list):
            raise BadResponseError(f"answer is a JSON {type(body).__name__}, not an object")
        ranking: list[IntentScore] = []
        rank_path = self.ranking["path"]
        if rank_path is not None:
            for item in rank_path.items(body):
                name = self.ranking["name"].find_in_item(item) if self.ranking["name"] else None
                score = self.ranking["score"].find_in_item(item) if self.ranking["score"] else None
                if isinstance(name, str) and name not in self.no_intent:
                    ranking.append(IntentScore(name, _number(score) or 0.0))
        name = self.intent_path.find(body) if self.intent_path else None
        if name is not None and not isinstance(name, str):
            raise BadResponseError(f"intent at {self.intent_path.text!r} is not a string")  # type: ignore[union-attr]
        if name is None and self.intent_path is None and ranking:
            name = max(ranking, key=lambda s: s.confidence).name
        confidence = _number(self.confidence_path.find(body)) if self.confidence_path else None
        intent = name if name and name not in self.no_intent else None
        if intent is not None and confidence is None:
            confidence = next((s.confidence for s in ranking if s.name == intent), None)
        traits = self._traits(body) if self.traits_path is not None else []
        bot = self.bot_path.find(body) if self.bot_path is not None else None
        return Prediction(
            intent=intent,
            confidence=confidence,
            ranking=ranking,
            entities=self._entities(body, text),
            traits=traits,
            raw=body,
            bot=bot if isinstance(bot, str) and bot.strip() else None,
        )

    def _traits(self, body: Any) -> list[str]:
        """Every string the ``traits`` path reaches, the strings of a list it reaches included
        (``traits: traits`` on ``["a", "b"]`` reads as ``traits[*]``). Objects are refused with
        the path that would read them: silently finding no traits would score every case."""
        assert self.traits_path is not None
        traits: list[str] = []
        for found in self.traits_path.find_all(body):
            for value in found if isinstance(found, list) else [found]:
                if isinstance(value, str):
                    if value.strip() and value.strip() not in traits:
                        traits.append(value.strip())
                elif isinstance(value, dict):
                    path = self.traits_path.text
                    member = next((k for k, v in value.items() if isinstance(v, str)), "name")
                    fix = f"{path}[*].{member}" if isinstance(found, list) else f"{path}.{member}"
                    raise BadResponseError(
                        f"traits at {path!r} are objects, not names: name the member that "
                        f"holds each name, e.g. traits: {fix}"
                    )
        return traits

    def _entities(self, body: Any, text: str) -> list[PredictedEntity]:
        paths = self.entity_paths
        if paths["path"] is None:
            return []
        out = []
        for item in paths["path"].items(body):

            def get(key: str, item: Any = item) -> Any:
                path = paths[key]
                return path.find_in_item(item) if path is not None else None

            name = get("name")
            if not isinstance(name, str):
                raise BadResponseError("an entity has no name at the configured path")
            start, end = get("start"), get("end")
            start = start if isinstance(start, int) and not isinstance(start, bool) else None
            end = end if isinstance(end, int) and not isinstance(end, bool) else None
            surface = get("text")
            if not isinstance(surface, str):
                surface = text[start:end] if start is not None and end is not None else None
            role, group = get("role"), get("group")
            out.append(
                PredictedEntity(
                    name=name,
                    value=get("value"),
                    text=surface,
                    start=start,
                    end=end,
                    confidence=_number(get("confidence")),
                    role=role if isinstance(role, str) else None,
                    group=group if isinstance(group, str) else None,
                )
            )
        return out

    def describe(self) -> dict[str, Any]:
        return {"type": self.type_name, "url": safe_url(self.url), "method": self.method}


def _fill_string(template: str, values: Mapping[str, Any]) -> Any:
    """A string with placeholders filled; a string that is only a placeholder takes its value."""
    match = re.fullmatch(rf"\{{({_NAMES})\}}", template)
    if match:
        return values[match.group(1)]

    def fill(m: re.Match[str]) -> str:
        value = values[m.group(1)]
        if isinstance(value, list):
            if all(isinstance(v, str) for v in value):
                return ",".join(value)
            return json.dumps(value, ensure_ascii=False)
        return "" if value is None else str(value)

    return re.sub(rf"\{{({_NAMES})\}}", fill, template)


def _query_value(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(value)
    return "" if value is None else str(value)


def _fill_structure(node: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(node, str):
        return _fill_string(node, values)
    if isinstance(node, Mapping):
        return {str(k): _fill_structure(v, values) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill_structure(v, values) for v in node]
    return node
