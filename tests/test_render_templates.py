"""The bundled image, figure and iframe templates' HTML, and a site's own templates.

The expected HTML is written out below, escaping included (the templates autoescape every
value); a site template of the same name replaces a bundled one.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markupsafe import Markup, escape

from mediashortcodes.config import VideoConfig
from mediashortcodes.errors import ConfigError
from mediashortcodes.language import Location, Shortcode
from mediashortcodes.media import render
from mediashortcodes.media.render import EmbedError, Renderer, RenderError, ResolvedImage
from mediashortcodes.records import File, FileType

# Two players: one plain, one whose URL needs escaping in an attribute.
PLAYERS = ("https://player.example.com", "https://player.example.com/p?a=1&b=2")
STATIC = "https://static.example.com"
SITE_TEMPLATES = ("media_image.html", "media_figure.html", "media_video_iframe.html")

# Text that HTML must escape, plus unicode, whitespace and anything else hypothesis finds.
TEXT = st.one_of(
    st.text(alphabet=st.sampled_from(list("&<>\"' aZ0é€\u00a0😀\n\t")), max_size=12),
    st.text(max_size=12),
)
MAYBE_TEXT = st.none() | TEXT
SIZE = st.integers(min_value=0, max_value=100_000)
MEDIA_ID = st.from_regex(render.MEDIA_ID, fullmatch=True)
NO_DATABASE = settings(database=None, deadline=None, max_examples=300)


def renderer(player_url: str, site_templates: Path | None = None) -> Renderer:
    return Renderer(
        VideoConfig(), player_url=player_url, static_url=STATIC, site_templates=site_templates
    )


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Renderer, Renderer]]:
    """For each player URL: (the bundled templates, a site's copies of them)."""
    copies = tmp_path_factory.mktemp("bundled-copies")
    for name in render.TEMPLATE_NAMES:
        shutil.copy(render.default_templates_dir() / name, copies / name)
    return {url: (renderer(url), renderer(url, copies)) for url in PLAYERS}


def image_html(src, alt, width, height, loading, css_class, title, caption) -> str:
    """What media_image.html (and media_figure.html with a caption) say."""
    html = f'<img src="{escape(src)}"'
    html += (
        f' alt="{escape(alt)}" width="{escape(width)}" '
        f'height="{escape(height)}" loading="{escape(loading)}" decoding="async"'
    )
    if css_class and not caption:
        html += f' class="{escape(css_class)}"'
    if title:
        html += f' title="{escape(title)}"'
    html += ">"
    if not caption:
        return html
    attributes = f' class="{escape(css_class)}"' if css_class else ""
    return f"<figure{attributes}>{html}<figcaption>{escape(caption)}</figcaption></figure>"


def iframe_html(title, src) -> str:
    """What media_video_iframe.html says."""
    return (
        '<div style="position:relative;overflow:hidden;width:100%;padding-top:56.25%">'
        f'<iframe title="{escape(title)}" src="{escape(src)}" frameborder="0" '
        'allowfullscreen="true" allow="autoplay;encrypted-media;picture-in-picture" '
        'style="position:absolute;top:0;left:0;bottom:0;right:0;width:100%;height:100%">'
        "</iframe></div>"
    )


def shortcode(name: str, file_id: int, options: dict[str, str | None]) -> Shortcode:
    given_options = tuple((k, v) for k, v in options.items() if v is not None)
    return Shortcode(
        name, file_id, None, given_options, Location("content/page.md", 3, 1), f"<% {name} %>"
    )


def same(bundled: Markup, copied: Markup, expected: str) -> None:
    assert type(bundled) is Markup
    assert type(copied) is Markup
    assert str(bundled) == str(copied) == expected


@NO_DATABASE
@given(
    alt=MAYBE_TEXT,
    title=MAYBE_TEXT,
    css_class=MAYBE_TEXT,
    caption=MAYBE_TEXT,
    loading=st.sampled_from([None, "lazy", "eager"]),
    alttext=MAYBE_TEXT,
    filename=st.from_regex(r"[A-Za-z0-9_.&'-]{1,20}", fullmatch=True),
    width=SIZE,
    height=SIZE,
)
@example(
    alt="A & B <c>",
    title="\"quoted\" 'single'",
    css_class="wide",
    caption="<b>&amp;</b>",
    loading="eager",
    alttext=None,
    filename="cat.jpg",
    width=640,
    height=427,
)
@example(
    alt=None,
    title="",
    css_class="",
    caption="",
    loading=None,
    alttext=None,
    filename="a",
    width=0,
    height=0,
)
@example(
    alt="",
    title=" ",
    css_class=" ",
    caption=" ",
    loading="lazy",
    alttext="a cat",
    filename="x&'y.png",
    width=1,
    height=1,
)
def test_an_image_renders_as_the_bundled_templates_render_it(
    pairs: dict[str, tuple[Renderer, Renderer]],
    alt: str | None,
    title: str | None,
    css_class: str | None,
    caption: str | None,
    loading: str | None,
    alttext: str | None,
    filename: str,
    width: int,
    height: int,
) -> None:
    options = {"alt": alt, "title": title, "class": css_class, "caption": caption}
    sc = shortcode("media_image", 12, {**options, "loading": loading})
    file = File(id=12, name="Cat", filename=filename, alttext=alttext)
    resolved = ResolvedImage(file, f"/media/12-{filename}", width, height)
    bundled, copied = pairs[PLAYERS[0]]
    expected = image_html(
        resolved.src,
        alttext if alt is None else alt,
        width,
        height,
        loading or "lazy",
        css_class,
        title,
        caption,
    )
    same(bundled.image(sc, resolved), copied.image(sc, resolved), expected)


@NO_DATABASE
@given(
    player_url=st.sampled_from(PLAYERS),
    title=MAYBE_TEXT,
    name=MAYBE_TEXT,
    filename=MAYBE_TEXT,
    media_id=MEDIA_ID,
    file_id=st.integers(min_value=1, max_value=10**9),
    embed=st.sampled_from([None, "iframe"]),
    lang=st.sampled_from([None, "sv", "en-GB"]),
)
@example(
    player_url=PLAYERS[1],
    title="<script>alert('x')</script>",
    name=None,
    filename=None,
    media_id="a1B2-c3_D4",
    file_id=45,
    embed=None,
    lang=None,
)
def test_an_iframe_renders_as_the_bundled_template_renders_it(
    pairs: dict[str, tuple[Renderer, Renderer]],
    player_url: str,
    title: str | None,
    name: str | None,
    filename: str | None,
    media_id: str,
    file_id: int,
    embed: str | None,
    lang: str | None,
) -> None:
    sc = shortcode("media_video", file_id, {"title": title, "embed": embed, "lang": lang})
    file = File(
        id=file_id,
        name=name,
        filename=filename,
        media_id=media_id,
        type=FileType(type="video"),
    )
    bundled, copied = pairs[player_url]
    expected = iframe_html(
        title or name or filename or f"Video {file_id}", f"{player_url}/ovp/11/{media_id}"
    )
    same(bundled.video(sc, file), copied.video(sc, file), expected)


def test_a_script_embed_and_a_placeholder_render_their_templates():
    site = renderer(PLAYERS[0])
    film = File(id=45, name="Film", media_id="abc", type=FileType(type="video"))
    script = site.video(shortcode("media_video", 45, {"embed": "script"}), film)
    assert script.startswith('<div id="mediashortcodes-video-45-')
    placeholder = site.placeholder(shortcode("media_video", 45, {}), "gone")
    assert placeholder.startswith('<span class="mediashortcodes-missing"')


def test_a_site_image_template_is_used_and_the_bundled_figure_wraps_it(tmp_path: Path):
    (tmp_path / "media_image.html").write_text('<img data-site src="{{ src }}">\n')
    site = renderer(PLAYERS[0], tmp_path)
    cat = ResolvedImage(File(id=12, alttext="A cat"), "/media/a&b.jpg", 10, 10)
    assert site.image(shortcode("media_image", 12, {}), cat) == (
        '<img data-site src="/media/a&amp;b.jpg">'
    )
    assert site.image(shortcode("media_image", 12, {"caption": "<Cat>"}), cat) == (
        '<figure><img data-site src="/media/a&amp;b.jpg"><figcaption>&lt;Cat&gt;</figcaption>'
        "</figure>"
    )


@pytest.mark.parametrize("name", SITE_TEMPLATES)
def test_a_site_template_that_shows_the_shortcode_is_not_reused(tmp_path: Path, name: str):
    (tmp_path / name).write_text("{{ shortcode.location.line }}")
    site = renderer(PLAYERS[0], tmp_path)
    sc = shortcode("media_video" if name == "media_video_iframe.html" else "media_image", 1, {})
    assert not site.same_everywhere(sc)


@pytest.mark.parametrize("name", SITE_TEMPLATES)
def test_a_broken_site_template_is_a_config_error(tmp_path: Path, name: str):
    (tmp_path / name).write_text("<b>{{ src }\n")
    site = renderer(PLAYERS[0], tmp_path)
    cat = ResolvedImage(File(id=12, alttext="A cat"), "/media/cat.jpg", 10, 10)
    film = File(id=45, name="Film", media_id="abc", type=FileType(type="video"))
    with pytest.raises(ConfigError, match=rf"{name}:1: "):
        if name == "media_video_iframe.html":
            site.video(shortcode("media_video", 45, {}), film)
        else:
            site.image(shortcode("media_image", 12, {"caption": "c"}), cat)


def test_bad_options_fail_before_any_template():
    site = renderer(PLAYERS[0])
    cat = ResolvedImage(File(id=12), "/media/cat.jpg", 10, 10)
    with pytest.raises(RenderError, match="loading must be lazy or eager"):
        site.image(shortcode("media_image", 12, {"loading": "soon"}), cat)
    film = File(id=45, media_id="abc", type=FileType(type="video"))
    with pytest.raises(EmbedError, match="lang must be a language code"):
        site.video(shortcode("media_video", 45, {"lang": "<x>"}), film)
    with pytest.raises(EmbedError, match="has a mediaId the service should not send"):
        site.video(shortcode("media_video", 45, {}), File(id=45, media_id="a b"))
