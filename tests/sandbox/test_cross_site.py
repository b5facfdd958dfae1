"""A web page the developer visits cannot steer a running sandbox or read its usage
reports: the control and usage paths refuse other sites and rebound host names, and carry
no CORS header. Real sockets, as a browser would reach them."""

from __future__ import annotations

import pytest

EVIL = "http://evil.example"


@pytest.mark.parametrize(
    "headers",
    [{"Origin": EVIL}, {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}],
    ids=["origin", "cross-site", "same-site"],
)
def test_a_cross_site_request_cannot_steer_the_sandbox(sb, api, headers) -> None:
    before = api.get("/_sandbox/control").json()
    steer = api.post("/_sandbox/control", json={"latency_ms": 5000}, headers=headers)
    assert steer.status_code == 403
    assert "access-control-allow-origin" not in steer.headers
    assert api.get("/_sandbox/control").json() == before


@pytest.mark.parametrize("path", ["/_sandbox/usages", "/_sandbox/pages", "/_sandbox/stats"])
def test_a_cross_site_or_rebound_request_cannot_read_the_usage_reports(sb, api, path) -> None:
    assert api.get(path, headers={"Origin": EVIL}).status_code == 403
    port = sb.base_url.rsplit(":", 1)[1]
    rebound = api.get(path, headers={"Host": f"evil.example:{port}"})
    assert rebound.status_code == 421
    own = api.get(path)
    assert own.status_code == 200
    assert "access-control-allow-origin" not in own.headers


def test_a_preflight_for_the_control_from_another_site_is_not_allowed(sb, api) -> None:
    preflight = api.options(
        "/_sandbox/control",
        headers={"Origin": EVIL, "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in preflight.headers


def test_a_page_cannot_report_usage_to_the_sandbox(sb, api) -> None:
    token = api.get(
        "/1/oauth2/token",
        params={
            "grant_type": "refresh_token",
            "client_id": sb.credentials.client_id,
            "client_secret": sb.credentials.client_secret,
            "refresh_token": sb.credentials.refresh_token,
        },
    ).json()["access_token"]
    usage = {"id": [101], "contact": "x", "date": "2026-01-01", "amount": "1",
             "description": "", "project": "x", "types": ["web"], "removed": "false",
             "web": {"page": "https://evil.example/", "pageName": "evil"}}  # fmt: skip
    posted = api.post(
        "/1/files/multiple/usages",
        json=usage,
        headers={"Authorization": f"Bearer {token}", "Origin": EVIL},
    )
    assert posted.status_code == 403
    assert sb.usages == []


def test_the_service_api_stays_readable_from_a_page(sb, api) -> None:
    answer = api.get("/1/format", headers={"Origin": EVIL})
    assert answer.headers["access-control-allow-origin"] == "*"
