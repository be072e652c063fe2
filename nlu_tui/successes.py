"""The "Successful user utterances" suite (seed 000's second built-in suite) from a Rasa
tracker store: the user messages that matched an intent and whose turn completed.

Read from the store Rasa's ``SQLTrackerStore`` writes (``tracker_store: type: SQL`` in
``endpoints.yml``), given as an SQLAlchemy URL (``sqlite:///rasa.db``,
``postgresql://user:${PASSWORD}@host/rasa``): its ``events`` table holds one row per event,
``sender_id``, ``type_name`` and the event as JSON in ``data``, in ``id`` order. A ``user``
event's ``parse_data.intent.name`` is the intent it matched.

A user message counts as successful when it matched a real intent (not null, not
``nlu_fallback`` nor another no-intent name) and the bot's turn after it, up to the next user
message, ran no fallback (``action_default_fallback``, ``action_two_stage_fallback``,
``utter_default``) and had no action rejected (``action_execution_rejected``), nor was the
conversation restarted mid-turn. Each distinct utterance (compared as written, trimmed)
becomes one case expecting the intent it matched; the first conversation it was seen in and
how often it was seen go into the case's ``extra``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.extras import need
from nlu_tui.model import ExpectedIntent, Suite, TestCase

NO_INTENT = frozenset({"", "None", "nlu_fallback"})
FALLBACK_ACTIONS = frozenset(
    {"action_default_fallback", "action_two_stage_fallback", "utter_default"}
)
_ENDS_TURN_BADLY = frozenset({"action_execution_rejected", "restart"})
TAG = "successful-user-utterance"


@dataclass
class UserTurn:
    sender: str
    text: str
    intent: str | None
    ok: bool = True


def turns(events: Iterable[tuple[str, Mapping[str, Any]]]) -> Iterator[UserTurn]:
    """Each user message of the events (``(sender_id, event)`` in store order) with whether
    its turn completed (see the module docstring)."""
    open_turns: dict[str, UserTurn] = {}
    for sender, event in events:
        kind = event.get("event")
        current = open_turns.get(sender)
        if kind == "user":
            if current is not None:
                yield current
            parse = event.get("parse_data") if isinstance(event.get("parse_data"), dict) else {}
            intent = parse.get("intent") if isinstance(parse, dict) else None
            name = intent.get("name") if isinstance(intent, dict) else None
            text = event.get("text")
            open_turns[sender] = UserTurn(
                sender,
                text.strip() if isinstance(text, str) else "",
                name if isinstance(name, str) else None,
            )
        elif current is not None:
            fallback = kind == "action" and event.get("name") in FALLBACK_ACTIONS
            if fallback or kind in _ENDS_TURN_BADLY:
                current.ok = False
    yield from open_turns.values()


def successful_suite(
    events: Iterable[tuple[str, Mapping[str, Any]]],
    name: str = "Successful user utterances",
    no_intent: Iterable[str] = NO_INTENT,
) -> Suite:
    """The suite of the successful user messages among ``events``."""
    skip = frozenset(no_intent)
    cases: dict[str, TestCase] = {}
    for turn in turns(events):
        if not turn.ok or not turn.text or turn.intent is None or turn.intent.strip() in skip:
            continue
        case = cases.get(turn.text)
        if case is None:
            cases[turn.text] = TestCase(
                turn.text,
                [ExpectedIntent(turn.intent)],
                tags=[TAG],
                extra={"conversation": turn.sender, "seen": 1},
            )
        elif case.intent_names == [turn.intent]:
            case.extra["seen"] += 1
        elif turn.intent not in case.intent_names and len(case.intents) < 3:
            case.intents.append(ExpectedIntent(turn.intent))  # matched differently over time
            case.extra["seen"] += 1
    return Suite(
        name=name,
        description="User messages that matched an intent and completed their turn, imported "
        "from a conversation log for regression.",
        cases=list(cases.values()),
    )


def read_tracker_store(url: str, table: str = "events") -> list[tuple[str, dict[str, Any]]]:
    """Every event of a Rasa SQL tracker store, as ``(sender_id, event)`` in store order."""
    need("sqlalchemy", "reading a Rasa tracker store")
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    if not table.isidentifier():
        raise InputError(f"not a table name: {table!r}", field="--table")
    try:
        engine = create_engine(url)
    except ImportError as exc:  # the dialect's driver (psycopg2, pymysql...) is not installed
        raise InputError(
            f"the database driver {exc.name or ''!s} is not installed; install it in nlu-tui's "
            "environment (postgresql:// and sqlite:// need nothing more)",
            field="URL",
        ) from None
    except (ArgumentError, NoSuchModuleError, ValueError) as exc:
        raise InputError(
            f"not a usable SQLAlchemy URL: {type(exc).__name__}", field="URL"
        ) from None
    if engine.dialect.name == "sqlite":
        database = engine.url.database
        from pathlib import Path

        if not database or not Path(database).is_file():
            raise InputError("no such tracker store file", path=database, field="URL")
    out: list[tuple[str, dict[str, Any]]] = []
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text(f"SELECT sender_id, data FROM {table} ORDER BY id")  # an identifier, checked
            )
            for number, (sender, data) in enumerate(rows, 1):
                try:
                    event = json.loads(data)
                except (TypeError, ValueError):
                    raise InputError(
                        f"event {number} of conversation {sender!r} is not JSON", field="data"
                    ) from None
                if isinstance(event, dict):
                    out.append((str(sender), event))
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or type(exc).__name__)
        raise InputError(f"cannot read the tracker store: {reason}", field="URL") from None
    finally:
        engine.dispose()
    return out
