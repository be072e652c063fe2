"""The "Successful user utterances" suite from a Kore.ai export: the records of its Get Analytics
API, the data behind the Analyze module's "Intent found" and "Success tasks" views.

Seed 000 defines the suite as "all the end-user utterances that have successfully matched one or
more intents and the corresponding task is fully executed", and says they are found in "the
'Intent found' section of the Analyze module". Kore.ai's conversation history
(``getMessages``) holds the messages' text only, no intent, so the source is the Get Analytics
API (Koredotcom/docs ``docs/xo/apis/automation/get-analytics.md``):
``POST https://{host}/api/public/bot/{botId}/getAnalytics`` with ``"type": "successintent"``
(intents found) and ``"type": "successtask"`` (tasks completed), scope *App Builder: Metrics*.
Its answer, ``{"moreAvailable": ..., "result": [record, ...], "totalCount": N}``, is what the
user saves: one answer, a list of answers (pages, or both types), or a list of records.

Each record has ``utterance``, ``intent`` (or ``taskName``), ``sessionId``, ``taskId``,
``userId``, ``isAmbiguous`` and ``NLAnalysis`` (``debugTitle``: "Intent Match Successful",
"Intent Completed Successfully", "Intent Match Failed", "Intent Failed/Abandoned", "Unhandled
Utterances", "Performance"; ``result``; ``subType``: dialog, faq, smalltalk; ``bot``: the bot
that answered, a universal bot's child). A record counts as:

- an intent found: ``debugTitle`` "Intent Match Successful" or ``result`` ``successintent``;
- a completed task: ``debugTitle`` "Intent Completed Successfully" or ``result``
  ``successtask``;
- a failure (skipped): any other ``debugTitle``, or ``result`` ``failintent``, ``failtask``,
  ``unhandledUtterance``; a record saying neither is taken as its export's type, an intent found.

When the export holds completed tasks, an intent found counts only if its session completed that
task (same ``sessionId`` and ``taskId``, else task name): "the corresponding task is fully
executed". Without any, every intent found counts, and a warning says so. Ambiguous matches
(``isAmbiguous``) are skipped. Each distinct utterance becomes one case expecting the intent it
matched (with its kind, and its bot when the record names a child bot of a universal bot).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.model import ExpectedIntent, Suite, TestCase
from nlu_tui.successes import TAG

FOUND = "found"
COMPLETED = "completed"
FAILED = "failed"
_TITLES = {
    "intent match successful": FOUND,
    "intent completed successfully": COMPLETED,
}
_RESULTS = {
    "successintent": FOUND,
    "successtask": COMPLETED,
    "failintent": FAILED,
    "failtask": FAILED,
    "unhandledutterance": FAILED,
}


@dataclass
class KoreRecord:
    """One Get Analytics record, as far as the suite needs it."""

    number: int
    """Its position in the file (1-based), for messages."""
    kind: str
    utterance: str
    intent: str
    session: str
    task: str
    user: str
    ambiguous: bool
    sub_type: Any = None
    bot: str | None = None


@dataclass
class KoreSuccesses:
    """The suite, and what was read to build it (for the CLI's summary and warnings)."""

    suite: Suite
    records: int
    found: int
    completed: int
    skipped: int
    warnings: list[str] = field(default_factory=list)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _kind(record: Mapping[str, Any], analysis: Mapping[str, Any]) -> str:
    title = _text(analysis.get("debugTitle")).lower()
    if title:
        for prefix, kind in _TITLES.items():
            if title.startswith(prefix):
                return kind
        return FAILED
    result = _text(analysis.get("result") or record.get("result")).lower()
    return _RESULTS.get(result, FOUND if not result else FAILED)


def _records(data: Any, path: Path | str) -> Iterable[Mapping[str, Any]]:
    """The records of one answer, a list of answers, or a list of records."""
    items = data if isinstance(data, list) else [data]
    for item in items:
        if isinstance(item, Mapping) and isinstance(item.get("result"), list):
            yield from (r for r in item["result"] if isinstance(r, Mapping))
        elif isinstance(item, Mapping) and "utterance" in item:
            yield item
        else:
            raise InputError(
                'not a Kore.ai Get Analytics answer: expected {"result": [...]} objects or '
                "records with 'utterance'",
                path=path,
            )


def read_kore_analytics(path: Path) -> list[KoreRecord]:
    """Every record of a saved Get Analytics answer (InputError naming file and record)."""
    from nlu_tui.jsonfile import read_json

    if not path.is_file():
        raise InputError("no such file", path=path)
    return kore_records(read_json(path), path)


def kore_records(data: Any, path: Path | str) -> list[KoreRecord]:
    """The records of Get Analytics answers (a saved file's, or the live API's pages;
    ``path`` names where they come from in an error)."""
    out: list[KoreRecord] = []
    for number, record in enumerate(_records(data, path), 1):
        analysis = record.get("NLAnalysis")
        analysis = analysis if isinstance(analysis, Mapping) else {}
        utterance = record.get("utterance")
        if not isinstance(utterance, str):
            raise InputError(
                f"record {number} has no 'utterance' text", path=path, field="utterance"
            )
        bot = _text(analysis.get("bot")) or None
        out.append(
            KoreRecord(
                number=number,
                kind=_kind(record, analysis),
                utterance=utterance.strip(),
                intent=_text(record.get("intent")) or _text(record.get("taskName")),
                session=_text(record.get("sessionId")),
                task=_text(record.get("taskId")) or _text(analysis.get("taskId")),
                user=_text(record.get("userId")),
                ambiguous=record.get("isAmbiguous") is True,
                sub_type=analysis.get("subType"),
                bot=bot,
            )
        )
    return out


def _task_key(record: KoreRecord) -> tuple[str, str]:
    return (record.session, record.task or record.intent)


def kore_successful_suite(
    records: list[KoreRecord], name: str = "Successful user utterances", bot_names: bool = False
) -> KoreSuccesses:
    """The suite of the intents found whose task completed (see the module docstring).

    ``bot_names`` pairs each intent with the bot the record names (a universal bot's child)."""
    from nlu_tui.engines.kore import kore_kind

    completed = {_task_key(r) for r in records if r.kind == COMPLETED}
    found = [r for r in records if r.kind == FOUND]
    warnings: list[str] = []
    if found and not completed:
        warnings.append(
            "the export holds no completed tasks (getAnalytics type successtask): every intent "
            "found counts, whether or not its task completed"
        )
    cases: dict[str, TestCase] = {}
    skipped = len(records) - len(found) - sum(1 for r in records if r.kind == COMPLETED)
    for record in found:
        if record.ambiguous or not record.utterance or not record.intent:
            skipped += 1
            continue
        if completed and _task_key(record) not in completed:
            skipped += 1
            continue
        expected = ExpectedIntent(
            record.intent, kind=kore_kind(record.sub_type), bot=record.bot if bot_names else None
        )
        case = cases.get(record.utterance)
        if case is None:
            cases[record.utterance] = TestCase(
                record.utterance,
                [expected],
                tags=[TAG],
                extra={"conversation": record.session or record.user, "seen": 1},
            )
        elif record.intent in case.intent_names:
            case.extra["seen"] += 1
        elif len(case.intents) < 3:
            case.intents.append(expected)  # matched differently over time
            case.extra["seen"] += 1
    suite = Suite(
        name=name,
        description="User messages that matched an intent and whose task completed, imported "
        "from a Kore.ai analytics export for regression.",
        cases=list(cases.values()),
    )
    return KoreSuccesses(
        suite=suite,
        records=len(records),
        found=len(found),
        completed=len(completed),
        skipped=skipped,
        warnings=warnings,
    )
