"""The preview's HTTP server: the built output, the reload script and its channel.

Stdlib, one thread per connection, 127.0.0.1 unless told otherwise. A hostile page open in
the same browser cannot use it: a request whose ``Host`` is not this server's address (DNS
rebinding) is refused, the reload channel answers same-origin requests only, nothing but
the built output is served (see :mod:`.files`), and nothing it serves changes anything.
"""

from __future__ import annotations

import ipaddress
import json
import mimetypes
import secrets
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import ConfigError
from . import LOOPBACK
from .channel import LiveChannel, LiveState
from .files import Found, Redirect, locate

__all__ = ["LOOPBACK", "PREFIX", "LiveServer"]

PREFIX = "/__mediashortcodes/"  # the server's own paths; a site has no such folder
SCRIPT_PATH = PREFIX + "live.js"
EVENTS_PATH = PREFIX + "events"
KEEP_ALIVE = 15.0  # seconds between comments on an idle channel (proxies, sleeping laptops)

_SECURITY_HEADERS = (
    ("Cache-Control", "no-store"),  # a reload always shows the newest build
    ("X-Content-Type-Options", "nosniff"),
)


def _script() -> bytes:
    return resources.files(__package__).joinpath("live.js").read_bytes()


def injected(html: bytes, tag: bytes) -> bytes:
    """``html`` with ``tag`` before its last ``</body>`` (at the end when it has none)."""
    at = html.lower().rfind(b"</body>")
    return html + tag if at < 0 else html[:at] + tag + html[at:]


def allowed_host(host: str, port: int, bound: str) -> bool:
    """Whether a request's ``Host`` names this server: ``localhost`` or an IP address of
    the interface it listens on, with its port. A name that resolves here (DNS rebinding)
    does not; an address literal cannot be rebound."""
    name, _, given_port = host.rpartition(":")
    if not name or given_port != str(port):
        return False
    name = name.removeprefix("[").removesuffix("]")
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if bound in ("0.0.0.0", "::"):
        return True  # every interface: any address of this machine
    return address.is_loopback or str(address) == bound


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    live: LiveServer

    def handle_error(self, request: object, client_address: object) -> None:
        """A browser that goes away (a download stopped, a tab closed) is no error: quiet."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body in two writes: no delayed-ACK stall
    server_version = "mediashortcodes-serve"
    sys_version = ""
    timeout = 60  # an idle keep-alive connection gives its thread back

    def do_GET(self) -> None:
        self._serve()

    def do_HEAD(self) -> None:
        self._serve()

    def _refuse_method(self) -> None:
        self._send(
            405, b"only GET and HEAD\n", "text/plain; charset=utf-8", [("Allow", "GET, HEAD")]
        )

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse_method

    def _serve(self) -> None:
        live = self.server.live
        if not allowed_host(self.headers.get("Host", ""), live.port, live.host):
            self.close_connection = True
            message = f"unexpected Host header: open {live.origin}/\n".encode()
            self._send(421, message, "text/plain; charset=utf-8")
            return
        path = urlsplit(self.path).path
        if path == EVENTS_PATH:
            self._events()
        elif path == SCRIPT_PATH:
            self._send(200, live.script, "text/javascript; charset=utf-8")
        else:
            self._file(path)

    def _file(self, path: str) -> None:
        live = self.server.live
        state = live.channel.state  # before the file: a newer file only reloads once more
        found = live.locate(path)
        if isinstance(found, Redirect):
            self._send(301, b"", "text/plain", [("Location", found.location)])
            return
        if found is None:
            status, body = (404, b"<!doctype html><title>Not found</title><h1>Not found</h1>")
            if state.version == 0:
                status, body = 503, b"<!doctype html><title>Building</title><h1>Building...</h1>"
            self._send(status, live.page(body, state), "text/html; charset=utf-8")
            return
        try:
            body = found.path.read_bytes()
        except OSError:
            self._send(404, b"not found\n", "text/plain; charset=utf-8")
            return
        kind = mimetypes.guess_type(found.path.name)[0] or "application/octet-stream"
        if kind == "text/html":
            body = live.page(body, state)
        if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
            kind += "; charset=utf-8"
        self._send(200, body, kind)

    def _events(self) -> None:
        live = self.server.live
        origin = self.headers.get("Origin")
        site = self.headers.get("Sec-Fetch-Site")
        if (origin is not None and origin != f"http://{self.headers['Host']}") or (
            site is not None and site != "same-origin"
        ):
            self._send(403, b"the reload channel answers its own pages only\n", "text/plain")
            return
        self.close_connection = True  # the stream ends with the connection
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        for name, value in _SECURITY_HEADERS:
            self.send_header(name, value)
        self.end_headers()
        if self.command == "HEAD":
            return
        seen: LiveState | None = None
        try:
            self.wfile.write(b"retry: 500\n\n")  # reconnect fast after serve restarts
            while True:
                state = live.channel.wait(seen, KEEP_ALIVE)
                if state is None:
                    return
                if state is seen:
                    self.wfile.write(b": idle\n\n")
                else:
                    data = json.dumps({**state.as_json(), "session": live.session})
                    self.wfile.write(f"event: state\ndata: {data}\n\n".encode())
                    seen = state
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            return

    def _send(
        self,
        status: int,
        body: bytes,
        kind: str,
        headers: list[tuple[str, str]] | None = None,
    ) -> None:
        self.send_response(status, HTTPStatus(status).phrase)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in [*_SECURITY_HEADERS, *(headers or [])]:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the terminal is for builds and their problems."""


class LiveServer:
    """Serves ``output`` (which builds replace whole) on ``host:port`` from a thread."""

    def __init__(
        self, output: Path, channel: LiveChannel, *, host: str = LOOPBACK, port: int = 0
    ) -> None:
        self.output = output
        self.channel = channel
        self.host = host
        self.session = secrets.token_hex(8)  # a tab of an earlier serve reloads
        self.script = _script()
        try:
            self._httpd = _HTTPServer((host, port), _Handler)
        except OSError as exc:
            raise ConfigError(
                f"cannot listen on {host}:{port}: {exc.strerror}; "
                "choose another --port, or 0 for a free one"
            ) from None
        self._httpd.live = self
        self.port: int = self._httpd.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def origin(self) -> str:
        shown = LOOPBACK if self.host in ("0.0.0.0", "::") else self.host
        shown = f"[{shown}]" if ":" in shown else shown
        return f"http://{shown}:{self.port}"

    def page(self, html: bytes, state: LiveState) -> bytes:
        tag = (
            f'<script src="{SCRIPT_PATH}" data-session="{self.session}" '
            f'data-version="{state.version}"></script>'
        )
        return injected(html, tag.encode())

    def locate(self, path: str) -> Found | Redirect | None:
        found = locate(self.output, path)
        # A build swaps its output in with two renames: between them the folder is missing.
        for _ in range(10):
            if found is not None or self.output.is_dir():
                break
            time.sleep(0.02)
            found = locate(self.output, path)
        return found

    def start(self) -> LiveServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="mediashortcodes-serve",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.channel.close()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()
