"""A fast path for reading the cases of a native suite, for the layout nlu-tui writes.

Composing YAML nodes (libyaml through PyYAML builds a Python node, with two position marks,
for every scalar) and walking them costs about 80 µs a case; a 100,000-case suite took 8–14 s
to open the first time. Most big suites are written by nlu-tui itself (import, generate,
save), in the fixed layout of :mod:`nlu_tui.formats.native_writer`: one key per line, short
lists and entity mappings in flow style on one line, every scalar either a plain word that YAML
reads as that very string or a double-quoted JSON string. This module reads exactly that
layout, line by line, straight into the model.

It is a fast path, not a second parser: anything it is not certain to read as YAML would (a
comment, a blank line, a tab, a key it does not know or sees twice, a plain scalar YAML would
type as a number, bool, null or date, a quoted scalar with an escape JSON and YAML read
differently, a multi-line scalar, ``extra`` or ``json_value``, a non-printable character) makes
it give up on the whole chunk, which then goes through the YAML reader: same cases, same errors
with the same lines. ``tests/test_native_fast.py`` checks that both give equal suites over
generated and hand-edited files.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from nlu_tui.formats.native_reader import (
    CASE_KEYS,
    ENTITY_KEYS,
    INTENT_KEYS,
    case_id_for,
    kind_value,
)
from nlu_tui.formats.native_writer import _PLAIN, _reads_as_text
from nlu_tui.model import ExpectedEntity, ExpectedIntent, IntentKind, TestCase, ValueKind
from nlu_tui.raw_checks import RawCheckError, compiled_check


class NotCanonical(Exception):
    """The chunk is not in the writer's layout: read it with the YAML reader."""


