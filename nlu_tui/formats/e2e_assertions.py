"""Reading a user step's ``assertions:`` list (Rasa Pro ≥ 3.12) into
:mod:`nlu_tui.conversation_assertions`, refusing what Rasa Pro 3.21 refuses.

The checks follow ``rasa/e2e_test/schema/assertions_schema.yml``, its pykwalify extension
``require_assertion_keys`` (``pykwalify_extensions.py``) and the ``from_dict`` constructors of
``rasa/e2e_test/assertions.py``; each error names the file, the line and the field. The line
an assertion reports is the one Rasa reports (``lc.line + 1`` of the mapping its ``from_dict``
reads: the list item for most types, the inner mapping for ``bot_did_not_utter`` and the
generative ones, the slot's item for slot assertions).

Rasa Pro's Mantle-engine keys (``skill_*``, ``memory_*``, ``ordered_block_*``, ``tool_*``) are
refused: Rasa refuses them on a CALM assistant, and nlu-tui tests no Mantle engine.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from nlu_tui import conversation_assertions as a
from nlu_tui.errors import InputError
from nlu_tui.formats import yaml_nodes as yn

MANTLE_KEYS = frozenset(
    {
        "skill_activated",
        "skill_completed",
        "skill_cancelled",
        "skill_interrupted",
        "skill_resumed",
        "ordered_block_entered",
        "ordered_block_completed",
        "ordered_block_cancelled",
        "ordered_block_interrupted",
        "ordered_block_resumed",
        "memory_was_set",
        "memory_was_not_set",
        "memory_was_cleared",
        "tool_executed",
        "tools_within_one_turn",
        "sequencing",
    }
)


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, message: str, node: yaml.Node, field: str) -> InputError:
        return InputError(message, path=self.path, line=yn.line_of(node), field=field)

    def string(self, node: yaml.Node, field: str, *, empty_ok: bool = True) -> str:
        """A ``type: str`` value (a quoted or plain text, not a number, bool or null)."""
        value = yn.scalar_value(node) if isinstance(node, yaml.ScalarNode) else None
        if not isinstance(value, str):
            raise self.error(f"'{field}' must be a text value", node, field)
        if not empty_ok and not value.strip():
            raise self.error(f"'{field}' is empty", node, field)
        return value

    def mapping(
        self, node: yaml.Node, field: str, allowed: tuple[str, ...]
    ) -> dict[str, yaml.Node]:
        if isinstance(node, yaml.ScalarNode) and yn.scalar_value(node) is None:
            raise self.error(f"'{field}' must not be empty", node, field)
        out: dict[str, yaml.Node] = {}
        for key, key_node, value in yn.pairs(node, self.path, field):
            if key not in allowed:
                raise self.error(
                    f"unknown key '{key}' in '{field}' (expected {', '.join(allowed)})",
                    key_node,
                    f"{field}.{key}",
                )
            out[key] = value
        return out

    def optional_string(self, fields: dict[str, yaml.Node], key: str, owner: str) -> str | None:
        node = fields.get(key)
        return None if node is None else self.string(node, f"{owner}.{key}")

    # --- the assertion types ----------------------------------------------------------------

    def operator_form(self, node: yaml.Node, key: str) -> tuple[str, list[str]]:
        """Rasa's ``run_common_dict_assertion_validations``: ``operator`` any/all (any case)
        and a non-empty ``flow_ids`` list."""
        data = yn.to_python(node, self.path, 6)
        assert isinstance(data, dict)
        if not data:
            raise self.error(f"the '{key}' assertion cannot be an empty dictionary", node, key)
        operator = data.get("operator")
        if operator is None:
            raise self.error(f"the 'operator' key is missing in the '{key}' assertion", node, key)
        if not isinstance(operator, str) or operator.lower() not in ("all", "any"):
            raise self.error(
                f"the 'operator' in the '{key}' assertion must be either 'all' or 'any' "
                "(case insensitive)",
                node,
                f"{key}.operator",
            )
        ids = data.get("flow_ids")
        if ids is None:
            raise self.error(f"the 'flow_ids' key is missing in the '{key}' assertion", node, key)
        if not isinstance(ids, list):
            raise self.error(
                f"the 'flow_ids' in the '{key}' assertion must be a list", node, f"{key}.flow_ids"
            )
        if not ids:
            raise self.error(
                f"the 'flow_ids' in the '{key}' assertion must be a non-empty list",
                node,
                f"{key}.flow_ids",
            )
        return operator.lower(), [str(i) for i in ids]

    def flow_started(self, node: yaml.Node, line: int) -> a.Assertion:
        key = "flow_started"
        if isinstance(node, yaml.ScalarNode):
            value = yn.scalar_value(node)
            if value is None:
                raise self.error(f"'{key}' must not be empty", node, key)
            if not isinstance(value, str):
                raise self.error(
                    f"the '{key}' assertion must be either a string or a dictionary", node, key
                )
            if not value.strip():
                raise self.error(f"the '{key}' assertion cannot be an empty string", node, key)
            return a.FlowStarted(line=line, flow_id=value)
        if not isinstance(node, yaml.MappingNode):
            raise self.error(
                f"the '{key}' assertion must be either a string or a dictionary", node, key
            )
        operator, ids = self.operator_form(node, key)
        if operator == "all" and len(ids) != 1:
            raise self.error(
                f"when using the 'all' operator in the '{key}' assertion, exactly one flow ID "
                "must be provided",
                node,
                f"{key}.flow_ids",
            )
        return a.FlowStarted(line=line, operator=operator, flow_ids=ids)

    def flow_ended(self, node: yaml.Node, line: int, key: str) -> a.Assertion:
        fields = self.mapping(node, key, ("flow_id", "flow_step_id"))
        if "flow_id" not in fields:
            raise self.error(f"'{key}' needs a 'flow_id'", node, f"{key}.flow_id")
        flow_id = self.string(fields["flow_id"], f"{key}.flow_id")
        step_id = self.optional_string(fields, "flow_step_id", key)
        cls = a.FlowCompleted if key == "flow_completed" else a.FlowCancelled
        return cls(line=line, flow_id=flow_id, flow_step_id=step_id)

    def pattern_clarification(self, node: yaml.Node, line: int) -> a.Assertion:
        key = "pattern_clarification_contains"
        if isinstance(node, yaml.SequenceNode):
            names = []
            for item in node.value:
                value = yn.scalar_value(item) if isinstance(item, yaml.ScalarNode) else None
                if not isinstance(value, str) or not value.strip():
                    raise self.error(
                        f"all items in the '{key}' list must be non-empty strings", item, key
                    )
                names.append(value)
            if not names:
                raise self.error(f"the '{key}' assertion cannot be an empty list", node, key)
            return a.PatternClarificationContains(line=line, flow_names=names)
        if not isinstance(node, yaml.MappingNode):
            raise self.error(
                f"the '{key}' assertion must be either a list or a dictionary", node, key
            )
        operator, ids = self.operator_form(node, key)
        return a.PatternClarificationContains(line=line, operator=operator, flow_ids=ids)

    def slots(self, node: yaml.Node, key: str) -> list[a.AssertedSlot]:
        if isinstance(node, yaml.ScalarNode) and yn.scalar_value(node) is None:
            raise self.error(f"'{key}' must not be empty", node, key)
        out = []
        for item in yn.items(node, self.path, key):
            fields = self.mapping(item, key, ("name", "value"))
            if "name" not in fields:
                raise self.error(f"each '{key}' item needs a 'name'", item, f"{key}.name")
            slot = a.AssertedSlot(
                name=self.string(fields["name"], f"{key}.name"), line=yn.line_of(item)
            )
            if "value" in fields:
                slot.value = yn.to_python(fields["value"], self.path, 8)
            out.append(slot)
        return out

    def buttons(self, node: yaml.Node, key: str) -> list[a.Button]:
        if isinstance(node, yaml.ScalarNode) and yn.scalar_value(node) is None:
            raise self.error(
                f"the 'buttons' key in the '{key}' assertion is mapped to a null value or "
                "empty list",
                node,
                f"{key}.buttons",
            )
        out = []
        for item in yn.items(node, self.path, f"{key}.buttons"):
            fields = self.mapping(item, f"{key}.buttons", ("title", "payload"))
            out.append(
                a.Button(
                    title=self.optional_string(fields, "title", f"{key}.buttons"),
                    payload=self.optional_string(fields, "payload", f"{key}.buttons"),
                )
            )
        if not out:
            raise self.error(
                f"the 'buttons' key in the '{key}' assertion is mapped to a null value or "
                "empty list",
                node,
                f"{key}.buttons",
            )
        return out

    def bot(self, node: yaml.Node, line: int, key: str) -> a.Assertion:
        fields = self.mapping(node, key, ("utter_name", "text_matches", "buttons"))
        if not fields:
            raise self.error(f"the '{key}' assertion is an empty dictionary", node, key)
        utter = self.optional_string(fields, "utter_name", key)
        pattern = self.optional_string(fields, "text_matches", key)
        buttons = self.buttons(fields["buttons"], key) if "buttons" in fields else []
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise self.error(
                    f"'text_matches' is not a valid regular expression: {exc}",
                    fields["text_matches"],
                    f"{key}.text_matches",
                ) from None
        if not utter and not pattern and not buttons:
            raise self.error(
                f"a '{key}' assertion is empty, it should contain at least one of the allowed "
                "properties: 'utter_name', 'text_matches', 'buttons'",
                node,
                key,
            )
        if key == "bot_uttered":
            return a.BotUttered(line=line, utter_name=utter, text_matches=pattern, buttons=buttons)
        return a.BotDidNotUtter(
            line=yn.line_of(node), utter_name=utter, text_matches=pattern, buttons=buttons
        )

    def generative(self, node: yaml.Node, key: str) -> a.Assertion:
        grounded = key == "generative_response_is_grounded"
        allowed = ("threshold", "utter_name", "utter_source") + (
            ("ground_truth",) if grounded else ()
        )
        fields = self.mapping(node, key, allowed)
        if "threshold" not in fields:
            raise self.error(f"'{key}' needs a 'threshold'", node, f"{key}.threshold")
        threshold = yn.to_python(fields["threshold"], self.path, 8)
        if not isinstance(threshold, int | float) or isinstance(threshold, bool):
            raise self.error(
                "'threshold' must be a number", fields["threshold"], f"{key}.threshold"
            )
        cls = a.GenerativeResponseIsGrounded if grounded else a.GenerativeResponseIsRelevant
        return cls(
            line=yn.line_of(node),
            threshold=float(threshold),
            utter_name=self.optional_string(fields, "utter_name", key),
            utter_source=self.optional_string(fields, "utter_source", key),
            ground_truth=self.optional_string(fields, "ground_truth", key) if grounded else None,
        )

    def one(self, item: yaml.Node) -> a.Assertion:
        line = yn.line_of(item)
        entries = list(yn.pairs(item, self.path, "assertions"))
        if not entries:
            raise self.error("an assertion is one 'type:' key", item, "assertions")
        # Rasa's create_typed_assertion reads the item's first key
        key, key_node, value = entries[0]
        if key in MANTLE_KEYS:
            raise self.error(
                f"'{key}' is an assertion of Rasa Pro's Mantle engine; Rasa Pro refuses it on a "
                "CALM assistant and nlu-tui does not support it",
                key_node,
                key,
            )
        if key not in a.TYPES:
            raise self.error(
                f"invalid assertion type '{key}' (expected one of {', '.join(a.TYPES)})",
                key_node,
                key,
            )
        if key == "flow_started":
            made = self.flow_started(value, line)
        elif key in ("flow_completed", "flow_cancelled"):
            made = self.flow_ended(value, line, key)
        elif key == "pattern_clarification_contains":
            made = self.pattern_clarification(value, line)
        elif key == "action_executed":
            made = a.ActionExecuted(line=line, action_name=self.string(value, key))
        elif key == "slot_was_set":
            made = a.SlotWasSet(line=line, slots=self.slots(value, key))
        elif key == "slot_was_not_set":
            made = a.SlotWasNotSet(line=line, slots=self.slots(value, key))
        elif key in ("bot_uttered", "bot_did_not_utter"):
            made = self.bot(value, line, key)
        else:
            made = self.generative(value, key)
        made.written = yn.to_python(item, self.path, 5)
        return made


def read_assertions(node: yaml.Node, path: Path) -> list[a.Assertion]:
    """A user step's ``assertions:`` value (a list; ``[]`` is allowed, as in Rasa)."""
    if isinstance(node, yaml.ScalarNode) and yn.scalar_value(node) is None:
        raise InputError(
            "'assertions' must be a list of assertions, not empty",
            path=path,
            line=yn.line_of(node),
            field="assertions",
        )
    reader = _Reader(path)
    return [reader.one(item) for item in yn.items(node, path, "assertions")]


