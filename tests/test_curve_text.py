"""The comparison's F1 curve drawn with characters (nlu_tui/views/curve_text.py): points where
their mean puts them, ±1 std as a bar, the x axis in training examples, failures named."""

from __future__ import annotations

from nlu_tui.views.curve_text import MARKERS, f1_curve_text


def _lines(
    results: dict[str, list[list[float | None]]], examples: list[int], **kw: int
) -> list[str]:
    return f1_curve_text(results, examples, **kw).plain.splitlines()


def _plot(lines: list[str]) -> list[str]:
    """The plot rows (between the title and the x axis), without the y labels."""
    end = next(i for i, line in enumerate(lines) if "└" in line)
    return [line[6:] for line in lines[1:end]]


def test_points_sit_at_their_mean_and_examples() -> None:
    lines = _lines({"a": [[1.0, 0.6]]}, [100, 50], width=60, height=12)
    plot = _plot(lines)
    assert len(plot) == 12 - 3 - 1  # title, axis, ticks and one legend row
    top, bottom = plot[0], plot[-1]
    # F1 1.0 at 100 examples: top row, right end; 0.6 at 50 examples: bottom row, left end
    assert top.rstrip().endswith(MARKERS[0]) and MARKERS[0] not in top.rstrip()[:-1]
    assert bottom.lstrip().startswith(MARKERS[0])
    assert lines[1].startswith("1.00 ┤") and lines[len(plot)].startswith("0.60 ┤")
    ticks = lines[len(plot) + 2]
    assert ticks.split() == ["50", "100"]
    assert "·" in "".join(plot[1:-1])  # the line between the points


def test_std_is_a_bar_around_the_mean() -> None:
    lines = _lines({"a": [[0.8], [0.6]], "b": [[0.2], [0.2]]}, [10], width=40, height=24)
    plot = _plot(lines)
    where = next(row.index(MARKERS[0]) for row in plot if MARKERS[0] in row)
    column = "".join(row[where] for row in plot if len(row) > where).strip()
    # a: mean 0.7, std 0.1: ┬ at 0.8, ● at 0.7, ┴ at 0.6, │ between
    assert column.startswith("┬") and column.endswith("┴")
    assert column.index(MARKERS[0]) == len(column) // 2 and set(column[1:-1]) <= {"│", "●"}
    # b: no spread, no bar, drawn one column to the right (side by side with a's)
    beside = "".join(row[where + 1] for row in plot if len(row) > where + 1).strip()
    assert beside == MARKERS[1]


def test_failed_configuration_is_named_and_untrusted_names_inert() -> None:
    lines = _lines({"ok": [[0.9, 0.8]], "bad\x1b[31m": [[None, None]]}, [20, 10])
    text = "\n".join(lines)
    assert "(failed: no figures)" in text
    assert "\x1b" not in text
    nothing = _lines({"bad": [[None]]}, [10])
    assert "no F1 figures" in nothing[1]
