"""A Rasa project read as ``rasa data validate`` reads it: domain, config, NLU, stories, rules.

What Rasa 3.6's ``TrainingDataImporter`` (``rasa/shared/importers/``) hands its ``Validator``,
reduced to what the checks look at: the domain's intents, entities, slots (with their
mappings), forms, responses and actions; the NLU examples (intent, text) and the response
names of the NLU files; every story and rule as a list of events (user intent with entity
names, action, active loop, slot set, checkpoint). ``or:`` steps are kept as alternatives.

Reading never judges: the findings are :mod:`nlu_tui.rasa_validate`'s. What Rasa refuses while
loading (a response without ``text`` or ``custom``, YAML that does not parse) is collected in
``errors``; what Rasa's story reader warns about while reading is in ``reader_warnings``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from nlu_tui.formats.rasa_markup import MarkupError, parse_example
from nlu_tui.formats.yaml_loader import SafeLoader

EXTENSIONS = (".yml", ".yaml")

DEFAULT_INTENTS = ("restart", "back", "out_of_scope", "session_start", "nlu_fallback")
"""``rasa.shared.core.constants.DEFAULT_INTENTS``: every domain has them."""

DEFAULT_ACTIONS = (
    "action_listen",
    "action_restart",
    "action_session_start",
    "action_default_fallback",
    "action_deactivate_loop",
    "action_revert_fallback_events",
    "action_default_ask_affirmation",
    "action_default_ask_rephrase",
    "action_two_stage_fallback",
    "action_unlikely_intent",
    "action_back",
    "...",
    "action_extract_slots",
)
"""``rasa.shared.core.constants.DEFAULT_ACTION_NAMES``: every domain has them."""


@dataclass
class Event:
    """One step of a story or rule: ``kind`` is user, action, active_loop, slot, checkpoint;
    ``name`` the intent / action / form / slot / checkpoint; ``entities`` the entity names of a
    user step; ``value`` a slot's value."""

    kind: str
    name: str | None
    entities: tuple[str, ...] = ()
    value: Any = None


@dataclass
class Block:
    """A story or a rule; ``steps`` holds one list of alternatives per step (an ``or:`` step
    has several, every other step one)."""

    name: str
    kind: str
    path: Path
    steps: list[list[list[Event]]] = field(default_factory=list)

    @property
    def events(self) -> list[Event]:
        """Every event of every alternative, in order (what Rasa's checks walk)."""
        return [e for step in self.steps for alt in step for e in alt]


@dataclass
class RasaProject:
    """What the checks of ``rasa data validate`` look at."""

    domain_path: Path
    config: dict[str, Any] | None = None
    intents: list[str] = field(default_factory=list)
    intent_properties: dict[str, dict[str, Any]] = field(default_factory=dict)
    entities: list[str] = field(default_factory=list)
    slots: dict[str, dict[str, Any]] = field(default_factory=dict)
    forms: dict[str, dict[str, Any]] = field(default_factory=dict)
    responses: dict[str, list[Any]] = field(default_factory=dict)
    actions: list[str] = field(default_factory=list)
    nlu: list[tuple[str, str]] = field(default_factory=list)
    nlu_responses: list[str] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    reader_warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def domain_intents(self) -> list[str]:
        """``Domain.intents``: the declared intents plus Rasa's default ones."""
        return list(dict.fromkeys([*self.intents, *DEFAULT_INTENTS]))

    @property
    def action_names_or_texts(self) -> set[str]:
        """``Domain.action_names_or_texts``: default actions, declared actions, forms and
        responses (Rasa adds every ``utter_`` response as an action)."""
        return {*DEFAULT_ACTIONS, *self.actions, *self.forms, *self.responses}

    def is_empty(self) -> bool:
        return not (self.intents or self.entities or self.slots or self.responses or self.forms)


def _load_yaml(path: Path, project: RasaProject) -> Any:
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        project.errors.append(f"Failed to read '{path}'. {exc}")
        return None


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.suffix in EXTENSIONS and p.is_file())


def _names(items: Any) -> list[str]:
    """Names from a domain list whose items are names or one-key mappings."""
    out: list[str] = []
    for item in items or []:
        if isinstance(item, dict):
            out.extend(str(k) for k in item)
        else:
            out.append(str(item))
    return out


