"""How stable an engine's answers are when every case is sent N times (``run --repeat N``).

LLM-based and retrained engines may answer the same utterance differently from one request to
the next; these figures say how much. Definitions, over the N attempts of each case:

- an attempt's **answer** is the intent it was scored with (``matched_intent``; no intent
  counts as the answer ``(no intent)``); an attempt that errored gives no answer.
- the **majority intent** is the answer given most often (a tie goes to the one given first,
  in attempt order); the **agreement rate** is the share of the answers that are the majority
  intent (``None`` when no attempt answered). Errored attempts are counted apart, not as
  disagreeing.
- the **confidence spread** is the largest minus the smallest confidence of the answers, and
  ``confidence_sd`` their population standard deviation (``None`` without a confidence).
- a case is **measured** when at least two attempts answered, and **flaky** when it is measured
  and its answers are not all the same (agreement below 1).
- **stability** (per expected intent and overall) is the share of measured cases that are not
  flaky; ``mean_agreement`` the mean agreement rate of the measured cases. Both are ``None``
  when no case was measured. A case expecting several intents is grouped under their names
  joined by ``|``; one expecting no intent under ``(no intent)``.

Every face (CLI summary, ``show``, JSON report, the workbench's results table) shows these
figures as computed here, never re-derived.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.model import CaseResult, ResultType, TestCase
from nlu_tui.scoring.intent_report import NO_INTENT_LABEL
from nlu_tui.textsafe import inert

NO_INTENT = NO_INTENT_LABEL
"""The answer of an attempt scored with no intent, and the group of cases expecting none."""

ALL = "(all)"
"""The name of the overall figures."""


def _fraction(num: int, den: int) -> float | None:
    return num / den if den else None


@dataclass
class CaseStability:
    """The N attempts of one case, summed up (see the module docstring for each figure)."""

    case_id: str
    expected: str
    """The group the case counts in: its expected intent(s), or ``(no intent)``."""
    attempts: int
    answered: int
    errors: int
    right: int
    """Attempts scored right (TP or TN)."""
    answers: dict[str, int] = field(default_factory=dict)
    """Answer -> how many attempts gave it, in the order first given."""
    majority: str | None = None
    agreement: float | None = None
    confidence_min: float | None = None
    confidence_max: float | None = None
    confidence_spread: float | None = None
    confidence_sd: float | None = None

    @property
    def measured(self) -> bool:
        return self.answered >= 2

    @property
    def flaky(self) -> bool:
        return self.measured and len(self.answers) > 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "case_id": self.case_id,
            "expected": self.expected,
            "attempts": self.attempts,
            "answered": self.answered,
            "errors": self.errors,
            "right": self.right,
            "answers": dict(self.answers),
            "majority": self.majority,
            "agreement": self.agreement,
            "confidence_min": self.confidence_min,
            "confidence_max": self.confidence_max,
            "confidence_spread": self.confidence_spread,
            "confidence_sd": self.confidence_sd,
            "flaky": self.flaky,
        }


@dataclass
class GroupStability:
    """Stability of the cases expecting one intent (or of all cases: ``name`` ``(all)``)."""

    name: str
    cases: int
    measured: int
    flaky: int
    stability: float | None
    mean_agreement: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "cases": self.cases,
            "measured": self.measured,
            "flaky": self.flaky,
            "stability": self.stability,
            "mean_agreement": self.mean_agreement,
        }


@dataclass
class StabilityReport:
    """The stability of a repeated run: per case, per expected intent and overall."""

    repeat: int
    cases: list[CaseStability]
    intents: list[GroupStability]
    overall: GroupStability
    _by_case: dict[str, CaseStability] | None = field(default=None, repr=False, compare=False)

    @property
    def flaky(self) -> list[CaseStability]:
        return [c for c in self.cases if c.flaky]

    @property
    def flaky_ids(self) -> set[str]:
        return {c.case_id for c in self.cases if c.flaky}

    def by_case(self) -> dict[str, CaseStability]:
        """Case id -> its figures (built once: the workbench asks at every cursor move)."""
        if self._by_case is None or len(self._by_case) != len(self.cases):
            self._by_case = {c.case_id: c for c in self.cases}
        return self._by_case

    def as_dict(self, *, quarantined: bool = False) -> dict[str, Any]:
        """The ``stability`` object of the JSON report (every case, every group)."""
        return {
            "repeat": self.repeat,
            "quarantined": quarantined,
            "overall": self.overall.as_dict(),
            "intents": [g.as_dict() for g in self.intents],
            "flaky": [c.case_id for c in self.flaky],
            "cases": [c.as_dict() for c in self.cases],
        }

    def headline_dict(self) -> dict[str, Any]:
        """What a run keeps as its summary: no per-case figures but the flaky cases' ids."""
        data = self.as_dict()
        del data["cases"], data["quarantined"]
        return data


def expected_group(case: TestCase) -> str:
    """The group a case counts in: its expected intent names joined by ``|``, or ``(no intent)``."""
    names = [i.name.strip() for i in case.intents if i.name.strip()]
    return "|".join(names) if names else NO_INTENT


