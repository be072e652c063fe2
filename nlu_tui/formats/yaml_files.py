"""The YAML files a conversation test path names, and one digest for all of them: shared by the
readers that take a file or a folder (E2E test cases, test stories, simulation scenarios)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import yaml

from nlu_tui.errors import InputError
from nlu_tui.formats import yaml_nodes as yn
from nlu_tui.model import digest_bytes

EXTENSIONS = (".yml", ".yaml")


def yaml_files(path: Path, holds: Callable[[str], bool]) -> list[Path]:
    """``path`` itself when it is a file; under a folder, the YAML files whose text ``holds``
    what a reader wants (sorted, as Rasa discovers them; an unreadable one is passed over)."""
    if path.is_dir():
        found = []
        for candidate in sorted(p for p in path.rglob("*") if p.suffix in EXTENSIONS):
            try:
                head = candidate.read_text(encoding="utf-8-sig", errors="replace")
            except OSError:
                continue
            if holds(head):
                found.append(candidate)
        return found
    if not path.exists():
        raise InputError("no such file or directory", path=path)
    return [path]


def joined_digest(digests: Sequence[str]) -> str:
    """The digest of several files read as one (one file's own digest when there is one)."""
    return digests[0] if len(digests) == 1 else digest_bytes("\n".join(digests).encode())


def mapping_root(
    root: yaml.Node | None, path: Path, *, empty: str, not_mapping: str
) -> yaml.MappingNode:
    """The top level of a file, refusing an empty file or one that is not a mapping (the error
    says ``empty`` or ``not_mapping``, at the line of what stands there)."""
    if root is None:
        raise InputError(empty, path=path)
    if not isinstance(root, yaml.MappingNode):
        raise InputError(not_mapping, path=path, line=yn.line_of(root))
    return root
