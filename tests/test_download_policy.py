"""The download host policy: which download links the client follows."""

from __future__ import annotations

import pytest

from mediashortcodes.client.download_policy import (
    DownloadPolicy,
    DownloadRejectedError,
    parent_domain,
)
from mediashortcodes.errors import InvalidResponseError

POLICY = DownloadPolicy(
    base_url="https://api.media.example.com", download_url="https://dl.other.net"
)


@pytest.mark.parametrize(
    "url",
    [
        "https://dl.other.net/dn/t/file",  # the configured download host
        "https://api.media.example.com/dn/t/file",  # the API host
        "https://cdn.example.com/x.jpg",  # under the API host's parent domain
        "https://example.com/x.jpg",
        "HTTPS://DL.OTHER.NET/dn/t/file",
    ],
)
def test_expected_hosts_are_accepted(url):
    POLICY.check(url)


@pytest.mark.parametrize(
    ("url", "names"),
    [
        ("https://evil.net/x", "allowed_download_hosts"),
        ("https://example.com.evil.net/x", "allowed_download_hosts"),
        ("https://notexample.com/x", "allowed_download_hosts"),
        ("http://dl.other.net/x", "allow_http_downloads"),
        ("file:///etc/passwd", "https"),
        ("javascript:alert(1)", "https"),
        ("https://[::1/x", "not a valid URL"),
    ],
)
def test_other_links_are_refused_naming_the_setting(url, names):
    with pytest.raises(DownloadRejectedError, match=names):
        POLICY.check(url)


def test_a_refusal_is_an_invalid_response():
    assert issubclass(DownloadRejectedError, InvalidResponseError)


def test_extra_hosts_and_http_can_be_allowed():
    policy = DownloadPolicy(
        base_url="https://api.example.com", allowed_hosts=("Files.Partner.Net",), allow_http=True
    )
    policy.check("http://files.partner.net/a.jpg")


def test_plain_http_is_accepted_when_the_api_is_plain_http_on_loopback():
    sandbox = DownloadPolicy(base_url="http://127.0.0.1:8001", download_url="http://127.0.0.1:8002")
    sandbox.check("http://127.0.0.1:8002/dn/t/file")
    with pytest.raises(DownloadRejectedError):
        sandbox.check("http://10.0.0.1/dn/t/file")
    remote = DownloadPolicy(base_url="http://api.example.com")
    with pytest.raises(DownloadRejectedError, match="allow_http_downloads"):
        remote.check("http://api.example.com/dn/t/file")


@pytest.mark.parametrize(
    ("host", "parent"),
    [("api.example.com", "example.com"), ("example.com", "example.com"), ("localhost", ""),
     ("127.0.0.1", ""), ("::1", ""), ("api.x.co.uk", "x.co.uk"), ("co.uk", ""),
     ("a.b.github.io", "b.github.io"), ("github.io", ""),
     ("app.azurewebsites.net", "app.azurewebsites.net")],
)  # fmt: skip
def test_the_parent_domain_is_the_registrable_domain_by_the_public_suffix_list(host, parent):
    assert parent_domain(host) == parent


@pytest.mark.parametrize(
    ("api", "foreign"),
    [
        ("https://api.x.co.uk", "https://evil.co.uk/dn/t/file"),
        ("https://api.x.co.uk", "https://co.uk/dn/t/file"),
        ("https://media.github.io", "https://attacker.github.io/dn/t/file"),
        ("https://dam.azurewebsites.net", "https://evil.azurewebsites.net/dn/t/file"),
    ],
)
def test_a_host_that_only_shares_a_public_suffix_with_the_api_is_refused(api, foreign):
    with pytest.raises(DownloadRejectedError, match="allowed_download_hosts"):
        DownloadPolicy(base_url=api).check(foreign)
    DownloadPolicy(base_url=api).check(api + "/dn/t/file")  # the API host itself still is fine


def test_a_host_under_the_apis_registrable_domain_is_accepted():
    DownloadPolicy(base_url="https://api.x.co.uk").check("https://cdn.x.co.uk/dn/t/file")
