"""TF-IDF features of scikit-learn's ``TfidfVectorizer``, computed faster, kept as plain data.

The features are those of ``TfidfVectorizer(analyzer="word", token_pattern=r"(?u)\\b\\w+\\b")``
and ``TfidfVectorizer(analyzer="char_wb")``, both lower-cased with ``sublinear_tf=True``, smooth
idf and l2 rows: the same terms in the same (sorted) columns, the same idf and the same values
(``tests/test_embedded_training.py`` compares them with scikit-learn's). What changes is the
speed: the n-grams are cut with list comprehensions, looked up with one ``map`` over all of them
and counted by NumPy/SciPy, instead of scikit-learn's Python loop over every n-gram. A fitted
feature set is plain data (terms and idf), which the model cache stores without pickle.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

ANALYZERS = ("word", "char_wb")
_TOKEN = re.compile(r"(?u)\b\w+\b")


def word_ngrams(text: str, low: int, high: int) -> list[str]:
    """Word n-grams joined by one space, as scikit-learn's ``_word_ngrams``."""
    tokens: list[str] = _TOKEN.findall(text.lower())
    if high == 1:
        return tokens
    grams = list(tokens) if low == 1 else []
    count = len(tokens)
    for n in range(max(low, 2), min(high, count) + 1):
        grams.extend([" ".join(tokens[i : i + n]) for i in range(count - n + 1)])
    return grams


def char_wb_ngrams(text: str, low: int, high: int) -> list[str]:
    """Character n-grams inside words padded with a space, as scikit-learn's
    ``_char_wb_ngrams`` (a word shorter than n counts once, whole, and ends its n-grams)."""
    grams: list[str] = []
    for word in text.lower().split():
        padded = f" {word} "
        length = len(padded)
        grams.extend(
            [
                padded[i : i + n]
                for n in range(low, min(high, length - 1) + 1)
                for i in range(length - n + 1)
            ]
        )
        if high >= length:
            grams.append(padded)
    return grams


_CUTTERS: dict[str, Callable[[str, int, int], list[str]]] = {
    "word": word_ngrams,
    "char_wb": char_wb_ngrams,
}


@dataclass
class Vectorizer:
    """One fitted TF-IDF feature set: its analyzer, n-gram range, terms (in column order) and
    idf."""

    analyzer: str
    ngrams: tuple[int, int]
    terms: list[str]
    idf: NDArray[np.float64]
    _index: dict[str, int] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def fit(
        cls, analyzer: str, ngrams: tuple[int, int], texts: Sequence[str]
    ) -> tuple[Vectorizer, Any]:
        """The feature set learnt from ``texts`` and their TF-IDF matrix (CSR, float64)."""
        import numpy as np

        grams, rows = _cut_all(_CUTTERS[analyzer], ngrams, texts)
        vocabulary: dict[str, int] = {}
        numbers = itertools.count()  # a term keeps the first number it was given; gaps are fine
        first = np.fromiter(
            map(vocabulary.setdefault, grams, numbers), dtype=np.int64, count=len(grams)
        )
        if not vocabulary:
            raise ValueError("empty vocabulary; perhaps the documents only contain stop words")
        terms = sorted(vocabulary)
        remap = np.zeros(next(numbers), dtype=np.int64)
        remap[np.fromiter(map(vocabulary.__getitem__, terms), np.int64, len(terms))] = np.arange(
            len(terms)
        )
        matrix = _counts(rows, remap[first], len(texts), len(terms))
        frequency = np.bincount(matrix.indices, minlength=len(terms)).astype(np.float64)
        frequency += 1.0
        idf = np.full_like(frequency, fill_value=len(texts) + 1, dtype=np.float64)
        idf /= frequency
        np.log(idf, out=idf)
        idf += 1.0
        fitted = cls(analyzer, (ngrams[0], ngrams[1]), terms, idf)
        fitted._index = {term: i for i, term in enumerate(terms)}
        return fitted, fitted._weigh(matrix)

    def transform(self, texts: Sequence[str]) -> Any:
        """The TF-IDF matrix of ``texts`` (CSR, float64); unknown n-grams are left out."""
        import numpy as np

        if self._index is None:
            self._index = {term: i for i, term in enumerate(self.terms)}
        grams, rows = _cut_all(_CUTTERS[self.analyzer], self.ngrams, texts)
        columns = np.fromiter(
            map(self._index.get, grams, itertools.repeat(-1)), dtype=np.int64, count=len(grams)
        )
        known = columns >= 0
        return self._weigh(_counts(rows[known], columns[known], len(texts), len(self.terms)))

    def _weigh(self, matrix: Any) -> Any:
        """Counts to l2-normalised sublinear TF-IDF, in place (TfidfTransformer's steps)."""
        import numpy as np

        np.log(matrix.data, out=matrix.data)
        matrix.data += 1.0
        matrix.data *= self.idf[matrix.indices]
        return _normalize_rows(matrix)


def _normalize_rows(matrix: Any) -> Any:
    """Each row of a CSR matrix divided by its l2 norm, in place (rows of zeros left as they
    are): ``sklearn.preprocessing.normalize(matrix, norm="l2", copy=False)``, bit for bit (its
    ``inplace_csr_row_normalize_l2`` sums each row's squares in order, as ``bincount`` does,
    and divides by the square root), without importing scikit-learn (and scipy.stats, half a
    second) to parse with a model read from the cache."""
    import numpy as np

    data = matrix.data
    lengths = np.diff(matrix.indptr)
    rows = np.repeat(np.arange(matrix.shape[0], dtype=np.int64), lengths)
    norms = np.sqrt(np.bincount(rows, weights=data * data, minlength=matrix.shape[0]))
    norms[norms == 0.0] = 1.0
    data /= np.repeat(norms, lengths)
    return matrix


def _cut_all(
    cut: Callable[[str, int, int], list[str]], ngrams: tuple[int, int], texts: Sequence[str]
) -> tuple[list[str], Any]:
    """Every text's n-grams in one list, and the row (text number) of each."""
    import numpy as np

    low, high = ngrams
    grams: list[str] = []
    sizes: list[int] = []
    for text in texts:
        cut_text = cut(text, low, high)
        grams.extend(cut_text)
        sizes.append(len(cut_text))
    return grams, np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)


def _counts(rows: Any, columns: Any, height: int, width: int) -> Any:
    """Occurrences counted into a CSR matrix with sorted columns (duplicates summed)."""
    import numpy as np
    import scipy.sparse as sp

    matrix = sp.csr_matrix(
        (np.ones(len(rows), dtype=np.float64), (rows, columns)), shape=(height, width)
    )
    matrix.sum_duplicates()
    return matrix


def feature_matrix(vectorizers: Sequence[Vectorizer], texts: Sequence[str]) -> Any:
    """The feature sets side by side (CSR, float64), as scikit-learn's ``FeatureUnion``."""
    import numpy as np
    import scipy.sparse as sp

    blocks = [vectorizer.transform(texts) for vectorizer in vectorizers]
    if len(blocks) == 1:
        return blocks[0]
    return sp.hstack(blocks, format="csr", dtype=np.float64)
