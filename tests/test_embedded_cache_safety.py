"""The embedded engine's model cache: a file in it never runs code, and a folder that cannot be
written costs the cache, not the run. Real files, real training, a real CLI subprocess."""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from nlu_tui import paths
from nlu_tui.engines.base import ParseContext, create_engine
from nlu_tui.engines.embedded import EmbeddedEngine
from nlu_tui.engines.embedded.cache import cache_key, clear_memory, file_digest
from nlu_tui.engines.embedded.classifier import ClassifierConfig
from nlu_tui.engines.embedded.model import EmbeddedModel
from nlu_tui.engines.embedded.modelfile import BadModelFile, dumps, load
from nlu_tui.formats.rasa_yaml import load_training_data

MINI = Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml"
SAMPLES = Path(__file__).resolve().parent.parent / "sample_suites"


class _Planted:
    """What an attacker plants: unpickling it runs ``touch <marker>``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


async def _engine(path: Path) -> EmbeddedEngine:
    engine = create_engine("embedded", {"nlu": str(path)})
    assert isinstance(engine, EmbeddedEngine)
    await engine.open(None)
    return engine


async def test_a_planted_cache_file_runs_nothing_and_the_engine_retrains(tmp_path: Path) -> None:
    data = tmp_path / "bot.nlu.yml"
    data.write_text(MINI.read_text())
    marker = tmp_path / "marker"
    payload = pickle.dumps(_Planted(marker))
    # the name the cache gives this data's model, in the format of then and of now
    key = cache_key(file_digest(data), ClassifierConfig())
    folder = paths.models_cache_dir()
    folder.mkdir(parents=True)
    for suffix in (".pkl", ".npz"):
        (folder / f"embedded-{key}{suffix}").write_bytes(payload)
    pickle.loads(payload)  # the payload is live: loading it with pickle does run the command
    assert marker.exists()
    marker.unlink()
    clear_memory()
    engine = await _engine(data)
    assert not marker.exists()  # nothing ran
    assert not engine.from_cache  # the planted file was not taken for a model: trained again
    assert (await engine.parse("what's my balance", ParseContext())).intent == "check_balance"
    # ... and the planted file was replaced by the real model, which loads next time
    clear_memory()
    again = await _engine(data)
    assert again.from_cache and not marker.exists()


def test_model_file_round_trip_and_refusals(tmp_path: Path) -> None:
    data = load_training_data(SAMPLES / "banking_bot.nlu.yml")
    greetings = [e.intent for e in data.examples if "greet" in e.intent][:1]
    assert greetings
    data.intent_metadata[greetings[0]] = {"kind": "trait"}  # a trait classifier is stored too
    model = EmbeddedModel.train(data)
    assert model.traits is not None
    path = tmp_path / "m.npz"
    path.write_bytes(dumps(model))
    loaded = load(path)
    texts = ["what is my balance", "block my card please", "hello there", "send 20 to Anna", ""]
    for text in texts:
        a, b = model.predict(text), loaded.predict(text)
        assert (a.intent, a.ranking, a.entities) == (b.intent, b.ranking, b.entities)
        assert a.traits == b.traits
    assert loaded.parents == model.parents and loaded.digest == model.digest
    # not a model: refused, never executed
    for bad in (b"", b"not a zip", pickle.dumps({"a": 1}), path.read_bytes()[:1000]):
        path.write_bytes(bad)
        with pytest.raises(BadModelFile):
            load(path)
    # a zip declaring more than MAX_BYTES unpacked is refused before anything is decompressed
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.json.npy", b"\0" * (3 << 20))
    from nlu_tui.engines.embedded import modelfile

    limit = modelfile.MAX_BYTES
    modelfile.MAX_BYTES = 1 << 20
    try:
        with pytest.raises(BadModelFile, match="unpacked"):
            load(path)
    finally:
        modelfile.MAX_BYTES = limit


async def test_a_cache_folder_that_cannot_be_written_is_a_warning_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Tests run as root, where a read-only mode does not stop writes: a file in the folder's
    place does (every write under it fails with ENOTDIR/EEXIST), as a full or read-only disk."""
    data = tmp_path / "bot.nlu.yml"
    data.write_text(MINI.read_text())
    folder = paths.models_cache_dir()
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("a file where the models folder should be")
    clear_memory()
    with caplog.at_level(logging.WARNING, logger="nlu_tui.engines.embedded.cache"):
        engine = await _engine(data)
        assert (await engine.parse("hello there", ParseContext())).intent == "greet"
        clear_memory()
        second = await _engine(data)  # trains again (nothing cached), no second warning
    assert not engine.from_cache and not second.from_cache
    warnings = [r.getMessage() for r in caplog.records if "model cache" in r.getMessage()]
    assert len(warnings) == 1, warnings
    assert str(folder) in warnings[0] and "the trained model is used" in warnings[0]
    assert folder.read_text() == "a file where the models folder should be"


@pytest.mark.slow
def test_a_run_with_an_unwritable_cache_succeeds_and_says_so_on_stderr(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "models").write_text("not a folder")
    env = {**os.environ, "NLU_TUI_DATA_DIR": str(data_dir)}
    ran = subprocess.run(
        [
            sys.executable,
            "-m",
            "nlu_tui",
            "run",
            str(SAMPLES / "banking_bot.suite.yaml"),
            "--engine",
            f"embedded:{SAMPLES / 'banking_bot.nlu.yml'}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "54/54 cases" in ran.stdout and "ERR 0" in ran.stdout, ran.stdout
    assert ran.stderr.count("cannot write the model cache") == 1, ran.stderr
    assert str(data_dir / "models") in ran.stderr
