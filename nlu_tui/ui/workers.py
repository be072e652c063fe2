"""One place for a failed worker: a notification naming what failed, a line in the log file.

Every widget, screen or app of the workbench that starts workers mixes in
:class:`ReportsFailedWorkers`. Textual posts ``Worker.StateChanged`` to the node that started
the worker (the message does not bubble), so the mixin is the hook and
:func:`report_failed_worker` the one handler: a worker that ends in ``WorkerState.ERROR`` is
never silent, whatever it was doing. A worker catches an exception itself only where it has a
specific recovery (a suite that cannot be read shows why in the cases area).

Workers name what they do (``description=``); a worker about one thing names it once it knows
it with :func:`describe` ("Loading suite banking_bot"), so the notice reads
"Loading suite banking_bot failed: <error>".
"""

from __future__ import annotations

import logging
import threading
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.worker import Worker, WorkerState, get_current_worker

if TYPE_CHECKING:
    from textual.app import App

log = logging.getLogger("nlu_tui.ui")
"""The workbench's logger; its records go to :func:`nlu_tui.paths.log_path`."""

_handler_lock = threading.Lock()
_handler: logging.FileHandler | None = None


class ReportsFailedWorkers:
    """Mix into every node that starts workers: a failed one is reported (see the module)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            report_failed_worker(event.worker.node.app, event.worker)


def describe(text: str) -> None:
    """Name what the current worker does, once it knows (call it from inside the worker)."""
    get_current_worker().description = text


def what_failed(worker: Worker[Any]) -> str:
    """The worker's description, else its name, else its group."""
    return worker.description or worker.name or worker.group


def report_failed_worker(app: App[Any], worker: Worker[Any]) -> None:
    """Log the failure with its traceback and tell the user what failed and why.

    A worker cancelled on its way out may raise something else than ``CancelledError`` (httpx
    turns a cancel into a ``ConnectError``): that one is logged, not shown."""
    from rich.markup import escape

    from nlu_tui.textsafe import inert

    error = worker.error
    what = what_failed(worker)
    reason = f"{type(error).__name__}: {error}" if error is not None else "unknown error"
    logged = log_failure(what, error)
    if worker.is_cancelled:
        return
    where = f"\nDetails in {logged}" if isinstance(logged, Path) else f"\n({logged})"
    app.notify(
        escape(inert(_redacted(f"{what} failed: {reason}")) + where),
        title="Something went wrong",
        severity="error",
        timeout=10,
    )


def log_failure(what: str, error: BaseException | None) -> Path | str:
    """Write ``what failed`` and the traceback to the log file; returns the file, or why it
    could not be written (the notice then says so: a failure is never silent)."""
    try:
        path = _log_file()
    except OSError as exc:
        return f"the log file could not be written: {exc}"
    trace = "".join(traceback.format_exception(error)).rstrip() if error is not None else ""
    # redacted as a whole: the traceback's last line repeats the error's text
    log.error(_redacted(f"{what} failed: {error}\n{trace}"))
    return path


def _redacted(text: str) -> str:
    from nlu_tui.engines.redact import redact

    return redact(text)


def _log_file() -> Path:
    """Attach the file handler on first use (and again when the data folder moved: tests)."""
    global _handler
    from nlu_tui import paths

    path = paths.log_path()
    with _handler_lock:
        if _handler is not None and Path(_handler.baseFilename) == path.absolute():
            return path
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(path, encoding="utf-8", delay=False)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        if _handler is not None:
            log.removeHandler(_handler)
            _handler.close()
        _handler = handler
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        return path
