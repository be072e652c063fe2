"""Scoring one test case against one prediction, with Kore.ai Batch Testing semantics.

Pure functions, no I/O. The result type follows the Kore.ai docs (metric-semantics.md §1.3):

- intent expected and the matched intent is one of the acceptable ones → TP;
- intent expected and nothing matched → FN; another intent matched → FP (a wrong intent is
  an FP only, so wrong intents lower precision, not recall);
- no intent expected and none matched → TN; one matched → FP;
- Small Talk: TP only when the matched intent is the expected Small Talk intent, otherwise FP
  ("the lists differ", including nothing matched); no intent expected but a known Small Talk
  intent matched → FN, as the docs say (known from the suite's kinds, or from the engine's
  answer when it reports the matched intent's kind, as Kore.ai does);
- traits: all expected traits must be among the engine's traits (extras are fine); none
  returned → FN, some but not all → FP. A case with both intents and traits is TP when both
  are, FP when either is FP, else FN;
- universal bots: when the engine reports the child bot that answered and the matched
  intent is paired with a bot (``botName``), a TP needs that bot, else it is an FP;
- an engine error → ERROR, kept out of every metric and counted separately;
- ``raw:`` checks (:mod:`nlu_tui.raw_checks`) are scored against the engine's raw answer, each
  on its own; they never change the result type (their own metric: ``Summary.raw_check_success``).

Entity values: with ``ScoringOptions.entity_synonyms`` (a suite imported from Rasa data with
``synonym:`` blocks), an expected value that belongs to a synonym group accepts every value of
the group, as Rasa's EntitySynonymMapper would map either side to the group's name (expected
``credit card``, engine ``credit``: right).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from nlu_tui.model import (
    CaseResult,
    EntityResult,
    ExpectedEntity,
    IntentKind,
    PredictedEntity,
    Prediction,
    ResultType,
    Suite,
    TestCase,
    ValueKind,
)
from nlu_tui.raw_checks import evaluate_checks
from nlu_tui.scoring.entities import MULTI_SEPARATOR, entity_matches, flatten_value, normalize

PATH_SEPARATOR = ">>"
"""How engines (and Kore.ai's JSON samples) write an intent under its parents: ``A >> B``."""


@dataclass(frozen=True)
class ScoringOptions:
    """Choices that change how a case is scored.

    ``negative_intents``: intent names that mean "no intent" (besides null and empty), for
    expectations and predictions alike (LUIS ``None``, Rasa ``nlu_fallback`` if you add it).
    ``small_talk_intents``: names known to be Small Talk, for Kore.ai's FN rule on cases that
    expect nothing (see :meth:`for_suite`). ``ignore_intent_case`` compares intent and trait
    names case-insensitively. ``entity_synonyms``: groups of entity values that mean the same
    (Rasa's ``synonym:`` blocks, the name first), see :meth:`for_suite`.
    """

    negative_intents: tuple[str, ...] = ("None",)
    small_talk_intents: frozenset[str] = field(default_factory=frozenset)
    ignore_intent_case: bool = False
    entity_synonyms: tuple[tuple[str, ...], ...] = ()
    _negative: frozenset[str] = field(init=False, repr=False, compare=False)
    _small_talk: frozenset[str] = field(init=False, repr=False, compare=False)
    _synonyms: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Precomputed keys: scoring 100,000 cases asks these questions millions of times.
        object.__setattr__(self, "_negative", frozenset(self.key(n) for n in self.negative_intents))
        object.__setattr__(
            self, "_small_talk", frozenset(self.key(n) for n in self.small_talk_intents)
        )
        groups: dict[str, tuple[str, ...]] = {}
        for group in self.entity_synonyms:
            for value in group:
                # EntitySynonymMapper looks values up lower-cased; the last group naming a
                # value wins, as the mapper's dict keeps the last mapping it learnt.
                groups[normalize(value)] = group
        object.__setattr__(self, "_synonyms", groups)

    def for_suite(self, suite: Suite) -> ScoringOptions:
        """These options plus every Small Talk intent the suite names and the entity synonyms
        it keeps from imported Rasa data (``training["synonyms"]``: name → variants)."""
        names = {
            i.name.strip()
            for c in suite.cases
            for i in c.intents
            if i.kind is IntentKind.SMALL_TALK
        }
        return ScoringOptions(
            negative_intents=self.negative_intents,
            small_talk_intents=frozenset(self.small_talk_intents | names),
            ignore_intent_case=self.ignore_intent_case,
            entity_synonyms=self.entity_synonyms + suite_synonyms(suite),
        )

    def synonyms_of(self, value: str) -> tuple[str, ...]:
        """Every value of the synonym group ``value`` belongs to (none: empty)."""
        return self._synonyms.get(normalize(value), ())

    def key(self, name: str) -> str:
        name = name.strip()
        return name.casefold() if self.ignore_intent_case else name

    def is_negative(self, name: str | None) -> bool:
        """Null, empty, or one of the negative intent names: "no intent"."""
        if name is None:
            return True
        k = self.key(name)
        return not k or k in self._negative

    def is_small_talk(self, name: str) -> bool:
        return self.key(name) in self._small_talk


def suite_synonyms(suite: Suite) -> tuple[tuple[str, ...], ...]:
    """The suite's Rasa ``synonym:`` blocks as groups, each its name then its variants."""
    raw = suite.training.get("synonyms") if isinstance(suite.training, dict) else None
    if not isinstance(raw, dict):
        return ()
    out = []
    for name, variants in raw.items():
        values = [str(name)] + [str(v) for v in variants or [] if v is not None]
        out.append(tuple(dict.fromkeys(values)))
    return tuple(out)


def synonyms_json(groups: tuple[tuple[str, ...], ...]) -> list[list[str]]:
    return [list(group) for group in groups]


def synonyms_from_json(value: object) -> tuple[tuple[str, ...], ...]:
    """:func:`synonyms_json` read back (anything else: no synonyms)."""
    if not isinstance(value, list):
        return ()
    return tuple(
        tuple(str(v) for v in group) for group in value if isinstance(group, list) and group
    )


def with_synonyms(case: TestCase, options: ScoringOptions) -> TestCase:
    """The case with each expected value that is in a synonym group accepting the whole group
    (``auto`` and ``exact`` values only; the expected value stays as written)."""
    changed = False
    entities = []
    for ee in case.entities:
        group = (
            options.synonyms_of(ee.value)
            if ee.kind in (ValueKind.AUTO, ValueKind.EXACT) and MULTI_SEPARATOR not in ee.value
            else ()
        )
        extra = [v for v in group if normalize(v) not in {normalize(a) for a in ee.accepted_values}]
        if extra:
            changed = True
            ee = replace(ee, alternatives=[*ee.alternatives, *extra])
        entities.append(ee)
    return replace(case, entities=entities) if changed else case


DEFAULT_OPTIONS = ScoringOptions()


def expected_intents(case: TestCase, options: ScoringOptions = DEFAULT_OPTIONS) -> list[str]:
    """The case's acceptable intent names, without negative ones (``None`` means "expect none")."""
    if options.ignore_intent_case:
        return [i.name.strip() for i in case.intents if not options.is_negative(i.name)]
    negative = options._negative
    return [n for i in case.intents if (n := i.name.strip()) and n not in negative]


def matched_intent(prediction: Prediction, options: ScoringOptions = DEFAULT_OPTIONS) -> str | None:
    """The engine's intent, or ``None`` when it is a "no intent" answer."""
    if options.is_negative(prediction.intent):
        return None
    assert prediction.intent is not None
    return prediction.intent.strip()


def _acceptable(
    expected: list[str], parents: list[str], matched: str | None, options: ScoringOptions
) -> bool:
    if matched is None or not expected:
        return False
    key = options.key
    m = key(matched)
    if any(m == key(n) for n in expected):
        return True
    if PATH_SEPARATOR in matched:
        *steps, leaf = (p.strip() for p in matched.split(PATH_SEPARATOR))
        if any(key(leaf) == key(n) for n in expected):
            return [key(p) for p in steps] == [key(p) for p in parents]
    return False


def intent_acceptable(
    case: TestCase, matched: str | None, options: ScoringOptions = DEFAULT_OPTIONS
) -> bool:
    """Whether ``matched`` is one of the case's acceptable intents.

    A matched intent written as a path (``Parent >> Child``) is acceptable when its last step is
    an expected intent and the steps before it are the case's ``parent_intents``.
    """
    return _acceptable(expected_intents(case, options), case.parent_intents, matched, options)


def _intent_result(
    case: TestCase, expected: list[str], matched: str | None, options: ScoringOptions
) -> ResultType:
    if not expected:
        if matched is None:
            return ResultType.TN
        return ResultType.FN if options.is_small_talk(matched) else ResultType.FP
    if _acceptable(expected, case.parent_intents, matched, options):
        return ResultType.TP
    if any(i.kind is IntentKind.SMALL_TALK for i in case.intents):
        return ResultType.FP
    return ResultType.FN if matched is None else ResultType.FP


def _trait_result(case: TestCase, prediction: Prediction, options: ScoringOptions) -> ResultType:
    got = {options.key(t) for t in prediction.traits if t.strip()}
    if all(options.key(t) in got for t in case.traits):
        return ResultType.TP
    return ResultType.FP if got else ResultType.FN


def _result_type(
    case: TestCase, prediction: Prediction, matched: str | None, options: ScoringOptions
) -> ResultType:
    expected = expected_intents(case, options) if case.intents else []
    if not case.traits:
        return _intent_result(case, expected, matched, options)
    traits = _trait_result(case, prediction, options)
    if not expected:
        return traits
    intent = _intent_result(case, expected, matched, options)
    if intent is ResultType.TP and traits is ResultType.TP:
        return ResultType.TP
    if ResultType.FP in (intent, traits):
        return ResultType.FP
    return ResultType.FN


def _bot_acceptable(case: TestCase, matched: str | None, bot: str, options: ScoringOptions) -> bool:
    """Whether the child bot that answered is the one paired with the matched intent
    (universal bots: ``botName``); an intent paired with no bot accepts any."""
    if matched is None:
        return True
    key = options.key
    leaf = key(matched.split(PATH_SEPARATOR)[-1])
    bots = [i.bot for i in case.intents if key(i.name) in (key(matched), leaf)]
    if not bots or any(b is None or not b.strip() for b in bots):
        return True
    return any(key(b) == key(bot) for b in bots if b is not None)


def _predicted_value(predicted: PredictedEntity) -> object:
    return predicted.value if predicted.value is not None else predicted.text


def _plain_value(ee: ExpectedEntity) -> str | None:
    """The expected value as normalised text when equality as text settles a match (``auto``
    and ``exact`` values without ``||``), else ``None`` and :func:`entity_matches` decides.

    Equal text is the first thing :func:`value_matches` accepts for these kinds; checking it
    here skips two calls and the kind dispatch for the usual, matching entity.
    """
    if (ee.kind is ValueKind.AUTO or ee.kind is ValueKind.EXACT) and (
        MULTI_SEPARATOR not in ee.value
    ):
        return normalize(ee.value)
    return None


def _match(
    expected: Sequence[ExpectedEntity], predicted: Sequence[PredictedEntity]
) -> tuple[list[int | None], list[bool], list[str | None]]:
    """(assigned predicted index, ok, the engine's flat value) per expected entity.

    Candidates have the same name (and role/group when the expectation gives them). A
    candidate whose value matches is preferred; otherwise the first unused one with that name.
    Each predicted entity serves at most one expectation; each value is flattened once.
    """
    n = len(expected)
    assigned: list[int | None] = [None] * n
    ok = [False] * n
    values = [_predicted_value(pe) for pe in predicted]
    # Each expectation's candidates, found once for both passes (names normalised once).
    names = [normalize(pe.name) for pe in predicted]
    candidates = [
        [
            j
            for j, name in enumerate(names)
            if name == key
            and (ee.role is None or ee.role == predicted[j].role)
            and (ee.group is None or ee.group == predicted[j].group)
        ]
        for ee in expected
        for key in (normalize(ee.name),)
    ]
    flats: dict[int, str | None] = {}
    used: set[int] = set()
    for k, ee in enumerate(expected):
        for j in candidates[k]:
            if j in used:
                continue
            if j not in flats:
                flats[j] = flatten_value(values[j])
            flat = flats[j]
            plain = _plain_value(ee)
            if (
                plain is not None and flat is not None and normalize(flat) == plain
            ) or entity_matches(ee, values[j], flat):
                assigned[k], ok[k] = j, True
                used.add(j)
                break
    for k in range(n):
        if assigned[k] is not None:
            continue
        for j in candidates[k]:
            if j not in used:
                assigned[k] = j
                used.add(j)
                break
    flat_out: list[str | None] = []
    for a in assigned:
        if a is None:
            flat_out.append(None)
        else:
            if a not in flats:
                flats[a] = flatten_value(values[a])
            flat_out.append(flats[a])
    return assigned, ok, flat_out


def assign_entities(
    expected: Sequence[ExpectedEntity], predicted: Sequence[PredictedEntity]
) -> list[int | None]:
    """For each expected entity, the index of the predicted entity it is judged against."""
    return _match(expected, predicted)[0]


def score_entities(case: TestCase, prediction: Prediction) -> list[EntityResult]:
    """One result per expected entity: the expected value, the engine's flat value, and ok."""
    _assigned, ok, flats = _match(case.entities, prediction.entities)
    return [
        EntityResult(ee.name, ee.value, flat, good)
        for ee, flat, good in zip(case.entities, flats, ok, strict=True)
    ]


def _unique(names: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for n in names:
        seen.setdefault(n, None)
    return list(seen)


def entity_order(
    case: TestCase, prediction: Prediction, assigned: Sequence[int | None]
) -> tuple[list[str], bool | None]:
    """The engine's actual entity order and whether it agrees with the user's.

    The actual order is the expected entities the engine returned, in the order it placed
    them (by start offset, then position in the answer); entities it did not return are not
    in it. Reports show it as it is, so a wrong order is visible next to the expected one
    (Kore.ai's report fills its column from the expected order, which hid the failure). The
    order agrees when every entity the user ordered was found and they appear in the
    engine's answer in that order. ``None`` when the case gives no order.
    """
    position: dict[str, tuple[int, int]] = {}
    for ee, j in zip(case.entities, assigned, strict=True):
        if j is None:
            continue
        pe = prediction.entities[j]
        pos = (pe.start if pe.start is not None else 1 << 62, j)
        key = ee.name
        if key not in position or pos < position[key]:
            position[key] = pos
    user = _unique(case.entity_order)
    found = sorted(position, key=position.__getitem__)
    if not user:
        return found, None
    if any(n not in position for n in user):
        return found, False
    return found, [n for n in found if n in user] == user


def _plain_intent_result(
    case: TestCase, intent: str | None, options: ScoringOptions
) -> tuple[str | None, ResultType]:
    """(matched intent, result type) for a case without traits, names compared as written.

    The common case, inlined: :func:`matched_intent`, :func:`expected_intents` and
    :func:`_intent_result` with ``key`` reduced to ``strip`` (names here are already stripped),
    so a 100,000-case rescoring does not pay for a dozen calls per case. Paths
    (``Parent >> Child``) still go through :func:`_acceptable`.
    """
    negative = options._negative
    matched = None
    if intent is not None:
        name = intent.strip()
        if name and name not in negative:
            matched = name
    expected = [n for i in case.intents if (n := i.name.strip()) and n not in negative]
    if not expected:
        if matched is None:
            return None, ResultType.TN
        return matched, ResultType.FN if matched in options._small_talk else ResultType.FP
    if matched is not None and (
        matched in expected
        or (
            PATH_SEPARATOR in matched
            and _acceptable(expected, case.parent_intents, matched, options)
        )
    ):
        return matched, ResultType.TP
    if any(i.kind is IntentKind.SMALL_TALK for i in case.intents):
        return matched, ResultType.FP
    return matched, ResultType.FN if matched is None else ResultType.FP


def _one_entity(
    ee: ExpectedEntity, predicted: Sequence[PredictedEntity]
) -> tuple[list[EntityResult], list[str]]:
    """Entity results and actual order of a case expecting one entity and giving no order.

    What :func:`_match` and :func:`entity_order` compute for this case (the first candidate
    whose value matches, else the first candidate; the order is that entity when the engine
    returned it, else empty), without their bookkeeping for several expectations.
    """
    name = normalize(ee.name)
    role, group = ee.role, ee.group
    plain = _plain_value(ee)
    first: PredictedEntity | None = None
    for pe in predicted:
        if (
            normalize(pe.name) != name
            or (role is not None and role != pe.role)
            or (group is not None and group != pe.group)
        ):
            continue
        value = pe.value if pe.value is not None else pe.text
        flat = flatten_value(value)
        if (
            flat is not None and normalize(flat) == plain  # auto and exact: equal as text
        ) or entity_matches(ee, value, flat):
            return [EntityResult(ee.name, ee.value, flat, True)], [ee.name]
        if first is None:
            first = pe
    if first is None:
        return [EntityResult(ee.name, ee.value, None, False)], []
    return [EntityResult(ee.name, ee.value, flatten_value(_predicted_value(first)), False)], [
        ee.name
    ]


def score_case(
    case: TestCase, prediction: Prediction, options: ScoringOptions = DEFAULT_OPTIONS
) -> CaseResult:
    """Score one case: result type, entity results and entity order (an error scores nothing)."""
    if prediction.error is not None:
        return CaseResult(
            case_id=case.id,
            result=ResultType.ERROR,
            matched_intent=None,
            confidence=None,
            expected_entity_order=list(case.entity_order),
            latency_ms=prediction.latency_ms,
            error=prediction.error,
        )
    if options._synonyms and case.entities:
        case = with_synonyms(case, options)
    if case.traits or options.ignore_intent_case:
        matched = matched_intent(prediction, options)
        kind = _result_type(case, prediction, matched, options)
    else:
        matched, kind = _plain_intent_result(case, prediction.intent, options)
    if (
        kind is ResultType.FP
        and prediction.intent_kind is IntentKind.SMALL_TALK
        and not case.traits
        and not expected_intents(case, options)
    ):
        kind = ResultType.FN  # a Small Talk answer the case did not expect: the engine says so
    bot = prediction.bot
    if (
        bot is not None
        and kind is ResultType.TP
        and not _bot_acceptable(case, matched, bot, options)
    ):
        kind = ResultType.FP  # the right intent from the wrong child bot
    if len(case.entities) == 1 and not case.entity_order:
        entities, actual_order = _one_entity(case.entities[0], prediction.entities)
        order_ok = None
    elif case.entities:
        assigned, ok, flats = _match(case.entities, prediction.entities)
        entities = [
            EntityResult(ee.name, ee.value, flat, good)
            for ee, flat, good in zip(case.entities, flats, ok, strict=True)
        ]
        actual_order, order_ok = entity_order(case, prediction, assigned)
    elif case.entity_order:
        entities, actual_order, order_ok = [], [], False  # nothing expected, nothing matched
    else:
        entities, actual_order, order_ok = [], [], None
    # Positional, in CaseResult's field order: keyword passing costs more at 100,000 cases.
    result = CaseResult(
        case.id,
        kind,
        matched,
        prediction.confidence,
        entities,
        list(case.entity_order),
        actual_order,
        order_ok,
        prediction.latency_ms,
        None,
        bot,
    )
    if case.raw_checks:  # against the full answer: the run caps it only once scored
        result.raw_checks = evaluate_checks(case.raw_checks, prediction.raw)
    return result
