"""srcset and click-to-load, the pure parts: the keys, the settings, the geometry, the HTML."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import Environment
from markupsafe import escape

from mediashortcodes.config import MAX_WIDTH, VideoConfig, from_mapping
from mediashortcodes.errors import ConfigError
from mediashortcodes.jinja import MediaShortcodesExtension
from mediashortcodes.language import Location, Shortcode, parse
from mediashortcodes.media.render import Renderer, RenderError, ResolvedImage, ResolvedVideo
from mediashortcodes.media.resolver import candidate_crop, narrower
from mediashortcodes.records import Crop, File, FileType

PLAYER = "https://player.example.com"
CAT = File(id=12, name="Cat", filename="cat.jpg", alttext="A cat")
FILM = File(id=45, name="Launch <film>", media_id="a1B2", type=FileType(type="video"))


def shortcode(name: str, *options: tuple[str, str], file_id: int = 12) -> Shortcode:
    return Shortcode(name, file_id, None, options, Location("content/p.md", 3, 1), f"<% {name} %>")


def renderer(video: VideoConfig | None = None, templates: Path | None = None) -> Renderer:
    return Renderer(
        video or VideoConfig(),
        player_url=PLAYER,
        static_url="https://static.example.com",
        site_templates=templates,
    )


# -- the language -----------------------------------------------------------------------------


def test_widths_sizes_and_load_are_keys_of_the_language():
    text = (
        '<% media_image 101 widths="480, 960,1440" sizes="(min-width: 60em) 50vw, 100vw" %>'
        " <% media_video 201 load=click %>"
    )
    result = parse(text, "page.md")
    assert result.problems == []
    image, video = result.shortcodes
    assert image.option("widths") == "480, 960,1440"
    assert image.option("sizes") == "(min-width: 60em) 50vw, 100vw"
    assert video.option("load") == "click"


@pytest.mark.parametrize("value", ["480,big", "0", "480,,960", f"{MAX_WIDTH + 1}", "-5"])
def test_a_bad_widths_value_is_a_problem_at_its_place(value: str):
    result = parse(f'x <% media_image 1 widths="{value}" %>', "page.md")
    [problem] = result.problems
    assert (problem.line, problem.col) == (1, 27)
    assert 'like widths="480,960,1440"' in problem.message


def test_an_empty_widths_is_valid_and_load_takes_eager_or_click():
    assert parse('<% media_image 1 widths="" %>').problems == []
    [problem] = parse("<% media_video 1 load=later %>").problems
    assert problem.message == "load must be eager or click, got 'later'"


def test_jinja_takes_widths_as_a_list():
    class Recorder:
        def __init__(self) -> None:
            self.seen: list[Shortcode] = []

        def render(self, sc: Shortcode) -> str:
            self.seen.append(sc)
            return ""

        def problem(self, problem: object) -> str:
            raise AssertionError(problem)

    env = Environment(extensions=[MediaShortcodesExtension])
    recorder = Recorder()
    env.mediashortcodes_renderer = recorder  # type: ignore[attr-defined]
    env.from_string('{{ media_image(101, widths=[480, 960], sizes="50vw") }}').render()
    [sc] = recorder.seen
    assert sc.option("widths") == "480,960" and sc.option("sizes") == "50vw"
    assert parse(sc.source).shortcodes[0].options == sc.options


# -- the settings -----------------------------------------------------------------------------


def test_site_wide_widths_sizes_and_click_loading_are_settings():
    config = from_mapping(
        {
            "images": {"widths": [960, 480], "sizes": "50vw"},
            "video": {"load": "click", "remember": True, "consent_text": "Loads {host}."},
        },
        Path("."),
    )
    assert config.images.widths == (480, 960) and config.images.sizes == "50vw"
    assert (config.video.load, config.video.remember) == ("click", True)
    assert from_mapping({}, Path(".")).images.widths == ()


@pytest.mark.parametrize(
    ("section", "value", "says"),
    [
        ({"images": {"widths": ["480"]}}, "widths", "[images] widths must be a list"),
        ({"images": {"widths": [0]}}, "widths", "pixel widths from 1"),
        ({"video": {"load": "lazy"}}, "load", "[video] load must be one of eager, click"),
    ],
)
def test_bad_responsive_or_click_settings_are_named(section, value, says):
    with pytest.raises(ConfigError, match=says.replace("[", r"\[").replace("]", r"\]")):
        from_mapping(section, Path("."))


# -- the geometry -----------------------------------------------------------------------------


def test_only_widths_below_the_base_variant_are_candidates():
    assert narrower((1440, 480, 960, 480, 1600, 2000), 1600) == (480, 960, 1440)


def test_a_candidate_of_the_whole_image_scales_its_own_pixels():
    assert candidate_crop(None, 1600, 1067, 480) == Crop(
        w=480, h=321, x1=0, x2=1600, y1=0, y2=1067, sw=1600, sh=1067
    )


def test_a_candidate_of_a_custom_crop_keeps_the_crop_and_the_base_shape():
    crop = Crop(w=800, h=400, x1=10, x2=410, y1=0, y2=200, sw=1000, sh=500, stretch=True)
    assert candidate_crop(crop, 800, 400, 300) == Crop(
        w=300, h=150, x1=10, x2=410, y1=0, y2=200, sw=1000, sh=500, stretch=True
    )


# -- the HTML ---------------------------------------------------------------------------------

SRCSET = (("/media/cat-480.jpg", 480), ("/media/cat,2.jpg", 960), ("/media/cat.jpg", 1600))


def test_an_image_with_candidates_gets_srcset_and_sizes_and_keeps_its_own_src_and_size():
    image = ResolvedImage(CAT, "/media/cat.jpg", 1600, 1067, srcset=SRCSET, sizes="50vw")
    html = renderer().image(shortcode("media_image"), image)
    assert html == (
        '<img src="/media/cat.jpg" srcset="/media/cat-480.jpg 480w, /media/cat%2C2.jpg 960w, '
        '/media/cat.jpg 1600w" sizes="auto, 50vw" alt="A cat" width="1600" height="1067" '
        'loading="lazy" decoding="async">'
    )
    no_sizes = ResolvedImage(CAT, "/media/cat.jpg", 1600, 1067, srcset=SRCSET)
    assert ' sizes="auto, 100vw" ' in renderer().image(shortcode("media_image"), no_sizes)
    eager = renderer().image(shortcode("media_image", ("loading", "eager")), no_sizes)
    assert ' sizes="100vw" ' in eager  # "auto" is for lazy images only


@settings(database=None, deadline=None, max_examples=100)
@given(
    srcset=st.lists(
        st.tuples(st.text(max_size=8), st.integers(min_value=1, max_value=9000)), max_size=3
    ),
    sizes=st.text(max_size=12),
)
def test_srcset_and_sizes_are_written_escaped_with_separators_encoded(
    srcset: list[tuple[str, int]], sizes: str
) -> None:
    image = ResolvedImage(CAT, "/m/c.jpg", 10, 20, srcset=tuple(srcset), sizes=sizes)
    html = renderer().image(shortcode("media_image"), image)
    candidates = ", ".join(
        f"{url.replace(' ', '%20').replace(',', '%2C')} {width}w" for url, width in srcset
    )
    attributes = f' srcset="{escape(candidates)}" sizes="auto, {escape(sizes or "100vw")}"'
    assert html.startswith('<img src="/m/c.jpg"' + (attributes if candidates else "") + " alt=")


POSTER = ResolvedImage(FILM, "/media/launch-45-poster-0123456789.jpg", 400, 225)


def click(*options: tuple[str, str], video: VideoConfig | None = None, poster=POSTER) -> str:
    sc = shortcode("media_video", ("load", "click"), *options, file_id=45)
    return renderer(video).video(sc, ResolvedVideo(FILM, "/media/", poster))


def test_a_click_to_load_video_keeps_its_eager_embed_inert_until_a_click():
    r = renderer()
    eager = r.video(shortcode("media_video", file_id=45), FILM)
    html = click()
    assert f"<template>{eager}</template>" in html
    assert html.count("<iframe") == 1  # only inside the template
    assert (
        '<img src="/media/launch-45-poster-0123456789.jpg" alt="" width="400" height="225"' in html
    )
    assert "&#9654; Play video: Launch &lt;film&gt;</button>" in html
    assert '<button type="button" hidden' in html  # shown by the script: no dead button
    assert "Playing this video loads the player from player.example.com." in html
    assert f'<noscript><a href="{PLAYER}/ovp/11/a1B2">' in html
    script = r.click_script[0]
    assert html.endswith(f'<script src="/media/{renderer().click_script[0]}" defer></script>')
    assert script.startswith("mediashortcodes-click-") and script.endswith(".js")


def test_a_click_to_load_script_embed_gives_the_click_script_its_player_arguments():
    # No inline script runs (a strict CSP): the local script reads these and builds it.
    html = click(("embed", "script"), ("lang", "en"))
    box = html.split("<template>")[0]
    assert 'data-player="MFPlayer" data-player-element="mediashortcodes-video-' in box
    assert 'data-player-script="https://static.example.com/js/mediaflowplayer.min.js"' in box
    assert 'data-player-stylesheet="https://static.example.com/css/mediaflowplayer.min.css"' in box
    assert 'data-media-id="a1B2" data-language="en"' in box
    assert "<script" not in box
    assert "data-player" not in click().split("<template>")[0]  # an iframe needs none


def test_a_video_without_a_preview_shows_a_neutral_placeholder():
    html = click(poster=None)
    assert "<img" not in html.split("<template>")[0]
    assert 'style="aspect-ratio:16/9;background:#2b2f33"' in html


def test_the_site_sets_click_loading_remembering_and_the_consent_sentence():
    video = VideoConfig(load="click", remember=True, consent_text="Video from {host}, {host}!")
    sc = shortcode("media_video", file_id=45)
    html = renderer(video).video(sc, ResolvedVideo(FILM, "/m/", None))
    assert "data-mediashortcodes-click data-remember" in html
    assert "Video from player.example.com, player.example.com!" in html
    eager = shortcode("media_video", ("load", "eager"), file_id=45)
    assert "<template>" not in renderer(video).video(eager, ResolvedVideo(FILM, "/m/", None))


def test_click_loading_needs_where_the_script_is_published():
    with pytest.raises(RenderError, match="ResolvedVideo"):
        renderer().video(shortcode("media_video", ("load", "click"), file_id=45), FILM)


def test_a_site_overrides_the_click_template_and_the_script_by_name(tmp_path: Path):
    (tmp_path / "media_video_click.html").write_text("<p>{{ title }}: {{ script_src }}</p>")
    (tmp_path / "media_video_click.js").write_text("/* ours */")
    r = renderer(templates=tmp_path)
    html = r.video(
        shortcode("media_video", ("load", "click"), file_id=45), ResolvedVideo(FILM, "/m/", None)
    )
    name, data = r.click_script
    assert data == b"/* ours */"
    assert html == f"<p>Launch &lt;film&gt;: /m/{name}</p>"


def test_the_bundled_click_script_weighs_under_3_5_kb():
    _name, data = renderer().click_script
    assert len(data) < 3500  # it constructs a script embed's player too (issue 29, item 11)
