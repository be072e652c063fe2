"""``rasa data validate`` of Rasa 3.6: the same findings, in the same order, the same verdict.

Every check follows ``rasa/validator.py`` (``Validator``) and ``rasa/cli/utils.py``
(``validate_files``): first what loading reports (a domain response without ``text`` or
``custom`` is refused by Rasa's domain schema: exit 1 at once; an intent in a story that the
domain lacks is a warning of Rasa's story reader), then

- domain: deprecated ``triggers`` (MappingPolicy), actions ``action_*`` in stories and rules
  that the domain lacks, forms in ``active_loop`` steps that the domain lacks, form slots that
  are not domain slots, slot mapping conditions naming an unknown form or a form that does not
  require the slot -- **errors**: they fail the validation whatever the flags;
- NLU: domain intents without examples, example intents not in the domain, story intents not
  in the domain, intents used in no story or rule, the same text under several intents,
  ``utter_`` actions in stories that are no response, responses used in no story or rule;
- story structure: the same dialogue state (the last ``max_history`` turns) followed by
  different actions in different stories (``rasa/core/training/story_conflict.py``);
- config: ``assistant_id`` and ``language`` missing (Rasa's warning about an ``assistant_id``
  left as the placeholder is hidden by Rasa's own warning filter, and here).

The NLU and story-structure findings are **warnings**: they fail the validation only with
``--fail-on-warnings``, except the unused intents and responses and the domain intents without
examples, which never do (Rasa keeps ``ignore_warnings or everything_is_alright`` for them),
nor do the loading and config warnings. Exit 1 when the validation
fails ("Project validation completed with errors."), else 0.

Not reproduced: stories joined by checkpoints are left out of the story-structure check (Rasa
glues them into trackers; said in ``notes``); Rasa prints unused intents/responses in ``set``
order, we in domain order.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.formats.rasa_project import DEFAULT_INTENTS, Block, Event, RasaProject


@dataclass(frozen=True)
class Finding:
    """One finding: ``level`` is ``error`` or ``warning``; ``kind`` names the check (stable,
    for scripts and tests); ``counts`` says whether ``--fail-on-warnings`` makes it fail."""

    level: str
    kind: str
    message: str
    counts: bool = False


@dataclass
class Validation:
    """The findings in Rasa's order, the verdict and what was not checked."""

    findings: list[Finding] = field(default_factory=list)
    failed: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        """Rasa's: 1 when the validation failed, else 0."""
        return 1 if self.failed else 0


def _warn(out: list[Finding], kind: str, message: str, counts: bool = True) -> None:
    out.append(Finding("warning", kind, message, counts))


def _error(out: list[Finding], kind: str, message: str) -> None:
    out.append(Finding("error", kind, message, True))


# --- domain -------------------------------------------------------------------------------------


def _domain_checks(p: RasaProject, out: list[Finding]) -> None:
    for intent, props in p.intent_properties.items():
        if "triggers" in props:
            _error(
                out,
                "mapping-policy",
                f"The intent {intent} in the domain file is using the MappingPolicy format "
                "which has now been deprecated. Please migrate to RulePolicy.",
            )
            break
    known = p.action_names_or_texts
    seen: set[str] = set()
    for block in p.blocks:
        for e in block.events:
            if e.kind != "action" or not e.name or not e.name.startswith("action_"):
                continue
            if e.name in seen:
                continue
            if e.name not in known:
                _error(
                    out,
                    "unknown-action",
                    f"The action '{e.name}' is used in the '{block.name}' block, but it is "
                    "not listed in the domain file. You should add it to your domain file!",
                )
            seen.add(e.name)
    loops: set[str] = set()
    for block in p.blocks:
        for e in block.events:
            if e.kind != "active_loop" or not e.name or e.name in loops:
                continue
            if e.name not in known:
                _error(
                    out,
                    "unknown-form",
                    f"The form '{e.name}' is used in the '{block.name}' block, but it is not "
                    "listed in the domain file. You should add it to your domain file!",
                )
            loops.add(e.name)
    for form, spec in p.forms.items():
        for slot in _required_slots(spec):
            if slot not in p.slots:
                _error(
                    out,
                    "form-slot",
                    f"The form slot '{slot}' in form '{form}' is not present in the domain "
                    "slots.Please add the correct slot or check for typos.",
                )
    for name, slot_spec in p.slots.items():
        for mapping in slot_spec.get("mappings") or []:
            if not isinstance(mapping, dict):
                continue
            for condition in mapping.get("conditions") or []:
                loop = condition.get("active_loop") if isinstance(condition, dict) else None
                if loop and loop not in p.forms:
                    _error(
                        out,
                        "slot-mapping-form",
                        f"Slot '{name}' has a mapping condition for form '{loop}' which is not "
                        "listed in domain forms. Please add this form to the forms section or "
                        "check for typos.",
                    )
                required = _required_slots(p.forms.get(loop or "", {}))
                if (
                    required
                    and name not in required
                    and mapping.get("type") != ("from_trigger_intent")
                ):
                    _error(
                        out,
                        "slot-mapping-required",
                        f"Slot '{name}' has a mapping condition for form '{loop}', but it's not "
                        f"present in '{loop}' form's 'required_slots'. The slot needs to be "
                        "added to this key.",
                    )


