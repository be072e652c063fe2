"""The page of a conversation (E2E, stories) or DUT run, as ``nlu-tui show RUN -f html`` and
``-f markdown [--diff-with RUN]`` write it and the workbench's Export offers it: one call for
both faces, so the file is the same whichever wrote it.

Batch-test runs have their own writers (:mod:`nlu_tui.reports`); this covers the kinds whose
results are stored as items. No Textual, no Rich.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from nlu_tui.errors import InputError

if TYPE_CHECKING:
    from nlu_tui.store import RunStore
    from nlu_tui.store.records import RunRecord

PAGE_KINDS = ("e2e", "stories", "dut")
"""Kinds of run other than batch tests that ``show -f html`` and ``-f markdown`` write."""
PAGE_FORMATS = (
    ("html", "one self-contained page to open in a browser", ".html"),
    ("markdown", "a short summary for a pull-request comment", ".md"),
)
"""(name, description, file suffix) of the pages of a conversation or DUT run."""


def page_text(store: RunStore, run: RunRecord, fmt: str, baseline: str | None = None) -> str:
    """The ``fmt`` ("html" or "markdown") page of ``run``; with ``baseline`` (a run id of the
    same kind, Markdown only), what broke and was fixed since that run.

    Raises :class:`~nlu_tui.errors.InputError` for a baseline that is unknown, of another
    kind, or given with HTML (field ``--diff-with``).
    """
    from nlu_tui.store.records import StoredItem

    if run.kind not in PAGE_KINDS:
        raise InputError(f"run {run.id} is a {run.kind} run, not a conversation or DUT run")
    if fmt not in ("html", "markdown"):
        raise InputError(f"no {fmt} page of a {run.kind} run", field="--format")
    if baseline is not None and fmt != "markdown":
        raise InputError("--diff-with goes with -f markdown", field="--diff-with")
    items = [i for i in store.load_items(run.id) if isinstance(i, StoredItem)]
    diff = None
    if baseline is not None:
        from nlu_tui.reports.item_diff import diff_items

        before = store.get_run(baseline)  # an unknown id: one line, exit 2
        if before.kind != run.kind:
            raise InputError(
                f"run {before.id} is a {before.kind} run; --diff-with takes a {run.kind} run here",
                field="--diff-with",
            )
        old = [i for i in store.load_items(before.id) if isinstance(i, StoredItem)]
        diff = diff_items(old, items)
        baseline = before.id
    if run.kind == "dut":
        from nlu_tui.dut.report_pages import dut_html, dut_markdown

        return dut_html(run) if fmt == "html" else dut_markdown(run, diff=diff, baseline=baseline)
    from nlu_tui.conversation.report_pages import conversation_html, conversation_markdown

    if fmt == "html":
        return conversation_html(run, items)
    return conversation_markdown(run, items, diff=diff, baseline=baseline)


def write_page(
    store: RunStore, run_id: str, fmt: str, path: Path, baseline: str | None = None
) -> Path:
    """Write ``run_id``'s ``fmt`` page to ``path`` atomically (``show RUN -f FMT -o PATH`` and
    the workbench's Export of a conversation or DUT run); returns the path written."""
    from nlu_tui.fileio import atomic_write_text

    text = page_text(store, store.get_run(run_id), fmt, baseline)
    atomic_write_text(path, text)
    return path
