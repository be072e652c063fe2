"""Messages that widgets post upward (a widget never reaches into a sibling)."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message

from nlu_tui.model import Suite


class SuiteHighlighted(Message):
    """The user chose a suite in the suites panel; the main screen loads it in a worker."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path


class SuiteLoaded(Message):
    """A suite finished loading (``app.suite`` is already set when this arrives)."""

    def __init__(self, suite: Suite) -> None:
        super().__init__()
        self.suite = suite


class SuiteChanged(Message):
    """The open suite was edited and saved; panels showing counts or cases refresh."""

    def __init__(self, suite: Suite) -> None:
        super().__init__()
        self.suite = suite


class EditCaseRequested(Message):
    """Open the case editor on a case of the current suite (posted by results views too)."""

    def __init__(self, case_id: str | None) -> None:
        super().__init__()
        self.case_id = case_id


class WorkspaceChanged(Message):
    """Suites were created, renamed, imported or deleted; the suites panel reloads."""

    def __init__(self, select: Path | None = None) -> None:
        super().__init__()
        self.select = select
