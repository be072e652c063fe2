"""Trained models cached by training-data hash, in memory and as ``.npz`` files in the models
folder.

Training the financial demo takes about a second, but a 15,000-example bot takes seconds and a
run, ``nlu-tui serve`` and the TUI all open the same data again and again. The key covers the
data's bytes, the classifier settings, the model format and the scikit-learn version, so any
change (or an edit of the model code) retrains.

Files are read by :mod:`~nlu_tui.engines.embedded.modelfile`, which cannot run code: a file that
is not a model (corrupt, truncated, planted) is ignored and rewritten. A models folder that cannot
be written (read-only, full, a file in its place) costs the cache, not the model: the trained
model is used and a warning says why, once per folder.
"""

from __future__ import annotations

import hashlib
import logging
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

MODEL_FORMAT = 2
_MEMORY: dict[str, EmbeddedModel] = {}
_LOCK = threading.Lock()
_WARNED: set[str] = set()
log = logging.getLogger(__name__)


def _code_digest() -> str:
    """Hash of the modules that train, store and read models: editing them invalidates old ones."""
    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in ("classifier.py", "entities.py", "features.py", "model.py", "modelfile.py"):
        digest.update((here / name).read_bytes())
    return digest.hexdigest()[:16]


def _target(key: str) -> Path:
    return paths.models_cache_dir() / f"embedded-{key}.npz"


def _read(target: Path) -> EmbeddedModel | None:
    """The cached model in ``target``, or None (absent, unreadable or not a model: retrain)."""
    from nlu_tui.engines.embedded.modelfile import BadModelFile, load

    try:
        if not target.is_file():
            return None
        return load(target)
    except (OSError, BadModelFile):
        return None


def _write(target: Path, model: EmbeddedModel) -> None:
    """Store the model; a folder that cannot take it is a warning (once per folder), never an
    error: the model trained and is used all the same."""
    from nlu_tui.engines.embedded.modelfile import dumps

    try:
        atomic_write_bytes(target, dumps(model))
    except OSError as exc:
        folder = str(target.parent)
        with _LOCK:
            first = folder not in _WARNED
            _WARNED.add(folder)
        if first:
            reason = exc.strerror or type(exc).__name__
            log.warning(
                "embedded engine: cannot write the model cache in %s (%s); "
                "the trained model is used without being cached",
                folder,
                reason,
            )


def cache_key(data_digest: str, config: ClassifierConfig) -> str:
    text = f"{MODEL_FORMAT}|{_code_digest()}|{_sklearn_version()}|{config.key()}|{data_digest}"
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _sklearn_version() -> str:
    """scikit-learn's version (``sklearn.__version__``) from its installed metadata: importing
    scikit-learn takes half a second, which a model read from the cache does not need."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("scikit-learn")
    except PackageNotFoundError:  # not installed as a distribution: ask the module itself
        import sklearn

        return str(sklearn.__version__)


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
    target = _target(key)
    stored = _read(target) if use_disk else None
    if stored is not None:
        with _LOCK:
            _MEMORY[key] = stored
        return stored, True
    data = load_training_data(path)
    model = EmbeddedModel.train(data, config, digest=key)
    if use_disk:
        _write(target, model)
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
    target = _target(key)
    stored = _read(target) if use_disk else None
    if stored is not None:
        if use_memory:
            with _LOCK:
                _MEMORY[key] = stored
        return stored, True
    model = EmbeddedModel.train(data, config.classifier, digest=key, entities=config.entities)
    if use_disk:
        _write(target, model)
    if use_memory:
        with _LOCK:
            _MEMORY[key] = model
    return model, False
