"""Rasa Pro's E2E assertions (``rasa/e2e_test/assertions.py``, Rasa Pro 3.21), checked against
the events a conversation engine reported for one user turn.

One small class per assertion type; each is built from what the file wrote (the format layer
checks the shape first, as Rasa's schema does) and ``check`` answers what Rasa's ``run`` would:
passed, or failed with Rasa's message and line. The semantics, function by function:

- ``flow_started`` (``FlowStartedAssertion.run``): a ``flow_started`` event of the flow in the
  turn; ``operator: any`` with ``flow_ids`` passes on the first that started, ``all`` (exactly
  one id) as the single form.
- ``flow_completed`` / ``flow_cancelled``: such an event of ``flow_id`` in the turn, and when
  ``flow_step_id`` is given, the first such event ended at that step.
- ``pattern_clarification_contains``: ``pattern_clarification`` started in the turn; a list
  compares the event's ``metadata.names`` as a set; ``all`` compares ``metadata.clarification_ids``
  as a set, ``any`` wants one of the ids among them.
- ``action_executed``, ``slot_was_set``, ``slot_was_not_set``, ``bot_uttered``,
  ``bot_did_not_utter``: on the first step of a test case the events before the user message
  count too (``_get_turn_events_based_on_step_index``).
- ``slot_was_set``: each listed slot set in the turn, to ``value`` when given (any of the slot's
  events); ``slot_was_not_set``: the slot's last event in the turn must not hold ``value`` (or,
  with no value, must be unset: a slot set to null passes, as in Rasa).
- ``bot_uttered``: ``utter_name`` (``metadata.utter_action``), ``text_matches`` (``re.search``) and
  ``buttons`` (title and payload, position by position) are each looked for in any bot message
  of the turn, independently; ``bot_did_not_utter`` fails on the first bot message that matches
  any of them.
- ``generative_response_is_relevant`` / ``_is_grounded``: the first bot message whose
  ``metadata.utter_source`` is the given ``utter_source`` (default: EnterpriseSearchPolicy,
  ContextualResponseRephraser or IntentlessPolicy), or with ``utter_name`` the first of those
  with that response name, scored by an LLM judge (:mod:`nlu_tui.conversation.judge`); a score
  under ``threshold`` fails. A judge that cannot answer is an error, never a failure.

Rasa Open Source 3.x trackers have no flow events: a flow assertion there fails with Rasa's
message and a note saying so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, cast

from nlu_tui.conversation_model import EventKind, ObservedEvent
from nlu_tui.errors import NluTuiError

PATTERN_CLARIFICATION = "pattern_clarification"
"""Rasa Pro's ``FLOW_PATTERN_CLARIFICATION``."""
GENERATIVE_SOURCES = ("EnterpriseSearchPolicy", "ContextualResponseRephraser", "IntentlessPolicy")
"""Rasa Pro's ``ELIGIBLE_UTTER_SOURCE_METADATA``."""
DEFAULT_THRESHOLD = 0.5
VALUE_UNDEFINED = "value key is undefined"
"""Rasa Pro's stand-in for a slot assertion without ``value`` (a value of that text compares
equal to it, as in Rasa)."""
ORDER_MESSAGE = (
    " You have enabled assertion order, you should check the order in which the assertions "
    "are listed for this user step."
)
NO_FLOWS_NOTE = (
    " (the engine reported no flow events in this conversation: flows exist in Rasa Pro's "
    "CALM, not in Rasa Open Source)"
)
DEFAULT_SLOTS = frozenset(
    {
        "requested_slot",
        "session_started_metadata",
        "dialogue_stack",
        "flow_hashes",
        "return_value",
        "repeated_bot_messages",
        "silence_timeout",
        "consecutive_silence_timeouts",
    }
)
"""Slots Rasa Pro leaves out of the failure transcript (``DEFAULT_SLOT_NAMES``)."""


