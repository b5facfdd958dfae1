"""open_service: the configured service with credentials from the environment, or the sandbox."""

from __future__ import annotations

import httpx
import pytest

from mediashortcodes.client.service import open_service
from mediashortcodes.config import (
    ENV_BASE_URL,
    ENV_CLIENT_ID,
    ENV_CLIENT_SECRET,
    ENV_REFRESH_TOKEN,
    Config,
)
from mediashortcodes.errors import ConfigError

URLS = {
    "base_url": "https://api.example.com",
    "player_url": "https://player.example.com",
    "static_url": "https://static.example.com",
}


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_CLIENT_ID, "cid")
    monkeypatch.setenv(ENV_CLIENT_SECRET, "secret")
    monkeypatch.setenv(ENV_REFRESH_TOKEN, "refresh")


def test_a_real_service_takes_the_credentials_from_the_environment(env, tmp_path):
    config = Config(root=tmp_path).with_service(**URLS)
    with open_service(config) as (served, credentials):
        assert served is config
        assert (credentials.client_id, credentials.refresh_token) == ("cid", "refresh")


def test_a_missing_api_url_names_the_setting_and_the_variable(env, tmp_path):
    config = Config(root=tmp_path).with_service(**{**URLS, "base_url": ""})
    with pytest.raises(ConfigError, match=rf"base_url .*{ENV_BASE_URL}"), open_service(config):
        pass


def test_the_player_and_static_urls_are_not_needed_to_talk_to_the_api(env, tmp_path):
    config = Config(root=tmp_path).with_service(base_url=URLS["base_url"])
    with open_service(config) as (served, _credentials):
        assert served.service.base_url == URLS["base_url"]


def test_a_missing_credential_names_the_variable(env, tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_REFRESH_TOKEN)
    config = Config(root=tmp_path).with_service(**URLS)
    with pytest.raises(ConfigError, match=ENV_REFRESH_TOKEN), open_service(config):
        pass


def test_the_sandbox_runs_for_the_block_with_its_urls_and_demo_credentials(tmp_path, monkeypatch):
    pytest.importorskip("PIL", reason="the sandbox needs the [sandbox] extra (Pillow)")
    monkeypatch.delenv(ENV_CLIENT_SECRET, raising=False)  # not needed for the sandbox
    config = Config(root=tmp_path).with_service(sandbox=True)
    with open_service(config) as (served, credentials):
        base = served.service.base_url
        assert base.startswith("http://127.0.0.1:") and served.service.download_url
        assert served.service.player_url and served.service.static_url
        token = httpx.get(
            f"{base}/1/oauth2/token",
            params={
                "grant_type": "refresh_token",
                "client_id": credentials.client_id,
                "client_secret": credentials.client_secret,
                "refresh_token": credentials.refresh_token,
            },
        )
        assert token.status_code == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{base}/1/format")
