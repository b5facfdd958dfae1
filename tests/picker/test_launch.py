"""Wiring from a site's config: the embed preview is what a build renders."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from mediashortcodes.config import Config, ServiceConfig, VideoConfig
from mediashortcodes.media.render import Renderer
from mediashortcodes.picker.launch import embed_csp, video_embed_renderer
from mediashortcodes.picker.selection import SelectionError
from mediashortcodes.records import File, FileType

VIDEO = File(id=20, name="Intro", media_id="abc123", type=FileType(type="video"))
RENDERER = Renderer(
    VideoConfig(), player_url="https://player.example.com", static_url="https://static.example.com"
)


def test_the_iframe_preview_is_the_built_embed() -> None:
    html = video_embed_renderer(RENDERER)("<% media_video 20 embed=iframe %>", VIDEO)
    assert 'src="https://player.example.com/ovp/11/abc123"' in html


def test_the_script_preview_loads_the_configured_player() -> None:
    html = video_embed_renderer(RENDERER)("<% media_video 20 embed=script %>", VIDEO)
    assert "https://static.example.com/js/mediaflowplayer.min.js" in html
    assert "new MFPlayer" in html


def test_text_that_does_not_parse_is_refused() -> None:
    with pytest.raises(SelectionError, match="does not parse"):
        video_embed_renderer(RENDERER)("<% media_video x %>", VIDEO)


def test_the_embed_preview_may_load_only_the_player_and_static_hosts() -> None:
    service = ServiceConfig(
        player_url="https://player.example.com/base", static_url="https://static.example.com"
    )
    policy = embed_csp(replace(Config(root=Path("/")), service=service))
    assert "default-src 'none'" in policy
    assert "frame-src https://player.example.com https://static.example.com;" in policy
    assert "/base" not in policy
