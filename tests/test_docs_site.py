"""The documentation site (mkdocs.yml, docs/) covers what the program has, and builds strictly.

- every command and sub-command of ``nlu-tui`` has a reference page that shows its ``--help``
  (the build hook, docs/_hooks/cli_help.py, writes it from the parser itself);
- every registered engine type and file format has its reference page, in the nav;
- ``mkdocs build --strict`` passes, and a broken link or anchor makes it fail;
- README.md (outside the site, so mkdocs does not check it) is short and links only to files
  that exist.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from nlu_tui.cli.main import build_parser
from nlu_tui.engines.base import engine_types
from nlu_tui.formats.registry import FORMAT_MODULES

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
REFERENCE = DOCS / "reference"
MARKER = re.compile(r"^<!-- nlu-tui-help:(?P<command>[^>]*)-->$", re.MULTILINE)

FORMAT_PAGES = {"kore-json": "kore", "kore-csv": "kore"}
"""Formats documented together (Kore.ai's JSON and CSV share one page); the rest: NAME.md."""


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[str]:
    """Every runnable command: a parser without sub-commands (``data split`` is only a group)."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not groups:
        yield " ".join(path)
    for group in groups:
        for name, sub in group.choices.items():
            yield from _commands(sub, (*path, name))


def _nav_pages() -> set[str]:
    """Every page named in mkdocs.yml's nav."""

    def walk(node: object) -> Iterator[str]:
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)
        elif isinstance(node, dict):
            for value in node.values():
                yield from walk(value)

    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    return set(walk(config["nav"]))


def test_every_command_has_a_page_showing_its_help() -> None:
    marked: dict[str, Path] = {}
    for page in (REFERENCE / "commands").glob("*.md"):
        for match in MARKER.finditer(page.read_text(encoding="utf-8")):
            marked.setdefault(match["command"].strip(), page)
    commands = set(_commands(build_parser()))
    assert commands <= set(marked), f"commands without a reference page: {commands - set(marked)}"
    nav = _nav_pages()
    for command in commands:
        page = marked[command].relative_to(DOCS).as_posix()
        assert page in nav, f"{page} ({command or 'nlu-tui'}) is not in mkdocs.yml's nav"


def test_every_engine_type_and_format_has_a_page_in_the_nav() -> None:
    nav = _nav_pages()
    for kind in engine_types():
        assert f"reference/engines/{kind}.md" in nav, f"engine type {kind} has no page"
    for name in FORMAT_MODULES:
        page = f"reference/formats/{FORMAT_PAGES.get(name, name)}.md"
        assert page in nav, f"format {name} has no page"


def _mkdocs(site: Path, config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(REPO)},
    )


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    done = _mkdocs(tmp_path / "site", REPO / "mkdocs.yml")
    assert done.returncode == 0, done.stderr
    run_page = (tmp_path / "site" / "reference" / "commands" / "run" / "index.html").read_text(
        encoding="utf-8"
    )
    assert "usage: nlu-tui run" in run_page  # the hook wrote the command's help


@pytest.mark.slow
@pytest.mark.parametrize(
    "broken",
    [
        "[a page that is not there](reference/nowhere.md)",
        "[an anchor that is not there](reference/metrics.md#no-such-section)",
    ],
)
def test_a_broken_link_fails_the_build(tmp_path: Path, broken: str) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(DOCS, copy / "docs")
    shutil.copy(REPO / "mkdocs.yml", copy / "mkdocs.yml")
    index = copy / "docs" / "index.md"
    index.write_text(index.read_text(encoding="utf-8") + f"\n{broken}\n", encoding="utf-8")
    done = _mkdocs(tmp_path / "site", copy / "mkdocs.yml")
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "Aborted with 1 warnings in strict mode" in output, output


def test_the_readme_is_short_and_its_links_resolve() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 250
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    assert targets
    for target in targets:
        if "://" in target:
            continue
        path = target.split("#", 1)[0]
        assert (REPO / path).exists(), f"README.md links to {target}, which does not exist"


def test_the_readmes_test_command_is_make_test() -> None:
    """CI runs the README's test command: it stays `make test` (lint, docs, every test)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^make test +# ", text, re.MULTILINE)
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^test: .*\bdocs\b", makefile, re.MULTILINE)
