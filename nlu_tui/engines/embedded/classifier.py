"""The intent classifier: word and character n-gram TF-IDF with a linear model over them.

Every classifier here is linear: a text's probabilities are ``softmax(scale × (x·W + b))`` over
its TF-IDF vector ``x``, so one small set of arrays holds any trained model (the model cache
stores them without pickle, see :mod:`nlu_tui.engines.embedded.modelfile`).

- ``auto`` (the default): ``LogisticRegression`` up to :data:`AUTO_LIMIT` examples × intents
  (every small bot: its results stay what they were), ``LinearSVM`` beyond.
- ``LinearSVM``: one linear SVM per intent against the rest (squared hinge, liblinear's dual
  coordinate descent), trained on an active set (:func:`fit_ovr_svm`) by two threads. Its
  margins become probabilities with a softmax at ``temperature`` (5.2, chosen on CLINC150's
  validation split): an intent scored at the margin +1 against others at -1 gets almost all
  the mass, a text no intent claims (every score below 0) gets a flat distribution, hence a
  low top confidence. CLINC150 (15,000 examples, 150 intents) trains in seconds.
- ``LogisticRegression``: the multinomial logistic regression (L-BFGS; C 20), the engine's only
  classifier before ``auto``; its probabilities are the model's own. About a minute on
  CLINC150.
- ``NaiveBayes``: multinomial naive Bayes (option ``alpha``).

Character n-grams (``char_wb``) carry typos and inflections that a word model misses on the small
data sets bots are trained on. scikit-learn is imported inside functions, so that importing
nlu-tui stays fast.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nlu_tui.engines.embedded.features import Vectorizer, feature_matrix
from nlu_tui.errors import EngineError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

CLASSIFIERS = ("auto", "LinearSVM", "LogisticRegression", "NaiveBayes")
"""Classifier components a configuration may name (all give probabilities for a threshold)."""

AUTO_LIMIT = 50_000
"""``auto`` trains a LogisticRegression up to this many examples × intents (the financial demo:
578 × 17 = 9,826; about a second), a LinearSVM beyond (CLINC150: 15,000 × 150 = 2,250,000)."""

DEFAULT_C = {"LinearSVM": 1.0, "LogisticRegression": 20.0}
"""The regularisation constant each classifier uses when the configuration gives no ``C``."""

DEFAULT_TEMPERATURE = 5.2
"""LinearSVM: the factor on the margins before the softmax (higher: more confident)."""

_CANDIDATES = 10
"""Examples of other intents a LinearSVM intent starts from, per example of its own (plus 200)."""

_MAX_ROUNDS = 8
"""Active-set rounds of :func:`fit_ovr_svm` before it keeps what it has (never reached in the
benchmarks: CLINC150 needs 3)."""


@dataclass
class ClassifierConfig:
    """Hyper-parameters; part of the cache key, so a change retrains.

    ``word_ngrams``/``char_ngrams`` None leaves that feature set out (never both). ``c`` None is
    the classifier's own default (:data:`DEFAULT_C`); ``name`` ``auto`` picks by data size.
    """

    word_ngrams: tuple[int, int] | None = (1, 2)
    char_ngrams: tuple[int, int] | None = (1, 4)
    c: float | None = None
    max_iter: int = 2000
    seed: int = 0
    name: str = "auto"
    alpha: float = 0.1
    temperature: float = DEFAULT_TEMPERATURE

    def resolve(self, examples: int, intents: int) -> str:
        """The classifier trained for this much data (``auto`` picks one, see AUTO_LIMIT)."""
        if self.name != "auto":
            return self.name
        return "LogisticRegression" if examples * intents <= AUTO_LIMIT else "LinearSVM"

    def regularisation(self, name: str) -> float:
        return self.c if self.c is not None else DEFAULT_C.get(name, 1.0)

    def key(self) -> str:
        return (
            f"{self.name}|w{self.word_ngrams}c{self.char_ngrams}s{self.seed}C{self.c}"
            f"i{self.max_iter}a{self.alpha}T{self.temperature}"
        )


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


def training_threads() -> int:
    """Threads that train a LinearSVM's intents side by side: the cores, at most 2
    (``NLU_TUI_TRAIN_THREADS`` overrides; the cross-validation workers set 1)."""
    raw = os.environ.get("NLU_TUI_TRAIN_THREADS", "")
    if raw.strip().isdigit() and int(raw) >= 1:
        return int(raw)
    return max(1, min(2, os.cpu_count() or 1))


class IntentClassifier:
    """TF-IDF features and a linear model over them, with the intent names of its columns."""

    def __init__(
        self,
        vectorizers: list[Vectorizer],
        weights: NDArray[np.float32],
        bias: NDArray[np.float64],
        scale: float,
        labels: list[str],
        model: str = "LinearSVM",
    ) -> None:
        self.model = model  # the classifier that was trained (never auto)
        self.vectorizers = vectorizers
        self.weights = weights  # features × intents
        self.bias = bias
        self.scale = scale
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
        import numpy as np
        import scipy.sparse as sp

        wanted = [("word", config.word_ngrams), ("char_wb", config.char_ngrams)]
        fitted = [Vectorizer.fit(a, n, texts) for a, n in wanted if n is not None]
        if not fitted:
            raise EngineError("embedded engine: the configuration leaves no features")
        vectorizers = [vectorizer for vectorizer, _matrix in fitted]
        if len(fitted) == 1:
            features = fitted[0][1]
        else:
            features = sp.hstack([m for _v, m in fitted], format="csr", dtype=np.float64)
        labels = distinct
        index = {label: i for i, label in enumerate(labels)}
        y = np.fromiter((index[i] for i in intents), dtype=np.int64, count=len(intents))
        scale = 1.0
        model = config.resolve(len(y), len(labels))
        if model == "NaiveBayes":
            from sklearn.naive_bayes import MultinomialNB

            nb = MultinomialNB(alpha=config.alpha).fit(features, y)
            weights, bias = nb.feature_log_prob_.T, nb.class_log_prior_
        elif model == "LogisticRegression":
            from sklearn.linear_model import LogisticRegression

            lr = LogisticRegression(
                C=config.regularisation(model), max_iter=config.max_iter, random_state=config.seed
            ).fit(features, y)
            if len(labels) == 2:  # one column for two classes: softmax of (-s/2, s/2) is sigmoid(s)
                half = lr.coef_[0] / 2.0
                weights = np.stack([-half, half], axis=1)
                bias = np.array([-lr.intercept_[0] / 2.0, lr.intercept_[0] / 2.0])
            else:
                weights, bias = lr.coef_.T, lr.intercept_
        else:
            weights, bias = fit_ovr_svm(
                features, y, len(labels), config.regularisation(model), config.seed, config.max_iter
            )
            scale = config.temperature
        return cls(
            vectorizers,
            np.ascontiguousarray(weights, dtype=np.float32),
            np.asarray(bias, dtype=np.float64),
            scale,
            labels,
            model,
        )

    def _transform(self, texts: Sequence[str]) -> Any:
        import numpy as np

        return feature_matrix(self.vectorizers, texts).astype(np.float32)

    def probabilities(self, texts: Sequence[str]) -> NDArray[np.float64]:
        """One row per text, one column per label (in :attr:`labels` order), rows summing to 1."""
        import numpy as np

        scores = np.asarray(self._transform(list(texts)) @ self.weights, dtype=np.float64)
        scores += self.bias
        scores *= self.scale
        scores -= scores.max(axis=1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=1, keepdims=True)
        return scores

    def predict_proba(self, text: str) -> list[tuple[str, float]]:
        """Every intent with its probability, best first."""
        limit_blas_threads()
        probs = self.probabilities([text])[0]
        pairs = [(label, float(p)) for label, p in zip(self.labels, probs, strict=True)]
        pairs.sort(key=lambda pair: (-pair[1], pair[0]))
        return pairs

    def predict_many(
        self, texts: Sequence[str], top: int | None = None
    ) -> list[list[tuple[str, float]]]:
        """Batch form of :meth:`predict_proba` (evaluation and benchmarks): the same pairs in
        the same order, sorted by numpy in one call instead of one Python sort per text;
        ``top`` keeps only the first pairs of each ranking (an evaluation's 15,000 texts need
        10 of CLINC150's 150 each)."""
        if not texts:
            return []
        limit_blas_threads()
        import numpy as np

        matrix = self.probabilities(texts)
        # columns in label order, then a stable sort by descending probability: ties stay in
        # label order, as the key (-probability, label) of predict_proba orders them
        by_label = np.array(sorted(range(len(self.labels)), key=self.labels.__getitem__))
        ranked = np.argsort(-matrix[:, by_label], axis=1, kind="stable")
        if top is not None:
            ranked = ranked[:, :top]
        columns = by_label[ranked]
        probabilities = np.take_along_axis(matrix, columns, axis=1)
        labels = self.labels
        return [
            [(labels[i], p) for i, p in zip(row, probs, strict=True)]
            for row, probs in zip(columns.tolist(), probabilities.tolist(), strict=True)
        ]


def fit_ovr_svm(
    features: Any, y: NDArray[np.int64], classes: int, c: float, seed: int, max_iter: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One squared-hinge linear SVM per class against the rest: ``(weights, bias)``, the
    weights as features × classes. Exactly scikit-learn's ``LinearSVC`` one-vs-rest (same
    solver, same optimum), found faster:

    - **an active set**: each class starts from its own examples and the examples of other
      classes most like its centroid; after a fit, every other example is scored and those
      inside the margin (score > -1) join its set, and it is fitted again. An example outside
      every margin has no weight in the dual, so when none is left the solution is the one
      on all the data. On CLINC150 (150 intents × 100 examples) a class trains on about 2,500
      examples instead of 15,000, and two rounds add what the first missed.
    - **class-parallel**: liblinear releases the GIL, so :func:`training_threads` threads
      train classes side by side.
    """
    import warnings
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    import scipy.sparse as sp
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    n, d = features.shape
    members = [np.flatnonzero(y == k) for k in range(classes)]
    # class centroids (unit length) rank each class's likeliest confusions
    onehot = sp.csr_matrix((np.ones(n), (y, np.arange(n))), shape=(classes, n))
    centroids = sp.csr_matrix(onehot @ features)
    norms = np.sqrt(np.asarray(centroids.multiply(centroids).sum(axis=1)).ravel())
    centroids = sp.csr_matrix(sp.diags(1.0 / np.maximum(norms, 1e-12)) @ centroids)
    similarity = np.asarray((features @ centroids.T).todense())
    working: list[NDArray[np.int64]] = []
    for k in range(classes):
        positives = members[k]
        size = min(n - len(positives), _CANDIDATES * len(positives) + 200)
        if size >= n - len(positives):
            working.append(np.arange(n))
            continue
        ranked = similarity[:, k].copy()
        ranked[positives] = -np.inf
        nearest = np.argpartition(-ranked, size - 1)[:size]
        working.append(np.union1d(positives, nearest))
    del similarity
    weights = np.zeros((d, classes))
    bias = np.zeros(classes)

    def fit(k: int) -> None:
        rows = working[k]
        target = (y[rows] == k).astype(np.int64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svm = LinearSVC(C=c, random_state=seed, max_iter=max_iter).fit(features[rows], target)
        weights[:, k] = svm.coef_[0]
        bias[k] = svm.intercept_[0]

    pending = list(range(classes))
    with ThreadPoolExecutor(max_workers=training_threads()) as pool:
        for _round in range(_MAX_ROUNDS):
            list(pool.map(fit, pending))
            if all(len(working[k]) == n for k in pending):
                break
            scores = features @ weights[:, pending] + bias[pending]
            again = []
            for column, k in enumerate(pending):
                inside = np.flatnonzero((scores[:, column] > -1.0) & (y != k))
                added = np.setdiff1d(inside, working[k], assume_unique=True)
                if len(added):
                    working[k] = np.union1d(working[k], added)
                    again.append(k)
            if not again:
                break
            pending = again
    return weights, bias
