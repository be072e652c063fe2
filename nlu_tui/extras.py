"""Optional dependencies: what each vendor or feature needs beyond the core install.

``make start`` (and ``pip install nlu-tui``) installs the core: the workbench, the embedded
engine, Rasa, Rasa Pro, HTTP, Wit, LUIS, CLU and LLM engines, every file format and report but
the PNG plots. The rest are extras, named in ``pyproject.toml``:

| extra | package | for |
|---|---|---|
| ``lex`` | botocore | the ``lex`` engine (AWS SigV4 signing, AWS config files) |
| ``jwt`` | PyJWT + cryptography | the ``kore`` and ``dialogflow-*`` engines, ``kore`` commands |
| ``postgres`` | psycopg | a PostgreSQL run store (``--store postgresql://…``) |
| ``trackers`` | SQLAlchemy + psycopg | ``data successes`` from a Rasa tracker store |
| ``plots`` | matplotlib | the PNG plots of Rasa's reports and of the coverage histogram |
| ``web`` | textual-serve | ``nlu-tui web`` |
| ``all`` | all of the above | |

Code that needs one calls :func:`need` before importing it, so a missing package is one clear
message naming the extra (exit 2), before any work is done, never an ``ImportError``.
"""

from __future__ import annotations

import importlib.util

from nlu_tui.errors import InputError

PACKAGES = {
    "botocore": ("lex", "botocore"),
    "jwt": ("jwt", "PyJWT"),
    "psycopg": ("postgres", "psycopg"),
    "sqlalchemy": ("trackers", "SQLAlchemy"),
    "matplotlib": ("plots", "matplotlib"),
    "textual_serve": ("web", "textual-serve"),
}
"""Import name -> (the extra that installs it, its distribution's name)."""


class MissingExtra(InputError):
    """An optional dependency is not installed (the message names the extra)."""


def available(module: str) -> bool:
    """Whether ``module`` (a key of :data:`PACKAGES`) can be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent missing, or a module set to None
        return False


def need(module: str, what: str, field: str | None = None) -> None:
    """Raise :class:`MissingExtra` when ``module`` is not installed; ``what`` says what needs
    it ("the lex engine"), ``field`` where it was asked for (an option or a profile field)."""
    if available(module):
        return
    extra, dist = PACKAGES[module]
    raise MissingExtra(
        f"{what} needs the optional package {dist}, which is not installed: "
        f"pip install 'nlu-tui[{extra}]' (or 'nlu-tui[all]'; "
        f"in a clone's make start venv, which has no pip: make extra NAME={extra})",
        field=field,
    )
