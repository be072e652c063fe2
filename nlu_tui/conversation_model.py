"""Conversation tests as data: E2E test cases (Rasa Pro's ``test_cases:``), test stories
(``stories:``) and what an engine was observed doing in a conversation.

Plain dataclasses, no I/O. The E2E shapes follow Rasa Pro's ``rasa/e2e_test/e2e_test_case.py``
(a ``slot_was_set`` list becomes one step per slot, every step keeps the line of the step it
came from). Dialogue Understanding Tests (DUT) are E2E files whose user steps also carry
``commands``; those are kept here as the raw strings written, for the DUT module to parse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol


class StepAssertion(Protocol):
    """What a step holds of a Rasa Pro assertion: its type and the mapping as written. The
    assertions themselves (:mod:`nlu_tui.conversation_assertions`) read a conversation's events
    and so sit above this module."""

    @property
    def type(self) -> str: ...

    @property
    def written(self) -> Any: ...

    @property
    def line(self) -> int | None: ...


# --- E2E test cases ------------------------------------------------------------------------


class StepKind(StrEnum):
    """The five step keys of an E2E test case."""

    USER = "user"
    BOT = "bot"
    UTTER = "utter"
    SLOT_WAS_SET = "slot_was_set"
    SLOT_WAS_NOT_SET = "slot_was_not_set"


@dataclass
class E2EStep:
    """One step. ``text`` is the user's or the bot's text, or the response name of ``utter``;
    ``slot`` (and ``value`` when ``has_value``) for the two slot steps.

    ``line`` is the line of the step as written (a ``slot_was_set`` list of two slots gives two
    steps on the same line, as in Rasa). ``commands`` are a DUT user step's expected commands,
    raw; ``extra`` keeps any other key of the step as read. ``assertions`` are a user step's
    Rasa Pro assertions (None: the step has no ``assertions:`` key), checked in the order
    written; ``assertion_order_enabled`` as Rasa Pro's key of that name.
    """

    kind: StepKind
    text: str | None = None
    slot: str | None = None
    value: Any = None
    has_value: bool = False
    line: int | None = None
    metadata_name: str | None = None
    commands: list[str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    assertions: Sequence[StepAssertion] | None = None
    assertion_order_enabled: bool = False
    order_written: bool = False
    """True when the file wrote ``assertion_order_enabled`` (written back as it was)."""

    @property
    def actor(self) -> str:
        """Rasa's actor: ``user`` for user steps, ``bot`` for every expectation."""
        return "user" if self.kind is StepKind.USER else "bot"

    @property
    def is_expectation(self) -> bool:
        return self.kind is not StepKind.USER

    def as_dict(self) -> dict[str, Any]:
        """The step as written in a test file (one slot per step), Rasa's ``as_dict``."""
        out: dict[str, Any]
        if self.kind in (StepKind.SLOT_WAS_SET, StepKind.SLOT_WAS_NOT_SET):
            slot: Any = {self.slot: self.value} if self.has_value else self.slot
            out = {self.kind.value: slot}
        else:
            out = {self.kind.value: self.text}
        if self.commands is not None:
            out["commands"] = list(self.commands)
        if self.metadata_name:
            out["metadata"] = self.metadata_name
        if self.order_written:
            out["assertion_order_enabled"] = self.assertion_order_enabled
        if self.assertions is not None:
            out["assertions"] = [a.written for a in self.assertions]
        out.update(self.extra)
        return out


@dataclass
class Fixture:
    """Slots pre-filled before a test case runs (``fixtures:`` at the top of the file)."""

    name: str
    slots: dict[str, Any]
    line: int | None = None


@dataclass
class MetadataEntry:
    """Message metadata by name (``metadata:`` at the top), sent with user messages."""

    name: str
    values: dict[str, Any]
    line: int | None = None


@dataclass
class E2ETestCase:
    """One ``- test_case:`` entry; ``file`` is the path as given, ``line`` its first line."""

    name: str
    steps: list[E2EStep]
    file: str = ""
    line: int | None = None
    fixture_names: list[str] = field(default_factory=list)
    metadata_name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def item_id(self) -> str:
        """Unique within a run: the file and line (names may repeat across files)."""
        return f"{self.file}:{self.line}:{self.name}"

    def file_with_line(self) -> str:
        return f"{self.file}:{self.line if self.line is not None else ''}" if self.file else ""

    def user_steps(self) -> list[E2EStep]:
        return [s for s in self.steps if s.kind is StepKind.USER]

    def uses_assertions(self) -> bool:
        """Rasa Pro's ``TestCase.uses_assertions``: some step has an ``assertions:`` key (then
        the test case is judged by its assertions alone)."""
        return any(s.assertions is not None for s in self.steps)


@dataclass
class E2EFile:
    """The test cases of one or more E2E files, with the fixtures, metadata and stubs they
    define. ``stub_custom_actions`` is kept raw (DUT and Rasa Pro's stubbed actions)."""

    test_cases: list[E2ETestCase] = field(default_factory=list)
    fixtures: dict[str, Fixture] = field(default_factory=dict)
    metadata: dict[str, MetadataEntry] = field(default_factory=dict)
    stub_custom_actions: dict[str, Any] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)
    digest: str = ""

    def fixtures_for(self, case: E2ETestCase) -> list[Fixture]:
        return [self.fixtures[name] for name in case.fixture_names if name in self.fixtures]

    def metadata_for(self, name: str | None) -> dict[str, Any]:
        entry = self.metadata.get(name) if name else None
        return dict(entry.values) if entry else {}