def _required_slots(spec: dict[str, Any]) -> list[str]:
    required = spec.get("required_slots") or []
    if isinstance(required, dict):
        return [str(k) for k in required]
    return [str(s) for s in required]


# --- NLU ----------------------------------------------------------------------------------------


def _nlu_checks(p: RasaProject, out: list[Finding]) -> None:
    domain_intents = p.domain_intents
    own = [i for i in domain_intents if i not in DEFAULT_INTENTS]
    nlu_intents = list(dict.fromkeys(intent for intent, _ in p.nlu))
    for intent in own:
        if intent not in nlu_intents:
            _warn(
                out,
                "intent-without-examples",
                f"The intent '{intent}' is listed in the domain file, but is not found in the "
                "NLU training data.",
                counts=False,  # ``ignore_warnings or everything_is_alright``: never fails
            )
    for intent in nlu_intents:
        if intent not in domain_intents:
            _warn(
                out,
                "intent-not-in-domain",
                f"There is a message in the training data labeled with intent '{intent}'. This "
                "intent is not listed in your domain. You should need to add that intent to "
                "your domain file!",
            )
    story_intents = list(
        dict.fromkeys(
            e.name for b in p.blocks for e in b.events if e.kind == "user" and e.name is not None
        )
    )
    for intent in story_intents:
        if intent not in domain_intents:
            _warn(
                out,
                "story-intent-not-in-domain",
                f"The intent '{intent}' is used in your stories, but it is not listed in the "
                "domain file. You should add it to your domain file!",
            )
    for intent in own:
        if intent not in story_intents:
            _warn(
                out,
                "unused-intent",
                f"The intent '{intent}' is not used in any story or rule.",
                counts=False,
            )

    labels: dict[str, list[str]] = {}
    for intent, text in p.nlu:
        bucket = labels.setdefault(text, [])
        if intent not in bucket:
            bucket.append(intent)
    for text, intents in labels.items():
        if len(intents) > 1:
            _warn(
                out,
                "example-in-several-intents",
                f"The example '{text}' was found labeled with multiple different intents in "
                "the training data. Each annotated message should only appear with one "
                "intent. You should fix that conflict The example is labeled with: "
                f"{', '.join(sorted(intents))}.",
            )

    utterances = list(
        dict.fromkeys(
            [r.split("/")[0] for r in p.responses] + [r.split("/")[0] for r in p.nlu_responses]
        )
    )
    used: list[str] = []
    for block in p.blocks:
        for e in block.events:
            if e.kind != "action" or not e.name or not e.name.startswith("utter_"):
                continue
            if e.name in used:
                continue
            if e.name not in utterances:
                _warn(
                    out,
                    "unknown-utterance",
                    f"The action '{e.name}' is used in the stories, but is not a valid "
                    "utterance action. Please make sure the action is listed in your domain "
                    "and there is a template defined with its name.",
                )
            used.append(e.name)
    for utterance in utterances:
        if utterance not in used:
            _warn(
                out,
                "unused-utterance",
                f"The utterance '{utterance}' is not used in any story or rule.",
                counts=False,
            )


# --- story structure ----------------------------------------------------------------------------


def _trackers(block: Block) -> list[list[Event]]:
    """Every path through the block's ``or:`` alternatives."""
    return [[e for alt in combo for e in alt] for combo in itertools.product(*block.steps)] or [[]]


def _slot_feature(spec: dict[str, Any], value: Any) -> Any:
    kind = str(spec.get("type", "text"))
    if kind in ("text", "list", "any"):
        return 1.0 if value not in (None, [], "") else 0.0
    if kind == "bool":
        return 1.0 if value in (True, "true", "True") else 0.0
    return str(value) if value is not None else None


def _influences(spec: dict[str, Any]) -> bool:
    default = str(spec.get("type", "text")) != "any"
    return bool(spec.get("influence_conversation", default))


def _states(p: RasaProject, events: list[Event]) -> list[tuple[str, str]]:
    """(state JSON before the action, action) for each action of one story, as
    ``tracker.past_states`` and ``StoryStep.explicit_events`` make them: an ``action_listen``
    before every user turn and at the end, slots filled from entities by ``from_entity``
    mappings, only slots that influence the conversation in the state."""
    explicit: list[Event] = []
    for e in events:
        if e.kind == "user":
            if not explicit or explicit[-1] != Event("action", "action_listen"):
                explicit.append(Event("action", "action_listen"))
            explicit.append(e)
            for entity in e.entities:
                for slot, spec in p.slots.items():
                    for mapping in spec.get("mappings") or []:
                        if (
                            isinstance(mapping, dict)
                            and mapping.get("type") == "from_entity"
                            and mapping.get("entity") == entity
                        ):
                            explicit.append(Event("slot", slot, value=entity))
                            break
        elif e.kind != "checkpoint":
            explicit.append(e)
    if not explicit or explicit[-1] != Event("action", "action_listen"):
        explicit.append(Event("action", "action_listen"))

    out: list[tuple[str, str]] = []
    user: dict[str, Any] = {}
    prev: str | None = None
    slots: dict[str, Any] = {}
    loop: str | None = None
    for e in explicit:
        if e.kind == "user":
            user = {"intent": e.name}
            names = sorted({n for n in e.entities if n in p.entities})
            if names:
                user["entities"] = names
        elif e.kind == "slot" and e.name:
            declared = p.slots.get(e.name)
            if declared is not None and _influences(declared):
                slots[e.name] = _slot_feature(declared, e.value)
        elif e.kind == "active_loop":
            loop = e.name
        elif e.kind == "action":
            state: dict[str, Any] = {}
            if user:
                state["user"] = user
            if prev is not None:
                state["prev_action"] = {"action_name": prev}
            if slots:
                state["slots"] = dict(slots)
            if loop:
                state["active_loop"] = {"name": loop}
            out.append((json.dumps(state, sort_keys=True), e.name or ""))
            prev = e.name
    return out


