"""A stored E2E test case shown turn by turn (Textual-free, for the workbench).

Each step of the test case becomes a row: a user step with what the engine answered (bot
messages with their response names, slots set), an expectation with its status: met, the
mismatch (expected beside what the engine did, from the diff's ``-`` line) or not reached
(the test case stops at its first mismatch). A user step's Rasa Pro assertions follow it, one
row each, with their verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nlu_tui.conversation_model import EventKind, Turn

MET = "met"
MISMATCH = "mismatch"
NOT_REACHED = "not reached"
SAID = "said"


@dataclass(frozen=True)
class ConversationRow:
    position: int
    kind: str
    expected: str
    actual: str
    status: str


def _step_text(step: dict[str, Any]) -> tuple[str, str]:
    for kind in ("user", "bot", "utter", "slot_was_set", "slot_was_not_set"):
        if kind in step:
            value = step[kind]
            if isinstance(value, dict):
                ((name, val),) = value.items()
                return kind, f"{name}: {val}"
            return kind, str(value)
    return "?", str(step)


def _turn_text(turn: Turn) -> str:
    parts = []
    for event in turn.events:
        if event.kind is EventKind.BOT:
            label = event.text if event.text is not None else ""
            parts.append(f"bot: {label}" + (f" [{event.name}]" if event.name else ""))
        elif event.kind is EventKind.SLOT:
            parts.append(f"slot {event.name} = {event.value!r}")
    if turn.intent:
        parts.insert(0, f"intent {turn.intent}")
    return " | ".join(parts) or "(no answer)"


def _mismatch_actual(difference: list[str]) -> str:
    actual = [line[2:] for line in difference if line.startswith("- ")]
    return actual[-1] if actual else ""


def _assertion_row(position: int, written: Any, verdict: dict[str, Any] | None) -> ConversationRow:
    """One Rasa Pro assertion of a user step: what it asks, and its verdict (the failure
    message, or the LLM judge's score and reason)."""
    if isinstance(written, dict) and written:
        key, value = next(iter(written.items()))
        expected = f"{key}: {value}"
    else:
        expected = str(written)
    status = {"passed": MET, "failed": MISMATCH}.get((verdict or {}).get("status", ""), NOT_REACHED)
    actual = ""
    if verdict is not None:
        actual = str(verdict.get("message") or "")
        if verdict.get("score") is not None:
            actual = f"score {verdict['score']}: {verdict.get('reason') or ''}".strip() + (
                f" ({actual})" if actual and status == MISMATCH else ""
            )
    return ConversationRow(position, "assertion", expected, actual, status)


def conversation_rows(data: dict[str, Any]) -> list[ConversationRow]:
    """The rows of one stored E2E item (``data`` as stored by the conversation service)."""
    steps = data.get("expected_steps") or []
    turns = [Turn.from_dict(t) for t in data.get("turns") or []]
    if "turns" not in data:  # a test case not run: nothing was met yet
        return [
            ConversationRow(position, *_step_text(step), "", NOT_REACHED)
            for position, step in enumerate(steps)
        ]
    failed = set(data.get("failed_steps") or [])
    stop = min(failed) if failed else None
    replies = iter(turns[1:])
    verdicts = iter(data.get("assertions") or [])
    rows = []
    for position, step in enumerate(steps):
        kind, text = _step_text(step)
        if kind == "user":
            turn = next(replies, None) if text.strip() else None
            if turn is None:
                rows.append(ConversationRow(position, kind, text, "", NOT_REACHED))
            else:
                rows.append(ConversationRow(position, kind, text, _turn_text(turn), SAID))
            for written in step.get("assertions") or []:
                rows.append(_assertion_row(position, written, next(verdicts, None)))
            continue
        if stop is not None and position > stop:
            rows.append(ConversationRow(position, kind, text, "", NOT_REACHED))
        elif position in failed:
            actual = _mismatch_actual(data.get("difference") or [])
            rows.append(ConversationRow(position, kind, text, actual, MISMATCH))
        else:
            rows.append(ConversationRow(position, kind, text, "", MET))
    if data.get("error"):
        rows.append(ConversationRow(len(steps), "error", "", str(data["error"]), MISMATCH))
    return rows
