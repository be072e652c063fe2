"""Threshold analysis of a stored run: what a confidence threshold would have done.

Pure functions over the run's ``(case, prediction, result)`` rows; no I/O. Definitions:

- **Candidate answer** of a scored (non-ERROR) case: the engine's intent and its confidence when
  it returned one; when it returned no intent but a ranking whose top (highest confidence)
  intent is not a "no intent" name, that top intent and its confidence (the engine's own
  threshold sent it to fallback; a lower threshold would have kept it). Otherwise the case has
  no candidate and its stored result holds at every threshold.
- **Threshold rule**: at threshold ``t`` a candidate is kept when its confidence ``>= t`` (as
  scikit-learn's ``precision_recall_curve``); below ``t`` the utterance goes to fallback, i.e.
  no intent. A candidate without a numeric confidence is kept at every threshold.
- Each case is then scored with the Kore.ai rules of :mod:`nlu_tui.scoring.case` (TP/TN/FP/FN;
  a wrong intent is an FP, a missing one an FN; a case expecting no intent is TN when sent to
  fallback), and precision = TP/(TP+FP), recall = TP/(TP+FN), F1 = 2PR/(P+R), each 0.0 on a 0
  denominator, as in :mod:`nlu_tui.scoring.summary`. Errors are left out.
- **Fallback share** at ``t``: scored cases with no intent at ``t`` (sent to fallback by ``t``,
  or answered with no intent by the engine) / scored cases.
- The **curve** has a point at every distinct candidate confidence (ascending, like
  ``precision_recall_curve``'s thresholds); the **grid** a point every 0.05 from 0 to 1.
  It equals ``precision_recall_curve`` exactly when every case either expects an intent the
  engine ranks first or expects no intent (then kept = positive, FN = a positive dropped); with
  wrong intents for in-scope utterances the Kore.ai FP/FN counting differs from it.
- **Best F1**: the threshold of highest F1 among 0 and the candidate confidences within 0..1,
  the lowest on a tie. **Target precision** ``P``: the lowest such threshold whose precision is
  at least ``P`` with at least one intent kept (``None`` if none reaches it).
- **Margin**: top confidence minus second confidence in the engine's ranking (cases with two or
  more ranked intents); a **near-tie** has a margin below ``tie_margin``.
- **Calibration** over candidates with a confidence within 0..1: correct when the candidate
  scores TP. ``bins`` equal bins; bin ``i`` holds ``i/N <= c < (i+1)/N`` (the last one also 1.0).
  Expected calibration error ECE = sum over bins of (n_bin/n)·|accuracy_bin − mean confidence_bin|;
  MCE is the largest such gap over non-empty bins.
- **Scores outside 0..1** (Kore.ai answers engine points, e.g. 11160.0): a threshold swept from 0
  to 1 over them means nothing. ``out_of_range="keep"`` analyses them as they are (counted in
  ``above_one``); ``"refuse"`` raises :class:`ScoresOutOfRange` naming the range; ``"rescale"``
  divides every score (answers, rankings, the run's threshold) by the largest one in the run,
  so that thresholds are fractions of it (``rescaled_by`` says by what). Negative scores cannot
  be rescaled so and are refused.
"""

from __future__ import annotations

import math
import statistics
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nlu_tui.errors import InputError
from nlu_tui.model import CaseResult, IntentScore, Prediction, ResultType, Suite, TestCase
from nlu_tui.scoring.case import ScoringOptions, _plain_intent_result, score_case
from nlu_tui.scoring.summary import PooledCounts, safe_div

Row = tuple[TestCase, Prediction | None, CaseResult]
GRID_STEP = 0.05
GRID: tuple[float, ...] = tuple(round(i * GRID_STEP, 2) for i in range(21))
DEFAULT_TIE_MARGIN = 0.05
DEFAULT_BINS = 10

_KINDS = (ResultType.TP, ResultType.TN, ResultType.FP, ResultType.FN)
_INDEX = {k: i for i, k in enumerate(_KINDS)}


@dataclass(frozen=True)
class Point(PooledCounts):
    """The figures at one threshold (``None``: the run as stored, its threshold unknown)."""

    threshold: float | None
    tp: int
    tn: int
    fp: int
    fn: int
    fallback: int
    scored: int

    @property
    def fallback_share(self) -> float:
        return safe_div(self.fallback, self.scored)

    def as_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "tp": self.tp,
            "tn": self.tn,
            "fp": self.fp,
            "fn": self.fn,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "fallback": self.fallback,
            "fallback_share": self.fallback_share,
        }


