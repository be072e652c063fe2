"""Test cases as the workbench shows and edits them: one-line cells, filters, and the form.

Core only (no Textual), so the editor's rules are unit-testable: the modal collects strings into
a :class:`CaseForm` and this module turns it into :class:`~nlu_tui.model.TestCase` objects (one
per utterance line, as Kore.ai's "Add Test Case" does) and says what is wrong with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from nlu_tui.model import (
    MAX_INTENTS,
    ExpectedEntity,
    ExpectedIntent,
    IntentKind,
    Suite,
    TestCase,
    ValueKind,
    new_case_id,
)

PATH_SEPARATOR = " > "


# --- one-line cells ------------------------------------------------------------------------


def format_intents(case: TestCase) -> str:
    names = [i.name for i in case.intents] + [f"+{t}" for t in case.traits]
    return " | ".join(names)


def format_parent(case: TestCase) -> str:
    return PATH_SEPARATOR.join(case.parent_intents)


def format_entity(entity: ExpectedEntity) -> str:
    op = {ValueKind.REGEX: "~", ValueKind.MULTI: "∈", ValueKind.COMPOSITE: "⊃"}.get(
        entity.kind, "="
    )
    text = f"{entity.name}{op}{entity.value}"
    if entity.alternatives:
        text += " (or " + ", ".join(entity.alternatives) + ")"
    return text


def format_entities(case: TestCase) -> str:
    return "; ".join(format_entity(e) for e in case.entities)


def one_line(text: str) -> str:
    """Table cells hold one line: newlines and tabs become visible marks."""
    return text.replace("\r", "").replace("\n", "⏎").replace("\t", " ")


# --- filtering -----------------------------------------------------------------------------


@dataclass
class CaseFilter:
    """An incremental filter typed in one box.

    Plain words must all occur in the utterance (case-insensitive); ``intent:NAME``,
    ``tag:NAME`` and ``entity:NAME`` match those fields (substring); ``has:entities``,
    ``has:problems`` (or ``is:problem``), ``has:order`` and ``no:intent`` test flags.
    """

    words: list[str] = field(default_factory=list)
    intents: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)

    @classmethod
    def parse(cls, query: str) -> CaseFilter:
        result = cls()
        for token in query.lower().split():
            key, sep, value = token.partition(":")
            if sep and value:
                if key == "intent":
                    result.intents.append(value)
                    continue
                if key == "tag":
                    result.tags.append(value)
                    continue
                if key == "entity":
                    result.entities.append(value)
                    continue
                if key in ("has", "is", "no"):
                    result.flags.add(f"{key}:{value}")
                    continue
            result.words.append(token)
        return result

    @property
    def empty(self) -> bool:
        return not (self.words or self.intents or self.tags or self.entities or self.flags)

    def matches(self, case: TestCase, problems: int = 0) -> bool:
        utterance = case.utterance.lower()
        if any(w not in utterance for w in self.words):
            return False
        if self.intents:
            names = [i.name.lower() for i in case.intents] + [t.lower() for t in case.traits]
            if not all(any(q in n for n in names) for q in self.intents):
                return False
        if self.tags:
            tags = [t.lower() for t in case.tags]
            if not all(any(q in t for t in tags) for q in self.tags):
                return False
        if self.entities:
            names = [e.name.lower() for e in case.entities]
            if not all(any(q in n for n in names) for q in self.entities):
                return False
        for flag in self.flags:
            if flag in ("has:entities", "has:entity") and not case.entities:
                return False
            if (
                flag in ("has:problems", "has:problem", "is:problem", "is:problems")
                and not problems
            ):
                return False
            if flag == "has:order" and not case.entity_order:
                return False
            if flag in ("no:intent", "no:intents") and (case.intents or case.traits):
                return False
            if flag in ("has:parent",) and not case.parent_intents:
                return False
        return True


# --- the editor's form ---------------------------------------------------------------------


@dataclass
class EntityRow:
    name: str = ""
    value: str = ""
    kind: str = ValueKind.AUTO.value
    alternatives: str = ""


@dataclass
class CaseForm:
    """Everything the case editor collects, as the user typed it."""

    utterances: str = ""
    intents: list[str] = field(default_factory=lambda: ["", "", ""])
    kind: str = ""
    parent: str = ""
    entities: list[EntityRow] = field(default_factory=list)
    order: str = ""
    tags: str = ""


def split_list(text: str) -> list[str]:
    """``a, b  c`` style lists: commas or whitespace separate, blanks dropped, order kept."""
    return [p for p in re.split(r"[,\s]+", text.strip()) if p]


def split_path(text: str) -> list[str]:
    return [p.strip() for p in re.split(r">|/", text) if p.strip()]


def utterance_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def form_from_case(case: TestCase) -> CaseForm:
    intents = [i.name for i in case.intents][:MAX_INTENTS]
    kind = next((i.kind.value for i in case.intents if i.kind), "")
    return CaseForm(
        utterances=case.utterance,
        intents=intents + [""] * (MAX_INTENTS - len(intents)),
        kind=kind,
        parent=PATH_SEPARATOR.join(case.parent_intents),
        entities=[
            EntityRow(e.name, e.value, e.kind.value, ", ".join(e.alternatives))
            for e in case.entities
        ],
        order=", ".join(case.entity_order),
        tags=", ".join(case.tags),
    )


def form_intents(form: CaseForm) -> list[str]:
    return [n.strip() for n in form.intents if n.strip()]


def form_problems(form: CaseForm) -> list[str]:
    """What the form itself gets wrong (the per-case rules come from the validator)."""
    problems: list[str] = []
    if not utterance_lines(form.utterances):
        problems.append("utterance: write at least one utterance")
    names = form_intents(form)
    if len(set(names)) != len(names):
        problems.append("intents: the same intent is listed twice")
    if form.kind and form.kind not in {k.value for k in IntentKind}:
        problems.append(f"kind: unknown intent kind {form.kind!r}")
    if split_list(form.order) and len(names) != 1:
        problems.append("entity order: only allowed with exactly one intent")
    for n, row in enumerate(form.entities, 1):
        if not row.name.strip() and (row.value.strip() or row.alternatives.strip()):
            problems.append(f"entity {n}: the name is missing")
        if row.kind not in {k.value for k in ValueKind}:
            problems.append(f"entity {n}: unknown kind {row.kind!r}")
    return problems


def cases_from_form(form: CaseForm, base: TestCase | None = None) -> list[TestCase]:
    """One case per utterance line; the first keeps ``base``'s id and extra properties."""
    kind = IntentKind(form.kind) if form.kind in {k.value for k in IntentKind} else None
    intents = [ExpectedIntent(name, kind=kind) for name in form_intents(form)]
    if base is not None:
        # keep the bot of an intent that stays
        bots = {i.name: i.bot for i in base.intents}
        intents = [replace(i, bot=bots.get(i.name)) for i in intents]
    entities = [
        ExpectedEntity(
            name=row.name.strip(),
            value=row.value.strip(),
            kind=ValueKind(row.kind)
            if row.kind in {k.value for k in ValueKind}
            else ValueKind.AUTO,
            alternatives=[a.strip() for a in row.alternatives.split(",") if a.strip()],
        )
        for row in form.entities
        if row.name.strip()
    ]
    parent = split_path(form.parent)
    order = split_list(form.order)
    tags = split_list(form.tags)
    cases: list[TestCase] = []
    for n, line in enumerate(utterance_lines(form.utterances)):
        # each case gets its own lists and entity objects, so editing one never edits another
        fields: dict[str, Any] = {
            "utterance": line,
            "intents": [replace(i) for i in intents],
            "parent_intents": list(parent),
            "entities": [replace(e, alternatives=list(e.alternatives)) for e in entities],
            "entity_order": list(order),
            "tags": list(tags),
        }
        if n == 0 and base is not None:
            cases.append(replace(base, **fields))
        else:
            cases.append(TestCase(id=new_case_id(), **fields))
    return cases


def known_intents(suite: Suite | None, extra: Iterable[str] = ()) -> list[str]:
    names = set(extra)
    if suite is not None:
        names.update(suite.intents_covered())
        names.update(p for c in suite.cases for p in c.parent_intents)
    return sorted(n for n in names if n)


def known_entities(suite: Suite | None, extra: Iterable[str] = ()) -> list[str]:
    names = set(extra)
    if suite is not None:
        names.update(e.name for c in suite.cases for e in c.entities)
    return sorted(n for n in names if n)


def known_tags(suite: Suite | None) -> list[str]:
    if suite is None:
        return []
    return sorted({t for c in suite.cases for t in c.tags})
