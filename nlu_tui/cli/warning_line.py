"""A logging handler that shows each record as one ``nlu-tui: warning:`` line.

Apart from :mod:`nlu_tui.cli.engine_options` so that building the parser imports no logging.
"""

from __future__ import annotations

import logging


class WarningLine(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        from nlu_tui.cli.say import say_warning

        say_warning(record.getMessage())
