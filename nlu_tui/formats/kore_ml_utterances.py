"""Kore.ai's ML utterances, as the ML Utterances Export API writes them (``type=json``).

The file is the bot's "Machine Learning Utterances" screen: one entry per training utterance,
``{"taskName": INTENT, "sentence": TEXT, ...}``, the shape Kore.ai's own tools send to the
utterance bulk import (``Koredotcom/NLP-Benchmark``, ``kore.py``:
``{"sentence", "taskName", "type": "DialogIntent"}``), which is what an export gives back to
be imported again. Kore.ai's documentation does not list the file's fields; this reader takes
those two and leaves the rest (``type``, ``language``, NER tags) unread, so the suite tests
intents only. A file in another shape is refused naming the entry and field, never guessed.

Its suite is Kore.ai's built-in "Developer defined utterances" test suite: every utterance the
developer trained, expecting the task it was trained for (Batch Testing page, "Managing Test
Suites"). It is read-only: the bot is the source.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from nlu_tui.errors import InputError
from nlu_tui.model import ExpectedIntent, Suite, TestCase

SUFFIX = ".kore-utterances.json"
"""The file name ``kore utterances`` writes (``PROFILE.kore-utterances.json``)."""
SUITE_PREFIX = "Developer defined utterances"
MAX_BYTES = 256 * 1024 * 1024
MAX_ENTRIES = 1_000_000


def read_entries(data: bytes, where: str) -> list[tuple[str, str]]:
    """``(intent, utterance)`` pairs of an ML utterances export, in the file's order.

    Accepts the bare list, or an object holding it under ``utterances`` (either is what an
    export gives, depending on the platform's version). Raises :class:`InputError` naming the
    file, the entry and the field of the first problem."""
    if len(data) > MAX_BYTES:
        raise InputError(f"{where}: larger than {MAX_BYTES // (1024 * 1024)} MB")
    try:
        doc: Any = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{where}: not JSON ({exc})") from None
    if isinstance(doc, dict) and isinstance(doc.get("utterances"), list):
        doc = doc["utterances"]
    if not isinstance(doc, list):
        raise InputError(f"{where}: expected a list of ML utterances (taskName, sentence)")
    if len(doc) > MAX_ENTRIES:
        raise InputError(f"{where}: more than {MAX_ENTRIES} utterances")
    pairs: list[tuple[str, str]] = []
    for i, entry in enumerate(doc):
        at = f"{where}: utterance {i + 1}"
        if not isinstance(entry, dict):
            raise InputError(f"{at}: expected an object with taskName and sentence")
        for key in ("taskName", "sentence"):
            value = entry.get(key)
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"{at}: '{key}' is missing or empty", field=key)
        pairs.append((entry["taskName"].strip(), entry["sentence"].strip()))
    return pairs


def developer_suite(path: Path, bot: str | None = None) -> Suite:
    """The read-only "Developer defined utterances" suite of a saved export.

    Each utterance is a case expecting its task; an utterance trained for several tasks is one
    case accepting any of them (up to three, as a suite case holds)."""
    name = bot or (path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.stem)
    pairs = read_entries(path.read_bytes(), str(path))
    by_text: dict[str, list[str]] = {}
    for intent, text in pairs:
        intents = by_text.setdefault(text, [])
        if intent not in intents:
            intents.append(intent)
    cases = [
        TestCase(
            utterance=text,
            intents=[ExpectedIntent(i) for i in intents[:3]],
            id=f"kore-dev-{n + 1:06d}",
        )
        for n, (text, intents) in enumerate(by_text.items())
    ]
    return Suite(
        name=f"{SUITE_PREFIX} ({name})",
        description=f"The ML utterances of Kore.ai bot '{name}', from {path.name}",
        cases=cases,
        path=path,
        read_only=True,
    )
