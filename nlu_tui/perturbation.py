"""Seeded, deterministic perturbations of a suite's utterances (``nlu-tui perturb``): typos,
letter case, punctuation and dropped words, the way Botium's "humanification" roughens a test
set, without an LLM.

Each case's random draws come from its own generator, seeded with the run's seed and the
case id, so the same seed gives the same suite byte for byte, whatever the order of the cases
or the Python process. Expectations are kept:

- intents, traits, parent intents and ``raw:`` checks are copied as they are;
- an expected entity whose place in the utterance is known (``start``/``end``, or its ``text``
  or plain ``value`` found in the utterance) is protected: no typo or dropped word touches it,
  and its ``start``/``end``/``text`` follow the edits (a case change is kept: values compare
  case-insensitively);
- an expected entity whose place is unknown (a normalised value such as ``200 USD`` for "200
  dollars", a regular expression, a composite value) cannot be protected: when a perturbation
  other than letter case changed the utterance, it is dropped from the perturbed case and the
  drop is reported (:attr:`Perturbed.notes`).

Each perturbed case has a new id (``<id>~p<seed>``), ``origin`` set to the original's id and
``extra["perturbed"]`` naming what changed it, so a robustness report pairs them.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace

from nlu_tui.model import ExpectedEntity, Suite, TestCase, ValueKind

KEYBOARD_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
"""Neighbouring keys (a QWERTY keyboard) for substitution typos."""

_NEIGHBOURS: dict[str, str] = {}
for _row in KEYBOARD_ROWS:
    for _i, _ch in enumerate(_row):
        _NEIGHBOURS[_ch] = _row[max(0, _i - 1) : _i] + _row[_i + 1 : _i + 2]

_WORD = re.compile(r"\w+(?:['\u2019]\w+)*")
"""A word, with its inner apostrophes (``I'll`` is one word)."""
_PUNCT = re.compile(r"[!?.,;:]+(?=\s|$)")
"""Punctuation ending a word (``200.50`` and ``e.g`` inside a word are left alone)."""
_COMPOSITE = re.compile(r"^[^|:]+:[^|]*(\|[^|:]+:[^|]*)+$")
"""Kore.ai's composite value ``c1:v|c2:v`` (its parts are not text of the utterance)."""
ENDINGS = ("?", "!", ".", "...")
CASE_STYLES = ("lower", "upper", "title")


@dataclass(frozen=True)
class PerturbOptions:
    """What to do: typo and word-drop rates (0..1, per word), case and punctuation switches."""

    typos: float = 0.0
    case: bool = False
    punctuation: bool = False
    drop_words: float = 0.0
    seed: int = 0

    def check(self) -> None:
        """Rates outside 0..1 are bad input (``ValueError`` naming the option)."""
        for name, rate in (("--typos", self.typos), ("--drop-words", self.drop_words)):
            if not 0.0 <= rate <= 1.0:  # NaN fails too
                raise ValueError(f"{name}: a rate from 0 to 1, not {rate}")
        if not (self.typos or self.case or self.punctuation or self.drop_words):
            raise ValueError("give at least one of --typos, --case, --punctuation, --drop-words")

    def describe(self) -> dict[str, object]:
        return {
            "seed": self.seed,
            "typos": self.typos,
            "case": self.case,
            "punctuation": self.punctuation,
            "drop_words": self.drop_words,
        }


@dataclass
class Perturbed:
    suite: Suite
    notes: list[str] = field(default_factory=list)
    """One line per entity expectation dropped (its place in the utterance is unknown)."""
    changed: int = 0
    """Cases whose utterance the perturbations changed."""


class _Text:
    """An utterance being edited, with a map from each original offset to the new one."""

    def __init__(self, text: str) -> None:
        self.chars: list[str] = list(text)
        self.origin: list[int | None] = list(range(len(text)))  # original index of each char

    def text(self) -> str:
        return "".join(self.chars)

    def new_span(self, start: int, end: int) -> tuple[int, int] | None:
        """Where original ``start..end`` lies now (None when none of it is left)."""
        idx = [i for i, o in enumerate(self.origin) if o is not None and start <= o < end]
        return (idx[0], idx[-1] + 1) if idx else None


def _locate(entity: ExpectedEntity, utterance: str) -> list[tuple[int, int]] | None:
    """The entity's spans in the utterance, when known or findable: its ``start``/``end``, or
    its ``text``, or its plain value (each item of a multi-item ``a||b`` value)."""
    start, end = entity.start, entity.end
    if start is not None and end is not None and 0 <= start < end <= len(utterance):
        return [(start, end)]
    lowered = utterance.casefold()
    probes: list[list[str]] = []
    if entity.text:
        probes.append([entity.text])
    if entity.kind in (ValueKind.AUTO, ValueKind.EXACT, ValueKind.MULTI) and entity.value:
        parts = [p.strip() for p in entity.value.split("||")]
        if all(parts) and not (entity.kind is ValueKind.AUTO and _COMPOSITE.search(entity.value)):
            probes.append(parts)
    for parts in probes:
        spans = []
        for part in parts:
            at = lowered.find(part.casefold())
            if at < 0:
                break
            spans.append((at, at + len(part)))
        else:
            return spans
    return None


def _typo(word: str, rng: random.Random) -> str:
    """One typo in a word: swap two neighbours, drop, double or mistype a letter."""
    if len(word) < 2:
        return word
    i = rng.randrange(len(word) - 1) if len(word) > 2 else 0
    kind = rng.randrange(4)
    if kind == 0 and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == 1:
        return word[:i] + word[i + 1 :]
    if kind == 2:
        return word[: i + 1] + word[i] + word[i + 1 :]
    ch = word[i]
    near = _NEIGHBOURS.get(ch.lower(), "")
    if not near:
        return word[: i + 1] + word[i] + word[i + 1 :]
    sub = near[rng.randrange(len(near))]
    return word[:i] + (sub.upper() if ch.isupper() else sub) + word[i + 1 :]


def _words(text: _Text, protected: list[bool]) -> list[tuple[int, int]]:
    """Current (start, end) of each word none of whose original characters is protected."""
    current = text.text()
    origin = text.origin
    return [
        (m.start(), m.end())
        for m in _WORD.finditer(current)
        if not any(o is not None and protected[o] for o in origin[m.start() : m.end()])
    ]


def _replace(text: _Text, start: int, end: int, new: str) -> None:
    """Replace chars ``start..end``: kept chars keep their origin where the word's length
    allows, added chars have none (an entity span never holds them)."""
    old_origin = text.origin[start:end]
    origin: list[int | None] = [
        old_origin[i] if i < len(old_origin) else None for i in range(len(new))
    ]
    text.chars[start:end] = list(new)
    text.origin[start:end] = origin


def perturb_case(case: TestCase, options: PerturbOptions) -> tuple[TestCase, list[str], list[str]]:
    """(the perturbed case, what changed it, notes on dropped entity expectations)."""
    rng = random.Random(f"{options.seed}:{case.id}")
    source = case.utterance
    spans = [_locate(e, source) for e in case.entities]
    protected = [False] * len(source)  # per original character: inside an expected entity
    for located in spans:
        for start, end in located or ():
            protected[start:end] = [True] * (end - start)
    any_protected = any(protected)
    text = _Text(source)
    applied: list[str] = []
    if options.drop_words:
        words = _words(text, protected)
        drop = [w for w in words if rng.random() < options.drop_words]
        if drop and len(drop) == len(words) and not any_protected:
            drop = drop[:-1]  # never the whole utterance
        for start, end in reversed(drop):
            # the word and the space after it (or before it, at the end)
            s, e = start, end
            if e < len(text.chars) and text.chars[e] == " ":
                e += 1
            elif s > 0 and text.chars[s - 1] == " ":
                s -= 1
            del text.chars[s:e]
            del text.origin[s:e]
        if drop:
            applied.append("drop_words")
    if options.typos:
        hit = False
        for start, end in reversed(_words(text, protected)):
            if end - start < 3 or rng.random() >= options.typos:
                continue
            word = "".join(text.chars[start:end])
            new = _typo(word, rng)
            if new != word:
                _replace(text, start, end, new)
                hit = True
        if hit:
            applied.append("typos")
    if options.punctuation:
        current = text.text()
        found = list(_PUNCT.finditer(current))
        outside = [
            m
            for m in found
            if not any(o is not None and protected[o] for o in text.origin[m.start() : m.end()])
        ]
        if outside:
            for m in reversed(outside):
                del text.chars[m.start() : m.end()]
                del text.origin[m.start() : m.end()]
            while text.chars and text.chars[-1] == " ":
                text.chars.pop()
                text.origin.pop()
        else:
            ending = ENDINGS[rng.randrange(len(ENDINGS))]
            text.chars.extend(ending)
            text.origin.extend([None] * len(ending))
        applied.append("punctuation")
    if options.case:
        style = CASE_STYLES[rng.randrange(len(CASE_STYLES))]
        current = text.text()
        changed = (
            current.lower()
            if style == "lower"
            else current.upper()
            if style == "upper"
            else current.title()
        )
        if len(changed) == len(current) and changed != current:  # no length change (ß → SS)
            text.chars = list(changed)
            applied.append("case")
    utterance = text.text()
    notes: list[str] = []
    entities: list[ExpectedEntity] = []
    # Letter case alone never breaks an expectation: values compare case-insensitively.
    only_case = not [a for a in applied if a != "case"]
    for entity, located in zip(case.entities, spans, strict=True):
        if located is None:
            if not only_case:
                notes.append(
                    f"case {case.id}: entity {entity.name!r} dropped from the perturbed case "
                    "(its place in the utterance is unknown, so it could not be protected)"
                )
                continue
            entities.append(replace(entity, alternatives=list(entity.alternatives)))
            continue
        moved = replace(entity, alternatives=list(entity.alternatives))
        if len(located) == 1:
            now = text.new_span(*located[0])
            if now is None:  # cannot happen to a protected span; never keep a false one
                notes.append(f"case {case.id}: entity {entity.name!r} dropped (text removed)")
                continue
            if entity.start is not None or entity.end is not None:
                moved.start, moved.end = now
            if entity.text is not None:
                moved.text = utterance[now[0] : now[1]]
        entities.append(moved)
    perturbed = replace(
        case,
        utterance=utterance,
        id=f"{case.id}~p{options.seed}",
        intents=[replace(i) for i in case.intents],
        traits=list(case.traits),
        parent_intents=list(case.parent_intents),
        entities=entities,
        entity_order=[n for n in case.entity_order if any(e.name == n for e in entities)],
        tags=list(case.tags),
        extra={**case.extra, "perturbed": applied},
        raw_checks=list(case.raw_checks),
        origin=case.id,
        line=None,
    )
    return perturbed, applied, notes


def perturb_suite(suite: Suite, options: PerturbOptions) -> Perturbed:
    """Every case of ``suite`` perturbed (:func:`perturb_case`), in order, as a new suite."""
    options.check()
    out = Suite(
        name=f"{suite.name} (perturbed)",
        description=suite.description,
        training=suite.training,
        extra={
            **suite.extra,
            "perturbation": {"suite": suite.name, **options.describe()},
        },
    )
    result = Perturbed(out)
    for case in suite.cases:
        new, _applied, notes = perturb_case(case, options)
        out.cases.append(new)
        result.notes.extend(notes)
        if new.utterance != case.utterance:
            result.changed += 1
    return result
