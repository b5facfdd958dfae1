"""The Sandbox object: life cycle, addresses, errors a user can act on, no secrets shown."""

from __future__ import annotations

import sys

import pytest

from mediashortcodes.config import ENV_BASE_URL, ENV_CLIENT_ID
from mediashortcodes.errors import ConfigError
from mediashortcodes.sandbox import DEMO_CLIENT_SECRET, DEMO_REFRESH_TOKEN, Library, Sandbox


def test_addresses_need_a_running_sandbox():
    with pytest.raises(RuntimeError, match="call start"):
        _ = Sandbox().base_url


def test_the_hosts_are_separate_ports_on_loopback(sb):
    assert sb.base_url.startswith("http://127.0.0.1:")
    assert sb.media_url != sb.base_url
    assert sb.download_url == sb.player_url == sb.static_url == sb.media_url


def test_start_and_stop_are_idempotent_and_a_stopped_sandbox_can_start_again():
    sandbox = Sandbox()
    assert sandbox.start() is sandbox.start()
    sandbox.stop()
    sandbox.stop()
    assert not sandbox.running
    with sandbox:
        assert sandbox.running


def test_a_busy_port_is_a_config_error_naming_the_option(sb):
    port = int(sb.base_url.rsplit(":", 1)[1])
    with pytest.raises(ConfigError, match=f"port {port} .* in use; choose another with --port"):
        Sandbox(port=port).start()


def test_a_busy_media_port_releases_the_api_port(sb):
    media_port = int(sb.media_url.rsplit(":", 1)[1])
    sandbox = Sandbox(media_port=media_port)
    with pytest.raises(ConfigError, match="--media-port"):
        sandbox.start()
    assert not sandbox.running


def test_without_pillow_starting_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ConfigError, match=r"pip install 'mediashortcodes\[sandbox\]'"):
        Sandbox().start()


def test_service_config_and_env_point_at_the_sandbox(sb):
    config = sb.service_config()
    assert (config.base_url, config.download_url) == (sb.base_url, sb.download_url)
    env = sb.env()
    assert env[ENV_BASE_URL] == sb.base_url and env[ENV_CLIENT_ID] == sb.credentials.client_id


def test_a_given_library_is_served():
    library = Library.synthetic(images=3, videos=1, folders=1)
    with Sandbox(library=library) as sandbox:
        assert sandbox.library is library


def test_reprs_show_no_credentials(sb):
    for text in (repr(sb), repr(sb.credentials)):
        assert DEMO_CLIENT_SECRET not in text and DEMO_REFRESH_TOKEN not in text


def test_the_public_names_are_exported():
    import mediashortcodes.sandbox as package

    assert sorted(package.__all__) == [
        "DEMO_CLIENT_ID", "DEMO_CLIENT_SECRET", "DEMO_CREDENTIALS", "DEMO_REFRESH_TOKEN",
        "FORMATS", "HIDDEN_FOLDER_ID", "Library", "LibraryFile", "LibraryFolder",
        "PredefinedFormat", "Sandbox",
    ]  # fmt: skip
    assert all(hasattr(package, name) for name in package.__all__)
