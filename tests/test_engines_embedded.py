"""The embedded engine: real training on real files, real cache files, no mocks."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from nlu_tui import paths
from nlu_tui.engines.base import ParseContext, create_engine
from nlu_tui.engines.embedded import EmbeddedEngine
from nlu_tui.engines.embedded.cache import clear_memory
from nlu_tui.engines.embedded.model import EmbeddedModel
from nlu_tui.errors import EngineError
from nlu_tui.formats.rasa_yaml import load_training_data
from nlu_tui.training import TrainingData
from tests.conftest import SAMPLES, dataset

MINI = Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml"


async def _engine(path: Path = MINI, **settings: object) -> EmbeddedEngine:
    engine = create_engine("embedded", {"nlu": str(path), **settings})
    assert isinstance(engine, EmbeddedEngine)
    await engine.open(None)
    return engine


async def test_classifies_and_ranks() -> None:
    engine = await _engine()
    p = await engine.parse("please send 75 dollars to Anna", ParseContext())
    assert p.intent == "transfer_money"
    assert p.confidence == p.ranking[0].confidence
    assert p.ranking[0].name == "transfer_money"
    assert abs(sum(s.confidence for s in p.ranking) - 1.0) < 1e-3
    assert p.ranking == sorted(p.ranking, key=lambda s: -s.confidence)
    assert (await engine.parse("what's my balance", ParseContext())).intent == "check_balance"
    assert (await engine.parse("good morning!", ParseContext())).intent == "greet"


async def test_entities_from_lookup_regex_annotations_and_synonyms() -> None:
    engine = await _engine()
    text = "send 20 to Mario Rossi from my chequing account, ref REF-1234"
    p = await engine.parse(text, ParseContext())
    found = {(e.name, e.value, e.text, e.start, e.end) for e in p.entities}
    assert ("payee", "Mario Rossi", "Mario Rossi", 11, 22) in found  # lookup table
    assert ("account", "checking", "chequing", 31, 39) in found  # synonym -> canonical value
    assert ("reference", "REF-1234", "REF-1234", 53, 61) in found  # regex
    for e in p.entities:
        assert e.start is not None and e.end is not None
        assert text[e.start : e.end] == e.text
    assert [e.start for e in p.entities] == sorted(e.start or 0 for e in p.entities)


async def test_longest_match_wins_and_annotated_value_is_normalised() -> None:
    engine = await _engine()
    p = await engine.parse("move money from my Credit Card to checking", ParseContext())
    accounts = [(e.value, e.text) for e in p.entities if e.name == "account"]
    assert ("credit", "Credit Card") in accounts  # inline {"value": "credit"} annotation
    # "current account" is a synonym of checking: found as one span, not as "account" alone.
    p = await engine.parse("my current account balance", ParseContext())
    assert [(e.name, e.value, e.text) for e in p.entities] == [
        ("account", "checking", "current account")
    ]


async def test_role_kept_only_when_annotations_agree() -> None:
    engine = await _engine()
    p = await engine.parse("move it from savings", ParseContext())
    # savings is annotated both with role "source" and with no role: no role is guessed.
    assert [(e.name, e.role) for e in p.entities] == [("account", None)]


async def test_threshold_gives_no_intent_but_keeps_ranking() -> None:
    strict = await _engine(threshold=0.99)
    p = await strict.parse("hello there", ParseContext())
    assert p.intent is None
    assert p.ranking and p.ranking[0].name == "greet"
    assert p.confidence == p.ranking[0].confidence
    lenient = await _engine(threshold=0.0)
    assert (await lenient.parse("hello there", ParseContext())).intent == "greet"


async def test_parent_context_prefers_follow_up_intents() -> None:
    engine = await _engine()
    alone = await engine.parse("yes go ahead", ParseContext())
    in_context = await engine.parse("yes go ahead", ParseContext(parent_intents=["transfer_money"]))
    assert alone.intent == "affirm"
    assert in_context.intent == "confirm_transfer"
    # A clear top-level intent still wins inside the context.
    other = await engine.parse("hello bot", ParseContext(parent_intents=["transfer_money"]))
    assert other.intent == "greet"
    # A parent without follow-ups changes nothing.
    same = await engine.parse("yes go ahead", ParseContext(parent_intents=["greet"]))
    assert same.ranking == alone.ranking


async def test_model_is_cached_on_disk_by_training_data_hash(tmp_path: Path) -> None:
    data = tmp_path / "bot.nlu.yml"
    data.write_text(MINI.read_text())
    clear_memory()
    first = await _engine(data)
    assert not first.from_cache
    files = list(paths.models_cache_dir().glob("embedded-*.npz"))
    assert len(files) == 1
    clear_memory()
    second = await _engine(data)
    assert second.from_cache
    text = "transfer 10 euros to Anna"
    assert (await second.parse(text, ParseContext())).ranking == (
        await first.parse(text, ParseContext())
    ).ranking
    # Changed data -> a new model; a corrupt cache file is retrained and rewritten.
    data.write_text(
        MINI.read_text() + "\n- intent: goodbye\n  examples: |\n    - bye\n    - see you\n"
    )
    clear_memory()
    third = await _engine(data)
    assert not third.from_cache
    assert third.model is not None and "goodbye" in third.model.intents
    for f in paths.models_cache_dir().glob("embedded-*.npz"):
        f.write_bytes(b"not a model file")
    clear_memory()
    fourth = await _engine(data)
    assert not fourth.from_cache
    assert (await fourth.parse("bye", ParseContext())).intent == "goodbye"


async def test_training_does_not_block_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The event loop keeps running *while* the model trains (it trains in a thread).

    Counted structurally, not by timing: ticks of the loop that happen while ``train`` is
    executing. Training on the loop's own thread would make that count exactly zero.
    """
    data = tmp_path / "demo.nlu.yml"
    data.write_text(dataset("rasa-financial-demo", "nlu.yml").read_text())
    clear_memory()
    training = threading.Event()
    real_train = EmbeddedModel.train.__func__  # type: ignore[attr-defined]

    def train(cls: type[EmbeddedModel], *args: object, **kwargs: object) -> EmbeddedModel:
        training.set()
        try:
            return real_train(cls, *args, **kwargs)  # type: ignore[no-any-return]
        finally:
            training.clear()

    monkeypatch.setattr(EmbeddedModel, "train", classmethod(train))
    ticks_while_training = 0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks_while_training
        while not stop.is_set():
            if training.is_set():
                ticks_while_training += 1
            await asyncio.sleep(0.005)

    task = asyncio.create_task(ticker())
    engine = await _engine(data, cache=False)
    stop.set()
    await task
    assert not engine.from_cache
    assert ticks_while_training > 0


