"""The documented profile example of each vendor engine is a working profile: read, checked and
built (both versions) as a run would, so the documentation cannot drift from the code.

The examples live on the engine reference pages (docs/reference/engines/<type>.md, moved there
from README.md); the profile outline on docs/reference/engines/profiles.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_engines_dialogflow import google_server

from nlu_tui.engines.profiles import read_profiles, resolve_engine

ENGINE_PAGES = Path(__file__).resolve().parents[1] / "docs" / "reference" / "engines"
PROFILES_PAGE = ENGINE_PAGES / "profiles.md"
VENDORS = ("wit", "luis", "clu", "lex", "kore", "dialogflow-es", "dialogflow-cx")
_BLOCK = re.compile(r"```yaml\n(engines:\n.*?)```", re.DOTALL)
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _examples() -> dict[str, tuple[str, str]]:
    """type -> (profile name, the YAML block holding it), the first example of each type."""
    found: dict[str, tuple[str, str]] = {}
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(ENGINE_PAGES.glob("*.md")))
    for block in _BLOCK.findall(text):
        for name, kind in re.findall(r"^  ([\w.-]+):\n    type: ([\w-]+)", block, re.MULTILINE):
            found.setdefault(kind, (name, block))
    return found


@pytest.mark.parametrize("kind", VENDORS)
def test_the_documented_profile_example_builds(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    examples = _examples()
    assert kind in examples, f"the engine pages have no profile example of type {kind}"
    name, block = examples[kind]
    (tmp_path / "engines.yaml").write_text(block, encoding="utf-8")
    for var in _ENV.findall(block):
        monkeypatch.setenv(var, f"test-value-of-{var.lower()}")
    profile = read_profiles(tmp_path / "engines.yaml")[name]
    key = profile.body.get("credentials_file")
    if isinstance(key, str) and kind.startswith("dialogflow"):
        (tmp_path / key).parent.mkdir(parents=True, exist_ok=True)
        _peer, google = google_server({})
        token_uri = "https://oauth2.googleapis.com/token"
        google.key_file((tmp_path / key).parent, token_uri=token_uri).rename(tmp_path / key)
    for stage in ("development", "published"):
        resolved = resolve_engine(name, tmp_path / "x.suite.yaml", stage, tmp_path)
        assert resolved.engine.type_name == kind and resolved.profile_public["stage"] == stage


def test_the_profiles_section_lists_every_engine_type() -> None:
    """The `type:` line of the engines.yaml outline names each registered engine type (it
    listed seven of thirteen: no kore, dialogflow-es/cx, rasa-pro, llm)."""
    from nlu_tui.engines.base import engine_types

    text = PROFILES_PAGE.read_text(encoding="utf-8")
    line = re.search(r"^    type: (.+)$", text, re.MULTILINE)
    assert line is not None
    listed = {t.strip() for t in line.group(1).split("|")}
    assert listed == set(engine_types())
