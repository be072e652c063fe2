"""Dialogflow CX test cases, in the JSON shape ``ImportTestCases`` reads and ``ExportTestCases``
writes (``dataFormat: JSON``): test cases as the REST API's ``TestCase`` resource
(``projects.locations.agents.testCases``): ``displayName``, ``tags``, ``notes``, ``testConfig``
and ``testCaseConversationTurns``, each turn a ``userInput`` (``input.text.text``) and the
``virtualAgentOutput`` expected of the agent: ``triggeredIntent``, ``currentPage``,
``sessionParameters``, ``textResponses``.

A file holds a JSON array of test cases, one test case, or ``{"testCases": [...]}`` (the list
method's answer). Each text turn becomes one case:

- the utterance is the turn's text; the expected intent is ``triggeredIntent.displayName`` (no
  triggered intent: no intent expected);
- the expected entities are the session parameters this turn sets or changes (parameters set by
  earlier turns, or injected by the test with ``injectedParameters``, are not this turn's to
  extract); a structured value keeps its JSON;
- everything else (the test case's name, notes, config, the turn's language, page, text
  responses, parameters it clears...) is kept in the case's ``extra["dialogflow_cx"]``, so an
  export writes the test cases back as they were. Tags go to the first turn's case.

Warnings say what our cases cannot do: a multi-turn test case runs one turn at a time without
the turns before it, and the expected page and agent responses are kept but not checked. Turns
whose input is not text (an event, DTMF, an intent) cannot be a case: they are left out, named.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.fileio import atomic_write_text
from nlu_tui.formats.case_losses import case_fields_lost
from nlu_tui.formats.native_reader import suite_stem
from nlu_tui.formats.registry import ImportResult
from nlu_tui.model import ExpectedEntity, ExpectedIntent, Suite, TestCase, ValueKind

NAME = "dialogflow-cx"
EXTENSIONS = (".json",)
DESCRIPTION = "Dialogflow CX test cases (ImportTestCases / ExportTestCases JSON)"
EXTRA = "dialogflow_cx"
MAX_DISPLAY_NAME = 200
"""CX's limit on a test case's display name."""


def sniff(path: Path, head: str) -> bool:
    return '"testCaseConversationTurns"' in head


def _test_cases(data: Any, path: Path) -> list[Any]:
    if isinstance(data, dict) and isinstance(data.get("testCases"), list):
        return list(data["testCases"])
    if isinstance(data, dict):
        return [data]
    if isinstance(data, list):
        return data
    raise InputError('expected a test case, an array of them or {"testCases": [...]}', path=path)


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def read(path: Path) -> ImportResult:
    from nlu_tui.jsonfile import read_json

    items = _test_cases(read_json(path), path)
    cases: list[TestCase] = []
    warnings: list[str] = []
    multi = 0
    pages = responses = 0
    for n, item in enumerate(items, start=1):
        where: dict[str, Any] = {"path": path, "line": n, "kind": "case"}
        if not isinstance(item, dict):
            raise InputError("a test case must be a JSON object", **where)
        name = item.get("displayName")
        if not isinstance(name, str) or not name:
            raise InputError("a test case needs 'displayName'", field="displayName", **where)
        turns = item.get("testCaseConversationTurns") or []
        if not isinstance(turns, list):
            raise InputError(
                "'testCaseConversationTurns' must be an array",
                field="testCaseConversationTurns",
                **where,
            )
        header = {
            k: v for k, v in item.items() if k not in ("testCaseConversationTurns", "displayName")
        }
        tags = header.pop("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise InputError("'tags' must be an array of strings", field="tags", **where)
        before: dict[str, Any] = {}
        first = True
        text_turns = 0
        for t, turn in enumerate(turns, start=1):
            field = f"testCaseConversationTurns[{t - 1}]"
            if not isinstance(turn, dict):
                raise InputError("a turn must be a JSON object", field=field, **where)
            user = _object(turn.get("userInput"))
            agent = dict(_object(turn.get("virtualAgentOutput")))
            query = _object(user.get("input"))
            text: dict[str, Any] | None = (
                query["text"] if isinstance(query.get("text"), dict) else None
            )
            said = text.get("text") if text is not None else None
            if not isinstance(said, str) or not said.strip():
                warnings.append(
                    f"{path}, case {n} ({name}), turn {t}: its input is not text (an event, "
                    "DTMF or an intent); left out"
                )
                continue
            text_turns += 1
            intent = agent.pop("triggeredIntent", None)
            kept_intent: dict[str, Any] = {}
            intent_name = ""
            if isinstance(intent, dict):
                intent_name = str(intent.get("displayName") or "")
                kept_intent = {k: v for k, v in intent.items() if k != "displayName"}
            params = agent.pop("sessionParameters", None)
            params = params if isinstance(params, dict) else {}
            injected = user.get("injectedParameters")
            injected = injected if isinstance(injected, dict) else {}
            entities = []
            nulls = []
            from_injection = []
            for key, value in params.items():
                if key in before and before[key] == value:
                    continue
                if key in injected and injected[key] == value:
                    from_injection.append(key)  # set by the test, not read from the text
                    continue
                if value is None:
                    nulls.append(key)
                    continue
                structured = isinstance(value, dict | list)
                entities.append(
                    ExpectedEntity(
                        str(key),
                        _value_text(value),
                        kind=ValueKind.EXACT if not structured else ValueKind.AUTO,
                        json_value=value if structured or not isinstance(value, str) else None,
                    )
                )
            removed = [k for k in before if k not in params]
            if "currentPage" in agent:
                pages += 1
            if agent.get("textResponses"):
                responses += 1
            cx: dict[str, Any] = {"test_case": name, "turn": t}
            if first:
                cx["case"] = header
            rest_input = {k: v for k, v in query.items() if k != "text"}
            rest_text = {k: v for k, v in text.items() if k != "text"} if text else {}
            rest_user = {k: v for k, v in user.items() if k != "input"}
            if rest_input:
                cx["input"] = rest_input
            if rest_text:
                cx["text"] = rest_text
            if rest_user:
                cx["user_input"] = rest_user
            if agent:
                cx["agent_output"] = agent
            if kept_intent:
                cx["triggered_intent"] = kept_intent
            if intent is not None and not isinstance(intent, dict):
                cx["triggered_intent_value"] = intent
            if nulls:
                cx["parameters_null"] = nulls
            if from_injection:
                cx["parameters_injected"] = from_injection
            if removed:
                cx["parameters_removed"] = removed
            if "sessionParameters" not in (turn.get("virtualAgentOutput") or {}):
                cx["no_parameters"] = True
            extra_turn = {
                k: v for k, v in turn.items() if k not in ("userInput", "virtualAgentOutput")
            }
            if extra_turn:
                cx["turn_fields"] = extra_turn
            if "virtualAgentOutput" not in turn:
                cx["no_agent_output"] = True
            cases.append(
                TestCase(
                    utterance=said,
                    intents=[ExpectedIntent(intent_name)] if intent_name else [],
                    entities=entities,
                    tags=list(tags) if first else [],
                    extra={EXTRA: cx},
                    line=n,
                )
            )
            first = False
            before = dict(params)
        if text_turns > 1:
            multi += 1
        if first:  # no text turn: keep the test case's header on nothing; say so
            warnings.append(f"{path}, case {n} ({name}): no text turn; left out")
    if multi:
        warnings.append(
            f"{path}: {multi} multi-turn test case(s) imported one case per turn; each turn runs "
            "on its own, without the turns before it (kept for export)"
        )
    if pages:
        warnings.append(f"{path}: the expected page of {pages} turn(s) is kept but not checked")
    if responses:
        warnings.append(
            f"{path}: the expected agent responses of {responses} turn(s) are kept but not checked"
        )
    return ImportResult(Suite(name=suite_stem(Path(path)), cases=cases), warnings)


# --- writing -------------------------------------------------------------------------------------


def _param_value(entity: ExpectedEntity) -> Any:
    if entity.json_value is not None:
        return entity.json_value
    return entity.value


def _lost(case: TestCase) -> list[str]:
    lost = case_fields_lost(case, held=("tags",))  # a CX test case has tags
    for e in case.entities:
        if e.kind in (ValueKind.REGEX, ValueKind.COMPOSITE, ValueKind.MULTI) or e.alternatives:
            lost.append(f"the value kind/alternatives of {e.name!r} (written as its text)")
        if e.role or e.group or e.start is not None:
            lost.append(f"the role/group/position of {e.name!r}")
    return lost


def dumps(suite: Suite) -> tuple[str, list[str]]:
    """The suite as CX test cases (a JSON array), and what they could not hold."""
    warnings: list[str] = []
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    current_key: str | None = None
    params: dict[str, Any] = {}
    for case in suite.cases:
        cx = case.extra.get(EXTRA) if isinstance(case.extra.get(EXTRA), dict) else None
        lost = _lost(case)
        if lost:
            warnings.append(f"case {case.id}: a CX test case cannot hold {', '.join(lost)}")
        key = str(cx.get("test_case")) if cx is not None and cx.get("test_case") else None
        if key is None or key != current_key or "case" in (cx or {}):
            name = key or (case.utterance if len(case.utterance) <= MAX_DISPLAY_NAME else case.id)
            header = cx.get("case") if cx is not None and isinstance(cx.get("case"), dict) else {}
            current = {**header, "displayName": name}
            if case.tags:
                current["tags"] = list(case.tags)
            current["testCaseConversationTurns"] = []
            order = ["name", "tags", "displayName", "notes", "testConfig"]
            current = {
                **{k: current[k] for k in order if k in current},
                **{k: v for k, v in current.items() if k not in order},
            }
            out.append(current)
            current_key = key
            params = {}
        elif case.tags:
            warnings.append(f"case {case.id}: tags of a later turn go to its test case")
            tags = current.setdefault("tags", []) if current is not None else []
            tags.extend(t for t in case.tags if t not in tags)
        assert current is not None
        cx = cx or {}
        text = {"text": case.utterance, **(cx.get("text") or {})}
        query = {"text": text, **(cx.get("input") or {})}
        user = {"input": query, **(cx.get("user_input") or {})}
        agent = dict(cx.get("agent_output") or {})
        params = {k: v for k, v in params.items() if k not in (cx.get("parameters_removed") or [])}
        injected = (cx.get("user_input") or {}).get("injectedParameters") or {}
        for key_injected in cx.get("parameters_injected") or []:
            if key_injected in injected:
                params[str(key_injected)] = injected[key_injected]
        for entity in case.entities:
            params[entity.name] = _param_value(entity)
        for key_null in cx.get("parameters_null") or []:
            params[str(key_null)] = None
        ordered: dict[str, Any] = {}
        if not cx.get("no_parameters") or params:
            ordered["sessionParameters"] = dict(params)
        if "triggered_intent_value" in cx:
            ordered["triggeredIntent"] = cx["triggered_intent_value"]
        elif case.intents:
            ordered["triggeredIntent"] = {
                **(cx.get("triggered_intent") or {}),
                "displayName": case.intents[0].name,
            }
        agent = {**ordered, **agent}
        turn: dict[str, Any] = {"userInput": user}
        if agent or not cx.get("no_agent_output"):
            turn["virtualAgentOutput"] = agent
        turn.update(cx.get("turn_fields") or {})
        current["testCaseConversationTurns"].append(turn)
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n", warnings


def write(suite: Suite, path: Path) -> list[str]:
    text, warnings = dumps(suite)
    atomic_write_text(Path(path), text)
    return warnings
