"""Reporting through the real API client over an in-process transport."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import httpx

from mediashortcodes.client.async_client import client_from_config
from mediashortcodes.config import Config, Credentials, ServiceConfig, UsageConfig
from mediashortcodes.usage.manifest import Manifest
from mediashortcodes.usage.reporting import report_usage

SITE = "https://s.org"
ACCESS_TOKEN = "the-access-token"
SECRETS = Credentials("client", "the-client-secret", "the-refresh-token")


def service(handler) -> httpx.MockTransport:
    def route(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/1/oauth2/token":
            return httpx.Response(
                200, json={"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 7200}
            )
        return handler(request)

    return httpx.MockTransport(route)


def config(tmp_path: Path) -> Config:
    return Config(
        root=tmp_path,
        service=ServiceConfig(base_url="https://api.test", max_retries=2, retry_total_seconds=1),
        usage=UsageConfig(contact="Ann", project="Web"),
    )


async def test_each_report_is_a_json_post_to_the_usages_endpoint(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    cfg = config(tmp_path)
    manifest = Manifest.from_pages(SITE, [(f"{SITE}/a/", "A", [4, 2])])
    async with client_from_config(cfg, SECRETS, transport=service(handler)) as client:
        result = await report_usage(cfg, manifest, client=client, today=dt.date(2024, 1, 2))
    assert not result.failed
    (request,) = seen
    assert (request.method, request.url.path) == ("POST", "/1/files/multiple/usages")
    assert request.headers["content-type"] == "application/json"
    assert request.headers["authorization"] == f"Bearer {ACCESS_TOKEN}"
    assert json.loads(request.content) == {
        "id": [2, 4],
        "contact": "Ann",
        "date": "2024-01-02",
        "amount": "1",
        "description": "",
        "project": "Web",
        "types": ["web"],
        "removed": "false",
        "web": {"page": f"{SITE}/a/", "pageName": "A"},
    }


async def test_a_passing_server_error_is_retried_by_the_client(tmp_path: Path) -> None:
    answers = iter([httpx.Response(503), httpx.Response(200, json={})])
    cfg = config(tmp_path)
    manifest = Manifest.from_pages(SITE, [(f"{SITE}/a/", "A", [1])])
    transport = service(lambda request: next(answers))
    async with client_from_config(cfg, SECRETS, transport=transport) as client:
        result = await report_usage(cfg, manifest, client=client)
    assert not result.failed
    assert result.pages_reported == 1


async def test_a_failed_page_names_the_error_and_no_secret(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    manifest = Manifest.from_pages(SITE, [(f"{SITE}/a/", "A", [1]), (f"{SITE}/b/", "B", [2])])

    def handler(request: httpx.Request) -> httpx.Response:
        if json.loads(request.content)["web"]["page"] == f"{SITE}/b/":
            return httpx.Response(400, json={"error": "bad usage"})
        return httpx.Response(200, json={})

    async with client_from_config(cfg, SECRETS, transport=service(handler)) as client:
        result = await report_usage(cfg, manifest, client=client)
    assert [f.url for f in result.failed] == [f"{SITE}/b/"]
    assert "400" in result.failed[0].error
    for secret in (*SECRETS.secrets(), ACCESS_TOKEN):
        assert secret not in result.failed[0].error
    state = Manifest.load(cfg.usage_state_path).pages
    assert (state[f"{SITE}/a/"].files, state[f"{SITE}/b/"].files) == ((1,), ())
