"""How the embedded engine trains: its TF-IDF features are scikit-learn's, its LinearSVM is
scikit-learn's one-vs-rest ``LinearSVC`` (found through an active set), ``auto`` keeps the
logistic regression for small data, and a LinearSVM's confidence still says "no intent"."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import LinearSVC

from nlu_tui.engines.embedded import classifier as clf_module
from nlu_tui.engines.embedded.classifier import (
    AUTO_LIMIT,
    ClassifierConfig,
    IntentClassifier,
    fit_ovr_svm,
)
from nlu_tui.engines.embedded.features import Vectorizer, feature_matrix
from nlu_tui.engines.embedded.model import DEFAULT_THRESHOLD

TEXTS = [
    "What's my balance?",
    "send 20 € to Anna-Lena, please!!",
    "Ünïcode café  naïve\ttab and\nnewline",
    "",
    "   ",
    "a",
    "I",
    "x y z",
    "!!!",
    "e-mail: a_b@c.de costs 3.5 dollars",
    "the the the the",
    "ok",
]
UNSEEN = ["balance please", "zzz", "", "Café NAÏVE", "send it", "qwertyuiop"]


@pytest.mark.parametrize(
    ("analyzer", "ngrams"),
    [
        ("word", (1, 2)),
        ("char_wb", (1, 4)),
        ("word", (1, 1)),
        ("word", (2, 3)),
        ("char_wb", (2, 5)),
    ],
)
def test_features_are_scikit_learns(analyzer: str, ngrams: tuple[int, int]) -> None:
    extra: dict[str, Any] = {"token_pattern": r"(?u)\b\w+\b"} if analyzer == "word" else {}
    reference = TfidfVectorizer(
        analyzer=analyzer, ngram_range=ngrams, sublinear_tf=True, lowercase=True, **extra
    )
    expected = reference.fit_transform(TEXTS)
    fitted, matrix = Vectorizer.fit(analyzer, ngrams, TEXTS)
    assert fitted.terms == list(reference.get_feature_names_out())
    assert np.array_equal(fitted.idf, reference.idf_)
    # scikit-learn's fit_transform leaves each row's columns unsorted: sums differ in the last bit
    assert abs(expected - matrix).max() < 1e-15
    unseen = reference.transform(UNSEEN)
    ours = fitted.transform(UNSEEN)
    assert (unseen != ours).nnz == 0  # transform: the very same numbers
    assert unseen.shape == ours.shape


def test_feature_sets_side_by_side_and_empty_vocabulary() -> None:
    word, _ = Vectorizer.fit("word", (1, 2), TEXTS)
    char, _ = Vectorizer.fit("char_wb", (1, 4), TEXTS)
    both = feature_matrix([word, char], UNSEEN)
    assert both.shape == (len(UNSEEN), len(word.terms) + len(char.terms))
    with pytest.raises(ValueError, match="empty vocabulary"):
        Vectorizer.fit("word", (1, 1), ["!!!", "   "])


def _bot(intents: int, per_intent: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """A made-up bot whose intents share words with their neighbours (so that the SVMs have
    real margins to find), with filler words common to all."""
    rng = random.Random(seed)
    filler = ["please", "i", "want", "to", "my", "the", "can", "you", "now", "a", "help"]
    texts, labels = [], []
    for k in range(intents):
        own = [f"kw{k}a", f"kw{k}b", f"topic{k}"]
        near = [f"kw{(k + 1) % intents}a", f"topic{(k + 2) % intents}"]
        for _ in range(per_intent):
            words = rng.sample(filler, 3) + rng.sample(own, 2)
            if rng.random() < 0.4:
                words.append(rng.choice(near))
            rng.shuffle(words)
            texts.append(" ".join(words))
            labels.append(f"intent_{k:02d}")
    return texts, labels


def test_linear_svm_is_scikit_learns_one_vs_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    texts, labels = _bot(40, 15)
    word, a = Vectorizer.fit("word", (1, 2), texts)
    char, b = Vectorizer.fit("char_wb", (1, 4), texts)
    import scipy.sparse as sp

    features = sp.hstack([a, b], format="csr")
    names = sorted(set(labels))
    y = np.array([names.index(label) for label in labels])
    rows: list[int] = []
    real_fit = LinearSVC.fit

    def counting_fit(self: LinearSVC, x: Any, target: Any, *args: Any, **kwargs: Any) -> Any:
        rows.append(x.shape[0])
        return real_fit(self, x, target, *args, **kwargs)

    monkeypatch.setattr(LinearSVC, "fit", counting_fit)  # a spy: the real fit runs
    weights, bias = fit_ovr_svm(features, y, len(names), 1.0, 0, 2000)
    monkeypatch.undo()
    assert min(rows) < len(texts)  # the active set did start small
    full = LinearSVC(C=1.0, random_state=0, max_iter=2000).fit(features, y)
    # the same optimum, up to the solver's tolerance
    assert np.abs(weights.T - full.coef_).max() < 0.02
    assert np.abs(bias - full.intercept_).max() < 0.02
    probe = feature_matrix([word, char], [*texts[::7], "kw3a now", "topic17 please", "hello"])
    ours = np.asarray(probe @ weights) + bias
    theirs = full.decision_function(probe)
    assert (ours.argmax(axis=1) == theirs.argmax(axis=1)).all()


def test_auto_keeps_logistic_regression_for_small_data_and_svm_beyond() -> None:
    config = ClassifierConfig()
    assert config.name == "auto"
    assert config.resolve(578, 17) == "LogisticRegression"  # the financial demo
    assert config.resolve(15_000, 150) == "LinearSVM"  # CLINC150
    assert config.resolve(AUTO_LIMIT, 1) == "LogisticRegression"
    assert config.resolve(AUTO_LIMIT + 1, 1) == "LinearSVM"
    assert ClassifierConfig(name="NaiveBayes").resolve(10**6, 100) == "NaiveBayes"
    texts, labels = _bot(10, 12)
    assert IntentClassifier.train(texts, labels).model == "LogisticRegression"
    assert IntentClassifier.train(texts, labels, ClassifierConfig(name="LinearSVM")).model == (
        "LinearSVM"
    )


def test_linear_svm_confidence_says_no_intent_for_unknown_text() -> None:
    texts, labels = _bot(40, 15)
    model = IntentClassifier.train(texts, labels, ClassifierConfig(name="LinearSVM"))
    assert model.scale == clf_module.DEFAULT_TEMPERATURE
    known = model.predict_proba("kw7a kw7b please")
    assert known[0][0] == "intent_07" and known[0][1] > 0.9
    assert abs(sum(p for _n, p in known) - 1.0) < 1e-9
    for text in ("what is the weather like on mars", "", "zzz"):
        top = model.predict_proba(text)[0][1]
        assert top < DEFAULT_THRESHOLD, (text, top)
    assert model.predict_many(["kw7a kw7b please", "zzz"]) == [
        known,
        model.predict_proba("zzz"),
    ]
    full = model.predict_many(texts[:20])
    assert model.predict_many(texts[:20], top=3) == [ranking[:3] for ranking in full]


def test_rows_normalised_as_scikit_learn_does_bit_for_bit() -> None:
    """features._normalize_rows replaces ``sklearn.preprocessing.normalize`` (l2, CSR, in
    place) so that parsing with a cached model imports no scikit-learn: the same numbers."""
    import scipy.sparse as sp
    from sklearn.preprocessing import normalize

    from nlu_tui.engines.embedded.features import _normalize_rows

    rng = np.random.default_rng(7)
    for density in (0.0, 0.02, 0.3, 1.0):
        matrix = sp.random(40, 300, density=density, format="csr", random_state=rng)
        matrix.data = np.log(matrix.data * 9 + 1) + 1.0
        for row in range(0, 40, 7):  # rows of zeros stay zeros
            matrix.data[matrix.indptr[row] : matrix.indptr[row + 1]] = 0.0
        matrix.eliminate_zeros()
        expected = normalize(matrix.copy(), norm="l2", copy=False)
        ours = _normalize_rows(matrix)
        assert np.array_equal(ours.indptr, expected.indptr)
        assert np.array_equal(ours.data, expected.data)  # bit for bit
