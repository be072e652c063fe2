"""The results view's name for a run's figures, which moved down to
:mod:`nlu_tui.reports.run_data` (the exports use them too). Kept for the Results pane, being
split on another branch; remove once nothing imports ``nlu_tui.views.run_data``.
"""

from __future__ import annotations

from nlu_tui.reports.run_data import Row as Row
from nlu_tui.reports.run_data import RunData as RunData
