"""The run store: runs, their cases and results in one SQLite file (see :mod:`.runstore`)."""

from nlu_tui.store.records import RunRecord
from nlu_tui.store.runstore import RunStore, StoredResult

__all__ = ["RunRecord", "RunStore", "StoredResult"]
