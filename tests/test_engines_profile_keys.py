"""Unknown keys in engines.yaml are named with file, line and the closest valid key (item 20).

Before, ``intnet:`` was silently ignored and every case then failed with an unrelated error.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from nlu_tui.engines.base import engine_types
from nlu_tui.engines.profile_keys import ENGINE_KEYS, NESTED_KEYS
from nlu_tui.engines.profiles import RUN_KEYS, read_profiles, resolve_engine
from nlu_tui.errors import InputError

ENGINES = Path(__file__).resolve().parent.parent / "nlu_tui" / "engines"
MINI = Path(__file__).parent / "fixtures" / "engines" / "mini.nlu.yml"


def _write(folder: Path, text: str) -> Path:
    path = folder / "engines.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "text,field,line,guess",
    [
        (  # the example: a generic HTTP engine's mapping key
            "engines:\n  p:\n    type: http\n    url: http://127.0.0.1:9/p\n    intnet: x.name\n",
            "engines.p.intnet",
            5,
            "intent",
        ),
        ("engine:\n  p:\n    type: rasa\n", "engine", 1, "engines"),  # the file's top level
        ("engines:\n  p:\n    type: rasa\n    urll: http://h\n", "engines.p.urll", 4, "url"),
        (
            "engines:\n  p:\n    type: rasa\n    concurency: 4\n",
            "engines.p.concurency",
            4,
            "concurrency",
        ),
        (
            f"engines:\n  p:\n    type: embedded\n    nlu: {MINI}\n    treshold: 0.5\n",
            "engines.p.treshold",
            5,
            "threshold",
        ),
        (
            "engines:\n  p:\n    type: rasa\n    published:\n      tiemout: 3\n",
            "engines.p.published.tiemout",
            5,
            "timeout",
        ),
        (
            "engines:\n  p:\n    type: http\n    url: http://h/p\n    entities:\n"
            "      path: ents\n      vlaue: v\n",
            "engines.p.entities.vlaue",
            7,
            "value",
        ),
        (
            "engines:\n  p:\n    type: http\n    url: http://h/p\n"
            "    ranking: {path: r, name: n, socre: s}\n",
            "engines.p.ranking.socre",
            5,
            "score",
        ),
    ],
)
def test_unknown_keys_are_named_with_file_line_and_closest_key(
    tmp_path: Path, text: str, field: str, line: int, guess: str | None
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match="unknown key") as caught:
        resolve_engine("p", workspace=tmp_path)
    err = caught.value
    assert (err.path, err.field, err.line) == (path, field, line)
    assert repr(field.rsplit(".", 1)[-1]) in err.message
    if guess is not None:
        assert f"did you mean {guess!r}?" in err.message
    with pytest.raises(InputError):  # the whole file is refused, not only that profile
        read_profiles(path)


def test_cli_run_with_a_misspelt_key_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    _write(
        tmp_path, "engines:\n  bot:\n    type: http\n    url: http://127.0.0.1:9/p\n    intnet: i\n"
    )
    suite = tmp_path / "s.suite.yaml"
    suite.write_text("name: s\ncases:\n  - utterance: hi\n    intents: [greet]\n", encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-m", "nlu_tui", "run", str(suite), "--engine", "bot"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert ran.stdout == ""
    (line,) = ran.stderr.splitlines()
    head, valid = line.split("; valid keys: ")
    assert head == (
        f"nlu-tui: error: {tmp_path / 'engines.yaml'}, line 5, field 'engines.bot.intnet': "
        "unknown key 'intnet' in a profile of type 'http' (did you mean 'intent'?)"
    )
    keys = valid.split(", ")
    assert keys == sorted(keys) and {"intent", "url", "entities", "timeout", "type"} <= set(keys)
    assert "intnet" not in keys


def test_every_listed_key_is_accepted_and_free_form_mappings_are_not_checked(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        f"""engines:
  emb:
    type: embedded
    nlu: {MINI}
    threshold: 0.4
    parent_boost: 2
    cache: false
    concurrency: 2
    development: {{threshold: 0.5}}
  ras:
    type: rasa
    url: http://127.0.0.1:9
    token: ${{SOME_TOKEN}}
    jwt: ${{SOME_JWT}}
    timeout: 3
    rate_limit: 5
    retries: 1
    published: {{url: http://127.0.0.1:10, timeout: 4}}
  gen:
    type: http
    url: http://127.0.0.1:9/p
    method: POST
    headers: {{X-Anything: "yes"}}
    query: {{lang: en, whatever: "{{text}}"}}
    body: {{any_field: "{{text}}", nested: {{free: 1}}}}
    intent: a.b
    confidence: a.c
    ranking: {{path: r, name: n, score: s}}
    entities: {{path: e, name: n, value: v, start: s, end: f, text: t, confidence: c, role: r, group: g}}
    no_intent: [None]
""",
    )
    assert set(read_profiles(tmp_path / "engines.yaml")) == {"emb", "ras", "gen"}
    assert resolve_engine("gen", workspace=tmp_path).engine.type_name == "http"
    assert resolve_engine("emb", workspace=tmp_path).engine.type_name == "embedded"


_READ = re.compile(r"""(?<![\w.])settings(?:\.get\(|\[|,)\s*["']([a-z_]+)["']""")
"""A profile's settings as engines read them (``settings.get("url")``); a trained
configuration's own ``config.settings[...]`` is not a profile key."""


@pytest.mark.parametrize(
    "kind,modules",
    [
        ("embedded", ["embedded/engine.py"]),
        ("rasa", ["rasa.py", "httpcall.py"]),
        ("http", ["http_generic.py", "httpcall.py"]),
        ("wit", ["wit.py", "httpcall.py"]),
        ("luis", ["luis.py", "httpcall.py"]),
        ("clu", ["clu.py", "httpcall.py"]),
        ("lex", ["lex.py", "httpcall.py"]),
        ("kore", ["kore.py", "httpcall.py"]),
        ("dialogflow-es", ["dialogflow_es.py", "dialogflow_common.py", "httpcall.py"]),
        ("dialogflow-cx", ["dialogflow_cx.py", "dialogflow_common.py", "httpcall.py"]),
        ("llm", ["llm.py"]),
        ("llm-commands", ["llm_commands.py"]),
    ],
)
def test_every_setting_an_engine_reads_is_a_valid_key(kind: str, modules: list[str]) -> None:
    """The table cannot fall behind the engines: a key an engine reads must not be refused."""
    read: set[str] = set()
    for module in modules:
        read |= set(_READ.findall((ENGINES / module).read_text(encoding="utf-8")))
    if kind == "embedded":
        read |= {"nlu", "path", "training_data"}  # read through _PATH_KEYS
    assert kind in engine_types() and read
    assert read - (ENGINE_KEYS[kind] | {"type", *RUN_KEYS}) == set()
    for (engine, setting), nested in NESTED_KEYS.items():
        assert setting in ENGINE_KEYS[engine] and "path" in nested
