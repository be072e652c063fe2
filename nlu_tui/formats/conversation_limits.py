"""How much one conversation test file (E2E test cases, DUT cases, test stories) may hold.

A test case of 200,000 steps is no test anyone wrote: read as it is, it ran for minutes and
hundreds of megabytes against an engine before anything was said. The readers count the
written steps and cases before building any of them and refuse past these limits, naming the
file, the line of the first step (or case) too many and the field.

Both can be raised for a generated corpus with environment variables:
``NLU_TUI_MAX_STEPS`` (steps per test case or story) and ``NLU_TUI_MAX_CASES`` (test cases or
stories per file).
"""

from __future__ import annotations

import os

from nlu_tui.errors import InputError

MAX_STEPS = 1_000
"""Default cap on the written steps of one test case or story."""
MAX_CASES = 100_000
"""Default cap on the test cases (or stories) of one file."""
STEPS_VARIABLE = "NLU_TUI_MAX_STEPS"
CASES_VARIABLE = "NLU_TUI_MAX_CASES"


def _limit(variable: str, default: int) -> int:
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return default
    try:
        value = int(raw.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise InputError(f"must be a whole number of at least 1, not {raw!r}", field=variable)
    return value


def max_steps() -> int:
    """Steps one test case or story may hold (``NLU_TUI_MAX_STEPS``, default 1,000)."""
    return _limit(STEPS_VARIABLE, MAX_STEPS)


def max_cases() -> int:
    """Test cases or stories one file may hold (``NLU_TUI_MAX_CASES``, default 100,000)."""
    return _limit(CASES_VARIABLE, MAX_CASES)
