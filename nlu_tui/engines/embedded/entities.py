"""Entity extraction from what the training data says: annotated values, lookups, regexes, synonyms.

A gazetteer of every annotated surface form (and the synonyms of its value) finds entities the
bot was taught; lookup tables and regexes, named after their entity as in Rasa, find the rest.
Where matches overlap the longest wins, then annotated beats lookup beats regex. Values are
normalised through the synonyms the way Rasa's ``EntitySynonymMapper`` does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.model import ExpectedEntity, PredictedEntity

_ANNOTATED, _LOOKUP, _REGEX = 0, 1, 2
_EXTRACTOR = {
    _ANNOTATED: "embedded:annotated",
    _LOOKUP: "embedded:lookup",
    _REGEX: "embedded:regex",
}
_GAZETTEER_CHUNK = 2000  # alternatives per compiled pattern: keeps big lookup tables compilable


@dataclass(frozen=True)
class _Entry:
    name: str
    value: str | None  # the annotated normalised value when it differs from the surface text
    role: str | None = None
    group: str | None = None


@dataclass
class _Candidate:
    start: int
    end: int
    name: str
    value: str
    role: str | None
    group: str | None
    source: int


@dataclass
class EntityExtractor:
    """Compiled matchers (patterns are kept as strings and compiled lazily)."""

    gazetteer: dict[str, _Entry] = field(default_factory=dict)  # lower-cased surface -> entry
    lookups: dict[str, list[str]] = field(default_factory=dict)  # entity -> items
    regexes: dict[str, list[str]] = field(default_factory=dict)  # entity -> patterns
    synonyms: dict[str, str] = field(default_factory=dict)  # lower-cased variant -> canonical
    _compiled: list[tuple[int, re.Pattern[str], dict[str, _Entry] | str]] | None = field(
        default=None, repr=False, compare=False
    )

    @classmethod
    def build(
        cls,
        examples: Iterable[tuple[str, Sequence[ExpectedEntity]]],
        synonyms: Mapping[str, Sequence[str]],
        regexes: Mapping[str, Sequence[str]],
        lookups: Mapping[str, Sequence[str]],
        source: str | None = None,
    ) -> EntityExtractor:
        """Learn surface forms from annotated examples; check every regex compiles."""
        syn: dict[str, str] = {}
        for canonical, variants in synonyms.items():
            for variant in [canonical, *variants]:
                syn[str(variant).strip().lower()] = str(canonical)
        votes: dict[str, Counter[_Entry]] = {}
        for text, entities in examples:
            for ent in entities:
                surface = ent.text
                if surface is None and ent.start is not None and ent.end is not None:
                    surface = text[ent.start : ent.end]
                if surface is None:
                    surface = ent.value
                surface = surface.strip()
                if not surface:
                    continue
                value = ent.value if ent.value and ent.value != surface else None
                entry = _Entry(ent.name, value, ent.role, ent.group)
                votes.setdefault(surface.lower(), Counter())[entry] += 1
        gazetteer = {surface: _elect(counter) for surface, counter in votes.items()}
        # Synonym variants of a value the bot annotated are that entity too (roles are contextual:
        # a variant gets none).
        by_value: dict[str, _Entry] = {}
        for surface, entry in gazetteer.items():
            by_value.setdefault((entry.value or surface).lower(), entry)
        for variant, canonical in syn.items():
            known = by_value.get(canonical.lower())
            if known is not None and variant not in gazetteer:
                gazetteer[variant] = _Entry(known.name, canonical)
        for name, patterns in regexes.items():
            for pattern in patterns:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise InputError(
                        f"regex {pattern!r} does not compile: {exc}",
                        path=source,
                        field=f"regex:{name}",
                    ) from None
        return cls(
            gazetteer=gazetteer,
            lookups={k: [str(i) for i in v if str(i).strip()] for k, v in lookups.items()},
            regexes={k: [str(p) for p in v] for k, v in regexes.items()},
            synonyms=syn,
        )

    def to_data(self) -> dict[str, Any]:
        """Plain JSON data (the model cache stores it; :meth:`from_data` reads it back)."""
        return {
            "gazetteer": {s: [e.name, e.value, e.role, e.group] for s, e in self.gazetteer.items()},
            "lookups": self.lookups,
            "regexes": self.regexes,
            "synonyms": self.synonyms,
        }

    @classmethod
    def from_data(cls, data: Any) -> EntityExtractor:
        """The extractor :meth:`to_data` described; ValueError when ``data`` is not that shape."""
        if not isinstance(data, dict):
            raise ValueError("extractor: not a mapping")
        gazetteer: dict[str, _Entry] = {}
        for surface, entry in _mapping(data.get("gazetteer")).items():
            if not isinstance(entry, list) or len(entry) != 4 or not isinstance(entry[0], str):
                raise ValueError("extractor: a gazetteer entry is not [name, value, role, group]")
            if not all(part is None or isinstance(part, str) for part in entry[1:]):
                raise ValueError("extractor: a gazetteer entry holds a non-string")
            gazetteer[surface] = _Entry(entry[0], entry[1], entry[2], entry[3])
        synonyms = _mapping(data.get("synonyms"))
        if not all(isinstance(v, str) for v in synonyms.values()):
            raise ValueError("extractor: a synonym is not a string")
        return cls(
            gazetteer=gazetteer,
            lookups=_string_lists(data.get("lookups")),
            regexes=_string_lists(data.get("regexes")),
            synonyms=dict(synonyms),
        )

    def _matchers(self) -> list[tuple[int, re.Pattern[str], dict[str, _Entry] | str]]:
        if self._compiled is None:
            compiled: list[tuple[int, re.Pattern[str], dict[str, _Entry] | str]] = []
            compiled.extend(
                (_ANNOTATED, pattern, self.gazetteer) for pattern in _word_patterns(self.gazetteer)
            )
            for name, items in self.lookups.items():
                compiled.extend((_LOOKUP, pattern, name) for pattern in _word_patterns(items))
            for name, patterns in self.regexes.items():
                compiled.extend((_REGEX, re.compile(p, re.IGNORECASE), name) for p in patterns if p)
            self._compiled = compiled
        return self._compiled

    def normalise(self, text: str, annotated: str | None = None) -> str:
        """The synonym's canonical value, else the annotated value, else the text itself."""
        canonical = self.synonyms.get(text.strip().lower())
        if canonical is not None:
            return canonical
        return annotated if annotated is not None else text

    def extract(self, text: str) -> list[PredictedEntity]:
        """Non-overlapping entities in text order, with code-point offsets (end exclusive)."""
        candidates: list[_Candidate] = []
        for source, pattern, target in self._matchers():
            for match in pattern.finditer(text):
                start, end = match.span()
                if end <= start:
                    continue
                surface = text[start:end]
                if isinstance(target, dict):
                    entry = target.get(surface.lower())
                    if entry is None:
                        continue
                    value = self.normalise(surface, entry.value)
                    candidates.append(
                        _Candidate(start, end, entry.name, value, entry.role, entry.group, source)
                    )
                else:
                    value = self.normalise(surface)
                    candidates.append(_Candidate(start, end, target, value, None, None, source))
        candidates.sort(key=lambda c: (-(c.end - c.start), c.source, c.start))
        chosen: list[_Candidate] = []
        for cand in candidates:
            if all(cand.end <= c.start or cand.start >= c.end for c in chosen):
                chosen.append(cand)
        chosen.sort(key=lambda c: c.start)
        return [
            PredictedEntity(
                name=c.name,
                value=c.value,
                text=text[c.start : c.end],
                start=c.start,
                end=c.end,
                confidence=1.0,
                role=c.role,
                group=c.group,
                extractor=_EXTRACTOR[c.source],
            )
            for c in chosen
        ]


