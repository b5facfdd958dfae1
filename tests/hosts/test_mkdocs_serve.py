"""`mkdocs serve` with the plugin: edits rebuild from the cache, a new shortcode is fetched
once, a malformed one is shown on its page, an unreachable service gives a placeholder
while serving goes on, nothing is reported."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .sites import BIN, PAGES, mkdocs_yml, requests, write_files

pytest.importorskip("mkdocs")
pytest.importorskip("material")

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError("the served site did not change in time")


@pytest.fixture
def served(
    tmp_path: Path, host_env: dict[str, str], sandbox_server: Any
) -> Iterator[tuple[Path, str]]:
    write_files(tmp_path / "docs", PAGES)
    # One quick retry: an unreachable service must not hold a rebuild for a minute.
    yml = mkdocs_yml(sandbox_server).replace(
        'static_url: "', 'max_retries: 1, retry_total_seconds: 1, static_url: "'
    )
    write_files(tmp_path, {"mkdocs.yml": yml})
    port = free_port()
    process = subprocess.Popen(
        [str(BIN / "mkdocs"), "serve", "-a", f"127.0.0.1:{port}"],
        cwd=tmp_path,
        env=host_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/docs/"
    try:
        wait_for(lambda: _get(base + "plain/") is not None, 120)
        yield tmp_path, base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        sandbox_server.clear_failures()


def _get(url: str) -> str | None:
    try:
        answer = httpx.get(url, timeout=5)
    except httpx.HTTPError:
        return None
    return answer.text if answer.status_code == 200 else None


def test_serve_rebuilds_from_the_cache_fetches_new_ones_once_and_survives_an_outage(
    served: tuple[Path, str], sandbox_server: Any
) -> None:
    project, base = served
    sandbox_server.clear_usages()
    page = project / "docs/plain.md"

    sandbox_server.reset_stats()
    page.write_text("# No shortcodes\n\nEdited <% media_image 101 %>\n")
    wait_for(lambda: "Edited" in (_get(base + "plain/") or ""))
    assert requests(sandbox_server) == 0  # every page's references are in the cache

    page.write_text("# No shortcodes\n\nNew <% media_image 107 %>\n")
    wait_for(lambda: "-107-original-" in (_get(base + "plain/") or ""))
    html = _get(base + "plain/") or ""
    images = [part.split('"')[0] for part in html.split('<img src="')[1:]]
    assert len(images) == 1 and "-107-original-" in images[0]
    assert httpx.get(base + "plain/" + images[0], timeout=5).status_code == 200
    assert sandbox_server.stats.get("download") == 1  # fetched once

    # A typo goes on serving, and the page says what is wrong where the shortcode stands.
    page.write_text("# No shortcodes\n\nBroken <% media_image 101 widht=3 %>\n")
    wait_for(lambda: "Broken" in (_get(base + "plain/") or ""))
    html = _get(base + "plain/") or ""
    assert 'class="mediashortcodes-missing"' in html
    assert "docs/plain.md:3:27: unknown key &#39;widht&#39; for media_image" in html

    sandbox_server.fail(0)  # the service drops every connection
    page.write_text("# No shortcodes\n\nOffline <% media_image 108 %>\n")
    wait_for(lambda: "Offline" in (_get(base + "plain/") or ""))
    assert "mediashortcodes-missing" in (_get(base + "plain/") or "")
    assert "media_image 108" in (_get(base + "plain/") or "")
    assert _get(base) is not None  # the rest of the site is served as before
    assert sandbox_server.usages == []  # a preview reports nothing
