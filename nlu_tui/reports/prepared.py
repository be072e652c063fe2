"""What every export of one run shares, computed once: summary, labels and the intent report.

Each exporter used to summarise the run and label its cases itself, so writing the four
formats of a 100,000-case run summarised it three times and labelled it three times. A
:class:`PreparedRun` holds those figures; :func:`nlu_tui.reports.write_reports` builds one
and hands it to every writer. Writers still accept ``prepared=None`` and compute what they
need, so each one alone gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import Any

from nlu_tui.model import CaseResult
from nlu_tui.reports.common import ResultRow
from nlu_tui.scoring.case import DEFAULT_OPTIONS, ScoringOptions
from nlu_tui.scoring.intent_report import (
    IntentReport,
    Report,
    classification_report,
    label_sequences,
)
from nlu_tui.scoring.rasa_reader import duplicate_rows
from nlu_tui.scoring.slices import slices, slices_dict
from nlu_tui.scoring.summary import Summary, summarize


class PreparedRun:
    """Figures of one run's rows under one set of options, each computed when first asked.

    ``y_true``/``y_pred`` are the labels of the scored (non-ERROR) rows in order, ``report``
    their scikit-learn-shaped report (a CSV or JUnit export never needs them).
    """

    def __init__(
        self,
        rows: Sequence[ResultRow],
        options: ScoringOptions = DEFAULT_OPTIONS,
        *,
        summary: Summary | None = None,
        intent_report: IntentReport | None = None,
    ) -> None:
        self.rows = rows
        self.options = options
        self.results: list[CaseResult] = [r for _c, _p, r in rows]
        self.summary: Summary = summarize(self.results) if summary is None else summary
        if intent_report is not None:
            self.__dict__["labels"] = (intent_report.y_true, intent_report.y_pred)
            self.__dict__["report"] = intent_report.report
        self._first: dict[tuple[int, int], list[str | None]] = {}

    @cached_property
    def labels(self) -> tuple[list[str], list[str]]:
        return label_sequences([(c, r) for c, _p, r in self.rows], self.options)

    @property
    def y_true(self) -> list[str]:
        return self.labels[0]

    @property
    def y_pred(self) -> list[str]:
        return self.labels[1]

    @cached_property
    def slices(self) -> dict[str, list[dict[str, Any]]]:
        """The JSON report's ``slices``: figures per tag, intent kind and parent intent."""
        return slices_dict(slices(self.rows))

    @cached_property
    def report(self) -> Report:
        return classification_report(*self.labels)

    @cached_property
    def rasa_duplicates(self) -> frozenset[int]:
        """Rows Rasa's reader would drop as duplicates (:mod:`nlu_tui.scoring.rasa_reader`)."""
        return duplicate_rows(self.rows)

    def first_expected(self, lo: int = 0, hi: int | None = None) -> list[str | None]:
        """Per row ``lo``..``hi``, the first acceptable expected intent (``None`` when the case
        expects none). Computed per range when first asked, so each process rendering a
        range of rows computes only its own (JUnit and Rasa both ask)."""
        key = (lo, len(self.rows) if hi is None else hi)
        found = self._first.get(key)
        if found is None:
            found = self._first[key] = first_expected_intents(
                self.rows[key[0] : key[1]], self.options
            )
        return found


def first_expected_intents(
    rows: Sequence[ResultRow], options: ScoringOptions = DEFAULT_OPTIONS
) -> list[str | None]:
    """Per row, :func:`~nlu_tui.scoring.case.expected_intents` ``[0]`` or ``None``, stopping at
    the first acceptable name instead of listing them all."""
    negative = options._negative
    fold = options.ignore_intent_case
    out: list[str | None] = []
    append = out.append
    for case, _p, _r in rows:
        intents = case.intents
        if len(intents) == 1:  # the usual case, without a loop
            name = intents[0].name.strip()
            append(name if name and (name.casefold() if fold else name) not in negative else None)
            continue
        first = None
        for intent in intents:
            name = intent.name.strip()
            if name and (name.casefold() if fold else name) not in negative:
                first = name
                break
        append(first)
    return out


def prepare_run(
    rows: Sequence[ResultRow],
    options: ScoringOptions = DEFAULT_OPTIONS,
    *,
    summary: Summary | None = None,
    intent_report: IntentReport | None = None,
) -> PreparedRun:
    """The shared figures; pass ``summary``/``intent_report`` if you already have them (the
    results view does) for the same rows and options."""
    return PreparedRun(rows, options, summary=summary, intent_report=intent_report)
