"""The API clients on an in-process transport: endpoints, tokens, retries, errors, downloads."""

from __future__ import annotations

import asyncio
import logging
import socket
import traceback
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from conftest import API, CREDENTIALS, DOWNLOADS, IMAGE, FakeClock, FakeService

from mediashortcodes import __version__
from mediashortcodes.client.async_client import AsyncClient, client_from_config
from mediashortcodes.client.sync_client import Client, sync_client_from_config
from mediashortcodes.config import Config
from mediashortcodes.errors import (
    AuthenticationError,
    ConfigError,
    InvalidResponseError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    ServiceError,
    ServiceUnreachableError,
)
from mediashortcodes.records import Crop, Usage, WebPage

SECRETS = (CREDENTIALS.client_id, CREDENTIALS.client_secret, CREDENTIALS.refresh_token)


JSON = {"content-type": "application/json"}


def sync_client(fake: FakeService, **kwargs) -> tuple[Client, list[float]]:
    sleeps: list[float] = []
    kwargs.setdefault("sleep", sleeps.append)
    client = Client(API, CREDENTIALS, transport=fake.transport(), download_url=DOWNLOADS, **kwargs)
    return client, sleeps


def async_client(fake: FakeService, **kwargs) -> tuple[AsyncClient, list[float]]:
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    kwargs.setdefault("sleep", sleep)
    client = AsyncClient(
        API, CREDENTIALS, transport=fake.async_transport(), download_url=DOWNLOADS, **kwargs
    )
    return client, sleeps


# Endpoints ---------------------------------------------------------------------------------

FIELDS = (
    "id,name,filename,filesize,type,smallpreview,thumbpreview,mark,uploaded,"
    "uploadedby,gdprstatus,gdprtype,mediaid,alttext"
)


@pytest.mark.parametrize(
    ("call", "method", "path", "params"),
    [
        (lambda c: c.folders(), "GET", "/1/foldertree", {"fields": "all"}),
        (
            lambda c: c.files(2),
            "GET",
            "/1/folder/2/files",
            {"fields": FIELDS, "type": "any", "processed": "true"},
        ),
        (lambda c: c.search("harb"), "GET", "/1/search/file", {"query": "harb", "fields": FIELDS}),
        (lambda c: c.download_info(10, 0), "GET", "/1/file/10/download/0", {}),
        (lambda c: c.download_info(10, 7), "GET", "/1/file/10/download/7", {}),
        (
            lambda c: c.download_info(10, -1, Crop(w=50, h=40, x1=1, x2=51, y1=2, y2=42)),
            "GET",
            "/1/file/10/download/-1",
            {"w": "50", "h": "40", "x1": "1", "x2": "51", "y1": "2", "y2": "42"},
        ),
        (lambda c: c.formats(), "GET", "/1/format", {}),
        (
            lambda c: c.report_usage(Usage(ids=(10,), web=WebPage("https://s/p/", "P"))),
            "POST",
            "/1/files/multiple/usages",
            {},
        ),
    ],
)
def test_each_endpoint_sends_the_documented_method_path_query_and_bearer_header(
    fake, call, method, path, params
):
    client, _ = sync_client(fake)
    call(client)
    token_request, request = fake.requests
    assert token_request.url.path == "/1/oauth2/token"
    assert (request.method, request.url.path, dict(request.url.params)) == (method, path, params)
    assert request.headers["authorization"] == "Bearer access-token-1-T0K"
    assert request.url.host == "api.example.com"


def test_the_token_request_sends_the_refresh_token_grant_with_all_three_credentials(fake):
    client, _ = sync_client(fake)
    client.formats()
    params = dict(fake.requests[0].url.params)
    assert fake.requests[0].method == "GET"
    assert params == {
        "grant_type": "refresh_token",
        "client_id": CREDENTIALS.client_id,
        "client_secret": CREDENTIALS.client_secret,
        "refresh_token": CREDENTIALS.refresh_token,
    }
    assert "authorization" not in fake.requests[0].headers


