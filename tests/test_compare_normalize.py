"""Normalisation as .NET does it, where Python's own regex classes would differ."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nlu_tui.compare.normalize import (
    contains_subtree,
    equals_normalized,
    equals_normalized_json,
    normalize,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello,   World!", "Hello World"),
        ("  tabs\tand\nnewlines  ", "tabs and newlines"),
        ("hip-hop", "hiphop"),  # punctuation is deleted, not replaced by a space
        ("snake_case", "snake_case"),  # Pc is a word character
        ("a\u203fb", "a\u203fb"),  # undertie: Pc, not in Python's \w
        ("cafe\u0301", "cafe\u0301"),  # combining acute: Mn, not in Python's \w
        ("x²", "x"),  # superscript two: No, in Python's \w but not .NET's
        ("½ cup", "cup"),
        ("a\x1cb", "ab"),  # U+001C: whitespace to Python, not to .NET
        ("a\u00a0\u2003b", "a b"),  # Zs separators collapse
        ("a\x85b", "a b"),  # NEL is \s in .NET
        ("\U0001d400bc", "bc"),  # outside the BMP: UTF-16 surrogates are not \w
        ("٣ apples", "٣ apples"),  # Arabic-Indic digit: Nd
        ("", ""),
    ],
)
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


def test_equals_normalized_ignores_case_ordinally() -> None:
    assert equals_normalized("Play ROCK!", "play rock")
    assert equals_normalized("Ärger", "äRGER")
    assert not equals_normalized("straße", "STRASSE")  # no full case folding
    assert equals_normalized(None, None)
    assert not equals_normalized("x", None)


def test_equals_normalized_json_is_string_only() -> None:
    assert equals_normalized_json("Foo!", "foo")
    assert not equals_normalized_json(2, 2)
    assert not equals_normalized_json(None, None)


def test_punctuation_between_spaces_leaves_two_spaces() -> None:
    """Spaces collapse before punctuation is deleted, as in .NET: not idempotent, on purpose."""
    assert normalize("a , b") == "a  b"
    assert not equals_normalized("a , b", "a b")


@given(st.text())
def test_normalize_keeps_only_word_chars_and_spaces(text: str) -> None:
    from nlu_tui.compare.normalize import is_dotnet_word_char

    once = normalize(text)
    assert once == once.strip(" ")
    assert all(ch == " " or is_dotnet_word_char(ch) for ch in once)


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=3),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=2), c, max_size=3),
        max_leaves=8,
    )
)
def test_every_json_value_contains_itself(value: object) -> None:
    assert contains_subtree(value, value)
