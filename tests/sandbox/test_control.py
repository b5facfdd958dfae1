"""Knobs: latency, failures, lifetimes, statistics; in-process and over /_sandbox/."""

from __future__ import annotations

import httpx
import pytest

from .conftest import download_info


def test_stats_count_requests_per_endpoint(sb, api, auth):
    api.get("/1/format", headers=auth)
    api.get("/1/format", headers=auth)
    httpx.get(download_info(api, auth, 101, 0)["downloadURL"])
    assert sb.stats == {"token": 1, "formats": 2, "download_info": 1, "download": 1}


def test_reset_stats_starts_the_count_again(sb, api, auth):
    sb.reset_stats()
    assert sb.stats == {}


def test_latency_delays_every_request_on_both_hosts(sb, api, media, sleeps):
    sb.set_latency(25)
    api.get("/1/format")
    media.get("/js/mediaflowplayer.min.js")
    assert sleeps == [0.025, 0.025]


def test_an_injected_429_carries_retry_after_and_stops_after_its_count(sb, api, auth):
    sb.fail(429, count=2, retry_after=3, path_prefix="/1/format")
    answers = [api.get("/1/format", headers=auth) for _ in range(3)]
    assert [r.status_code for r in answers] == [429, 429, 200]
    assert answers[0].headers["Retry-After"] == "3"
    assert answers[0].json()["error"] == "injected_failure"


def test_failures_hit_only_their_path_prefix(sb, api, auth):
    sb.fail(503, path_prefix="/dn/")
    info = download_info(api, auth, 101, 0)
    assert httpx.get(info["downloadURL"]).status_code == 503


def test_a_failure_rate_is_deterministic_for_a_seed(api, auth):
    from mediashortcodes.sandbox import Sandbox

    def pattern() -> list[int]:
        with Sandbox(seed=11) as sandbox, httpx.Client(base_url=sandbox.base_url) as client:
            sandbox.fail(500, rate=0.5, path_prefix="/1/format")
            return [client.get("/1/format").status_code for _ in range(20)]

    first = pattern()
    assert first == pattern() and {500, 401} == set(first)


def test_status_zero_drops_the_connection(sb, api):
    sb.fail(0, count=1)
    with pytest.raises(httpx.RemoteProtocolError):
        api.get("/1/format")


def test_clear_failures_ends_every_rule(sb, api, auth):
    sb.fail(500)
    sb.clear_failures()
    assert api.get("/1/format", headers=auth).status_code == 200


def test_nonsensical_knobs_are_refused():
    from mediashortcodes.sandbox import Sandbox

    sandbox = Sandbox()
    with pytest.raises(ValueError, match="latency_ms"):
        sandbox.set_latency(-1)
    with pytest.raises(ValueError, match="link_lifetime"):
        sandbox.link_lifetime = 0


# Over HTTP, for a sandbox in another process


def test_usages_and_pages_are_readable_over_http(sb, api, auth):
    body = {"id": [101], "web": {"page": "https://x/a/", "pageName": "A"}}
    api.post("/1/files/multiple/usages", json=body, headers=auth)
    assert api.get("/_sandbox/usages").json() == [body]
    assert api.get("/_sandbox/pages").json() == {"https://x/a/": [101]}


def test_stats_are_readable_over_http_and_not_counted(sb, api, auth):
    api.get("/1/format", headers=auth)
    api.get("/_sandbox/stats")
    assert api.get("/_sandbox/stats").json() == {"token": 1, "formats": 1}


def test_control_sets_knobs_and_adds_failures(sb, api, auth):
    knobs = {"latency_ms": 5, "token_lifetime": 60, "link_lifetime": 30,
             "fail": {"status": 503, "count": 1, "path_prefix": "/1/format"}}  # fmt: skip
    settings = api.post("/_sandbox/control", json=knobs).json()
    assert (settings["latency_ms"], settings["token_lifetime"], settings["link_lifetime"]) == (
        5, 60, 30,
    )  # fmt: skip
    assert settings["failures"][0]["status"] == 503
    assert api.get("/1/format", headers=auth).status_code == 503
    assert api.get("/1/format", headers=auth).status_code == 200


def test_control_actions_revoke_reset_and_clear(sb, api, auth):
    api.post("/1/files/multiple/usages", json={"id": [1], "web": {"page": "p"}}, headers=auth)
    sb.fail(500, path_prefix="/1/search")
    actions = {"revoke_tokens": True, "reset_stats": True, "clear_usages": True,
               "clear_failures": True}  # fmt: skip
    assert api.post("/_sandbox/control", json=actions).status_code == 200
    assert (sb.usages, sb.stats, api.get("/_sandbox/control").json()["failures"]) == ([], {}, [])
    assert api.get("/1/format", headers=auth).status_code == 401


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"latency": 5}, "unknown control keys latency"),
        ({"latency_ms": -5}, "latency_ms must be at least 0"),
        ({"token_lifetime": "long"}, "token_lifetime must be a number"),
        ({"fail": {"status": 200}}, "error status"),
        ({"fail": "503"}, "'fail' must be an object"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_a_bad_control_body_gets_400_and_changes_nothing(sb, api, body, message):
    response = api.post("/_sandbox/control", json=body)
    assert response.status_code == 400 and message in response.json()["message"]
    assert sb.latency_ms == 0 and api.get("/_sandbox/control").json()["failures"] == []


def test_control_paths_ignore_injected_failures(sb, api):
    sb.fail(500)
    assert api.get("/_sandbox/stats").status_code == 200