@dataclass(frozen=True)
class NearTie:
    case_id: str
    utterance: str
    first: str
    second: str
    margin: float
    result: str


@dataclass(frozen=True)
class Bin:
    low: float
    high: float
    count: int
    correct: int
    mean_confidence: float | None

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.count if self.count else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "count": self.count,
            "correct": self.correct,
            "mean_confidence": self.mean_confidence,
            "accuracy": self.accuracy,
        }


@dataclass
class Calibration:
    bins: list[Bin]
    cases: int
    ece: float | None
    mce: float | None


@dataclass
class Candidate:
    """One scored case's candidate answer: confidence and its result kept or sent to fallback."""

    confidence: float | None
    kept: ResultType
    dropped: ResultType


@dataclass
class ThresholdAnalysis:
    scored: int
    errors: int
    candidates: int
    no_confidence: int
    above_one: int
    curve: list[Point]
    grid: list[Point]
    as_run: Point
    run_threshold: float | None
    best: Point | None
    target_precision: float | None
    target: Point | None
    tie_margin: float
    with_margin: int
    near_ties: list[NearTie]
    calibration: Calibration
    margins: list[float] = field(default_factory=list)
    rescaled_by: float | None = None
    """The divisor applied to every score (the run's largest), when they were outside 0..1."""

    def to_json(self) -> dict[str, Any]:
        cal = self.calibration
        return {
            "rescaled_by": self.rescaled_by,
            "scored": self.scored,
            "errors": self.errors,
            "candidates": self.candidates,
            "no_confidence": self.no_confidence,
            "above_one": self.above_one,
            "run_threshold": self.run_threshold,
            "as_run": self.as_run.as_dict(),
            "best_f1": None if self.best is None else self.best.as_dict(),
            "target_precision": self.target_precision,
            "target": None if self.target is None else self.target.as_dict(),
            "curve": [p.as_dict() for p in self.curve],
            "grid": [p.as_dict() for p in self.grid],
            "margin": {
                "tie_margin": self.tie_margin,
                "measured": self.with_margin,
                "median": statistics.median(self.margins) if self.margins else None,
                "near_ties": [t.__dict__ for t in self.near_ties],
            },
            "calibration": {
                "cases": cal.cases,
                "ece": cal.ece,
                "mce": cal.mce,
                "bins": [b.as_dict() for b in cal.bins],
            },
        }


def _finite(value: float | None) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _rescored(
    case: TestCase, prediction: Prediction, intent: str | None, options: ScoringOptions
) -> ResultType:
    """The case's result had the engine answered ``intent`` (traits as it returned them)."""
    if not case.traits and not options.ignore_intent_case:
        return _plain_intent_result(case, intent, options)[1]  # score_case's own fast path
    answer = Prediction(intent=intent, traits=list(prediction.traits))
    return score_case(case, answer, options).result


def candidate(
    case: TestCase, prediction: Prediction | None, result: CaseResult, options: ScoringOptions
) -> Candidate | None:
    """The case's candidate answer (see the module docstring), or ``None`` without one."""
    if prediction is None or result.result is ResultType.ERROR:
        return None
    if not options.is_negative(prediction.intent):
        conf = _finite(
            result.confidence if result.confidence is not None else prediction.confidence
        )
        dropped = _rescored(case, prediction, None, options)
        return Candidate(conf, result.result, dropped)
    ranked = [s for s in prediction.ranking if _finite(s.confidence) is not None]
    if not ranked:
        return None
    top = max(ranked, key=lambda s: float(s.confidence))
    if options.is_negative(top.name):
        return None
    kept = _rescored(case, prediction, top.name, options)
    return Candidate(_finite(top.confidence), kept, result.result)


def _counts(kind: ResultType) -> tuple[int, int, int, int]:
    out = [0, 0, 0, 0]
    out[_INDEX[kind]] = 1
    return out[0], out[1], out[2], out[3]