def _prior(state_json: str) -> tuple[str, str] | None:
    state = json.loads(state_json)
    action = state.get("prev_action", {}).get("action_name")
    if action and action != "action_listen":
        return "action", action
    if "intent" in state.get("user", {}):
        return "intent", state["user"]["intent"]
    return None


def _summary(action: str, stories: list[str]) -> str:
    if len(stories) > 3:
        where = f"'{stories[0]}', '{stories[1]}', and {len(stories) - 2} other trackers"
    elif len(stories) == 3:
        where = f"'{stories[0]}', '{stories[1]}', and '{stories[2]}'"
    elif len(stories) == 2:
        where = f"'{stories[0]}' and '{stories[1]}'"
    else:
        where = f"'{stories[0]}'"
    return f"{action} predicted in {where}"


def story_conflicts(p: RasaProject, max_history: int | None, notes: list[str]) -> list[str]:
    """Rasa's story structure conflicts, one message each (Rasa's text, lines joined)."""
    elements: list[tuple[str, str, str]] = []  # (sliced states, action, story)
    skipped = 0
    for block in p.blocks:
        if block.kind != "story":
            continue
        if any(e.kind == "checkpoint" for e in block.events):
            skipped += 1
            continue
        for events in _trackers(block):
            states = _states(p, events)
            for i, (_, action) in enumerate(states):
                turns = [s for s, _ in states[: i + 1]]
                if max_history:
                    turns = turns[-max_history:]
                elements.append((json.dumps(turns), action, block.name))
    if skipped:
        notes.append(
            f"{skipped} story/stories joined by checkpoints left out of the story structure check"
        )
    actions: dict[str, list[str]] = {}
    for history, action, _ in elements:
        if action not in actions.setdefault(history, []):
            actions[history].append(action)
    conflicting = {h for h, acts in actions.items() if len(acts) > 1}
    found: dict[str, dict[str, list[str]]] = {}
    for history, action, story in elements:
        if history in conflicting:
            found.setdefault(history, {}).setdefault(action, []).append(story)
    messages = []
    for history, by_action in found.items():
        last = json.loads(history)[-1]
        prior = _prior(last)
        if prior is None:
            continue
        head = f"Story structure conflict after {prior[0]} '{prior[1]}':"
        lines = [_summary(a, s) for a, s in by_action.items()]
        messages.append(head + " " + "; ".join(lines))
    return messages


# --- the whole validation -----------------------------------------------------------------------


def validate_project(
    p: RasaProject,
    *,
    fail_on_warnings: bool = False,
    max_history: int | None = None,
    stories_only: bool = False,
) -> Validation:
    """``rasa data validate`` (or ``rasa data validate stories`` with ``stories_only``)."""
    result = Validation()
    out = result.findings
    for message in p.errors:
        _error(out, "schema", message)
    if p.errors:
        result.failed = True
        return result
    for message in p.reader_warnings:
        _warn(out, "story-reader", message, counts=False)
    if not stories_only:
        if p.is_empty():
            _error(out, "empty-domain", "Encountered empty domain during validation.")
            result.failed = True
            return result
        _domain_checks(p, out)
        _nlu_checks(p, out)
    for message in story_conflicts(p, max_history, result.notes):
        _warn(out, "story-conflict", message)
    config = p.config or {}
    for key in ("assistant_id", "language"):
        if key not in config:
            _warn(
                out,
                "config-key",
                f"The config file is missing the '{key}' mandatory key.",
                counts=False,
            )
    # ``assistant_id`` left as the placeholder: Rasa warns, but its own warning filter
    # (``EXPECTED_WARNINGS`` in ``rasa/utils/common.py``) hides it below debug level; so do we.
    # Rasa shows each UserWarning text once (``warnings.filterwarnings("once")`` in
    # ``rasa/utils/common.py``): an intent missing from the domain twice in one story file is
    # one line
    unique: dict[str, Finding] = {}
    for finding in out:
        unique.setdefault(finding.message, finding)
    result.findings = out = list(unique.values())
    result.failed = any(f.level == "error" or (fail_on_warnings and f.counts) for f in out)
    return result
