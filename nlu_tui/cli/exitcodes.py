"""Documented exit codes of every command (see ``nlu-tui --help``)."""

OK = 0
GATE_FAILED = 1
BAD_INPUT = 2
RUN_FAILED = 3
CANCELED = 130
