"""What of a case a flat export format cannot hold: the alternative intents beyond the first and
the case-level fields (traits, parent intents, entity order, tags, raw checks). Shared by the
writers that name these losses in their warnings (Lex CSV, Dialogflow CX, LUIS batch)."""

from __future__ import annotations

from collections.abc import Collection

from nlu_tui.model import TestCase


def case_fields_lost(case: TestCase, *, held: Collection[str] = ()) -> list[str]:
    """The labels of what ``case`` has and a format holding only its first intent, its text and
    its entities (and the labels in ``held``, such as ``"tags"``) cannot hold, in a fixed order."""
    lost = []
    if len(case.intents) > 1:
        lost.append(f"{len(case.intents) - 1} alternative intent(s)")
    for label, value in (
        ("traits", case.traits),
        ("parent intents", case.parent_intents),
        ("entity order", case.entity_order),
        ("tags", case.tags),
        ("raw checks", case.raw_checks),
    ):
        if value and label not in held:
            lost.append(label)
    return lost
