"""The picker's HTTP server: stdlib, 127.0.0.1 only, a free port, one thread per connection.

It only moves bytes; :class:`~mediashortcodes.picker.app.PickerApp` decides every answer.
"""

from __future__ import annotations

import logging
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

from ..client.redact import redact, redact_url
from ..errors import ConfigError
from .app import MAX_BODY, PickerApp, Request, Response, error_response
from .backend import PickerBackend
from .guard import SecretGuard, SecretSource

log = logging.getLogger("mediashortcodes.picker")

HOST = "127.0.0.1"


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    app: PickerApp
    secrets: SecretSource


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without this, delayed ACKs stall each response.
    disable_nagle_algorithm = True
    server_version = "mediashortcodes-picker"
    sys_version = ""
    timeout = 60  # an idle keep-alive connection gives its thread back

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True
            self._write(error_response(413, f"request body must be 0 to {MAX_BODY} bytes"))
            return
        body = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = Request(self.command, self.path, headers, body)
        try:
            response = self.server.app.handle(request)
        except Exception as exc:  # a bug must not kill the connection thread silently
            log.error("picker error on %s: %s", redact_url(self.path), self._scrub(repr(exc)))
            response = error_response(500, "internal error in the picker; see its terminal output")
        self._write(response)

    def _write(self, response: Response) -> None:
        self.send_response(response.status, HTTPStatus(response.status).phrase)
        for name, value in response.all_headers():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(response.body)

    def _scrub(self, text: str) -> str:
        return redact(text, tuple(self.server.secrets()))

    def log_message(self, format: str, *args: object) -> None:
        # The request line holds the per-run token on the first load: never log it raw.
        line = format % args
        log.debug("%s %s", self.address_string(), self._scrub(redact_url(line)))


class PickerServer:
    """The local web app; ``url`` carries the per-run token that opens a session."""

    def __init__(
        self,
        backend: PickerBackend,
        *,
        secrets_source: SecretSource,
        port: int = 0,
        locale: str = "en_US",
        default_embed: str = "iframe",
        embed_csp: str = "",
    ) -> None:
        self._token = secrets.token_urlsafe(24)
        try:
            self._httpd = _HTTPServer((HOST, port), _Handler)
        except OSError as exc:
            raise ConfigError(
                f"cannot listen on {HOST}:{port}: {exc.strerror}; "
                "choose another --port, or 0 for a free one"
            ) from None
        self.port: int = self._httpd.server_address[1]
        self._httpd.secrets = secrets_source
        self._httpd.app = PickerApp(
            backend,
            token=self._token,
            port=self.port,
            guard=SecretGuard(secrets_source),
            locale=locale,
            default_embed=default_embed,
            embed_csp=embed_csp,
        )
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        return f"<PickerServer {self.origin}>"

    @property
    def origin(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def url(self) -> str:
        """The address to open: the first load trades the token for a session cookie."""
        return f"{self.origin}/?token={self._token}"

    def serve_forever(self) -> None:
        self._httpd.serve_forever(poll_interval=0.05)

    def start(self) -> PickerServer:
        """Serve from a background thread (tests, embedding); stop with :meth:`stop`."""
        self._thread = threading.Thread(
            target=self.serve_forever, name="mediashortcodes-picker", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join()
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> PickerServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
