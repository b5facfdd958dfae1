"""render: the HTML a reader's browser gets for images, figures, video embeds, placeholders."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mediashortcodes.config import Config, ServiceConfig, SiteConfig, VideoConfig
from mediashortcodes.errors import ConfigError, Problem
from mediashortcodes.language import Location, Shortcode, parse
from mediashortcodes.media import render
from mediashortcodes.media.render import EmbedError, Renderer, RenderError, ResolvedImage
from mediashortcodes.records import File, FileType

PLAYER = "https://player.example.com"
STATIC = "https://static.example.com"
HOSTILE = "\"><script>alert('x')</script><b a='"

CAT = File(id=12, name="Cat", filename="cat.jpg", alttext="A cat on a mat")
FILM = File(
    id=45,
    name="Launch film",
    filename="launch.mp4",
    media_id="a1B2-c3_D4",
    type=FileType(type="video"),
)


def shortcode(name: str, file_id: int, *options: tuple[str, str], line: int = 3, col: int = 1):
    text = " ".join([f"<% {name} {file_id}", *(f'{k}="{v}"' for k, v in options), "%>"])
    return Shortcode(
        name=name,
        file_id=file_id,
        format=None,
        options=tuple(options),
        location=Location("content/page.md", line, col),
        source=text,
    )


def image(*options: tuple[str, str], file: File = CAT) -> str:
    resolved = ResolvedImage(file, "/media/12-original-3fa9c1d2e4.jpg", 640, 427)
    return make_renderer().image(shortcode("media_image", file.id, *options), resolved)


def video(*options: tuple[str, str], file: File = FILM, renderer: Renderer | None = None) -> str:
    return (renderer or make_renderer()).video(shortcode("media_video", file.id, *options), file)


def make_renderer(video: VideoConfig | None = None, site_templates: Path | None = None) -> Renderer:
    return Renderer(
        video or VideoConfig(),
        player_url=PLAYER + "/",
        static_url=STATIC,
        site_templates=site_templates,
    )


# -- images ---------------------------------------------------------------------------------


def test_an_image_gets_real_size_service_alt_lazy_loading_and_async_decoding():
    assert image() == (
        '<img src="/media/12-original-3fa9c1d2e4.jpg" alt="A cat on a mat" width="640" '
        'height="427" loading="lazy" decoding="async">'
    )


def test_alt_title_and_class_from_the_shortcode_are_used():
    assert image(("alt", "Tabby"), ("title", "Our cat"), ("class", "wide")) == (
        '<img src="/media/12-original-3fa9c1d2e4.jpg" alt="Tabby" width="640" height="427" '
        'loading="lazy" decoding="async" class="wide" title="Our cat">'
    )


def test_an_empty_alt_marks_a_decorative_image_and_is_kept():
    assert ' alt="" ' in image(("alt", ""))


def test_an_image_without_alt_text_anywhere_still_has_an_alt_attribute():
    assert ' alt="" ' in image(file=File(id=12, name="Cat"))


def test_loading_eager_turns_lazy_loading_off():
    assert ' loading="eager" ' in image(("loading", "eager"))


def test_an_unknown_loading_value_is_refused_at_the_shortcode():
    with pytest.raises(RenderError, match="loading must be lazy or eager") as caught:
        image(("loading", "soon"))
    assert caught.value.problem() == Problem(
        "content/page.md", 3, 1, "loading must be lazy or eager, not 'soon'"
    )


def test_a_caption_wraps_the_image_in_a_figure_that_carries_the_class():
    assert image(("caption", "Our cat, 2024"), ("class", "wide")) == (
        '<figure class="wide"><img src="/media/12-original-3fa9c1d2e4.jpg" alt="A cat on a mat" '
        'width="640" height="427" loading="lazy" decoding="async">'
        "<figcaption>Our cat, 2024</figcaption></figure>"
    )


class Parsed(HTMLParser):
    """What a browser would see: the tags with their attributes, and the text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_hostile_alt_title_class_and_caption_stay_attribute_values_and_text():
    html = image(("alt", HOSTILE), ("title", HOSTILE), ("class", HOSTILE), ("caption", HOSTILE))
    parsed = Parsed(html)
    assert [tag for tag, _ in parsed.tags] == ["figure", "img", "figcaption"]
    assert parsed.tags[0][1]["class"] == HOSTILE
    assert parsed.tags[1][1]["alt"] == HOSTILE
    assert parsed.tags[1][1]["title"] == HOSTILE
    assert parsed.text == [HOSTILE]


