"""``nlu-tui web [FOLDER]``: the workbench in a browser, served by textual-serve.

Each browser tab gets its own workbench process (textual-serve's model). The server listens on
127.0.0.1 unless ``--host`` says otherwise, and every request needs the random token printed in
the URL at start (the first page sets it as a same-site cookie, which the page's WebSocket then
carries). On loopback, a request naming another host is refused too (DNS rebinding), and a
WebSocket from another origin always is.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from nlu_tui.cli import exitcodes

DEFAULT_PORT = 8765
_REMOTE_STYLESHEET = re.compile(r"<link(?:(?!>).)*?https?://(?:(?!>).)*?>", re.DOTALL)
"""textual-serve's page asks Google for a font: the page is served without it (the browser
falls back to its own monospace font), so opening the workbench contacts no one else."""
COOKIE = "nlu_tui_token"
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
"""What textual-serve sets ``TEXTUAL_DRIVER`` to for the processes it starts: the workbench
then draws for the browser, with no terminal of its own (:mod:`nlu_tui.cli.main` knows)."""


def register(sub: argparse._SubParsersAction[Any]) -> None:
    p = sub.add_parser(
        "web",
        help="serve the workbench to a browser (127.0.0.1, with a token)",
        description="Serve the workbench on FOLDER (default: the default workspace) to a web "
        "browser. Open the URL it prints: it carries the access token.",
    )
    p.add_argument("workspace", nargs="?", metavar="FOLDER", help="the workspace to open")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; another address serves the network, "
        "still behind the token)",
    )
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    p.add_argument(
        "--public-url",
        metavar="URL",
        help="the address browsers reach the server at, when it is not http://HOST:PORT "
        "(behind a proxy)",
    )
    p.set_defaults(handler=cmd_web)


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_web(args: argparse.Namespace) -> int:
    # imported here, not at the top, as every command module does: `nlu-tui --help` stays light
    import secrets
    import shlex
    import socket

    from nlu_tui.cli.say import say, say_error
    from nlu_tui.errors import InputError
    from nlu_tui.extras import need

    need("textual_serve", "nlu-tui web")
    workspace = None
    if args.workspace is not None:
        folder = Path(args.workspace).expanduser()
        if not folder.is_dir():
            raise InputError(f"{args.workspace}: no such folder to open", field="FOLDER")
        workspace = str(folder.resolve())
    if not 0 < args.port < 65536:
        raise InputError(f"--port {args.port}: not a port number (1-65535)", field="--port")
    try:  # a port in use is one line, before anything is started
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as exc:
        say_error(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
        return exitcodes.BAD_INPUT
    token = secrets.token_urlsafe(24)
    host = f"[{args.host}]" if ":" in args.host else args.host
    public = (args.public_url or f"http://{host}:{args.port}").rstrip("/")
    command = " ".join(
        shlex.quote(part)
        for part in (sys.executable, "-m", "nlu_tui", *([workspace] if workspace else []))
    )
    server = _server(command, args.host, args.port, public, token)
    say(f"nlu-tui web: open {public}/?token={token}", flush=True)
    if not _is_loopback(args.host):
        say("  (listening beyond this machine: anyone with the URL can use the workbench)")
    server.serve()
    return exitcodes.OK


def _server(command: str, host: str, port: int, public_url: str, token: str) -> Any:
    """textual-serve's server with the token and origin checks in front of every route."""
    import secrets

    from aiohttp import web
    from textual_serve.server import Server

    loopback = _is_loopback(host)
    allowed_hosts = {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}

    @web.middleware
    async def guard(
        request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if loopback and request.host not in allowed_hosts:
            return web.Response(status=403, text="nlu-tui web: unknown host\n")
        if request.path.startswith("/static/"):
            return await handler(request)  # the page's scripts, fonts and styles: no secret
        if request.path == "/favicon.ico":
            return web.Response(status=204)
        given = request.query.get("token") or request.cookies.get(COOKIE) or ""
        if not secrets.compare_digest(given.encode(), token.encode()):
            return web.Response(
                status=403,
                text="nlu-tui web: this needs the token: open the URL that `nlu-tui web` printed\n",
            )
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin is not None and origin.rstrip("/") != public_url:
            return web.Response(status=403, text="nlu-tui web: another site's page\n")
        response = await handler(request)
        if request.path == "/" and isinstance(response, web.Response) and response.text:
            response.text = _REMOTE_STYLESHEET.sub("", response.text)
            response.headers["Referrer-Policy"] = "no-referrer"  # the URL holds the token
            if request.query.get("token"):
                response.set_cookie(COOKIE, token, httponly=True, samesite="Strict")
        return response

    class GuardedServer(Server):
        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(guard)
            return app

        async def on_startup(self, app: web.Application) -> None:
            """Say nothing more: the URL with its token is printed before the server starts."""

        def initialize_logging(self) -> None:
            """Warnings and errors only, one plain line each on stderr (textual-serve's own
            handler prints a logo, every connection, and tracebacks with local variables)."""
            import logging

            logging.basicConfig(level="WARNING", format="nlu-tui web: %(message)s")

    os.environ.setdefault("TEXTUAL_FPS", "60")
    return GuardedServer(command, host=host, port=port, title="nlu-tui", public_url=public_url)
