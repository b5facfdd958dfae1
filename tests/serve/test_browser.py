"""The author's loop for real: ``mediashortcodes serve`` in its own process, a page open in
headless Chromium, Markdown edited on disk, the service stopped mid-session."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from mediashortcodes.sandbox import Sandbox
from mediashortcodes.site.scaffold import write_new_site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WAIT_MS = 20_000  # a generous bound on a shared machine; nothing here is timed


@dataclass
class Serving:
    process: subprocess.Popen[str]
    url: str
    lines: queue.Queue[str]  # everything it prints, both streams, as it comes
    reader: threading.Thread

    def printed_after_exit(self) -> list[str]:
        """What is left to read once the process ended."""
        self.reader.join(timeout=WAIT_MS / 1000)
        return [self.lines.get() for _ in range(self.lines.qsize())]

    def printed_until(self, pattern: str) -> list[str]:
        """Lines printed from now until one matches ``pattern`` (a regex)."""
        seen = []
        while True:
            line = self.lines.get(timeout=WAIT_MS / 1000)
            seen.append(line)
            if re.search(pattern, line):
                return seen


def start_serve(site: Path, env: dict[str, str]) -> Serving:
    process = subprocess.Popen(
        [sys.executable, "-m", "mediashortcodes", "serve", str(site), "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    serving = Serving(process, "", lines, reader)
    banner = serving.printed_until(r"^Serving .* at http://127\.0\.0\.1:\d+/$")[-1]
    serving.url = banner.rsplit(" at ", 1)[1]
    return serving


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as running:
        yield running


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site from ``init``, asking the test's sandbox (whose URLs come from the
    environment) instead of starting one per build: the test can stop it."""
    root = tmp_path_factory.mktemp("authored")
    write_new_site(root)
    config = root / "mediashortcodes.toml"
    config.write_text(config.read_text().replace("\nsandbox = true\n", "\n"), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def serve_env(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDIASHORTCODES_")}
    env.update(sandbox.env())
    env["MEDIASHORTCODES_CACHE_DIR"] = str(tmp_path_factory.mktemp("serve-cache"))
    return env


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    context.set_default_timeout(WAIT_MS)
    try:
        yield context.new_page()
    finally:
        context.close()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_edits_reload_the_page_problems_show_over_it_and_an_outage_keeps_it_served(
    site: Path, sandbox: Sandbox, serve_env: dict[str, str], page: Page
) -> None:
    serving = start_serve(site, serve_env)
    try:
        page.goto(serving.url)
        expect(page.locator("h1")).to_have_text("Welcome")
        expect(page.locator("figure img")).to_have_attribute("src", re.compile(r"mountain-lake"))
        page.evaluate("window.notReloaded = true")
        index = site / "content" / "index.md"

        # A saved edit shows in the open page by itself, with a new image fetched once.
        sandbox.reset_stats()
        edit(index, "A video,", "Freshly written words, then an image:\n\n"
             '<% media_image 112 small alt="The skyline" %>\n\nA video,')  # fmt: skip
        expect(page.locator("main")).to_contain_text("Freshly written words")
        expect(page.get_by_alt_text("The skyline")).to_have_attribute(
            "src", re.compile(r"^/media/skyline-night-112-")
        )
        assert page.evaluate("window.notReloaded") is None  # a real reload, not a patch
        assert sandbox.stats.get("download", 0) == 1

        # A broken shortcode: its place and message over the page, the last good page below.
        page.evaluate("window.notReloaded = true")
        edit(index, "Freshly written words", "Broken <% media_image 101 colour=red %> words")
        overlay = page.locator("#mediashortcodes-overlay")
        expect(overlay).to_be_visible()
        expect(overlay.locator(".mediashortcodes-place")).to_have_text(
            re.compile(r"content/index\.md:\d+:\d+$")
        )
        expect(overlay).to_contain_text("unknown key 'colour'")
        expect(page.locator("main")).to_contain_text("Freshly written words")
        # Fixing it clears the overlay.
        edit(index, "Broken <% media_image 101 colour=red %> words", "Mended words")
        expect(page.locator("main")).to_contain_text("Mended words")
        expect(overlay).to_have_count(0)

        # The service goes away: a new file becomes a placeholder, serving goes on.
        sandbox.stop()
        edit(index, "Mended words", "Written offline <% media_image 113 %>")
        expect(page.locator("main")).to_contain_text("Written offline")
        expect(page.locator(".mediashortcodes-missing")).to_have_attribute("data-file-id", "113")
        expect(page.get_by_alt_text("The skyline")).to_be_visible()  # cached: still there
        assert serving.process.poll() is None
        assert sandbox.usages == []  # nothing was ever reported
        assert not (site / "_site").exists()  # the site's own output was never touched
    finally:
        stop(serving.process)


def test_ctrl_c_stops_it_with_one_line(site: Path, serve_env: dict[str, str]) -> None:
    serving = start_serve(site, serve_env)
    try:
        serving.printed_until(r"^built ")
        serving.process.send_signal(signal.SIGINT)
        assert serving.process.wait(timeout=WAIT_MS / 1000) == 0
        assert serving.printed_after_exit() == ["Stopped."]
        assert not list((site / ".mediashortcodes").glob("serve-*"))  # its builds are gone
    finally:
        stop(serving.process)