# --- test stories --------------------------------------------------------------------------


class StoryStepKind(StrEnum):
    """The step keys of a Rasa story (``user`` is folded into its ``intent`` step)."""

    INTENT = "intent"
    ACTION = "action"
    BOT = "bot"
    SLOT_WAS_SET = "slot_was_set"
    ACTIVE_LOOP = "active_loop"
    CHECKPOINT = "checkpoint"


@dataclass
class StoryEntity:
    """An entity of a user step: from ``[text]{...}`` markup or an ``entities:`` list."""

    entity: str
    value: Any
    start: int | None = None
    end: int | None = None
    role: str | None = None
    group: str | None = None


@dataclass
class StoryStep:
    """One story step. For ``intent``: ``name`` is the intent, ``text`` the plain user text
    (markup removed, None when the story gives only the intent), ``markup`` the text as written
    and ``entities``. For ``action``/``checkpoint``/``active_loop``: ``name`` (None is
    ``active_loop: null``). For ``bot``: ``text``. For ``slot_was_set``: ``slot`` and ``value``."""

    kind: StoryStepKind
    name: str | None = None
    text: str | None = None
    markup: str | None = None
    entities: list[StoryEntity] = field(default_factory=list)
    slot: str | None = None
    value: Any = None
    has_value: bool = False
    line: int | None = None


@dataclass
class Story:
    """One ``- story:`` (or ``- rule:``) entry with its steps."""

    name: str
    steps: list[StoryStep]
    file: str = ""
    line: int | None = None
    is_rule: bool = False

    @property
    def item_id(self) -> str:
        return f"{self.file}:{self.line}:{self.name}"

    def start_checkpoints(self) -> list[str]:
        out = []
        for step in self.steps:
            if step.kind is not StoryStepKind.CHECKPOINT:
                break
            out.append(step.name or "")
        return out

    def end_checkpoints(self) -> list[str]:
        out = []
        for step in reversed(self.steps):
            if step.kind is not StoryStepKind.CHECKPOINT:
                break
            out.append(step.name or "")
        return out[::-1] if len(out) < len(self.steps) else []


@dataclass
class StoryFile:
    """The test stories of one or more files."""

    stories: list[Story] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    digest: str = ""


# --- what a conversation engine was seen doing -----------------------------------------------


class EventKind(StrEnum):
    USER = "user"
    BOT = "bot"
    ACTION = "action"
    SLOT = "slot"
    ACTIVE_LOOP = "active_loop"
    FLOW_STARTED = "flow_started"
    FLOW_COMPLETED = "flow_completed"
    FLOW_CANCELLED = "flow_cancelled"
    STACK = "stack"
    """Rasa Pro's dialogue-stack update (CALM); kept only to tell a CALM tracker."""
    OTHER = "other"


@dataclass
class ObservedEvent:
    """One event of the conversation as the engine reported it, in order.

    ``bot``: ``text`` and ``name`` (the response name, e.g. ``utter_greet``, where known);
    ``action``: ``name`` (with ``policy`` and ``confidence`` when known); ``slot``: ``name``
    and ``value``; ``active_loop``: ``name`` (None when the loop ended); ``user``: ``text``,
    ``name`` (the intent), ``entities``; ``flow_started``/``flow_completed``/``flow_cancelled``
    (Rasa Pro): ``name`` the flow id, ``value`` the step id where the flow ended. ``raw`` is
    the engine's own event (bot metadata and buttons, flow metadata); it is not stored.
    """

    kind: EventKind
    name: str | None = None
    text: str | None = None
    value: Any = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    policy: str | None = None
    confidence: float | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value}
        for key in ("name", "text", "policy", "confidence"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.kind in (EventKind.SLOT, EventKind.FLOW_COMPLETED, EventKind.FLOW_CANCELLED):
            out["value"] = self.value
        if self.entities:
            out["entities"] = self.entities
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ObservedEvent:
        return cls(
            kind=EventKind(data["kind"]),
            name=data.get("name"),
            text=data.get("text"),
            value=data.get("value"),
            entities=list(data.get("entities") or []),
            policy=data.get("policy"),
            confidence=data.get("confidence"),
        )


@dataclass
class Turn:
    """What followed one user message (or the session start, ``user_text`` None): the parsed
    intent and entities, the events in order, and the commands where the engine exposes them."""

    user_text: str | None
    events: list[ObservedEvent] = field(default_factory=list)
    intent: str | None = None
    confidence: float | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    commands: list[str] | None = None
    latency_ms: float | None = None

    def bot_events(self) -> list[ObservedEvent]:
        return [e for e in self.events if e.kind is EventKind.BOT]

    def slot_events(self) -> list[ObservedEvent]:
        return [e for e in self.events if e.kind is EventKind.SLOT]

    def actions(self) -> list[str]:
        return [e.name or "" for e in self.events if e.kind is EventKind.ACTION]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "user": self.user_text,
            "intent": self.intent,
            "confidence": self.confidence,
            "entities": self.entities,
            "events": [e.as_dict() for e in self.events],
        }
        if self.commands is not None:
            out["commands"] = self.commands
        if self.latency_ms is not None:
            out["latency_ms"] = self.latency_ms
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        return cls(
            user_text=data.get("user"),
            events=[ObservedEvent.from_dict(e) for e in data.get("events") or []],
            intent=data.get("intent"),
            confidence=data.get("confidence"),
            entities=list(data.get("entities") or []),
            commands=data.get("commands"),
            latency_ms=data.get("latency_ms"),
        )
