"""The domain model: suites, test cases, expectations, predictions and scored results.

Plain dataclasses with no I/O, shared by every format, engine, scorer and face. Field names
are the vocabulary of the whole code base (and of the native suite file), so change them with care.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

MAX_INTENTS = 3
"""Kore.ai allows up to three acceptable intents per test case."""

MAX_UTTERANCE_CHARS = 3000
"""Kore.ai rejects any file with an utterance longer than this."""

KORE_MAX_UTTERANCES = 1_000
"""The platform's largest file as its current Batch Testing page says ("a maximum of 1000
utterances"); we accept more, with a warning."""

KORE_OLD_MAX_UTTERANCES = 10_000
"""The limit older Kore.ai releases documented, named in the warning."""

MAX_NOTE_CHARS = 1024
"""A run's note, as on Kore.ai."""

EMBEDDED_DEFAULT_THRESHOLD = 0.3
"""The embedded engine's default threshold: below this top confidence it answers no intent (the
ranking is still returned). Here, not in the engine, because the scoring core reads it too (the
threshold of a run whose profile does not set one)."""


class IntentKind(StrEnum):
    """What kind of bot intent an expected intent is, where the suite says so."""

    DIALOG = "dialog"
    FAQ = "faq"
    SMALL_TALK = "small_talk"
    TRAIT = "trait"


class ValueKind(StrEnum):
    """How an expected entity value is compared with the engine's value.

    ``auto`` follows Kore.ai: composite when the value reads ``c1:v|c2:v``, multi-item when it
    reads ``a||b``, otherwise equal as a string or a full match as a regular expression.
    """

    AUTO = "auto"
    EXACT = "exact"
    REGEX = "regex"
    MULTI = "multi"
    COMPOSITE = "composite"


@dataclass
class ExpectedIntent:
    """One acceptable intent; ``bot`` pairs it with a child bot of a universal bot."""

    name: str
    kind: IntentKind | None = None
    bot: str | None = None


@dataclass
class ExpectedEntity:
    """An entity the engine must find.

    ``value`` is written as the user wrote it (plain, regex, ``a||b`` or ``c1:v|c2:v``);
    ``alternatives`` are other accepted values (Kore.ai's consecutive-row rule). ``text``,
    ``start``/``end`` (end exclusive, code points) and ``match_index`` describe where it occurs,
    when a format says so; ``json_value`` keeps a structured expected value (NLU.DevOps).
    """

    name: str
    value: str = ""
    kind: ValueKind = ValueKind.AUTO
    alternatives: list[str] = field(default_factory=list)
    text: str | None = None
    start: int | None = None
    end: int | None = None
    match_index: int | None = None
    role: str | None = None
    group: str | None = None
    json_value: Any = None

    @property
    def accepted_values(self) -> list[str]:
        """The primary value followed by the alternatives."""
        return [self.value, *self.alternatives]


def new_case_id() -> str:
    """A short random id that stays with a case through edits, imports and exports."""
    return uuid.uuid4().hex[:12]


@dataclass
class TestCase:
    """One utterance and everything expected of the engine's answer to it.

    ``intents`` are alternatives (any one is a hit); empty means no intent is expected.
    ``traits`` must all be matched (extra traits are fine). ``parent_intents`` is the context
    path from the outermost parent down. ``extra`` keeps format-specific properties so that
    round trips lose nothing; ``line`` is where the case starts in its source file (not saved).
    ``raw_checks`` are assertions on the engine's raw answer (``PATH OP VALUE``, see
    :mod:`nlu_tui.raw_checks`). ``origin`` is the id of the case this one was derived from
    (``nlu-tui perturb``), so a robustness report pairs them.
    """

    __test__ = False  # not a pytest class, despite the name

    utterance: str
    intents: list[ExpectedIntent] = field(default_factory=list)
    traits: list[str] = field(default_factory=list)
    parent_intents: list[str] = field(default_factory=list)
    entities: list[ExpectedEntity] = field(default_factory=list)
    entity_order: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    id: str = field(default_factory=new_case_id)
    extra: dict[str, Any] = field(default_factory=dict)
    line: int | None = field(default=None, compare=False)
    raw_checks: list[str] = field(default_factory=list)
    origin: str | None = None

    @property
    def intent_names(self) -> list[str]:
        return [i.name for i in self.intents]

    @property
    def expects_intent(self) -> bool:
        return bool(self.intents or self.traits)


