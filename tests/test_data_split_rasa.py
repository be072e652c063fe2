"""``data split nlu`` equal to ``rasa data split nlu`` (issue 24, item 5).

Rasa 3.6's ``TrainingData.split_nlu_examples`` (``rasa/shared/nlu/training_data/
training_data.py``) collects each class's examples by iterating ``set(self.training_examples)``
-- ``Message`` objects hashed by ``int(fingerprint, 16)`` (``message.py``), the fingerprint being
``deep_container_fingerprint([data, features])`` (``rasa/shared/utils/io.py``) -- then shuffles
them with ``random.Random(seed)``. ``TrainingData.train_test_split`` keeps ``entity_synonyms``
(inline ``{"value": ...}`` annotations included, ``synonyms_parser.add_synonyms_from_entities``)
in both parts; ``persist`` writes the responses of retrieval intents to ``nlg_<name>.yml``.

Oracles: Rasa's own ``Message.fingerprint`` and ``rasa data split nlu`` (the peer venv of
``tests/peers/setup_rasa.sh``; skipped without it), and hand-written expectations.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from nlu_tui.cli.main import run
from nlu_tui.formats.rasa_yaml import load_training_data
from tests.rasa_peer import NLU, PEERS, RASA

FIXTURE = Path(__file__).parent / "fixtures" / "rasa" / "split_inline_synonyms.yml"


def _parts(folder: Path) -> dict[str, object]:
    """What a split folder holds, order aside: per file the multiset of (intent, plain text,
    entities) and the synonyms (variant -> value), regexes and lookups; the NLG files parsed."""
    out: dict[str, object] = {}
    for name in ("training_data", "test_data"):
        data = load_training_data(folder / f"{name}.yml")
        examples = sorted(
            (
                e.intent,
                e.text,
                tuple((x.name, x.value, x.start, x.end, x.role, x.group) for x in e.entities),
            )
            for e in data.examples
        )
        synonyms = {v: k for k, vs in data.synonyms.items() for v in vs}
        out[name] = (examples, synonyms, data.regexes, data.lookups)
        nlg = (folder / f"nlg_{name}.yml").read_text(encoding="utf-8")
        out[f"nlg_{name}"] = yaml.safe_load(nlg) if nlg else None
    return out


def test_inline_synonyms_are_written_to_both_files(tmp_path: Path) -> None:
    assert (
        run(["data", "split", "nlu", str(FIXTURE), "--random-seed", "3", "--out", str(tmp_path)])
        == 0
    )
    expected = {"tiny": "small", "wee": "small", "big": "large", "grande": "large", "huge": "large"}
    for name in ("training_data", "test_data"):
        data = load_training_data(tmp_path / f"{name}.yml")
        assert {v: k for k, vs in data.synonyms.items() for v in vs} == expected, name
        assert data.regexes == {"zipcode": ["[0-9]{5}"]}
        assert data.lookups == {"drink": ["latte", "mocha"]}
        # the synonym section is written as Rasa orders it: values by their first variant
        text = (tmp_path / f"{name}.yml").read_text()
        assert text.index("- synonym: small") < text.index("- synonym: large")
    # the duplicate "hi" is dropped (Rasa's sanitize_examples): 19 of the 20 examples
    both = [
        e
        for name in ("training_data", "test_data")
        for e in load_training_data(tmp_path / f"{name}.yml").examples
    ]
    assert len(both) == 20 - 1
    # each part's NLG file holds the responses of the retrieval intents it has examples of
    for name in ("training_data", "test_data"):
        nlg = yaml.safe_load((tmp_path / f"nlg_{name}.yml").read_text())
        assert set(nlg["responses"]) == {"utter_faq/opening_hours", "utter_faq/wifi"}


def _peer_python() -> Path:
    python = PEERS / "rasa310" / "bin" / "python"
    if not python.exists():
        pytest.skip(f"no Rasa peer at {python}: run tests/peers/setup_rasa.sh")
    return python


@pytest.mark.rasa
def test_message_fingerprints_equal_rasas(tmp_path: Path) -> None:
    """Our ``message_fingerprint`` of each example equals Rasa's ``Message.fingerprint()`` for
    the same file (retrieval intents with their responses, inline synonyms, roles)."""
    from nlu_tui.evaluation.split import message_data, message_fingerprint
    from nlu_tui.formats.rasa_yaml import load_responses

    python = _peer_python()
    source = tmp_path / "nlu.yml"
    nlu, responses_section = FIXTURE.read_text().split("responses:")
    source.write_text(
        nlu
        + "- intent: move\n  examples: |\n"
        + '    - from [Oslo]{"entity": "city", "role": "from"} to [Rome]{"entity": "city", '
        + '"role": "to", "group": "1"}\n'
        + '    - [5]{"entity": "n", "value": "five"} stops\n'
        + "responses:"
        + responses_section
    )
    script = (
        "import sys, json\n"
        "from rasa.shared.nlu.training_data.loading import load_data\n"
        "d = load_data(sys.argv[1])\n"
        "print(json.dumps([m.fingerprint() for m in d.training_examples]))\n"
    )
    done = subprocess.run(
        [str(python), "-c", script, str(source)],
        capture_output=True,
        text=True,
        timeout=300,
        env={"RASA_TELEMETRY_ENABLED": "false", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = yaml.safe_load(done.stdout.strip().splitlines()[-1])
    data = load_training_data(source)
    responses = load_responses(source)
    ours = [message_fingerprint(message_data(e, None, responses)) for e in data.examples]
    unique = list(dict.fromkeys(ours))  # Rasa's list has its duplicates removed already
    assert unique == theirs


def _both_split(
    tmp_path: Path, source: Path, *args: str
) -> tuple[dict[str, object], dict[str, object]]:
    if not RASA.exists():
        pytest.skip(f"no Rasa peer at {RASA}: run tests/peers/setup_rasa.sh (needs Python 3.10)")
    if not source.exists():
        pytest.skip(f"dataset not available: {source}")
    theirs, ours = tmp_path / "rasa", tmp_path / "ours"
    env = {"RASA_TELEMETRY_ENABLED": "false", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [str(RASA), "data", "split", "nlu", "-u", str(source), "--out", str(theirs), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert run(["data", "split", "nlu", str(source), "--out", str(ours), *args]) == 0
    return _parts(ours), _parts(theirs)


@pytest.mark.rasa
@pytest.mark.parametrize(
    "args",
    [
        ("--random-seed", "42"),
        ("--random-seed", "1", "--training-fraction", "0.7"),
        ("--random-seed", "2024", "--training-fraction", "0.5"),
    ],
)
def test_financial_demo_split_equals_rasas(tmp_path: Path, args: tuple[str, ...]) -> None:
    ours, theirs = _both_split(tmp_path, NLU, *args)
    assert ours == theirs


@pytest.mark.rasa
@pytest.mark.parametrize("seed", ["3", "7", "11"])
def test_inline_synonym_split_equals_rasas(tmp_path: Path, seed: str) -> None:
    ours, theirs = _both_split(tmp_path, FIXTURE, "--random-seed", seed)
    assert ours == theirs
    # and byte for byte on the examples, synonyms and NLG files but for our blank line
    for name in ("training_data.yml", "test_data.yml"):
        mine = (tmp_path / "ours" / name).read_text().replace('"\n\nnlu:', '"\nnlu:')
        assert mine == (tmp_path / "rasa" / name).read_text(), name
