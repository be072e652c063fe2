"""The model cache's file: numbers in a NumPy ``.npz``, everything else in one JSON document.

A cache file is read with ``numpy.load(allow_pickle=False)`` and ``json.loads``: neither can run
code, whatever the file holds (the pickles this cache once used ran any code a planted file
carried, the moment it was loaded). Every part is checked (types, shapes, sizes) before a model
is built from it; a file that fails any check is :class:`BadModelFile`, and the cache trains
again. The zip's declared sizes are checked before anything is decompressed.

Layout: ``meta.json`` (UTF-8 bytes as a uint8 array) holds the format number, the digest, the
entity extractor, the intent tree and, per classifier (``intent`` and optionally ``traits``), its
labels, model name, softmax scale and each feature set's analyzer, n-grams and terms; the arrays
``<classifier>.weights`` (features × labels, float32), ``<classifier>.bias`` and
``<classifier>.idf<i>`` (float64) hold the numbers.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from nlu_tui.engines.embedded.classifier import CLASSIFIERS, IntentClassifier
from nlu_tui.engines.embedded.entities import EntityExtractor
from nlu_tui.engines.embedded.features import ANALYZERS, Vectorizer
from nlu_tui.engines.embedded.model import EmbeddedModel

FILE_FORMAT = 1
MAX_BYTES = 2 << 30
"""Largest total a cache file may declare once decompressed (CLINC150's model: 30 MB)."""


class BadModelFile(ValueError):
    """The file is not a model this version wrote (corrupt, truncated, foreign or planted)."""


def dumps(model: EmbeddedModel) -> bytes:
    """The model as the bytes of a ``.npz`` file."""
    import numpy as np

    arrays: dict[str, Any] = {}
    classifiers = {"intent": _classifier_meta(model.classifier, "intent", arrays)}
    if model.traits is not None:
        classifiers["traits"] = _classifier_meta(model.traits, "traits", arrays)
    meta = {
        "format": FILE_FORMAT,
        "digest": model.digest,
        "examples": model.examples,
        "train_seconds": model.train_seconds,
        "parents": model.parents,
        "extractor": model.extractor.to_data(),
        "classifiers": classifiers,
    }
    arrays["meta.json"] = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _classifier_meta(classifier: IntentClassifier, prefix: str, arrays: dict[str, Any]) -> Any:
    arrays[f"{prefix}.weights"] = classifier.weights
    arrays[f"{prefix}.bias"] = classifier.bias
    for i, vectorizer in enumerate(classifier.vectorizers):
        arrays[f"{prefix}.idf{i}"] = vectorizer.idf
    return {
        "labels": classifier.labels,
        "model": classifier.model,
        "scale": classifier.scale,
        "features": [
            {"analyzer": v.analyzer, "ngrams": list(v.ngrams), "terms": v.terms}
            for v in classifier.vectorizers
        ],
    }


def load(path: Path) -> EmbeddedModel:
    """The model in ``path``; :class:`BadModelFile` when it is not one (nothing in the file is
    ever executed), OSError when it cannot be read."""
    import numpy as np

    try:
        with zipfile.ZipFile(path) as archive:
            declared = sum(member.file_size for member in archive.infolist())
    except (zipfile.BadZipFile, EOFError, ValueError) as exc:
        raise BadModelFile(f"not a model file: {exc}") from None
    if declared > MAX_BYTES:
        raise BadModelFile(f"declares {declared} bytes once unpacked (at most {MAX_BYTES})")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        meta = json.loads(_array(arrays, "meta.json", np.uint8, 1).tobytes().decode("utf-8"))
        return _model(meta, arrays)
    except BadModelFile:
        raise
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, zipfile.BadZipFile) as exc:
        raise BadModelFile(f"not a model file: {exc}") from None


def _array(arrays: dict[str, Any], name: str, dtype: Any, ndim: int) -> Any:
    value = arrays.get(name)
    if value is None or value.dtype != dtype or value.ndim != ndim:
        raise BadModelFile(f"{name}: missing, or not a {ndim}-d {dtype.__name__} array")
    return value


