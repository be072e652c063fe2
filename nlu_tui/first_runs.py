"""A newly imported suite runs at once against both versions of its engine.

Seed 000 (Kore.ai Batch Testing): "Once you create a new test batch test suite, by default, the
system automatically initiates test run execution for both In-development and Published VA
versions." Here the engine is an ``engines.yaml`` profile visible from the suite (beside it,
in the workspace, in the user config folder; the first file naming a profile wins):

- profiles with ``new_suites: true`` take part;
- with none marked, the only profile visible takes part (on by default, as in Kore.ai), unless
  it says ``new_suites: false``;
- several profiles and none marked: nothing runs, and :attr:`FirstRuns.reason` says how to
  pick one.

Each engine runs the suite twice, ``development`` then ``published`` (the stage picks the
version: a profile's ``published:`` overrides, Kore.ai's published tasks, Dialogflow's
environment...). The runs are ordinary runs of the run service (:func:`requests` gives
the :class:`~nlu_tui.runservice.RunRequest` of each): both faces start them with ``open_run``.
A suite with no cases has nothing to run. No Textual here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nlu_tui.engines.profiles import NEW_SUITES_KEY, STAGES, profile_files, read_profiles
from nlu_tui.errors import InputError

if TYPE_CHECKING:
    from nlu_tui.runservice import RunRequest

SETTING = NEW_SUITES_KEY
"""The profile key that turns the first runs on (true) or off (false) for that profile."""
NOTE = "first run of a new suite"


@dataclass(frozen=True)
class FirstRuns:
    """Which engines a new suite runs on at once, and why (one line for the user)."""

    engines: list[str] = field(default_factory=list)
    reason: str = ""
    stages: tuple[str, ...] = STAGES

    def __bool__(self) -> bool:
        return bool(self.engines)

    def requests(
        self, suite_path: Path, workspace: Path | None = None, note: str = NOTE
    ) -> list[RunRequest]:
        """One run request per engine and version, development first."""
        from nlu_tui.runservice import RunRequest

        return [
            RunRequest(
                suite_path=suite_path, engine=engine, stage=stage, note=note, workspace=workspace
            )
            for engine in self.engines
            for stage in self.stages
        ]


def plan_first_runs(suite_path: Path, workspace: Path | None = None) -> FirstRuns:
    """The engines the new suite at ``suite_path`` runs on at once (none when no profile is
    configured for it, or ``engines.yaml`` cannot be read: the reason says so)."""
    marked: list[str] = []
    off: list[str] = []
    seen: list[str] = []
    try:
        for path in profile_files(suite_path, workspace):
            for name, profile in read_profiles(path).items():
                if name in seen:
                    continue  # the first file naming a profile wins, as when a run resolves it
                seen.append(name)
                setting = profile.body.get(SETTING)
                if setting is True:
                    marked.append(name)
                elif setting is False:
                    off.append(name)
    except InputError as exc:
        return FirstRuns(reason=f"no first runs: {exc}")
    both = " and ".join(STAGES)
    if marked:
        return FirstRuns(marked, f"runs on {', '.join(marked)} ({both}): marked {SETTING}: true")
    if len(seen) == 1 and not off:
        return FirstRuns(seen, f"runs on {seen[0]} ({both}): the only engine profile")
    if not seen:
        return FirstRuns(reason="no first runs: no engine profile (engines.yaml) for this suite")
    if len(seen) == 1:
        return FirstRuns(reason=f"no first runs: profile {seen[0]} says {SETTING}: false")
    return FirstRuns(
        reason=f"no first runs: {len(seen)} engine profiles and none says {SETTING}: true"
    )