class JudgeError(NluTuiError):
    """The LLM judge could not give a usable verdict (no answer, or one that is not the JSON
    asked for): the test case is an error, never a failure."""


@dataclass
class Verdict:
    """What the judge said of one generative response."""

    score: float
    reason: str


class Judge(Protocol):
    """Scores a generative bot message (``metric`` is ``relevant`` or ``grounded``)."""

    async def __call__(
        self, metric: str, user_text: str, bot_text: str, ground_truth: str | None
    ) -> Verdict: ...


@dataclass
class TurnEvents:
    """What one user step's assertions see: the turn (from the user message to the next user
    message), the events before it, the step's position among the test case's steps, its text,
    whether the conversation is a CALM one and the judge for generative assertions."""

    turn: list[ObservedEvent]
    prior: list[ObservedEvent]
    step_index: int = 1
    step_text: str = ""
    calm: bool = True
    judge: Judge | None = None

    def searched(self) -> list[ObservedEvent]:
        """Rasa's ``_get_turn_events_based_on_step_index``: the first step sees the events
        before the user message too."""
        return self.prior + self.turn if self.step_index == 0 else self.turn


@dataclass
class AssertionResult:
    """One assertion's verdict: ``message`` is Rasa's error message when it failed, ``line``
    the line Rasa reports; ``score``/``reason`` come from an LLM judge."""

    passed: bool
    type: str
    line: int | None
    message: str = ""
    matching: ObservedEvent | None = field(default=None, repr=False, compare=False)
    score: float | None = None
    reason: str | None = None
    threshold: float | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "line": self.line, "passed": self.passed}
        if self.message:
            out["message"] = self.message
        for key in ("score", "threshold", "reason"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


def _first(events: Sequence[ObservedEvent], test: Callable[[ObservedEvent], bool]) -> Any:
    return next((e for e in events if test(e)), None)


def _meta(event: ObservedEvent) -> dict[str, Any]:
    meta = event.raw.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _utter_action(event: ObservedEvent) -> Any:
    return _meta(event).get("utter_action", event.name)


def _buttons(event: ObservedEvent) -> list[Any]:
    data = event.raw.get("data")
    buttons = data.get("buttons") if isinstance(data, dict) else None
    return buttons if isinstance(buttons, list) else []


@dataclass
class Assertion:
    """One written assertion: ``written`` is the item as read (for the results file)."""

    type: ClassVar[str] = ""
    flow_type: ClassVar[bool] = False
    line: int | None = None
    written: Any = field(default=None, repr=False, compare=False)

    def check(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        raise NotImplementedError

    def passed(self, matching: ObservedEvent | None = None) -> AssertionResult:
        return AssertionResult(True, self.type, self.line, matching=matching)

    def failed(
        self, message: str, ev: TurnEvents, order_message: str, line: int | None = None
    ) -> AssertionResult:
        """Rasa's ``generate_test_failure``: the message, then the order note; flow assertions
        on a tracker without flow events add a note saying so."""
        if self.flow_type and not ev.calm:
            message += NO_FLOWS_NOTE
        return AssertionResult(
            False, self.type, self.line if line is None else line, message + order_message
        )


@dataclass
class FlowStarted(Assertion):
    type: ClassVar[str] = "flow_started"
    flow_type: ClassVar[bool] = True
    flow_id: str | None = None
    operator: str | None = None
    flow_ids: list[str] = field(default_factory=list)

    def check(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        ids = [self.flow_id] if self.flow_id is not None else self.flow_ids[:1]
        if self.flow_id is None and self.operator == "any":
            ids = list(self.flow_ids)
        for flow_id in ids:
            hit = next(
                (e for e in ev.turn if e.kind is EventKind.FLOW_STARTED and e.name == flow_id),
                None,
            )
            if hit is not None:
                return self.passed(hit)
        if self.flow_id is None and self.operator == "any":
            message = f"None of the flows with ids '{', '.join(self.flow_ids)}' started."
        else:
            message = f"Flow with id '{ids[0] if ids else None}' did not start."
        return self.failed(message, ev, order_message)


@dataclass
class _FlowEnded(Assertion):
    flow_type: ClassVar[bool] = True
    kind: ClassVar[EventKind] = EventKind.FLOW_COMPLETED
    not_done: ClassVar[str] = "did not complete"
    flow_id: str = ""
    flow_step_id: str | None = None

    def check(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        hit = _first(ev.turn, lambda e: e.kind is self.kind and e.name == self.flow_id)
        if hit is None:
            return self.failed(f"Flow with id '{self.flow_id}' {self.not_done}.", ev, order_message)
        if self.flow_step_id is not None and hit.value != self.flow_step_id:
            return self.failed(
                f"Flow with id '{self.flow_id}' {self.not_done} at expected step id "
                f"'{self.flow_step_id}'. The actual step id was '{hit.value}'.",
                ev,
                order_message,
            )
        return self.passed(hit)


@dataclass
class FlowCompleted(_FlowEnded):
    type: ClassVar[str] = "flow_completed"


@dataclass
class FlowCancelled(_FlowEnded):
    type: ClassVar[str] = "flow_cancelled"
    kind: ClassVar[EventKind] = EventKind.FLOW_CANCELLED
    not_done: ClassVar[str] = "was not cancelled"


@dataclass
class PatternClarificationContains(Assertion):
    type: ClassVar[str] = "pattern_clarification_contains"
    flow_type: ClassVar[bool] = True
    flow_names: list[str] = field(default_factory=list)
    operator: str | None = None
    flow_ids: list[str] = field(default_factory=list)

    def check(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        hit = _first(
            ev.turn,
            lambda e: e.kind is EventKind.FLOW_STARTED and e.name == PATTERN_CLARIFICATION,
        )
        if hit is None:
            return self.failed(
                f"'{PATTERN_CLARIFICATION}' pattern did not trigger.", ev, order_message
            )
        meta = _meta(hit)
        if self.operator is None:
            expected = set(self.flow_names)
            if set(meta.get("names") or []) != expected:
                return self.failed(
                    f"'{PATTERN_CLARIFICATION}' pattern did not contain the expected options. "
                    f"Expected options: {_set_repr(expected)}. ",
                    ev,
                    order_message,
                )
            return self.passed(hit)
        actual = [str(i) for i in dict.fromkeys(meta.get("clarification_ids") or [])]
        if self.operator == "all" and set(actual) != set(self.flow_ids):
            return self.failed(
                f"'{PATTERN_CLARIFICATION}' pattern did not contain all of the expected options "
                f"'{', '.join(self.flow_ids)}'. Actual options: '{', '.join(actual)}'.",
                ev,
                order_message,
            )
        if self.operator == "any" and not set(self.flow_ids) & set(actual):
            return self.failed(
                f"'{PATTERN_CLARIFICATION}' pattern did not contain any of the expected options "
                f"'{', '.join(self.flow_ids)}'.",
                ev,
                order_message,
            )
        return self.passed(hit)


def _set_repr(values: set[str]) -> str:
    return "{" + ", ".join(repr(v) for v in sorted(values)) + "}" if values else "set()"


@dataclass
class ActionExecuted(Assertion):
    type: ClassVar[str] = "action_executed"
    action_name: str = ""

    def check(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        hit = _first(
            ev.searched(), lambda e: e.kind is EventKind.ACTION and e.name == self.action_name
        )
        if hit is None:
            return self.failed(f"Action '{self.action_name}' did not execute.", ev, order_message)
        return self.passed(hit)


@dataclass
class AssertedSlot:
    name: str
    value: Any = VALUE_UNDEFINED
    line: int | None = None


@dataclass
class SlotWasSet(Assertion):
    type: ClassVar[str] = "slot_was_set"
    slots: list[AssertedSlot] = field(default_factory=list)

    def check(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        matching: ObservedEvent | None = None
        for slot in self.slots:
            events = [e for e in ev.searched() if e.kind is EventKind.SLOT and e.name == slot.name]
            if not events:
                return self.failed(f"Slot '{slot.name}' was not set.", ev, order_message, slot.line)
            if slot.value == VALUE_UNDEFINED:
                matching = events[0]
                continue
            want = slot.value
            matching = next((e for e in events if e.value == want), None)
            if matching is None:
                return self.failed(
                    f"Slot '{slot.name}' was set to a different value '{_py(events[-1].value)}' "
                    f"than the expected '{_py(slot.value)}' value.",
                    ev,
                    order_message,
                    slot.line,
                )
        return AssertionResult(True, self.type, None, matching=matching)


@dataclass
class SlotWasNotSet(Assertion):
    type: ClassVar[str] = "slot_was_not_set"
    slots: list[AssertedSlot] = field(default_factory=list)

    def check(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        matching: ObservedEvent | None = None
        for slot in self.slots:
            events = [e for e in ev.searched() if e.kind is EventKind.SLOT and e.name == slot.name]
            if not events:
                continue
            matching = events[-1]
            if slot.value == VALUE_UNDEFINED and matching.value is not None:
                return self.failed(
                    f"Slot '{slot.name}' was set to '{_py(matching.value)}' but it should not "
                    "have been set.",
                    ev,
                    order_message,
                    slot.line,
                )
            if matching.value == slot.value:
                return self.failed(
                    f"Slot '{slot.name}' was set to '{_py(slot.value)}' but it should not have "
                    "been set.",
                    ev,
                    order_message,
                    slot.line,
                )
        return AssertionResult(True, self.type, None, matching=matching)


def _py(value: Any) -> str:
    """``str()`` as Python (Rasa's f-strings) prints the value."""
    return str(value)


@dataclass
class Button:
    title: str | None
    payload: str | None = None

    def same(self, actual: Any) -> bool:
        return (
            isinstance(actual, dict)
            and actual.get("title") == self.title
            and actual.get("payload") == self.payload
        )


@dataclass
class BotUttered(Assertion):
    type: ClassVar[str] = "bot_uttered"
    utter_name: str | None = None
    text_matches: str | None = None
    buttons: list[Button] = field(default_factory=list)

    def _buttons_match(self, event: ObservedEvent) -> bool:
        actual = _buttons(event)
        return bool(actual) and all(b.same(a) for a, b in zip(actual, self.buttons, strict=False))

    def check(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        bots = [e for e in ev.searched() if e.kind is EventKind.BOT]
        matching: ObservedEvent | None = None
        errors = []
        if self.utter_name is not None:
            matching = _first(bots, lambda e: _utter_action(e) == self.utter_name)
            if matching is None:
                errors.append(f"Bot did not utter '{self.utter_name}' response.")
        if self.text_matches is not None:
            pattern = re.compile(self.text_matches)
            matching = _first(bots, lambda e: pattern.search(e.text or "") is not None)
            if matching is None:
                errors.append(
                    "Bot did not utter any response which matches the provided text pattern "
                    f"'{self.text_matches}'."
                )
        if self.buttons:
            matching = _first(bots, self._buttons_match)
            if matching is None:
                errors.append("Bot did not utter any response with the expected buttons.")
        if errors:
            return self.failed(" ".join(errors), ev, order_message)
        return self.passed(matching)


@dataclass
class BotDidNotUtter(Assertion):
    type: ClassVar[str] = "bot_did_not_utter"
    utter_name: str | None = None
    text_matches: str | None = None
    buttons: list[Button] = field(default_factory=list)

    def check(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        pattern = re.compile(self.text_matches) if self.text_matches is not None else None
        for event in ev.searched():
            if event.kind is not EventKind.BOT:
                continue
            errors = []
            if self.utter_name is not None and _utter_action(event) == self.utter_name:
                errors.append(f"Bot uttered a forbidden utterance '{self.utter_name}'.")
            if pattern is not None and pattern.search(event.text or ""):
                errors.append(
                    f"Bot uttered a forbidden message matching the pattern '{self.text_matches}'."
                )
            if any(b.same(a) for a in _buttons(event) for b in self.buttons):
                errors.append("Bot uttered a forbidden response with specified buttons.")
            if errors:
                return self.failed(" ".join(errors), ev, order_message)
        return self.passed(None)


@dataclass
class _Generative(Assertion):
    metric: ClassVar[str] = ""
    threshold: float = DEFAULT_THRESHOLD
    utter_name: str | None = None
    utter_source: str | None = None
    ground_truth: str | None = None

    def _ground_truth(self, event: ObservedEvent) -> str | None:
        return None

    def find(self, ev: TurnEvents, order_message: str = "") -> AssertionResult | ObservedEvent:
        """The bot message the judge scores (Rasa's ``_find_matching_generative_events``, then
        the first, or the first with ``utter_name``), or the failure when there is none."""
        bots = [e for e in ev.turn if e.kind is EventKind.BOT]
        if self.utter_source is None:
            found = [e for e in bots if _meta(e).get("utter_source") in GENERATIVE_SOURCES]
        else:
            found = [e for e in bots if _meta(e).get("utter_source") == self.utter_source]
        if not found:
            return self.failed(
                "No generative response issued by either the Enterprise Search Policy, "
                "IntentlessPolicy, Contextual Response Rephraser or a named custom action was "
                "found, but one was expected. Please define an utter_source in the assertion to "
                "specify which generative response to evaluate.",
                ev,
                order_message,
            )
        if self.utter_name is None:
            return found[0]
        event = _first(found, lambda e: _utter_action(e) == self.utter_name)
        if event is None:
            return self.failed(
                f"Bot did not utter '{self.utter_name}' response.", ev, order_message
            )
        return cast(ObservedEvent, event)

    async def judge(self, ev: TurnEvents, order_message: str = "") -> AssertionResult:
        """Find the message and have the judge score it; under ``threshold`` fails with
        Rasa's message. Raises JudgeError when no judge is configured."""
        found = self.find(ev, order_message)
        if isinstance(found, AssertionResult):
            return found
        event = found
        if ev.judge is None:
            raise JudgeError(
                f"'{self.type}' (line {self.line}) needs an LLM judge: configure one in "
                "settings.yaml (llm:)"
            )
        verdict = await ev.judge(
            self.metric, ev.step_text, event.text or "", self._ground_truth(event)
        )
        result = AssertionResult(
            verdict.score >= self.threshold,
            self.type,
            self.line,
            matching=event,
            score=verdict.score,
            reason=verdict.reason,
            threshold=self.threshold,
        )
        if not result.passed:
            result.message = (
                f"Generative response '{event.text}' given to the user input '{ev.step_text}' "
                f"was not {self.metric}. Expected score to be above '{self.threshold}' "
                f"threshold, but was '{round(verdict.score, 2)}'. The LLM Judge model has "
                f"justified its score like so: {verdict.reason}." + order_message
            )
        return result


@dataclass
class GenerativeResponseIsRelevant(_Generative):
    type: ClassVar[str] = "generative_response_is_relevant"
    metric: ClassVar[str] = "relevant"


@dataclass
class GenerativeResponseIsGrounded(_Generative):
    type: ClassVar[str] = "generative_response_is_grounded"
    metric: ClassVar[str] = "grounded"

    def _ground_truth(self, event: ObservedEvent) -> str | None:
        """Rasa's ``_get_prompt_inputs``: the written ground truth, else the message's
        ``search_results`` or ``domain_ground_truth`` metadata (a list joined by lines)."""
        if self.ground_truth is not None:
            return self.ground_truth
        meta = _meta(event)
        found = meta.get("search_results") or meta.get("domain_ground_truth") or ""
        return "\n".join(str(x) for x in found) if isinstance(found, list) else str(found)


TYPES: dict[str, type[Assertion]] = {
    cls.type: cls
    for cls in (
        FlowStarted,
        FlowCompleted,
        FlowCancelled,
        PatternClarificationContains,
        ActionExecuted,
        SlotWasSet,
        SlotWasNotSet,
        BotUttered,
        BotDidNotUtter,
        GenerativeResponseIsRelevant,
        GenerativeResponseIsGrounded,
    )
}
"""Every assertion type this reader knows, by its key (Rasa Pro's ``AssertionType``, without
the ``skill_*``, ``memory_*``, ``ordered_block_*`` and ``tool_*`` keys of its Mantle engine)."""


def is_calm(events: Sequence[ObservedEvent]) -> bool:
    """Whether a conversation comes from Rasa Pro's CALM (it reported flow or stack events)."""
    calm_kinds = (
        EventKind.FLOW_STARTED,
        EventKind.FLOW_COMPLETED,
        EventKind.FLOW_CANCELLED,
        EventKind.STACK,
    )
    return any(e.kind in calm_kinds for e in events)


async def run_step(
    assertions: Sequence[Assertion], ev: TurnEvents, *, ordered: bool
) -> list[AssertionResult]:
    """Rasa's ``run_assertions`` for one user step: the assertions in order, stopping at the
    first that fails; with ``ordered`` (``assertion_order_enabled``) each later assertion sees
    only the events after the one the previous matched (``_slice_turn_events``)."""
    order_message = ORDER_MESSAGE if ordered else ""
    out = []
    turn, prior = list(ev.turn), list(ev.prior)
    for assertion in assertions:
        current = TurnEvents(turn, prior, ev.step_index, ev.step_text, ev.calm, ev.judge)
        if isinstance(assertion, _Generative):
            result = await assertion.judge(current, order_message)
        else:
            result = assertion.check(current, order_message)
        out.append(result)
        if not result.passed:
            break
        if ordered and result.matching is not None:
            index = next((i for i, e in enumerate(turn) if e is result.matching), None)
            if index is not None and index + 1 < len(turn):
                prior = prior + turn[: index + 1]
                turn = turn[index + 1 :]
    return out


def transcript(events: Sequence[ObservedEvent]) -> list[str]:
    """The events as Rasa's ``create_actual_events_transcript`` lists them (default slots and
    dialogue-stack updates left out), one line each in nlu-tui's words."""
    out = []
    for e in events:
        if e.kind is EventKind.STACK or (e.kind is EventKind.SLOT and e.name in DEFAULT_SLOTS):
            continue
        if e.kind is EventKind.USER:
            out.append(f"UserUttered(text: {e.text}, intent: {e.name})")
        elif e.kind is EventKind.BOT:
            out.append(f"BotUttered(text: {e.text}, utter_action: {_utter_action(e)})")
        elif e.kind is EventKind.ACTION:
            out.append(f"ActionExecuted(action: {e.name}, policy: {e.policy})")
        elif e.kind is EventKind.SLOT:
            out.append(f"SlotSet(key: {e.name}, value: {e.value!r})")
        elif e.kind is EventKind.ACTIVE_LOOP:
            out.append(f"ActiveLoop({e.name})")
        elif e.kind is EventKind.FLOW_STARTED:
            out.append(f"FlowStarted(flow: {e.name})")
        elif e.kind is EventKind.FLOW_COMPLETED:
            out.append(f"FlowCompleted(flow: {e.name}, step_id: {e.value})")
        elif e.kind is EventKind.FLOW_CANCELLED:
            out.append(f"FlowCancelled(flow: {e.name}, step_id: {e.value})")
    return out
