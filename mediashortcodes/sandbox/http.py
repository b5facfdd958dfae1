"""A small threaded HTTP/1.1 server that does not distort timings.

Each response (status line, headers and body) leaves in ONE ``sendall`` on a socket with
TCP_NODELAY: a server that writes headers and body separately meets ~40 ms delayed-ACK
stalls per response. Connections stay open (keep-alive) as httpx expects, each in its
own daemon thread, and ``stop`` closes them all so no test leaves a thread behind.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import re
import selectors
import socket
import socketserver
import struct
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from email.utils import formatdate
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

log = logging.getLogger(__name__)

MAX_BODY = 1024 * 1024
IDLE_TIMEOUT = 60.0  # seconds a kept-alive connection may stay silent
_LINGER_0 = struct.pack("ii", 1, 0)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str] = field(default_factory=dict)  # last value wins
    headers: dict[str, str] = field(default_factory=dict)  # lower-case names
    body: bytes = b""

    @classmethod
    def from_target(
        cls, method: str, target: str, headers: dict[str, str] | None = None, body: bytes = b""
    ) -> Request:
        parts = urlsplit(target)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        return cls(method.upper(), parts.path or "/", query, headers or {}, body)


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    drop: bool = False  # close the connection without answering (a simulated network fault)
    reset: bool = False  # with drop: reset the connection (TCP RST) rather than close it
    truncate: bool = False  # announce the whole body, send half of it, close
    close_delimited: bool = False  # no Content-Length: the body ends when the connection does
    cors: bool = True  # readable from any origin (not the control and usage paths)


class HTTPError(Exception):
    """Raised by a handler to answer with a JSON error body."""

    def __init__(self, status: int, message: str, code: str = "", headers: Any = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code or HTTPStatus(status).phrase.lower().replace(" ", "_")
        self.headers = tuple(headers)

    def response(self) -> Response:
        body = {"error": self.code, "message": self.message, "status": self.status}
        return json_response(body, self.status, headers=self.headers)


def json_response(data: Any, status: int = 200, headers: Any = ()) -> Response:
    body = json.dumps(data, ensure_ascii=False).encode("utf-8")
    return Response(status, body, "application/json; charset=utf-8", tuple(headers))


App = Callable[[Request], Response]


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    name: str  # the endpoint's name in the request statistics
    handler: Callable[..., Response]


def routes(*specs: tuple[str, str, str, Callable[..., Response]]) -> tuple[Route, ...]:
    """Routes from (method, path regex, name, handler ``(state, request, **groups)``)."""
    return tuple(
        Route(method, re.compile(pattern), name, fn) for method, pattern, name, fn in specs
    )


def match(routes: tuple[Route, ...], request: Request) -> tuple[Route, dict[str, str]]:
    """The route for a request and its path groups; 404 or 405 when there is none."""
    allowed = []
    for candidate in routes:
        found = candidate.pattern.fullmatch(request.path)
        if found is None:
            continue
        method = "GET" if request.method == "HEAD" else request.method
        if candidate.method == method:
            return candidate, found.groupdict()
        allowed.append(candidate.method)
    if allowed:
        raise HTTPError(
            405,
            f"{request.method} is not allowed on {request.path}; use {', '.join(allowed)}",
            headers=[("Allow", ", ".join(allowed))],
        )
    raise HTTPError(404, f"no such endpoint: {request.path}")


_CORS = (
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
    ("Access-Control-Allow-Headers", "Authorization, Content-Type"),
)

# Paths that steer the sandbox or read (or write) its usage reports: a web page the developer
# visits must not reach them (it could reconfigure the sandbox or read what was reported).
PRIVATE_PATHS = ("/_sandbox/", "/1/files/multiple/usages")


def refusal(request: Request) -> Response | None:
    """The answer to a request for a private path this local server must not serve, else
    None: one whose Host is not an address or ``localhost`` (a name that resolves here is a
    DNS rebinding: a hostile page's own name pointed at 127.0.0.1), or that a browser marks
    as sent from another site (``Origin``, ``Sec-Fetch-Site``). Private paths are answered
    without CORS headers, so no other page can read them either."""
    if not request.path.startswith(PRIVATE_PATHS):
        return None
    host = urlsplit(f"//{request.headers.get('host', '')}").hostname or ""
    if not _local_name(host):
        return Response(421, b"unexpected Host header: address the sandbox by 127.0.0.1")
    origin = request.headers.get("origin")
    site = request.headers.get("sec-fetch-site")
    same = f"http://{request.headers.get('host', '')}"
    if (origin is not None and origin != same) or site not in (None, "same-origin", "none"):
        return Response(
            403, b"cross-site requests to the sandbox's control are refused", cors=False
        )
    return None


def _local_name(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "MediaAssetSandbox/1"
    timeout = IDLE_TIMEOUT
    server: Server

    def do_GET(self) -> None:
        self._serve()

    do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def _serve(self) -> None:
        try:
            body = self._read_body()
            request = Request.from_target(
                self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
            )
            refused = refusal(request)
            if refused is not None:
                response = refused
            elif request.method == "OPTIONS":
                private = request.path.startswith(PRIVATE_PATHS)
                response = Response(204, content_type="", cors=not private)
            else:
                response = self.server.app(request)
                if request.path.startswith(PRIVATE_PATHS):
                    response = replace(response, cors=False)
        except HTTPError as exc:
            response = exc.response()
        except Exception:
            log.exception("sandbox handler failed on %s %s", self.command, self.path.split("?")[0])
            response = HTTPError(500, "the sandbox failed; see its log").response()
        if response.drop:
            self.close_connection = True
            if response.reset:
                # Linger 0: close() sends RST, and the client reads "connection reset".
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _LINGER_0)
                self.connection.close()
            return
        if response.truncate or response.close_delimited:
            self.close_connection = True
        try:
            self._write(response)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a timeout) while we were slow

    def _read_body(self) -> bytes:
        raw = self.headers.get("Content-Length")
        if raw is None:
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                self.close_connection = True
                raise HTTPError(411, "send a Content-Length; chunked bodies are not supported")
            return b""
        try:
            length = int(raw)
        except ValueError:
            self.close_connection = True
            raise HTTPError(400, f"bad Content-Length {raw!r}") from None
        if length < 0 or length > MAX_BODY:
            self.close_connection = True
            raise HTTPError(413, f"request body too large: at most {MAX_BODY} bytes")
        return self.rfile.read(length)

    def _write(self, response: Response) -> None:
        status = HTTPStatus(response.status)
        lines = [
            f"HTTP/1.1 {status.value} {status.phrase}",
            f"Server: {self.server_version}",
            f"Date: {formatdate(usegmt=True)}",
        ]
        if not response.close_delimited:
            lines.append(f"Content-Length: {len(response.body)}")
        if response.content_type:
            lines.append(f"Content-Type: {response.content_type}")
        cors = _CORS if response.cors else ()
        lines += [f"{k}: {v}" for k, v in (*cors, *response.headers)]
        if self.close_connection:
            lines.append("Connection: close")
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        body = response.body[: len(response.body) // 2] if response.truncate else response.body
        self.wfile.write(head if self.command == "HEAD" else head + body)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)


class Server(ThreadingHTTPServer):
    """A ThreadingHTTPServer bound to one app; tracks its connections so stop() ends them."""

    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    # the stdlib's backlog of 5 drops connections when a benchmark opens dozens at once,
    # and a dropped SYN costs a 1 s retransmission
    request_queue_size = 512

    def __init__(self, address: tuple[str, int], app: App) -> None:
        self.app = app
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        super().__init__(address, _Handler)
        self._wake_reader, self._wake_writer = socket.socketpair()

    def server_bind(self) -> None:
        # HTTPServer.server_bind also resolves the host name (getfqdn): slow and not needed
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, addr = super().get_request()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._connections_lock:
            self._connections.add(conn)
        return conn, addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-request (a build stopped by Ctrl-C or SIGTERM, a
        timeout) is no error of the sandbox's: nothing on stderr. Anything else is logged,
        not printed over the command's own output."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        log.exception("sandbox: a request from %s failed", client_address[0])

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def start(self, name: str) -> None:
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        """Accept until woken by stop(): no polling, so stopping takes no time."""
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake_reader, selectors.EVENT_READ)
            while not self._stopping.is_set():
                ready = selector.select()
                if self._stopping.is_set():
                    break
                if any(key.fileobj is self for key, _ in ready):
                    self._handle_request_noblock()

    def stop(self) -> None:
        """Stop accepting, end open keep-alive connections and release the port."""
        if self._thread is not None:
            self._stopping.set()
            self._wake_writer.send(b"x")
            self._thread.join()
            self._thread = None
        with self._connections_lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self.server_close()
        self._wake_reader.close()
        self._wake_writer.close()
