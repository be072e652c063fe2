"""A TCP proxy on loopback whose connections can be cut: a database server that goes away.

``with TcpCutProxy(("127.0.0.1", port)) as proxy:`` forwards ``proxy.port`` to the server.
:meth:`TcpCutProxy.cut` closes every forwarded connection at once and, until
:meth:`TcpCutProxy.restore`, closes each new one as soon as it is accepted: to a client that
is what a server stopped or unplugged mid-run looks like (its connection dies, reconnecting
fails). Threads and plain sockets only; nothing is left running after ``with``.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class TcpCutProxy:
    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.up = True
        self.accepted = 0
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self._closing = False
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> TcpCutProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing = True
        self.cut()
        with contextlib.suppress(OSError):
            self.listener.close()
        self._thread.join(timeout=5)

    def cut(self) -> None:
        """Drop every connection now; refuse new ones until :meth:`restore`."""
        with self._lock:
            self.up = False
            sockets, self._open = self._open, []
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def restore(self) -> None:
        with self._lock:
            self.up = True

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                up = self.up
            if not up:
                with contextlib.suppress(OSError):
                    client.close()
                continue
            try:
                server = socket.create_connection(self.upstream, timeout=10)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self.accepted += 1
                self._open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
