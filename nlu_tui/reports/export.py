"""Export from the results view: every format of the reports registry, to a chosen path.

No Textual here; the pane asks for a format and a path, then calls :func:`write_export`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from nlu_tui.reports import REPORT_FORMATS, RunMeta, write_reports
from nlu_tui.reports.rasa_report import RasaOptions
from nlu_tui.reports.run_data import RunData


def export_formats() -> list[tuple[str, str, str]]:
    """(name, description, default suffix) of each report format; "" suffix = a folder."""
    return [
        (f.name, f.description, "" if f.directory else f.extension) for f in REPORT_FORMATS.values()
    ]


def write_export(
    fmt: str, path: Path, data: RunData, rasa_switches: Mapping[str, bool] | None = None
) -> str:
    """Write the run as ``fmt`` to ``path``; returns what was written, for the notice (the
    file, or how many files a folder received).

    ``rasa_switches`` (``successes``, ``errors``, ``plots``) are the Rasa folder's
    ``rasa test nlu`` switches, as the CLI's ``--rasa-successes/--rasa-no-errors/--rasa-no-plot``.
    """
    rasa = RasaOptions(**dict(rasa_switches or {}))
    meta = RunMeta.from_record(data.record)
    if data.stability is not None:
        meta.stability = data.stability.as_dict()
    written = write_reports({fmt: Path(path)}, meta, data.rows, rasa=rasa)
    if len(written) > 1:  # the Rasa folder: its count, not a toast-filling list
        return f"{len(written)} files in {path}"
    return ", ".join(str(p) for p in written) or str(path)
