"""Every private API of a pinned library that nlu-tui relies on, tested directly.

textual, textual-fastdatatable, httpx and httpx-aiohttp are pinned exactly (pyproject.toml,
requirements.lock) because the code reaches into their internals. Each test names the private
attribute or behaviour it relies on and fails loudly when an upgrade changes it, instead of
leaving a table showing stale rows, a footer without keys or a slow path nobody notices.
Upgrading one of those libraries means making this file pass again.
"""

from __future__ import annotations

import argparse
import inspect
import logging
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from runner_loopback import LoopbackNlu
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.reactive import Reactive
from textual.widgets import Footer, Input
from textual_fastdatatable import ArrowBackend, DataTable

from nlu_tui.engines.httpcall import _direct_transport, _send
from nlu_tui.formats.native_reader import SuiteLoader
from nlu_tui.runner.client import make_client
from nlu_tui.ui.widgets.fast_table import swap_backend
from nlu_tui.ui.widgets.footer import BudgetFooter

# --- the pins themselves ---------------------------------------------------------------------

REPO = Path(__file__).resolve().parent.parent
PINNED = ("textual", "textual-fastdatatable", "httpx", "httpx-aiohttp", "textual-serve")


def _lock() -> dict[str, str]:
    out = {}
    for line in (REPO / "requirements.lock").read_text(encoding="utf-8").splitlines():
        name, sep, version = line.partition("==")
        if sep and not line.startswith("#"):
            out[name.strip().lower().replace("_", "-")] = version.strip()
    return out


def test_private_api_libraries_are_pinned_locked_and_installed() -> None:
    """pyproject.toml pins each library this file tests with ==, requirements.lock holds the
    same version, and that version is the one installed (so these tests test the pin)."""
    import tomllib
    from importlib.metadata import version

    deps = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    every = [*deps["dependencies"], *(d for e in deps["optional-dependencies"].values() for d in e)]
    pins = {d.split("==")[0].split("[")[0]: d.split("==")[1] for d in every if "==" in d}
    lock = _lock()
    for name in PINNED:
        assert name in pins, f"{name} is not pinned with == in pyproject.toml"
        assert lock.get(name) == pins[name], f"requirements.lock disagrees on {name}"
        assert version(name) == pins[name], f"installed {name} is not the pinned version"