def case_stability(case_id: str, expected: str, attempts: Sequence[CaseResult]) -> CaseStability:
    """Sum up one case's attempts (attempt #1 first: ties of the majority go to the earliest)."""
    answers: Counter[str] = Counter()
    confidences: list[float] = []
    errors = right = 0
    for attempt in attempts:
        if attempt.result is ResultType.ERROR:
            errors += 1
            continue
        if attempt.result in (ResultType.TP, ResultType.TN):
            right += 1
        answers[attempt.matched_intent or NO_INTENT] += 1
        conf = attempt.confidence
        if conf is not None and math.isfinite(conf):
            confidences.append(float(conf))
    answered = sum(answers.values())
    majority = None
    if answers:
        # Counter keeps insertion order and max() returns the first maximum: the earliest wins.
        majority = max(answers, key=answers.__getitem__)
    stats: dict[str, float | None] = dict.fromkeys(("lo", "hi", "spread", "sd"))
    if confidences:
        lo, hi = min(confidences), max(confidences)
        mean = math.fsum(confidences) / len(confidences)
        var = math.fsum((c - mean) ** 2 for c in confidences) / len(confidences)
        stats = {"lo": lo, "hi": hi, "spread": hi - lo, "sd": math.sqrt(var)}
    return CaseStability(
        case_id=case_id,
        expected=expected,
        attempts=len(attempts),
        answered=answered,
        errors=errors,
        right=right,
        answers=dict(answers),
        majority=majority,
        agreement=_fraction(answers[majority], answered) if majority is not None else None,
        confidence_min=stats["lo"],
        confidence_max=stats["hi"],
        confidence_spread=stats["spread"],
        confidence_sd=stats["sd"],
    )


def _group(name: str, cases: Sequence[CaseStability]) -> GroupStability:
    measured = [c for c in cases if c.measured]
    flaky = sum(1 for c in measured if c.flaky)
    agreements = [c.agreement for c in measured if c.agreement is not None]
    return GroupStability(
        name=name,
        cases=len(cases),
        measured=len(measured),
        flaky=flaky,
        stability=_fraction(len(measured) - flaky, len(measured)),
        mean_agreement=math.fsum(agreements) / len(agreements) if agreements else None,
    )


def stability_report(
    attempts: Iterable[tuple[TestCase, Sequence[CaseResult]]], repeat: int
) -> StabilityReport:
    """The report of a repeated run from each case and its attempts (#1 first), in suite order.
    Groups are sorted by name, ``(no intent)`` last."""
    cases = [case_stability(case.id, expected_group(case), tries) for case, tries in attempts]
    groups: dict[str, list[CaseStability]] = {}
    for c in cases:
        groups.setdefault(c.expected, []).append(c)
    names = sorted(groups, key=lambda n: (n == NO_INTENT, n))
    return StabilityReport(
        repeat=repeat,
        cases=cases,
        intents=[_group(n, groups[n]) for n in names],
        overall=_group(ALL, cases),
    )


def pct(value: float | None) -> str:
    """A share as ``92.0%``, or ``-`` when there is none."""
    return "-" if value is None else f"{100 * value:.1f}%"


def headline(report: StabilityReport) -> str:
    """One line: ``stability 90.0% over 5 attempts: 2 flaky of 20 cases``."""
    o = report.overall
    text = (
        f"stability {pct(o.stability)} over {report.repeat} attempts: "
        f"{o.flaky} flaky of {o.cases} cases"
    )
    if o.measured < o.cases:
        text += f" ({o.cases - o.measured} with fewer than 2 answers)"
    return text


def answers_text(case: CaseStability) -> str:
    """A case's answers as ``greet×3 bye×2`` (most given first)."""
    ranked = sorted(case.answers.items(), key=lambda kv: -kv[1])
    return " ".join(f"{name}×{n}" for name, n in ranked) or "-"


MAX_FLAKY_LINES = 20
"""Flaky cases listed one by one in text summaries (the JSON report has every case)."""


def stability_lines(
    report: StabilityReport,
    utterances: Mapping[str, str] | None = None,
    *,
    quarantined: bool = False,
    limit: int = MAX_FLAKY_LINES,
) -> list[str]:
    """The stability section of a text summary (``run`` and ``show``): the headline, a line
    per expected intent that has flaky cases, then the flaky cases with their answers (the
    JSON report has every intent and case). Untrusted text made inert."""
    o = report.overall
    lines = [f"{headline(report)}, mean agreement {pct(o.mean_agreement)}"]
    groups = [g for g in report.intents if g.flaky]
    if not groups:
        return lines
    width = max([len("intent"), *(len(inert(g.name, newlines=False)) for g in groups)])
    width = min(width, 30)
    lines.append(f"  {'intent':<{width}}  cases  flaky  stability  agreement")
    for g in groups:
        name = inert(g.name, newlines=False)
        name = name if len(name) <= width else name[: width - 1] + "…"
        lines.append(
            f"  {name:<{width}}  {g.cases:>5}  {g.flaky:>5}  {pct(g.stability):>9}"
            f"  {pct(g.mean_agreement):>9}"
        )
    flaky = report.flaky
    if not flaky:
        return lines
    note = " (left out of the gates: --quarantine-flaky)" if quarantined else ""
    lines.append(f"flaky cases{note}:")
    for c in flaky[:limit]:
        said = (utterances or {}).get(c.case_id)
        head = c.case_id + (f" {said!r}" if said is not None else "")
        spread = "-" if c.confidence_spread is None else f"{c.confidence_spread:.3f}"
        lines.append(
            inert(
                f"  {head} expected {c.expected}: {answers_text(c)}"
                f" (agreement {pct(c.agreement)}, confidence spread {spread})",
                newlines=False,
            )
        )
    if len(flaky) > limit:
        lines.append(f"  … {len(flaky) - limit} more (see -f json)")
    return lines
