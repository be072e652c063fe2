"""The workbench's Export writes what ``nlu-tui show RUN -f FORMAT -o PATH`` writes (issue 11:
"the same reports from the workbench's Export and from ``nlu-tui show RUN -f rasa``"), and each
export states the definitions its numbers follow and the settings that shaped them.

The Export dialog hands ``(format, path, switches)`` to ``reports.export.write_export`` with
the run loaded as the results pane loads it (``RunData.load``); the same bytes must come out
as from the command line, for every format it offers, images included.
"""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from nlu_tui.cli.main import run as cli
from nlu_tui.reports.export import export_formats, write_export
from nlu_tui.reports.metric_spec import KORE, NLUDEVOPS, RASA
from nlu_tui.reports.run_data import RunData
from nlu_tui.store import RunStore
from tests.conftest import SAMPLES

SWITCHES = [
    ({"successes": False, "errors": True, "plots": True}, []),
    ({"successes": True, "errors": False, "plots": False}, ["--rasa-successes", "--rasa-no-errors", "--rasa-no-plot"]),
]  # fmt: skip


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(data dir, run id) of the sample suite run on the embedded engine."""
    data = tmp_path_factory.mktemp("export-data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NLU_TUI_DATA_DIR", str(data))
        suite = SAMPLES / "banking_bot.suite.yaml"
        engine = f"embedded:{SAMPLES / 'banking_bot.nlu.yml'}"
        assert cli(["run", str(suite), "--engine", engine]) == 0
        (record,) = RunStore().list_runs()
    return data, record.id


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.slow
@pytest.mark.parametrize(("switches", "flags"), SWITCHES, ids=["default", "switched"])
def test_every_export_format_writes_what_show_writes(
    stored_run: tuple[Path, str],
    switches: dict[str, bool],
    flags: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data_dir, run_id = stored_run
    monkeypatch.setenv("NLU_TUI_DATA_DIR", str(data_dir))
    formats = {name: suffix for name, _desc, suffix in export_formats()}
    assert {"json", "csv", "junit", "rasa", "nludevops"} <= set(formats)
    data = RunData.load(RunStore(), run_id)
    for fmt, suffix in formats.items():
        ui, shown = tmp_path / f"ui-{fmt}{suffix}", tmp_path / f"cli-{fmt}{suffix}"
        write_export(fmt, ui, data, rasa_switches=switches)
        assert cli(["show", run_id, "-f", fmt, "-o", str(shown), *flags]) == 0
        if suffix:
            assert ui.read_bytes() == shown.read_bytes(), fmt
        else:
            assert _files(ui) == _files(shown), fmt
    rasa = _files(tmp_path / "ui-rasa")
    assert ("intent_errors.json" in rasa) is switches["errors"]
    assert ("intent_successes.json" in rasa) is switches["successes"]
    assert ("intent_histogram.png" in rasa) is switches["plots"]


@pytest.mark.slow
def test_each_export_states_its_definitions_and_settings(
    stored_run: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_dir, run_id = stored_run
    monkeypatch.setenv("NLU_TUI_DATA_DIR", str(data_dir))
    data = RunData.load(RunStore(), run_id)
    write_export("json", tmp_path / "r.json", data)
    spec = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["metric_spec"]
    assert spec["definition"] == KORE
    assert {"negative_intents", "fallback", "entity_match"} <= set(spec["settings"])

    write_export("csv", tmp_path / "r.csv", data)
    rows = list(csv.reader((tmp_path / "r.csv").read_text(encoding="utf-8-sig").splitlines()))
    header = {row[0]: row[1] for row in rows if len(row) == 2}
    assert header["Metric Definitions"] == KORE
    assert header["Metric Setting negative_intents"] == "None"
    assert "nlu_fallback" in header["Metric Setting fallback"]
    assert header["Metric Setting entity_match"].startswith("value")

    write_export("junit", tmp_path / "r.xml", data)
    props = {p.get("name"): p.get("value") for p in ET.parse(tmp_path / "r.xml").iter("property")}
    assert props["metric_definitions"] == KORE
    assert props["metric_negative_intents"] == "None"
    assert "nlu_fallback" in (props["metric_fallback"] or "")
    assert (props["metric_entity_match"] or "").startswith("value")

    write_export("rasa", tmp_path / "rasa", data)
    rasa = json.loads((tmp_path / "rasa" / "metric_spec.json").read_text(encoding="utf-8"))
    assert rasa["definition"] == RASA
    assert rasa["settings"]["negative_intents"] == ["None"]
    assert {"fallback", "several_intents", "entity_match", "tokens"} <= set(rasa["settings"])

    # The NLU.DevOps route: the answers file holds no numbers; compare's folder says it.
    write_export("nludevops", tmp_path / "results.json", data)
    assert cli(["export", str(SAMPLES / "banking_bot.suite.yaml"), "-f", "nludevops",
                "-o", str(tmp_path / "tests.json")]) == 0  # fmt: skip
    out = tmp_path / "compared"
    cli(["compare", "-e", str(tmp_path / "tests.json"), "-a", str(tmp_path / "results.json"),
         "-o", str(out)])  # fmt: skip
    compared = json.loads((out / "metric_spec.json").read_text(encoding="utf-8"))
    assert compared["definition"] == NLUDEVOPS
    assert {"negative_intent", "several_intents", "engine_errors", "entity_match"} <= set(
        compared["settings"]
    )


def test_rasa_folder_file_names_are_portable(
    stored_run: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded engine's extractors are named ``embedded:regex`` etc.; their report files
    must not carry the colon (invalid on Windows and refused by CI artifact uploads)."""
    data_dir, run_id = stored_run
    monkeypatch.setenv("NLU_TUI_DATA_DIR", str(data_dir))
    out = tmp_path / "rasa"
    assert cli(["show", run_id, "-f", "rasa", "-o", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert "embedded_regex_report.json" in names, names
    assert not [n for n in names if set(n) & set('<>:"\\|?*')], names


@pytest.mark.slow
def test_the_notice_names_a_file_or_counts_a_folder(
    stored_run: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workbench's "Exported" notice: a single file is named; the Rasa folder is counted
    (it listed all 18 paths, too long to read in a toast at 80 columns)."""
    data_dir, run_id = stored_run
    monkeypatch.setenv("NLU_TUI_DATA_DIR", str(data_dir))
    data = RunData.load(RunStore(), run_id)
    assert write_export("json", tmp_path / "r.json", data) == str(tmp_path / "r.json")
    folder = tmp_path / "rasa"
    said = write_export("rasa", folder, data, rasa_switches={"plots": False})
    assert said == f"{len(list(folder.iterdir()))} files in {folder}"