def test_answers_are_mapped_from_camel_case_into_typed_records(fake):
    client, _ = sync_client(fake)
    folders = client.folders()
    files = client.files(2)
    info = client.download_info(10, 0)[0]
    formats = client.formats()
    assert folders[1].parent == 1 and folders[0].has_children and folders[2].archived
    image, video = files
    assert image.type.extension == "jpg" and image.uploaded_by == 5 and image.media_id is None
    assert image.gdpr_type == "NO_PERSON" and image.thumb_preview == "https://p/t.jpg"
    assert video.media_id == "m-11" and video.is_video
    assert info.download_url.startswith("https://dl.example.com/dn/") and info.expires_in == 300
    assert [(f.id, f.name, f.width) for f in formats] == [(7, "Thumb", 150), (8, "Wide", None)]


def test_search_returns_files_matching_the_query(fake):
    client, _ = sync_client(fake)
    assert [f.id for f in client.search("launch")] == [11]


def test_usage_is_posted_as_json_with_removed_as_text_by_default(fake):
    client, _ = sync_client(fake)
    usage = Usage(ids=(10, 11), web=WebPage("https://site/a/", "A"), project="P", removed=True)
    client.report_usage(usage)
    client.report_usage(usage, removed_as_bool=True)
    post = fake.requests[1]
    assert post.headers["content-type"] == "application/json"
    assert fake.usages[0]["removed"] == "true" and fake.usages[1]["removed"] is True
    assert fake.usages[0]["id"] == [10, 11]
    assert fake.usages[0]["web"] == {"page": "https://site/a/", "pageName": "A"}


def test_every_request_carries_a_user_agent_with_the_package_version(fake):
    client, _ = sync_client(fake)
    client.formats()
    client.download(f"{DOWNLOADS}/dn/X/file", max_bytes=10_000)
    agents = {r.headers["user-agent"] for r in fake.requests}
    assert len(agents) == 1 and f"mediashortcodes/{__version__}" in agents.pop()


def test_bad_arguments_are_refused_before_any_request(fake):
    client, _ = sync_client(fake)
    with pytest.raises(ValueError, match="format -1"):
        client.download_info(10, 0, Crop(w=1, h=1, x1=0, x2=1, y1=0, y2=1))
    with pytest.raises(ValueError, match="needs a Crop"):
        client.download_info(10, -1)
    with pytest.raises(ValueError, match="non-empty"):
        client.search("  ")
    with pytest.raises(ValueError, match="folder id"):
        client.files("2")  # type: ignore[arg-type]
    assert fake.requests == []


# Tokens ------------------------------------------------------------------------------------


def test_creating_a_client_makes_no_request(fake):
    sync_client(fake)
    async_client(fake)
    assert fake.requests == []


def test_one_access_token_is_reused_for_many_calls(fake):
    client, _ = sync_client(fake)
    client.folders()
    client.files(2)
    client.formats()
    assert client.stats.token == 1 and fake.issued == 1
    assert client.stats.total == 4


def test_a_new_token_is_fetched_shortly_before_the_old_one_expires(fake):
    clock = FakeClock(1000.0)
    client, _ = sync_client(fake, clock=clock, token_margin=60)
    client.formats()
    clock.now += 7200 - 61
    client.formats()
    assert fake.issued == 1
    clock.now += 2
    client.formats()
    assert fake.issued == 2
    assert fake.requests[-1].headers["authorization"] == "Bearer access-token-2-T0K"


def test_a_short_lived_token_is_renewed_halfway_instead_of_on_every_call(fake):
    fake.expires_in = 30
    clock = FakeClock(1000.0)
    client, _ = sync_client(fake, clock=clock, token_margin=60)
    client.formats()
    clock.now += 14
    client.formats()
    assert fake.issued == 1
    clock.now += 2
    client.formats()
    assert fake.issued == 2