def test_the_lock_pins_every_installed_dependency() -> None:
    """Every package the lock names has an exact version (transitive ones included)."""
    lines = [
        line
        for line in (REPO / "requirements.lock").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines and all("==" in line for line in lines), lines
    assert {"textual", "pytest-xdist", "rich", "aiohttp", "pyyaml"} <= set(_lock())


# --- textual-fastdatatable: fast_table.swap_backend -----------------------------------------

FASTDATATABLE_PRIVATES = (
    "_column_labels",
    "_ordered_columns",
    "_update_count",
    "_require_update_dimensions",
)


def test_fastdatatable_table_has_the_private_state_swap_backend_resets() -> None:
    """swap_backend assigns DataTable._column_labels, _ordered_columns, _update_count and
    _require_update_dimensions, and calls _clear_caches(): assigning a renamed attribute would
    silently create a new one, so check they exist on a fresh table."""
    table = DataTable(backend=ArrowBackend.from_pydict({"a": ["x"]}), column_labels=["A"])
    state = vars(table)
    for name in FASTDATATABLE_PRIVATES:
        assert name in state, f"textual_fastdatatable.DataTable lost {name}"
    assert isinstance(state["_update_count"], int)
    assert callable(getattr(table, "_clear_caches", None)), "DataTable._clear_caches is gone"


class _OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield DataTable(
            backend=ArrowBackend.from_pydict({"a": ["old1", "old2", "old3"]}),
            column_labels=["Old"],
        )


async def test_fastdatatable_swap_backend_drops_cached_rows() -> None:
    """Without DataTable._clear_caches() or the _update_count bump, a backend of the same shape
    shows the old rows (the row render cache is keyed on the update count)."""
    app = _OneTable()
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(DataTable)
        await pilot.pause()
        assert table.render_line(1).text.strip() == "old1"
        swap_backend(table, ArrowBackend.from_pydict({"a": ["new1", "new2", "new3"]}))
        await pilot.pause()
        assert [table.render_line(y).text.strip() for y in range(1, 4)] == [
            "new1",
            "new2",
            "new3",
        ]


async def test_fastdatatable_swap_backend_new_labels_and_cursor() -> None:
    """DataTable._column_labels and _ordered_columns = None give the header its new labels;
    the cursor is clamped to the new row count."""
    app = _OneTable()
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(DataTable)
        await pilot.pause()
        table.move_cursor(row=2)
        swap_backend(
            table, ArrowBackend.from_pydict({"a": ["new1", "new2"]}), column_labels=["New"]
        )
        await pilot.pause()
        assert [table.render_line(y).text.strip() for y in range(4)] == ["New", "new1", "new2", ""]
        assert table.row_count == 2
        assert table.cursor_row == 1


async def test_fastdatatable_swap_backend_resizes_the_scroll_area() -> None:
    """DataTable._require_update_dimensions makes a longer backend scrollable to its end."""
    app = _OneTable()
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(DataTable)
        await pilot.pause()
        swap_backend(table, ArrowBackend.from_pydict({"a": [f"new{i}" for i in range(50)]}))
        await pilot.pause()
        assert table.virtual_size.height == 51  # header + 50 rows
        table.move_cursor(row=49)
        await pilot.pause()
        assert table.render_line(9).text.strip() == "new49"


# --- textual-fastdatatable: the caches fast_table.WideTable keeps across a focus change -------


async def test_fastdatatable_render_caches_that_wide_table_keeps_on_a_focus_change() -> None:
    """``WideTable`` (fast_table.wide_table_class) overrides ``notify_style_update`` (what
    Textual calls on every style change, the focus's included; fastdatatable clears every cache
    there), ``get_pseudo_class_state`` (fastdatatable's ``render_lines`` keys its caches on it,
    as ``_pseudo_class_state``), ``_get_row_style(row_index, base_style)`` and ``rich_style``
    (read by ``render_line`` for every line); it drops from ``_cell_render_cache`` the keys
    whose [0] is the row (-1: the header) and [3] the cursor flag, and clears
    ``_row_render_cache``, ``_line_cache``, ``_styles_cache`` and the lru-cached
    ``_get_styles_to_render_cell``."""
    from textual_fastdatatable.data_table import CellCacheKey

    from nlu_tui.ui.widgets.fast_table import wide_table_class

    source = inspect.getsource(DataTable)
    assert "self._pseudo_class_state = self.get_pseudo_class_state()" in source
    assert "self._render_line(y, scroll_x, scroll_x + width, self.rich_style)" in source
    assert "row_style = self._get_row_style(row_index, base_style)" in source
    assert list(inspect.signature(DataTable._get_row_style).parameters) == [
        "self",
        "row_index",
        "base_style",
    ]
    clear = inspect.getsource(DataTable._clear_caches)
    for name in ("_row_render_cache", "_cell_render_cache", "_line_cache", "_styles_cache"):
        assert f"self.{name}.clear()" in clear, name
    assert "self._get_styles_to_render_cell.cache_clear()" in clear
    assert "self._clear_caches()" in inspect.getsource(DataTable.notify_style_update)
    assert CellCacheKey.__args__[0] is int and CellCacheKey.__args__[3] is bool  # row, cursor

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield wide_table_class()(
                backend=ArrowBackend.from_pydict({"a": ["x", "y", "z"]}),
                column_labels=["A"],
                cursor_type="row",
            )

    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(DataTable)
        table.focus()
        await pilot.pause()
        await pilot.pause()
        keys = list(table._cell_render_cache.keys())
        assert {(k[0], k[3]) for k in keys} == {(-1, False), (0, True), (1, False), (2, False)}
        assert all(isinstance(k[-1], type(table._pseudo_class_state)) for k in keys)
        assert len(table._row_render_cache) and len(table._line_cache)


# --- textual: the footer (widgets/footer.py) ------------------------------------------------


def test_textual_footer_private_module_and_ready_flag() -> None:
    """footer.py imports FooterKey from the private module textual.widgets._footer, calls its
    constructor by these names, binds FooterKey.compact, and sets Footer._bindings_ready."""
    from textual.widgets._footer import FooterKey

    params = inspect.signature(FooterKey.__init__).parameters
    for name in ("key", "key_display", "description", "action", "disabled", "tooltip", "classes"):
        assert name in params, f"FooterKey() lost its {name!r} argument"
    assert isinstance(vars(Footer).get("_bindings_ready"), Reactive), "Footer._bindings_ready"
    assert isinstance(vars(FooterKey).get("compact"), Reactive), "FooterKey.compact"
    assert callable(vars(Footer).get("bindings_changed")), "Footer.bindings_changed"


def test_textual_footer_key_attributes_the_footer_relabels() -> None:
    """``BudgetFooter._relabel`` sets a mounted FooterKey's ``key``, ``key_display``,
    ``description``, ``action`` and ``_disabled`` (plus its ``-disabled`` class), which
    ``FooterKey.render`` and its click handler read."""
    from textual.widgets._footer import FooterKey

    key = FooterKey("a", "A", "Do", "do", disabled=True)
    assert (key.key, key.key_display, key.description, key.action) == ("a", "A", "Do", "do")
    assert vars(key)["_disabled"] is True and key.has_class("-disabled")
    render = inspect.getsource(FooterKey.render)
    assert "self.key_display" in render and "self.description" in render
    assert "self._disabled" in inspect.getsource(FooterKey.on_mouse_down)


class _TwoPanes(App[None]):
    BINDINGS = [Binding("f1", "help", "Help", id="app.help"), Binding("ctrl+q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield _KeyedInput(id="first")
        yield Input(id="second")
        yield BudgetFooter()

    def action_help(self) -> None:
        """Never pressed: the binding exists so the footer has Help to show."""


class _KeyedInput(Input):
    BINDINGS = [Binding("ctrl+e", "noop", "Edit")]

    def action_noop(self) -> None:
        """Never pressed: the binding only has to show in the footer."""


async def test_textual_footer_recomposes_on_bindings_changed() -> None:
    """Textual calls Footer.bindings_changed (subscribed in Footer.on_mount) when focus moves;
    BudgetFooter overrides it and composes textual.widgets._footer.FooterKey widgets."""
    from textual.widgets._footer import FooterKey

    app = _TwoPanes()
    async with app.run_test(size=(80, 10)) as pilot:
        app.query_one("#first").focus()
        await pilot.pause()
        await pilot.pause()
        footer = app.query_one(BudgetFooter)
        assert footer._bindings_ready
        shown = [key.description for key in footer.query(FooterKey)]
        assert "Edit" in shown and "Help" in shown
        app.query_one("#second").focus()
        await pilot.pause()
        await pilot.pause()
        shown = [key.description for key in footer.query(FooterKey)]
        assert "Edit" not in shown and "Help" in shown


# --- textual: the suggestion an Input shows (ui/widgets/inert_fields.TextField) --------------


async def test_textual_input_keeps_its_shown_suggestion_in_suggestion() -> None:
    """``TextField.completion`` reads ``Input._suggestion`` (the grey completion on screen) to
    accept it on Tab: typing a prefix of a suggested name fills it in."""
    from textual.suggester import SuggestFromList

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Input(suggester=SuggestFromList(["transfer_money"]))

    app = One()
    async with app.run_test() as pilot:
        await pilot.press(*"transfer_m")
        await pilot.pause()
        assert app.query_one(Input)._suggestion == "transfer_money"


# --- httpx / httpx-aiohttp: engines/httpcall.py and runner/client.py -----------------------


def test_httpx_transport_for_url_picks_the_clients_transport() -> None:
    """httpcall._direct_transport calls httpx.AsyncClient._transport_for_url; without it every
    request silently falls back to the slower AsyncClient.send."""
    from httpx_aiohttp import AiohttpTransport

    assert callable(getattr(httpx.AsyncClient, "_transport_for_url", None))
    transport = AiohttpTransport()
    client = httpx.AsyncClient(transport=transport)
    assert _direct_transport(client, httpx.URL("http://127.0.0.1:9/model/parse")) is transport


def _version_request(client: httpx.AsyncClient, url: str) -> httpx.Request:
    return client.build_request("GET", f"{url}/version")


async def test_httpx_direct_send_matches_client_send(caplog: pytest.LogCaptureFixture) -> None:
    """httpcall._send copies what httpx.AsyncClient._send_single_request does after
    _transport_for_url: the same answer, the 'HTTP Request:' log line, response.request and
    response.elapsed."""
    with LoopbackNlu() as server:
        client = make_client(concurrency=2, timeout=5)
        try:
            with caplog.at_level(logging.INFO, logger="httpx"):
                through_httpx = await client.send(_version_request(client, server.url))
                await through_httpx.aread()
                direct = await _send(client, _version_request(client, server.url))
        finally:
            await client.aclose()
    assert direct.status_code == through_httpx.status_code == 200
    assert direct.json() == through_httpx.json()
    assert direct.http_version == through_httpx.http_version
    assert direct.request.url == through_httpx.request.url
    assert direct.elapsed.total_seconds() >= 0
    lines = [r.getMessage() for r in caplog.records if r.name == "httpx"]
    assert len(lines) == 2 and lines[0] == lines[1], lines


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_httpx_aiohttp_connection_errors_keep_the_aiohttp_cause() -> None:
    """httpx_aiohttp.transport.map_aiohttp_exceptions turns a refused connection into
    httpx.ConnectTimeout raised ``from`` the aiohttp error; runner/retry.classify reads
    __cause__ for the real reason. (A plain http:// URL takes the run transport's own HTTP/1.1
    pool; without it, as for https://, the request goes through aiohttp's transport.)"""
    import aiohttp

    client = make_client(concurrency=1, timeout=5)
    client._transport.http1_pool = None  # type: ignore[attr-defined]
    try:
        with pytest.raises(httpx.TransportError) as caught:
            await _send(client, _version_request(client, f"http://127.0.0.1:{_closed_port()}"))
    finally:
        await client.aclose()
    assert isinstance(caught.value.__cause__, aiohttp.ClientConnectionError)
    assert caught.value.request.url.port is not None


# --- PyYAML: the resolver override in formats/native.py -------------------------------------

_TRICKY = """
plain: hello world
yes_: yes
no_: No
on_: on
null_: ~
empty:
int_: 0x1F
octal: 017
float_: 1_000.5
inf: .inf
date: 2024-01-02
stamp: 2024-01-02T03:04:05Z
bool_list: [true, False, y, n]
'quoted': '123'
neg: -12
merge_like: <<
nested:
  - {a: 1, b: [x, 2.5, null]}
"""


def _tags(node: yaml.Node) -> list[str]:
    out = [node.tag]
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            out += _tags(key) + _tags(value)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            out += _tags(item)
    return out


def test_yaml_resolver_override_types_like_safe_loader() -> None:
    """SuiteLoader reads Loader.yaml_implicit_resolvers (first character -> regexes) and
    yaml_path_resolvers, and overrides resolve(kind, value, implicit): tags must stay YAML 1.1's."""
    stock = yaml.compose(_TRICKY, Loader=yaml.SafeLoader)
    loader = SuiteLoader(_TRICKY)
    try:
        ours = loader.get_single_node()
    finally:
        loader.dispose()
    assert stock is not None and ours is not None
    assert _tags(ours) == _tags(stock)
    resolvers = SuiteLoader.yaml_implicit_resolvers
    assert isinstance(resolvers, dict) and "y" in resolvers and None not in resolvers
    assert SuiteLoader.yaml_path_resolvers == {}


def test_yaml_composer_calls_the_resolver_hooks() -> None:
    """The composer (libyaml's when available) calls resolve(kind, value, implicit) and
    descend_resolver(parent, index) / ascend_resolver() on the instance, which SuiteLoader
    replaces with cheap built-ins through the instance __dict__."""
    loader = SuiteLoader("a: [b, {c: d}]\n")
    assert loader.__dict__["descend_resolver"] is slice
    assert loader.__dict__["ascend_resolver"] is tuple
    calls: dict[str, list[tuple[Any, ...]]] = {"descend": [], "ascend": [], "resolve": []}
    plain_resolve = loader.resolve
    loader.__dict__["descend_resolver"] = lambda *a: calls["descend"].append(a)
    loader.__dict__["ascend_resolver"] = lambda *a: calls["ascend"].append(a)

    def resolve(*a: Any) -> Any:
        calls["resolve"].append(a)
        return plain_resolve(*a)

    loader.__dict__["resolve"] = resolve
    try:
        loader.get_single_node()
    finally:
        loader.dispose()
    assert calls["descend"] and all(len(a) == 2 for a in calls["descend"])
    assert calls["ascend"] and all(a == () for a in calls["ascend"])
    assert calls["resolve"] and all(len(a) == 3 for a in calls["resolve"])


# --- argparse (standard library): cli/main.py ----------------------------------------------


def _registered(parser: argparse.ArgumentParser) -> set[str]:
    """The command names a parser's subparsers hold (argparse keeps them in the private
    ``_actions`` list as an ``argparse._SubParsersAction`` whose ``choices`` map names)."""
    found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert found, "argparse no longer keeps subparsers in _actions"
    return set(found[0].choices)


def test_the_static_command_table_is_what_each_module_registers() -> None:
    """cli.main.COMMANDS names each module's commands so that one command builds only its own
    parser (and the workbench none); it must say exactly what ``register`` adds."""
    from nlu_tui.cli.main import COMMANDS, build_parser

    for names in COMMANDS.values():
        for name in names:
            assert _registered(build_parser(only=name)) == set(names), name
    assert _registered(build_parser()) == {n for names in COMMANDS.values() for n in names}


def test_one_command_imports_only_its_own_module() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from nlu_tui.cli.main import build_parser\n"
        "build_parser(only='analyze')\n"
        "print(sorted(m for m in sys.modules if m.startswith('nlu_tui.cli.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "nlu_tui.cli.analyze" in out.stdout
    assert "nlu_tui.cli.runs" not in out.stdout and "nlu_tui.cli.testing" not in out.stdout


async def test_textual_binding_chain_and_check_bindings_for_tab_typeahead() -> None:
    """NluTuiApp.on_event (keys typed right after Tab) reads Screen._modal_binding_chain as
    (node, BindingsMap) pairs with ``key_to_bindings``, and awaits App._check_bindings(key,
    priority=True). If either changes, Tab typeahead silently falls back to Textual's path."""
    assert inspect.iscoroutinefunction(App._check_bindings), "App._check_bindings"
    assert "priority" in inspect.signature(App._check_bindings).parameters
    app = _TwoPanes()
    async with app.run_test() as pilot:
        await pilot.pause()
        chain = app.screen._modal_binding_chain
        assert chain, "Screen._modal_binding_chain is empty"
        actions = set()
        for _node, bindings in chain:
            for binding in bindings.key_to_bindings.get("tab", ()):
                actions.add(binding.action)
        assert "app.focus_next" in actions or "focus_next" in actions, actions


async def test_textual_key_bubbling_that_key_hold_follows() -> None:
    """KeyHold.follow (nlu_tui.ui.keyhold) follows a key up the widgets: it reads
    ``MessagePump._parent`` and ``Message._stop_propagation`` once each node has handled the key
    (a callback queued behind it runs after it), and relies on Textual bubbling a key the node
    did not stop into the parent's queue before the node reads its next message. Without these,
    the keys behind one on its way are held until the hold's timeout (2 s)."""
    app = _TwoPanes()
    async with app.run_test() as pilot:
        await pilot.pause()
        field = app.focused
        assert isinstance(field, Input) and field._parent is field.parent
        parent = field._parent
        assert parent is not None and parent is not app
        seen: dict[str, tuple[bool, bool]] = {}

        def passed(key: events.Key) -> None:
            seen[key.key] = (key._stop_propagation, parent._message_queue.qsize() > 0)

        for name, char in (("x", "x"), ("backspace", None)):
            key = events.Key(name, char)
            key.set_sender(app)
            field._forward_event(key)
            field.call_later(passed, key)
            await pilot.pause()
            await pilot.pause()
        assert seen["x"][0] is True  # used by the field: stopped
        assert seen["backspace"] == (False, True)  # not used: already in the parent's queue


# --- textual-serve: nlu_tui.cli.web ----------------------------------------------------------


def test_textual_serve_server_hooks_that_web_overrides() -> None:
    """``nlu-tui web`` subclasses textual-serve's ``Server``: it extends the private
    ``_make_app`` (an async method returning the aiohttp app, whose middlewares list is still
    open) and overrides ``on_startup`` and ``initialize_logging``; the page's WebSocket URL is
    ``/ws`` and its statics live under ``/static/``."""
    import asyncio

    from aiohttp import web
    from textual_serve.server import Server

    assert inspect.iscoroutinefunction(Server._make_app)
    assert inspect.iscoroutinefunction(Server.on_startup)
    assert callable(Server.initialize_logging)
    app = asyncio.run(Server("true", host="127.0.0.1", port=1)._make_app())
    assert isinstance(app, web.Application) and not app.middlewares.frozen
    paths = {getattr(r, "canonical", None) for r in app.router.resources()}
    assert {"/", "/ws", "/static"} <= paths
    assert app.on_startup and app.on_startup[-1].__name__ == "on_startup"


# --- textual screens built ahead: nlu_tui.ui.reuse -------------------------------------------


async def test_textual_screens_can_be_mounted_styled_and_laid_out_off_the_stack() -> None:
    """``reuse.prebuild`` mounts an installed screen with ``App._get_screen`` (what
    ``push_screen`` does first) without showing it, lays it out with
    ``Screen._refresh_layout(size)``, and ``reuse.spare`` reads ``App._screen_stacks``; a
    ``ReusedScreen`` sets ``ScreenResume.refresh_styles`` in its own ``_on_screen_resume``,
    which Textual runs before ``Screen``'s (subclass first), so a push without a style change
    applies no stylesheet."""
    from textual import events
    from textual.screen import ModalScreen
    from textual.widgets import Label

    from nlu_tui.ui.reuse import ReusedScreen, prebuild, spare

    class Dialog(ReusedScreen, ModalScreen[None]):
        def compose(self) -> ComposeResult:
            yield Label("built once")

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Label("host")

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        assert "refresh_styles" in inspect.signature(events.ScreenResume).parameters
        assert isinstance(app._screen_stacks, dict)
        dialog = Dialog()
        await prebuild(app, dialog)
        assert dialog.is_mounted and dialog not in app.screen_stack
        assert dialog.query_one(Label).size.width > 0  # laid out, never shown
        assert spare(app, Dialog) is dialog
        restyled: list[object] = []
        original = dialog.update_node_styles

        def counted(animate: bool = True) -> None:
            restyled.append(dialog)
            original(animate)

        dialog.update_node_styles = counted  # type: ignore[method-assign]
        app.push_screen(dialog)
        await pilot.pause()
        assert app.screen is dialog and spare(app, Dialog) is None
        assert restyled == []
        app.pop_screen()
        await pilot.pause()
        assert spare(app, Dialog) is dialog  # installed: kept after it closed


async def test_textual_routes_an_uncaught_handler_error_to_handle_exception_and_exit_flags() -> (
    None
):
    """``NluTuiApp._handle_exception`` overrides Textual's hook for an exception no handler
    caught (``ui.app.teardown_race``), which reads ``App._exit`` (set by ``exit()``) and
    ``App.is_running`` (cleared when the app shuts down)."""
    import asyncio

    from textual.css.query import NoMatches
    from textual.message import Message
    from textual.widgets import Static

    seen: list[Exception] = []

    class Boom(Message):
        pass

    class Child(Static):
        def on_boom(self) -> None:
            self.query_one("#nowhere")

    class Hooked(App[None]):
        def compose(self) -> ComposeResult:
            yield Child("child")

        def _handle_exception(self, error: Exception) -> None:
            seen.append(error)
            assert not self._exit and self.is_running

    app = Hooked()
    async with app.run_test():
        app.query_one(Child).post_message(Boom())
        for _ in range(500):
            if seen:
                break
            await asyncio.sleep(0.01)
        assert len(seen) == 1 and isinstance(seen[0], NoMatches)
        app.exit()
        assert app._exit
    assert not app.is_running


# --- textual: the dimmed screen behind a modal (nlu_tui.ui.backdrop) -------------------------


async def test_textual_modal_backdrop_hooks_that_cached_backdrop_relies_on() -> None:
    """``CachedBackdrop`` keeps the ``BackgroundScreen`` a translucent modal's ``render``
    returns, and drops it when Textual forwards a screen below's changed regions to the top
    screen's ``refresh(*regions)`` (``Screen._compositor_refresh``); its ``_on_resize`` runs
    before ``Screen._on_resize`` (subclass first), stops it with ``prevent_default`` and lays
    out only the modal itself with ``Screen._screen_resized``. ``App.action_command_palette``
    pushes ``CommandPalette(id="--command-palette")``, which the app's override copies."""
    from textual.command import CommandPalette
    from textual.renderables.background_screen import BackgroundScreen
    from textual.screen import ModalScreen, Screen
    from textual.widgets import Label

    from nlu_tui.ui.backdrop import CachedBackdrop, DimmedPicture

    assert "app.screen.refresh(*self._compositor._dirty_regions)" in inspect.getsource(
        Screen._compositor_refresh
    )
    assert "_screen_resized" in inspect.getsource(Screen._on_resize)
    assert 'CommandPalette(id="--command-palette")' in inspect.getsource(App.action_command_palette)
    assert "-ready" in CommandPalette.DEFAULT_CSS  # the palette's box shows once it is filled

    class Modal(CachedBackdrop, ModalScreen[None]):
        DEFAULT_CSS = "Modal { align: center middle; }"

        def compose(self) -> ComposeResult:
            yield Label("over")

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Label("below")

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        below = app.screen
        modal = Modal()
        app.push_screen(modal)
        await pilot.pause()
        first = modal._picture
        assert isinstance(first, DimmedPicture)
        assert isinstance(first.background, BackgroundScreen)
        assert first.background.screen is below
        below.query_one(Label).update("CHANGED")  # forwarded to the modal: a new picture
        for _ in range(100):
            if modal._picture is not first and modal._picture is not None:
                break
            await pilot.pause(0.02)
        assert modal._picture is not first
        assert "CHANGED" in app.export_screenshot()
        assert below.outer_size == (80, 24)


async def test_textual_screen_refresh_flags_that_run_launch_settled_reads() -> None:
    """``run_launch.pending_paint`` reads a screen's ``_layout_required``,
    ``_repaint_required``, ``_recompose_required``, ``_dirty_widgets`` and ``_callbacks``: a
    change not yet painted shows in them, and they are all clear once the screen has settled
    (``run_launch.settled`` waits for that before a run's engine work starts)."""
    from textual.widgets import Label

    from nlu_tui.ui.widgets.run_launch import pending_paint, settled

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield Label("one", id="label")

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        label = app.query_one("#label", Label)
        await settled(label)
        assert not pending_paint(label)
        label.update("two, longer")
        app.screen.refresh(layout=True)  # what a widget's refresh posts to its screen
        assert app.screen._layout_required and pending_paint(label)
        app.screen._invoke_later(lambda: None, app.screen)  # where call_after_refresh lands
        assert app.screen._callbacks
        await settled(label)
        assert not pending_paint(label)
        assert "two, longer" in str(label.render())
