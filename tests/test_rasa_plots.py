"""Rasa's plots (issue 11): the numbers behind ``intent_confusion_matrix.png``,
``intent_histogram.png`` and the per-extractor images, and the images themselves.

Oracles: scikit-learn's ``confusion_matrix``/``unique_labels`` (what Rasa's
``_calculate_report`` plots), numpy's ``histogram``, values worked out by hand below, and Rasa's
own ``_extract_paired_histogram_specification`` run in the Rasa peer venv (skipped without it).
"""

from __future__ import annotations

import json
import os
import random
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

from nlu_tui.reports.rasa_plots import write_plots
from nlu_tui.scoring.rasa_charts import confusion_chart, paired_histogram
from nlu_tui.scoring.rasa_entities import EntityExample, evaluate_entities, token_confidence

PEER_PYTHON = (
    Path(os.environ.get("NLU_TUI_PEERS_DIR", Path.home() / ".cache" / "nlu-tui-peers"))
    / "rasa310"
    / "bin"
    / "python"
)


def test_confusion_chart_is_sklearns_matrix_over_the_sorted_union_of_labels() -> None:
    import sklearn.metrics
    import sklearn.utils.multiclass

    rng = random.Random(3)
    targets = [rng.choice("abcd") for _ in range(200)]
    predicted = [t if rng.random() < 0.6 else rng.choice("abcdxy") for t in targets]
    pairs: dict[tuple[str, str], int] = {}
    for pair in zip(targets, predicted, strict=True):
        pairs[pair] = pairs.get(pair, 0) + 1
    chart = confusion_chart(pairs, "Intent Confusion matrix")
    assert chart.labels == list(sklearn.utils.multiclass.unique_labels(targets, predicted))
    assert chart.matrix == sklearn.metrics.confusion_matrix(targets, predicted).tolist()
    assert chart.peak == max(max(row) for row in chart.matrix)


def test_paired_histogram_by_hand() -> None:
    """Confidences 0.5 (right), 1.0 (right), 0.75 (wrong), 5 bins: width 0.1, edges 0.5 … 1.1;
    0.75 lands in [0.7, 0.8), 1.0 in [1.0, 1.1]; y padding 0.5·0.1 + 0.1·0.1 = 0.06."""
    chart = paired_histogram([0.5, 1.0], [0.75], "t", num_bins=5)
    assert chart is not None
    assert chart.bins == pytest.approx([0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1])
    assert chart.tallies == ([1, 0, 0, 0, 0, 1], [0, 0, 1, 0, 0, 0])
    assert chart.x_ranges == pytest.approx((1.05, 1.05))
    assert chart.y_range == pytest.approx((0.5 - 0.06, 1.0 + 0.06))
    assert chart.yticks == [0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1]


def test_paired_histogram_quirks_follow_rasa() -> None:
    # A side with no data: Rasa's first-non-zero search fails and falls back to bin 0.
    only_right = paired_histogram([0.9, 0.95], [], "t", num_bins=5)
    assert only_right is not None and only_right.tallies[1] == [0] * 6
    assert only_right.y_range[0] == pytest.approx(0.9 - 0.6 * 0.01)
    # Nothing at all: no chart (Rasa warns and writes no file); None confidences are left out.
    assert paired_histogram([], [], "t") is None
    assert paired_histogram([None], [None], "t") is None


def test_paired_histogram_counts_as_numpy() -> None:
    import numpy as np

    rng = random.Random(7)
    right = [round(rng.random(), 2) for _ in range(300)]
    wrong = [round(rng.random() * 0.5, 3) for _ in range(80)]
    chart = paired_histogram(right, wrong, "t")
    assert chart is not None and len(chart.bins) == 27
    for side, values in enumerate((right, wrong)):
        assert chart.tallies[side] == np.histogram(values, bins=chart.bins)[0].tolist()


RASA_SPEC = """
import json, sys
from rasa.utils.plotting import _extract_paired_histogram_specification as spec
out = []
for pair in json.load(sys.stdin):
    bins, tallies, x_ranges, y_range = spec(pair, 25, False, 0.05, 0.10)
    out.append([list(map(float, bins)), [list(map(int, t)) for t in tallies],
                list(map(float, x_ranges)), list(map(float, y_range))])
print(json.dumps(out))
"""