def test_hostile_alt_text_from_the_service_is_escaped():
    parsed = Parsed(image(file=File(id=12, alttext=HOSTILE)))
    assert [tag for tag, _ in parsed.tags] == ["img"]
    assert parsed.tags[0][1]["alt"] == HOSTILE


# -- videos: iframe -------------------------------------------------------------------------


def test_the_iframe_embed_is_the_responsive_16_9_player_of_the_spec():
    assert video() == (
        '<div style="position:relative;overflow:hidden;width:100%;padding-top:56.25%">'
        '<iframe title="Launch film" src="https://player.example.com/ovp/11/a1B2-c3_D4" '
        'frameborder="0" allowfullscreen="true" '
        'allow="autoplay;encrypted-media;picture-in-picture" '
        'style="position:absolute;top:0;left:0;bottom:0;right:0;width:100%;height:100%">'
        "</iframe></div>"
    )


def test_the_iframe_title_comes_from_the_shortcode_then_the_name_then_the_filename():
    assert 'title="Teaser"' in video(("title", "Teaser"))
    assert 'title="launch.mp4"' in video(file=File(id=45, filename="launch.mp4", media_id="m1"))
    assert 'title="Video 45"' in video(file=File(id=45, media_id="m1"))


def test_a_hostile_video_name_is_escaped_in_the_iframe_title():
    parsed = Parsed(video(file=File(id=45, name=HOSTILE, media_id="m1")))
    assert [tag for tag, _ in parsed.tags] == ["div", "iframe"]
    assert parsed.tags[1][1]["title"] == HOSTILE


@pytest.mark.parametrize(
    "media_id",
    ["", "abc/../x", "abc def", 'abc"onload="x', "abc</script>", "a" * 65, "é", "abc\n"],
)
def test_a_hostile_or_malformed_media_id_is_refused(media_id):
    file = File(id=45, name="Film", media_id=media_id)
    for embed in ("iframe", "script"):
        with pytest.raises(EmbedError, match="mediaId") as caught:
            video(("embed", embed), file=file)
        assert caught.value.problem().line == 3


def test_a_file_without_media_id_is_not_a_video():
    with pytest.raises(EmbedError, match="file 12 is not a video"):
        video(file=CAT)


def test_an_unknown_embed_value_is_refused():
    with pytest.raises(EmbedError, match="embed must be iframe or script"):
        video(("embed", "object"))


def test_a_malformed_lang_is_refused():
    with pytest.raises(EmbedError, match="lang must be a language code"):
        video(("embed", "script"), ("lang", "sv');alert(1)//"))


def test_embed_errors_are_value_errors_the_builder_turns_into_problems():
    assert issubclass(EmbedError, ValueError)
    assert issubclass(RenderError, ValueError)


# -- videos: script -------------------------------------------------------------------------


def script_parts(html: str) -> tuple[str, str]:
    match = re.fullmatch(r'<div id="([^"]+)"></div>\n<script>\n(.*)\n</script>', html, re.S)
    assert match, html
    return match.group(1), match.group(2)


def test_the_script_embed_is_an_empty_block_with_its_id_and_a_script():
    element, script = script_parts(video(("embed", "script")))
    assert re.fullmatch(r"mediashortcodes-video-45-[0-9a-f]{8}", element)
    assert json.dumps(element) in script
    assert '"https://static.example.com/css/mediaflowplayer.min.css"' in script
    assert '"https://static.example.com/js/mediaflowplayer.min.js"' in script
    assert "new MFPlayer(id, mediaId, {defaultLanguage: lang, displayLanguage: lang})" in script


def test_the_configured_embed_and_language_are_the_defaults():
    config = VideoConfig(embed="script", language="fi")
    _, script = script_parts(video(renderer=make_renderer(config)))
    assert 'lang = "fi"' in script


def test_element_ids_are_the_same_on_every_build_and_differ_by_place():
    first = render.element_id(shortcode("media_video", 45, line=3, col=1))
    assert first == render.element_id(shortcode("media_video", 45, line=3, col=1))
    assert first != render.element_id(shortcode("media_video", 45, line=3, col=20))
    assert first != render.element_id(shortcode("media_video", 45, line=4, col=1))