@dataclass
class Suite:
    """A named collection of test cases, usually one ``*.suite.yaml`` file.

    ``training`` keeps sections of training data that engines can learn from (Rasa's
    ``synonym``, ``regex`` and ``lookup`` blocks) when a suite was imported from them.
    ``path`` and ``loaded_digest`` let the writer refuse to clobber a file changed on disk.
    """

    name: str
    description: str = ""
    cases: list[TestCase] = field(default_factory=list)
    training: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    path: Path | None = field(default=None, compare=False)
    loaded_digest: str | None = field(default=None, compare=False)
    read_only: bool = field(default=False, compare=False)

    def intents_covered(self) -> list[str]:
        """Every intent named by a case, each once, sorted (a multi-intent case covers each)."""
        names = {i.name for c in self.cases for i in c.intents}
        names.update(t for c in self.cases for t in c.traits)
        return sorted(names)


def digest_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- what engines answer -------------------------------------------------------------------


@dataclass
class IntentScore:
    name: str
    confidence: float


@dataclass
class PredictedEntity:
    """An entity as an engine returned it; ``value`` may be structured (currency, period)."""

    name: str
    value: Any
    text: str | None = None
    start: int | None = None
    end: int | None = None
    confidence: float | None = None
    role: str | None = None
    group: str | None = None
    extractor: str | None = None


@dataclass
class Prediction:
    """An engine's answer to one utterance, or the error that took its place."""

    intent: str | None = None
    confidence: float | None = None
    ranking: list[IntentScore] = field(default_factory=list)
    entities: list[PredictedEntity] = field(default_factory=list)
    traits: list[str] = field(default_factory=list)
    raw: Any = None
    latency_ms: float | None = None
    error: str | None = None
    pre_fallback_intent: str | None = None
    """When the engine's own fallback replaced its answer (Rasa's ``nlu_fallback``): the top
    intent it had before, which ``rasa test nlu`` scores instead (``undo_fallback_prediction``)."""
    pre_fallback_confidence: float | None = None
    bot: str | None = None
    """The child bot of a universal bot that answered (Kore.ai), scored against a case's
    ``botName`` when both are known."""
    intent_kind: IntentKind | None = None
    """What kind of intent the engine matched (dialog, FAQ, Small Talk), when it says so."""
    task_state: str | None = None
    """The matched intent's state as the engine reports it (``Configured``/``Published``)."""
    engine_scores: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per intent, the score each of the engine's own engines gave it (Kore.ai's ``ML``,
    ``FM`` and ``KG``): the CSV report's "Matched/Expected Intent's Score"."""
    cached: bool = False
    """The answer came from the answer cache, not the engine (``nlu_tui.runner.answer_cache``)."""


# --- what scoring decides -------------------------------------------------------------------


class ResultType(StrEnum):
    TP = "TP"
    TN = "TN"
    FP = "FP"
    FN = "FN"
    ERROR = "ERROR"


@dataclass
class EntityResult:
    name: str
    expected: str
    matched: str | None
    ok: bool


@dataclass
class RawCheckResult:
    """One ``raw:`` check's outcome: the check as written, whether it held, the value the path
    found (shortened) and, when it failed, why (``the path finds nothing``, ``not a number``)."""

    check: str
    ok: bool
    actual: str | None = None
    reason: str | None = None


@dataclass
class CaseResult:
    """The scored outcome of one case: what the reports, tables and gates are built from."""

    case_id: str
    result: ResultType
    matched_intent: str | None
    confidence: float | None
    entities: list[EntityResult] = field(default_factory=list)
    expected_entity_order: list[str] = field(default_factory=list)
    actual_entity_order: list[str] = field(default_factory=list)
    entity_order_ok: bool | None = None
    latency_ms: float | None = None
    error: str | None = None
    matched_bot: str | None = None
    """The child bot of a universal bot that answered, when the engine reports it."""
    cached: bool = False
    """The answer came from the answer cache (no latency: left out of latency figures)."""
    raw_checks: list[RawCheckResult] = field(default_factory=list)
    """The case's ``raw:`` checks, scored against the engine's full answer. Counted in their
    own metric; they do not change the intent result type."""

    @property
    def intent_ok(self) -> bool:
        return self.result in (ResultType.TP, ResultType.TN)


class RunStatus(StrEnum):
    RUNNING = "running"
    SUCCESS = "success"
    SUCCESS_WITH_WARNING = "success_with_warning"
    FAILED = "failed"
    CANCELED = "canceled"
    INTERRUPTED = "interrupted"


class Stage(StrEnum):
    DEVELOPMENT = "development"
    PUBLISHED = "published"
