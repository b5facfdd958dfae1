"""Fault kinds beyond error statuses, seen from a client over real sockets."""

from __future__ import annotations

import socket

import httpx
import pytest

from mediashortcodes.sandbox.faults import FAULT_KINDS, FailureRule, FaultInjector

from .conftest import download_info


def test_reset_makes_the_client_read_a_connection_reset(sb, api):
    sb.fault("reset", count=1, path_prefix="/1/format")
    with pytest.raises(httpx.ReadError, match="reset"):
        api.get("/1/format")
    assert api.get("/1/format").status_code == 401  # the rule is used up: answered again


def test_stall_waits_the_given_seconds_before_answering(sb, api, sleeps):
    sb.fault("stall", seconds=1.5, count=1)
    assert api.get("/1/format").status_code == 401
    assert sleeps == [1.5]


def test_a_stall_longer_than_the_client_timeout_is_a_read_timeout():
    from mediashortcodes.sandbox import Sandbox

    with Sandbox() as sandbox, httpx.Client(base_url=sandbox.base_url, timeout=0.1) as client:
        sandbox.fault("stall", seconds=0.5, count=1)
        with pytest.raises(httpx.ReadTimeout):
            client.get("/1/format")


def test_revoke_tokens_refuses_the_request_that_fires_it_and_later_ones_with_old_tokens(
    sb, api, auth
):
    sb.fault("revoke_tokens", count=1, path_prefix="/1/format")
    assert api.get("/1/foldertree", headers=auth).status_code == 200
    assert api.get("/1/format", headers=auth).status_code == 401
    assert api.get("/1/foldertree", headers=auth).status_code == 401


def test_truncate_announces_the_whole_body_and_sends_half(sb, api, media, auth):
    info = download_info(api, auth, 101, 1)
    whole = media.get(info["downloadURL"]).content
    sb.fault("truncate", count=1, path_prefix="/dn/")
    with pytest.raises(httpx.RemoteProtocolError, match="complete message"):
        media.get(info["downloadURL"])
    assert media.get(info["downloadURL"]).content == whole


def test_bad_json_answers_200_with_json_type_and_a_body_that_does_not_parse(sb, api, auth):
    sb.fault("bad_json", count=1, path_prefix="/1/foldertree")
    response = api.get("/1/foldertree", headers=auth)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    with pytest.raises(ValueError):
        response.json()


def test_wrong_type_answers_an_html_page(sb, api, auth):
    sb.fault("wrong_type", count=1)
    response = api.get("/1/foldertree", headers=auth)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert "<title>" in response.text


def test_foreign_link_points_download_links_elsewhere_and_nothing_else(sb, api, auth):
    sb.fault("foreign_link", url="https://evil.example.net/", path_prefix="/1/file/")
    info = download_info(api, auth, 101, 0)
    assert info["downloadURL"].startswith("https://evil.example.net/dn/")
    assert api.get("/1/foldertree", headers=auth).status_code == 200


def test_oversize_sends_the_size_without_announcing_it(sb, api, media, auth):
    info = download_info(api, auth, 101, 0)
    sb.fault("oversize", size=300_000, path_prefix="/dn/")
    response = media.get(info["downloadURL"])
    assert response.status_code == 200
    assert "content-length" not in response.headers
    assert response.headers["content-type"] == "image/jpeg"
    assert len(response.content) == 300_000


def test_a_kind_can_be_set_through_the_control_endpoint(sb, api):
    answer = api.post("/_sandbox/control", json={"fail": {"kind": "reset", "count": 1}})
    assert answer.status_code == 200
    assert answer.json()["failures"][0]["kind"] == "reset"
    with pytest.raises(httpx.ReadError):
        api.get("/1/format")


def test_issued_tokens_lists_revoked_tokens_too(sb, auth):
    token = auth["Authorization"].removeprefix("Bearer ")
    sb.revoke_tokens()
    assert token in sb.issued_tokens()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "flood"}, "unknown"),
        ({"kind": "reset", "status": 503}, "no status"),
        ({"kind": "stall", "seconds": 0}, "seconds"),
        ({"kind": "oversize"}, "size"),
        ({"kind": "foreign_link"}, "url"),
    ],
)
def test_a_nonsensical_fault_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        FailureRule(**kwargs)


def test_every_kind_is_described_and_counted_like_a_status_rule():
    assert set(FAULT_KINDS) >= {"status", "reset", "stall", "truncate", "bad_json"}
    faults = FaultInjector()
    faults.add(FailureRule(kind="wrong_type", count=1, path_prefix="/1/"))
    assert faults.check("/dn/x/original") is None
    assert faults.check("/1/format") is not None
    assert faults.check("/1/format") is None


def test_a_reset_connection_does_not_stop_the_server(sb):
    sb.fault("reset", count=1)
    host, port = sb.base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as raw:
        raw.sendall(b"GET /1/format HTTP/1.1\r\nHost: x\r\n\r\n")
        with pytest.raises(ConnectionResetError):
            raw.recv(1024)
    with httpx.Client(base_url=sb.base_url) as client:
        assert client.get("/1/format").status_code == 401
