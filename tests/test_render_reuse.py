"""Renderer.same_everywhere: when a builder may render a repeated shortcode once."""

from __future__ import annotations

from pathlib import Path

from mediashortcodes.config import VideoConfig
from mediashortcodes.language import Location, Shortcode
from mediashortcodes.media.render import Renderer


def shortcode(name: str, *options: tuple[str, str]) -> Shortcode:
    return Shortcode(name, 7, None, tuple(options), Location("page.md", 3, 1), f"<% {name} 7 %>")


def renderer(templates: Path | None = None, embed: str = "iframe") -> Renderer:
    return Renderer(
        VideoConfig(embed=embed),
        player_url="https://player.example.com",
        static_url="https://static.example.com",
        site_templates=templates,
    )


def test_images_and_iframe_videos_with_the_default_templates_are_the_same_everywhere():
    default = renderer()
    assert default.same_everywhere(shortcode("media_image"))
    assert default.same_everywhere(shortcode("media_image", ("caption", "A cat")))
    assert default.same_everywhere(shortcode("media_video"))


def test_a_script_embed_differs_by_place_because_its_element_id_does():
    assert not renderer().same_everywhere(shortcode("media_video", ("embed", "script")))
    assert not renderer(embed="script").same_everywhere(shortcode("media_video"))


def test_a_site_template_that_shows_the_shortcode_differs_by_place(tmp_path: Path):
    (tmp_path / "media_image.html").write_text(
        '<img src="{{ src }}" data-line="{{ shortcode.location.line }}">'
    )
    site = renderer(tmp_path)
    assert not site.same_everywhere(shortcode("media_image"))
    assert site.same_everywhere(shortcode("media_video"))


def test_a_site_template_that_includes_another_differs_by_place(tmp_path: Path):
    (tmp_path / "media_video_iframe.html").write_text('{% include "part.html" %}')
    (tmp_path / "part.html").write_text("{{ shortcode.location }}")
    assert not renderer(tmp_path).same_everywhere(shortcode("media_video"))
