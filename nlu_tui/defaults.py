"""Defaults of core computations that the command line shows in its help.

Kept in a module that imports nothing: every command's parser is built for ``nlu-tui --help``,
and reading these numbers must not load the modules that use them (:mod:`nlu_tui.coverage`
and :mod:`nlu_tui.trends` define dataclasses and import the model, all of which the help would
load for five numbers). Those modules re-export them under their old names.
"""

from __future__ import annotations

# coverage (nlu_tui.coverage)
DEFAULT_MIN_CASES = 3
DEFAULT_NEAR = 0.9
DEFAULT_TARGET_RECALL = 0.8

# trends (nlu_tui.trends)
DEFAULT_LAST = 20
"""How many runs ``trend`` reads unless ``--last N``."""
MAX_LAST = 1000
