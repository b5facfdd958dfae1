"""Shared fixtures.

- ``fake``: an in-process fake of the service for unit tests (httpx.MockTransport).
- ``sandbox``: the sandbox on real sockets on 127.0.0.1, one per test session, with its
  failure rules, stats, latency and lifetimes reset around every test.
- ``browser``: Debian's headless Chromium driven by Playwright, one per test module (a
  session-wide one would keep Playwright's event loop current while other tests run
  theirs); a test that uses it is marked ``browser`` and skipped where Chromium is not.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import re
import shutil
import signal
import struct
import tempfile
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from mediashortcodes.client.async_client import AsyncClient
from mediashortcodes.config import Credentials

# A suite started in the background (`pytest &` in a script, a CI step run that way) inherits
# SIGINT ignored, and so would every process it starts: the Ctrl-C tests would wait forever.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

API = "https://api.example.com"
DOWNLOADS = "https://dl.example.com"
CREDENTIALS = Credentials("client-id-Q7", "client-secret-S3CR3T", "refresh-token-R3FR")

FOLDERS = [
    {"id": 1, "name": "Root", "type": 0, "depth": 0, "archived": False, "parent": None,
     "hasChildren": True, "separator": False},
    {"id": 2, "name": "Photos", "type": 0, "depth": 1, "archived": False, "parent": 1,
     "hasChildren": False, "separator": False},
    {"id": 3, "name": "Old", "type": 0, "depth": 0, "archived": True, "parent": None,
     "hasChildren": False, "separator": False},
]  # fmt: skip

FILES = {
    2: [
        {"id": 10, "name": "Harbour", "filename": "harbour.jpg",
         "type": {"id": 1, "type": "image", "description": "JPEG", "extension": "jpg"},
         "filesize": 2048, "mark": 0, "uploadedBy": 5, "uploaded": "2024-01-02T03:04:05.000+0100",
         "mediaId": None, "alttext": "A harbour", "smallPreview": "https://p/s.jpg",
         "thumbPreview": "https://p/t.jpg", "gdprStatus": "OK", "gdprType": "NO_PERSON"},
        {"id": 11, "name": "Launch film", "filename": "launch.mp4",
         "type": {"id": 9, "type": "video", "description": "MP4", "extension": "mp4"},
         "filesize": 99, "mediaId": "m-11", "alttext": "", "gdprStatus": "OK"},
    ]
}  # fmt: skip

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_configure(config: pytest.Config) -> None:
    """The page memo's key is made on first use in the user's config folder: the tests (and
    the builds they start as subprocesses) make theirs in a folder of this run instead."""
    folder = tempfile.mkdtemp(prefix="mediashortcodes-tests-config-")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    os.environ["XDG_CONFIG_HOME"] = folder


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test marked ``browser`` is skipped, saying why, where Chromium is not installed."""
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(
        reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)"
    )
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(skip)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


FORMATS = [{"id": 7, "name": "Thumb", "width": 150, "height": 150}, {"id": 8, "name": "Wide"}]
IMAGE = b"\xff\xd8\xff\xe0" + b"jpeg-bytes" * 10


class FakeClock:
    """Unix seconds that move only when a test says so."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def png(width: int, height: int, row: bytes = b"") -> bytes:
    """A whole grey PNG of ``width`` x ``height`` (``row`` varies its bytes): what the cache
    checks a blob against, as it checks a download."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    pixels = (b"\0" + (row * width)[:width].ljust(width, b"\0")) * height
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels))
        + chunk(b"IEND", b"")
    )


