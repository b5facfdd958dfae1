"""The API clients against the sandbox over real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from mediashortcodes.client.async_client import AsyncClient
from mediashortcodes.client.sync_client import Client
from mediashortcodes.config import Credentials
from mediashortcodes.errors import (
    AuthenticationError,
    NotFoundError,
    RateLimitedError,
    ServerError,
    ServiceUnreachableError,
)
from mediashortcodes.media.imageinfo import probe
from mediashortcodes.records import Crop, Usage, WebPage

HIDDEN_FOLDER = 8


def client_for(sandbox, sleeps: list[float] | None = None, **kwargs) -> Client:
    recorded = sleeps if sleeps is not None else []
    kwargs.setdefault("credentials", sandbox.credentials)
    return Client(
        sandbox.base_url,
        download_url=sandbox.download_url,
        sleep=recorded.append,
        **kwargs,
    )


def test_folders_lists_the_visible_tree(sandbox):
    with client_for(sandbox) as client:
        folders = client.folders()
    by_id = {f.id: f for f in folders}
    assert by_id[3].parent == 2 and by_id[3].depth == 2 and by_id[1].has_children
    assert HIDDEN_FOLDER not in by_id


def test_files_search_and_formats_answer_typed_records(sandbox):
    with client_for(sandbox) as client:
        files = client.files(2)
        hits = client.search("forest")
        formats = client.formats()
    assert {f.id for f in files} >= {104, 105, 106} and all(f.filename for f in files)
    assert 104 in {f.id for f in hits}
    assert {(f.id, f.name) for f in formats} >= {(1, "thumb"), (3, "medium")}


def test_an_image_downloads_as_original_format_and_crop(sandbox):
    crop = Crop(w=120, h=80, x1=0, x2=600, y1=0, y2=400)
    with client_for(sandbox) as client:
        original = client.download_info(101, 0)[0]
        thumb = client.download_info(101, 1)[0]
        custom = client.download_info(101, -1, crop)[0]
        infos = (original, thumb, custom)
        images = [client.download(i.download_url, max_bytes=10_000_000) for i in infos]
    sizes = [(probe(data).width, probe(data).height) for data in images]
    assert sizes[0] == (1600, 1067)
    assert max(sizes[1]) == 200
    assert sizes[2] == (120, 80)
    assert original.format == "original" and "/custom" in custom.download_url


def test_a_folder_the_integration_may_not_see_is_not_found(sandbox):
    with client_for(sandbox) as client, pytest.raises(NotFoundError, match="folder 8"):
        client.files(HIDDEN_FOLDER)


def test_a_missing_file_is_not_found(sandbox):
    with client_for(sandbox) as client, pytest.raises(NotFoundError, match="file 999999"):
        client.download_info(999999, 0)


def test_usage_reports_reach_the_service(sandbox):
    usage = Usage(ids=(101, 102), web=WebPage("https://site.test/a/", "A"), project="Tests")
    before = len(sandbox.usages)
    with client_for(sandbox) as client:
        client.report_usage(usage)
    body = sandbox.usages[before]
    assert body["id"] == [101, 102] and body["web"]["page"] == "https://site.test/a/"


def test_one_token_serves_many_calls(sandbox):
    with client_for(sandbox) as client:
        client.folders()
        client.files(1)
        client.formats()
    assert sandbox.stats["token"] == 1 and client.stats.token == 1


async def test_concurrent_async_calls_fetch_one_token(sandbox):
    async with AsyncClient(
        sandbox.base_url, sandbox.credentials, download_url=sandbox.download_url
    ) as client:
        results = await asyncio.gather(*(client.files(f) for f in (1, 2, 3, 4, 5, 6, 7) * 3))
    assert len(results) == 21 and sandbox.stats["token"] == 1


def test_a_revoked_token_is_refreshed_once_and_the_call_succeeds(sandbox):
    with client_for(sandbox) as client:
        client.formats()
        sandbox.revoke_tokens()
        assert client.formats()
    assert sandbox.stats["token"] == 2


def test_a_token_is_renewed_before_it_expires(sandbox_server):
    from mediashortcodes.sandbox import Sandbox

    now = [time.time()]

    def clock() -> float:
        return now[0]

    with Sandbox(clock=clock, token_lifetime=600) as sb, client_for(sb, clock=clock) as client:
        client.formats()
        now[0] += 600 - 61
        client.formats()
        assert sb.stats["token"] == 1
        now[0] += 2  # within the last minute of the token's life
        client.formats()
        assert sb.stats["token"] == 2 and sb.stats.get("formats") == 3


def test_an_expired_token_the_client_still_trusted_is_replaced_after_a_401(sandbox_server):
    from mediashortcodes.sandbox import Sandbox

    now = [time.time()]
    with Sandbox(clock=lambda: now[0], token_lifetime=600) as sb:
        with client_for(sb, token_margin=0) as client:  # the client's clock runs slow
            client.formats()
            now[0] += 601
            assert client.formats()
        assert sb.stats["token"] == 2


def test_a_429_is_retried_after_retry_after(sandbox):
    sandbox.fail(429, count=1, retry_after=2, path_prefix="/1/foldertree")
    sleeps: list[float] = []
    with client_for(sandbox, sleeps) as client:
        assert client.folders()
    assert sleeps == [2.0] and sandbox.stats["foldertree"] == 2


def test_a_503_is_retried_with_backoff(sandbox):
    sandbox.fail(503, count=2, path_prefix="/1/format")
    sleeps: list[float] = []
    with client_for(sandbox, sleeps) as client:
        assert client.formats()
    assert len(sleeps) == 2 and sleeps[1] > sleeps[0] / 2


def test_a_download_is_retried_on_503(sandbox):
    sleeps: list[float] = []
    with client_for(sandbox, sleeps) as client:
        url = client.download_info(102, 0)[0].download_url
        sandbox.fail(503, count=1, retry_after=1, path_prefix="/dn/")
        assert probe(client.download(url, max_bytes=10_000_000)).width == 1200
    assert sleeps == [1.0]


def test_when_retries_run_out_the_error_says_what_happened_and_what_to_do(sandbox):
    sandbox.fail(503, path_prefix="/1/format")
    with client_for(sandbox, max_retries=2) as client, pytest.raises(ServerError) as caught:
        client.formats()
    assert "HTTP 503" in str(caught.value) and "3 attempts" in str(caught.value)
    sandbox.clear_failures()
    sandbox.fail(429, path_prefix="/1/format")
    with client_for(sandbox, max_retries=1) as client, pytest.raises(RateLimitedError):
        client.formats()


def test_dropped_connections_are_retried_then_reported_unreachable(sandbox):
    sandbox.fail(0, count=1, path_prefix="/1/format")
    with client_for(sandbox) as client:
        assert client.formats()
    sandbox.fail(0, path_prefix="/1/format")
    with client_for(sandbox, max_retries=1) as client, pytest.raises(ServiceUnreachableError):
        client.formats()


def test_wrong_credentials_raise_an_authentication_error(sandbox):
    wrong = Credentials("someone", "not-the-secret", "not-the-token")
    with client_for(sandbox, credentials=wrong) as client, pytest.raises(AuthenticationError):
        client.folders()


def test_no_credential_or_token_appears_in_logs_or_errors(sandbox, caplog):
    caplog.set_level(logging.DEBUG)
    secrets_seen: list[str] = []
    errors: list[str] = []
    creds = Credentials("cid-XK3", "secret-XK3", "refresh-XK3")

    with client_for(sandbox) as client:
        client.formats()
        client.download(client.download_info(101, 1)[0].download_url, max_bytes=10_000_000)
        sandbox.fail(429, count=1, path_prefix="/1/oauth2/token")
        sandbox.revoke_tokens()
        client.folders()
        secrets_seen.extend(client.secrets())
    with client_for(sandbox, credentials=creds) as client:
        try:
            client.folders()
        except AuthenticationError as exc:
            errors.append(str(exc))
    sandbox.fail(503, path_prefix="/1/oauth2/token")
    with client_for(sandbox, credentials=creds, max_retries=1) as client:
        try:
            client.folders()
        except ServerError as exc:
            errors.append(str(exc))

    # The sandbox's own access log is the server side; everything else is ours or httpx's.
    client_side = [r for r in caplog.records if not r.name.startswith("mediashortcodes.sandbox")]
    text = "\n".join(r.getMessage() for r in client_side) + "\n".join(errors)
    assert len(errors) == 2 and "HTTP Request: GET" in text
    demo = sandbox.credentials
    for secret in (
        *secrets_seen,
        creds.client_id,
        creds.client_secret,
        creds.refresh_token,
        demo.client_id,
        demo.client_secret,
        demo.refresh_token,
    ):
        assert secret not in text
