"""Scoring many cases at once (re-scoring a stored run, benchmarks) without GC overhead."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Iterator

from nlu_tui.model import CaseResult, Prediction, TestCase
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions, score_case


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many objects.

    Creating 100,000 results or report rows triggers repeated full collections over a heap
    that only grows; the objects are acyclic, so pausing changes nothing but the time.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def score_cases(
    pairs: Iterable[tuple[TestCase, Prediction]], options: ScoringOptions = DEFAULT_OPTIONS
) -> list[CaseResult]:
    """:func:`score_case` over many pairs, in order."""
    with gc_paused():
        return [score_case(case, prediction, options) for case, prediction in pairs]