def _model(meta: Any, arrays: dict[str, Any]) -> EmbeddedModel:
    if not isinstance(meta, dict) or meta.get("format") != FILE_FORMAT:
        raise BadModelFile("another format")
    parents = meta.get("parents")
    if not isinstance(parents, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in parents.items()
    ):
        raise BadModelFile("parents: not a mapping of strings")
    digest, examples, seconds = meta.get("digest"), meta.get("examples"), meta.get("train_seconds")
    if not isinstance(digest, str) or type(examples) is not int:
        raise BadModelFile("digest or examples of the wrong type")
    if not isinstance(seconds, int | float):
        raise BadModelFile("train_seconds is not a number")
    classifiers = meta.get("classifiers")
    if not isinstance(classifiers, dict) or "intent" not in classifiers:
        raise BadModelFile("no intent classifier")
    traits = classifiers.get("traits")
    return EmbeddedModel(
        classifier=_classifier(classifiers["intent"], "intent", arrays),
        extractor=EntityExtractor.from_data(meta.get("extractor")),
        parents=dict(parents),
        digest=digest,
        examples=examples,
        train_seconds=float(seconds),
        traits=_classifier(traits, "traits", arrays) if traits is not None else None,
    )


def _classifier(meta: Any, prefix: str, arrays: dict[str, Any]) -> IntentClassifier:
    import numpy as np

    if not isinstance(meta, dict):
        raise BadModelFile(f"{prefix}: not a mapping")
    labels, model, scale = meta.get("labels"), meta.get("model"), meta.get("scale")
    if (
        not isinstance(labels, list)
        or len(labels) < 2
        or not all(isinstance(x, str) for x in labels)
    ):
        raise BadModelFile(f"{prefix}: labels are not a list of strings")
    if model not in CLASSIFIERS or model == "auto":
        raise BadModelFile(f"{prefix}: unknown model {model!r}")
    if not isinstance(scale, int | float) or not 0 < scale < 1e6:
        raise BadModelFile(f"{prefix}: scale out of range")
    sets = meta.get("features")
    if not isinstance(sets, list) or not sets:
        raise BadModelFile(f"{prefix}: no feature sets")
    vectorizers = []
    for i, spec in enumerate(sets):
        if not isinstance(spec, dict) or spec.get("analyzer") not in ANALYZERS:
            raise BadModelFile(f"{prefix}: feature set {i} has no known analyzer")
        ngrams, terms = spec.get("ngrams"), spec.get("terms")
        if (
            not isinstance(ngrams, list)
            or len(ngrams) != 2
            or not all(type(n) is int for n in ngrams)
            or not 1 <= ngrams[0] <= ngrams[1] <= 10
        ):
            raise BadModelFile(f"{prefix}: feature set {i} has bad n-grams")
        if not isinstance(terms, list) or not all(isinstance(t, str) for t in terms):
            raise BadModelFile(f"{prefix}: feature set {i} terms are not strings")
        idf = _array(arrays, f"{prefix}.idf{i}", np.float64, 1)
        if idf.shape != (len(terms),):
            raise BadModelFile(
                f"{prefix}: feature set {i} has {len(idf)} idf for {len(terms)} terms"
            )
        vectorizers.append(Vectorizer(spec["analyzer"], (ngrams[0], ngrams[1]), terms, idf))
    weights = _array(arrays, f"{prefix}.weights", np.float32, 2)
    bias = _array(arrays, f"{prefix}.bias", np.float64, 1)
    width = sum(len(v.terms) for v in vectorizers)
    if weights.shape != (width, len(labels)) or bias.shape != (len(labels),):
        raise BadModelFile(f"{prefix}: weights {weights.shape} do not fit the features and labels")
    if not (np.isfinite(weights).all() and np.isfinite(bias).all()):
        raise BadModelFile(f"{prefix}: weights that are not finite")
    return IntentClassifier(vectorizers, weights, bias, float(scale), labels, str(model))
