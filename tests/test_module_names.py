"""Product modules are never named like tests: tools that glob ``test_*.py`` would take them for tests."""

from __future__ import annotations

from pathlib import Path

import nlu_tui


def test_no_product_module_is_named_like_a_test() -> None:
    root = Path(nlu_tui.__file__).parent
    named_like_tests = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.name.startswith("test_") or p.name.endswith("_test.py")
    )
    assert named_like_tests == []
