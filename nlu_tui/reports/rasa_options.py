"""The ``rasa test nlu`` switches a Rasa report folder is written with (read by the writer,
:mod:`nlu_tui.reports.rasa_report`, and recorded by :mod:`nlu_tui.reports.metric_spec`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RasaOptions:
    """The ``rasa test nlu`` switches that change which files are written."""

    successes: bool = False
    """``--successes``: also ``intent_successes.json`` and ``<Extractor>_successes.json``."""
    errors: bool = True
    """``--no-errors`` sets it false: no ``intent_errors.json`` nor ``<Extractor>_errors.json``."""
    plots: bool = True
    """``--no-plot`` sets it false: no confusion matrix nor histogram images."""


DEFAULT_RASA_OPTIONS = RasaOptions()
