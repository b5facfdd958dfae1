"""LiveRenderer during an outage: a page, and the pages after it, do not wait on the service.

The service is the in-process fake; what is asserted is what it receives (no timings: speed
is measured in benchmarks). Cool-downs run on an injected clock.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import httpx
import pytest
from conftest import API, CREDENTIALS, FakeClock, FakeService

from mediashortcodes.config import Config, Credentials
from mediashortcodes.errors import (
    AuthenticationError,
    ServerError,
    ServiceUnreachableError,
)
from mediashortcodes.media.cache import MediaCache, namespace_for
from mediashortcodes.wagtail.live import LiveRenderer
from mediashortcodes.wagtail.outage import OutageBreaker

from .conftest import Make, shortcode

# A page of nine shortcodes: cached ones first (once warmed), then files never seen.
PAGE = [
    "<% media_image 10 %>",
    "<% media_image 10 7 %>",
    "<% media_video 11 %>",
    "<% media_image 10 original %>",
    "<% media_image 12 %>",
    "<% media_image 13 %>",
    "<% media_image 14 thumb %>",
    "<% media_video 15 %>",
    "<% media_image 16 %>",
]
WARM = PAGE[:3]
MISSING = 'class="mediashortcodes-missing"'
REFUSED = httpx.ConnectError("connection refused")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(1000.0)


@pytest.fixture
def make(make: Make, config: Config, clock: FakeClock) -> Make:
    """Renderers on the test's clock; ``stale=True`` reads the disk cache as if every metadata
    entry were past its TTL."""

    def factory(
        credentials: Credentials = CREDENTIALS, *, stale: bool = False, **kwargs: Any
    ) -> LiveRenderer:
        if stale:
            later = time.time() + 10 * config.cache.metadata_ttl
            kwargs["cache"] = MediaCache(
                config.cache_dir, namespace_for(API, False), ttl=60, clock=lambda: later
            )
        kwargs.setdefault("clock", clock)
        return make(credentials, **kwargs)

    return factory


def render_page(live: LiveRenderer) -> list[str]:
    return [str(live.render(shortcode(text))) for text in PAGE]


def warm(make: Make) -> None:
    with make() as live:
        for text in WARM:
            assert MISSING not in live.render(shortcode(text))


def tokens_asked(fake: FakeService) -> int:
    return sum(path == "/1/oauth2/token" for path in fake.paths())


# -- within one page ---------------------------------------------------------------------------


def test_an_unreachable_service_is_asked_once_per_page_not_once_per_shortcode(
    make: Make, fake: FakeService
) -> None:
    fake.inject("/1/", REFUSED, count=100)
    html = render_page(make())
    assert all(MISSING in h for h in html)
    assert len(fake.requests) == 1  # the first shortcode's token request; nothing after it


def test_a_service_failing_with_5xx_is_asked_once_per_page(make: Make, fake: FakeService) -> None:
    fake.inject("/1/", httpx.Response(503), count=100)
    html = render_page(make())
    assert all(MISSING in h for h in html)
    assert len(fake.requests) == 1


def test_during_an_outage_cached_copies_past_their_ttl_are_used_with_a_warning(
    make: Make, fake: FakeService, caplog: pytest.LogCaptureFixture
) -> None:
    warm(make)
    fake.requests.clear()
    fake.inject("/1/", httpx.Response(503), count=100)
    with caplog.at_level(logging.WARNING, logger="mediashortcodes"):
        html = render_page(make(stale=True))
    assert [MISSING in h for h in html] == [False] * 4 + [True] * 5
    assert "<img" in html[0] and "<img" in html[1] and "m-11" in html[2]
    assert len(fake.requests) == 1
    assert "using cached metadata" in caplog.text


def test_refused_credentials_fetch_one_token_and_fall_back_to_cached_copies(
    make: Make, fake: FakeService, caplog: pytest.LogCaptureFixture
) -> None:
    warm(make)
    fake.requests.clear()
    wrong = Credentials("client-id-Q7", "wrong-secret-W9", "refresh-token-R3FR")
    with caplog.at_level(logging.WARNING, logger="mediashortcodes"):
        html = render_page(make(wrong, stale=True))
    assert [MISSING in h for h in html] == [False] * 4 + [True] * 5
    assert tokens_asked(fake) == len(fake.requests) == 1
    for secret in (*wrong.secrets(), *CREDENTIALS.secrets()):
        assert secret not in caplog.text
        assert all(secret not in h for h in html)


def test_an_outage_during_downloads_stops_the_rest_of_the_page(
    make: Make, fake: FakeService
) -> None:
    live = make()
    live.render(shortcode("<% media_video 11 %>"))  # metadata cached, the service known up
    fake.requests.clear()
    fake.inject("/1/file/", httpx.Response(502), count=100)
    html = [live.render(shortcode(f"<% media_image 10 {fmt} %>")) for fmt in (0, 7, 8, 9)]
    assert all(MISSING in h for h in html)
    assert fake.paths() == ["/1/file/10/download/0"]


# -- from one request to the next ----------------------------------------------------------------


def test_after_an_outage_the_next_pages_ask_nothing_until_the_cooldown_ends(
    make: Make, fake: FakeService, clock: FakeClock
) -> None:
    live = make(outage_cooldown=30)
    fake.inject("/1/", REFUSED, count=1)  # one failure, then the service is back
    render_page(live)
    assert len(fake.requests) == 1
    clock.now += 29
    assert all(MISSING in h for h in render_page(live))
    assert len(fake.requests) == 1  # still cooling down: no request at all
    clock.now += 2
    html = render_page(live)  # the first page after the cool-down asks again, and is served
    assert [MISSING in h for h in html] == [False] * 4 + [True] * 5
    assert tokens_asked(fake) == 2


def test_a_failed_retry_after_the_cooldown_starts_a_new_cooldown(
    make: Make, fake: FakeService, clock: FakeClock
) -> None:
    live = make(outage_cooldown=30)
    fake.inject("/1/", REFUSED, count=100)
    render_page(live)
    clock.now += 31
    render_page(live)
    assert len(fake.requests) == 2
    clock.now += 29
    render_page(live)
    assert len(fake.requests) == 2


def test_a_file_that_does_not_exist_is_no_outage(make: Make, fake: FakeService) -> None:
    live = make()
    html = [live.render(shortcode(text)) for text in ("<% media_image 999 %>", *WARM)]
    assert MISSING in html[0]
    assert all(MISSING not in h for h in html[1:])


def test_an_export_still_stops_on_an_outage_and_asks_once(make: Make, fake: FakeService) -> None:
    live = make(on_missing="fail")
    fake.inject("/1/", httpx.Response(503), count=100)
    with pytest.raises(ServerError):
        live.render(shortcode("<% media_image 10 %>"))
    with pytest.raises(ServiceUnreachableError):
        live.render(shortcode("<% media_video 11 %>"))
    assert len(fake.requests) == 1


def test_concurrent_views_during_an_outage_send_nothing(make: Make, fake: FakeService) -> None:
    live = make()
    fake.inject("/1/", REFUSED, count=100)
    live.render(shortcode("<% media_image 10 %>"))
    pages: list[list[str]] = []
    threads = [threading.Thread(target=lambda: pages.append(render_page(live))) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(pages) == 6 and all(MISSING in h for page in pages for h in page)
    assert len(fake.requests) == 1


# -- the breaker itself ------------------------------------------------------------------------


def test_after_the_cooldown_one_caller_probes_and_the_others_keep_waiting() -> None:
    clock = FakeClock(1000.0)
    breaker = OutageBreaker(30, clock)
    first, second = object(), object()
    assert breaker.blocked(first) is None  # closed: everyone asks
    breaker.failed(ServerError("HTTP 503", status=503))
    assert isinstance(breaker.blocked(first), ServiceUnreachableError)
    clock.now += 30
    assert breaker.blocked(first) is None  # the probe
    assert breaker.blocked(first) is None  # ... for all of its own calls
    assert breaker.blocked(second) is not None  # the others wait for its verdict
    breaker.release(first)  # it ended without asking (a warm page): the next one probes
    assert breaker.blocked(second) is None
    breaker.answered()
    assert breaker.blocked(first) is None and breaker.blocked(object()) is None


def test_the_cooldown_message_keeps_the_cause_and_its_kind() -> None:
    breaker = OutageBreaker(30, FakeClock(1000.0))
    breaker.failed(AuthenticationError("the service refused the credentials", status=401))
    blocked = breaker.blocked(object())
    assert blocked is not None
    assert str(blocked) == "the service refused the credentials"
    assert isinstance(blocked.cause, AuthenticationError)