def test_player_names_come_from_the_video_settings():
    config = VideoConfig(
        embed="script",
        player_class="OtherPlayer",
        player_script="p/v2.js",
        player_stylesheet="p.css",
    )
    _, script = script_parts(video(renderer=make_renderer(config)))
    assert "new OtherPlayer(" in script
    assert f'"{STATIC}/js/p/v2.js"' in script
    assert f'"{STATIC}/css/p.css"' in script


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("player_class", "alert(1);MFPlayer", "player_class must be the name"),
        ("player_class", "class", "player_class must be the name"),
        ("player_script", "../evil.js", "player_script must be a file name"),
        ("player_stylesheet", 'x.css" onload="', "player_stylesheet must be a file name"),
        ("language", "", "language must be a language code"),
        ("embed", "object", "embed must be iframe or script"),
    ],
)
def test_bad_video_settings_are_config_errors_that_name_the_key(setting, value, message):
    with pytest.raises(ConfigError, match=message):
        make_renderer(VideoConfig(**{setting: value}))


def test_a_service_url_that_is_not_http_is_refused():
    with pytest.raises(ConfigError, match="player_url must be an http"):
        Renderer(VideoConfig(), player_url="javascript:alert(1)", static_url=STATIC)


def test_a_missing_player_url_is_named_when_a_video_needs_it():
    renderer = Renderer(VideoConfig(), player_url="", static_url="")
    with pytest.raises(ConfigError, match="no service player_url"):
        video(renderer=renderer)


node = shutil.which("node")