def test_a_401_fetches_one_fresh_token_and_retries_the_call(fake):
    client, _ = sync_client(fake)
    client.formats()
    fake.revoke()
    assert [f.id for f in client.formats()] == [7, 8]
    assert fake.issued == 2 and client.stats.formats == 3


def test_a_second_401_raises_an_authentication_error_naming_the_variables(fake):
    client, _ = sync_client(fake)
    fake.inject("/1/format", httpx.Response(401), count=2)
    with pytest.raises(AuthenticationError) as caught:
        client.formats()
    message = str(caught.value)
    assert "MEDIASHORTCODES_CLIENT_ID" in message and "MEDIASHORTCODES_REFRESH_TOKEN" in message
    assert fake.issued == 2 and caught.value.status == 401


def test_refused_credentials_raise_an_authentication_error_without_secrets(fake):
    fake.inject("/1/oauth2/token", httpx.Response(401, text=f"bad {CREDENTIALS.client_secret}"))
    client, _ = sync_client(fake)
    with pytest.raises(AuthenticationError, match="MEDIASHORTCODES_CLIENT_SECRET") as caught:
        client.folders()
    assert not any(s in str(caught.value) for s in SECRETS)


async def test_concurrent_async_calls_share_a_single_token_request(fake):
    client, _ = async_client(fake)
    async with client:
        results = await asyncio.gather(*(client.files(2) for _ in range(20)))
    assert len(results) == 20 and fake.issued == 1 and client.stats.token == 1


async def test_concurrent_401s_lead_to_one_refresh_only(fake):
    client, _ = async_client(fake)
    async with client:
        await client.formats()
        fake.revoke()
        await asyncio.gather(*(client.formats() for _ in range(10)))
    assert fake.issued == 2


def test_threads_on_the_sync_client_share_a_single_token_request(fake):
    client, _ = sync_client(fake)
    with client, ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: client.folders(), range(16)))
    assert len(results) == 16 and fake.issued == 1


# Retries -----------------------------------------------------------------------------------


def test_a_429_is_retried_after_the_seconds_in_retry_after(fake):
    fake.inject("/1/format", httpx.Response(429, headers={"Retry-After": "3"}))
    client, sleeps = sync_client(fake)
    assert len(client.formats()) == 2
    assert sleeps == [3.0] and client.stats.formats == 2


def test_a_long_wait_asked_by_the_service_is_announced_once(fake, caplog):
    # Without a word, a build that waits two minutes for the service looks stuck.
    fake.inject("/1/format", httpx.Response(429, headers={"Retry-After": "120"}), count=2)
    fake.inject("/1/foldertree", httpx.Response(503, headers={"Retry-After": "1"}))
    client, sleeps = sync_client(fake, retry_total_seconds=600)
    with caplog.at_level(logging.WARNING, logger="mediashortcodes"):
        client.formats()
        client.folders()
    assert sleeps == [120.0, 120.0, 1.0]
    assert [r.getMessage() for r in caplog.records] == [
        "the service answered HTTP 429; waiting 120 s to try again"
    ]


def test_retry_after_as_an_http_date_is_honoured(fake):
    far_future = "Fri, 01 Jan 2100 00:00:00 GMT"
    fake.inject("/1/format", httpx.Response(429, headers={"Retry-After": far_future}))
    client, sleeps = sync_client(fake, retry_total_seconds=45)
    client.formats()
    assert sleeps == [pytest.approx(45.0, abs=1)]  # far in the future: capped at the budget


def test_5xx_answers_are_retried_with_growing_jittered_backoff(fake):
    fake.inject("/1/foldertree", httpx.Response(503), count=3)
    client, sleeps = sync_client(fake)
    client.folders()
    assert len(sleeps) == 3
    for n, wait in enumerate(sleeps, start=1):
        assert 0.5 * 2 ** (n - 1) / 2 <= wait <= 0.5 * 2 ** (n - 1)