async def test_bad_settings_and_data(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="set 'nlu'"):
        create_engine("embedded", {})
    with pytest.raises(EngineError, match="threshold"):
        create_engine("embedded", {"nlu": str(MINI), "threshold": 3})
    with pytest.raises(EngineError, match="not found"):
        await _engine(tmp_path / "missing.yml")
    one = tmp_path / "one.yml"
    one.write_text("nlu:\n- intent: greet\n  examples: |\n    - hi\n    - hello\n")
    with pytest.raises(EngineError, match="at least 2"):
        await _engine(one, cache=False)


def test_describe_and_capabilities() -> None:
    engine = create_engine("embedded", {"nlu": str(MINI), "threshold": 0.5})
    info = engine.describe()
    assert info["type"] == "embedded" and info["threshold"] == 0.5
    assert engine.capabilities.parent_intent_context and engine.capabilities.training
    assert engine.training_suite_source() == str(MINI)


def test_financial_demo_accuracy_on_a_held_out_split() -> None:
    """80/20 split stratified by intent, seed 42; Rasa's config_fast scores 0.870 on its own split."""
    from sklearn.model_selection import train_test_split

    data = load_training_data(dataset("rasa-financial-demo", "nlu.yml"))
    train, test = train_test_split(
        data.examples, test_size=0.2, random_state=42, stratify=[e.intent for e in data.examples]
    )
    model = EmbeddedModel.train(
        TrainingData(examples=list(train), synonyms=data.synonyms, path=data.path)
    )
    predictions = [model.predict(e.text, threshold=0.0) for e in test]
    accuracy = sum(p.intent == e.intent for p, e in zip(predictions, test, strict=True)) / len(test)
    assert len(test) == 116
    assert accuracy >= 0.8, accuracy


def test_sample_bot_trains_and_answers() -> None:
    path = SAMPLES / "banking_bot.nlu.yml"
    if not path.exists():
        pytest.skip("sample_suites/banking_bot.nlu.yml not written yet")
    data = load_training_data(path)
    model = EmbeddedModel.train(data)
    hits = sum(model.predict(e.text).intent == e.intent for e in data.examples)
    assert hits / len(data.examples) > 0.9  # training accuracy: the model learned the data


async def test_concurrent_parses_are_batched_with_identical_answers() -> None:
    engine = await _engine()
    texts = ["yes go ahead", "send 5 euros to Anna", "hello", "my chequing balance"] * 25
    contexts = [
        ParseContext(parent_intents=["transfer_money"] if (i // 4) % 2 else []) for i in range(100)
    ]
    one_by_one = [await engine.parse(t, c) for t, c in zip(texts, contexts, strict=True)]
    # A caller that gives up must not disturb the batch it was queued in.
    doomed = asyncio.ensure_future(engine.parse("hello", ParseContext()))
    together_task = asyncio.gather(
        *(engine.parse(t, c) for t, c in zip(texts, contexts, strict=True))
    )
    doomed.cancel()
    together = await together_task
    assert doomed.cancelled()
    for a, b in zip(one_by_one, together, strict=True):
        assert (a.intent, a.ranking, a.entities) == (b.intent, b.ranking, b.entities)
    assert {p.intent for p in together[1::4]} == {"transfer_money"}
    assert {p.intent for p in together[0::8]} == {"affirm"}  # "yes go ahead" alone
    assert {p.intent for p in together[4::8]} == {"confirm_transfer"}  # ... after transfer_money


def test_predict_many_equals_predict_proba_ties_included() -> None:
    """The batch ranking (one numpy sort) is the per-text ranking, pair for pair: equal
    probabilities (two intents trained on the same texts) stay in label order."""
    from nlu_tui.engines.embedded.classifier import ClassifierConfig, IntentClassifier

    texts = ["open an account", "open a new account", "what is my balance", "show balance"]
    texts += ["hello there", "hi", "good morning"] * 2
    intents = ["zeta_open", "zeta_open", "balance", "balance"]
    intents += ["greet_b"] * 3 + ["greet_a"] * 3  # the same texts: tied probabilities
    for config in (ClassifierConfig(), ClassifierConfig(name="NaiveBayes", char_ngrams=None)):
        clf = IntentClassifier.train(texts, intents, config)
        asked = ["hello", "my balance please", "open account", "", "zzz"]
        batch = clf.predict_many(asked)
        assert batch == [clf.predict_proba(text) for text in asked]
    # naive Bayes counts the same words for both: exactly tied, in label order
    probs = dict(batch[0])
    assert probs["greet_a"] == probs["greet_b"]
    names = [name for name, _p in batch[0]]
    assert names.index("greet_a") + 1 == names.index("greet_b")
    assert clf.predict_many([]) == []