def read_order_flag(node: yaml.Node, path: Path) -> bool:
    value: Any = yn.scalar_value(node) if isinstance(node, yaml.ScalarNode) else None
    if not isinstance(value, bool):
        raise InputError(
            "'assertion_order_enabled' must be true or false",
            path=path,
            line=yn.line_of(node),
            field="assertion_order_enabled",
        )
    return value


# --- stub_custom_actions (rasa/e2e_test/schema/e2e_test_schema.yml) ---------------------------

STUB_NAME = re.compile(r"^[a-zA-Z_]+([a-zA-Z0-9_]*::?)*[a-zA-Z0-9_]*$")
"""Rasa's pattern for a stubbed action's name (``action_x`` or ``test_case::action_x``)."""
STUB_EVENTS = frozenset(
    {
        "user",
        "bot",
        "slot",
        "session_started",
        "action",
        "reset_slots",
        "restart",
        "reminder",
        "cancel_reminder",
        "pause",
        "resume",
        "followup",
        "export",
        "undo",
        "rewind",
        "entities",
        "active_loop",
        "agent",
        "loop_interrupted",
        "action_execution_rejected",
    }
)
_TEXT, _MAP, _LIST, _BOOL, _NUMBER, _ANY = "text", "mapping", "list", "boolean", "number", "any"
STUB_EVENT_KEYS = {
    "event": _TEXT,
    "timestamp": _NUMBER,
    "metadata": _MAP,
    "text": _TEXT,
    "parse_data": _MAP,
    "input_channel": _TEXT,
    "data": _MAP,
    "name": _TEXT,
    "value": _ANY,
    "entities": _ANY,
    "intent": _TEXT,
    "kill_on_user_message": _BOOL,
    "date_time": _TEXT,
    "policy": _TEXT,
    "confidence": _NUMBER,
    "is_interrupted": _BOOL,
}
STUB_RESPONSE_KEYS = {
    "text": _TEXT,
    "buttons": _LIST,
    "response": _TEXT,
    "image": _TEXT,
    "attachment": _TEXT,
    "elements": _LIST,
    "custom": _MAP,
}


