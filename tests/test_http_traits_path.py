"""The generic HTTP engine's ``traits`` path on a list of strings.

``traits: traits`` on ``{"traits": ["Issue", "Urgent"]}`` silently found no traits (only
``traits[*]`` did), so every case expecting traits scored as if the engine saw none. A list the
path reaches gives its strings; a list of objects is refused with the path that reads it.
"""

from __future__ import annotations

from typing import Any

import pytest
from vendor_peer import VendorPeer

from nlu_tui.engines.base import ParseContext, create_engine
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY, BadResponseError

ANSWER: dict[str, Any] = {
    "intent": {"name": "complain", "confidence": 0.9},
    "traits": ["Issue", "Urgent", "Issue", " "],
    "tagged": [{"kind": "x", "label": "Issue"}],
    "one": "Urgent",
}


async def _traits(path: str) -> list[str]:
    with VendorPeer(lambda _seen: (200, {}, ANSWER)) as peer:
        engine = create_engine(
            "http", {"url": peer.url + "/parse", "traits": path, SECRET_VALUES_KEY: []}
        )
        try:
            prediction = await engine.parse("my card is broken", ParseContext())
        finally:
            await engine.close()
    return prediction.traits


@pytest.mark.parametrize("path", ["traits", "traits[*]"])
async def test_a_list_of_strings_is_read_with_or_without_the_star(path: str) -> None:
    assert await _traits(path) == ["Issue", "Urgent"]


async def test_a_single_string_and_a_member_of_objects_still_read() -> None:
    assert await _traits("one") == ["Urgent"]
    assert await _traits("tagged[*].label") == ["Issue"]


@pytest.mark.parametrize(
    ("path", "fix"), [("tagged", "tagged[*].kind"), ("tagged[*]", "tagged[*].kind")]
)
async def test_objects_are_refused_with_the_path_that_reads_them(path: str, fix: str) -> None:
    with pytest.raises(BadResponseError) as refused:
        await _traits(path)
    assert f"name the member that holds each name, e.g. traits: {fix}" in str(refused.value)
