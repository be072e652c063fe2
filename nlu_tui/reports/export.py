"""Export from the results view: every format of the reports registry, to a chosen path.

No Textual here; the pane asks for a format and a path, then calls :func:`write_export`.
"""

from __future__ import annotations

from pathlib import Path

from nlu_tui.views.run_data import RunData


def export_formats() -> list[tuple[str, str, str]]:
    """(name, description, default suffix) of each report format; "" suffix = a folder."""
    from nlu_tui.reports import REPORT_FORMATS

    return [
        (f.name, f.description, "" if f.directory else f.extension) for f in REPORT_FORMATS.values()
    ]


def write_export(fmt: str, path: Path, data: RunData) -> str:
    """Write the run as ``fmt`` to ``path``; returns what was written, for the notice."""
    from nlu_tui.reports import RunMeta, write_report

    meta = RunMeta.from_record(data.record)
    if data.stability is not None:
        meta.stability = data.stability.as_dict()
    written = write_report(fmt, Path(path), meta, data.rows)
    return ", ".join(str(p) for p in written) or str(path)
