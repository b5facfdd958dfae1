"""A service (or a link it names) that answers with hostile bodies, over real sockets: the
client masks what it echoes, caps what it reads, gives up on a trickle, and logs no signed
link or cookie even at DEBUG."""

from __future__ import annotations

import json
import logging
import threading
import time
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.client.async_client import AsyncClient
from mediashortcodes.client.sync_client import Client
from mediashortcodes.config import Credentials
from mediashortcodes.errors import ServiceError, ServiceUnreachableError

REFRESH_TOKEN = "rt-" + "R" * 62  # 65 characters, as in the finding
SECRET = "cs-client-secret-0123456789abcdef"
CREDENTIALS = Credentials("client-id", SECRET, REFRESH_TOKEN)
SIGNED = "SIGNEDLINKTOKEN0123456789"
COOKIE = "SESSIONCOOKIE0123456789"
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 60


class Hostile(BaseHTTPRequestHandler):
    """The service and its download host at once; ``server.mode`` picks the hostile answer."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        mode = self.server.mode  # type: ignore[attr-defined]
        path = self.path.split("?")[0]
        if path == "/1/oauth2/token":
            if mode == "echo":
                # The request echoed back, the refresh token straddling the 200th character.
                echo = {"error": "conflict", "padding": "x" * 105, "refresh_token": REFRESH_TOKEN}
                self._send(409, json.dumps(echo).encode(), "application/json")
            else:
                token = {"access_token": "at-0123456789", "token_type": "Bearer", "expires_in": 60}
                self._send(200, json.dumps(token).encode(), "application/json")
        elif path == "/1/foldertree" and mode == "nested":
            self._send(200, b"[" * 200_000 + b"]" * 200_000, "application/json")
        elif path == "/1/foldertree" and mode == "bomb":
            self._send(200, _gzip_bomb(), "application/json", {"Content-Encoding": "gzip"})
        elif path == "/dn/trickle":
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", "64")
            self.end_headers()
            for byte in JPEG[:30]:  # one byte a second, 30 at most: the test ends it anyway
                try:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(1.0)
        elif path == "/dn/redirect":
            headers = {"Location": f"/dn/{SIGNED}/file.jpg", "Set-Cookie": f"session={COOKIE}"}
            self._send(302, b"", "text/plain", headers)
        elif path == f"/dn/{SIGNED}/file.jpg":
            self._send(200, JPEG, "image/jpeg")
        else:
            self._send(404, b"{}", "application/json")


def _gzip_bomb() -> bytes:
    """About 70 MB of JSON (a list of one long string), gzip-compressed to a few dozen KB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [packer.compress(b'["')]
    block = b"a" * (1 << 20)
    parts += [packer.compress(block) for _ in range(70)]
    parts += [packer.compress(b'"]'), packer.flush()]
    return b"".join(parts)


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    httpd.daemon_threads = True
    httpd.mode = ""  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def base_url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def client(server: ThreadingHTTPServer, **options: Any) -> Client:
    return Client(base_url(server), CREDENTIALS, max_retries=0, **options)


def test_an_echoed_token_request_never_shows_part_of_the_refresh_token(server) -> None:
    server.mode = "echo"
    with client(server) as service, pytest.raises(ServiceError) as raised:
        service.folders()
    text = str(raised.value)
    assert "HTTP 409" in text
    for start in range(len(REFRESH_TOKEN) - 8):
        assert REFRESH_TOKEN[start : start + 8] not in text, "a piece of the refresh token"


@pytest.mark.parametrize("mode", ["nested", "bomb"])
def test_a_nested_or_oversized_json_answer_is_a_clean_exit_3(
    server, mode: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    server.mode = mode
    monkeypatch.setenv("MEDIASHORTCODES_BASE_URL", base_url(server))
    monkeypatch.setenv("MEDIASHORTCODES_CLIENT_ID", CREDENTIALS.client_id)
    monkeypatch.setenv("MEDIASHORTCODES_CLIENT_SECRET", SECRET)
    monkeypatch.setenv("MEDIASHORTCODES_REFRESH_TOKEN", REFRESH_TOKEN)
    (tmp_path / "mediashortcodes.toml").write_text("[service]\nmax_retries = 0\n")

    result = CliRunner().invoke(cli, ["folders", "--site", str(tmp_path)])
    assert result.exit_code == 3, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    expected = "invalid JSON" if mode == "nested" else "more than 64 MiB of JSON (decoded)"
    assert expected in result.output


def test_a_download_that_trickles_a_byte_a_second_gives_up_at_its_deadline(server) -> None:
    with (
        client(server, download_timeout=1.5) as service,
        pytest.raises(ServiceUnreachableError, match=r"did not finish within 1\.5 s"),
    ):
        service.download(base_url(server) + "/dn/trickle", max_bytes=1000)


async def test_the_async_client_gives_up_on_a_trickle_too(server) -> None:
    async with AsyncClient(
        base_url(server), CREDENTIALS, max_retries=0, download_timeout=1.5
    ) as service:
        with pytest.raises(ServiceUnreachableError, match="download_timeout"):
            await service.download(base_url(server) + "/dn/trickle", max_bytes=1000)


def test_debug_logs_of_a_redirect_show_no_signed_link_and_no_cookie(
    server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with client(server) as service:
        assert service.download(base_url(server) + "/dn/redirect", max_bytes=1000) == JPEG
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "receive_response_headers" in logged, "httpcore's header log was captured"
    assert SIGNED not in logged
    assert COOKIE not in logged