@dataclass
class FakeService:
    """A stand-in for the Media Asset Service and its download host.

    It checks credentials and Bearer tokens like the real one; ``inject`` queues answers
    (or exceptions) for requests whose path starts with a prefix, to script failures.
    """

    expires_in: int = 7200
    issued: int = 0
    valid_tokens: set[str] = field(default_factory=set)
    requests: list[httpx.Request] = field(default_factory=list)
    usages: list[Any] = field(default_factory=list)
    download_body: bytes = IMAGE
    download_host: str = "dl.example.com"
    scripted: list[tuple[str, Callable[[httpx.Request], httpx.Response]]] = field(
        default_factory=list
    )

    def inject(
        self,
        prefix: str,
        answer: httpx.Response | Exception | Callable[[httpx.Request], httpx.Response],
        count: int = 1,
    ) -> None:
        def respond(request: httpx.Request) -> httpx.Response:
            if isinstance(answer, Exception):
                raise answer
            if isinstance(answer, httpx.Response):
                return httpx.Response(answer.status_code, headers=answer.headers,
                                      content=answer.content)  # fmt: skip
            return answer(request)

        self.scripted.extend((prefix, respond) for _ in range(count))

    def revoke(self) -> None:
        self.valid_tokens.clear()

    def paths(self) -> list[str]:
        return [r.url.path for r in self.requests]

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        for i, (prefix, respond) in enumerate(self.scripted):
            if request.url.path.startswith(prefix):
                del self.scripted[i]
                return respond(request)
        if request.url.path.startswith("/dn/"):
            return httpx.Response(200, content=self.download_body,
                                  headers={"content-type": "image/jpeg"})  # fmt: skip
        return self._api(request)

    async def async_handler(self, request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0)  # let other tasks run, as a real network would
        return self.handler(request)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)

    def async_transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.async_handler)

    def connector(self, credentials: Credentials = CREDENTIALS) -> Callable[[], Any]:
        """A live renderer's ``connector``: each use opens an async client over this fake
        (no retries), closed when the use ends."""

        @asynccontextmanager
        async def connector() -> AsyncIterator[Callable[[], Awaitable[AsyncClient]]]:
            client = AsyncClient(
                API,
                credentials,
                transport=self.async_transport(),
                download_url=DOWNLOADS,
                max_retries=0,
            )

            async def connect() -> AsyncClient:
                return client

            try:
                yield connect
            finally:
                await client.aclose()

        return connector

    def _api(self, request: httpx.Request) -> httpx.Response:
        path, q = request.url.path, request.url.params
        if path == "/1/oauth2/token":
            expected = {
                "grant_type": "refresh_token",
                "client_id": CREDENTIALS.client_id,
                "client_secret": CREDENTIALS.client_secret,
                "refresh_token": CREDENTIALS.refresh_token,
            }
            if dict(q) != expected:
                return httpx.Response(401, json={"error": "invalid_grant"})
            self.issued += 1
            token = f"access-token-{self.issued}-T0K"
            self.valid_tokens.add(token)
            return httpx.Response(
                200,
                json={"access_token": token, "token_type": "Bearer",
                      "expires_in": self.expires_in},
            )  # fmt: skip
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer ") or auth[7:] not in self.valid_tokens:
            return httpx.Response(401, json={"error": "invalid_token"})
        if path == "/1/foldertree":
            return httpx.Response(200, json=FOLDERS)
        if m := re.fullmatch(r"/1/folder/(\d+)/files", path):
            folder = int(m.group(1))
            if folder not in FILES:
                return httpx.Response(404, json={"error": "not found"})
            return httpx.Response(200, json=FILES[folder])
        if path == "/1/search/file":
            text = q.get("query", "").lower()
            hits = [f for files in FILES.values() for f in files if text in f["name"].lower()]
            return httpx.Response(200, json=hits)
        if m := re.fullmatch(r"/1/file/(\d+)/download/(-?\d+)", path):
            file_id, fmt = int(m.group(1)), int(m.group(2))
            if all(f["id"] != file_id for files in FILES.values() for f in files):
                return httpx.Response(404, json={"error": "not found"})
            kind = "custom" if fmt == -1 else "file"
            url = f"https://{self.download_host}/dn/DLTOKEN{file_id}/{kind}?t=9&sid=SID1"
            name = "original" if fmt == 0 else "custom" if fmt == -1 else f"format{fmt}"
            return httpx.Response(
                200,
                json=[{"id": fmt, "format": name, "watermark": False, "isPreview": False,
                       "filetype": "jpg", "expiresIn": 300, "downloadURL": url,
                       "downloadWarning": False}],
            )  # fmt: skip
        if path == "/1/format":
            return httpx.Response(200, json=FORMATS)
        if path == "/1/files/multiple/usages" and request.method == "POST":
            self.usages.append(json.loads(request.content))
            return httpx.Response(200, json={})
        return httpx.Response(404, text="no such endpoint")


@pytest.fixture(autouse=True)
def _not_under_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands print annotations under GitHub Actions (docs/ci.md); tests that read stdout
    expect the plain output, wherever the suite runs. Tests of annotations set it."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


@pytest.fixture(autouse=True)
def _collector_as_pytest_had_it() -> Iterator[None]:
    """``cli.main`` tunes the collector for a process that ends with its command; a test
    that calls it in-process gives pytest's process its own settings back."""
    threshold = gc.get_threshold()
    yield
    gc.set_threshold(*threshold)
    gc.unfreeze()


@pytest.fixture
def fake() -> FakeService:
    return FakeService()


@pytest.fixture(scope="session")
def sandbox_server() -> Iterator[Any]:
    pytest.importorskip("PIL", reason="the sandbox needs the [sandbox] extra (Pillow)")
    from mediashortcodes.sandbox import Sandbox

    server = Sandbox().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def sandbox(sandbox_server: Any) -> Iterator[Any]:
    def reset() -> None:
        sandbox_server.clear_failures()
        sandbox_server.reset_stats()
        sandbox_server.set_latency(0)
        sandbox_server.token_lifetime = 7200
        sandbox_server.link_lifetime = 300

    reset()
    try:
        yield sandbox_server
    finally:
        reset()