def _typed(value: Any, kind: str) -> bool:
    if kind == _TEXT:
        return isinstance(value, str)
    if kind == _MAP:
        return isinstance(value, dict)
    if kind == _LIST:
        return isinstance(value, list)
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _NUMBER:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return True


def read_stubs(node: yaml.Node, path: Path) -> dict[str, Any]:
    """``stub_custom_actions:`` checked against Rasa's schema: names as Rasa's pattern, each
    with ``events`` (known event types and keys) and ``responses`` (known keys, buttons with
    ``title``/``payload`` text)."""
    out: dict[str, Any] = {}
    if isinstance(node, yaml.ScalarNode) and yn.scalar_value(node) is None:
        return out
    for name, key_node, value in yn.pairs(node, path, "stub_custom_actions"):
        where = f"stub_custom_actions.{name}"

        def bad(message: str, at: yaml.Node, field: str = where) -> InputError:
            return InputError(message, path=path, line=yn.line_of(at), field=field)

        if not STUB_NAME.match(name):
            raise bad(f"stubbed action name {name!r} does not match Rasa's pattern", key_node)
        for part, part_node, items in yn.pairs(value, path, where):
            if part not in ("events", "responses"):
                raise bad(f"unknown key '{part}' (expected events, responses)", part_node)
            allowed = STUB_EVENT_KEYS if part == "events" else STUB_RESPONSE_KEYS
            for item in yn.items(items, path, f"{where}.{part}"):
                for key, k_node, v_node in yn.pairs(item, path, f"{where}.{part}"):
                    field = f"{where}.{part}.{key}"
                    if key not in allowed:
                        raise bad(f"unknown key '{key}' in a stubbed {part[:-1]}", k_node, field)
                    got = yn.to_python(v_node, path, 8)
                    if not _typed(got, allowed[key]):
                        raise bad(f"'{key}' must be a {allowed[key]}", v_node, field)
                    if part == "events" and key == "event" and got not in STUB_EVENTS:
                        raise bad(f"unknown event type {got!r}", v_node, field)
                    if key == "buttons":
                        for button in got:
                            ok = isinstance(button, dict) and all(
                                k in ("title", "payload") and isinstance(v, str)
                                for k, v in button.items()
                            )
                            if not ok:
                                raise bad(
                                    "each button is a mapping of 'title' and 'payload' texts",
                                    v_node,
                                    field,
                                )
        out[name] = yn.to_python(value, path, 2)
    return out
