"""Where the run store lives: an SQLite file (the default) or a PostgreSQL database.

The store is named by a URL: ``sqlite:///relative/file``, ``sqlite:////absolute/file`` (as
SQLAlchemy writes them) or ``postgresql://user@host:port/db``. It comes from, first to last:
the CLI's ``--store URL`` (which sets :data:`ENV_VAR`), the ``NLU_TUI_STORE_URL`` environment
variable, ``store:`` in settings.yaml, else the SQLite file in the data folder. A password is
never shown: every message names the store by :func:`redact`'s form of the URL, and settings.yaml
may not hold one (libpq reads ``PGPASSWORD`` and ``~/.pgpass``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from nlu_tui import paths
from nlu_tui.errors import NluTuiError

ENV_VAR = "NLU_TUI_STORE_URL"
SETTINGS_KEY = "store"
_PG_SCHEMES = ("postgresql", "postgres")


class StoreUrlError(NluTuiError):
    """A store URL that names no usable backend (one line; the password is never in it)."""


@dataclass(frozen=True)
class StoreLocation:
    """A parsed store URL: ``backend`` is ``sqlite`` (with ``path``) or ``postgresql``."""

    backend: str
    url: str
    path: Path | None = None

    @property
    def label(self) -> str:
        """What messages call the store: the file, or the URL without its password."""
        return str(self.path) if self.path is not None else redact(self.url)

    @property
    def password(self) -> str | None:
        if self.backend != "postgresql":
            return None
        try:
            return urlsplit(self.url).password
        except ValueError:
            return None


def redact(url: str) -> str:
    """The URL with any password replaced by ``***`` (also in a ``password=`` parameter)."""
    text = re.sub(r"(?i)(password=)[^&\s]*", r"\1***", url)
    try:
        parts = urlsplit(text)
        password = parts.password
    except ValueError:
        return re.sub(r"//([^:/@]*):[^@/]*@", r"//\1:***@", text)
    if password is None:
        return text
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))


def scrub(text: str, location: StoreLocation | None) -> str:
    """A message with the store's password (if any) removed wherever it appears."""
    if location is not None and location.password:
        text = text.replace(location.password, "***")
    return re.sub(r"(?i)(postgres(?:ql)?://[^\s\"']+)", lambda m: redact(m.group(1)), text)


def parse(url: str) -> StoreLocation:
    """The location a store URL names; a plain path is an SQLite file."""
    text = url.strip()
    if not text:
        raise StoreUrlError("the store URL is empty")
    scheme = text.split("://", 1)[0].lower() if "://" in text else ""
    if not scheme:
        return StoreLocation("sqlite", f"sqlite:///{text}", Path(text).expanduser())
    if scheme == "sqlite":
        rest = text[len("sqlite://") :]
        if not rest.startswith("/") or rest == "/":
            raise StoreUrlError(
                f"{text!r}: an SQLite store URL is sqlite:///relative/file or sqlite:////abs/file"
            )
        return StoreLocation("sqlite", text, Path(rest[1:]).expanduser())
    if scheme in _PG_SCHEMES:
        try:
            parts = urlsplit(text)
            _ = parts.port  # a port that is not a number raises here
        except ValueError as exc:
            raise StoreUrlError(f"{redact(text)}: not a valid PostgreSQL URL ({exc})") from None
        return StoreLocation("postgresql", text)
    raise StoreUrlError(
        f"{redact(text)}: unknown store URL scheme {scheme!r}; use sqlite:///FILE or "
        "postgresql://USER@HOST/DB"
    )


def _from_settings() -> str | None:
    from nlu_tui.formats import yaml_loader

    path = paths.settings_path()
    if not path.is_file():
        return None
    try:
        raw = yaml_loader.load(path.read_text(encoding="utf-8"), path)
    except (OSError, UnicodeDecodeError):
        return None
    value = raw.get(SETTINGS_KEY) if isinstance(raw, dict) else None
    if value is None:
        return None
    if not isinstance(value, str):
        raise StoreUrlError(f"{path}: field {SETTINGS_KEY!r}: a store URL is a string")
    location = parse(value)
    if location.password:
        raise StoreUrlError(
            f"{path}: field {SETTINGS_KEY!r}: holds a password; remove it and give it with "
            "PGPASSWORD or ~/.pgpass (passwords are never kept in settings)"
        )
    return value


def configured() -> StoreLocation:
    """The store this process uses (``--store``, ``NLU_TUI_STORE_URL``, settings, default)."""
    url = os.environ.get(ENV_VAR) or _from_settings()
    if url:
        return parse(url)
    path = paths.store_path()
    return StoreLocation("sqlite", f"sqlite:///{path}", path)


def resolve(where: Path | str | None) -> StoreLocation:
    """A :class:`Path` is an SQLite file, a string a URL (or a path), None the configured one."""
    if where is None:
        return configured()
    if isinstance(where, Path):
        return StoreLocation("sqlite", f"sqlite:///{where}", where)
    return parse(where)
