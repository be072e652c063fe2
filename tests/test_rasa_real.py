"""The Rasa engine against a real Rasa Open Source 3.6.21 server (real-peers.md §1).

Needs the peer venv made by ``tests/peers/setup_rasa.sh``; skipped with the reason otherwise.
Training and serving happen in a temporary folder; the server binds 127.0.0.1 on a free port
and is stopped by its PID.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from nlu_tui.engines.base import ParseContext, create_engine
from nlu_tui.engines.httpcall import SECRET_VALUES_KEY
from nlu_tui.engines.rasa import RasaEngine
from nlu_tui.errors import EngineError
from nlu_tui.formats.rasa_yaml import load_training_data
from tests.rasa_peer import NLU, free_port, project, rasa, served

pytestmark = [pytest.mark.rasa, pytest.mark.slow]

TOKEN = "real-rasa-Token-31337"
CONFIG_FAST = """recipe: default.v1
assistant_id: peers-fast
language: en
pipeline:
  - name: WhitespaceTokenizer
  - name: LexicalSyntacticFeaturizer
  - name: CountVectorsFeaturizer
  - name: CountVectorsFeaturizer
    analyzer: char_wb
    min_ngram: 1
    max_ngram: 4
  - name: LogisticRegressionClassifier
  - name: CRFEntityExtractor
  - name: EntitySynonymMapper
policies: []
"""


@pytest.fixture(scope="module")
def rasa_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("rasa-peer")
    env = project(work, CONFIG_FAST, "config_fast.yml")
    rasa(
        work, env, "train", "nlu", "--config", "config_fast.yml", "--nlu", "data/nlu.yml",
        "--out", "models", "--fixed-model-name", "fast",
    )  # fmt: skip
    with served(work, env, "models/fast.tar.gz", token=TOKEN) as url:
        yield url


async def _engine(url: str, token: str = TOKEN) -> RasaEngine:
    engine = create_engine("rasa", {"url": url, "token": token, SECRET_VALUES_KEY: [token]})
    assert isinstance(engine, RasaEngine)
    await engine.open(None)
    return engine


async def test_version_probe_and_parse(rasa_url: str) -> None:
    engine = await _engine(rasa_url)
    text = "I want to pay my emblem credit card bill of $200"
    p = await engine.parse(text, ParseContext())
    await engine.close()
    assert engine.server_version == "3.6.21"
    assert p.intent == "pay_cc"
    assert p.confidence is not None and 0 < p.confidence <= 1
    assert p.ranking[0].name == "pay_cc" and len(p.ranking) > 1
    assert "text_tokens" in p.raw  # the real 3.6.21 shape
    for entity in p.entities:
        assert entity.start is not None and entity.end is not None
        assert entity.text == text[entity.start : entity.end]
        assert entity.extractor == "CRFEntityExtractor"
    by_name = {e.name: e for e in p.entities}
    assert "account_type" in by_name
    # EntitySynonymMapper changes the value, not the span (real-peers.md §1.3).
    assert by_name["account_type"].value == "credit"
    assert by_name["account_type"].text == "credit card"


async def test_training_examples_come_back_with_their_intents(rasa_url: str) -> None:
    data = load_training_data(NLU)
    sample = data.examples[::10]
    engine = await _engine(rasa_url)
    hits = 0
    for example in sample:
        p = await engine.parse(example.text, ParseContext())
        hits += p.intent == example.intent
    await engine.close()
    assert hits / len(sample) > 0.9


async def test_wrong_token_gives_401_without_leaking_it(rasa_url: str) -> None:
    wrong = "not-the-Token-4242"
    engine = await _engine(rasa_url, token=wrong)  # /version needs no auth
    with pytest.raises(httpx.HTTPStatusError) as caught:
        await engine.parse("hello", ParseContext())
    await engine.close()
    assert caught.value.response.status_code == 401
    assert wrong not in str(caught.value) and TOKEN not in str(caught.value)


async def test_empty_text_still_gets_an_answer(rasa_url: str) -> None:
    engine = await _engine(rasa_url)
    p = await engine.parse("", ParseContext())
    await engine.close()
    assert p.ranking  # Rasa answers even the empty string (real-peers.md §1.3)


async def test_unicode_offsets_are_code_points(rasa_url: str) -> None:
    engine = await _engine(rasa_url)
    text = "✓✓ pay my emblem credit card"
    p = await engine.parse(text, ParseContext())
    await engine.close()
    for entity in p.entities:
        assert entity.start is not None and entity.end is not None
        assert text[entity.start : entity.end] == entity.text


async def test_probe_fails_on_a_closed_port() -> None:
    engine = create_engine("rasa", {"url": f"http://127.0.0.1:{free_port()}"})
    with pytest.raises(EngineError, match="unreachable"):
        await engine.open(None)
