"""The embedded engine's training configuration: a small YAML file in the spirit of Rasa's
``config.yml`` (features, classifier, threshold, entity extraction), checked before training.

No file means :data:`DEFAULT_CONFIG_TEXT`, the engine's behaviour before configurations
existed. Every problem is an :class:`InputError` naming the file, the line and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nlu_tui.engines.embedded.classifier import CLASSIFIERS, ClassifierConfig
from nlu_tui.errors import InputError
from nlu_tui.model import EMBEDDED_DEFAULT_THRESHOLD as DEFAULT_THRESHOLD

DEFAULT_CONFIG_TEXT = """\
# nlu-tui embedded engine configuration (the default: what the engine does without one)
engine: embedded
features:
  word_ngrams: [1, 2]   # word TF-IDF n-grams; null leaves them out
  char_ngrams: [1, 4]   # character n-grams within words (char_wb); null leaves them out
classifier:
  name: auto            # LogisticRegression (C 20) up to 50,000 examples x intents, LinearSVM
                        # (C 1) beyond; or name one of them, or NaiveBayes (option alpha)
  temperature: 5.2      # LinearSVM: confidence = softmax(temperature x margin)
  max_iter: 2000
  seed: 0
threshold: 0.3          # no intent below this top confidence
entities:
  annotated: true       # surface forms annotated in the training data
  lookups: true         # lookup tables
  regexes: true         # regexes named after their entity
"""

_SECTIONS: dict[str, set[str]] = {
    "features": {"word_ngrams", "char_ngrams"},
    "classifier": {"name", "C", "max_iter", "seed", "alpha", "temperature"},
    "entities": {"annotated", "lookups", "regexes"},
}
_TOP = {"engine", "threshold", "language", "recipe", "assistant_id", *_SECTIONS}


@dataclass(frozen=True)
class EntityOptions:
    """Which of the extractor's sources are used."""

    annotated: bool = True
    lookups: bool = True
    regexes: bool = True

    def key(self) -> str:
        return f"a{int(self.annotated)}l{int(self.lookups)}r{int(self.regexes)}"


@dataclass(frozen=True)
class EmbeddedConfig:
    """A parsed configuration."""

    classifier: ClassifierConfig = field(default_factory=ClassifierConfig)
    threshold: float = DEFAULT_THRESHOLD
    entities: EntityOptions = field(default_factory=EntityOptions)

    def key(self) -> str:
        """Everything that changes a trained model (the threshold does not)."""
        return f"{self.classifier.key()}|{self.entities.key()}"


def _node_lines(node: Any, prefix: tuple[str, ...], out: dict[tuple[str, ...], int]) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = (*prefix, str(key.value))
            out[name] = key.start_mark.line + 1
            _node_lines(value, name, out)


def parse_embedded_config(text: str, path: Path | None = None) -> EmbeddedConfig:
    """Parse and check a configuration's text (InputError with file, line and field)."""
    import yaml

    lines: dict[tuple[str, ...], int] = {}

    def bad(message: str, *keys: str) -> InputError:
        line = None
        for n in range(len(keys), 0, -1):
            line = lines.get(tuple(keys[:n]))
            if line is not None:
                break
        return InputError(message, path=path, line=line, field=".".join(keys) or None)

    try:
        node = yaml.compose(text)
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(
            f"not valid YAML: {problem}", path=path, line=mark.line + 1 if mark else None
        ) from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InputError("a configuration is a mapping of settings", path=path, line=1)
    _node_lines(node, (), lines)
    for key in raw:
        if str(key) not in _TOP:
            raise bad(f"unknown setting; known: {', '.join(sorted(_TOP))}", str(key))
    engine = raw.get("engine", "embedded")
    if engine != "embedded":
        raise bad(f"this configuration is for engine {engine!r}, not embedded", "engine")
    sections: dict[str, dict[str, Any]] = {}
    for name, allowed in _SECTIONS.items():
        value = raw.get(name) or {}
        if not isinstance(value, dict):
            raise bad("must be a mapping", name)
        for key in value:
            if str(key) not in allowed:
                raise bad(f"unknown setting; known: {', '.join(sorted(allowed))}", name, str(key))
        sections[name] = value

    def ngrams(key: str, default: tuple[int, int] | None) -> tuple[int, int] | None:
        features = sections["features"]
        if key not in features:
            return default
        value = features[key]
        if value is None:
            return None
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(type(v) is int for v in value)
            or not 1 <= value[0] <= value[1] <= 10
        ):
            raise bad("must be [min, max] with 1 <= min <= max <= 10, or null", "features", key)
        return (value[0], value[1])

    def number(section: str, key: str, default: float, lo: float, hi: float) -> float:
        where = sections[section] if section else raw
        value = where.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
            keys = (section, key) if section else (key,)
            raise bad(f"must be a number within {lo:g}..{hi:g}, got {value!r}", *keys)
        return float(value)

    clf = sections["classifier"]
    name = clf.get("name", "auto")
    if name not in CLASSIFIERS:
        raise bad(
            f"unknown component {name!r}; known: {', '.join(CLASSIFIERS)}", "classifier", "name"
        )
    base = ClassifierConfig()
    classifier = ClassifierConfig(
        word_ngrams=ngrams("word_ngrams", base.word_ngrams),
        char_ngrams=ngrams("char_ngrams", base.char_ngrams),
        c=number("classifier", "C", 1.0, 1e-6, 1e6) if "C" in clf else None,
        max_iter=int(number("classifier", "max_iter", base.max_iter, 1, 1e6)),
        seed=int(number("classifier", "seed", base.seed, 0, 2**31)),
        name=str(name),
        alpha=number("classifier", "alpha", base.alpha, 1e-9, 1e3),
        temperature=number("classifier", "temperature", base.temperature, 1e-3, 1e3),
    )
    if classifier.word_ngrams is None and classifier.char_ngrams is None:
        raise bad("word_ngrams and char_ngrams are both null: no features left", "features")
    ents = sections["entities"]
    flags = {}
    for key in ("annotated", "lookups", "regexes"):
        value = ents.get(key, True)
        if not isinstance(value, bool):
            raise bad(f"must be true or false, got {value!r}", "entities", key)
        flags[key] = value
    return EmbeddedConfig(
        classifier=classifier,
        threshold=number("", "threshold", DEFAULT_THRESHOLD, 0.0, 1.0),
        entities=EntityOptions(**flags),
    )


def load_embedded_config(path: Path | None) -> tuple[EmbeddedConfig, str]:
    """The configuration in ``path`` (None: the default) and its text."""
    if path is None:
        return parse_embedded_config(DEFAULT_CONFIG_TEXT), DEFAULT_CONFIG_TEXT
    path = Path(path)
    if not path.is_file():
        raise InputError("no such configuration file", path=path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", path=path) from None
    return parse_embedded_config(text, path), text
