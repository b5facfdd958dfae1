"""A forward proxy on 127.0.0.1 for tests: plain HTTP requests in absolute form, and CONNECT
tunnels (what a client sends for an https:// URL). It remembers what passed through it.

Each connection carries one request (the answer says ``Connection: close``), enough for
httpx, which opens another connection for the next request.
"""

from __future__ import annotations

import http.client
import select
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "te"}
HOP_BY_HOP |= {"trailer", "transfer-encoding", "upgrade"}


class ForwardProxy:
    """``with ForwardProxy() as proxy: ... proxy.url ... proxy.seen``."""

    def __init__(self) -> None:
        self.seen: list[str] = []  # "GET http://host:port/path" or "CONNECT host:port"
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def note(self, line: str) -> None:
        with self._lock:
            self.seen.append(line)

    def paths(self) -> list[str]:
        """The path of every plain request that passed (CONNECT tunnels have none)."""
        return [urlsplit(line.split(" ", 1)[1]).path for line in self.seen if "://" in line]

    def __enter__(self) -> ForwardProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _handler_for(proxy: ForwardProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_CONNECT(self) -> None:
            proxy.note(f"CONNECT {self.path}")
            host, _, port = self.path.rpartition(":")
            try:
                upstream = socket.create_connection((host, int(port)), timeout=10)
            except OSError:
                self.send_error(502)
                return
            self.send_response(200, "Connection established")
            self.end_headers()
            _pump(self.connection, upstream)
            self.close_connection = True

        def _forward(self) -> None:
            proxy.note(f"{self.command} {self.path}")
            target = urlsplit(self.path)
            if target.scheme != "http" or not target.hostname:
                self.send_error(400, "absolute http:// URL expected")
                return
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            path = target.path + (f"?{target.query}" if target.query else "")
            upstream = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=30)
            try:
                upstream.request(self.command, path or "/", body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
            except OSError:
                self.send_error(502)
                return
            finally:
                upstream.close()
            self.send_response(answer.status, answer.reason)
            for key, value in answer.getheaders():
                if key.lower() not in HOP_BY_HOP | {"content-length"}:
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = True

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = _forward

    return Handler


def _pump(client: socket.socket, upstream: socket.socket) -> None:
    """Copy bytes both ways until either side closes."""
    sockets = [client, upstream]
    try:
        while True:
            readable, _, broken = select.select(sockets, [], sockets, 30)
            if broken or not readable:
                return
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    return
                (upstream if sock is client else client).sendall(data)
    except OSError:
        return
    finally:
        upstream.close()
