"""The player and static URLs are needed where a video is embedded, and only there."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mediashortcodes import config
from mediashortcodes.cli import cli
from mediashortcodes.errors import ConfigError
from mediashortcodes.site.builder import BuildOptions, SiteBuilder

from .conftest import small_site

LAYOUT = "<html><body>{{ page.content }}</body></html>\n"


def site_without_player(tmp_path: Path, sandbox: Any, body: str) -> Path:
    page = f"---\ntitle: Home\n---\n\nIntro.\n\n{body}\n"
    files = {"templates/page.html": LAYOUT, "content/index.md": page}
    return small_site(tmp_path / "site", sandbox, files, player=False)


@pytest.fixture
def no_urls_in_env(monkeypatch: pytest.MonkeyPatch, env: Path) -> None:
    for name in ("BASE_URL", "PLAYER_URL", "STATIC_URL"):
        monkeypatch.delenv(f"MEDIASHORTCODES_{name}", raising=False)


@pytest.mark.usefixtures("no_urls_in_env")
def test_a_site_of_images_builds_without_player_or_static_url(tmp_path: Path, sandbox: Any):
    site = site_without_player(tmp_path, sandbox, '<% media_image 101 alt="A harbour" %>')

    result = SiteBuilder(config.load(site)).build()

    html = (site / "_site" / "index.html").read_text()
    assert result.images == 1 and result.downloads == 1
    assert '<img src="/media/' in html and 'alt="A harbour"' in html


@pytest.mark.usefixtures("no_urls_in_env")
def test_a_video_without_player_url_fails_before_any_request_naming_the_place_and_variable(
    tmp_path: Path, sandbox: Any
):
    site = site_without_player(tmp_path, sandbox, "<% media_image 101 %>\n\n<% media_video 201 %>")

    with pytest.raises(ConfigError) as raised:
        SiteBuilder(config.load(site), BuildOptions()).build()

    message = str(raised.value)
    assert "no service player_url to embed videos" in message
    assert "content/index.md:9:1" in message
    assert "MEDIASHORTCODES_PLAYER_URL" in message
    assert sum(sandbox.stats.values()) == 0  # not even a token
    assert not (site / "_site").exists()


@pytest.mark.usefixtures("no_urls_in_env")
def test_the_cli_exits_2_for_a_video_without_static_url(
    tmp_path: Path, sandbox: Any, monkeypatch: pytest.MonkeyPatch
):
    site = site_without_player(tmp_path, sandbox, "<% media_video 201 %>")
    monkeypatch.setenv("MEDIASHORTCODES_PLAYER_URL", "https://player.example.com")

    outcome = CliRunner().invoke(cli, ["build", str(site)])

    assert outcome.exit_code == 2
    assert "no service static_url to embed videos" in outcome.output
    assert "MEDIASHORTCODES_STATIC_URL" in outcome.output


@pytest.mark.usefixtures("no_urls_in_env")
def test_service_commands_need_only_the_api_url(tmp_path: Path, sandbox: Any):
    site = site_without_player(tmp_path, sandbox, "")

    outcome = CliRunner().invoke(cli, ["folders", "--site", str(site), "--json"])

    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.output)


@pytest.mark.usefixtures("no_urls_in_env")
@pytest.mark.parametrize("offline", [False, True])
def test_shortcodes_without_the_service_url_fail_naming_the_variable(
    tmp_path: Path, sandbox: Any, offline: bool
):
    # The URL names the service's cache: an offline build without it would read none and
    # list every shortcode as missing from the cache.
    site = site_without_player(tmp_path, sandbox, "<% media_image 101 %>")
    toml = site / "mediashortcodes.toml"
    toml.write_text(toml.read_text().replace(f'base_url = "{sandbox.base_url}"\n', ""))
    result = CliRunner().invoke(cli, ["build", str(site), *(["--offline"] if offline else [])])
    assert result.exit_code == 2, result.output
    assert "no service base_url" in result.stderr and "MEDIASHORTCODES_BASE_URL" in result.stderr
    assert sum(sandbox.stats.values()) == 0
