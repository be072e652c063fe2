"""Keys typed while the widget that should get them is still being built are held, then delivered.

Textual forwards each key to the widget focused when the app reads it. A dialog pushed by one
key has no focused widget until it is composed and mounted; the cases table does not exist
until its worker has built it; a field that takes ``Tab`` (to accept a completion or move on)
decides only once it has read the characters queued before the ``Tab``. Keys read in those
moments went to the screen (and were dropped) or to the old field.

:class:`KeyHold` (owned by the app) keeps such keys in order while any *hold* is open and
replays them through the app's normal key path once the last hold is released, so they land
where the user was looking. Every hold ends on its own after a timeout, so a hold that is never
released delays keys but never loses them. The app's priority keys (quit) are never held.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.screen import Screen
from textual.timer import Timer

SCREEN_HOLD_SECONDS = 3.0
"""At most this long are keys held for a new screen to get its focus."""

TABLE_HOLD_SECONDS = 10.0
"""At most this long are keys held for the cases table being built (a very big suite)."""

FIELD_HOLD_SECONDS = 0.5
"""At most this long are keys held for a field deciding what its ``Tab`` does."""

BINDING_HOLD_SECONDS = 0.5
"""At most this long are keys held for an app binding's effect (a focus move) to take place."""


class KeyHold:
    """Holds the keys read while any hold is open, and replays them when none is."""

    def __init__(self, app: App[Any], dispatch: Callable[[events.Key], Awaitable[None]]):
        self.app = app
        self._dispatch = dispatch
        self._holds: dict[str, Timer | None] = {}
        self.held: list[events.Key] = []
        self.replayed = 0
        """Keys delivered after a hold (tests and the benchmark read it)."""
        self._replaying = False

    @property
    def holding(self) -> bool:
        return bool(self._holds) or self._replaying

    def hold(self, reason: str, seconds: float) -> None:
        """Open (or renew) the hold ``reason``; it ends by :meth:`release` or after ``seconds``."""
        old = self._holds.get(reason)
        if old is not None:
            old.stop()
        self._holds[reason] = self.app.set_timer(seconds, lambda: self.release(reason))

    def release(self, reason: str) -> None:
        """End the hold ``reason``; with no hold left, the held keys are replayed (after the
        messages already queued, such as a focus change, have been handled)."""
        timer = self._holds.pop(reason, None)
        if timer is not None:
            timer.stop()
        if not self._holds and self.held and not self._replaying:
            self._replaying = True
            self.app.call_later(self._replay)

    def take(self, event: events.Key) -> bool:
        """Keep ``event`` for later when a hold is open; False to let it through now."""
        if not self.holding:
            return False
        self.held.append(events.Key(event.key, event.character))
        return True

    async def _replay(self) -> None:
        keys, self.held = self.held, []
        self._replaying = False
        for n, key in enumerate(keys):
            if self._holds:  # a replayed key opened a new hold: the rest wait again, in order
                self.held[:0] = keys[n:]
                return
            self.replayed += 1
            await self._dispatch(key)

    # --- screens -------------------------------------------------------------------------------

    def screen_changed(self, screen: Screen[object]) -> None:
        """A screen came on top: hold keys until it has mounted and taken its focus."""
        if screen.is_mounted and screen.focused is not None:
            return
        reason = f"screen-{id(screen)}"
        self.hold(reason, SCREEN_HOLD_SECONDS)
        self._when_ready(screen, reason, tries=0)

    def _when_ready(self, screen: Screen[object], reason: str, tries: int) -> None:
        if reason not in self._holds:
            return
        ready = screen.is_mounted and (screen.focused is not None or tries >= 3)
        if ready or (not screen.is_attached and tries):
            self.release(reason)
            return
        screen.call_after_refresh(self._when_ready, screen, reason, tries + 1)


def hold_keys(node: DOMNode, reason: str, seconds: float) -> None:
    """Open the hold ``reason`` in ``node``'s app (a no-op in an app without key holds)."""
    hold: KeyHold | None = getattr(node.app, "key_hold", None)
    if hold is not None:
        hold.hold(reason, seconds)


def release_keys(node: DOMNode, reason: str) -> None:
    """Release the hold ``reason`` in ``node``'s app (a no-op when it is not open)."""
    hold: KeyHold | None = getattr(node.app, "key_hold", None)
    if hold is not None:
        hold.release(reason)
