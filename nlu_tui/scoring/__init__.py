"""Scoring: per-case result types (Kore.ai), run summaries and per-intent reports.

Core code: pure functions over (case, prediction) pairs, no I/O and no heavy imports.
"""

from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions, score_case
from nlu_tui.scoring.summary import LiveCounts, Summary, summarize

__all__ = ["DEFAULT_OPTIONS", "LiveCounts", "ScoringOptions", "Summary", "score_case", "summarize"]