def run_in_fake_dom(tmp_path: Path, steps: list[dict], existing_links: list[str] = ()) -> dict:
    spec = tmp_path / "steps.json"
    spec.write_text(
        json.dumps(
            {"playerClass": "MFPlayer", "existingLinks": list(existing_links), "steps": steps}
        )
    )
    harness = Path(__file__).with_name("fake_dom.js")
    done = subprocess.run(
        [node, str(harness), str(spec)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.skipif(node is None, reason="needs node")
def test_two_script_embeds_add_the_stylesheet_and_player_once_and_both_construct(tmp_path):
    first_id, first = script_parts(video(("embed", "script")))
    second_sc = shortcode("media_video", 46, ("embed", "script"), ("lang", "en"), line=9)
    second_file = File(id=46, name="Other", media_id="zz9")
    second_id, second = script_parts(make_renderer().video(second_sc, second_file))
    third_sc = shortcode("media_video", 45, ("embed", "script"), line=20)
    third_id, third = script_parts(make_renderer().video(third_sc, FILM))

    result = run_in_fake_dom(
        tmp_path, [{"run": first}, {"run": second}, {"load": True}, {"run": third}]
    )

    assert result["links"] == [
        {"rel": "stylesheet", "type": "text/css", "href": f"{STATIC}/css/mediaflowplayer.min.css"}
    ]
    assert result["scripts"] == [
        {"src": f"{STATIC}/js/mediaflowplayer.min.js", "crossorigin": "anonymous"}
    ]
    assert [step["constructed"] for step in result["log"]] == [0, 0, 2, 3]
    assert result["constructed"] == [
        [first_id, "a1B2-c3_D4", {"defaultLanguage": "sv", "displayLanguage": "sv"}],
        [second_id, "zz9", {"defaultLanguage": "en", "displayLanguage": "en"}],
        [third_id, "a1B2-c3_D4", {"defaultLanguage": "sv", "displayLanguage": "sv"}],
    ]


@pytest.mark.skipif(node is None, reason="needs node")
def test_a_stylesheet_already_in_the_head_is_not_added_again(tmp_path):
    _, script = script_parts(video(("embed", "script")))
    css = f"{STATIC}/css/mediaflowplayer.min.css"
    result = run_in_fake_dom(tmp_path, [{"run": script}], existing_links=[css])
    assert [link["href"] for link in result["links"]] == [css]


# -- placeholders ---------------------------------------------------------------------------


def test_a_placeholder_is_visible_escaped_and_names_the_shortcode_and_place():
    sc = shortcode("media_image", 999, line=7, col=4)
    html = make_renderer().placeholder(sc, f"file 999 not found {HOSTILE}")
    assert html.startswith('<span class="mediashortcodes-missing" data-shortcode="media_image"')
    assert 'data-file-id="999" data-location="content/page.md:7:4"' in html
    assert "border:2px dashed" in html
    assert "media_image 999: file 999 not found &#34;&gt;&lt;script&gt;" in html
    assert "<script>" not in html


def test_a_placeholder_never_shows_a_download_token():
    sc = shortcode("media_image", 12)
    message = "download failed: https://dl.example.com/dn/s3cr3tT0ken/custom?w=10&sid=abc"
    html = make_renderer().placeholder(sc, message)
    assert "s3cr3tT0ken" not in html
    assert "sid=abc" not in html


# -- templates ------------------------------------------------------------------------------


def test_every_default_template_exists():
    directory = render.default_templates_dir()
    assert sorted(p.name for p in directory.glob("*.html")) == sorted(render.TEMPLATE_NAMES)


def test_a_site_template_overrides_the_default_of_the_same_name(tmp_path):
    (tmp_path / "media_image.html").write_text(
        '<picture><img src="{{ src }}" alt="{{ alt }}" data-id="{{ file.id }}"></picture>\n'
    )
    renderer = make_renderer(site_templates=tmp_path)
    resolved = ResolvedImage(CAT, "/media/cat.jpg", 10, 10)
    assert renderer.image(shortcode("media_image", 12), resolved) == (
        '<picture><img src="/media/cat.jpg" alt="A cat on a mat" data-id="12"></picture>'
    )
    assert video(renderer=renderer).startswith('<div style="position:relative')


def test_the_overridden_image_template_is_used_inside_figures_too(tmp_path):
    (tmp_path / "media_image.html").write_text('<img src="{{ src }}" alt="{{ alt }}">')
    renderer = make_renderer(site_templates=tmp_path)
    resolved = ResolvedImage(CAT, "/media/cat.jpg", 10, 10)
    sc = shortcode("media_image", 12, ("caption", "Cat"))
    assert renderer.image(sc, resolved) == (
        '<figure><img src="/media/cat.jpg" alt="A cat on a mat">'
        "<figcaption>Cat</figcaption></figure>"
    )


def test_a_broken_site_template_is_a_config_error_naming_the_file(tmp_path):
    (tmp_path / "media_image.html").write_text("<img src={{ src }\n")
    with pytest.raises(ConfigError, match=r"media_image\.html:1: "):
        image_renderer = make_renderer(site_templates=tmp_path)
        image_renderer.image(shortcode("media_image", 12), ResolvedImage(CAT, "/m.jpg", 1, 1))


def test_a_site_template_using_an_unknown_variable_is_a_config_error(tmp_path):
    (tmp_path / "media_image.html").write_text("<img src={{ source }}>")
    renderer = make_renderer(site_templates=tmp_path)
    with pytest.raises(ConfigError, match="'source' is undefined"):
        renderer.image(shortcode("media_image", 12), ResolvedImage(CAT, "/m.jpg", 1, 1))


def test_from_config_uses_the_sites_templates_folder(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "media_placeholder.html").write_text("missing {{ file_id }}")
    config = Config(
        root=tmp_path,
        service=ServiceConfig(player_url=PLAYER, static_url=STATIC),
        site=SiteConfig(templates="templates"),
    )
    renderer = Renderer.from_config(config)
    assert renderer.placeholder(shortcode("media_video", 5), "gone") == "missing 5"


def test_output_is_identical_across_renderers():
    assert video(("embed", "script")) == video(("embed", "script"))
    assert image(("caption", "x")) == image(("caption", "x"))


def test_render_dispatches_images_and_videos():
    renderer = make_renderer()
    resolved = ResolvedImage(CAT, "/media/cat.jpg", 10, 10)
    assert renderer.render(shortcode("media_image", 12), resolved).startswith("<img ")
    assert renderer.render(shortcode("media_video", 45), FILM).startswith("<div ")


def test_the_public_names_are_exported():
    assert all(hasattr(render, name) for name in render.__all__)
    assert {"Renderer", "ResolvedImage", "RenderError", "EmbedError"} <= set(render.__all__)


def test_a_parsed_shortcode_renders_with_its_options():
    (sc,) = parse('<% media_image 12 alt="" class=hero loading=eager %>', "content/a.md").segments
    html = make_renderer().image(sc, ResolvedImage(CAT, "/media/cat.jpg", 10, 10))
    assert html == (
        '<img src="/media/cat.jpg" alt="" width="10" height="10" loading="eager" '
        'decoding="async" class="hero">'
    )