def sweep(
    fixed: Sequence[ResultType], cands: Sequence[Candidate], thresholds: Sequence[float]
) -> list[Point]:
    """The figures at each threshold; ``fixed`` are the results of cases without a candidate."""
    base = [0, 0, 0, 0]
    fixed_fallback = 0
    for kind in fixed:
        base[_INDEX[kind]] += 1
        fixed_fallback += 1
    always = [0, 0, 0, 0]  # candidates without a confidence: kept at every threshold
    timed = sorted((c for c in cands if c.confidence is not None), key=lambda c: c.confidence or 0)
    for c in cands:
        if c.confidence is None:
            always[_INDEX[c.kept]] += 1
    confs = [c.confidence or 0.0 for c in timed]
    n = len(timed)
    # dropped_prefix[i]: counts of timed[:i] sent to fallback; kept_suffix[i]: of timed[i:] kept
    dropped_prefix = [(0, 0, 0, 0)] * (n + 1)
    acc = [0, 0, 0, 0]
    for i, c in enumerate(timed):
        acc[_INDEX[c.dropped]] += 1
        dropped_prefix[i + 1] = (acc[0], acc[1], acc[2], acc[3])
    kept_suffix = [(0, 0, 0, 0)] * (n + 1)
    acc = [0, 0, 0, 0]
    for i in range(n - 1, -1, -1):
        acc[_INDEX[timed[i].kept]] += 1
        kept_suffix[i] = (acc[0], acc[1], acc[2], acc[3])
    scored = len(fixed) + len(cands)
    points = []
    b0, b1, b2, b3 = (base[j] + always[j] for j in range(4))
    for t in thresholds:
        i = bisect_left(confs, t)
        d, k = dropped_prefix[i], kept_suffix[i]
        points.append(
            Point(
                t,
                b0 + d[0] + k[0],
                b1 + d[1] + k[1],
                b2 + d[2] + k[2],
                b3 + d[3] + k[3],
                fixed_fallback + i,
                scored,
            )
        )
    return points


def calibration(confidences: Sequence[float], correct: Sequence[bool], bins: int) -> Calibration:
    """Reliability bins and calibration errors (see the module docstring)."""
    counts = [0] * bins
    hits = [0] * bins
    sums = [0.0] * bins
    for c, ok in zip(confidences, correct, strict=True):
        i = min(max(int(round(c * bins, 9)), 0), bins - 1)
        counts[i] += 1
        hits[i] += ok
        sums[i] += c
    out = [
        Bin(
            low=i / bins,
            high=(i + 1) / bins,
            count=counts[i],
            correct=hits[i],
            mean_confidence=sums[i] / counts[i] if counts[i] else None,
        )
        for i in range(bins)
    ]
    n = len(confidences)
    if not n:
        return Calibration(out, 0, None, None)
    gaps = [
        (b.count, abs((b.accuracy or 0.0) - (b.mean_confidence or 0.0))) for b in out if b.count
    ]
    ece = math.fsum(count / n * gap for count, gap in gaps)
    return Calibration(out, n, ece, max(gap for _c, gap in gaps))


def _margin(prediction: Prediction) -> tuple[float, str, str] | None:
    ranked = sorted(
        (
            (float(c), s.name)
            for s in prediction.ranking
            if (c := _finite(s.confidence)) is not None
        ),
        key=lambda x: -x[0],
    )
    if len(ranked) < 2:
        return None
    return ranked[0][0] - ranked[1][0], ranked[0][1], ranked[1][1]


class ScoresOutOfRange(InputError):
    """The run's scores are not probabilities (some lie outside 0..1)."""


@dataclass(frozen=True)
class ScoreRange:
    """The scored answers with a score (their confidence or ranking), those with one outside
    0..1, and the extremes of every score."""

    count: int
    outside: int
    lowest: float | None
    highest: float | None


def score_range(rows: Sequence[Row]) -> ScoreRange:
    """How many scored answers have a score (confidence or ranking) outside 0..1, of how many
    with a score, and the extremes of all their scores."""
    count = outside = 0
    lowest: float | None = None
    highest: float | None = None
    for _case, prediction, result in rows:
        if result.result is ResultType.ERROR:
            continue
        raw = [result.confidence]
        if prediction is not None:
            raw += [prediction.confidence, *(s.confidence for s in prediction.ranking)]
        values = [v for v in map(_finite, raw) if v is not None]
        if not values:
            continue
        count += 1
        outside += any(not 0.0 <= v <= 1.0 for v in values)
        lowest = min(values) if lowest is None else min(lowest, *values)
        highest = max(values) if highest is None else max(highest, *values)
    return ScoreRange(count, outside, lowest, highest)


def _scaled(value: float | None, scale: float) -> float | None:
    return value / scale if _finite(value) is not None and value is not None else value


def rescaled_rows(rows: Sequence[Row], scale: float) -> list[Row]:
    """The rows with every score divided by ``scale`` (stored rows are left as they are)."""
    from dataclasses import replace

    out: list[Row] = []
    for case, prediction, result in rows:
        if prediction is not None:
            prediction = replace(
                prediction,
                confidence=_scaled(prediction.confidence, scale),
                ranking=[
                    IntentScore(s.name, _scaled(s.confidence, scale) or 0.0)
                    for s in prediction.ranking
                ],
                pre_fallback_confidence=_scaled(prediction.pre_fallback_confidence, scale),
            )
        out.append(
            (case, prediction, replace(result, confidence=_scaled(result.confidence, scale)))
        )
    return out


