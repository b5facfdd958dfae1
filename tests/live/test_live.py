"""LiveRenderer: shortcodes resolved while a page renders, against the in-process fake."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest
from conftest import CREDENTIALS, FakeService

from mediashortcodes.config import Config, Credentials
from mediashortcodes.errors import (
    ConfigError,
    ContentError,
    Problem,
    ServiceUnreachableError,
)
from mediashortcodes.wagtail.live import LiveRenderer, Publication

from .conftest import PLAYER, Make, shortcode


def test_an_image_is_published_under_the_publication_and_served_from_its_url(
    make: Make, tmp_path: Path, jpeg: bytes
) -> None:
    html = make().render(shortcode("<% media_image 10 %>"))
    published = list((tmp_path / "media_root" / "media").iterdir())
    assert [p.read_bytes() for p in published] == [jpeg]
    assert f'src="/media/media/{published[0].name}"' in html
    assert 'alt="A harbour" width="4" height="3"' in html


def test_a_video_renders_its_embed_from_the_files_media_id(make: Make) -> None:
    html = make().render(shortcode("<% media_video 11 %>"))
    assert f'src="{PLAYER}/ovp/11/m-11"' in html


def test_a_warm_cache_renders_without_any_request(make: Make, fake: FakeService) -> None:
    make().render(shortcode("<% media_image 10 %>"))
    before = len(fake.requests)
    html = make().render(shortcode("<% media_image 10 %>"))  # a new process, the same cache
    assert "<img" in html
    assert len(fake.requests) == before


def test_one_client_and_one_token_serve_every_render(make: Make, fake: FakeService) -> None:
    live = make()
    live.render(shortcode("<% media_image 10 %>"))
    live.render(shortcode("<% media_image 10 7 %>"))
    live.render(shortcode("<% media_video 11 %>"))
    assert fake.issued == 1


def test_a_missing_file_becomes_a_visible_placeholder_and_a_warning(
    make: Make, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="mediashortcodes"):
        html = make().render(shortcode("\n  <% media_image 999 %>"))
    assert 'class="mediashortcodes-missing"' in html
    assert 'data-file-id="999"' in html
    assert "page.html:2:3: file 999" in caplog.text


def test_a_warning_is_logged_once_however_often_the_page_renders(
    make: Make, caplog: pytest.LogCaptureFixture
) -> None:
    live = make()
    with caplog.at_level(logging.WARNING, logger="mediashortcodes"):
        for _ in range(3):
            live.render(shortcode("<% media_image 999 %>"))
    assert len(caplog.records) == 1


def test_a_missing_file_fails_an_export_with_its_location(make: Make) -> None:
    with pytest.raises(ContentError) as raised:
        make(on_missing="fail").render(shortcode("<% media_image 999 %>"))
    (problem,) = raised.value.problems
    assert (problem.path, problem.line, problem.col) == ("page.html", 1, 1)
    assert "file 999" in problem.message


def test_an_image_shortcode_on_a_video_is_a_placeholder_that_says_so(make: Make) -> None:
    html = make().render(shortcode("<% media_image 11 %>"))
    assert "is a video; use media_video" in html


def test_an_unreachable_service_shows_a_placeholder_live(make: Make, fake: FakeService) -> None:
    fake.inject("/1/", httpx.ConnectError("connection refused"), count=10)
    html = make().render(shortcode("<% media_image 10 %>"))
    assert 'data-file-id="10"' in html


def test_an_unreachable_service_stops_an_export(make: Make, fake: FakeService) -> None:
    fake.inject("/1/", httpx.ConnectError("connection refused"), count=10)
    with pytest.raises(ServiceUnreachableError):
        make(on_missing="fail").render(shortcode("<% media_image 10 %>"))


def test_refused_credentials_never_show_the_secret(make: Make) -> None:
    wrong = Credentials("client-id-Q7", "wrong-secret-W9", "refresh-token-R3FR")
    html = make(credentials=wrong).render(shortcode("<% media_image 10 %>"))
    assert 'class="mediashortcodes-missing"' in html
    for secret in (*wrong.secrets(), *CREDENTIALS.secrets()):
        assert secret not in html


def test_a_malformed_shortcode_is_shown_live_and_fails_an_export(make: Make) -> None:
    problem = Problem("page.html", 3, 5, "unknown key 'colour' <b>")
    html = make().problem(problem)
    assert 'data-location="page.html:3:5"' in html
    assert "unknown key &#39;colour&#39; &lt;b&gt;" in html
    with pytest.raises(ContentError, match=r"page\.html:3:5"):
        make(on_missing="fail").problem(problem)


async def test_rendering_works_from_inside_a_running_event_loop(make: Make) -> None:
    html = make().render(shortcode("<% media_image 10 %>"))
    assert "<img" in html


def test_close_ends_the_resolution_thread(make: Make) -> None:
    live = make()
    live.render(shortcode("<% media_video 11 %>"))
    thread = live._loop.thread if live._loop else None
    live.close()
    assert thread is not None and not thread.is_alive()
    live.close()  # twice is harmless


def test_a_closed_renderer_can_render_again(make: Make) -> None:
    live = make()
    live.render(shortcode("<% media_video 11 %>"))
    live.close()
    assert "m-11" in live.render(shortcode("<% media_video 11 %>"))


@pytest.mark.parametrize("media_dir", ["", "/", "../up", "a/../../b"])
def test_a_media_dir_outside_the_root_is_refused(media_dir: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="media_dir"):
        Publication.under(tmp_path, "/media/", media_dir)


def test_on_missing_must_be_placeholder_or_fail(config: Config, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="placeholder or fail"):
        LiveRenderer(config, Publication(tmp_path, "/m/"), on_missing="ignore")


def test_public_names_are_exported() -> None:
    from mediashortcodes.wagtail import live

    for name in live.__all__:
        assert hasattr(live, name)


def test_missing_credentials_raise_instead_of_hiding_in_a_placeholder(
    config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEDIASHORTCODES_CLIENT_ID", "client-id-Q7")
    monkeypatch.delenv("MEDIASHORTCODES_CLIENT_SECRET", raising=False)
    with (
        LiveRenderer(config, Publication(tmp_path / "m", "/m/")) as live,
        pytest.raises(
            ConfigError, match=r"set the environment variables? .*MEDIASHORTCODES_CLIENT_SECRET"
        ),
    ):
        live.render(shortcode("<% media_image 10 %>"))