_UNSAFE = re.compile(
    "[\\x00-\\x09\\x0b-\\x1f\\x7f-\\x9f\\u2028\\u2029\\ud800-\\udfff\\ufeff\\ufffe\\uffff]"
)
"""Characters the fast path leaves to YAML: tabs and other controls, C1, line separators,
surrogates, BOMs and non-characters (PyYAML refuses some, treats others specially). Every
character the writer would not leave plain for being non-printable is among them, so a chunk
that passes this check needs no per-word printability check."""
_TOKEN = r'("(?:[^"\\]|\\.)*+")|([^,\[\]{}:#" ][^,\[\]{}:#"]*+)|, |: |[\[\]{}]'
_FLOW_TOKEN = re.compile(_TOKEN)
"""A flow collection's tokens: a quoted scalar, a plain word, a separator or a bracket. The
quantifiers are possessive: a plain word runs to the next delimiter, never split in two, so a
line that is not made of tokens fails at once (with ``*``, ``[`` and 30 letters then ``"``
tried every split of the letters: 2 s for 22 letters, doubling with each one more)."""
_FLOW_ONLY = re.compile(f"(?:{_TOKEN})*")
"""A line made of those tokens only: no space, comma or colon where the layout has none."""
_PLAIN_PAIR = re.compile(r"([^,\[\]{}:#\" ]++): (\[[^\[\]{}\"]*+\]|[^,\[\]{}\"]*+)(?:, |$)")
"""One ``key: value`` of a flow mapping of plain words, a value a word or a list of words."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]|\\/")
"""``\\ud83d\\ude00``: JSON joins the pair into one character, YAML keeps two; ``\\/`` is not
an escape to every YAML reader. Both are left to YAML."""

_RESOLVERS: dict[Any, list[tuple[str, re.Pattern[str]]]] = (
    yaml.resolver.Resolver.yaml_implicit_resolvers
)


def _one_pattern(found: list[tuple[str, re.Pattern[str]]]) -> tuple[re.Pattern[str], ...]:
    """The patterns filed under one first character, as one alternation when they share their
    flags (``match`` succeeds on the alternation exactly when it succeeds on one of them)."""
    regexes = [regex for _, regex in found]
    if len({regex.flags for regex in regexes}) != 1:
        return tuple(regexes)
    joined = "|".join(f"(?:{regex.pattern})" for regex in regexes)
    return (re.compile(joined, regexes[0].flags),)


_TYPED: dict[str, tuple[re.Pattern[str], ...]] | None = (
    None
    if None in _RESOLVERS  # a resolver for every first character: ask PyYAML every time
    else {first: _one_pattern(found) for first, found in _RESOLVERS.items()}
)
"""YAML's implicit types (int, float, bool, null, timestamp …) by the first character they are
filed under, as PyYAML's ``Resolver.resolve`` tries them: a plain scalar starting with any
other character is a string without trying any pattern."""
_MEMO = 200_000
"""Entries each memo (plain words, flow lists, entity mappings) keeps at most."""

CASE_FIELDS = frozenset(CASE_KEYS) - {"extra"}
"""The case keys the fast path reads (``extra`` is free-form YAML: left to the YAML reader)."""
TEXT_LISTS = ("parent_intents", "traits", "entity_order", "tags")
ENTITY_FIELDS = frozenset(ENTITY_KEYS) - {"json_value"}
INTENT_FIELDS = frozenset(INTENT_KEYS)


class FastReader:
    """Reads chunks of case items; keeps the memo of plain words across chunks."""

    def __init__(self) -> None:
        self._plain: dict[str, bool] = {}
        self._json: dict[str, str] = {}
        self._texts: dict[str, tuple[str, ...]] = {}
        self._intents: dict[str, tuple[tuple[str, IntentKind | None, str | None], ...]] = {}
        self._entities: dict[str, tuple[Any, ...]] = {}

    # --- scalars ------------------------------------------------------------------------------

    def plain(self, token: str) -> str:
        ok = self._plain.get(token)
        if ok is None:
            ok = _plain_ok(token)
            if len(self._plain) < _MEMO:
                self._plain[token] = ok
        if not ok:
            raise NotCanonical
        return token

    def word(self, token: str) -> str | int:
        """A plain word in a flow mapping: text, or a whole number (an entity's ``start``)."""
        if token.isdigit() and token.isascii():
            return int(token)
        return self.plain(token)

    def scalar(self, text: str) -> str:
        """A whole value written as one scalar."""
        if not text:
            raise NotCanonical
        if text[0] == '"':
            return _quoted(text)
        return self.plain(text)

    def unique(self, text: str) -> str:
        """:meth:`scalar` for a value seldom seen twice (an id, an utterance): not memoised."""
        if text[:1] == '"':
            if text[-1:] == '"' and len(text) > 1 and "\\" not in text and text.count('"') == 2:
                return text[1:-1]  # no escape: JSON and YAML both read the characters as they are
            return _quoted(text)
        if text and _plain_ok(text):
            return text
        raise NotCanonical

    def _as_json(self, match: re.Match[str]) -> str:
        quoted, plain = match.group(1), match.group(2)
        if quoted is not None:
            if "\\" in quoted and _SURROGATE_ESCAPE.search(quoted):
                raise NotCanonical
            return quoted
        if plain is not None:
            found = self._json.get(plain)
            if found is None:
                word = self.word(plain)
                found = str(word) if isinstance(word, int) else json.dumps(word, ensure_ascii=False)
                if len(self._json) < 200_000:
                    self._json[plain] = found
            return found
        return match.group()

    def value(self, text: str) -> Any:
        """A value on one line: a flow collection, or a scalar.

        A flow collection in the writer's layout is JSON once its plain words are quoted:
        each token is checked (a plain word as by :meth:`plain`), the rest left to ``json``,
        whose refusal of anything else (``[a: b]``, ``{a}``, an unclosed bracket) sends the
        chunk to the YAML reader."""
        first = text[:1]
        if first not in ("[", "{"):
            return self.scalar(text)
        if '"' not in text:  # plain words only: most lists and entities, split directly
            plain = self.plain
            if first == "[" and text[-1] == "]" and "[" not in text[1:] and "{" not in text:
                inner = text[1:-1]
                return [plain(word) for word in inner.split(", ")] if inner else []
            if first == "{" and text[-1] == "}" and "{" not in text[1:]:
                return self._plain_mapping(text)
        if not _FLOW_ONLY.fullmatch(text):
            raise NotCanonical
        converted = _FLOW_TOKEN.sub(self._as_json, text)
        try:
            return json.loads(converted)
        except ValueError:
            raise NotCanonical from None

    def _plain_mapping(self, text: str) -> dict[str, Any]:
        """``{key: word, key: [word, word]}`` with plain words only (an entity, an intent)."""
        mapping: dict[str, Any] = {}
        inner = text[1:-1]
        at = 0
        while at < len(inner):  # each pair where the last one ended (no search: that is O(n²))
            match = _PLAIN_PAIR.match(inner, at)
            if match is None:
                raise NotCanonical
            key, value = match.group(1), match.group(2)
            if key in mapping:
                raise NotCanonical
            if value[:1] == "[":
                words = value[1:-1]
                mapping[self.plain(key)] = (
                    [self.plain(w) for w in words.split(", ")] if words else []
                )
            else:
                mapping[self.plain(key)] = self.word(value)
            at = match.end()
        if at != len(inner) or (inner and inner.endswith(", ")):
            raise NotCanonical
        return mapping

    # --- cases --------------------------------------------------------------------------------

    def cases(self, body: str, items: list[int], seen: dict[str, int]) -> list[TestCase]:
        """The cases of one chunk (``items``: the 0-based file line of each item's first line).

        ``seen`` (utterance -> how many cases had it before) is updated only on success."""
        if _UNSAFE.search(body):
            raise NotCanonical
        found = self._layout_cases(body, items, seen)
        if found is not None:
            return found
        lines = body.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if not lines:
            raise NotCanonical
        first = lines[0]
        indent = len(first) - len(first.lstrip(" "))
        item_prefix = " " * indent + "- "
        key_pad = indent + 2
        base = items[0]
        if len(lines) and items[-1] - base >= len(lines):
            raise NotCanonical
        starts = [i for i, line in enumerate(lines) if line.startswith(item_prefix)]
        if [base + i for i in starts] != items:
            raise NotCanonical
        local: dict[str, int] = {}
        out: list[TestCase] = []
        for n, start in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(lines)
            fields = self._fields(lines, start, end, key_pad)
            case = self._case(fields, base + start + 1, seen, local)
            out.append(case)
        for utterance, count in local.items():
            seen[utterance] = count
        return out

    def _layout_cases(
        self, body: str, items: list[int], seen: dict[str, int]
    ) -> list[TestCase] | None:
        """The chunk's cases when every one is in the writer's exact layout, one regex match a
        case (see :func:`_layout`); None as soon as one is not (the line reader then decides).
        A value the layout allows but YAML may read otherwise raises :class:`NotCanonical`."""
        if body[-1:] != "\n":
            body += "\n"  # the file's last line: its missing line break changes nothing
        indent = len(body) - len(body.lstrip(" ")) if body[:1] == " " else 0
        match = _layout(indent).match
        skip = indent + 6  # an entity line: the key's indent, then "  - "
        unique, flow_texts = self.unique, self._flow_texts
        local: dict[str, int] = {}
        out: list[TestCase] = []
        count, pos, end = len(items), 0, len(body)
        while pos < end:
            m = match(body, pos)
            if m is None or len(out) == count:
                return None
            case_id, utterance, intents, parents, traits, entities, order, tags, origin = m.groups()
            pos = m.end()
            utterance = unique(utterance)
            occurrence = local.get(utterance)
            if occurrence is None:
                occurrence = seen.get(utterance, 0)
            local[utterance] = occurrence + 1
            case_id = unique(case_id) or case_id_for(utterance, occurrence)
            out.append(
                TestCase(
                    utterance=utterance,
                    intents=self._flow_intents(intents) if intents else [],
                    traits=flow_texts(traits) if traits else [],
                    parent_intents=flow_texts(parents) if parents else [],
                    entities=[self._flow_entity(line[skip:]) for line in entities.split("\n")[:-1]]
                    if entities
                    else [],
                    entity_order=flow_texts(order) if order else [],
                    tags=flow_texts(tags) if tags else [],
                    id=case_id,
                    extra={},
                    line=items[len(out)] + 1,
                    raw_checks=[],
                    origin=None if origin is None else unique(origin),
                )
            )
        if len(out) != count:
            return None
        seen.update(local)
        return out

    def _flow_texts(self, text: str) -> list[str]:
        """``[a, "b c"]``: a fresh list each time, of texts read once per distinct line."""
        found = self._texts.get(text)
        if found is None:
            found = tuple(_texts(self.value(text)))
            if len(self._texts) < _MEMO:
                self._texts[text] = found
        return list(found)

    def _flow_intents(self, text: str) -> list[ExpectedIntent]:
        found = self._intents.get(text)
        if found is None:
            found = tuple((i.name, i.kind, i.bot) for i in _intents(self.value(text)))
            if len(self._intents) < _MEMO:
                self._intents[text] = found
        return [ExpectedIntent(name, kind, bot) for name, kind, bot in found]

    def _flow_entity(self, text: str) -> ExpectedEntity:
        """``{name: amount, value: 3 USD}``: a new entity, from fields read once per text."""
        found = self._entities.get(text)
        if found is None:
            if text[:1] != "{":
                raise NotCanonical
            e = _entity(self.value(text))
            found = (e.name, e.value, e.kind, tuple(e.alternatives), e.text, e.start, e.end)
            found += (e.match_index, e.role, e.group)
            if len(self._entities) < _MEMO:
                self._entities[text] = found
        name, value, kind, alternatives, text_, start, end, match_index, role, group = found
        return ExpectedEntity(
            name, value, kind, list(alternatives), text_, start, end, match_index, role, group
        )

    def _fields(self, lines: list[str], start: int, end: int, pad: int) -> dict[str, Any]:
        """``key -> value`` of one case item (a block value as its list of item texts)."""
        fields: dict[str, Any] = {}
        key_prefix = " " * pad
        sub_prefix = " " * (pad + 2) + "- "
        cont_prefix = " " * (pad + 4)
        i = start
        while i < end:
            line = lines[i]
            rest = line[pad:]
            if i == start:
                if line[pad - 2 : pad] != "- ":
                    raise NotCanonical
            elif not line.startswith(key_prefix) or rest[:1] in (" ", "-", ""):
                raise NotCanonical
            key, sep, value = rest.partition(":")
            if key not in CASE_FIELDS or key in fields or not sep:
                raise NotCanonical
            i += 1
            if value:
                if value[0] != " " or len(value) < 2:
                    raise NotCanonical
                fields[key] = self.value(value[1:])
                continue
            block: list[Any] = []  # ``key:`` then ``- item`` lines two deeper
            while i < end and lines[i].startswith(sub_prefix):
                head = lines[i][pad + 4 :]
                i += 1
                if key != "entities" or head[:1] in ("{", '"'):
                    block.append(self.value(head))
                    continue
                # an entity as a block mapping: its first pair here, the others below
                entry: dict[str, Any] = {}
                self._pair(entry, head)
                while i < end and lines[i].startswith(cont_prefix) and lines[i][pad + 4] != " ":
                    self._pair(entry, lines[i][pad + 4 :])
                    i += 1
                block.append(entry)
            if not block:
                raise NotCanonical  # ``key:`` with nothing below is null: YAML decides
            fields[key] = block
        return fields

    def _pair(self, entry: dict[str, Any], text: str) -> None:
        key, sep, value = text.partition(": ")
        if not sep or key in entry or not key or not value:
            raise NotCanonical
        entry[self.plain(key)] = (
            self.word(value) if value.isdigit() and value.isascii() else self.value(value)
        )

    def _case(
        self, fields: dict[str, Any], line: int, seen: dict[str, int], local: dict[str, int]
    ) -> TestCase:
        utterance = fields.get("utterance")
        if not isinstance(utterance, str):
            raise NotCanonical
        occurrence = local.get(utterance, seen.get(utterance, 0))
        local[utterance] = occurrence + 1
        case_id = fields.get("id", "")
        if not isinstance(case_id, str):
            raise NotCanonical
        if not case_id:
            case_id = case_id_for(utterance, occurrence)
        lists: dict[str, list[str]] = {}
        for key in TEXT_LISTS:
            lists[key] = _texts(fields.get(key, []))
        origin = fields.get("origin")
        if origin is not None and not isinstance(origin, str):
            raise NotCanonical
        return TestCase(
            utterance=utterance,
            intents=_intents(fields.get("intents", [])),
            traits=lists["traits"],
            parent_intents=lists["parent_intents"],
            entities=[_entity(e) for e in _list(fields.get("entities", []))],
            entity_order=lists["entity_order"],
            tags=lists["tags"],
            id=case_id,
            extra={},
            line=line,
            raw_checks=_raw_checks(fields["raw"]) if "raw" in fields else [],
            origin=origin,
        )


_LAYOUTS: dict[int, re.Pattern[str]] = {}


def _layout(indent: int) -> re.Pattern[str]:
    """One case item exactly as :func:`nlu_tui.formats.native_writer.case_lines` writes it with
    one-line values (items at ``indent``): its keys in the writer's order, each at most once,
    then nothing else up to the next item. Groups: id, utterance, intents, parent_intents,
    traits, the entity lines, entity_order, tags, origin."""
    found = _LAYOUTS.get(indent)
    if found is None:
        item, key, line = " " * indent, " " * (indent + 2), "([^\\n]*)\\n"
        flow = "(\\[[^\\n]*)\\n"
        found = _LAYOUTS[indent] = re.compile(
            f"{item}- id: {line}{key}utterance: {line}"
            f"(?:{key}intents: {flow})?(?:{key}parent_intents: {flow})?(?:{key}traits: {flow})?"
            f"(?:{key}entities:\\n((?:{key}  - \\{{[^\\n]*\\n)+))?"
            f"(?:{key}entity_order: {flow})?(?:{key}tags: {flow})?(?:{key}origin: {line})?"
        )
    return found


def _plain_ok(token: str) -> bool:
    """Whether the plain scalar ``token`` is written as the writer writes a plain word and YAML
    reads it as this very string (see :func:`nlu_tui.formats.native_writer.yaml_scalar`; the
    writer's printability check is the chunk's, :data:`_UNSAFE`)."""
    return bool(_PLAIN.fullmatch(token) and token[-1] != " " and _untyped(token))


def _untyped(token: str) -> bool:
    """``_reads_as_text`` without PyYAML's per-call overhead (most words try no pattern)."""
    if _TYPED is None:
        return _reads_as_text(token)
    typed = _TYPED.get(token[0])
    if typed is None:
        return True
    if len(typed) == 1:
        return typed[0].match(token) is None
    return not any(regex.match(token) for regex in typed)


def _quoted(token: str) -> str:
    if len(token) < 2 or token[-1] != '"' or ("\\" in token and _SURROGATE_ESCAPE.search(token)):
        raise NotCanonical
    try:
        value = json.loads(token)
    except ValueError:
        raise NotCanonical from None
    if not isinstance(value, str):
        raise NotCanonical
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise NotCanonical
    return value


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = _list(value)
    for item in items:
        if type(item) is not str:
            raise NotCanonical
    return items


def _raw_checks(value: Any) -> list[str]:
    """``raw:`` checks, each compiled as the YAML reader does; one that does not compile is
    left to the YAML reader, which reports it at its line."""
    checks = _texts(value)
    for check in checks:
        try:
            compiled_check(check)
        except RawCheckError:
            raise NotCanonical from None
    return checks


def _intents(value: Any) -> list[ExpectedIntent]:
    if isinstance(value, str):
        return [ExpectedIntent(value)]
    result: list[ExpectedIntent] = []
    for item in _list(value):
        if isinstance(item, str):
            result.append(ExpectedIntent(item))
            continue
        if not isinstance(item, dict) or not INTENT_FIELDS.issuperset(item):
            raise NotCanonical
        name, raw, bot = item.get("name"), item.get("kind"), item.get("bot")
        if not isinstance(name, str) or not all(
            v is None or isinstance(v, str) for v in (raw, bot)
        ):
            raise NotCanonical
        kind = _kind(IntentKind, raw) if raw else None
        result.append(ExpectedIntent(name, kind, bot))
    return result


def _entity(value: Any) -> ExpectedEntity:
    if not isinstance(value, dict) or not ENTITY_FIELDS.issuperset(value):
        raise NotCanonical
    name = value.get("name")
    if not isinstance(name, str):
        raise NotCanonical
    entity = ExpectedEntity(name=name)
    for key, item in value.items():
        if key == "name":
            continue
        if key == "alternatives":
            entity.alternatives = _texts(item)
            continue
        if key in ("start", "end", "match_index") and isinstance(item, int):
            setattr(entity, key, item)  # a plain whole number, read as YAML's int
            continue
        if not isinstance(item, str):
            raise NotCanonical
        if key == "value":
            entity.value = item
        elif key == "kind":
            if item:
                entity.kind = _kind(ValueKind, item)
        elif key in ("start", "end", "match_index"):
            try:
                number = int(item)
            except ValueError:
                raise NotCanonical from None
            if number < 0:
                raise NotCanonical
            setattr(entity, key, number)
        else:  # text, role, group
            setattr(entity, key, item)
    return entity


def _kind(enum: Any, raw: str) -> Any:
    member = kind_value(enum, raw)
    if member is None:
        raise NotCanonical
    return member
