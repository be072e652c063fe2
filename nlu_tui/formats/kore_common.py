"""What Kore.ai's JSON and CSV test-suite files share: how fields read and how rows form cases.

Kore.ai packs structure into strings: ``"Pay Bill | Setup Auto Pay"`` (up to three acceptable
intents), ``"trait: Account Statement||Issue"`` (traits, all required), ``"A >> B"`` or ``"A||B"``
(a parent-intent path), ``"Bot 1|Bot 2"`` (the child bot of each intent in a universal bot).
Both file kinds read rows the same way: consecutive rows with the same utterance and
expectations form one case (a repeated entity with a new value becomes an accepted alternative).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.model import (
    KORE_MAX_UTTERANCES,
    KORE_OLD_MAX_UTTERANCES,
    MAX_INTENTS,
    MAX_UTTERANCE_CHARS,
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Suite,
    TestCase,
    ValueKind,
)

EXTRA_KEY = "kore"

THRESHOLD_KEYS = (
    "mode",
    "minThreshold",
    "maxThreshold",
    "exactMatchThreshold",
    "isActive",
    "taskMatchTolerance",
    "wordCoverage",
    "suggestionsCount",
    "pathCoverage",
)
"""The keys of the Threshold Setting block of Kore.ai's batch test report (Batch Testing page,
"Download a CSV Report": ``mode`` opens each NL engine's block, then its thresholds)."""
"""``TestCase.extra[EXTRA_KEY]`` keeps properties of a Kore.ai file we do not model."""

CURLY_DOUBLE = "“”„‟″"

_TRAIT_PREFIX = re.compile(r"^\s*trait\s*:\s*", re.IGNORECASE)
_INTENT_SPLIT = re.compile(r"\s*\|+\s*")
_PARENT_SPLIT = re.compile(r"\s*(?:\|\||>>)\s*")
_ORDER_SPLIT = re.compile(r"\s*>\s*")


def clean(text: str) -> str:
    """A field with stray outer spaces (and non-breaking spaces) removed."""
    return text.replace("\u00a0", " ").strip()


@dataclass
class IntentField:
    """What an ``intent`` (and ``botName``) field says."""

    intents: list[ExpectedIntent] = field(default_factory=list)
    traits: list[str] = field(default_factory=list)


def parse_intent_field(intent: str, bot_name: str = "") -> IntentField:
    """``"a | b | c"`` → three intents; ``"trait: A||B"`` → two traits; bots paired by position.

    Raises ``ValueError`` (the caller adds file and row) when bots and intents do not pair up.
    """
    text = clean(intent)
    bots = [clean(b) for b in clean(bot_name).split("|")] if clean(bot_name) else []
    match = _TRAIT_PREFIX.match(text)
    if match:
        if bots:
            raise ValueError("botName cannot be paired with traits")
        traits = [clean(t) for t in text[match.end() :].split("||")]
        return IntentField(traits=[t for t in traits if t])
    names = [n for n in _INTENT_SPLIT.split(text) if n] if text else []
    if bots and len(bots) != len(names):
        if len(bots) == 1:
            bots = bots * len(names)
        else:
            raise ValueError(
                f"{len(bots)} bot names for {len(names)} intents; give one bot per intent, "
                "in the same order ('Bot 1|Bot 2' for 'Intent 1|Intent 2')"
            )
    intents = [
        ExpectedIntent(name, bot=(bots[i] or None) if bots else None)
        for i, name in enumerate(names)
    ]
    return IntentField(intents=intents)


def parse_parent_field(text: str) -> list[str]:
    """``"A >> B"`` or ``"A||B"`` → ``["A", "B"]`` (outermost first)."""
    return [p for p in _PARENT_SPLIT.split(clean(text)) if p] if clean(text) else []


def parse_order_field(text: str) -> list[str]:
    """CSV's ``"a>b>c"`` → ``["a", "b", "c"]``."""
    return [p for p in _ORDER_SPLIT.split(clean(text)) if p] if clean(text) else []


def check_utterance(utterance: str, where: dict[str, Any]) -> None:
    """Kore.ai rejects a whole file when one utterance is over 3,000 characters; so do we."""
    if len(utterance) > MAX_UTTERANCE_CHARS:
        raise InputError(
            f"utterance is {len(utterance):,} characters long; Kore.ai allows at most "
            f"{MAX_UTTERANCE_CHARS:,} and rejects the whole file",
            field="input",
            **where,
        )


