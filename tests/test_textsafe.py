"""The one sanitizer: escape sequences and control characters from files and engines are inert."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from nlu_tui.textsafe import inert, inert_markup


def test_osc52_clipboard_write_is_inert() -> None:
    hostile = "hi\x1b]52;c;aGVsbG8=\x07 there"
    assert inert(hostile) == "hi␛]52;c;aGVsbG8=␇ there"


def test_screen_clear_c1_csi_and_bidi_are_visible() -> None:
    assert inert("\x1b[2J") == "␛[2J"
    assert inert("a\x9b2Jb") == "a\\x9b2Jb"
    assert inert("x\u202ey") == "x\\u202ey"
    assert inert("\x7f") == "␡"


def test_newlines_kept_unless_one_line() -> None:
    assert inert("a\nb\tc") == "a\nb\tc"
    assert inert("a\nb\r", newlines=False) == "a␊b␍"


def test_lone_surrogate_is_printable() -> None:
    assert inert("x\udcffy") == "x\\udcffy"


def test_markup_is_escaped_after_controls() -> None:
    assert inert_markup("[bold]\x1b[31m") == "\\[bold]␛[31m"


@given(st.text())
def test_output_never_carries_a_control_character(text: str) -> None:
    out = inert(text, newlines=False)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in out)
    out.encode("utf-8")  # always encodable for the terminal


def test_inert_json_keeps_the_data_and_escapes_c1_and_bidi() -> None:
    import json

    from nlu_tui.textsafe import inert_json

    data = {"k": "a\x9b31m\u202eb\x7fé", "n": 1}
    text = inert_json(json.dumps(data, ensure_ascii=False))
    assert json.loads(text) == data
    assert not any(0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in text)
    assert "é" in text  # other characters stay as they are
