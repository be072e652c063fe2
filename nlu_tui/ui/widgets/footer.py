"""A footer that shows only as many keys as fit on one line.

Textual's Footer cannot wrap (textual#3762): at 80 columns the last keys are cut in half
("?/F1 Hel"). This one keeps the focused pane's first keys, then Help and Quit, and stops
before the line would overflow; every other key is listed by the help screen (``?``/F1) and
the command palette.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

MAX_KEYS = 6
"""The most keys shown, whatever the width (style anchors: 5–7 main bindings)."""

ALWAYS = ("main.run-suite", "app.help", "app.quit")
"""Binding ids shown last on every screen (when they are active): running the selected suite
(F5, "Run Test Suite") is found in the footer wherever the focus is."""

PALETTE_WIDTH = 14
"""Columns taken by the command-palette key docked on the right ("▏^p palette")."""


class BudgetFooter(Footer):
    """Footer limited to :data:`MAX_KEYS` keys and to the terminal's width."""

    _shown: tuple[tuple[str, str, bool], ...] | None = None

    def _pick(self) -> list[tuple[Binding, bool, str]]:
        """The focused pane's first keys, then Help and Quit, within the width and the cap."""
        seen: set[str] = set()
        pane: list[tuple[Binding, bool, str]] = []
        always: dict[str, tuple[Binding, bool, str]] = {}
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            if binding.id in ALWAYS:
                always[binding.id] = (binding, enabled, tooltip)
            else:
                pane.append((binding, enabled, tooltip))
        tail = [always[i] for i in ALWAYS if i in always]
        budget = max(self.app.size.width, 40) - PALETTE_WIDTH
        budget -= sum(self._width(b) for b, _, _ in tail)
        chosen: list[tuple[Binding, bool, str]] = []
        for item in pane:
            if len(chosen) + len(tail) >= MAX_KEYS or self._width(item[0]) > budget:
                break
            budget -= self._width(item[0])
            chosen.append(item)
        return chosen + tail

    @staticmethod
    def _signature(shown: list[tuple[Binding, bool, str]]) -> tuple[tuple[str, str, bool], ...]:
        return tuple((b.key, b.description, enabled) for b, enabled, _ in shown)

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Recompose only when the keys shown change (focus moves often during start-up and
        every recompose restyles each key)."""
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if self._signature(self._pick()) != self._shown:
            self._recompose_soon()

    _recompose_queued = False

    def _recompose_soon(self) -> None:
        """Recompose after the next refresh, once however many changes come before it (a
        key that moves the focus and switches tabs changes the bindings three or four times
        in one step; each queued a recompose of its own)."""
        if not self._recompose_queued:
            self._recompose_queued = True
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._recompose_queued = False
        if not self.is_attached:
            return
        shown = self._pick()
        signature = self._signature(shown)
        if signature == self._shown:
            return
        if self._relabel(shown):
            self._shown = signature
            return
        await self.recompose()

    def _relabel(self, shown: list[tuple[Binding, bool, str]]) -> bool:
        """Show ``shown`` in the keys on screen, when there are as many: a focus move (``d``
        from the results table to the detail pane) changes the keys, rarely their number, and
        a recompose removed, mounted and styled every key and laid the screen out twice.
        False when the number differs (then the footer is recomposed)."""
        keys = [k for k in self.query_children(FooterKey) if not k.has_class("-command-palette")]
        if len(keys) != len(shown):
            return False
        for widget, (binding, enabled, tooltip) in zip(keys, shown, strict=True):
            new = (binding.key, self.app.get_key_display(binding), binding.description)
            if (widget.key, widget.key_display, widget.description) != new:
                widget.key, widget.key_display, widget.description = new
                widget.refresh(layout=True)
            widget.action = binding.action
            widget._disabled = not enabled  # FooterKey's own flag (a click rings the bell)
            widget.set_class(not enabled, "-disabled")
            widget.tooltip = tooltip or None
        return True

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        shown = self._pick()
        self._shown = self._signature(shown)
        self.styles.grid_size_columns = len(shown)
        for binding, enabled, tooltip in shown:
            classes = "-compact" if self.compact else ""
            yield born_compact(
                self._key(binding, enabled, tooltip, classes), self.compact
            ).data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            try:
                _node, binding, enabled, _tip = self.screen.active_bindings[
                    self.app.COMMAND_PALETTE_BINDING
                ]
            except KeyError:
                return
            tooltip = binding.tooltip or binding.description
            palette = self._key(binding, enabled, tooltip, "-command-palette -compact")
            yield born_compact(palette, True)  # Textual's default for a key not bound to it

    def _key(self, binding: Binding, enabled: bool, tooltip: str, classes: str) -> FooterKey:
        return FooterKey(
            binding.key,
            self.app.get_key_display(binding),
            binding.description,
            binding.action,
            classes=classes,
            disabled=not enabled,
            tooltip=tooltip,
        )

    def _width(self, binding: Binding) -> int:
        return len(self.app.get_key_display(binding)) + len(binding.description) + 3

    def on_resize(self) -> None:
        """A wider or narrower terminal fits a different number of keys."""
        if self._bindings_ready and self._signature(self._pick()) != self._shown:
            self._recompose_soon()


def born_compact(key: FooterKey, compact: bool) -> FooterKey:
    """``key`` with its ``compact`` state set before it is mounted (its classes must match).

    A FooterKey starts compact and its watcher sets the ``-compact`` class when it is mounted,
    then once more when bound to a non-compact footer: each is a restyle of the key, and a
    footer change (every focus move that shows other keys) paid two per key, most of its
    cost (issue 23, fast keys). Set here, the watcher has nothing to change."""
    key.set_reactive(FooterKey.compact, compact)
    return key