@dataclass
class Row:
    """One test case as a Kore.ai file writes it, before consecutive rows are merged."""

    utterance: str
    intents: list[ExpectedIntent]
    traits: list[str]
    parents: list[str]
    entities: list[ExpectedEntity]
    order: list[str]
    line: int | None
    extra: dict[str, Any] = field(default_factory=dict)

    def same_expectations(self, case: TestCase) -> bool:
        return (
            clean(self.utterance) == clean(case.utterance)
            and self.intents == case.intents
            and self.traits == case.traits
            and self.parents == case.parent_intents
        )


def _adds_something(row: Row, case: TestCase) -> bool:
    """Whether every entity of ``row`` is new to ``case`` (a new name, or a new value)."""
    if not row.entities:
        return False
    for entity in row.entities:
        known = next((e for e in case.entities if e.name == entity.name), None)
        if known is not None and entity.value in known.accepted_values:
            return False
    return True


class CaseBuilder:
    """Folds rows into cases by Kore.ai's rules, counting what was merged for the warnings."""

    def __init__(self, where: str, kind: str) -> None:
        self.cases: list[TestCase] = []
        self.warnings: list[str] = []
        self.where = where
        self.kind = kind
        self.alternatives = 0
        self._occurrence: dict[str, int] = {}

    def add(self, row: Row) -> None:
        previous = self.cases[-1] if self.cases else None
        if (
            previous is not None
            and row.same_expectations(previous)
            and _adds_something(row, previous)
        ):
            for entity in row.entities:
                self.merge_entity(previous, entity)
            self.set_order(previous, row.order, row.line)
            return
        from nlu_tui.formats.native_reader import case_id_for

        occurrence = self._occurrence.get(row.utterance, 0)
        self._occurrence[row.utterance] = occurrence + 1
        case = TestCase(
            utterance=row.utterance,
            intents=row.intents,
            traits=row.traits,
            parent_intents=row.parents,
            entities=[],
            entity_order=list(row.order),
            id=case_id_for(row.utterance, occurrence),
            extra={EXTRA_KEY: dict(row.extra)} if row.extra else {},
            line=row.line,
        )
        case.entities.extend(row.entities)
        self.cases.append(case)

    def merge_entity(self, case: TestCase, entity: ExpectedEntity) -> None:
        """From a repeated row: a new name is one more entity; a new value, an alternative."""
        known = next((e for e in case.entities if e.name == entity.name), None)
        if known is None:
            case.entities.append(entity)
        elif entity.value not in known.accepted_values:
            known.alternatives.append(entity.value)
            self.alternatives += 1

    def set_order(self, case: TestCase, order: list[str], line: int | None) -> None:
        if not order:
            return
        if case.entity_order and case.entity_order != order:
            self.warnings.append(
                f"{self.where}, {self.kind} {line}: a second entityOrder for "
                f"{case.utterance[:40]!r} ignored (kept {'>'.join(case.entity_order)})"
            )
            return
        case.entity_order = list(order)

    def finish(self, suite_name: str) -> tuple[Suite, list[str]]:
        if len(self.cases) > KORE_MAX_UTTERANCES:
            self.warnings.append(
                f"{self.where}: {len(self.cases):,} utterances, more than the "
                f"{KORE_MAX_UTTERANCES:,} Kore.ai accepts in one file (older releases "
                f"allowed {KORE_OLD_MAX_UTTERANCES:,}; read anyway)"
            )
        for case in self.cases:
            if len(case.intents) > MAX_INTENTS:
                self.warnings.append(
                    f"{self.where}, {self.kind} {case.line}: {len(case.intents)} intents; "
                    f"Kore.ai allows at most {MAX_INTENTS}"
                )
        return Suite(name=suite_name, cases=self.cases), self.warnings


# --- export -------------------------------------------------------------------------------------


@dataclass
class ExportRow:
    """One case (or one alternative value of an entity) as Kore.ai fields."""

    input: str
    intent: str
    parent: str
    bot: str
    entities: list[tuple[str, str]]
    order: list[str]
    extra: dict[str, Any]


