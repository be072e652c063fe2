"""The flows a dialogue-understanding test knows: a small YAML file, or a Rasa ``flows.yml``.

Small form (what the embedded command generator needs)::

    flows:
      add_contact:
        description: add a contact to your list
        slots: [handle, name]
        intents: [add_contact]        # default: the flow's own name
    cancel_intents: [cancel]          # -> cancel flow
    chitchat_intents: [chitchat]      # -> offtopic reply
    knowledge_intents: [faq]          # -> provide info
    handoff_intents: [human_handoff]  # -> hand over
    disambiguation_threshold: 0.6     # top intent below this and the runner-up flow
    disambiguation_margin: 0.2        #   within the margin -> disambiguate flows a b

A Rasa flows file works too: a flow without ``slots`` takes those of its ``collect`` steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError


@dataclass(frozen=True)
class Flow:
    name: str
    description: str = ""
    slots: tuple[str, ...] = ()
    intents: tuple[str, ...] = ()


@dataclass(frozen=True)
class Flows:
    flows: dict[str, Flow] = field(default_factory=dict)
    cancel_intents: tuple[str, ...] = ("cancel", "stop")
    chitchat_intents: tuple[str, ...] = ("chitchat",)
    knowledge_intents: tuple[str, ...] = ()
    handoff_intents: tuple[str, ...] = ("human_handoff",)
    disambiguation_threshold: float = 0.6
    disambiguation_margin: float = 0.2
    path: Path | None = None

    def flow_of_intent(self, intent: str | None) -> Flow | None:
        if intent is None:
            return None
        for flow in self.flows.values():
            if intent in (flow.intents or (flow.name,)):
                return flow
        return None

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(self.flows)


def _names(value: Any, path: Path, field_name: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError("must be a name or a list of names", path, field=field_name)


def _collects(steps: Any) -> list[str]:
    found: list[str] = []
    if isinstance(steps, list):
        for step in steps:
            if isinstance(step, dict):
                if isinstance(step.get("collect"), str):
                    found.append(step["collect"])
                for value in step.values():
                    if isinstance(value, list | dict):
                        found.extend(_collects(value if isinstance(value, list) else [value]))
    return list(dict.fromkeys(found))


def load_flows(path: Path) -> Flows:
    """Read a flows file; any bad field is an error naming the file and the field."""
    from nlu_tui.formats import yaml_loader

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read flows: {exc.strerror}", path) from None
    data = yaml_loader.load(text, path)
    if not isinstance(data, dict) or not isinstance(data.get("flows"), dict):
        raise InputError("expected a mapping with 'flows:'", path, field="flows")
    flows: dict[str, Flow] = {}
    for name, body in data["flows"].items():
        body = body or {}
        if not isinstance(body, dict):
            raise InputError("a flow must be a mapping", path, field=f"flows.{name}")
        slots = body.get("slots")
        slot_names = (
            _names(slots, path, f"flows.{name}.slots")
            if slots is not None
            else tuple(_collects(body.get("steps")))
        )
        flows[str(name)] = Flow(
            str(name),
            str(body.get("description") or ""),
            slot_names,
            _names(body.get("intents"), path, f"flows.{name}.intents"),
        )
    kwargs: dict[str, Any] = {}
    for key in ("cancel_intents", "chitchat_intents", "knowledge_intents", "handoff_intents"):
        if key in data:
            kwargs[key] = _names(data[key], path, key)
    for key in ("disambiguation_threshold", "disambiguation_margin"):
        if key in data:
            value = data[key]
            if not isinstance(value, int | float) or not 0 <= value <= 1:
                raise InputError("must be a number within 0..1", path, field=key)
            kwargs[key] = float(value)
    return Flows(flows, path=path, **kwargs)
