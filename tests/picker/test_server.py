"""The picker over real sockets on 127.0.0.1."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from mediashortcodes.errors import ConfigError
from mediashortcodes.picker.backend import PickerBackend
from mediashortcodes.picker.server import PickerServer

from .fake_service import FakeService


@pytest.fixture
def server() -> Iterator[PickerServer]:
    client = FakeService().client()
    backend = PickerBackend(client, embed_renderer=lambda text, file: text)
    try:
        with PickerServer(backend, secrets_source=client._secrets) as running:
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
        secrets_source=client._secrets,
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
                secrets_source=client._secrets,
                port=server.port,
            )
    finally:
        client.close()