class Exporter:
    """Turns cases into Kore.ai rows and counts, per kind, what Kore.ai cannot hold."""

    def __init__(self) -> None:
        self.lost: dict[str, int] = {}
        self._case_lost: set[str] = set()

    def lose(self, what: str) -> None:
        if what not in self._case_lost:
            self._case_lost.add(what)
            self.lost[what] = self.lost.get(what, 0) + 1

    def rows(self, case: TestCase) -> list[ExportRow]:
        """The case, then one repeat per alternative value (Kore.ai's consecutive-row rule)."""
        self._case_lost = set()
        intent, bot = self.intent_field(case)
        parent = self.joined(case.parent_intents, "||", "parent intent")
        entities = [(e.name, e.value) for e in case.entities]
        self.check_case(case)
        extra = case.extra.get(EXTRA_KEY)
        main = ExportRow(
            input=case.utterance,
            intent=intent,
            parent=parent,
            bot=bot,
            entities=entities,
            order=list(case.entity_order),
            extra=dict(extra) if isinstance(extra, dict) else {},
        )
        out = [main]
        for entity in case.entities:
            seen = {entity.value}
            for alt in entity.alternatives:
                if alt in seen:
                    continue
                seen.add(alt)
                out.append(
                    ExportRow(case.utterance, intent, parent, bot, [(entity.name, alt)], [], {})
                )
        return out

    def joined(self, items: list[str], sep: str, what: str) -> str:
        if any(("|" in i or ">>" in i or i != clean(i)) for i in items):
            self.lose(f"{what} names with '|', '>>' or outer spaces (cannot be split back)")
        return sep.join(items)

    def intent_field(self, case: TestCase) -> tuple[str, str]:
        if case.intents:
            if case.traits:
                self.lose(
                    "traits of cases that also expect intents (Kore.ai holds one or the other)"
                )
            if len(case.intents) > MAX_INTENTS:
                self.lose(
                    f"cases with more than {MAX_INTENTS} intents (written; Kore.ai rejects them)"
                )
            if any(i.kind is not None and i.kind is not IntentKind.TRAIT for i in case.intents):
                self.lose("intent kinds (dialog/FAQ/small talk; Kore.ai infers them)")
            names = [i.name for i in case.intents]
            if any(_TRAIT_PREFIX.match(n) for n in names):
                self.lose("intent names starting with 'trait:' (would read back as traits)")
            intent = self.joined(names, "|", "intent")
            bots = [i.bot or "" for i in case.intents]
            if any(bots) and not all(bots):
                self.lose("bot names of intents in cases where only some intents name a bot")
            if any("|" in b for b in bots):
                self.lose("bot names containing '|'")
            return intent, "|".join(bots) if all(bots) else ""
        if case.traits:
            if any("||" in t or t != clean(t) for t in case.traits):
                self.lose("trait names with '||' or outer spaces")
            return "trait: " + "||".join(case.traits), ""
        return "", ""

    def check_case(self, case: TestCase) -> None:
        if case.tags:
            self.lose("tags")
        if case.raw_checks:
            self.lose("raw checks")
        if case.origin is not None:
            self.lose("links to original cases (origin)")
        if case.utterance != clean(case.utterance):
            self.lose("outer spaces of utterances")
        if any(k != EXTRA_KEY for k in case.extra):
            self.lose("extra properties from other formats")
        for entity in case.entities:
            if entity.kind in (ValueKind.REGEX, ValueKind.EXACT):
                self.lose(f"'{entity.kind.value}' value kinds (Kore.ai decides from the value)")
            if any(
                getattr(entity, key) is not None
                for key in ("text", "start", "end", "match_index", "role", "group", "json_value")
            ):
                self.lose("entity positions, roles, groups and structured values")
            if entity.value != clean(entity.value) or entity.name != clean(entity.name):
                self.lose("outer spaces of entity names and values")

    def warnings(self, suite: Suite, count: int) -> list[str]:
        out = ["case ids are not kept: Kore.ai files have no id field"] if suite.cases else []
        if suite.description:
            out.append("the suite description is not kept")
        if suite.training:
            out.append("training data sections are not kept")
        for what, n in self.lost.items():
            out.append(f"not kept: {what} ({n} case{'s' if n != 1 else ''})")
        if count > KORE_MAX_UTTERANCES:
            out.append(
                f"{count:,} utterances: Kore.ai accepts at most {KORE_MAX_UTTERANCES:,} per "
                f"file (older releases {KORE_OLD_MAX_UTTERANCES:,})"
            )
        return out
