"""End to end in headless Chromium against the sandbox: an author picks files and copies
shortcodes, and nothing secret ever reaches the browser."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Response as BrowserResponse

from mediashortcodes.client.sync_client import Client, sync_client_from_config
from mediashortcodes.config import Config, load
from mediashortcodes.language import parse
from mediashortcodes.picker.launch import running_picker
from mediashortcodes.picker.server import PickerServer
from mediashortcodes.sandbox import Sandbox
from mediashortcodes.site.builder import build_site

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def demo_sandbox() -> Iterator[Sandbox]:
    with Sandbox() as running:
        yield running


@pytest.fixture(scope="module")
def service_config(demo_sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Config:
    root = tmp_path_factory.mktemp("picker-site")
    return replace(Config(root=root), service=demo_sandbox.service_config())


@pytest.fixture(scope="module")
def client(service_config: Config, demo_sandbox: Sandbox) -> Iterator[Client]:
    with sync_client_from_config(service_config, demo_sandbox.credentials) as shared:
        yield shared


@pytest.fixture(scope="module")
def picker(service_config: Config, demo_sandbox: Sandbox, client: Client) -> Iterator[PickerServer]:
    with running_picker(service_config, demo_sandbox.credentials, client=client) as server:
        yield server


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    ctx.set_default_timeout(10_000)
    try:
        yield ctx
    finally:
        ctx.close()


def open_picker(context: BrowserContext, server: PickerServer) -> tuple[Page, list]:
    """The picker in a fresh page, with every response the page and its frames receive."""
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.origin)
    responses: list[BrowserResponse] = []
    context.on("response", lambda response: responses.append(response))
    page = context.new_page()
    page.goto(server.url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return page, responses


def copy(page: Page) -> str:
    """Click Copy and return what landed on the clipboard."""
    page.click("#copy")
    expect(page.locator("#copy-status")).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.input_value("#shortcode")
    return copied


def only_shortcode(text: str):  # type: ignore[no-untyped-def]
    result = parse(text, "copied.md")
    assert result.problems == []
    [shortcode] = result.shortcodes
    return shortcode


def pick_cropped_image(page: Page) -> str:
    page.get_by_role("button", name="Nature", exact=True).click()
    expect(page.locator(".card")).not_to_have_count(0)
    page.get_by_role("button", name="Subfolders of Nature").click()
    page.get_by_role("button", name="Forests", exact=True).click()
    expect(page.locator("#files-title")).to_have_text("Forests")
    page.fill("#search-input", "lake")
    page.press("#search-input", "Enter")
    expect(page.locator("#files-title")).to_contain_text("lake")
    page.locator(".card", has_text="Mountain lake at dawn").click()
    expect(page.locator("#alt")).to_have_value(re.compile(r"mountain lake", re.IGNORECASE))

    page.select_option("#format", "custom")
    page.select_option("#aspect", label="square (600×600)")
    expect(page.locator("#preview")).to_have_js_property("complete", True)
    box = page.locator("#preview").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 30, box["y"] + 20)
    page.mouse.down()
    page.mouse.move(box["x"] + 200, box["y"] + 90, steps=6)
    page.mouse.up()
    page.fill("#alt", 'A "calm" lake')
    expect(page.locator("#shortcode")).to_have_value(re.compile(r"alt="))
    return copy(page)


def pick_video(page: Page) -> str:
    page.get_by_role("button", name="Videos", exact=True).click()
    page.locator(".card", has_text="Welcome to the park").click()
    page.check('input[name="embed"][value="script"]')
    expect(page.locator("#shortcode")).to_have_value(re.compile(r"embed=script"))
    # The preview runs the real script embed: the player draws itself in the frame.
    player = page.frame_locator("#embed-preview").locator("[data-mfp-media-id]")
    expect(player).to_have_count(1)
    return copy(page)


def test_an_author_picks_a_cropped_image_and_a_video_and_the_shortcodes_build(
    context: BrowserContext,
    picker: PickerServer,
    demo_sandbox: Sandbox,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page, _ = open_picker(context, picker)

    image_text = pick_cropped_image(page)
    image = only_shortcode(image_text)
    assert image.name == "media_image"
    assert image.option("alt") == 'A "calm" lake'
    crop = image.crop
    assert crop is not None and (crop.w, crop.h, crop.stretch) == (600, 600, True)
    assert abs((crop.x2 - crop.x1) - (crop.y2 - crop.y1)) <= 1  # the square aspect held
    assert 0 <= crop.x1 < crop.x2 <= crop.sw and 0 <= crop.y1 < crop.y2 <= crop.sh

    video_text = pick_video(page)
    video = only_shortcode(video_text)
    assert (video.name, video.option("embed")) == ("media_video", "script")

    site = tmp_path / "site"
    (site / "content").mkdir(parents=True)
    (site / "templates").mkdir()
    (site / "mediashortcodes.toml").write_text('[site]\nbase_url = "https://www.example.org"\n')
    (site / "templates" / "page.html").write_text("<main>{{ page.content }}</main>\n")
    (site / "content" / "index.md").write_text(f"# Picked\n\n{image_text}\n\n{video_text}\n")
    for name, value in demo_sandbox.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("MEDIASHORTCODES_CACHE_DIR", str(tmp_path / "cache"))
    # Playwright's sync API keeps an event loop on this thread; the build runs its own.
    with ThreadPoolExecutor(1) as worker:
        result = worker.submit(build_site, load(site)).result()
    assert result.problems == []
    html = (site / "_site" / "index.html").read_text()
    assert 'alt="A &#34;calm&#34; lake" width="600" height="600"' in html
    assert "new MFPlayer" in html


def test_no_credential_or_access_token_reaches_the_browser(
    context: BrowserContext, picker: PickerServer, demo_sandbox: Sandbox, client: Client
) -> None:
    page, responses = open_picker(context, picker)
    pick_cropped_image(page)
    pick_video(page)
    page.get_by_role("radio", name="Iframe").check()
    expect(page.frame_locator("#embed-preview").locator("iframe")).to_have_count(1)

    credentials = demo_sandbox.credentials
    secrets = set(client.secrets())  # the secret, the refresh token, every access token
    assert {credentials.client_secret, credentials.refresh_token} < secrets
    assert len(secrets) >= 3, "the picker's client holds an access token by now"
    inspected = 0
    for response in responses:
        assert not response.url.startswith(demo_sandbox.base_url), "the page called the API itself"
        head = "\n".join(f"{k}: {v}" for k, v in response.all_headers().items())
        try:
            body = response.body()
        except PlaywrightError:  # a redirect has no body
            body = b""
        for secret in secrets:
            assert secret not in head, response.url
            assert secret.encode() not in body, response.url
        inspected += 1
    urls = [r.url for r in responses]
    assert any("/api/preview/" in url for url in urls)
    assert any("/api/embed" in url for url in urls)
    assert any(url.startswith(demo_sandbox.player_url) for url in urls)
    assert inspected > 10


def test_the_page_speaks_the_chosen_locale(
    context: BrowserContext, service_config: Config, demo_sandbox: Sandbox, client: Client
) -> None:
    with running_picker(
        service_config, demo_sandbox.credentials, client=client, locale="fi_FI"
    ) as fi:
        page, _ = open_picker(context, fi)
        expect(page.locator("h1")).to_have_text("Mediavalitsin")
        expect(page.locator("html")).to_have_attribute("lang", "fi-FI")
        expect(page.locator("#search-input")).to_have_attribute("placeholder", "Hae tiedostoja…")


def test_another_local_page_cannot_load_from_the_picker(
    context: BrowserContext, picker: PickerServer, demo_sandbox: Sandbox
) -> None:
    page, _ = open_picker(context, picker)
    page.get_by_role("button", name="Nature", exact=True).click()
    first = page.locator(".card").first
    file_id = first.get_attribute("data-file")
    own = page.evaluate(
        """(src) => new Promise((done) => {
            const img = new Image(); img.onload = () => done(true); img.onerror = () => done(false);
            img.src = src; })""",
        f"/api/preview/{file_id}/thumb",
    )
    assert own is True
    # Same browser, same cookies, another origin on 127.0.0.1 (the sandbox's player host).
    page.goto(f"{demo_sandbox.player_url}/ovp/11/anything")
    foreign = page.evaluate(
        """(src) => new Promise((done) => {
            const img = new Image(); img.onload = () => done(true); img.onerror = () => done(false);
            img.src = src; })""",
        f"{picker.origin}/api/preview/{file_id}/thumb",
    )
    assert foreign is False


# -- what an author sees in less usual cases ----------------------------------------------


def choose_image(page: Page, folder: str, name: str) -> None:
    page.get_by_role("button", name=folder, exact=True).click()
    page.locator(".card", has_text=name).click()
    expect(page.locator("#image-options")).to_be_visible()


def test_an_untouched_multi_line_alt_text_is_left_to_the_service(
    context: BrowserContext, picker: PickerServer, demo_sandbox: Sandbox
) -> None:
    original = demo_sandbox.library.file(102)
    assert original is not None
    demo_sandbox.library.update(102, alttext="line one\nline two\ttabbed")
    try:
        page, _ = open_picker(context, picker)
        choose_image(page, "Nature", "Meadow flowers")
        # One line, with the line break shown as a space rather than dropped.
        expect(page.locator("#alt")).to_have_value("line one line two tabbed")
        expect(page.locator("#shortcode")).to_have_value("<% media_image 102 original %>")
        page.select_option("#format", index=1)  # the first predefined format
        expect(page.locator("#shortcode")).to_have_value(re.compile(r"^<% media_image 102 \w+ %>$"))
        # An edit is written as typed.
        page.fill("#alt", "Flowers  in a meadow")
        expect(page.locator("#shortcode")).to_have_value(
            re.compile(r'^<% media_image 102 \w+ alt="Flowers in a meadow" %>$')
        )
        # Typed back to what the service says: the override goes again.
        page.fill("#alt", "line one line two tabbed")
        expect(page.locator("#shortcode")).to_have_value(re.compile(r"^<% media_image 102 \w+ %>$"))
    finally:
        demo_sandbox.library.update(102, alttext=original.alttext)


def test_the_output_size_shows_only_for_a_custom_crop(
    context: BrowserContext, picker: PickerServer
) -> None:
    page, _ = open_picker(context, picker)
    choose_image(page, "Nature", "Meadow flowers")
    expect(page.locator("#output-size")).to_be_hidden()
    expect(page.locator("#out-w")).to_be_hidden()
    page.focus("#format")
    page.keyboard.press("Tab")
    expect(page.locator("#alt")).to_be_focused()  # not the hidden width field
    page.select_option("#format", "custom")
    expect(page.locator("#out-w")).to_be_visible()
    expect(page.locator("#out-h")).to_be_visible()
    page.select_option("#format", "original")
    expect(page.locator("#output-size")).to_be_hidden()
    # Nothing that is hidden is drawn: every [hidden] element has no box.
    drawn = page.evaluate(
        """() => [...document.querySelectorAll('[hidden]')]
            .filter((e) => getComputedStyle(e).display !== 'none').map((e) => e.id || e.tagName)"""
    )
    assert drawn == []


def test_the_page_fits_a_phone_screen(browser: Browser, picker: PickerServer) -> None:
    ctx = browser.new_context(viewport={"width": 375, "height": 800})
    ctx.set_default_timeout(10_000)
    try:
        page, _ = open_picker(ctx, picker)
        search = page.locator("#search button")
        expect(search).to_be_visible()
        box = search.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 375
        choose_image(page, "Nature", "Mountain lake at dawn")
        page.select_option("#format", "custom")
        expect(page.locator("#out-w")).to_be_visible()
        page.get_by_role("button", name="Videos", exact=True).click()
        page.locator(".card", has_text="Welcome to the park").click()
        expect(page.locator("#video-options")).to_be_visible()
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.body.scrollWidth]"
        )
        assert widths == [375, 375]
    finally:
        ctx.close()


def test_a_listing_that_fails_says_so_and_can_be_tried_again(
    context: BrowserContext, service_config: Config, demo_sandbox: Sandbox
) -> None:
    # No retries in the client: the failure reaches the page at once.
    config = replace(service_config, service=replace(service_config.service, max_retries=0))
    with running_picker(config, demo_sandbox.credentials) as server:
        try:
            demo_sandbox.fail(500, count=1, path_prefix="/1/foldertree")
            context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.origin)
            page = context.new_page()
            page.goto(server.url)
            tree = page.locator(".tree-pane")
            expect(tree).to_contain_text("Could not load the folders.")
            expect(page.locator("#status")).to_be_visible()
            tree.get_by_role("button", name="Try again").click()
            expect(page.get_by_role("button", name="Nature", exact=True)).to_be_visible()
            expect(page.locator("#status")).to_be_hidden()

            demo_sandbox.fail(500, count=1, path_prefix="/1/folder/")
            page.get_by_role("button", name="Nature", exact=True).click()
            pane = page.locator(".files-pane")
            expect(pane).to_contain_text("Could not load the files.")
            expect(pane).not_to_contain_text("Loading")
            expect(page.locator("#status")).to_be_visible()
            pane.get_by_role("button", name="Try again").click()
            expect(page.locator(".card", has_text="Mountain lake at dawn")).to_be_visible()
            expect(pane.get_by_role("button", name="Try again")).to_have_count(0)
            expect(page.locator("#files-title")).to_have_text("Nature")
        finally:
            demo_sandbox.clear_failures()


def test_the_picker_offers_responsive_widths_and_click_to_load(
    context: BrowserContext, picker: PickerServer
) -> None:
    page, _ = open_picker(context, picker)
    page.fill("#search-input", "lake")
    page.press("#search-input", "Enter")
    page.locator(".card", has_text="Mountain lake at dawn").click()
    page.get_by_label("Responsive widths").fill("960, 480 1440")
    expect(page.locator("#shortcode")).to_have_value(
        '<% media_image 101 original widths="480,960,1440" %>'
    )
    page.select_option("#format", label="thumb (200×200)")
    expect(page.get_by_label("Responsive widths")).to_be_hidden()  # a format cannot be scaled
    expect(page.locator("#shortcode")).to_have_value("<% media_image 101 thumb %>")

    page.get_by_role("button", name="Videos", exact=True).click()
    page.locator(".card", has_text="Welcome to the park").click()
    page.get_by_label("Load the player only when the visitor clicks").check()
    expect(page.locator("#shortcode")).to_have_value(re.compile(r"media_video 201 .*load=click"))
    assert only_shortcode(copy(page)).option("load") == "click"
