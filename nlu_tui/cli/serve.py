"""``nlu-tui serve``: the embedded engine over HTTP with Rasa's ``POST /model/parse`` contract."""

from __future__ import annotations

import argparse
from typing import Any

from nlu_tui.cli import exitcodes

MAX_TEXT_LENGTH = 10_000  # nlu_tui.engines.serve.MAX_TEXT_LENGTH (not imported: --help stays light)


def register(sub: argparse._SubParsersAction[Any]) -> None:
    """Add ``serve`` to the parser."""
    parser = sub.add_parser(
        "serve",
        help="serve the embedded engine over HTTP (Rasa's POST /model/parse contract)",
        description=(
            "Train (or load from the cache) the embedded engine on a Rasa NLU YAML file and serve "
            "it with Rasa's HTTP API: POST /model/parse, GET /domain, GET /version, GET /status, "
            "GET /. "
            "Prints the URL once it listens; stops on Ctrl-C or SIGTERM."
        ),
    )
    parser.add_argument("--nlu", required=True, metavar="FILE", help="Rasa NLU YAML training data")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=5005, help="port (default 5005; 0 picks a free one)"
    )
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=0.0,
        metavar="N",
        help="add N ms to every parse (stand-in for a remote engine in benchmarks and tests)",
    )
    parser.add_argument(
        "--threshold", type=float, default=None, help="no intent below this confidence (0.3)"
    )
    parser.add_argument(
        "--auth-token-env",
        metavar="VAR",
        help="require ?token= equal to the value of environment variable VAR (like rasa --auth-token)",
    )
    parser.add_argument(
        "--no-auth",
        action="store_true",
        help="allow a non-loopback --host without a token (anyone who can reach it may query)",
    )
    parser.add_argument(
        "--max-text-length",
        type=int,
        default=MAX_TEXT_LENGTH,
        metavar="N",
        help=f"refuse (HTTP 413) a text longer than N characters (default {MAX_TEXT_LENGTH:,})",
    )
    parser.set_defaults(handler=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    import asyncio
    import os
    from pathlib import Path

    from nlu_tui.engines.serve import serve_forever
    from nlu_tui.errors import InputError

    nlu = Path(args.nlu).expanduser()
    if not nlu.is_file():
        raise InputError("training data not found", path=nlu, field="--nlu")
    if not 0 <= args.port <= 65535:
        raise InputError(f"port must be within 0..65535, not {args.port}", field="--port")
    if args.latency_ms < 0:
        raise InputError("latency must not be negative", field="--latency-ms")
    if args.max_text_length < 1:
        raise InputError("the text length cap must be at least 1", field="--max-text-length")
    token = None
    if args.auth_token_env:
        token = os.environ.get(args.auth_token_env)
        if not token:
            raise InputError(
                f"environment variable {args.auth_token_env} is not set", field="--auth-token-env"
            )

    def ready(url: str) -> None:
        print(f"nlu-tui serve: listening on {url} (POST {url}/model/parse)", flush=True)

    try:
        asyncio.run(
            serve_forever(
                nlu,
                host=args.host,
                port=args.port,
                latency_ms=args.latency_ms,
                token=token,
                threshold=args.threshold,
                ready=ready,
                max_text_length=args.max_text_length,
                no_auth=args.no_auth,
            )
        )
    except OSError as exc:
        raise InputError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}"
        ) from None
    return exitcodes.OK
