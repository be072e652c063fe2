"""Which definitions a run's numbers follow, stated in every export (issue 11, part 3).

Kore.ai, Rasa and NLU.DevOps give the same names (F1, precision, entity) to different
computations (metric-semantics.md §0), so each export says which one produced its numbers and
the settings that shaped them: the negative intent names, how an engine's fallback counts, how
entities are matched. Labels for screens come from :data:`LABELS`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nlu_tui.scoring.case import DEFAULT_OPTIONS

if TYPE_CHECKING:
    from nlu_tui.compare.decisions import CompareSettings
    from nlu_tui.reports.common import RunMeta
    from nlu_tui.reports.rasa_options import RasaOptions
    from nlu_tui.scoring.case import ScoringOptions

KORE = "Kore.ai Batch Testing"
RASA = "Rasa `rasa test nlu` (3.6)"
NLUDEVOPS = "NLU.DevOps `compare`"

LABELS = {KORE: "Kore.ai", RASA: "Rasa", NLUDEVOPS: "NLU.DevOps"}
"""Short names for the end of a line: ``F1 0.9348 [Kore.ai]``."""


def label(definition: str) -> str:
    return f"[{LABELS[definition]}]"


def settings_pairs(spec: dict[str, Any]) -> list[tuple[str, str]]:
    """A spec's settings as (name, text) for one-line formats (the CSV header, JUnit
    properties): lists joined by ``|``, booleans ``true``/``false``."""
    out = []
    for key, value in spec["settings"].items():
        if isinstance(value, list | tuple):
            text = "|".join(str(v) for v in value)
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = "" if value is None else str(value)
        out.append((key, text))
    return out


def kore_spec(meta: RunMeta, options: ScoringOptions) -> dict[str, Any]:
    """The definitions of the summary, the per-case results and the per-intent report."""
    negative = list(options.negative_intents)
    return {
        "definition": KORE,
        "rules": (
            "one result type per case: the expected intent (one of up to 3) -> TP, another "
            "intent -> FP, no intent -> FN, none expected and none given -> TN, an engine "
            "error -> ERROR (left out); precision TP/(TP+FP), recall TP/(TP+FN), F1 their "
            "harmonic mean; entity success = expected entities whose value matched"
        ),
        "intent_report": (
            "scikit-learn classification_report(zero_division=0) over the same labels "
            "(target: the matched intent when acceptable, else the first expected one)"
        ),
        "settings": {
            "negative_intents": negative,
            "fallback": (
                "Rasa's nlu_fallback, like a negative intent name, is no intent: FN when an "
                "intent was expected (the Rasa reports undo it instead)"
            ),
            "entity_match": (
                "value, after Kore.ai's flattening: equal ignoring case and surrounding "
                "spaces, else a full regular-expression match; a||b multi-item, c1:v|c2:v "
                "composite; matched by name (and role/group when given)"
            ),
            "entity_synonym_groups": meta.entity_synonym_groups,
            "small_talk_intents": sorted(options.small_talk_intents),
            "ignore_intent_case": options.ignore_intent_case,
        },
    }


def rasa_spec(options: RasaOptions, scoring: ScoringOptions | None = None) -> dict[str, Any]:
    """What the files of a Rasa folder follow (``metric_spec.json`` beside them)."""
    scoring = scoring or DEFAULT_OPTIONS
    return {
        "definition": RASA,
        "rules": (
            "rasa/nlu/test.py: scikit-learn classification_report with labels = set(targets), "
            "weighted averages, accuracy over all examples; entities scored per token "
            "(type[.group][.role] labels, no_entity excluded from the rows, counted in "
            "accuracy), not by value"
        ),
        "settings": {
            "fallback": "undone: the intent the FallbackClassifier replaced is scored",
            "duplicates": "dropped as Rasa's reader drops them (same text, intent, entities)",
            "negative_intents": list(scoring.negative_intents),
            "no_intent": (
                "examples without an expected intent (or expecting a negative intent) and "
                'ERROR cases are left out; an answer without intent is ""'
            ),
            "several_intents": (
                "target: the predicted intent when it is one of the case's acceptable "
                "intents, else the first"
            ),
            "entity_match": "per token, by label type[.group][.role]; values are not scored",
            "retrieval_intents": "faq/ask_x scored as faq; the whole name in the response report",
            "tokens": "the engine's own (text_tokens), else runs of non-space characters "
            "without edge punctuation",
            "successes": options.successes,
            "errors": options.errors,
            "plots": options.plots,
        },
    }


def nludevops_spec(settings: CompareSettings | None = None) -> dict[str, Any]:
    """What ``compare`` and the ``--thresholds`` gates follow, with the settings file's
    options (``metric_spec.json`` beside ``compare``'s files)."""
    from nlu_tui.compare.decisions import CompareSettings

    settings = settings or CompareSettings()
    rules = settings.json_rules
    return {
        "definition": NLUDEVOPS,
        "rules": (
            "NLU.DevOps.ModelPerformance: per utterance and target kind (intent, entity, "
            "entityValue) TP/FP/FN/TN; a wrong intent is one FN and one FP; precision, recall "
            "and F1 from the pooled counts; gates per NLUAccuracy.CheckThreshold"
        ),
        "settings": {
            "negative_intent": settings.true_negative_intent,
            "mode": "unit test" if settings.unit_test else "performance",
            "strict_entities": list(settings.strict_entities),
            "ignore_entities": list(settings.ignore_entities),
            "several_intents": (
                "each of nluTui.intents is acceptable: an actual intent among them is the "
                "expected one (ownFields: read)"
                if settings.reads_own_fields
                else "only 'intent' is expected, as dotnet nlu compare reads it (ownFields: ignore)"
            ),
            "engine_errors": (
                "an actual utterance with nluTui.error is left out (ownFields: read)"
                if settings.reads_own_fields
                else "an answer without intent (ownFields: ignore)"
            ),
            "fallback": "an engine's fallback (Rasa's nlu_fallback) is written as intent null",
            "entity_match": (
                "matchText (.NET-normalised) and matchIndex, else by value; entityValue as a "
                f"JSON subtree (numbers: {rules.numbers}, expectedNull: {rules.expected_null}, "
                f"dates: {rules.dates})"
            ),
        },
    }
