"""Keys typed while the widget that should get them is still being built are held, then delivered.

Textual forwards each key to the widget focused when the app reads it. A dialog pushed by one
key has no focused widget until it is composed and mounted; the cases table does not exist
until its worker has built it; a field that takes ``Tab`` (to accept a completion or move on)
decides only once it has read the characters queued before the ``Tab``. Keys read in those
moments went to the screen (and were dropped) or to the old field.

A key also travels: Textual forwards it to the focused widget, which uses it (a character typed
into a field) or lets it bubble up, widget by widget, back to the app, where the bindings run
(``backspace`` deletes in a field by its binding). The keys read meanwhile were forwarded at
once and a character overtook the key before it: ``backspace 5`` typed into a field holding
``1`` left ``1`` (``15``, then the backspace). While a key is on its way (:meth:`KeyHold.follow`),
the keys read behind it are held, so each key is used before the next one is delivered.

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
from textual.message_pump import MessagePump
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

KEY_ON_ITS_WAY_SECONDS = 2.0
"""At most this long are keys held behind one still on its way through the widgets."""

BINDING = "binding"
"""The hold reason of an app binding being run (see ``NluTuiApp.on_event``)."""

ON_ITS_WAY = "key-on-its-way"
"""The hold reason of :meth:`KeyHold.follow`."""


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
        self._on_its_way: events.Key | None = None

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

    def first(self, event: events.Key) -> bool:
        """Keep ``event`` ahead of the held keys when a hold other than an app binding's is
        open (a dialog being built); False to let it through now."""
        if not any(reason != BINDING for reason in self._holds):
            return False
        self.held.insert(0, events.Key(event.key, event.character))
        return True

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

    # --- a key on its way ---------------------------------------------------------------------

    def follow(self, event: events.Key, target: MessagePump) -> None:
        """``event`` was just forwarded to ``target`` (the focused widget or the screen): hold
        the keys read behind it until a widget has used it or it came back up to the app
        (:meth:`landed`)."""
        self._on_its_way = event
        self.hold(ON_ITS_WAY, KEY_ON_ITS_WAY_SECONDS)
        self._follow(event, target)

    def _follow(self, event: events.Key, node: MessagePump) -> None:
        # A callback queued behind the key runs once ``node`` has handled it (queues are FIFO)
        if not node.call_later(self._passed, event, node):
            self.landed(event)  # closing: the key goes no further

    def _passed(self, event: events.Key, node: MessagePump) -> None:
        """``node`` has handled ``event``: it was used there, or it now waits in the parent's
        queue (Textual posts it up before the next message of ``node`` is read)."""
        if self._on_its_way is not event:
            return
        parent = node._parent
        if parent is None:  # the app itself: the key came back (or a screen used it)
            self.landed(event)
            return
        if parent is not self.app and (event._stop_propagation or not node.is_attached):
            self.landed(event)  # used by ``node`` (or dropped with it)
            return
        # A screen stops every key it passes up to the app, so its stop flag tells nothing:
        # the app reads the key before this callback, if it was passed up
        self._follow(event, parent)

    def landed(self, event: events.Key) -> None:
        """``event`` has been used, or came back to the app: the keys behind it may go."""
        if self._on_its_way is event:
            self._on_its_way = None
            self.release(ON_ITS_WAY)

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