def _read_domain(path: Path, project: RasaProject) -> None:
    for file in _files(path):
        doc = _load_yaml(file, project)
        if not isinstance(doc, dict):
            continue
        for item in doc.get("intents") or []:
            if isinstance(item, dict):
                for name, props in item.items():
                    project.intents.append(str(name))
                    project.intent_properties[str(name)] = dict(props or {})
            else:
                project.intents.append(str(item))
                project.intent_properties.setdefault(str(item), {})
        project.entities.extend(_names(doc.get("entities")))
        for name, slot in dict(doc.get("slots") or {}).items():
            project.slots[str(name)] = dict(slot or {})
        for name, form in dict(doc.get("forms") or {}).items():
            project.forms[str(name)] = dict(form or {})
        project.actions.extend(_names(doc.get("actions")))
        for name, variants in dict(doc.get("responses") or {}).items():
            project.responses[str(name)] = list(variants or [])
            for i, variant in enumerate(variants or []):
                # Rasa's domain schema (``domain.yml`` of rasa/shared/utils/schemas): each
                # variant needs ``text`` (not null) or ``custom``.
                if not isinstance(variant, dict) or (
                    variant.get("text") is None and "custom" not in variant
                ):
                    project.errors.append(
                        f"Failed to validate '{file}'. Missing 'text' or 'custom' key in "
                        f"response or null 'text' value in response. Path: "
                        f"/responses/{name}" + (f"[{i}]" if i else "")
                    )


def _user_event(step: dict[str, Any], intent: str) -> Event:
    names: list[str] = []
    if isinstance(step.get("user"), str):
        try:
            names = [e.name for e in parse_example(step["user"]).entities]
        except MarkupError:
            names = []
    for item in step.get("entities") or []:
        if isinstance(item, dict) and "entity" in item:
            names.append(str(item["entity"]))
        elif isinstance(item, dict):
            names.extend(str(k) for k in item)
        else:
            names.append(str(item))
    return Event("user", intent, tuple(names))


def _events(step: dict[str, Any], project: RasaProject, source: Path) -> list[list[Event]]:
    """The alternatives of one step (one list unless ``or:``)."""
    if "or" in step:
        alts: list[list[Event]] = []
        for item in step.get("or") or []:
            if isinstance(item, dict):
                alts.extend(_events(item, project, source))
        return alts
    if "intent" in step or "user" in step:
        intent = str(step.get("intent") or "").strip()
        if intent:
            base = intent.split("/")[0]
            if base not in project.domain_intents:
                project.reader_warnings.append(
                    f"Issue found in '{source}': \nFound intent '{base}' in stories which "
                    "is not part of the domain."
                )
        return [[_user_event(step, intent) if intent else Event("user", None)]]
    if "action" in step:
        return [[Event("action", str(step["action"]))]]
    if "bot" in step:
        return [[Event("action", None)]]
    if "active_loop" in step:
        value = step["active_loop"]
        return [[Event("active_loop", None if value is None else str(value))]]
    if "slot_was_set" in step:
        events = []
        for item in step.get("slot_was_set") or []:
            if isinstance(item, dict):
                events += [Event("slot", str(k), value=v) for k, v in item.items()]
            else:
                events.append(Event("slot", str(item), value=True))
        return [events]
    if "checkpoint" in step:
        return [[Event("checkpoint", str(step["checkpoint"]))]]
    return [[]]


def _read_data_file(path: Path, project: RasaProject) -> None:
    doc = _load_yaml(path, project)
    if not isinstance(doc, dict):
        return
    for item in doc.get("nlu") or []:
        if not isinstance(item, dict) or "intent" not in item:
            continue
        intent = str(item["intent"]).strip().split("/")[0]
        examples = item.get("examples") or ""
        lines = (
            [str(line).strip()[1:].strip() for line in examples.splitlines()]
            if isinstance(examples, str)
            else [str(e.get("text", "")) if isinstance(e, dict) else str(e) for e in examples]
        )
        for line in lines:
            if not line:
                continue
            try:
                text = parse_example(line).text
            except MarkupError:
                text = line
            project.nlu.append((intent, text))
    project.nlu_responses.extend(str(k) for k in dict(doc.get("responses") or {}))
    for key, kind in (("stories", "story"), ("rules", "rule")):
        for item in doc.get(key) or []:
            if not isinstance(item, dict) or not item.get(kind):
                continue
            block = Block(str(item[kind]), kind, path)
            for step in item.get("steps") or []:
                if isinstance(step, dict):
                    block.steps.append(_events(step, project, path))
            project.blocks.append(block)


def load_project(domain: Path, data: list[Path], config: Path | None) -> RasaProject:
    """Read the project as ``rasa data validate --domain DOMAIN --data DATA --config CONFIG``.

    Missing paths are the caller's to refuse; a file that does not parse is an error of the
    project (as Rasa stops on it).
    """
    project = RasaProject(domain_path=domain)
    _read_domain(domain, project)
    if config is not None and config.is_file():
        loaded = _load_yaml(config, project)
        project.config = loaded if isinstance(loaded, dict) else {}
    for root in data:
        for file in _files(root):
            _read_data_file(file, project)
    return project
