"""The intent classifier: word and character n-gram TF-IDF with a multinomial logistic regression.

Logistic regression gives probabilities that sum to one over the intents, which is what a
confidence threshold and a ranking need; character n-grams (``char_wb``) carry typos and
inflections that a word model misses on the small data sets bots are trained on.
scikit-learn is imported here, inside functions, so that importing nlu-tui stays fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nlu_tui.errors import EngineError

CLASSIFIERS = ("LogisticRegression", "NaiveBayes")
"""Classifier components a configuration may name (both give probabilities for a threshold)."""


@dataclass
class ClassifierConfig:
    """Hyper-parameters; part of the cache key, so a change retrains.

    ``word_ngrams``/``char_ngrams`` None leaves that feature set out (never both).
    """

    word_ngrams: tuple[int, int] | None = (1, 2)
    char_ngrams: tuple[int, int] | None = (1, 4)
    c: float = 20.0
    max_iter: int = 2000
    seed: int = 0
    name: str = "LogisticRegression"
    alpha: float = 0.1

    def key(self) -> str:
        base = f"w{self.word_ngrams}c{self.char_ngrams}C{self.c}i{self.max_iter}s{self.seed}"
        if self.name != "LogisticRegression":
            base += f"|{self.name}a{self.alpha}"
        return base


_BLAS_LIMITED = False


def limit_blas_threads() -> None:
    """Run BLAS single-threaded in this process, once.

    These models are small and sparse: BLAS threads gain nothing, and on a busy two-core machine
    their spinning made training 20 times slower (10 s instead of 0.5 s on the financial demo).
    """
    global _BLAS_LIMITED
    if not _BLAS_LIMITED:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

        threadpool_limits(limits=1, user_api="blas")
        threadpool_limits(limits=1, user_api="openmp")
        _BLAS_LIMITED = True


class IntentClassifier:
    """A fitted pipeline plus the intent names in the order of its probability columns."""

    def __init__(self, pipeline: Any, labels: list[str]) -> None:
        self.pipeline = pipeline
        self.labels = labels

    @classmethod
    def train(
        cls, texts: Sequence[str], intents: Sequence[str], config: ClassifierConfig | None = None
    ) -> IntentClassifier:
        """Fit on the examples; at least two intents are needed to tell anything apart."""
        config = config or ClassifierConfig()
        if len(texts) != len(intents):
            raise ValueError("texts and intents differ in length")
        distinct = sorted(set(intents))
        if len(distinct) < 2:
            raise EngineError(
                f"the training data has {len(distinct)} intent(s); the embedded engine needs at least 2"
            )
        limit_blas_threads()
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import FeatureUnion, Pipeline

        parts: list[tuple[str, Any]] = []
        if config.word_ngrams is not None:
            parts.append(
                (
                    "word",
                    TfidfVectorizer(
                        analyzer="word",
                        ngram_range=config.word_ngrams,
                        sublinear_tf=True,
                        lowercase=True,
                        token_pattern=r"(?u)\b\w+\b",
                    ),
                )
            )
        if config.char_ngrams is not None:
            parts.append(
                (
                    "char",
                    TfidfVectorizer(
                        analyzer="char_wb",
                        ngram_range=config.char_ngrams,
                        sublinear_tf=True,
                        lowercase=True,
                    ),
                )
            )
        if not parts:
            raise EngineError("embedded engine: the configuration leaves no features")
        features = FeatureUnion(parts)
        model: Any
        if config.name == "NaiveBayes":
            from sklearn.naive_bayes import MultinomialNB

            model = MultinomialNB(alpha=config.alpha)
        else:
            model = LogisticRegression(
                C=config.c, max_iter=config.max_iter, random_state=config.seed
            )
        pipeline = Pipeline([("features", features), ("clf", model)])
        pipeline.fit(list(texts), list(intents))
        labels = [str(label) for label in pipeline.classes_]
        return cls(pipeline, labels)

    def predict_proba(self, text: str) -> list[tuple[str, float]]:
        """Every intent with its probability, best first."""
        limit_blas_threads()
        probs = self.pipeline.predict_proba([text])[0]
        pairs = [(label, float(p)) for label, p in zip(self.labels, probs, strict=True)]
        pairs.sort(key=lambda pair: (-pair[1], pair[0]))
        return pairs

    def predict_many(self, texts: Sequence[str]) -> list[list[tuple[str, float]]]:
        """Batch form of :meth:`predict_proba` (evaluation and benchmarks): the same pairs in
        the same order, sorted by numpy in one call instead of one Python sort per text."""
        if not texts:
            return []
        limit_blas_threads()
        import numpy as np

        matrix = self.pipeline.predict_proba(list(texts))
        # columns in label order, then a stable sort by descending probability: ties stay in
        # label order, as the key (-probability, label) of predict_proba orders them
        by_label = np.array(sorted(range(len(self.labels)), key=self.labels.__getitem__))
        ranked = np.argsort(-matrix[:, by_label], axis=1, kind="stable")
        columns = by_label[ranked]
        probabilities = np.take_along_axis(matrix, columns, axis=1)
        labels = self.labels
        return [
            [(labels[i], p) for i, p in zip(row, probs, strict=True)]
            for row, probs in zip(columns.tolist(), probabilities.tolist(), strict=True)
        ]
