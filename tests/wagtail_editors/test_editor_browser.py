"""An editor at work (issue 31, item 6), in headless Chromium against the test project
under ``manage.py runserver`` on 127.0.0.1 (started and stopped by its PID here) and the
session's sandbox: log in, create an article, pick its hero by searching in the chooser,
add a video block and an image through the rich-text button, publish; the public page
shows them and the sandbox records their usage under the page's URL (``report_on_publish``).
Then the editor clears the hero and publishes again: the sandbox receives its removal.
A second editor meets bad input in the same server and browser: a video for an image field,
a file the integration cannot see, the service down while choosing; each gets the modal's
clear message, and the editor goes on to choose, close the modal and save."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("wagtail.admin", reason="needs the [wagtail] extra")
pytest.importorskip("bakery", reason="needs the [wagtail] extra")

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.wagtail]

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "docs" / "images" / "wagtail-chooser.png"
VIDEO_201 = "Xk7Pq2Lm"  # the sandbox video 201's mediaId
SERVER_OPTIONS = ("--noreload", "--insecure")  # one process to stop; static files served
SETTINGS = "wagtail_site.mediasite.runserver_settings"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _django(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "django", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


# The site's address is the server's, so Wagtail's URL of a page is the one visitors use.
SETUP = """
import os
from urllib.parse import urlsplit
from django.contrib.auth.models import User
from wagtail.models import Site
User.objects.create_superuser("editor", "editor@example.org", "a-test-password")
address = urlsplit(os.environ["MEDIASITE_URL"])
site = Site.objects.get(is_default_site=True)
site.hostname, site.port = address.hostname, address.port
site.save()
print(site.root_page_id)
"""


@pytest.fixture(scope="module")
def site(sandbox_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    work = tmp_path_factory.mktemp("runserver")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    config = {
        "service": {
            "base_url": sandbox_server.base_url,
            "player_url": sandbox_server.player_url,
            "static_url": sandbox_server.static_url,
            "download_url": sandbox_server.download_url,
            "allow_http_downloads": True,
            "max_retries": 0,
        },
        "usage": {"contact": "Ann Editor", "project": "Website", "state": str(work / "usage")},
        "cache": {"dir": str(work / "cache")},
        "report_on_publish": True,
    }
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEDIASHORTCODES_")},
        **sandbox_server.env(),
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests")]),
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "MEDIASITE_DB": str(work / "db.sqlite3"),
        "MEDIASITE_MEDIA": str(work / "media"),
        "MEDIASITE_STATIC": str(work / "static"),
        "MEDIASITE_URL": url,
        "MEDIASITE_MEDIASHORTCODES": json.dumps(config),
    }
    _django(env, "migrate", "--verbosity", "0")
    home = int(_django(env, "shell", "-c", SETUP).strip().splitlines()[-1])
    log = (work / "runserver.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "django", "runserver", f"127.0.0.1:{port}", *SERVER_OPTIONS],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_until_up(f"{url}/admin/login/", server)
        yield {"url": url, "home": home, "log": work / "runserver.log"}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


def _wait_until_up(url: str, server: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        if server.poll() is not None:
            raise AssertionError(f"runserver ended with {server.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("runserver did not answer within a minute")


@pytest.fixture
def page(browser: Any, site: dict[str, Any]) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(20_000)
    tab = context.new_page()
    tab.goto(f"{site['url']}/admin/login/")
    tab.fill("#id_username", "editor")
    tab.fill("#id_password", "a-test-password")
    tab.click("button[type=submit]")
    tab.wait_for_url(re.compile(r"/admin/$"))
    try:
        yield tab
    finally:
        context.close()


def _modal(page: Any) -> Any:
    modal = page.locator(".modal-body [data-mediashortcodes-chooser]")
    modal.wait_for()
    return modal


def _insert_block(page: Any, label: str) -> None:
    page.locator("#panel-child-content-body-content button[title='Insert a block']").last.click()
    page.get_by_role("option", name=label, exact=True).click()


def _publish(page: Any) -> None:
    from playwright.sync_api import expect

    page.locator("footer .w-dropdown__toggle, footer .dropdown-toggle").last.click()
    page.locator("button[name='action-publish']").click()
    # Not "could not be published due to validation errors".
    expect(page.locator(".messages")).to_contain_text(re.compile(r"(created and|been) published"))


def test_an_editor_picks_media_in_the_admin_and_publishes(
    page: Any, site: dict[str, Any], sandbox_server: Any
) -> None:
    from playwright.sync_api import expect

    from mediashortcodes.sandbox.usages import is_removal

    sandbox_server.clear_usages()  # the session's sandbox: other tests' reports
    page.goto(f"{site['url']}/admin/pages/add/mediasite/articlepage/{site['home']}/")
    page.fill("#id_title", "Harbour walk")

    # The hero: search in the chooser, as an editor looks for a file.
    page.locator("#id_hero-chooser .chooser__choose-button").click()
    modal = _modal(page)
    modal.locator("#mediashortcodes-q").fill("lake")
    modal.locator("#mediashortcodes-q").press("Enter")
    expect(modal.locator("#mediashortcodes-files-title")).to_contain_text("lake")
    expect(modal.locator(".mediashortcodes-chooser__choice img").first).to_have_js_property(
        "complete", True
    )
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.locator(".modal-content").screenshot(path=str(SCREENSHOT))
    modal.locator(".mediashortcodes-chooser__choice", has_text="Mountain lake at dawn").click()
    expect(page.locator("#id_hero-chooser [data-chooser-title]")).to_have_text(
        "Mountain lake at dawn"
    )
    assert page.input_value("#id_hero") == "101"

    # A video block: its chooser offers videos only.
    _insert_block(page, "Media video")
    page.locator("[data-contentpath='body'] .chooser__choose-button").last.click()
    modal = _modal(page)
    expect(modal).to_contain_text("Showing videos only")
    modal.get_by_role("link", name="Videos", exact=True).click()
    modal.locator(".mediashortcodes-chooser__choice", has_text="Welcome to the park").click()
    expect(page.locator(".chooser__title", has_text="Welcome to the park")).to_be_visible()

    # A text block: an image through the rich-text button.
    _insert_block(page, "Text")
    editor = page.locator("[data-contentpath='body'] .Draftail-Editor").last
    editor.locator("[contenteditable=true]").click()
    page.keyboard.type("A walk along the harbour.")
    page.keyboard.press("Enter")
    page.keyboard.type("/")  # Draftail's insert menu lists the media button
    page.get_by_role("option", name=re.compile("Media image or video")).click()
    modal = _modal(page)
    modal.get_by_role("link", name="Coast", exact=True).click()
    modal.locator(".mediashortcodes-chooser__choice", has_text="Lighthouse").click()
    expect(editor.locator("[data-mediashortcodes-entity='image']")).to_contain_text("Image #109")

    # Publish: the page shows its files, and the sandbox knows where they are used.
    _publish(page)
    url = f"{site['url']}/harbour-walk/"
    html = urllib.request.urlopen(url).read().decode()
    assert re.search(r'<div class="hero-field"><img src="/media/[^"]*mountain-lake-101-', html)
    assert re.search(r'<img src="/media/[^"]*lighthouse-109-', html)  # from the rich text
    assert VIDEO_201 in html  # the video block's player
    assert sandbox_server.pages() == {url: [101, 109, 201]}
    assert {u["web"]["pageName"] for u in sandbox_server.usages} == {"Harbour walk"}

    # Clear the hero and publish again: the sandbox receives its removal.
    page.locator(".messages a", has_text="Edit").click()
    expect(page.locator(".chooser__title", has_text="Welcome to the park")).to_be_visible()
    expect(page.locator("#id_hero-chooser [data-chooser-title]")).to_have_text(
        "Mountain lake at dawn"
    )
    page.locator("#id_hero-chooser [aria-label='Actions']").click()
    page.locator("#id_hero-chooser [data-chooser-action-clear]").click()
    assert page.input_value("#id_hero") == ""
    _publish(page)
    html = urllib.request.urlopen(url).read().decode()
    assert "hero-field" not in html
    assert "lighthouse-109-" in html and VIDEO_201 in html  # the body as it was
    assert sandbox_server.pages() == {url: [109, 201]}
    removals = [(u["web"]["page"], u["id"]) for u in sandbox_server.usages if is_removal(u)]
    assert removals == [(url, [101])]


def _choose_hero(page: Any, search: str) -> Any:
    if page.input_value("#id_hero"):  # "Choose another image" is in the actions menu
        page.locator("#id_hero-chooser [aria-label='Actions']").click()
    page.locator("#id_hero-chooser [data-chooser-action-choose]:visible").click()
    modal = _modal(page)
    modal.locator("#mediashortcodes-q").fill(search)
    modal.locator("#mediashortcodes-q").press("Enter")
    return modal


def test_bad_input_gets_clear_errors_in_the_editor(
    page: Any, site: dict[str, Any], sandbox: Any
) -> None:
    from playwright.sync_api import expect

    page.goto(f"{site['url']}/admin/pages/add/mediasite/articlepage/{site['home']}/")
    page.fill("#id_title", "Bad input")
    alert = page.locator(".modal-body .mediashortcodes-chooser__error")

    # A video for the (image) hero: the chooser keeps it out of the results.
    modal = _choose_hero(page, "Welcome to the park")
    expect(modal.locator("#mediashortcodes-files-title")).to_contain_text("Welcome to the park")
    expect(modal).to_contain_text("Showing images only: this field takes images.")
    expect(modal).to_contain_text("No images here.")
    expect(modal.locator(".mediashortcodes-chooser__choice")).to_have_count(0)

    # A file the integration cannot see (a hidden folder's): search finds nothing, and a
    # link to it (a bookmarked or stale listing's) gets the chooser's message, not a choice.
    # So does a link to a video for the hero: the chosen step checks the kind again.
    modal.locator("#mediashortcodes-q").fill("Unreleased product")
    modal.locator("#mediashortcodes-q").press("Enter")
    expect(modal.locator("#mediashortcodes-files-title")).to_contain_text("Unreleased product")
    expect(modal).to_contain_text("No images here.")
    for file_id, message in (
        (301, "file 301 is not visible to this site's integration"),
        (201, "File 201 (Welcome to the park) is a video; this field takes an image"),
    ):
        modal.evaluate(
            "(modal, url) => { const a = document.createElement('a');"
            " a.href = url; a.textContent = 'link'; a.dataset.mediashortcodesChoice = '';"
            " modal.append(a); a.click(); }",
            f"/admin/mediashortcodes/chooser/{file_id}/?accept=image",
        )
        expect(alert).to_contain_text(message)
        expect(alert).to_contain_text("hoose an")  # "choose another file", "Choose an image"
    assert page.input_value("#id_hero") == ""

    # The editor goes on in the same modal: searches and chooses an image.
    modal = _modal(page)
    modal.locator("#mediashortcodes-q").fill("lake")
    modal.locator("#mediashortcodes-q").press("Enter")
    modal.locator(".mediashortcodes-chooser__choice", has_text="Mountain lake at dawn").click()
    expect(page.locator("#id_hero-chooser [data-chooser-title]")).to_have_text(
        "Mountain lake at dawn"
    )

    # The service down while choosing: the modal says so and what to do; the page is kept.
    sandbox.fail(503)
    modal = _choose_hero(page, "a search never made before")
    expect(alert).to_contain_text("The media service cannot be reached just now")
    expect(alert).to_contain_text("Try again in a moment; pages already saved keep their files.")
    sandbox.clear_failures()
    page.locator(".modal button.close, .modal [data-dismiss='modal']").first.click()
    expect(page.locator(".modal-body")).to_be_hidden()
    expect(page.locator("#id_hero-chooser [data-chooser-title]")).to_have_text(
        "Mountain lake at dawn"
    )
    page.locator("footer button[type=submit]", has_text="Save draft").click()
    expect(page.locator(".messages")).to_contain_text(
        re.compile(r"Page 'Bad input' (created|has been updated)")
    )
    assert page.input_value("#id_hero") == "101"
