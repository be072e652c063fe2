"""Rasa's plots drawn in the terminal (issue 11: "the same charts in the terminal"): the rows
and cells come from the same numbers as the PNG files."""

from __future__ import annotations

import re

from nlu_tui.scoring.rasa_charts import confusion_chart, paired_histogram
from nlu_tui.views.rasa_charts_text import confusion_text, paired_histogram_text


def test_confusion_matrix_as_a_grid() -> None:
    chart = confusion_chart({("greet", "greet"): 12, ("pay", "greet"): 3, ("pay", "pay"): 7}, "M")
    lines = confusion_text(chart, 80).plain.splitlines()
    assert lines[0] == "M (rows: true label, columns: predicted)"
    assert lines[1].split() == ["1", "2"]
    assert lines[2].split() == ["1", "greet", "12", "·"]
    assert lines[3].split() == ["2", "pay", "3", "7"]


def test_a_matrix_too_wide_lists_its_largest_confusions() -> None:
    pairs = {(f"intent_{i:02d}", f"intent_{i:02d}"): 5 for i in range(40)}
    pairs[("intent_03", "intent_07")] = 4
    pairs[("intent_09", "intent_01")] = 2
    text = confusion_text(confusion_chart(pairs, "M"), 80).plain
    assert "40 labels, too many for 80 columns: 200 of 206 on the diagonal" in text
    assert text.index("4 intent_03 → intent_07") < text.index("2 intent_09 → intent_01")


def test_histogram_rows_are_rasas_bins_from_the_top() -> None:
    chart = paired_histogram([0.5, 1.0], [0.75], "Intent Prediction Confidence Distribution", 5)
    assert chart is not None
    lines = paired_histogram_text(chart, 60).plain.splitlines()
    assert lines[0] == "Intent Prediction Confidence Distribution"
    assert lines[1].split() == ["Correct", "Wrong"]
    labels = [re.findall(r" (\d\.\d\d) ", line)[0] for line in lines[2:]]
    assert labels == ["1.00", "0.90", "0.80", "0.70", "0.60", "0.50"]  # a bar per lower edge
    rows = dict(zip(labels, lines[2:], strict=True))
    assert rows["1.00"].split()[0] == "1" and rows["1.00"].split()[-1] == "0"
    assert rows["0.70"].split()[0] == "0" and rows["0.70"].split()[-1] == "1"


def test_the_empty_label_is_named_as_the_intent_reports_name_it() -> None:
    """A prediction of no intent is the label "" in the matrix file; the grid and the list of
    largest confusions call it "(no intent)", as the per-intent report beside them does."""
    chart = confusion_chart({("greet", ""): 2, ("greet", "greet"): 5}, "M")
    lines = confusion_text(chart, 80).plain.splitlines()
    assert lines[2].split() == ["1", "(no", "intent)", "·", "·"]
    assert lines[3].split() == ["2", "greet", "2", "5"]
    pairs = {(f"intent_{i:02d}", f"intent_{i:02d}"): 5 for i in range(40)}
    pairs[("intent_03", "")] = 4
    assert "4 intent_03 → (no intent)" in confusion_text(confusion_chart(pairs, "M"), 80).plain