def test_connection_errors_and_timeouts_are_retried(fake):
    fake.inject("/1/format", httpx.ConnectError("refused"))
    fake.inject("/1/format", httpx.ReadTimeout("slow"))
    client, sleeps = sync_client(fake)
    assert len(client.formats()) == 2 and len(sleeps) == 2


def test_when_retries_run_out_on_429_a_rate_limited_error_says_what_to_do(fake):
    fake.inject("/1/format", httpx.Response(429), count=10)
    client, sleeps = sync_client(fake, max_retries=3)
    with pytest.raises(RateLimitedError, match="max_retries") as caught:
        client.formats()
    assert client.stats.formats == 4 and len(sleeps) == 3
    assert "4 attempts" in str(caught.value)


def test_when_retries_run_out_on_5xx_a_server_error_is_raised(fake):
    fake.inject("/1/format", httpx.Response(502), count=10)
    client, _ = sync_client(fake, max_retries=2)
    with pytest.raises(ServerError, match="HTTP 502"):
        client.formats()


def test_an_unreachable_service_raises_after_retries_with_a_redacted_message(fake):
    secret_url = f"{API}/1/oauth2/token?client_secret={CREDENTIALS.client_secret}"
    fake.inject("/1/oauth2/token", httpx.ConnectError(f"cannot connect to {secret_url}"), count=9)
    client, _ = sync_client(fake, max_retries=2)
    with pytest.raises(ServiceUnreachableError, match="base_url") as caught:
        client.formats()
    shown = "".join(traceback.format_exception(caught.value))
    assert not any(s in shown for s in SECRETS) and "ConnectError: cannot connect" in shown


@pytest.mark.parametrize(
    "broken", [httpx.ReadError("reset by peer"), httpx.RemoteProtocolError("closed mid-answer")]
)
def test_a_connection_that_breaks_after_connecting_is_not_blamed_on_base_url(fake, broken):
    # The service was reached (and may have acted): "check base_url" would send the user
    # hunting for a typo that is not there.
    fake.inject("/1/format", broken, count=9)
    client, _ = sync_client(fake, max_retries=1)
    with pytest.raises(ServiceUnreachableError) as caught:
        client.formats()
    assert "the connection to the service broke during" in str(caught.value)
    assert "base_url" not in str(caught.value)


def test_a_host_name_that_does_not_exist_is_not_asked_again(fake):
    # A placeholder or mistyped base_url: six attempts would only add twelve seconds.
    unknown = httpx.ConnectError("[Errno -2] Name or service not known")
    unknown.__context__ = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    fake.inject("/1/format", unknown, count=9)
    client, sleeps = sync_client(fake)
    with pytest.raises(ServiceUnreachableError, match="host name is unknown") as caught:
        client.formats()
    assert sleeps == [] and client.stats.formats == 1
    assert "base_url" in str(caught.value) and "sandbox = true" in str(caught.value)


def test_a_resolver_that_is_down_is_asked_again(fake):
    down = httpx.ConnectError("[Errno -3] Temporary failure in name resolution")
    down.__context__ = socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    fake.inject("/1/format", down)
    client, sleeps = sync_client(fake)
    assert len(client.formats()) == 2 and len(sleeps) == 1


def test_the_total_time_budget_bounds_the_retries(fake):
    clock = FakeClock(1000.0)
    fake.inject("/1/format", httpx.Response(503, headers={"Retry-After": "20"}), count=10)

    def sleep(seconds: float) -> None:
        clock.now += seconds

    client, _ = sync_client(fake, clock=clock, sleep=sleep, retry_total_seconds=50)
    with pytest.raises(ServerError):
        client.formats()
    assert client.stats.formats == 4  # waits 20, 20, then the 10 s left, then gives up


