"""Coverage and health of a suite against a bot's inventory, and training recommendations.

Seed 000's Batch Testing dashboard "displays the summary of test coverage, performance, and
training recommendations"; this module computes them, without I/O or a face:

- **coverage**: which of the bot's intents and entities (its training data, or the intents a
  vendor engine lists) the suite never tests, which intents it tests with fewer than
  ``min_cases`` cases, and which intents the suite expects that the bot does not have (such
  a case can never pass). A case expecting several intents covers each of them (seed 000:
  "Intent 1 and Intent 2 are shown as covered").
- **leakage**: test utterances identical to a training example (compared case-insensitively,
  punctuation and repeated spaces ignored) or near-identical (``difflib`` similarity of the
  normalised texts at least ``near``, 0.9 by default): they measure recall of the training
  set, not of new user phrasings.
- **performance** per intent from a stored run (precision, recall, F1, support and what a
  missed intent was taken for, :func:`nlu_tui.scoring.intent_report.build_intent_report`),
  and **recommendations**: each intent whose recall is below ``target_recall`` with its
  confusions and the missed utterances to add as training examples, then the intents to test.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

# the defaults live where `nlu-tui --help` can read them without importing this module
from nlu_tui.defaults import DEFAULT_MIN_CASES as DEFAULT_MIN_CASES
from nlu_tui.defaults import DEFAULT_NEAR as DEFAULT_NEAR
from nlu_tui.defaults import DEFAULT_TARGET_RECALL as DEFAULT_TARGET_RECALL
from nlu_tui.model import CaseResult, IntentKind, Prediction, ResultType, Suite, TestCase

if TYPE_CHECKING:  # scoring is imported when a report is built, not by ``nlu-tui --help``
    from nlu_tui.scoring.case import ScoringOptions

MAX_UTTERANCES_SHOWN = 5
"""Missed utterances listed per recommendation (all are in the JSON)."""

_PUNCT = re.compile(r"[^\w\s]+")
_SPACE = re.compile(r"\s+")


@dataclass
class Inventory:
    """What the bot knows: intents (in order), their kinds, entities and training examples."""

    source: str
    intents: list[str]
    entities: list[str] = field(default_factory=list)
    examples: list[tuple[str, str]] = field(default_factory=list)
    """(text, intent) of every training example."""
    kinds: dict[str, IntentKind] = field(default_factory=dict)
    traits: list[str] = field(default_factory=list)
    entities_listed: bool = True
    """False when the source lists no entities (a vendor engine's intents only): the suite's
    entities are then not reported as missing from the bot."""

    @classmethod
    def from_training(cls, data: Any, source: str) -> Inventory:
        """From :class:`nlu_tui.training.TrainingData` (intents of kind ``trait`` are traits)."""
        kinds = {}
        for name in data.intents:
            kind = data.intent_kind(name)
            if kind is not None:
                kinds[name] = kind
        traits = [n for n in data.intents if kinds.get(n) is IntentKind.TRAIT]
        return cls(
            source=source,
            intents=[n for n in data.intents if n not in traits],
            traits=traits,
            entities=list(data.entity_names),
            examples=[(ex.text, ex.intent) for ex in data.examples],
            kinds=kinds,
        )


@dataclass
class Leak:
    case_id: str
    utterance: str
    example: str
    example_intent: str
    similarity: float

    @property
    def identical(self) -> bool:
        return self.similarity >= 1.0


@dataclass
class Recommendation:
    text: str
    utterances: list[str] = field(default_factory=list)
    """The utterances to add as training examples (for an intent to train)."""


@dataclass
class IntentHealth:
    """One intent's performance in a run (one-vs-rest, scored cases only)."""

    intent: str
    support: int
    precision: float
    recall: float
    f1: float
    confused_with: list[tuple[str, int]] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    """Utterances that expected this intent and did not get it (training candidates)."""


@dataclass
class Coverage:
    suite: str
    inventory: str
    cases: int
    intents: int
    tested: dict[str, int]
    """Cases per inventory intent (0 for the untested ones), in inventory order."""
    untested: list[str]
    under_tested: list[tuple[str, int]]
    unknown: list[tuple[str, int]]
    """Intents the suite expects that the inventory lacks, with their case counts."""
    entities_untested: list[str]
    entities_unknown: list[str]
    leaks: list[Leak]
    min_cases: int
    near: float
    traits_untested: list[str] = field(default_factory=list)
    """Traits of the bot no case expects."""
    entities_listed: bool = True
    """False when the inventory lists no entities: the entity lines say nothing then."""
    examples_listed: bool = True
    """False when the inventory lists no training examples: leakage was not checked."""
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per intent kind (dialog, faq, small_talk): intents in the inventory and tested."""
    run_id: str | None = None
    run_stage: str | None = None
    """The version the run tested (development, published), when known."""
    health: list[IntentHealth] = field(default_factory=list)
    by_type: list[dict[str, Any]] = field(default_factory=list)
    """The run's results per intent type (dialog, faq, small_talk, trait): cases, errors,
    tp, tn, fp, fn, precision, recall, f1 (:mod:`nlu_tui.scoring.slices`)."""
    target_recall: float = DEFAULT_TARGET_RECALL

    @property
    def covered_share(self) -> float:
        return (self.intents - len(self.untested)) / self.intents if self.intents else 0.0

    @property
    def weak(self) -> list[IntentHealth]:
        """Intents under the target recall, weakest first."""
        found = [h for h in self.health if h.support and h.recall < self.target_recall]
        return sorted(found, key=lambda h: (h.recall, -h.support, h.intent))

    def recommendations(self) -> list[Recommendation]:
        """What to do, most useful first (plain text; names are the user's and the bot's)."""
        out: list[Recommendation] = []
        for h in self.weak:
            confused = ", ".join(f"{name} ({n})" for name, n in h.confused_with[:3])
            line = (
                f"train {h.intent}: recall {h.recall:.2f} over {h.support} case(s)"
                + (f", taken for {confused}" if confused else "")
                + f"; add these {len(h.missed)} utterance(s) as training examples"
            )
            out.append(Recommendation(line, list(h.missed)))
        if self.untested:
            out.append(Recommendation(f"test {len(self.untested)} intent(s) the suite never tests"))
        if self.traits_untested:
            out.append(
                Recommendation(f"test {len(self.traits_untested)} trait(s) the suite never tests")
            )
        if self.under_tested:
            out.append(
                Recommendation(
                    f"add cases to {len(self.under_tested)} intent(s) tested by fewer than "
                    f"{self.min_cases} cases"
                )
            )
        if self.unknown:
            out.append(
                Recommendation(
                    f"check {len(self.unknown)} expected intent(s) the bot does not have "
                    "(such cases can never pass)"
                )
            )
        identical = sum(1 for leak in self.leaks if leak.identical)
        if self.leaks:
            out.append(
                Recommendation(
                    f"rephrase {len(self.leaks)} test utterance(s) copied from the training data "
                    f"({identical} identical, {len(self.leaks) - identical} near-identical)"
                )
            )
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "inventory": self.inventory,
            "cases": self.cases,
            "intents": self.intents,
            "covered_share": self.covered_share,
            "min_cases": self.min_cases,
            "tested": self.tested,
            "untested": self.untested,
            "under_tested": [{"intent": i, "cases": n} for i, n in self.under_tested],
            "unknown": [{"intent": i, "cases": n} for i, n in self.unknown],
            "entities_untested": self.entities_untested,
            "entities_unknown": self.entities_unknown,
            "entities_listed": self.entities_listed,
            "examples_listed": self.examples_listed,
            "traits_untested": self.traits_untested,
            "kinds": self.kinds,
            "leakage": {
                "near": self.near,
                "leaks": [
                    {
                        "case_id": leak.case_id,
                        "utterance": leak.utterance,
                        "training_example": leak.example,
                        "training_intent": leak.example_intent,
                        "similarity": round(leak.similarity, 4),
                    }
                    for leak in self.leaks
                ],
            },
            "run_id": self.run_id,
            "run_stage": self.run_stage,
            "results_by_type": self.by_type,
            "target_recall": self.target_recall,
            "performance": [
                {
                    "intent": h.intent,
                    "support": h.support,
                    "precision": h.precision,
                    "recall": h.recall,
                    "f1": h.f1,
                    "confused_with": dict(h.confused_with),
                    "missed": h.missed,
                }
                for h in self.health
            ],
            "recommendations": [
                {"text": r.text, "utterances": r.utterances} for r in self.recommendations()
            ],
        }


def normalise(text: str) -> str:
    """The form utterances are compared in for leakage."""
    return _SPACE.sub(" ", _PUNCT.sub(" ", text.casefold())).strip()


def case_intents(case: TestCase, options: ScoringOptions | None = None) -> list[str]:
    """The intents a case covers: each expected intent once (negative names excluded)."""
    if options is None:
        from nlu_tui.scoring.case import DEFAULT_OPTIONS

        options = DEFAULT_OPTIONS
    return list(
        dict.fromkeys(i.name.strip() for i in case.intents if not options.is_negative(i.name))
    )


def find_leaks(
    cases: Sequence[TestCase], examples: Sequence[tuple[str, str]], near: float = DEFAULT_NEAR
) -> list[Leak]:
    """Cases whose utterance is identical or near-identical to a training example.

    Identical texts are found by a dictionary lookup; near ones by ``difflib`` against the
    examples of similar length (a ratio of at least ``near`` needs lengths within that ratio),
    with its cheap upper bounds checked first.
    """
    exact: dict[str, tuple[str, str]] = {}
    by_length: dict[int, list[tuple[str, str, str]]] = {}
    for text, intent in examples:
        key = normalise(text)
        if not key:
            continue
        exact.setdefault(key, (text, intent))
        by_length.setdefault(len(key), []).append((key, text, intent))
    leaks: list[Leak] = []
    for case in cases:
        key = normalise(case.utterance)
        if not key:
            continue
        if key in exact:
            text, intent = exact[key]
            leaks.append(Leak(case.id, case.utterance, text, intent, 1.0))
            continue
        if near >= 1.0:
            continue
        n = len(key)
        # ratio = 2M/(a+b) >= near and M <= min(a, b) bound the other length
        low, high = int(n * near / (2 - near)), int(n * (2 - near) / near) + 1
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(key)
        best: tuple[float, str, str] | None = None
        for length in range(low, high + 1):
            for other, text, intent in by_length.get(length, ()):
                matcher.set_seq1(other)
                if matcher.real_quick_ratio() < near or matcher.quick_ratio() < near:
                    continue
                ratio = matcher.ratio()
                if ratio >= near and (best is None or ratio > best[0]):
                    best = (ratio, text, intent)
        if best is not None:
            leaks.append(Leak(case.id, case.utterance, best[1], best[2], best[0]))
    return leaks


def coverage(
    suite: Suite,
    inventory: Inventory,
    *,
    min_cases: int = DEFAULT_MIN_CASES,
    near: float = DEFAULT_NEAR,
    options: ScoringOptions | None = None,
) -> Coverage:
    """The suite's coverage of ``inventory`` (see the module docstring)."""
    counts: Counter[str] = Counter()
    for case in suite.cases:
        counts.update(case_intents(case, options))
    known = set(inventory.intents)
    tested = {name: counts.get(name, 0) for name in inventory.intents}
    untested = [name for name, n in tested.items() if n == 0]
    under = [(name, n) for name, n in tested.items() if 0 < n < min_cases]
    unknown = sorted(((name, n) for name, n in counts.items() if name not in known), key=_by_count)
    suite_entities = {e.name for case in suite.cases for e in case.entities}
    suite_traits = {t.strip() for case in suite.cases for t in case.traits}
    kinds: dict[str, dict[str, int]] = {}
    for name in inventory.intents:
        kind = inventory.kinds.get(name, IntentKind.DIALOG).value
        row = kinds.setdefault(kind, {"intents": 0, "tested": 0})
        row["intents"] += 1
        row["tested"] += 1 if tested[name] else 0
    return Coverage(
        suite=suite.name,
        inventory=inventory.source,
        cases=len(suite.cases),
        intents=len(inventory.intents),
        tested=tested,
        untested=untested,
        under_tested=under,
        unknown=unknown,
        entities_untested=[e for e in inventory.entities if e not in suite_entities],
        entities_unknown=(
            sorted(suite_entities - set(inventory.entities)) if inventory.entities_listed else []
        ),
        entities_listed=inventory.entities_listed,
        examples_listed=bool(inventory.examples),
        traits_untested=[t for t in inventory.traits if t not in suite_traits],
        leaks=find_leaks(suite.cases, inventory.examples, near),
        min_cases=min_cases,
        near=near,
        kinds=kinds,
    )


def _results_by_type(
    rows: Sequence[tuple[TestCase, Prediction | None, CaseResult]],
    kinds: Mapping[str, IntentKind],
    options: ScoringOptions,
) -> list[dict[str, Any]]:
    """Results per intent type (computed by the scoring core, as the Results tab shows them)."""
    from nlu_tui.scoring.slices import intent_type_slices

    return [s.as_dict() for s in intent_type_slices(rows, kinds, options) if s.name is not None]


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def add_performance(
    report: Coverage,
    rows: Iterable[tuple[TestCase, Prediction | None, CaseResult]],
    run_id: str,
    *,
    target_recall: float = DEFAULT_TARGET_RECALL,
    options: ScoringOptions | None = None,
    kinds: Mapping[str, IntentKind] | None = None,
) -> Coverage:
    """Per-intent performance of a stored run, and the utterances each weak intent missed.

    ``kinds`` are the inventory's intent kinds: a case whose file and engine name no kind is
    counted under its expected intent's kind in the bot (dialog when the bot names none)."""
    from nlu_tui.scoring.case import DEFAULT_OPTIONS, intent_acceptable
    from nlu_tui.scoring.intent_report import build_intent_report, none_label

    options = options or DEFAULT_OPTIONS
    rows = list(rows)
    built = build_intent_report(rows, options)
    none = none_label(options)
    missed: dict[str, list[str]] = {}
    for case, _prediction, result in rows:
        if result.result in (ResultType.ERROR, ResultType.TP, ResultType.TN):
            continue
        if intent_acceptable(case, result.matched_intent, options):
            continue  # e.g. the right intent from the wrong child bot: not a training issue
        for name in case_intents(case, options)[:1]:
            missed.setdefault(name, []).append(case.utterance)
    health: list[IntentHealth] = []
    for label in built.labels:
        row = built.report.get(label)
        stats = built.stats[label]
        if label == none or row is None or label.startswith("trait: "):
            continue
        health.append(
            IntentHealth(
                intent=label,
                support=stats.support,
                precision=float(row["precision"]),
                recall=float(row["recall"]),
                f1=float(row["f1-score"]),
                confused_with=list(stats.confused_with),
                missed=missed.get(label, []),
            )
        )
    report.by_type = _results_by_type(rows, kinds or {}, options)
    report.run_id = run_id
    report.health = health
    report.target_recall = target_recall
    return report