@pytest.mark.rasa
def test_paired_histogram_equals_rasas_own_function() -> None:
    if not PEER_PYTHON.exists():
        pytest.skip(f"no Rasa peer at {PEER_PYTHON}: run tests/peers/setup_rasa.sh")
    rng = random.Random(11)
    cases: list[list[list[float]]] = [
        [[rng.random() for _ in range(50)], [rng.random() * 0.7 for _ in range(20)]],
        [[0.2, 0.4, 0.4, 0.9], [0.4]],
        [[0.31, 0.99], [0.05, 0.31, 0.6]],
        [[1.0, 1.0, 0.0], [0.5]],
        [[0.3, 0.8], [0.1, 0.95]],
    ]
    done = subprocess.run(
        [str(PEER_PYTHON), "-c", RASA_SPEC],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    for (right, wrong), (bins, tallies, x_ranges, y_range) in zip(cases, theirs, strict=True):
        chart = paired_histogram(right, wrong, "t")
        assert chart is not None
        assert chart.bins == bins
        assert [list(t) for t in chart.tallies] == tallies
        assert list(chart.x_ranges) == x_ranges
        assert list(chart.y_range) == y_range


def test_entity_token_confidences_as_rasa_takes_them() -> None:
    """``_get_entity_confidences``: the lowest of type, role and group confidence (missing ones
    count as 1.0); 0.0 for an extractor without confidences; ``plot_entity_confidences`` puts a
    token among the right ones when its entity label is right, among the wrong ones when the
    extractor gave it another entity."""
    crf = {"entity": "city", "start": 0, "end": 6, "extractor": "CRFEntityExtractor",
           "confidence_entity": 0.8, "role": "from", "confidence_role": 0.6}  # fmt: skip
    assert token_confidence((0, 6), [crf]) == 0.6
    assert token_confidence((7, 9), [crf]) == 0.0
    regex = {"entity": "city", "start": 0, "end": 6, "extractor": "RegexEntityExtractor"}
    assert token_confidence((0, 6), [regex]) == 0.0
    text = "Berlin to Paris now"
    tokens = [(0, 6), (7, 9), (10, 15), (16, 19)]
    targets = [
        {"entity": "city", "start": 0, "end": 6, "value": "Berlin", "role": "from"},
        {"entity": "city", "start": 10, "end": 15, "value": "Paris", "role": "to"},
    ]
    wrong = {"entity": "city", "start": 10, "end": 15, "extractor": "CRFEntityExtractor",
             "confidence_entity": 0.7, "role": "from", "confidence_role": 0.4}  # fmt: skip
    extra = {"entity": "time", "start": 16, "end": 19, "extractor": "CRFEntityExtractor",
             "confidence_entity": 0.3}  # fmt: skip
    (evaluation,) = evaluate_entities([EntityExample(text, targets, [crf, wrong, extra], tokens)])
    assert evaluation.correct_confidences == [0.6]  # Berlin: city.from right
    assert evaluation.wrong_confidences == [0.4, 0.3]  # Paris: from for to; now: time for O
    (regex_eval,) = evaluate_entities([EntityExample(text, targets, [regex], tokens)])
    assert not regex_eval.has_confidences and regex_eval.correct_confidences == []


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_images_are_drawn_at_rasas_sizes(tmp_path: Path) -> None:
    """Rasa draws the matrix on 20 × 20 inches and the histogram on 10 × 10, at 100 dpi, cut to
    the drawing (``bbox_inches="tight"``): well over 1,000 and about 1,000 pixels."""
    pairs = {("a", "a"): 5, ("a", "b"): 1, ("b", "b"): 3}
    histogram = paired_histogram([0.9, 0.8, 0.95], [0.4], "Intent Prediction Confidence")
    assert histogram is not None
    plots: list[tuple[str, Any]] = [
        ("intent_confusion_matrix.png", confusion_chart(pairs, "Intent Confusion matrix")),
        ("intent_histogram.png", histogram),
    ]
    written = write_plots(tmp_path, plots)
    assert [p.name for p in written] == ["intent_confusion_matrix.png", "intent_histogram.png"]
    matrix_w, matrix_h = _png_size(tmp_path / "intent_confusion_matrix.png")
    assert 1400 < matrix_w <= 2000 and 1400 < matrix_h <= 2000
    hist_w, hist_h = _png_size(tmp_path / "intent_histogram.png")
    assert 800 < hist_w <= 1000 and 800 < hist_h <= 1000
    from PIL import Image

    with Image.open(tmp_path / "intent_histogram.png") as image:
        colours = {c for _n, c in image.convert("RGB").getcolors(1 << 20) or []}
    assert (0x00, 0x92, 0x92) in colours and (0x92, 0x00, 0x00) in colours  # Rasa's two bars