@pytest.mark.parametrize("status", [501, 505, 511])
def test_a_5xx_that_names_a_permanent_state_is_not_asked_again(fake, status):
    fake.inject("/1/foldertree", httpx.Response(status, text="not here"), count=10)
    client, sleeps = sync_client(fake)
    with pytest.raises(ServiceError, match=f"HTTP {status}") as caught:
        client.folders()
    assert sleeps == [] and client.stats.folders == 1 and caught.value.status == status


def test_the_client_id_names_the_integration_in_messages(fake):
    # It is no secret (the picker shows it): masked, it hid which integration was refused.
    body = f"integration {CREDENTIALS.client_id} may not list folders"
    fake.inject("/1/foldertree", httpx.Response(422, text=body))
    client, _ = sync_client(fake)
    with pytest.raises(ServiceError) as caught:
        client.folders()
    assert body in str(caught.value)


@pytest.mark.parametrize("status", [400, 403, 409, 422])
def test_other_errors_raise_at_once(fake, status):
    fake.inject("/1/foldertree", httpx.Response(status, text="nope"))
    client, sleeps = sync_client(fake)
    with pytest.raises(ServiceError) as caught:
        client.folders()
    assert sleeps == [] and client.stats.folders == 1 and caught.value.status == status


def test_a_missing_file_raises_not_found_naming_the_file(fake):
    client, _ = sync_client(fake)
    with pytest.raises(NotFoundError) as caught:
        client.download_info(999, 0)
    assert str(caught.value) == (
        "file 999 does not exist or is not visible to this integration; "
        "check the id or ask the service operator for access"
    )


def test_a_missing_folder_raises_not_found_naming_the_folder(fake):
    client, _ = sync_client(fake)
    with pytest.raises(NotFoundError, match="folder 77 does not exist"):
        client.files(77)


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(200, text="<html>", headers={"content-type": "text/html"}), "content type"),
        (
            httpx.Response(200, text="{nope", headers={"content-type": "application/json"}),
            "invalid JSON",
        ),
        (httpx.Response(200, json={"folders": []}), "JSON array"),
        (httpx.Response(200, json=[{"name": "no id"}]), "'id'"),
        # JSON numbers too large for a float read as infinity, which no int can hold.
        (httpx.Response(200, text='[{"id": 1, "depth": 1e400}]', headers=JSON), "unreadable"),
    ],
)
def test_unreadable_answers_raise_invalid_response(fake, response, message):
    fake.inject("/1/foldertree", response, count=10)  # unreadable on every retry too
    client, _ = sync_client(fake)
    with pytest.raises(InvalidResponseError, match=message):
        client.folders()


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(503, text="<html>", headers={"content-type": "text/html"}),
        httpx.Response(200, text="<html>", headers={"content-type": "text/html"}),
        httpx.Response(200, text="[{", headers={"content-type": "application/json"}),
    ],
)
def test_a_get_answered_once_with_something_unreadable_is_asked_again(fake, response):
    fake.inject("/1/foldertree", response)
    client, sleeps = sync_client(fake)
    assert [f.id for f in client.folders()] == [1, 2, 3]
    assert client.stats.folders == 2 and len(sleeps) == 1


def test_a_token_answer_that_is_not_json_is_asked_for_again(fake):
    fake.inject("/1/oauth2/token", httpx.Response(200, text="<html>maintenance</html>"))
    client, _ = sync_client(fake)
    assert client.formats()
    assert client.stats.token == 2


async def test_the_async_client_asks_again_after_an_unreadable_answer(fake):
    bad_json = httpx.Response(200, text="{", headers={"content-type": "application/json"})
    fake.inject("/1/format", bad_json)
    client, sleeps = async_client(fake)
    async with client:
        assert [f.id for f in await client.formats()] == [7, 8]
    assert client.stats.formats == 2 and len(sleeps) == 1


def test_a_token_lifetime_too_large_for_a_float_is_an_invalid_response(fake):
    answer = '{"access_token": "t", "token_type": "Bearer", "expires_in": 1e400}'
    fake.inject("/1/oauth2/token", httpx.Response(200, text=answer, headers=JSON), count=10)
    client, _ = sync_client(fake)
    with pytest.raises(InvalidResponseError, match="expires_in"):
        client.folders()