def _out_of_range_error(found: ScoreRange) -> ScoresOutOfRange:
    span = f"from {found.lowest:g} to {found.highest:g}"
    what = (
        f"{found.outside} of {found.count} answers score outside 0..1 ({span}): engine points "
        "(such as Kore.ai's), not probabilities, so thresholds from 0 to 1 would mean nothing"
    )
    if found.lowest is not None and found.lowest < 0:
        return ScoresOutOfRange(what + "; negative scores cannot be rescaled")
    return ScoresOutOfRange(
        what + f"; --rescale divides every score by the largest ({found.highest:g})"
    )


def analyze(
    rows: Sequence[Row],
    *,
    run_threshold: float | None = None,
    target_precision: float | None = None,
    tie_margin: float = DEFAULT_TIE_MARGIN,
    bins: int = DEFAULT_BINS,
    options: ScoringOptions | None = None,
    out_of_range: str = "keep",
) -> ThresholdAnalysis:
    """The threshold analysis of scored rows (see the module docstring for every definition);
    ``out_of_range`` is ``keep``, ``refuse`` or ``rescale`` (scores outside 0..1)."""
    rescaled_by: float | None = None
    if out_of_range != "keep":
        found = score_range(rows)
        if found.outside:
            lowest, highest = found.lowest or 0.0, found.highest or 0.0
            if out_of_range == "refuse" or lowest < 0 or highest <= 0:
                raise _out_of_range_error(found)
            rescaled_by = highest
            rows = rescaled_rows(rows, highest)
            run_threshold = None if run_threshold is None else run_threshold / highest
    if options is None:
        options = ScoringOptions().for_suite(Suite(name="", cases=[c for c, _p, _r in rows]))
    fixed: list[ResultType] = []
    stored: list[ResultType] = []
    cands: list[Candidate] = []
    near: list[NearTie] = []
    margins: list[float] = []
    errors = 0
    cal_conf: list[float] = []
    cal_ok: list[bool] = []
    above_one = as_run_fallback = 0
    for case, prediction, result in rows:
        if result.result is ResultType.ERROR:
            errors += 1
            continue
        stored.append(result.result)
        if prediction is None or options.is_negative(prediction.intent):
            as_run_fallback += 1
        cand = candidate(case, prediction, result, options)
        if cand is None:
            fixed.append(result.result)
        else:
            cands.append(cand)
            c = cand.confidence
            if c is not None and c > 1.0:
                above_one += 1
            elif c is not None and c >= 0.0:
                cal_conf.append(c)
                cal_ok.append(cand.kept is ResultType.TP)
        if prediction is not None and (m := _margin(prediction)) is not None:
            margin, first, second = m
            margins.append(margin)
            if margin < tie_margin:
                near.append(
                    NearTie(case.id, case.utterance, first, second, margin, result.result.value)
                )
    near.sort(key=lambda t: t.margin)
    distinct = sorted({c.confidence for c in cands if c.confidence is not None})
    curve = sweep(fixed, cands, distinct)
    grid = sweep(fixed, cands, GRID)
    searched = [p for p in curve if p.threshold is not None and 0.0 < p.threshold <= 1.0]
    searched.insert(0, grid[0])  # threshold 0: every answer kept
    best = max(searched, key=lambda p: (p.f1, -(p.threshold or 0.0))) if searched else None
    target = None
    if target_precision is not None:
        target = next(
            (p for p in searched if p.tp + p.fp and p.precision >= target_precision), None
        )
    counts = [0, 0, 0, 0]
    for kind in stored:
        counts[_INDEX[kind]] += 1
    as_run = Point(
        run_threshold,
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        as_run_fallback,
        len(stored),
    )
    return ThresholdAnalysis(
        scored=len(stored),
        errors=errors,
        candidates=len(cands),
        no_confidence=sum(1 for c in cands if c.confidence is None),
        above_one=above_one,
        curve=curve,
        grid=grid,
        as_run=as_run,
        run_threshold=run_threshold,
        best=best,
        target_precision=target_precision,
        target=target,
        tie_margin=tie_margin,
        with_margin=len(margins),
        near_ties=near,
        calibration=calibration(cal_conf, cal_ok, bins),
        margins=margins,
        rescaled_by=rescaled_by,
    )
