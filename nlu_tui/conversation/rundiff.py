"""Comparing two conversation runs: :mod:`nlu_tui.reports.item_diff` (shared with DUT runs)."""

from nlu_tui.reports.item_diff import ItemDiff, diff_items

__all__ = ["ItemDiff", "diff_items"]
