"""``report --previous URL`` against real hostile servers on 127.0.0.1: a server that
trickles its answer is cut off by a whole deadline, an oversized body by a cap, each with
a clear error; the read stops (the bytes served stay bounded)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from mediashortcodes.cli import cli
from mediashortcodes.usage.manifest import Manifest

SITE = "https://s.org"
DEEP = '{"site": "https://s.org", "pages": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}"


def make_site(root: Path, service: str) -> Path:
    (root / "mediashortcodes.toml").write_text(
        f'[service]\nbase_url = "http://127.0.0.1:9"\n{service}[site]\nbase_url = "{SITE}"\n'
        '[usage]\ncontact = "Ann"\nproject = "Web"\n'
    )
    Manifest.from_pages(SITE, [(f"{SITE}/", "Home", [1])]).write_atomic(
        root / "_site" / "media-usage.json"
    )
    return root


class Server:
    """Answers each connection with ``answer(connection, count)``; ``count`` adds the
    bytes the client accepted (``served``)."""

    def __init__(self, answer: Callable[[socket.socket, Callable[[int], None]], None]) -> None:
        self.served = 0
        self._answer = answer
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/media-usage.json"
        threading.Thread(target=self._serve, daemon=True).start()

    def _count(self, sent: int) -> None:
        self.served += sent

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            with connection:
                connection.recv(65536)
                with contextlib.suppress(OSError):  # the client went away: read stopped
                    self._answer(connection, self._count)

    def close(self) -> None:
        self._listener.close()


@pytest.fixture
def serving() -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def start(answer: Callable[[socket.socket, Callable[[int], None]], None]) -> Server:
        servers.append(Server(answer))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"


def trickle(connection: socket.socket, count: Callable[[int], None]) -> None:
    """A valid start of a manifest, one byte every 0.2 s, for a minute at most."""
    connection.sendall(HEAD)
    for byte in (b'{"site": "' + b" " * 300)[:300]:
        connection.sendall(bytes([byte]))
        count(1)
        time.sleep(0.2)


def flood(connection: socket.socket, count: Callable[[int], None]) -> None:
    """600 MiB of JSON whitespace, no Content-Length (as a server that streams it)."""
    connection.sendall(HEAD)
    chunk = b" " * (1024 * 1024)
    for _ in range(600):
        connection.sendall(chunk)
        count(len(chunk))


def report(tmp_path: Path, url: str, settings: str = "") -> tuple[int, str]:
    site = make_site(tmp_path, settings)
    result = CliRunner().invoke(cli, ["report", str(site), "--dry-run", "--previous", url])
    return result.exit_code, result.output


def test_a_live_site_that_trickles_its_manifest_is_cut_off_at_the_deadline(
    tmp_path: Path, serving: Callable[..., Server]
) -> None:
    server = serving(trickle)
    code, output = report(tmp_path, server.url, "timeout = 1\ndownload_timeout = 2\n")
    assert code == 3, output
    assert f"--previous {server.url}: " in output
    assert "did not arrive within 2 s" in output
    assert "Traceback" not in output
    assert server.served < 30  # 0.2 s a byte: the read stopped at the deadline


def test_a_live_manifest_past_the_cap_is_refused_without_reading_it_whole(
    tmp_path: Path, serving: Callable[..., Server]
) -> None:
    server = serving(flood)
    code, output = report(tmp_path, server.url)
    assert code == 2, output
    assert f"--previous {server.url}: larger than 64 MiB" in output
    assert server.served < 100 * 1024 * 1024


def test_a_deeply_nested_live_manifest_is_a_usage_error(
    tmp_path: Path, serving: Callable[..., Server]
) -> None:
    def nested(connection: socket.socket, count: Callable[[int], None]) -> None:
        connection.sendall(HEAD + DEEP.encode())

    server = serving(nested)
    code, output = report(tmp_path, server.url)
    assert code == 2, output
    assert f"--previous {server.url}: nested too deeply" in output
