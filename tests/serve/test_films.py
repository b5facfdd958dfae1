"""The example site's films, viewed the two documented ways, in headless Chromium: under
``mediashortcodes serve``, and built then browsed through a static web server beside
``mediashortcodes sandbox``. Every film's frame shows the sandbox's player, not an error."""

from __future__ import annotations

import functools
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .test_browser import WAIT_MS, start_serve, stop

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EXAMPLE = Path(__file__).resolve().parents[2] / "example_site"
FILMS = 3  # /videos/: a click-to-load iframe, an iframe and a script embed


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def player_port() -> int:
    """The player's port: the documented 8766 may be taken on a shared test machine, so the
    pages are pointed at a free one the way docs/configuration.md says (the environment)."""
    return free_port()


@pytest.fixture(scope="module")
def env(player_port: int, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEDIASHORTCODES_")}
    env["MEDIASHORTCODES_PLAYER_URL"] = env["MEDIASHORTCODES_STATIC_URL"] = (
        f"http://127.0.0.1:{player_port}"
    )
    env["MEDIASHORTCODES_CACHE_DIR"] = str(tmp_path_factory.mktemp("films-cache"))
    return env


@pytest.fixture
def example(tmp_path: Path) -> Path:
    site = tmp_path / "example_site"
    shutil.copytree(EXAMPLE, site, ignore=shutil.ignore_patterns("_site", ".mediashortcodes"))
    return site


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 2100})
    context.set_default_timeout(WAIT_MS)
    try:
        yield context.new_page()
    finally:
        context.close()


def assert_every_film_shows_the_player(page: Page, films_page: str, player: str) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(films_page)
    page.get_by_role("button", name="Play video: Welcome to the park").click()
    frames = page.locator("iframe")
    expect(frames).to_have_count(FILMS, timeout=WAIT_MS)
    for number in range(FILMS):
        src = frames.nth(number).get_attribute("src") or ""
        assert src.startswith(f"{player}/ovp/11/"), src
        media_id = src.removeprefix(f"{player}/ovp/11/").split("?")[0]
        shown = page.frame_locator("iframe").nth(number).locator("#player")
        expect(shown).to_be_visible(
            timeout=WAIT_MS
        )  # the player's page, not the browser's error page
        expect(shown).to_have_attribute("data-media-id", media_id)
        expect(shown.get_by_role("button", name="Play")).to_be_visible()
    assert errors == []


def screenshot(page: Page, path: Path) -> None:
    for frame in page.frames:
        frame.wait_for_load_state()  # the posters too
    page.screenshot(path=str(path))  # the viewport is tall enough for all three films
    print(f"screenshot of the films page: {path}")


def test_the_example_sites_films_play_under_serve(
    example: Path, env: dict[str, str], player_port: int, page: Page, tmp_path: Path
) -> None:
    player = f"http://127.0.0.1:{player_port}"
    serving = start_serve(example, env)
    try:
        said = serving.printed_until(r"^built ")
        assert f"The films' player (the sandbox's) at {player}/" in said
        assert_every_film_shows_the_player(page, serving.url + "videos/", player)
        screenshot(page, tmp_path / "films-under-serve.png")
    finally:
        stop(serving.process)
    with socket.socket() as again:  # serve's player stopped with it: the port is free again
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as servers bind
        again.bind(("127.0.0.1", player_port))


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def test_the_example_sites_films_play_from_a_static_server_beside_the_sandbox(
    example: Path, env: dict[str, str], player_port: int, page: Page, tmp_path: Path
) -> None:
    player = f"http://127.0.0.1:{player_port}"
    command = [sys.executable, "-m", "mediashortcodes"]
    built = subprocess.run(
        [*command, "build", str(example)], env=env, capture_output=True, text=True, timeout=300
    )
    assert built.returncode == 0, built.stderr
    assert (
        f"The videos play while `mediashortcodes sandbox` runs (their player: {player}), "
        f"or view the site with `mediashortcodes serve {example}`."
    ) in built.stderr
    sandbox = subprocess.Popen(
        [*command, "sandbox", "--port", str(free_port()), "--media-port", str(player_port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    handler = functools.partial(Quiet, directory=str(example / "_site"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert sandbox.stdout is not None
        for line in sandbox.stdout:
            if line.startswith("Press Ctrl-C"):
                break
        site = f"http://127.0.0.1:{server.server_address[1]}"
        assert_every_film_shows_the_player(page, f"{site}/videos/", player)
        screenshot(page, tmp_path / "films-static.png")
    finally:
        server.shutdown()
        server.server_close()
        stop(sandbox)
