"""No ``except ImportError`` around the project's own imports.

Such a guard turned a real import error (a typo, a circular import, a missing dependency of
the module) into a silent "Not available yet." pane or an empty problem list. Optional
third-party packages may still be guarded; nlu-tui's own modules are always there.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nlu_tui

PACKAGE = Path(nlu_tui.__file__).resolve().parent
IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True  # a bare except swallows ImportError too
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in IMPORT_ERRORS for n in names)


def _imports_project_code(node: ast.AST) -> bool:
    """An import of nlu_tui (absolute or relative), or a dynamic import_module() call."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.ImportFrom):
            if sub.level > 0 or (sub.module or "").split(".")[0] == "nlu_tui":
                return True
        elif isinstance(sub, ast.Import):
            if any(alias.name.split(".")[0] == "nlu_tui" for alias in sub.names):
                return True
        elif isinstance(sub, ast.Call):
            func = sub.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name == "import_module":
                return True
    return False


def guarded_project_imports(source: str, filename: str) -> list[str]:
    """``file:line`` of every try-block that imports project code and catches ImportError."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Try) or not any(map(_catches_import_error, node.handlers)):
            continue
        if any(_imports_project_code(stmt) for stmt in node.body):
            found.append(f"{filename}:{node.lineno}")
    return found


def test_no_import_error_guard_around_project_modules() -> None:
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = str(path.relative_to(PACKAGE.parent))
        found += guarded_project_imports(path.read_text(encoding="utf-8"), rel)
    assert not found, f"except ImportError hides real import errors: {found}"


def test_the_check_sees_each_kind_of_guard() -> None:
    guarded = [
        "try:\n    from nlu_tui.validation import validate_suite\nexcept ImportError:\n    pass\n",
        "try:\n    import nlu_tui.store\nexcept (ImportError, AttributeError):\n    pass\n",
        "try:\n    from . import sibling\nexcept ModuleNotFoundError:\n    pass\n",
        "try:\n    m = importlib.import_module(name)\nexcept ImportError:\n    m = None\n",
    ]
    for source in guarded:
        assert guarded_project_imports(source, "x.py") == ["x.py:1"], source
    allowed = "try:\n    import yaml\nexcept ImportError:\n    yaml = None\n"
    assert guarded_project_imports(allowed, "x.py") == []