def _elect(votes: Counter[_Entry]) -> _Entry:
    """The most frequent entity and value for a surface form; a role or group only if every
    annotation of that entity agrees on it (a gazetteer cannot tell contexts apart)."""
    tally: Counter[tuple[str, str | None]] = Counter()
    for entry, count in votes.items():
        tally[(entry.name, entry.value)] += count
    (name, value), _ = tally.most_common(1)[0]
    same = [e for e in votes if e.name == name]
    roles = {e.role for e in same}
    groups = {e.group for e in same}
    return _Entry(
        name,
        value,
        roles.pop() if len(roles) == 1 else None,
        groups.pop() if len(groups) == 1 else None,
    )


def _word_patterns(items: Iterable[str]) -> list[re.Pattern[str]]:
    """Case-insensitive whole-word alternations, longest first so the longest form wins."""
    words = sorted({i.strip().lower() for i in items if i.strip()}, key=lambda s: (-len(s), s))
    patterns = []
    for i in range(0, len(words), _GAZETTEER_CHUNK):
        chunk = words[i : i + _GAZETTEER_CHUNK]
        alternation = "|".join(re.escape(w) for w in chunk)
        patterns.append(re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", re.IGNORECASE))
    return patterns


def _mapping(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ValueError("extractor: expected a mapping of strings")
    return value


def _string_lists(value: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, items in _mapping(value).items():
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise ValueError(f"extractor: {key!r} is not a list of strings")
        out[key] = list(items)
    return out
