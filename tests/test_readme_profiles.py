"""README's profile example for each vendor engine is a working profile: read, checked and
built (both versions) as a run would, so the documentation cannot drift from the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_engines_dialogflow import google_server

from nlu_tui.engines.profiles import read_profiles, resolve_engine

README = Path(__file__).resolve().parents[1] / "README.md"
VENDORS = ("wit", "luis", "clu", "lex", "kore", "dialogflow-es", "dialogflow-cx")
_BLOCK = re.compile(r"```yaml\n(engines:\n.*?)```", re.DOTALL)
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _examples() -> dict[str, tuple[str, str]]:
    """type -> (profile name, the YAML block holding it), the first example of each type."""
    found: dict[str, tuple[str, str]] = {}
    for block in _BLOCK.findall(README.read_text(encoding="utf-8")):
        for name, kind in re.findall(r"^  ([\w.-]+):\n    type: ([\w-]+)", block, re.MULTILINE):
            found.setdefault(kind, (name, block))
    return found


@pytest.mark.parametrize("kind", VENDORS)
def test_the_readme_profile_example_builds(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    examples = _examples()
    assert kind in examples, f"README has no profile example of type {kind}"
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
    """The `type:` line of README's "Profiles (`engines.yaml`)" block names every engine type
    a profile can have (it stopped at lex: no llm, rasa-pro, dialogflow, kore...)."""
    from nlu_tui.engines.profiles import engine_types

    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Profiles (`engines.yaml`)") :]
    line = next(ln for ln in section.splitlines() if ln.strip().startswith("type:"))
    listed = {t.strip() for t in line.split(":", 1)[1].split("|")}
    assert set(engine_types()) <= listed, sorted(set(engine_types()) - listed)