def test_a_token_answer_without_access_token_is_an_invalid_response(fake):
    fake.inject("/1/oauth2/token", httpx.Response(200, json={"token_type": "Bearer"}))
    client, _ = sync_client(fake)
    with pytest.raises(InvalidResponseError, match="access_token"):
        client.formats()


# Downloads ---------------------------------------------------------------------------------


def test_a_download_never_carries_the_access_token(fake):
    client, _ = sync_client(fake)
    url = client.download_info(10, 0)[0].download_url
    assert client.download(url, max_bytes=10_000) == IMAGE
    assert client.download(f"{API}/dn/ON-API-HOST/file", max_bytes=10_000)
    downloads = [r for r in fake.requests if r.url.path.startswith("/dn/")]
    assert len(downloads) == 2 and all("authorization" not in r.headers for r in downloads)
    assert client.stats.download == 2


@pytest.mark.parametrize(
    ("url", "setting"),
    [
        ("https://evil.example.net/dn/x/file", "allowed_download_hosts"),
        ("http://dl.example.com/dn/x/file", "allow_http_downloads"),
        ("ftp://dl.example.com/x", "https"),
    ],
)
def test_a_download_link_outside_the_policy_is_refused_naming_the_setting(fake, url, setting):
    client, _ = sync_client(fake)
    with pytest.raises(InvalidResponseError, match=setting):
        client.download(url, max_bytes=10_000)
    assert fake.requests == []


def test_allowed_download_hosts_admits_an_extra_host(fake):
    fake.download_host = "cdn.other.net"
    client, _ = sync_client(fake, allowed_download_hosts=("cdn.other.net",))
    assert client.download("https://cdn.other.net/dn/x/file", max_bytes=10_000) == IMAGE


def test_a_redirect_to_a_host_outside_the_policy_is_refused(fake):
    fake.inject("/dn/", httpx.Response(302, headers={"location": "https://evil.test/steal"}))
    client, _ = sync_client(fake)
    with pytest.raises(InvalidResponseError, match=r"evil\.test"):
        client.download(f"{DOWNLOADS}/dn/x/file", max_bytes=10_000)


def test_a_redirect_within_the_policy_is_followed(fake):
    fake.inject("/dn/", httpx.Response(302, headers={"location": "/dn/moved/file"}))
    client, _ = sync_client(fake)
    assert client.download(f"{DOWNLOADS}/dn/x/file", max_bytes=10_000) == IMAGE
    assert fake.paths()[-1] == "/dn/moved/file"


def test_a_download_larger_than_max_bytes_is_refused(fake):
    client, _ = sync_client(fake)
    with pytest.raises(InvalidResponseError, match="max_bytes"):
        client.download(f"{DOWNLOADS}/dn/x/file", max_bytes=len(IMAGE) - 1)


def test_a_streamed_download_without_length_is_cut_at_max_bytes(fake):
    async def chunks():
        yield b"x" * 600
        yield b"x" * 600

    def chunked(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=chunks())

    fake.inject("/dn/", chunked)
    client, _ = sync_client(fake)
    with pytest.raises(InvalidResponseError, match="larger than the limit of 1000"):
        client.download(f"{DOWNLOADS}/dn/x/file", max_bytes=1000)


def test_a_truncated_download_is_retried_then_raises_invalid_response(fake):
    short = httpx.Response(200, content=b"abc", headers={"content-length": "10"})
    fake.inject("/dn/", short, count=10)
    client, sleeps = sync_client(fake, max_retries=2)
    with pytest.raises(InvalidResponseError, match="cut off"):
        client.download(f"{DOWNLOADS}/dn/x/file", max_bytes=10_000)
    assert client.stats.download == 3 and len(sleeps) == 2


