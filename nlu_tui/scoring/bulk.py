"""Scoring many cases at once (re-scoring a stored run, benchmarks) without GC overhead."""

from __future__ import annotations

from collections.abc import Iterable

from nlu_tui.gcpause import gc_paused
from nlu_tui.model import CaseResult, Prediction, TestCase
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions, score_case


def score_cases(
    pairs: Iterable[tuple[TestCase, Prediction]], options: ScoringOptions = DEFAULT_OPTIONS
) -> list[CaseResult]:
    """:func:`score_case` over many pairs, in order."""
    with gc_paused():
        return [score_case(case, prediction, options) for case, prediction in pairs]
