"""A download link that trickles one byte a second, inside a real build: the build gives up
at ``[service] download_timeout`` with exit 3 and says what to do; the previous output stays
as it was and no secret is printed."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.sandbox import DEMO_CREDENTIALS

from .conftest import small_site

PAGE = "---\ntitle: Home\n---\n\n<% media_image 101 %>\n"


class Trickle(BaseHTTPRequestHandler):
    """Any download: a JPEG's headers, then one byte a second."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", "4096")
        self.end_headers()
        for _ in range(30):  # 30 s at most: the build gives up long before
            try:
                self.wfile.write(b"\xff")
                self.wfile.flush()
            except OSError:
                return
            time.sleep(1.0)


@pytest.fixture
def trickle() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_download_that_trickles_stops_the_build_with_exit_3_and_keeps_the_output(
    tmp_path: Path, sandbox: Any, env: Path, trickle: int
) -> None:
    files = {"templates/page.html": "{{ page.content }}\n", "content/index.md": PAGE}
    site = small_site(tmp_path / "site", sandbox, files, player=False)
    first = CliRunner().invoke(cli, ["build", str(site)])
    assert first.exit_code == 0, first.output
    before = {p: p.read_bytes() for p in (site / "_site").rglob("*") if p.is_file()}
    toml = site / "mediashortcodes.toml"
    toml.write_text(
        toml.read_text()
        + 'download_timeout = 1.5\nmax_retries = 0\nallowed_download_hosts = ["localhost"]\n'
    )
    # The file's download link now points at the trickling host.
    sandbox.fault("foreign_link", url=f"http://localhost:{trickle}", path_prefix="/1/file/")

    cold = {"MEDIASHORTCODES_CACHE_DIR": str(tmp_path / "cold-cache")}
    result = CliRunner().invoke(cli, ["build", str(site)], env=cold)
    assert result.exit_code == 3, result.output
    assert (
        "the download from localhost did not finish within 1.5 s; the link may be "
        "throttled: run again, or raise [service] download_timeout" in result.output
    )
    assert "Traceback" not in result.output
    after = {p: p.read_bytes() for p in (site / "_site").rglob("*") if p.is_file()}
    assert after == before
    for secret in (DEMO_CREDENTIALS.client_secret, DEMO_CREDENTIALS.refresh_token):
        assert secret not in result.output