def test_a_download_is_retried_on_503(fake):
    fake.inject("/dn/", httpx.Response(503, headers={"Retry-After": "1"}))
    client, sleeps = sync_client(fake)
    assert client.download(f"{DOWNLOADS}/dn/x/file", max_bytes=10_000) == IMAGE
    assert sleeps == [1.0]


def test_an_expired_download_link_says_to_run_again(fake):
    fake.inject("/dn/", httpx.Response(403))
    client, _ = sync_client(fake)
    with pytest.raises(NotFoundError, match="run again"):
        client.download(f"{DOWNLOADS}/dn/x/file", max_bytes=10_000)


async def test_the_async_client_downloads_with_the_same_checks(fake):
    client, _ = async_client(fake)
    async with client:
        info = (await client.download_info(10, 0))[0]
        assert await client.download(info.download_url, max_bytes=10_000) == IMAGE
        with pytest.raises(InvalidResponseError, match="max_bytes"):
            await client.download(info.download_url, max_bytes=5)
        with pytest.raises(InvalidResponseError, match="allowed_download_hosts"):
            await client.download("https://elsewhere.test/x", max_bytes=5)


async def test_the_async_client_retries_and_reports_like_the_sync_one(fake):
    fake.inject("/1/format", httpx.Response(429, headers={"Retry-After": "2"}))
    fake.inject("/1/folder/", httpx.Response(500), count=10)
    client, sleeps = async_client(fake, max_retries=1)
    async with client:
        assert len(await client.formats()) == 2
        with pytest.raises(ServerError):
            await client.files(2)
    assert sleeps[0] == 2.0 and client.stats.files == 2


# Redaction ---------------------------------------------------------------------------------


def test_no_secret_reaches_the_logs_even_at_debug_level(fake, caplog):
    caplog.set_level(logging.DEBUG)
    fake.inject("/1/format", httpx.Response(429))
    client, _ = sync_client(fake)
    client.formats()
    client.download(client.download_info(10, 0)[0].download_url, max_bytes=10_000)
    fake.revoke()
    fake.inject("/1/oauth2/token", httpx.Response(401))
    with pytest.raises(AuthenticationError):
        client.folders()
    text = caplog.text + " ".join(r.getMessage() for r in caplog.records)
    assert "HTTP Request: GET https://api.example.com/1/oauth2/token" in text  # httpx did log
    for secret in (*SECRETS, "access-token-1-T0K", "DLTOKEN10", "SID1"):
        assert secret not in text


def test_reprs_show_no_secret(fake):
    client, _ = sync_client(fake)
    client.formats()
    info = client.download_info(10, 0)[0]
    shown = repr(client) + repr(client._async._tokens) + repr(info) + repr(CREDENTIALS)
    assert not any(s in shown for s in (*SECRETS[1:], "access-token-1-T0K", "DLTOKEN10"))


# Construction ------------------------------------------------------------------------------


@pytest.mark.parametrize("base_url", ["", "api.example.com", "ftp://api.example.com"])
def test_a_bad_base_url_is_a_config_error_naming_the_setting(base_url):
    with pytest.raises(ConfigError, match="MEDIASHORTCODES_BASE_URL"):
        Client(base_url, CREDENTIALS)


def test_clients_from_config_take_the_service_settings(fake, tmp_path):
    config = Config(root=tmp_path).with_service(
        base_url=API, download_url=DOWNLOADS, max_retries=1, allowed_download_hosts=("x.test",)
    )
    fake.inject("/1/format", httpx.Response(503), count=5)
    client = sync_client_from_config(config, CREDENTIALS, transport=fake.transport())
    client._sleep = lambda seconds: None
    with pytest.raises(ServerError, match="2 attempts"):
        client.formats()
    assert isinstance(client_from_config(config, CREDENTIALS), AsyncClient)
    with pytest.raises(ConfigError, match="open_service"):
        client_from_config(Config(root=tmp_path).with_service(sandbox=True), CREDENTIALS)
