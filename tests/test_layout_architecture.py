"""The package layout shows the architecture: screens in ``ui/screens/``, widgets in
``ui/widgets/``, and Textual-free code outside ``ui/`` (issue 10, item 25)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import nlu_tui.ui
import nlu_tui.ui.screens

UI = Path(nlu_tui.ui.__file__).parent


def _imports_textual(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name == "textual" or a.name.startswith("textual") for a in node.names):
                return True
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("textual"):
            return True
    return False


def test_every_ui_module_uses_textual() -> None:
    """A module under ui/ that needs no Textual belongs to the core (reports/, scoring/ ...)."""
    free = [
        str(path.relative_to(UI))
        for path in sorted(UI.rglob("*.py"))
        if path.name != "__init__.py" and not _imports_textual(path)
    ]
    assert free == [], f"Textual-free modules under nlu_tui/ui/: {free}"


def test_screens_hold_only_screens() -> None:
    """Public classes in ui/screens/ are screens; widgets live in ui/widgets/."""
    from textual.screen import Screen

    misplaced = []
    for info in pkgutil.iter_modules(nlu_tui.ui.screens.__path__, "nlu_tui.ui.screens."):
        module = importlib.import_module(info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or name.startswith("_"):
                continue
            if not issubclass(cls, Screen):
                misplaced.append(f"{info.name}.{name}")
    assert misplaced == [], f"not screens, in ui/screens/: {misplaced}"
