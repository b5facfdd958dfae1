"""The picker over real sockets on 127.0.0.1."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from mediashortcodes.config import Config, Credentials
from mediashortcodes.errors import ConfigError
from mediashortcodes.picker.backend import PickerBackend
from mediashortcodes.picker.guard import client_secrets
from mediashortcodes.picker.launch import running_picker
from mediashortcodes.picker.server import PickerServer

from .fake_service import FakeService, file_json


@pytest.fixture
def server() -> Iterator[PickerServer]:
    client = FakeService().client()
    backend = PickerBackend(client, embed_renderer=lambda text, file: text)
    try:
        with PickerServer(backend, secrets_source=client_secrets(client)) as running:
            yield running
    finally:
        client.close()


def test_it_listens_on_loopback_only_on_a_free_port(server: PickerServer) -> None:
    assert server.origin.startswith("http://127.0.0.1:")
    assert server.port > 0
    assert server.url.startswith(f"{server.origin}/?token=")


def test_the_printed_address_opens_the_page_and_the_api(server: PickerServer) -> None:
    with httpx.Client(follow_redirects=True) as browser:
        page = browser.get(server.url)
        assert page.status_code == 200
        assert str(page.url) == f"{server.origin}/"
        assert 'src="/static/picker.js"' in page.text
        assert browser.get(f"{server.origin}/static/picker.js").status_code == 200
        folders = browser.get(f"{server.origin}/api/folders")
        assert [f["name"] for f in folders.json()] == ["Images", "Videos"]


def test_without_the_address_the_api_is_closed(server: PickerServer) -> None:
    response = httpx.get(f"{server.origin}/api/folders")
    assert response.status_code == 403


def test_a_rebound_host_name_is_refused(server: PickerServer) -> None:
    response = httpx.get(server.url, headers={"Host": "attacker.example"})
    assert response.status_code == 421


def test_an_oversized_body_is_refused(server: PickerServer) -> None:
    with httpx.Client(follow_redirects=True) as browser:
        browser.get(server.url)
        response = browser.post(f"{server.origin}/api/shortcode", content=b"x" * 70000)
    assert response.status_code == 413


def test_stopping_frees_the_port() -> None:
    client = FakeService().client()
    picker = PickerServer(
        PickerBackend(client, embed_renderer=lambda text, file: text),
        secrets_source=client_secrets(client),
    ).start()
    port = picker.port
    picker.stop()
    client.close()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))


def test_a_busy_port_is_a_config_error_that_says_what_to_do(server: PickerServer) -> None:
    client = FakeService().client()
    try:
        with pytest.raises(ConfigError, match=r"choose another --port, or 0 for a free one"):
            PickerServer(
                PickerBackend(client, embed_renderer=lambda text, file: text),
                secrets_source=client_secrets(client),
                port=server.port,
            )
    finally:
        client.close()


# -- the secret guard, wired as `mediashortcodes pick` wires it ---------------------------


@pytest.mark.parametrize(
    "credentials",
    [
        # a client id that is in the session cookie's name
        Credentials("mediashortcodes", "s3cret-client-value", "refresh-token-value"),
        # a client secret that is a word of the page's text ("Something went wrong")
        Credentials("picker-client", "wrong", "refresh-token-value"),
    ],
    ids=["client-id-in-cookie-name", "short-secret-in-page-text"],
)
def test_the_page_works_with_a_plain_client_id_or_a_short_secret(
    tmp_path: Path, credentials: Credentials
) -> None:
    client = FakeService().client(credentials)
    with (
        client,
        running_picker(Config(root=tmp_path), credentials, client=client) as server,
        httpx.Client() as browser,
    ):
        login = browser.get(server.url)
        assert login.status_code == 303, login.text
        assert login.headers["set-cookie"].startswith("mediashortcodes_picker_")
        page = browser.get(f"{server.origin}/")
        assert page.status_code == 200
        session = browser.get(f"{server.origin}/api/session")
        assert session.status_code == 200, session.text
        assert session.json()["messages"]["error"].startswith("Something went wrong")
        assert browser.get(f"{server.origin}/api/folders").status_code == 200


@pytest.mark.parametrize(
    "secret",
    [
        "demo-client-secret",
        "demo-refresh-token",
        "sbx_" + "A1b2-C3d4_" * 3 + "E5",
        "s3cret/with+symbols&more",
    ],
)
def test_a_real_secret_is_still_withheld_over_http(tmp_path: Path, secret: str) -> None:
    service = FakeService()
    credentials = Credentials("mediashortcodes-demo", "demo-client-secret", "demo-refresh-token")
    client = service.client(credentials)
    client._tokens_seen.add(secret)  # as if the service had issued it as an access token
    service.files[1] = [file_json(10, "Tree", alttext=f"leaked {secret} here")]
    with (
        client,
        running_picker(Config(root=tmp_path), credentials, client=client) as server,
        httpx.Client(follow_redirects=True) as browser,
    ):
        browser.get(server.url)
        response = browser.get(f"{server.origin}/api/files?folder=1")
        search = browser.get(f"{server.origin}/api/search?q=tree")
    for withheld in (response, search):
        assert withheld.status_code == 500
        assert "withheld" in withheld.json()["error"]
        assert secret.encode() not in withheld.content
        assert quote(secret, safe="").encode() not in withheld.content
