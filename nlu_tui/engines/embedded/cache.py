"""Trained models cached by training-data hash, in memory and as pickles in the models folder.

Training the financial demo takes about a second, but a 10,000-example bot takes longer and a
run, ``nlu-tui serve`` and the TUI all open the same data again and again. The key covers the
data's bytes, the classifier settings, the model format and the scikit-learn version, so any
change (or an edit of the model code) retrains; a cache file that does not load is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from nlu_tui import paths
from nlu_tui.engines.embedded.classifier import ClassifierConfig
from nlu_tui.engines.embedded.model import EmbeddedModel
from nlu_tui.fileio import atomic_write_bytes

if TYPE_CHECKING:
    from nlu_tui.engines.embedded.config import EmbeddedConfig
    from nlu_tui.training import TrainingData

MODEL_FORMAT = 1
_MEMORY: dict[str, EmbeddedModel] = {}
_LOCK = threading.Lock()


def _code_digest() -> str:
    """Hash of the modules whose classes are pickled: editing them invalidates old models."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in ("classifier.py", "entities.py", "model.py"):
        digest.update((here / name).read_bytes())
    return digest.hexdigest()[:16]


def cache_key(data_digest: str, config: ClassifierConfig) -> str:
    import sklearn

    text = f"{MODEL_FORMAT}|{_code_digest()}|{sklearn.__version__}|{config.key()}|{data_digest}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def file_digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_or_train(
    path: Path, config: ClassifierConfig | None = None, *, use_disk: bool = True
) -> tuple[EmbeddedModel, bool]:
    """The model for this training file, and whether it came from a cache. Blocking: run in a thread."""
    from nlu_tui.formats.rasa_yaml import load_training_data

    config = config or ClassifierConfig()
    path = Path(path)
    key = cache_key(file_digest(path), config)
    with _LOCK:
        cached = _MEMORY.get(key)
    if cached is not None:
        return cached, True
    target = paths.models_cache_dir() / f"embedded-{key}.pkl"
    if use_disk and target.is_file():
        try:
            with target.open("rb") as fh:
                model = pickle.load(fh)
            if isinstance(model, EmbeddedModel):
                with _LOCK:
                    _MEMORY[key] = model
                return model, True
        except Exception:  # a stale or truncated cache file: retrain and overwrite it
            pass
    data = load_training_data(path)
    model = EmbeddedModel.train(data, config, digest=key)
    if use_disk:
        atomic_write_bytes(target, pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    with _LOCK:
        _MEMORY[key] = model
    return model, False


def clear_memory() -> None:
    """Forget in-memory models (tests use it to prove the disk cache is read)."""
    with _LOCK:
        _MEMORY.clear()


def data_digest(data: TrainingData) -> str:
    """Hash of everything a model learns from (examples with their entities, synonyms,
    regexes, lookups, intent metadata), whatever file or fold the data came from."""
    import json

    examples = [
        [
            ex.intent,
            ex.text,
            [[e.name, e.value, e.start, e.end, e.role, e.group] for e in ex.entities],
        ]
        for ex in data.examples
    ]
    text = json.dumps(
        [examples, data.synonyms, data.regexes, data.lookups, data.intent_metadata],
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def train_cached(
    data: TrainingData, config: EmbeddedConfig, *, use_disk: bool = True, use_memory: bool = True
) -> tuple[EmbeddedModel, bool]:
    """The model for these examples and this configuration, and whether it came from a cache
    (memory, then the models folder): repeating an evaluation re-trains nothing."""
    key = cache_key(data_digest(data), config.classifier) + "-" + config.entities.key()
    with _LOCK:
        cached = _MEMORY.get(key) if use_memory else None
    if cached is not None:
        return cached, True
    target = paths.models_cache_dir() / f"embedded-{key}.pkl"
    if use_disk and target.is_file():
        try:
            with target.open("rb") as fh:
                model = pickle.load(fh)
            if isinstance(model, EmbeddedModel):
                if use_memory:
                    with _LOCK:
                        _MEMORY[key] = model
                return model, True
        except Exception:  # a stale or truncated cache file: retrain and overwrite it
            pass
    model = EmbeddedModel.train(data, config.classifier, digest=key, entities=config.entities)
    if use_disk:
        atomic_write_bytes(target, pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    if use_memory:
        with _LOCK:
            _MEMORY[key] = model
    return model, False
